import CLV2

/// One property of an atom object: key, value type and body, and the size
/// its header declares (the body's size unless set to lie).
public struct AtomProperty: Sendable {
    public var key: LV2_URID
    public var type: LV2_URID
    public var body: [UInt8]
    public var declaredSize: UInt32?

    public init(key: LV2_URID, type: LV2_URID, body: [UInt8], declaredSize: UInt32? = nil) {
        self.key = key
        self.type = type
        self.body = body
        self.declaredSize = declaredSize
    }
}

/// Atom bodies as bytes, the way `lv2_atom_forge` lays them out.
public enum AtomBody {
    public static func int(_ v: Int32) -> [UInt8] { bytes(of: v) }
    public static func long(_ v: Int64) -> [UInt8] { bytes(of: v) }
    public static func float(_ v: Float) -> [UInt8] { bytes(of: v) }
    public static func double(_ v: Double) -> [UInt8] { bytes(of: v) }
    public static func urid(_ v: LV2_URID) -> [UInt8] { bytes(of: v) }

    /// A string-like body (`atom:String`, `atom:Path`): the bytes and a terminating NUL.
    public static func text(_ bytes: [UInt8]) -> [UInt8] { bytes + [0] }
    public static func text(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    /// An object body: id 0, `otype`, then each property, padded to 8 bytes.
    public static func object(otype: LV2_URID, properties: [AtomProperty]) -> [UInt8] {
        var out = bytes(of: UInt32(0)) + bytes(of: otype)
        for p in properties {
            out += bytes(of: p.key) + bytes(of: UInt32(0))
            out += bytes(of: p.declaredSize ?? UInt32(p.body.count)) + bytes(of: p.type)
            out += p.body
            while out.count % 8 != 0 { out.append(0) }
        }
        return out
    }

    public static func bytes<T: BitwiseCopyable>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }
}

extension AtomBody {
    /// A `patch:Set` object body: `property` to a string-like value (`atom:String`, `atom:Path`).
    public static func patchSet(property: LV2_URID, valueType: LV2_URID, text: [UInt8], uris: HostURIs) -> [UInt8] {
        object(otype: uris.patchSet, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid(property)),
            AtomProperty(key: uris.patchValue, type: valueType, body: AtomBody.text(text)),
        ])
    }

    /// A `patch:Set` object body with an `atom:Long` value (`urn:tactus:laneMutes`).
    public static func patchSetLong(property: LV2_URID, value: Int64, uris: HostURIs) -> [UInt8] {
        object(otype: uris.patchSet, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid(property)),
            AtomProperty(key: uris.patchValue, type: uris.atomLong, body: withUnsafeBytes(of: value) { Array($0) }),
        ])
    }

    /// A `patch:Get` object body, of one property or (nil) of all.
    public static func patchGet(property: LV2_URID?, uris: HostURIs) -> [UInt8] {
        object(otype: uris.patchGet, properties: property.map { [AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid($0))] } ?? [])
    }
}

extension AtomBody {
    /// `patch:Set` of `property` (`urn:tactus:pattern`, `urn:tactus:patternChange`) to a
    /// string, numbered (`patch:sequenceNumber`), as the editor sends an edit.
    public static func numberedPatchSet(property: LV2_URID, sequence: Int32, text: [UInt8], uris: HostURIs) -> [UInt8] {
        object(otype: uris.patchSet, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid(property)),
            AtomProperty(key: uris.patchSequenceNumber, type: uris.atomInt, body: int(sequence)),
            AtomProperty(key: uris.patchValue, type: uris.atomString, body: AtomBody.text(text)),
        ])
    }

    /// `tactus:textPiece`: bytes at `offset` of a payload of `length` bytes whose `TextHash` is `hash`.
    public static func textPiece(
        property: LV2_URID, sequence: Int32, offset: Int, length: Int, hash: UInt64, bytes: [UInt8], uris: HostURIs
    ) -> [UInt8] {
        object(otype: uris.textPiece, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid(property)),
            AtomProperty(key: uris.patchSequenceNumber, type: uris.atomInt, body: int(sequence)),
            AtomProperty(key: uris.textOffset, type: uris.atomLong, body: long(Int64(offset))),
            AtomProperty(key: uris.textLength, type: uris.atomLong, body: long(Int64(length))),
            AtomProperty(key: uris.textHash, type: uris.atomLong, body: long(Int64(bitPattern: hash))),
            AtomProperty(key: uris.patchValue, type: uris.atomChunk, body: bytes),
        ])
    }

    /// `patch:Get` of the pattern from `offset`, at most `window` bytes, of the text whose hash is `hash` (nil: the one in use).
    public static func textWanted(hash: UInt64?, offset: Int, window: Int, uris: HostURIs) -> [UInt8] {
        var properties = [AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: urid(uris.pattern))]
        if let hash { properties.append(AtomProperty(key: uris.textHash, type: uris.atomLong, body: long(Int64(bitPattern: hash)))) }
        properties.append(AtomProperty(key: uris.textOffset, type: uris.atomLong, body: long(Int64(offset))))
        properties.append(AtomProperty(key: uris.textWindow, type: uris.atomLong, body: long(Int64(window))))
        return object(otype: uris.patchGet, properties: properties)
    }
}
