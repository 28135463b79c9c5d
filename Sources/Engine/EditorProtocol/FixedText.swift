/// A fixed-capacity byte buffer, allocated once at `init` (off the audio
/// thread): room for a message built on the audio thread. Owned by one thread.
public struct FixedBytes: ~Copyable {
    public let base: UnsafeMutableRawPointer
    public let capacity: Int
    public var count = 0

    public init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    public var bytes: UnsafeRawBufferPointer {
        @_noLocks get { UnsafeRawBufferPointer(start: base, count: count) }
    }
}

/// A fixed-capacity text, written without allocating (messages composed on
/// the audio thread); what does not fit is cut off. Owned by one thread.
public struct FixedText: ~Copyable {
    private var storage: FixedBytes

    public init(capacity: Int) { storage = FixedBytes(capacity: capacity) }

    public var bytes: UnsafeRawBufferPointer {
        @_noLocks get { storage.bytes }
    }

    @_noLocks
    public mutating func clear() { storage.count = 0 }

    @_noLocks
    public mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @_noLocks
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes where storage.count < storage.capacity {
            storage.base.storeBytes(of: b, toByteOffset: storage.count, as: UInt8.self)
            storage.count += 1
        }
    }

    @_noLocks
    public mutating func append(_ number: Int) {
        if number < 0 { append("-") }
        let n = number.magnitude
        var divisor: UInt = 1
        while divisor <= n / 10 { divisor *= 10 }
        while divisor > 0 {
            appendByte(UInt8(48 + (n / divisor) % 10))
            divisor /= 10
        }
    }

    @_noLocks
    private mutating func appendByte(_ b: UInt8) {
        guard storage.count < storage.capacity else { return }
        storage.base.storeBytes(of: b, toByteOffset: storage.count, as: UInt8.self)
        storage.count += 1
    }
}
