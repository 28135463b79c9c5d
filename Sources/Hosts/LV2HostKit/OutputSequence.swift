import CLV2
import LV2Atoms

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

        /// (Public for the fuzz targets' note checker, which reads other formats' output as these.)
        public init(frames: Int64, type: LV2_URID, body: [UInt8]) {
            self.frames = frames
            self.type = type
            self.body = body
        }
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
        // The events follow the atom header and the sequence body's header.
        let headers = AtomLayout.atomHeaderBytes + AtomLayout.sequenceHeaderBytes
        var reader = AtomSequenceReader(events: buffer + headers, byteCount: size - AtomLayout.sequenceHeaderBytes)
        while let event = reader.next() {
            events.append(Event(frames: event.frames, type: event.atom.type, body: Array(event.atom.bytes)))
        }
        switch reader.malformation {
        case .truncatedHeader(let offset)?:
            throw Malformed(description: "a truncated event header at byte \(headers + offset)")
        case .bodyPastEnd(let offset, let bodySize)?:
            throw Malformed(description: "an event body of \(bodySize) bytes runs past the sequence at byte \(headers + offset)")
        case nil: break
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
    public init?(_ event: OutputSequence.Event, uris: URIDTable) {
        guard let object = ObjectMessage(event, uris: uris), object.otype == uris.patchSet else { return nil }
        var property: LV2_URID?
        var valueType: LV2_URID?
        var value: [UInt8] = []
        for (key, type, bytes) in object.properties {
            if key == uris.patchProperty, type == uris.atomURID, bytes.count >= 4 {
                property = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            } else if key == uris.patchValue {
                valueType = type
                value = bytes
                if type == uris.atomString || type == uris.atomPath {
                    while value.last == 0 { value.removeLast() }
                }
            }
        }
        guard let property, let valueType else { return nil }
        self.property = property
        self.valueType = valueType
        self.value = value
    }

    /// The value as text.
    public var text: String { String(decoding: value, as: UTF8.self) }

    /// The value as an `atom:Long`, when it is one.
    public func long(_ uris: URIDTable) -> Int64? {
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
    public init?(_ event: OutputSequence.Event, uris: URIDTable) {
        guard event.type == uris.atomObject || event.type == uris.atomBlank, event.body.count >= AtomLayout.objectHeaderBytes else { return nil }
        let found: (otype: LV2_URID, properties: [(key: LV2_URID, type: LV2_URID, body: [UInt8])])? = event.body.withUnsafeBytes { body in
            let view = AtomView(type: event.type, size: body.count, body: body.baseAddress!)
            guard var reader = AtomObjectReader(view, uris: uris) else { return nil }
            var properties: [(key: LV2_URID, type: LV2_URID, body: [UInt8])] = []
            while let (key, value) = reader.next() { properties.append((key, value.type, Array(value.bytes))) }
            // A property that runs past the object makes it malformed; a few bytes too few for another are left.
            if case .bodyPastEnd? = reader.malformation { return nil }
            return (reader.objectType, properties)
        }
        guard let found else { return nil }
        otype = found.otype
        properties = found.properties
    }

    /// The body of the first property with this key.
    public func value(_ key: LV2_URID) -> (type: LV2_URID, body: [UInt8])? {
        properties.first { $0.key == key }.map { ($0.type, $0.body) }
    }

    /// An `atom:Int` or `atom:Long` property's value.
    public func integer(_ key: LV2_URID, _ uris: URIDTable) -> Int64? {
        guard let v = value(key) else { return nil }
        if v.type == uris.atomLong, v.body.count >= 8 { return v.body.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) } }
        if v.type == uris.atomInt, v.body.count >= 4 { return Int64(v.body.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) }) }
        return nil
    }

    /// An `atom:URID` property's value.
    public func urid(_ key: LV2_URID, _ uris: URIDTable) -> LV2_URID? {
        guard let v = value(key), v.type == uris.atomURID, v.body.count >= 4 else { return nil }
        return v.body.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }
}
