import CLV2

/// The byte layout of LV2 atoms (lv2/atom/atom.h): the sizes of the headers
/// the project reads and writes, and the one place where the 8-byte padding
/// of an atom body is computed. Every reader and writer of atoms in the
/// project (the plugin, its editor, the hosts) lays them out through here.
///
/// Sizes are those of atoms, below 2^32: the arithmetic wraps instead of
/// checking for overflow (it is on the audio thread's path). Any thread.
public enum AtomLayout {
    /// `LV2_Atom`: the body's size, then its type.
    public static var atomHeaderBytes: Int {
        @inlinable @_noLocks get { 8 }
    }
    /// `LV2_Atom_Event`: the frame (8 bytes), then the atom header.
    public static var eventHeaderBytes: Int {
        @inlinable @_noLocks get { 16 }
    }
    /// `LV2_Atom_Property_Body`: key, context, then the value's atom header.
    public static var propertyHeaderBytes: Int {
        @inlinable @_noLocks get { 16 }
    }
    /// `LV2_Atom_Object_Body`: id, then otype.
    public static var objectHeaderBytes: Int {
        @inlinable @_noLocks get { 8 }
    }
    /// `LV2_Atom_Sequence_Body`: unit, then pad.
    public static var sequenceHeaderBytes: Int {
        @inlinable @_noLocks get { 8 }
    }

    /// `size` rounded up to a multiple of 8: the bytes an atom body of `size`
    /// bytes occupies inside a sequence or an object (`lv2_atom_pad_size`).
    @inlinable @inline(__always) @_noLocks
    public static func padded(_ size: Int) -> Int { (size &+ 7) & ~7 }

    /// The largest body of at most `bytes` bytes that still ends padded within them.
    @inlinable @inline(__always) @_noLocks
    public static func paddedRoom(_ bytes: Int) -> Int { bytes & ~7 }

    /// An event of a sequence with a body of `bodySize` bytes, header and padding included.
    @inlinable @inline(__always) @_noLocks
    public static func eventBytes(bodySize: Int) -> Int { eventHeaderBytes &+ padded(bodySize) }

    /// A property of an object with a value of `valueSize` bytes, header and padding included.
    @inlinable @inline(__always) @_noLocks
    public static func propertyBytes(valueSize: Int) -> Int { propertyHeaderBytes &+ padded(valueSize) }
}
