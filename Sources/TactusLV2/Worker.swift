import CLV2
#if hasFeature(Embedded)
import TactusCoreEmbedded  // the plugin's build; the hosted build compiles the core into its own module
#endif

/// A message from `run()` to the worker (copied by the host's `schedule_work`):
///
///     header (kind, payload length) + payload
///
/// - `patternText`: payload is the text of a `patch:Set` of `urn:tactus:pattern`;
/// - `patternFile`: payload is the path of a `patch:Set` of `urn:tactus:patternFile`;
/// - `reclaim`: free the snapshots the audio thread has retired;
/// - `report`: payload is an error `run()` found, for the host's log (which
///   `run()` may not call: `log:log` is not realtime-safe).
struct WorkRequest {
    var kind: UInt32
    var length: UInt32
    /// The editor's `patch:sequenceNumber` of a pattern edit, 0 for none; passed back in the response.
    var sequence: Int32 = 0
    var reserved: UInt32 = 0

    static var patternText: UInt32 { 1 }
    static var patternFile: UInt32 { 2 }
    static var reclaim: UInt32 { 3 }
    static var report: UInt32 { 4 }
}

/// A message from the worker back to the audio thread (`work_response`):
///
/// - `accepted`: `snapshot` is a new pattern, owned by the receiver from now on;
/// - `rejected`: the payload is the error message, the pattern in use stays.
struct WorkResponse {
    var kind: UInt32
    var length: UInt32
    /// The request's `patch:sequenceNumber`, 0 for none.
    var sequence: Int32 = 0
    var reserved: UInt32 = 0
    var snapshot: UnsafeMutableRawPointer?

    static var accepted: UInt32 { 1 }
    static var rejected: UInt32 { 2 }
}

// MARK: - Audio thread: requests

extension Plugin {
    /// Queues a pattern edit for the worker; on failure says why on the notify port.
    @_noLocks @discardableResult
    func requestWork(kind: UInt32, payload: UnsafeRawBufferPointer, sequence: Int32 = 0) -> Bool {
        let a = audio
        guard let schedule = shared.pointee.schedule else {
            reportError("this host provides no worker (work:schedule), so the pattern cannot be changed while running")
            return false
        }
        let header = MemoryLayout<WorkRequest>.size
        guard payload.count <= a.pointee.request.capacity - header else {
            a.pointee.sequencer.lastError.clear()
            a.pointee.sequencer.lastError.append("pattern edit rejected: ")
            a.pointee.sequencer.lastError.append(payload.count)
            a.pointee.sequencer.lastError.append(" bytes is more than a pattern message may hold; use the pattern file parameter")
            a.pointee.sequencer.owe(.error)
            requestReport()
            return false
        }
        let base = a.pointee.request.base
        base.storeBytes(of: WorkRequest(kind: kind, length: UInt32(payload.count), sequence: sequence), as: WorkRequest.self)
        if let source = payload.baseAddress, payload.count > 0 {
            (base + header).copyMemory(from: source, byteCount: payload.count)
        }
        let status = tactus_schedule_work(schedule, UInt32(header + payload.count), base)
        if status != LV2_WORKER_SUCCESS {
            a.pointee.sequencer.lastError.clear()
            a.pointee.sequencer.lastError.append("pattern edit rejected: the host's worker had no room for ")
            a.pointee.sequencer.lastError.append(header + payload.count)
            a.pointee.sequencer.lastError.append(" bytes; use the pattern file parameter")
            a.pointee.sequencer.owe(.error)
            return false
        }
        return true
    }

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
        let payloadSize = min(Int(header.length), size - MemoryLayout<WorkRequest>.size)
        let payload = UnsafeRawBufferPointer(start: data + MemoryLayout<WorkRequest>.size, count: payloadSize)
        switch header.kind {
        case WorkRequest.patternText, WorkRequest.patternFile:
            // A ticket first: when the audio thread has stopped taking patterns, say so
            // rather than build one more that could not be handed over.
            guard shared.pointee.exchange.pointee.reserve() else {
                answer(.rejected(PatternLoading.busyMessage), sequence: header.sequence, respond: respond, handle: handle)
                return LV2_WORKER_SUCCESS
            }
            let result = header.kind == WorkRequest.patternText
                ? PatternLoading.fromText(Array(payload)) : PatternLoading.fromFile(path: Array(payload))
            if case .rejected = result { shared.pointee.exchange.pointee.release() }
            answer(result, sequence: header.sequence, respond: respond, handle: handle)
        case WorkRequest.report:
            log(uris.pointee.logError, String(decoding: payload, as: UTF8.self))
        default:
            break
        }
        return LV2_WORKER_SUCCESS
    }

    private func answer(_ result: PatternLoading.Result, sequence: Int32, respond: LV2_Worker_Respond_Function?, handle: LV2_Worker_Respond_Handle?) {
        guard let respond else {
            if case .loaded(let snapshot) = result {
                snapshot.destroy()
                shared.pointee.exchange.pointee.release()
            }
            return
        }
        switch result {
        case .loaded(let snapshot):
            accept(snapshot)
            var response = WorkResponse(kind: WorkResponse.accepted, length: 0, sequence: sequence, snapshot: snapshot.opaque)
            let status = withUnsafeBytes(of: &response) { tactus_worker_respond(respond, handle, UInt32($0.count), $0.baseAddress) }
            if status != LV2_WORKER_SUCCESS {
                snapshot.destroy()
                shared.pointee.exchange.pointee.release()
                log(uris.pointee.logError, "the host's worker could not pass the new pattern back; the pattern in use stays")
            }
        case .rejected(let message):
            log(uris.pointee.logError, message)
            var bytes = QuotedText.prefix(Array(message.utf8), limit: 1000)
            let header = WorkResponse(kind: WorkResponse.rejected, length: UInt32(bytes.count), sequence: sequence, snapshot: nil)
            var message = [UInt8](repeating: 0, count: MemoryLayout<WorkResponse>.size)
            message.withUnsafeMutableBytes { $0.storeBytes(of: header, as: WorkResponse.self) }
            message += bytes
            bytes = message
            _ = bytes.withUnsafeBytes { tactus_worker_respond(respond, handle, UInt32($0.count), $0.baseAddress) }
        }
    }

    /// Records an accepted pattern as the one `save()` stores.
    func accept(_ snapshot: PatternSnapshot) {
        let text = Array(snapshot.text)
        let source = snapshot.source.map { Array($0) }
        tactus_mutex_lock(control.pointee.mutex)
        control.pointee.latestText = text
        control.pointee.latestSource = source
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
            guard let raw = response.snapshot else { return }
            a.pointee.sequencer.receive(prepared: PatternSnapshot(opaque: raw))
            // Installed at the next block start, and echoed with the edit's number then.
            a.pointee.preparedSequence = max(a.pointee.installedSequence, response.sequence)
        case WorkResponse.rejected:
            let length = min(Int(response.length), size - MemoryLayout<WorkResponse>.size)
            a.pointee.sequencer.report(UnsafeRawBufferPointer(start: data + MemoryLayout<WorkResponse>.size, count: length))
            if response.sequence != 0 {
                // The editor's edit did not take: it is sent what plays, under its number, to show it.
                a.pointee.installedSequence = max(a.pointee.installedSequence, response.sequence)
                a.pointee.sequencer.owe(.pattern)
            }
        default:
            break
        }
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
            let pattern = try PatternParser.parse(bytes: bytes)
            return .loaded(PatternSnapshot.make(pattern, text: bytes, source: source))
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
