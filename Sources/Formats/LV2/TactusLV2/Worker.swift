import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

/// A message from `run()` to the worker (copied by the host's `schedule_work`):
/// a fixed header, and for `report` only, a payload after it. Every request
/// is small (at most `PluginLimits.requestBytes`): texts travel in the inbox
/// (`Inbox`), whose buffer a request names by pointer.
///
/// - `inbox`: `buffer` holds a whole text, change or path (`payloadKind`) of
///   `length` bytes, edit `sequence`; `hash` is its `TextHash` when it came in
///   pieces (0: one message, nothing to check);
/// - `grow`: `buffer` is too small for the edit `sequence` of `length` bytes
///   coming in pieces: free it, answer with one that holds it;
/// - `wanted`: the audio thread has no buffer (one went missing): answer with one;
/// - `free`: `buffer` is one too many: free it;
/// - `reclaim`: free the snapshots the audio thread has retired;
/// - `report`: the payload is an error `run()` found, for the host's log
///   (which `run()` may not call: `log:log` is not realtime-safe).
struct WorkRequest {
    var kind: UInt32
    var length: UInt32
    /// The editor's `patch:sequenceNumber` of a pattern edit, 0 for none; passed back in the response.
    var sequence: Int32 = 0
    var payloadKind: UInt32 = 0
    var hash: UInt64 = 0
    var buffer: UnsafeMutableRawPointer? = nil
    var capacity: Int = 0
    /// `Inbox.handovers` when the buffer was sent: each hand-over is taken once.
    var handover: UInt64 = 0

    static var inbox: UInt32 { 1 }
    static var grow: UInt32 { 2 }
    static var reclaim: UInt32 { 3 }
    static var report: UInt32 { 4 }
    static var wanted: UInt32 { 5 }
    static var free: UInt32 { 6 }
}

/// A message from the worker back to the audio thread (`work_response`):
///
/// - `accepted`: `snapshot` is a new pattern, owned by the receiver from now on;
/// - `rejected`: the payload after the header is the error message, the pattern in use stays;
/// - `bufferOnly`: nothing but the inbox buffer.
///
/// Any of them may carry the inbox buffer back (`buffer`, `capacity`), and
/// after a `grow`, the edit it is for (`fill...`).
struct WorkResponse {
    var kind: UInt32
    var length: UInt32
    /// The request's `patch:sequenceNumber`, 0 for none.
    var sequence: Int32 = 0
    var fillKind: UInt32 = 0
    var snapshot: UnsafeMutableRawPointer? = nil
    var buffer: UnsafeMutableRawPointer? = nil
    var capacity: Int = 0
    var fillSequence: Int32 = 0
    var reserved: UInt32 = 0
    var fillLength: Int = 0
    var fillHash: UInt64 = 0

    static var accepted: UInt32 { 1 }
    static var rejected: UInt32 { 2 }
    static var bufferOnly: UInt32 { 3 }
}

// MARK: - Audio thread: requests

extension Plugin {
    /// An error found here: said on the notify port at the end of the block,
    /// and logged by the worker.
    @_noLocks
    func reportError(_ message: StaticString) {
        audio.pointee.sequencer.report(message)
        requestReport()
    }

    /// Hands the current error text to the worker for the host's log. Without a
    /// worker there is no way to log from here; `instantiate` has said so.
    @_noLocks
    func requestReport() {
        guard let schedule = shared.pointee.schedule else { return }
        let a = audio
        let text = a.pointee.sequencer.lastError.bytes
        let header = MemoryLayout<WorkRequest>.size
        let count = min(text.count, a.pointee.request.capacity - header)
        let base = a.pointee.request.base
        base.storeBytes(of: WorkRequest(kind: WorkRequest.report, length: UInt32(count)), as: WorkRequest.self)
        if let source = text.baseAddress, count > 0 {
            (base + header).copyMemory(from: source, byteCount: count)
        }
        // No room in the host's ring: the notify port still carries the error.
        _ = tactus_schedule_work(schedule, UInt32(header + count), base)
    }
}

// MARK: - Worker thread

extension Plugin {
    /// `work()`: parses and builds off the audio thread.
    func work(request data: UnsafeRawPointer, size: Int, respond: LV2_Worker_Respond_Function?, handle: LV2_Worker_Respond_Handle?) -> LV2_Worker_Status {
        if shared.pointee.reclaimInWorker { reclaim() }
        guard size >= MemoryLayout<WorkRequest>.size else { return LV2_WORKER_ERR_UNKNOWN }
        let header = data.loadUnaligned(as: WorkRequest.self)
        switch header.kind {
        case WorkRequest.inbox:
            guard let buffer = header.buffer, takeBuffer(buffer, header) else { return LV2_WORKER_ERR_UNKNOWN }
            let length = min(Int(header.length), header.capacity)
            let payload = Array(UnsafeRawBufferPointer(start: buffer, count: length))
            var response = WorkResponse(kind: WorkResponse.bufferOnly, length: 0, sequence: header.sequence)
            (response.buffer, response.capacity) = bufferToReturn(buffer, capacity: header.capacity)
            // A ticket first: when the audio thread has stopped taking patterns, say so
            // rather than build one more that could not be handed over.
            let result: PatternLoading.Result
            if !shared.pointee.exchange.pointee.reserve() {
                result = .rejected(PatternLoading.busyMessage)
            } else {
                result = load(payload, kind: header.payloadKind, hash: header.hash)
                if case .rejected = result { shared.pointee.exchange.pointee.release() }
            }
            answer(result, response, respond: respond, handle: handle)
        case WorkRequest.grow:
            guard let buffer = header.buffer, takeBuffer(buffer, header) else { return LV2_WORKER_ERR_UNKNOWN }
            tactus_mutex_lock(control.pointee.mutex)
            control.pointee.inboxBuffers.free(buffer)
            let capacity = max(Int(header.length), PluginLimits.inboxBytes)
            let bigger = control.pointee.inboxBuffers.allocate(capacity: capacity)
            tactus_mutex_unlock(control.pointee.mutex)
            var response = WorkResponse(kind: WorkResponse.bufferOnly, length: 0)
            response.buffer = bigger
            response.capacity = capacity
            response.fillKind = header.payloadKind
            response.fillSequence = header.sequence
            response.fillLength = Int(header.length)
            response.fillHash = header.hash
            answer(nil, response, respond: respond, handle: handle)
        case WorkRequest.wanted:
            // The audio thread has none: the parked one, or a new one (one lost on its way is freed at cleanup).
            tactus_mutex_lock(control.pointee.mutex)
            let entry = control.pointee.inboxBuffers.parked
            control.pointee.inboxBuffers.parked = nil
            let buffer = entry?.pointer ?? control.pointee.inboxBuffers.allocate(capacity: PluginLimits.inboxBytes)
            tactus_mutex_unlock(control.pointee.mutex)
            var response = WorkResponse(kind: WorkResponse.bufferOnly, length: 0)
            response.buffer = buffer
            response.capacity = entry?.capacity ?? PluginLimits.inboxBytes
            answer(nil, response, respond: respond, handle: handle)
        case WorkRequest.free:
            guard let buffer = header.buffer, takeBuffer(buffer, header) else { return LV2_WORKER_ERR_UNKNOWN }
            tactus_mutex_lock(control.pointee.mutex)
            control.pointee.inboxBuffers.free(buffer)
            tactus_mutex_unlock(control.pointee.mutex)
        case WorkRequest.report:
            let payloadSize = min(Int(header.length), size - MemoryLayout<WorkRequest>.size)
            let payload = UnsafeRawBufferPointer(start: data + MemoryLayout<WorkRequest>.size, count: payloadSize)
            log(uris.pointee.logError, String(decoding: payload, as: UTF8.self))
        default:
            break
        }
        return LV2_WORKER_SUCCESS
    }

    /// Whether a request's buffer is one the audio thread lent (listed, its hand-over new).
    private func takeBuffer(_ buffer: UnsafeMutableRawPointer, _ header: WorkRequest) -> Bool {
        tactus_mutex_lock(control.pointee.mutex)
        let taken = control.pointee.inboxBuffers.take(buffer, capacity: header.capacity, handover: header.handover)
        tactus_mutex_unlock(control.pointee.mutex)
        if !taken { log(uris.pointee.logError, "the host's worker passed a request that names no buffer of this plugin: ignored") }
        return taken
    }

    /// The buffer the audio thread gets back: the same, or (after a large
    /// edit) a new one of the usual size, so that a large one is not kept.
    private func bufferToReturn(_ buffer: UnsafeMutableRawPointer, capacity: Int) -> (UnsafeMutableRawPointer, Int) {
        guard capacity > PluginLimits.inboxBytes else { return (buffer, capacity) }
        tactus_mutex_lock(control.pointee.mutex)
        control.pointee.inboxBuffers.free(buffer)
        let usual = control.pointee.inboxBuffers.allocate(capacity: PluginLimits.inboxBytes)
        tactus_mutex_unlock(control.pointee.mutex)
        return (usual, PluginLimits.inboxBytes)
    }

    /// A whole payload from the inbox, made into a snapshot or the reason it is refused.
    private func load(_ payload: [UInt8], kind: UInt32, hash: UInt64) -> PatternLoading.Result {
        switch kind {
        case Inbox.file:
            return PatternLoading.fromFile(path: payload)
        case Inbox.text, Inbox.change:
            // A change applies to the text accepted last (the one `save()` stores).
            var base: [UInt8] = []
            if kind == Inbox.change {
                tactus_mutex_lock(control.pointee.mutex)
                base = control.pointee.latestText
                tactus_mutex_unlock(control.pointee.mutex)
            }
            switch ReceivedEdit(kind: kind == Inbox.text ? .text : .change, payload: payload, hash: hash).text(on: base) {
            case .text(let text): return PatternLoading.fromText(text)
            case .refused(let message): return .rejected(message)
            }
        default:
            return .rejected("pattern edit rejected: unknown kind of edit")
        }
    }

    /// Sends `response` (with the snapshot or the message of `result`, when
    /// there is one). When the host cannot take it, the snapshot is freed and
    /// the buffer parked until the audio thread asks for one.
    private func answer(_ result: PatternLoading.Result?, _ header: WorkResponse, respond: LV2_Worker_Respond_Function?, handle: LV2_Worker_Respond_Handle?) {
        var response = header
        var message: [UInt8] = []
        switch result {
        case .loaded(let snapshot)?:
            accept(snapshot)
            response.kind = WorkResponse.accepted
            response.snapshot = snapshot.opaque
        case .rejected(let text)?:
            log(uris.pointee.logError, text)
            message = QuotedText.prefix(Array(text.utf8), limit: 1000)
            response.kind = WorkResponse.rejected
            response.length = UInt32(message.count)
        case nil:
            break
        }
        var bytes = [UInt8](repeating: 0, count: MemoryLayout<WorkResponse>.size)
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: response, as: WorkResponse.self) }
        bytes += message
        let status = respond.map { respond in bytes.withUnsafeBytes { tactus_worker_respond(respond, handle, UInt32($0.count), $0.baseAddress) } }
        guard status != LV2_WORKER_SUCCESS else { return }
        if case .loaded(let snapshot)? = result {
            snapshot.destroy()
            shared.pointee.exchange.pointee.release()
            log(uris.pointee.logError, "the host's worker could not pass the new pattern back; the pattern in use stays")
        }
        if let buffer = response.buffer {
            tactus_mutex_lock(control.pointee.mutex)
            if control.pointee.inboxBuffers.parked != nil {
                control.pointee.inboxBuffers.free(buffer)
            } else {
                control.pointee.inboxBuffers.parked = InboxBuffers.Entry(pointer: buffer, capacity: response.capacity, handover: 0)
            }
            tactus_mutex_unlock(control.pointee.mutex)
        }
    }

    /// Records an accepted pattern as the one `save()` stores (and the one an editor's change is applied to).
    func accept(_ snapshot: PatternSnapshot) {
        let text = Array(snapshot.text)
        let source = snapshot.source.map { Array($0) }
        tactus_mutex_lock(control.pointee.mutex)
        control.pointee.latestText = text
        control.pointee.latestSource = source
        control.pointee.latestHash = snapshot.textHash
        tactus_mutex_unlock(control.pointee.mutex)
    }
}

// MARK: - Audio thread: responses

extension Plugin {
    /// `work_response()`: applies what the worker produced (audio thread).
    @_noLocks
    func workResponse(_ data: UnsafeRawPointer, size: Int) {
        guard size >= MemoryLayout<WorkResponse>.size else { return }
        let response = data.loadUnaligned(as: WorkResponse.self)
        let a = audio
        switch response.kind {
        case WorkResponse.accepted:
            if let raw = response.snapshot {
                a.pointee.sequencer.receive(prepared: PatternSnapshot(opaque: raw))
                // Installed at the next block start, and echoed with the edit's number then.
                a.pointee.preparedSequence = max(a.pointee.installedSequence, response.sequence)
            }
        case WorkResponse.rejected:
            let length = min(Int(response.length), size - MemoryLayout<WorkResponse>.size)
            a.pointee.sequencer.report(UnsafeRawBufferPointer(start: data + MemoryLayout<WorkResponse>.size, count: length))
            // The editor's edit did not take: it is sent what plays, under its number, to show it.
            broughtBack(response.sequence)
        default:
            break
        }
        inboxReturned(response)
    }
}

/// Turning text or a file into a snapshot, with the message a person reads when it fails.
enum PatternLoading {
    enum Result {
        case loaded(PatternSnapshot)
        case rejected(String)
    }

    /// Every ticket of the exchange is taken: the audio thread has not taken
    /// the patterns already waiting (a host that stopped calling `run()`).
    static var busyMessage: String {
        "pattern rejected, the pattern in use stays: \(SnapshotExchange.defaultBudget) patterns are already waiting for the audio thread; try again when it runs"
    }

    static func fromText(_ bytes: [UInt8], source: [UInt8]? = nil, origin: String = "") -> Result {
        do {
            let arrangement = try PatternParser.arrangement(bytes: bytes)
            return .loaded(PatternSnapshot.make(arrangement: arrangement, text: bytes, source: source))
        } catch {
            return .rejected("pattern rejected, the pattern in use stays: \(origin)\(error.message)")
        }
    }

    static func fromFile(path: [UInt8]) -> Result {
        // Quoted, not raw: a NUL in the path would cut the logged message
        // before its reason, and a long path would push the reason out.
        let name = QuotedText.quotedTail(path)
        var zeroTerminated = path.map { CChar(bitPattern: $0) }
        zeroTerminated.append(0)
        var size = 0
        var errorNumber: Int32 = 0
        guard let data = tactus_read_file(zeroTerminated, PluginLimits.fileBytes, &size, &errorNumber) else {
            let reason = String(cString: tactus_error_text(errorNumber))
            return .rejected("pattern file rejected, the pattern in use stays: \(name): \(reason)")
        }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        free(data)
        if MIDIFileReader.looksLikeMIDIFile(bytes) { return fromMIDIFile(bytes, source: path, origin: "\(name): ") }
        return fromText(bytes, source: path, origin: "\(name): ")
    }

    /// A Standard MIDI File imported with the defaults (docs/midi-files.md,
    /// M10-M15; track 1 of a format 2 file); the snapshot keeps the imported
    /// pattern text, which the state saves with the file's path.
    static func fromMIDIFile(_ bytes: [UInt8], source: [UInt8], origin: String) -> Result {
        do throws(MIDIFileError) {
            let file = try MIDIFileReader().read(bytes)
            do throws(MIDIImportError) {
                let imported = try MIDIFileImport.importPattern(file, options: MIDIImportOptions(track: file.format == 2 ? 1 : nil))
                return .loaded(PatternSnapshot.make(imported.pattern, text: Array(imported.text.utf8), source: source))
            } catch {
                return .rejected("pattern file rejected, the pattern in use stays: \(origin)\(error.message)")
            }
        } catch {
            return .rejected("pattern file rejected, the pattern in use stays: \(origin)\(error.message)")
        }
    }
}
