import CLV2

/// What the audio thread owns. Touched only by functions of LV2's audio
/// threading class: `run()`, `connect_port`, `activate`, `deactivate` and the
/// worker's `work_response`.
struct AudioSide: ~Copyable {
    var controlPort: UnsafePointer<LV2_Atom_Sequence>? = nil
    var midiPort: UnsafeMutablePointer<LV2_Atom_Sequence>? = nil
    var notifyPort: UnsafeMutablePointer<LV2_Atom_Sequence>? = nil
    var renderer: BlockRenderer
    /// A pattern the worker built, installed at the start of the next block (§5).
    var incoming: PatternSnapshot? = nil
    /// Replaced snapshots the retired queue had no room for yet.
    var unretired = SnapshotStack()
    var notifications = PendingNotifications()
    /// The last error, for `urn:tactus:error` on the notify port.
    var error = FixedText(capacity: 1024)
    /// A worker request being assembled (header + payload): copied by the host's schedule_work.
    var request = FixedBytes(capacity: PluginLimits.requestBytes)
    var reportedDrops: Int64 = 0
}

/// Notify messages to send at the end of the current `run()`.
struct PendingNotifications {
    var stateChanged = false
    var pattern = false
    var patternFile = false
    var error = false
    var droppedNoteOns = false
}

/// What the non-realtime side owns: the text that `save()` stores. The worker
/// and `restore()` write it, `save()` reads it, under the mutex; `run()` never
/// touches it.
struct ControlSide {
    let mutex: OpaquePointer
    var latestText: [UInt8]
    var latestSource: [UInt8]?
}

/// Set at instantiate and read-only after, or lock-free: any thread may use it.
struct SharedSide: ~Copyable {
    let sampleRate: Double
    let log: UnsafePointer<LV2_Log_Log>?
    let schedule: UnsafePointer<LV2_Worker_Schedule>?
    /// Snapshots from `restore()` to the audio thread, and replaced ones back.
    let exchange: SnapshotExchange
    /// Who frees retired snapshots: the worker if the host has one, else `restore()`/`cleanup()`.
    let reclaimInWorker: Bool
}

/// The plugin instance: what `LV2_Handle` points to. Three separately
/// allocated parts, one per threading class, so that no thread ever forms an
/// access to another thread's part.
struct Plugin {
    let audio: UnsafeMutablePointer<AudioSide>
    let midi: UnsafeMutablePointer<MIDIEventBuffer>
    let control: UnsafeMutablePointer<ControlSide>
    let shared: UnsafeMutablePointer<SharedSide>
    let uris: UnsafePointer<URIDTable>

    @_noLocks @inline(__always)
    static func from(_ handle: LV2_Handle?) -> Plugin {
        handle!.assumingMemoryBound(to: Plugin.self).pointee
    }

    /// Hands a replaced snapshot to the reclaimer (never frees it here: this may be the audio thread).
    @_noLocks
    func retire(_ snapshot: PatternSnapshot) {
        if !shared.pointee.exchange.retire(snapshot) {
            audio.pointee.unretired.push(snapshot)
            return
        }
        if shared.pointee.reclaimInWorker, let schedule = shared.pointee.schedule {
            var header = WorkRequest(kind: WorkRequest.reclaim, length: 0)
            _ = withUnsafeBytes(of: &header) { tactus_schedule_work(schedule, UInt32($0.count), $0.baseAddress) }
        }
    }

    /// Non-realtime: frees every retired snapshot (on the single reclaiming thread).
    func reclaim() {
        shared.pointee.exchange.reclaim()
    }

    func log(_ type: LV2_URID, _ message: String) {
        var text = message
        text.withUTF8 { bytes in
            var zeroTerminated = [CChar](repeating: 0, count: bytes.count + 1)
            for i in 0..<bytes.count { zeroTerminated[i] = CChar(bitPattern: bytes[i]) }
            tactus_log(shared.pointee.log, type, zeroTerminated)
        }
    }
}

enum PluginLimits {
    /// Largest worker request: a pattern text or a path sent with patch:Set.
    static var requestBytes: Int { 1 << 16 }
    /// Largest pattern file read.
    static var fileBytes: Int { 16 << 20 }
    /// Events the MIDI buffer can hold in one block (the port's size may lower it).
    static var midiEvents: Int { 8192 }
}

/// A few snapshots waiting to be retired, in fixed storage.
struct SnapshotStack {
    private var items: (PatternSnapshot?, PatternSnapshot?, PatternSnapshot?, PatternSnapshot?) = (nil, nil, nil, nil)
    private(set) var count = 0

    @_noLocks
    mutating func push(_ s: PatternSnapshot) {
        switch count {
        case 0: items.0 = s
        case 1: items.1 = s
        case 2: items.2 = s
        case 3: items.3 = s
        default: return  // Leaked rather than freed on the audio thread; needs 40+ edits in one block.
        }
        count += 1
    }

    @_noLocks
    mutating func pop() -> PatternSnapshot? {
        guard count > 0 else { return nil }
        count -= 1
        switch count {
        case 0: defer { items.0 = nil }; return items.0
        case 1: defer { items.1 = nil }; return items.1
        case 2: defer { items.2 = nil }; return items.2
        default: defer { items.3 = nil }; return items.3
        }
    }
}

/// A fixed-capacity byte buffer, allocated once: room for a message built on the audio thread.
struct FixedBytes: ~Copyable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 8)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeRawBufferPointer {
        @_noLocks get { UnsafeRawBufferPointer(start: base, count: count) }
    }
}

/// A fixed-capacity text, written without allocating (messages composed in `run()`).
struct FixedText: ~Copyable {
    private var storage: FixedBytes

    init(capacity: Int) { storage = FixedBytes(capacity: capacity) }

    var bytes: UnsafeRawBufferPointer {
        @_noLocks get { storage.bytes }
    }

    @_noLocks
    mutating func clear() { storage.count = 0 }

    @_noLocks
    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    @_noLocks
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes where storage.count < storage.capacity {
            storage.base.storeBytes(of: b, toByteOffset: storage.count, as: UInt8.self)
            storage.count += 1
        }
    }

    @_noLocks
    mutating func append(_ number: Int) {
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
