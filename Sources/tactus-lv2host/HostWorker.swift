import CLilv

/// A synchronous LV2 worker, as offline hosts run it: requests scheduled
/// during `run()` are kept in a preallocated ring (schedule_work must not
/// allocate: it is called from the audio thread), and run after `run()`
/// returns; their responses are delivered through `work_response` before the
/// next `run()`.
final class HostWorker {
    private let ring: UnsafeMutableRawPointer
    let ringCapacity: Int
    private var used = 0
    private var responses: [[UInt8]] = []
    /// Feature data, at a stable address.
    let schedule = UnsafeMutablePointer<LV2_Worker_Schedule>.allocate(capacity: 1)
    private(set) var requestsRun = 0

    init(ringCapacity: Int) {
        self.ringCapacity = ringCapacity
        ring = .allocate(byteCount: ringCapacity, alignment: 8)
        schedule.initialize(to: LV2_Worker_Schedule())
        schedule.pointee.handle = Unmanaged.passUnretained(self).toOpaque()
        schedule.pointee.schedule_work = { handle, size, data in
            guard let handle, let data else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<HostWorker>.fromOpaque(handle).takeUnretainedValue().enqueue(Int(size), data)
        }
    }

    deinit {
        ring.deallocate()
        schedule.deallocate()
    }

    /// Called by the plugin in `run()`: copies without allocating.
    private func enqueue(_ size: Int, _ data: UnsafeRawPointer) -> LV2_Worker_Status {
        let needed = (4 + size + 7) & ~7
        guard used + needed <= ringCapacity else { return LV2_WORKER_ERR_NO_SPACE }
        ring.advanced(by: used).storeBytes(of: UInt32(size), as: UInt32.self)
        ring.advanced(by: used + 4).copyMemory(from: data, byteCount: size)
        used += needed
        return LV2_WORKER_SUCCESS
    }

    /// After `run()`: the plugin's `work()` for every request, in order.
    func runRequests(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle) {
        var offset = 0
        let respond: LV2_Worker_Respond_Function = { handle, size, data in
            guard let handle, let data else { return LV2_WORKER_ERR_UNKNOWN }
            let worker = Unmanaged<HostWorker>.fromOpaque(handle).takeUnretainedValue()
            worker.responses.append(Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
            return LV2_WORKER_SUCCESS
        }
        while offset < used {
            let size = Int(ring.advanced(by: offset).load(as: UInt32.self))
            _ = interface.pointee.work?(handle, respond, Unmanaged.passUnretained(self).toOpaque(), UInt32(size), ring.advanced(by: offset + 4))
            offset += (4 + size + 7) & ~7
            requestsRun += 1
        }
        used = 0
    }

    /// The plugin's `work_response()` for every response. These are audio-thread
    /// calls: `around` brackets each one (for the realtime check) and nothing of
    /// the host's own that allocates runs inside it.
    func deliverResponses(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle, around: (() -> Void) -> Void) {
        for r in responses {
            r.withUnsafeBytes { bytes in
                around { _ = interface.pointee.work_response?(handle, UInt32(bytes.count), bytes.baseAddress) }
            }
        }
        if let endRun = interface.pointee.end_run { around { _ = endRun(handle) } }
        responses.removeAll(keepingCapacity: true)
    }

    var hasResponses: Bool { !responses.isEmpty }
}
