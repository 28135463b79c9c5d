import CLilv

/// An LV2 worker run the way offline hosts run it: what the plugin schedules
/// during `run()` is copied into a preallocated ring (`schedule_work` is
/// called on the audio thread and must not allocate), and after `run()`
/// returns the plugin's `work()` runs for each request, in order; the
/// responses go back through `work_response()` and `end_run()` before the
/// next `run()`.
///
/// Thread: the host's block loop, which is also the plugin's audio thread.
/// A request that does not fit the ring is refused with `LV2_WORKER_ERR_NO_SPACE`,
/// as a real host's full ring would.
public final class SynchronousWorker {
    private let ring: UnsafeMutableRawPointer
    public let ringCapacity: Int
    private var used = 0
    private var responses: [[UInt8]] = []
    /// The `worker:schedule` feature data, at a stable address.
    public let schedule = UnsafeMutablePointer<LV2_Worker_Schedule>.allocate(capacity: 1)
    /// How many requests `work()` has run.
    public private(set) var requestsRun = 0

    public init(ringCapacity: Int = 1 << 16) {
        self.ringCapacity = ringCapacity
        ring = .allocate(byteCount: ringCapacity, alignment: 8)
        schedule.initialize(to: LV2_Worker_Schedule(
            handle: Unmanaged.passUnretained(self).toOpaque(),
            schedule_work: { handle, size, data in
                guard let handle, let data else { return LV2_WORKER_ERR_UNKNOWN }
                return Unmanaged<SynchronousWorker>.fromOpaque(handle).takeUnretainedValue().enqueue(Int(size), data)
            }))
    }

    deinit {
        ring.deallocate()
        schedule.deallocate()
    }

    /// Called by the plugin in `run()`: copies without allocating.
    private func enqueue(_ size: Int, _ data: UnsafeRawPointer) -> LV2_Worker_Status {
        let needed = (4 + size + 7) & ~7
        guard used + needed <= ringCapacity else { return LV2_WORKER_ERR_NO_SPACE }
        ring.storeBytes(of: UInt32(size), toByteOffset: used, as: UInt32.self)
        (ring + used + 4).copyMemory(from: data, byteCount: size)
        used += needed
        return LV2_WORKER_SUCCESS
    }

    /// After `run()`: the plugin's `work()` for every request, in order.
    public func runRequests(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle) {
        let respond: LV2_Worker_Respond_Function = { handle, size, data in
            guard let handle, let data else { return LV2_WORKER_ERR_UNKNOWN }
            Unmanaged<SynchronousWorker>.fromOpaque(handle).takeUnretainedValue()
                .responses.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            return LV2_WORKER_SUCCESS
        }
        var offset = 0
        while offset < used {
            let size = Int(ring.load(fromByteOffset: offset, as: UInt32.self))
            _ = interface.pointee.work?(handle, respond, Unmanaged.passUnretained(self).toOpaque(), UInt32(size), ring + offset + 4)
            offset += (4 + size + 7) & ~7
            requestsRun += 1
        }
        used = 0
    }

    /// The plugin's `work_response()` for every response, then `end_run()`.
    /// These are audio-thread calls: `around` brackets each one (for a
    /// realtime check), and nothing of the worker's own that allocates runs
    /// inside it.
    public func deliverResponses(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle,
                                 around: (() -> Void) -> Void = { $0() }) {
        for response in responses {
            response.withUnsafeBytes { bytes in
                around { _ = interface.pointee.work_response?(handle, UInt32(bytes.count), bytes.baseAddress) }
            }
        }
        if let endRun = interface.pointee.end_run { around { _ = endRun(handle) } }
        responses.removeAll(keepingCapacity: true)
    }

    /// Whether responses wait for `deliverResponses`.
    public var hasResponses: Bool { !responses.isEmpty }

    /// After `run()`: every request's `work()`, then every response's `work_response()`, then `end_run()`.
    public func finishBlock(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle) {
        runRequests(interface, handle)
        deliverResponses(interface, handle)
    }
}
