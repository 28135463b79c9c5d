import CLV2
import TactusEngine
import TactusModel

/// Pattern texts, changes and paths on their way from the control port to
/// the worker (docs/plugin.md, "Messages").
///
/// **Why a buffer.** A host's worker ring may be small: jalv's and Qtractor's
/// hold 4 KiB, and jalv 1.6 writes past a full one (the worker then reads
/// garbage). So no text travels inside a worker request. `run()` copies it
/// into the inbox, a buffer the audio thread owns, and hands the buffer
/// itself to the worker in a request of a few dozen bytes; the worker's
/// response hands it back. One buffer, owned by one side at a time.
///
/// **Pieces.** An editor sends an edit larger than one message in pieces
/// (`tactus:textPiece`): each is copied on when it continues what arrived
/// (the next offset, the same edit), and acknowledged with a receipt
/// (`tactus:textReceipt`) so that the editor sends the next. An edit larger
/// than the buffer first sends the buffer to the worker to be replaced by
/// one large enough (a receipt for offset 0 then says "go on"). The worker
/// gets an edit only whole, and checks it against the hash its pieces named:
/// the plugin never installs a text it did not receive whole.
///
/// **Busy.** While the buffer is with the worker, a text in one message is
/// refused ("still reading the previous edit") and pieces are acknowledged
/// at 0 (the editor sends them again). A buffer that does not come back
/// (a host that dropped the worker's response: Qtractor's ring drops when
/// full) is asked for again after two seconds.
///
/// Audio thread, apart from `InboxBuffers` (the worker's).
struct Inbox {
    /// The buffer, while the audio thread holds it.
    var buffer: UnsafeMutableRawPointer? = nil
    var capacity = 0
    /// Counts hand-overs to the worker: the worker takes a buffer once per count.
    var handovers: UInt64 = 0
    /// The edit being filled from pieces, and how far.
    var filling: Payload? = nil
    var filled = 0
    /// Frame at which the buffer went to the worker.
    var awaySince: Int64 = 0
    /// Frame at which the buffer was last asked for again.
    var askedAt: Int64 = 0
    /// Frames a buffer may be away while something waits before it is asked for again (two seconds).
    var patience: Int64 = 96000
    /// Whether something was refused while the buffer was away (then it is asked for, after a while).
    var somethingWaits = false
    /// The receipt owed on the notify port: pieces of edit `receiptSequence` received up to `receiptOffset`.
    var receiptSequence: Int32 = 0
    var receiptOffset = 0

    /// An editor's edit, or a host's text, as the worker gets it.
    struct Payload {
        var kind: UInt32
        var sequence: Int32
        var length: Int
        /// `TextHash` of the whole, as its pieces named it; 0 for a text that came in one message.
        var hash: UInt64
    }

    /// Two seconds of frames, at most 2^62 (a host may give an absurd rate; instantiate accepts any finite one).
    static func patience(sampleRate: Double) -> Int64 {
        let frames = (2 * sampleRate).rounded(.up)
        guard frames >= 1 else { return 1 }
        return frames < 4.6e18 ? Int64(frames) : 1 << 62
    }

    static var text: UInt32 { 1 }
    static var change: UInt32 { 2 }
    static var file: UInt32 { 3 }
}

/// Every inbox buffer allocated, on the non-realtime side (under the control
/// mutex). A buffer's pointer crosses the worker's rings, so the worker takes
/// one from a request only when it is listed here and its hand-over count is
/// new: a host that replays or corrupts a request cannot make the worker free
/// or read what is not a buffer it lent. Freed at cleanup, wherever they are.
struct InboxBuffers {
    struct Entry {
        var pointer: UnsafeMutableRawPointer
        var capacity: Int
        /// The newest hand-over the worker took it with.
        var handover: UInt64
    }

    private(set) var entries: [Entry] = []
    /// A buffer whose way back failed (the host could not take the response): given back when asked.
    var parked: Entry? = nil

    mutating func allocate(capacity: Int) -> UnsafeMutableRawPointer {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        entries.append(Entry(pointer: pointer, capacity: capacity, handover: 0))
        return pointer
    }

    /// Takes a buffer from a request: true when it is listed with this capacity and the hand-over is new.
    mutating func take(_ pointer: UnsafeMutableRawPointer, capacity: Int, handover: UInt64) -> Bool {
        for i in entries.indices where entries[i].pointer == pointer {
            guard entries[i].capacity == capacity, handover > entries[i].handover else { return false }
            entries[i].handover = handover
            return true
        }
        return false
    }

    mutating func free(_ pointer: UnsafeMutableRawPointer) {
        for i in entries.indices where entries[i].pointer == pointer {
            entries[i].pointer.deallocate()
            entries.remove(at: i)
            return
        }
    }

    mutating func freeAll() {
        for e in entries { e.pointer.deallocate() }
        entries = []
        parked = nil
    }
}

// MARK: - Audio thread

extension Plugin {
    /// A text, change or path in one message (`patch:Set`). Copied into the
    /// inbox and handed to the worker; false when refused (said on the
    /// notify port, and to the editor, when it came from one).
    @_noLocks @discardableResult
    func receivePayload(kind: UInt32, bytes: UnsafeRawBufferPointer, sequence: Int32) -> Bool {
        let a = audio
        guard shared.pointee.schedule != nil else {
            refuse(sequence, "this host provides no worker (work:schedule), so the pattern cannot be changed while running")
            return false
        }
        guard let buffer = a.pointee.inbox.buffer, a.pointee.inbox.filling == nil else {
            a.pointee.inbox.somethingWaits = true
            refuse(sequence, "pattern edit rejected: the plugin is still reading the previous edit; send it again")
            return false
        }
        guard bytes.count <= a.pointee.inbox.capacity else {
            a.pointee.sequencer.lastError.clear()
            a.pointee.sequencer.lastError.append("pattern edit rejected: ")
            a.pointee.sequencer.lastError.append(bytes.count)
            a.pointee.sequencer.lastError.append(" bytes is more than a pattern message may hold; use the pattern file parameter")
            a.pointee.sequencer.owe(.error)
            requestReport()
            broughtBack(sequence)
            return false
        }
        if let source = bytes.baseAddress, bytes.count > 0 { buffer.copyMemory(from: source, byteCount: bytes.count) }
        return handOver(Inbox.Payload(kind: kind, sequence: sequence, length: bytes.count, hash: 0))
    }

    /// A piece of an editor's edit (`tactus:textPiece`): `bytes` at `offset`
    /// of the edit numbered `sequence`, `length` bytes in all, whose
    /// `TextHash` is `hash`.
    @_noLocks
    func receivePiece(kind: UInt32, sequence: Int32, offset: Int, length: Int, hash: UInt64, bytes: UnsafeRawBufferPointer) {
        let a = audio
        guard sequence > 0, length > 0, offset >= 0 else { return }
        guard shared.pointee.schedule != nil else {
            refuse(sequence, "this host provides no worker (work:schedule), so the pattern cannot be changed while running")
            return
        }
        guard length <= PluginLimits.largestPayload else {
            a.pointee.sequencer.lastError.clear()
            a.pointee.sequencer.lastError.append("pattern edit rejected: ")
            a.pointee.sequencer.lastError.append(length)
            a.pointee.sequencer.lastError.append(" bytes is more than the plugin takes")
            a.pointee.sequencer.owe(.error)
            broughtBack(sequence)
            return
        }
        if let f = a.pointee.inbox.filling {
            // An older edit's pieces are late; a newer edit replaces the one being filled.
            if sequence < f.sequence { return }
            if sequence > f.sequence { a.pointee.inbox.filling = nil }
        }
        guard a.pointee.inbox.buffer != nil else {
            // The buffer is with the worker: nothing is held of this edit yet.
            a.pointee.inbox.somethingWaits = true
            oweReceipt(sequence, 0)
            return
        }
        if a.pointee.inbox.filling == nil {
            guard offset == 0 else {
                oweReceipt(sequence, 0)
                return
            }
            let payload = Inbox.Payload(kind: kind, sequence: sequence, length: length, hash: hash)
            if length > a.pointee.inbox.capacity {
                // Too large for the buffer: it goes to the worker to be replaced by one that holds the edit.
                growInbox(for: payload)
                oweReceipt(sequence, 0)
                return
            }
            a.pointee.inbox.filling = payload
            a.pointee.inbox.filled = 0
        }
        guard let f = a.pointee.inbox.filling, let buffer = a.pointee.inbox.buffer else { return }
        let filled = a.pointee.inbox.filled
        if f.kind == kind, f.length == length, f.hash == hash, offset == filled, bytes.count <= length - filled,
            let source = bytes.baseAddress, bytes.count > 0
        {
            (buffer + filled).copyMemory(from: source, byteCount: bytes.count)
            a.pointee.inbox.filled = filled + bytes.count
        }
        oweReceipt(sequence, a.pointee.inbox.filled)
        if a.pointee.inbox.filled == f.length {
            a.pointee.inbox.filling = nil
            handOver(f)
        }
    }

    /// The buffer with a whole payload goes to the worker.
    @_noLocks @discardableResult
    func handOver(_ payload: Inbox.Payload) -> Bool {
        let a = audio
        guard a.pointee.inbox.buffer != nil, shared.pointee.schedule != nil else { return false }
        guard sendInbox(WorkRequest.inbox, with: payload) else {
            a.pointee.sequencer.lastError.clear()
            a.pointee.sequencer.lastError.append("pattern edit rejected: the host's worker had no room for ")
            a.pointee.sequencer.lastError.append(MemoryLayout<WorkRequest>.size)
            a.pointee.sequencer.lastError.append(" bytes; try again")
            a.pointee.sequencer.owe(.error)
            broughtBack(payload.sequence)
            return false
        }
        return true
    }

    /// The buffer goes to the worker to be replaced by one that holds `payload`.
    @_noLocks
    func growInbox(for payload: Inbox.Payload) {
        sendInbox(WorkRequest.grow, with: payload)  // refused: the editor sends again after a while
    }

    /// The inbox's buffer to the worker in a request of `kind` about `payload`;
    /// whether the host took the request (then the buffer is away).
    @_noLocks @discardableResult
    private func sendInbox(_ kind: UInt32, with payload: Inbox.Payload) -> Bool {
        let a = audio
        guard let schedule = shared.pointee.schedule, let buffer = a.pointee.inbox.buffer else { return false }
        let handover = a.pointee.inbox.handovers &+ 1
        var request = WorkRequest(kind: kind, length: UInt32(payload.length), sequence: payload.sequence)
        request.payloadKind = payload.kind
        request.hash = payload.hash
        request.buffer = buffer
        request.capacity = a.pointee.inbox.capacity
        request.handover = handover
        let status = withUnsafeBytes(of: &request) { tactus_schedule_work(schedule, UInt32($0.count), $0.baseAddress) }
        guard status == LV2_WORKER_SUCCESS else { return false }
        a.pointee.inbox.handovers = handover
        a.pointee.inbox.buffer = nil
        a.pointee.inbox.awaySince = a.pointee.framesRun
        return true
    }

    /// `work_response`: the buffer is back (after an edit, or larger, for the edit `fill` names).
    @_noLocks
    func inboxReturned(_ response: WorkResponse) {
        let a = audio
        guard let buffer = response.buffer else { return }
        if a.pointee.inbox.buffer != nil {
            // One asked for again while the first was on its way back: the extra goes.
            if a.pointee.inbox.buffer != buffer, let schedule = shared.pointee.schedule {
                var request = WorkRequest(kind: WorkRequest.free, length: 0)
                request.buffer = buffer
                request.capacity = response.capacity
                request.handover = a.pointee.inbox.handovers &+ 1
                a.pointee.inbox.handovers = request.handover
                _ = withUnsafeBytes(of: &request) { tactus_schedule_work(schedule, UInt32($0.count), $0.baseAddress) }
            }
            return
        }
        a.pointee.inbox.buffer = buffer
        a.pointee.inbox.capacity = response.capacity
        a.pointee.inbox.filling = nil
        a.pointee.inbox.filled = 0
        if response.fillSequence != 0, response.fillLength <= response.capacity {
            a.pointee.inbox.filling = Inbox.Payload(
                kind: response.fillKind, sequence: response.fillSequence, length: response.fillLength, hash: response.fillHash)
            oweReceipt(response.fillSequence, 0)  // go on: the buffer holds it now
        } else if a.pointee.inbox.somethingWaits, a.pointee.inbox.receiptSequence != 0 {
            oweReceipt(a.pointee.inbox.receiptSequence, 0)
        }
        a.pointee.inbox.somethingWaits = false
    }

    /// At a block's end: a buffer away for more than two seconds while
    /// something waits is asked for again (its way back may have been lost).
    @_noLocks
    func checkInbox() {
        let a = audio
        guard a.pointee.inbox.buffer == nil, a.pointee.inbox.somethingWaits, let schedule = shared.pointee.schedule else { return }
        let patience = a.pointee.inbox.patience
        let now = a.pointee.framesRun
        guard now &- a.pointee.inbox.awaySince > patience, now &- a.pointee.inbox.askedAt > patience else { return }
        var request = WorkRequest(kind: WorkRequest.wanted, length: 0)
        if withUnsafeBytes(of: &request, { tactus_schedule_work(schedule, UInt32($0.count), $0.baseAddress) }) == LV2_WORKER_SUCCESS {
            a.pointee.inbox.askedAt = now
        }
    }

    @_noLocks
    func oweReceipt(_ sequence: Int32, _ offset: Int) {
        audio.pointee.inbox.receiptSequence = sequence
        audio.pointee.inbox.receiptOffset = offset
        audio.pointee.sequencer.owe(.receipt)
    }

    /// An edit refused here: said on the notify port and logged; an editor's
    /// (numbered) is sent what plays, under its number.
    @_noLocks
    func refuse(_ sequence: Int32, _ message: StaticString) {
        reportError(message)
        broughtBack(sequence)
    }

    /// The editor that sent edit `sequence` is sent what plays, under its number, to show it.
    @_noLocks
    func broughtBack(_ sequence: Int32) {
        guard sequence > 0 else { return }
        audio.pointee.installedSequence = max(audio.pointee.installedSequence, sequence)
        audio.pointee.sequencer.owe(.pattern)
    }
}
