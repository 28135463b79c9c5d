import CLilv
import TactusOffline

/// A port buffer holding an atom sequence, 8-byte aligned, allocated once.
///
/// As input, the host builds the block's events in it; as output, the host
/// announces the capacity and reads back what the plugin wrote.
final class AtomBuffer {
    let capacity: Int
    let base: UnsafeMutableRawPointer

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
    }

    deinit { base.deallocate() }

    var sequence: UnsafeMutablePointer<LV2_Atom_Sequence> { base.assumingMemoryBound(to: LV2_Atom_Sequence.self) }

    /// An output port before `run()`: an `atom:Chunk` announcing the space (LV2 atom spec).
    func prepareOutput(chunkType: LV2_URID) {
        sequence.pointee.atom.type = chunkType
        sequence.pointee.atom.size = UInt32(capacity - MemoryLayout<LV2_Atom>.size)
    }

    /// An empty input sequence.
    func clearInput(sequenceType: LV2_URID) {
        sequence.pointee.atom.type = sequenceType
        sequence.pointee.atom.size = UInt32(MemoryLayout<LV2_Atom_Sequence_Body>.size)
        sequence.pointee.body.unit = 0
        sequence.pointee.body.pad = 0
    }

    /// Appends an event to an input sequence; false when it does not fit.
    @discardableResult
    func append(frames: Int64, type: LV2_URID, body: [UInt8]) -> Bool {
        let used = MemoryLayout<LV2_Atom>.size + Int(sequence.pointee.atom.size)
        let bytes = (16 + body.count + 7) & ~7
        guard used + bytes <= capacity else { return false }
        let event = base + used
        event.storeBytes(of: frames, as: Int64.self)
        event.storeBytes(of: UInt32(body.count), toByteOffset: 8, as: UInt32.self)
        event.storeBytes(of: type, toByteOffset: 12, as: UInt32.self)
        (event + 16).initializeMemory(as: UInt8.self, repeating: 0, count: bytes - 16)
        body.withUnsafeBytes { (event + 16).copyMemory(from: $0.baseAddress!, byteCount: body.count) }
        sequence.pointee.atom.size += UInt32(bytes)
        return true
    }

    /// The events of an output sequence the plugin wrote: (frames, type, body).
    func events(sequenceType: LV2_URID) -> [(frames: Int64, type: LV2_URID, body: [UInt8])] {
        guard sequence.pointee.atom.type == sequenceType else { return [] }
        let size = Int(sequence.pointee.atom.size)
        guard size >= 8, size <= capacity - 8 else { return [] }
        var result: [(Int64, LV2_URID, [UInt8])] = []
        var offset = 16  // atom header + sequence body header
        let end = 8 + size
        while offset + 16 <= end {
            let event = base + offset
            let frames = event.load(as: Int64.self)
            let bodySize = Int(event.load(fromByteOffset: 8, as: UInt32.self))
            let type = event.load(fromByteOffset: 12, as: UInt32.self)
            guard offset + 16 + bodySize <= end else { break }
            result.append((frames, type, Array(UnsafeRawBufferPointer(start: event + 16, count: bodySize))))
            offset += (16 + bodySize + 7) & ~7
        }
        return result
    }
}

/// Builds atom bodies the way a host's forge would.
struct AtomBodies {
    let map: URIDMap

    /// An `atom:Object` body: id 0, the type, then each property (key, value type, value bytes).
    func object(type: String, properties: [(key: String, type: String, value: [UInt8])]) -> [UInt8] {
        var out = le(UInt32(0)) + le(map.id(type))
        for p in properties {
            out += le(map.id(p.key)) + le(UInt32(0)) + le(UInt32(p.value.count)) + le(map.id(p.type)) + p.value
            while out.count % 8 != 0 { out.append(0) }
        }
        return out
    }

    /// A `time:Position` object from a script's wire values.
    func position(_ p: HostPosition) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/time#Position", properties: p.fields.map { field in
            let key = "http://lv2plug.in/ns/ext/time#" + field.key.rawValue
            switch field.value {
            case .int(let v): return (key, "http://lv2plug.in/ns/ext/atom#Int", le(UInt32(bitPattern: v)))
            case .long(let v): return (key, "http://lv2plug.in/ns/ext/atom#Long", le(UInt64(bitPattern: v)))
            case .float(let v): return (key, "http://lv2plug.in/ns/ext/atom#Float", le(v.bitPattern))
            case .double(let v): return (key, "http://lv2plug.in/ns/ext/atom#Double", le(v.bitPattern))
            case .string(let s): return (key, "http://lv2plug.in/ns/ext/atom#String", Array(s.utf8) + [0])
            }
        })
    }

    /// `patch:Set` of `property` to a string-like value (`atom:String` or `atom:Path`).
    func patchSet(property: String, valueType: String, text: [UInt8]) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/patch#Set", properties: [
            ("http://lv2plug.in/ns/ext/patch#property", "http://lv2plug.in/ns/ext/atom#URID", le(map.id(property))),
            ("http://lv2plug.in/ns/ext/patch#value", valueType, text + [0]),
        ])
    }

    /// `patch:Get`, of one property or (nil) of all.
    func patchGet(property: String?) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/patch#Get", properties: property.map {
            [("http://lv2plug.in/ns/ext/patch#property", "http://lv2plug.in/ns/ext/atom#URID", le(map.id($0)))]
        } ?? [])
    }

    func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    func le(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
}
