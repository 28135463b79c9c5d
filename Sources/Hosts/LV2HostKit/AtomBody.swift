import CLV2
import LV2Atoms

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

/// Atom bodies as bytes, for the hosts, the tests and the fuzzers, laid out by
/// the codec (`LV2Atoms`) as `lv2_atom_forge` lays them out.
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
        AtomObjectWriter.bytes(otype: otype) { object in
            for p in properties {
                p.body.withUnsafeBytes { object.add(p.key, type: p.type, bytes: $0, declaredSize: p.declaredSize) }
            }
        }
    }

    public static func bytes<T: BitwiseCopyable>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value) { Array($0) }
    }
}

extension AtomBody {
    /// A `patch:Set` object body: `property` to a string-like value (`atom:String`, `atom:Path`).
    public static func patchSet(property: LV2_URID, valueType: LV2_URID, text: [UInt8], uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.patchSet) { object in
            text.withUnsafeBytes { object.addPatchSet(property: property, sequenceNumber: nil, valueType: valueType, text: $0, uris: uris) }
        }
    }

    /// A `patch:Set` object body with an `atom:Long` value (`urn:tactus:laneMutes`).
    public static func patchSetLong(property: LV2_URID, value: Int64, uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.patchSet) { $0.addPatchSet(property: property, long: value, uris: uris) }
    }

    /// A `patch:Get` object body, of one property or (nil) of all.
    public static func patchGet(property: LV2_URID?, uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.patchGet) { $0.addPatchGet(property: property, uris: uris) }
    }

    /// `patch:Set` of `property` (`urn:tactus:pattern`, `urn:tactus:patternChange`) to a
    /// string, numbered (`patch:sequenceNumber`), as the editor sends an edit.
    public static func numberedPatchSet(property: LV2_URID, sequence: Int32, text: [UInt8], uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.patchSet) { object in
            text.withUnsafeBytes {
                object.addPatchSet(property: property, sequenceNumber: sequence, valueType: uris.atomString, text: $0, uris: uris)
            }
        }
    }

    /// `tactus:textPiece`: bytes at `offset` of a payload of `length` bytes whose `TextHash` is `hash`.
    public static func textPiece(
        property: LV2_URID, sequence: Int32, offset: Int, length: Int, hash: UInt64, bytes: [UInt8], uris: URIDTable
    ) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.textPiece) { object in
            bytes.withUnsafeBytes {
                object.addTextPiece(property: property, sequenceNumber: sequence, offset: offset, length: length, hash: hash, bytes: $0, uris: uris)
            }
        }
    }

    /// `patch:Get` of the pattern from `offset`, at most `window` bytes, of the text whose hash is `hash` (nil: the one in use).
    public static func textWanted(hash: UInt64?, offset: Int, window: Int, uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.patchGet) { $0.addTextWanted(hash: hash, offset: offset, window: window, uris: uris) }
    }

    /// `tactus:request` of pattern `number` (1-based) at the boundary `when` spells (nil: the text's `switch at`), as the editor asks.
    public static func request(pattern number: Int32, when: String?, uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.bytes(otype: uris.request) { object in
            if let when {
                Array(when.utf8).withUnsafeBytes { object.addRequest(pattern: number, when: $0, uris: uris) }
            } else {
                object.addRequest(pattern: number, when: nil, uris: uris)
            }
        }
    }
}
