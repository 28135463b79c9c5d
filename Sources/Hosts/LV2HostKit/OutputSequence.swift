import CLV2

/// A plugin's output port buffer: before each `run()` the host offers
/// `offered` bytes (by LV2's rule, the sequence's `atom.size` is set to the
/// space after the atom header); after it, `read()` checks what the plugin
/// wrote and returns the events.
public final class OutputSequence: @unchecked Sendable {
    /// The port buffer, 8-byte aligned.
    public let buffer: UnsafeMutableRawPointer
    /// Bytes allocated.
    public let capacity: Int
    /// Bytes offered to the plugin in the next `run()` (at most `capacity`).
    public var offered: Int

    public init(capacity: Int) {
        self.capacity = max(capacity, 8)
        offered = self.capacity
        buffer = .allocate(byteCount: self.capacity, alignment: 8)
        // Only the header is written before run(); read() reads what the plugin declares.
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
    }

    deinit { buffer.deallocate() }

    /// Before `run()`: an empty `atom:Chunk` announcing the space offered.
    public func prepare(chunkType: LV2_URID) {
        let bytes = min(max(offered, 8), capacity)
        buffer.storeBytes(of: UInt32(bytes - 8), as: UInt32.self)
        buffer.storeBytes(of: chunkType, toByteOffset: 4, as: UInt32.self)
    }

    /// An event the plugin wrote.
    public struct Event: Sendable {
        public var frames: Int64
        public var type: LV2_URID
        public var body: [UInt8]
    }

    /// Why an output sequence is not well formed.
    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// After `run()`: the events, checked to lie inside the bytes offered. An
    /// output that is not a sequence is empty when the plugin had less than a
    /// sequence header's room (it then writes nothing); else it is an error.
    public func read(sequenceType: LV2_URID) throws(Malformed) -> [Event] {
        let bytes = min(max(offered, 8), capacity)
        let size = Int(buffer.load(as: UInt32.self))
        let type = buffer.load(fromByteOffset: 4, as: UInt32.self)
        if type != sequenceType {
            if bytes < 16 { return [] }
            throw Malformed(description: "the output is not an atom:Sequence (type \(type), size \(size))")
        }
        guard size >= 8, 8 + size <= bytes else {
            throw Malformed(description: "the output sequence declares \(size) bytes; \(bytes - 8) were offered")
        }
        var events: [Event] = []
        var offset = 16
        let end = 8 + size
        while offset < end {
            guard end - offset >= 16 else { throw Malformed(description: "a truncated event header at byte \(offset)") }
            let frames = buffer.load(fromByteOffset: offset, as: Int64.self)
            let bodySize = Int(buffer.load(fromByteOffset: offset + 8, as: UInt32.self))
            let bodyType = buffer.load(fromByteOffset: offset + 12, as: UInt32.self)
            guard bodySize <= end - offset - 16 else {
                throw Malformed(description: "an event body of \(bodySize) bytes runs past the sequence at byte \(offset)")
            }
            let body = Array(UnsafeRawBufferPointer(start: buffer + offset + 16, count: bodySize))
            events.append(Event(frames: frames, type: bodyType, body: body))
            offset += (16 + bodySize + 7) & ~7
        }
        return events
    }
}

/// A `patch:Set` the plugin sent on its notify port, decoded.
public struct PatchSetMessage: Sendable {
    public var property: LV2_URID
    public var valueType: LV2_URID
    /// The value's body (a string's bytes without the terminating NUL).
    public var value: [UInt8]

    /// The message in an object event body, or nil when it is not a well-formed `patch:Set`.
    public init?(_ event: OutputSequence.Event, uris: HostURIs) {
        guard event.type == uris.atomObject || event.type == uris.atomBlank, event.body.count >= 8 else { return nil }
        let body = event.body
        func u32(_ at: Int) -> UInt32 {
            body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) }
        }
        guard u32(4) == uris.patchSet else { return nil }
        var property: LV2_URID?
        var valueType: LV2_URID?
        var value: [UInt8] = []
        var offset = 8
        while body.count - offset >= 16 {
            let key = u32(offset)
            let size = Int(u32(offset + 8))
            let type = u32(offset + 12)
            guard size <= body.count - offset - 16 else { return nil }
            let bytes = Array(body[(offset + 16)..<(offset + 16 + size)])
            if key == uris.patchProperty, type == uris.atomURID, size >= 4 {
                property = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            } else if key == uris.patchValue {
                valueType = type
                value = bytes
                if type == uris.atomString || type == uris.atomPath {
                    while value.last == 0 { value.removeLast() }
                }
            }
            offset += (16 + size + 7) & ~7
        }
        guard let property, let valueType else { return nil }
        self.property = property
        self.valueType = valueType
        self.value = value
    }

    /// The value as text.
    public var text: String { String(decoding: value, as: UTF8.self) }

    /// The value as an `atom:Long`, when it is one.
    public func long(_ uris: HostURIs) -> Int64? {
        guard valueType == uris.atomLong, value.count >= 8 else { return nil }
        return value.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
    }
}

/// An object the plugin sent on its notify port (`tactus:textPiece`,
/// `tactus:textReceipt`, any other), its properties decoded.
public struct ObjectMessage: Sendable {
    public var otype: LV2_URID
    /// Each property's key, value type and value body, in order.
    public var properties: [(key: LV2_URID, type: LV2_URID, body: [UInt8])]

    /// The object in an event body, or nil when it is not a well-formed object.
    public init?(_ event: OutputSequence.Event, uris: HostURIs) {
        guard event.type == uris.atomObject || event.type == uris.atomBlank, event.body.count >= 8 else { return nil }
        let body = event.body
        func u32(_ at: Int) -> UInt32 { body.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: UInt32.self) } }
        otype = u32(4)
        properties = []
        var offset = 8
        while body.count - offset >= 16 {
            let size = Int(u32(offset + 8))
            guard size <= body.count - offset - 16 else { return nil }
            properties.append((u32(offset), u32(offset + 12), Array(body[(offset + 16)..<(offset + 16 + size)])))
            offset += (16 + size + 7) & ~7
        }
    }

    /// The body of the first property with this key.
    public func value(_ key: LV2_URID) -> (type: LV2_URID, body: [UInt8])? {
        properties.first { $0.key == key }.map { ($0.type, $0.body) }
    }

    /// An `atom:Int` or `atom:Long` property's value.
    public func integer(_ key: LV2_URID, _ uris: HostURIs) -> Int64? {
        guard let v = value(key) else { return nil }
        if v.type == uris.atomLong, v.body.count >= 8 { return v.body.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) } }
        if v.type == uris.atomInt, v.body.count >= 4 { return Int64(v.body.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }) }
        return nil
    }

    /// An `atom:URID` property's value.
    public func urid(_ key: LV2_URID, _ uris: HostURIs) -> LV2_URID? {
        guard let v = value(key), v.type == uris.atomURID, v.body.count >= 4 else { return nil }
        return v.body.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
