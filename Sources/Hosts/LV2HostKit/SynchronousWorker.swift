import CLV2
import LV2Atoms

/// An LV2 worker run the way offline hosts run it: requests scheduled during
/// `run()` are copied into a ring allocated once (`schedule_work` is called
/// on the audio thread and must not allocate), `work()` runs for each after
/// `run()` returns, and the responses are delivered with `work_response()`
/// before the next `run()`.
///
/// A request that does not fit the ring is refused with
/// `LV2_WORKER_ERR_NO_SPACE`, as a real host's full ring refuses it. Used by
/// one thread at a time (the one that runs the plugin).
public final class SynchronousWorker: @unchecked Sendable {
    private let ring: UnsafeMutableRawPointer
    /// Bytes the ring holds (each request takes 4 + size bytes, rounded up to 8).
    public let capacity: Int
    private var used = 0
    private var responses: [[UInt8]] = []
    /// Feature data for `worker:schedule`, at a stable address.
    public let schedule = UnsafeMutablePointer<LV2_Worker_Schedule>.allocate(capacity: 1)
    /// Requests accepted, run, and refused for lack of room, since the start.
    public private(set) var requestsScheduled = 0
    public private(set) var requestsRun = 0
    public private(set) var requestsRefused = 0

    public init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        ring = .allocate(byteCount: max(capacity, 8), alignment: 8)
        schedule.initialize(to: LV2_Worker_Schedule(handle: nil, schedule_work: { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            return Unmanaged<SynchronousWorker>.fromOpaque(handle).takeUnretainedValue().enqueue(Int(size), data)
        }))
        schedule.pointee.handle = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        ring.deallocate()
        schedule.deallocate()
    }

    /// `schedule_work`, on the audio thread: copies without allocating.
    private func enqueue(_ size: Int, _ data: UnsafeRawPointer?) -> LV2_Worker_Status {
        let needed = AtomLayout.padded(4 + size)  // records keep the 8-byte alignment atoms have
        guard used + needed <= capacity, size == 0 || data != nil else {
            requestsRefused += 1
            return LV2_WORKER_ERR_NO_SPACE
        }
        ring.advanced(by: used).storeBytes(of: UInt32(size), as: UInt32.self)
        if let data, size > 0 { ring.advanced(by: used + 4).copyMemory(from: data, byteCount: size) }
        used += needed
        requestsScheduled += 1
        return LV2_WORKER_SUCCESS
    }

    /// After `run()`: the plugin's `work()` for every request, in order.
    public func runRequests(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle) {
        let respond: LV2_Worker_Respond_Function = { handle, size, data in
            guard let handle else { return LV2_WORKER_ERR_UNKNOWN }
            let worker = Unmanaged<SynchronousWorker>.fromOpaque(handle).takeUnretainedValue()
            worker.responses.append(data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(size))) } ?? [])
            return LV2_WORKER_SUCCESS
        }
        var offset = 0
        while offset < used {
            let size = Int(ring.advanced(by: offset).load(as: UInt32.self))
            _ = interface.pointee.work?(handle, respond, Unmanaged.passUnretained(self).toOpaque(), UInt32(size), ring.advanced(by: offset + 4))
            offset += AtomLayout.padded(4 + size)
            requestsRun += 1
        }
        used = 0
    }

    /// Before the next `run()`: the plugin's `work_response()` for every
    /// response, then `end_run()`. These are audio-thread calls: `around`
    /// brackets each one (for a realtime check), and nothing of the worker's
    /// own that allocates runs inside it.
    public func deliverResponses(
        _ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle, around: (() -> Void) -> Void = { $0() }
    ) {
        for r in responses {
            r.withUnsafeBytes { bytes in around { _ = interface.pointee.work_response?(handle, UInt32(bytes.count), bytes.baseAddress) } }
        }
        if let endRun = interface.pointee.end_run { around { _ = endRun(handle) } }
        responses.removeAll(keepingCapacity: true)
    }

    /// Whether responses wait for delivery.
    public var hasResponses: Bool { !responses.isEmpty }

    /// After `run()`: every request's `work()`, then every response's `work_response()`, then `end_run()`.
    public func finishBlock(_ interface: UnsafePointer<LV2_Worker_Interface>, _ handle: LV2_Handle) {
        runRequests(interface, handle)
        deliverResponses(interface, handle)
    }
}
