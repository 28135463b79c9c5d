import CInProcessHost
import CLV2
@_exported import LV2Atoms
@_exported import LV2HostKit

/// One plugin instance run in this process through its LV2 descriptor, with
/// what a host gives it: `urid:map`/`unmap`, a synchronous worker (optional),
/// `log:log` (captured), `state:threadSafeRestore`, and three port buffers
/// (control input, MIDI output, notify output).
///
/// `run(frames:)` is one host cycle: worker responses are delivered, the
/// output buffers are offered, the plugin runs, then its worker requests run.
/// `restore` may be called from another thread while `run` runs (the plugin
/// declares `state:threadSafeRestore`); everything else belongs to the thread
/// that runs the plugin. `deinit` calls `cleanup()`.
public final class InProcessPlugin: @unchecked Sendable {
    public struct Configuration: Sendable {
        public var sampleRate: Double = 48000
        /// Offer `worker:schedule`, with a ring of this many bytes.
        public var withWorker = true
        public var workerCapacity = 1 << 20
        /// Offer `log:log` (captured; see `logCount`, `lastLogMessage`).
        public var withLog = true
        /// Also print the plugin's log messages to standard error.
        public var echoLog = false
        /// Port buffer sizes in bytes, headers included.
        public var controlCapacity = 1 << 16
        public var midiCapacity = 1 << 16
        public var notifyCapacity = 1 << 16

        public init() {}
    }

    public let descriptor: UnsafePointer<LV2_Descriptor>
    public let handle: LV2_Handle
    public let map: URIDMap
    public let uris: URIDTable
    public let worker: SynchronousWorker?
    public let control: ControlSequence
    public let midiOut: OutputSequence
    public let notify: OutputSequence
    public let workerInterface: UnsafePointer<LV2_Worker_Interface>?
    public let stateInterface: UnsafePointer<LV2_State_Interface>?
    /// Frames run so far (the absolute frame of the next block's start).
    public private(set) var framesRun: Int64 = 0

    private let logCapture: OpaquePointer?
    private let log: UnsafeMutablePointer<LV2_Log_Log>
    private let features: HostFeatures
    private let bundle: UnsafeMutablePointer<CChar>

    /// Instantiates the plugin; nil when it refuses (it logs why: set `echoLog` to see it).
    /// `map` may be shared between instances, as a host shares its map between plugins.
    public init?(descriptor: UnsafePointer<LV2_Descriptor>, configuration: Configuration = Configuration(), map: URIDMap = URIDMap()) {
        self.descriptor = descriptor
        self.map = map
        uris = URIDTable(map)
        worker = configuration.withWorker ? SynchronousWorker(capacity: configuration.workerCapacity) : nil
        control = ControlSequence(capacity: configuration.controlCapacity, sequenceType: uris.atomSequence)
        midiOut = OutputSequence(capacity: configuration.midiCapacity)
        notify = OutputSequence(capacity: configuration.notifyCapacity)
        log = .allocate(capacity: 1)
        log.initialize(to: LV2_Log_Log())
        logCapture = tactus_log_capture_new(configuration.echoLog ? 1 : 0)
        tactus_log_capture_attach(logCapture, log)

        features = HostFeatures(map: map, log: configuration.withLog ? log : nil, worker: worker)
        bundle = InProcessPlugin.copy("/nonexistent/tactus.lv2/")
        guard let instantiate = descriptor.pointee.instantiate,
            let h = instantiate(descriptor, configuration.sampleRate, bundle, features.list)
        else {
            InProcessPlugin.release(bundle: bundle, log: log, capture: logCapture)
            return nil
        }
        handle = h
        workerInterface = descriptor.pointee.extension_data?("http://lv2plug.in/ns/ext/worker#interface")?
            .assumingMemoryBound(to: LV2_Worker_Interface.self)
        stateInterface = descriptor.pointee.extension_data?("http://lv2plug.in/ns/ext/state#interface")?
            .assumingMemoryBound(to: LV2_State_Interface.self)
        connect()
        descriptor.pointee.activate?(handle)
    }

    deinit {
        descriptor.pointee.cleanup?(handle)
        InProcessPlugin.release(bundle: bundle, log: log, capture: logCapture)
    }

    private static func copy(_ s: String) -> UnsafeMutablePointer<CChar> {
        let bytes = Array(s.utf8CString)
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        p.initialize(from: bytes, count: bytes.count)
        return p
    }

    private static func release(bundle: UnsafeMutablePointer<CChar>, log: UnsafeMutablePointer<LV2_Log_Log>, capture: OpaquePointer?) {
        bundle.deallocate()
        log.deallocate()
        tactus_log_capture_free(capture)
    }

    // MARK: - Ports and lifetime

    /// Connects each port to its buffer, or leaves it unconnected (NULL).
    public func connect(control: Bool = true, midi: Bool = true, notify: Bool = true) {
        descriptor.pointee.connect_port?(handle, TactusPort.control, control ? self.control.buffer : nil)
        descriptor.pointee.connect_port?(handle, TactusPort.midiOut, midi ? midiOut.buffer : nil)
        descriptor.pointee.connect_port?(handle, TactusPort.notify, notify ? self.notify.buffer : nil)
    }

    public func activate() { descriptor.pointee.activate?(handle) }
    public func deactivate() { descriptor.pointee.deactivate?(handle) }

    /// One host cycle of `frames` frames with what `control` holds (see the type's summary).
    public func run(frames: UInt32) {
        if let worker, let workerInterface { worker.deliverResponses(workerInterface, handle) }
        midiOut.prepare(chunkType: uris.atomChunk)
        notify.prepare(chunkType: uris.atomChunk)
        descriptor.pointee.run?(handle, frames)
        framesRun += Int64(frames)
        if let worker, let workerInterface { worker.runRequests(workerInterface, handle) }
    }

    /// The MIDI the last `run()` wrote.
    public func midiEvents() throws(OutputSequence.Malformed) -> [OutputSequence.Event] {
        try midiOut.read(sequenceType: uris.atomSequence)
    }

    /// The messages the last `run()` wrote on the notify port.
    public func notifyEvents() throws(OutputSequence.Malformed) -> [OutputSequence.Event] {
        try notify.read(sequenceType: uris.atomSequence)
    }

    // MARK: - State

    /// `save()` into a new store; the status and the store.
    public func save(paths: PathMapping? = nil) -> (LV2_State_Status, StateStore) {
        let store = StateStore()
        guard let save = stateInterface?.pointee.save else { return (LV2_STATE_ERR_NO_FEATURE, store) }
        let status = withPathFeatures(paths) { save(handle, StateStore.store, store.handle, 0, $0) }
        return (status, store)
    }

    /// `restore()` from `store`; callable from another thread than `run`'s.
    public func restore(_ store: StateStore, paths: PathMapping? = nil) -> LV2_State_Status {
        guard let restore = stateInterface?.pointee.restore else { return LV2_STATE_ERR_NO_FEATURE }
        return withPathFeatures(paths) { restore(handle, StateStore.retrieve, store.handle, 0, $0) }
    }

    private func withPathFeatures<R>(_ paths: PathMapping?, _ body: (UnsafePointer<UnsafePointer<LV2_Feature>?>) -> R) -> R {
        guard let paths else {
            var none: [UnsafePointer<LV2_Feature>?] = [nil]
            return none.withUnsafeMutableBufferPointer { body(UnsafePointer($0.baseAddress!)) }
        }
        let mapName = InProcessPlugin.copy("http://lv2plug.in/ns/ext/state#mapPath")
        let freeName = InProcessPlugin.copy("http://lv2plug.in/ns/ext/state#freePath")
        defer {
            mapName.deallocate()
            freeName.deallocate()
        }
        var mapFeature = LV2_Feature(URI: UnsafePointer(mapName), data: UnsafeMutableRawPointer(paths.mapPath))
        var freeFeature = LV2_Feature(URI: UnsafePointer(freeName), data: UnsafeMutableRawPointer(paths.freePath))
        return withUnsafePointer(to: &mapFeature) { m in
            withUnsafePointer(to: &freeFeature) { f in
                var list: [UnsafePointer<LV2_Feature>?] = [m, f, nil]
                return list.withUnsafeMutableBufferPointer { body(UnsafePointer($0.baseAddress!)) }
            }
        }
    }

    // MARK: - Log

    /// Messages the plugin logged so far.
    public var logCount: Int { Int(tactus_log_capture_count(logCapture)) }

    /// The last message the plugin logged ("" when none), cut at `logMessageLimit` bytes.
    public var lastLogMessage: String {
        var buffer = [CChar](repeating: 0, count: InProcessPlugin.logMessageLimit + 1)
        tactus_log_capture_last(logCapture, &buffer, InProcessPlugin.logMessageLimit + 1)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The longest log message kept whole.
    public static var logMessageLimit: Int { 16383 }

    public func clearLog() { tactus_log_capture_clear(logCapture) }
}
