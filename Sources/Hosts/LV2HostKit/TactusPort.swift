import CLV2

/// The plugin's ports, on the host side (the indices are CLV2's, which the
/// plugin uses too and a test checks against tactus.ttl).
public enum TactusPort {
    public static var control: UInt32 { TACTUS_PORT_CONTROL }
    public static var midiOut: UInt32 { TACTUS_PORT_MIDI_OUT }
    public static var notify: UInt32 { TACTUS_PORT_NOTIFY }
    public static var count: UInt32 { TACTUS_PORT_COUNT }
    /// `mute1` ... `mute8` (§7.6): `muteFirst + i` mutes lane i.
    public static var muteFirst: UInt32 { TACTUS_PORT_MUTE_FIRST }
    public static var muteCount: UInt32 { TACTUS_PORT_MUTE_COUNT }
    /// `midi_thru` (§7.5).
    public static var midiThru: UInt32 { TACTUS_PORT_MIDI_THRU }
    /// `clock` (§12): MIDI clock on the MIDI output.
    public static var clock: UInt32 { TACTUS_PORT_CLOCK }
    /// `pattern` and `song` (§9.5, §9.6).
    public static var pattern: UInt32 { TACTUS_PORT_PATTERN }
    public static var song: UInt32 { TACTUS_PORT_SONG }
    /// `playing` and `queued`: output controls, the pattern playing and the one queued (§9; 0: none).
    public static var playing: UInt32 { TACTUS_PORT_PLAYING }
    public static var queued: UInt32 { TACTUS_PORT_QUEUED }
}
