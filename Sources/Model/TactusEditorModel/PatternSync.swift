import TactusEngine
import TactusModel

/// The editor's half of the messages that keep its pattern and the plugin's
/// the same (docs/plugin.md, "Messages"), free of LV2: the UI turns what the
/// plugin says into calls here and sends the requests each call returns.
///
/// **What it holds.** `known`: the plugin's text as far as the editor knows
/// (the text its document was made from, or the result of its last
/// confirmed edit). Until the plugin's text has arrived whole, and whenever
/// the plugin is found to play another text (a preset, another editor's
/// edit), `isEditable` is false: the editor shows no notes and sends no edit,
/// so that an edit is always made on the plugin's own text.
///
/// **Receiving.** The plugin sends a text that fits one message whole
/// (`receiveText`), a larger one in pieces (`receivePiece`), each naming the
/// text's length and `TextHash`; pieces are assembled (`TextAssembly`) from
/// windows the editor asks for (`SyncRequest.textWanted`), so that no host's
/// buffer between the plugin and its UI is ever asked to hold more than a
/// window. A window that stalls (a piece lost in a full host buffer) is asked
/// for again from what arrived, half as large.
///
/// **Sending.** An edit (`commit`) sends what changed since `known`
/// (`PatternChange`, which names the text it was made on: a change made on a
/// text the plugin no longer plays is refused, never applied); in one message
/// up to `singleMessageBytes`, else in pieces the plugin acknowledges
/// (`receiveReceipt`), at most a window ahead. One edit is in flight at a
/// time: edits made meanwhile go together in the next, once the plugin has
/// installed the first (its announcement with the edit's number and the
/// expected text's identity) or refused it (an announcement with the edit's
/// number and another text: the editor is brought back to what plays).
///
/// Value type; the UI thread; allocates. Times are seconds on a monotonic
/// clock. O(text length) per edit or text received, O(piece) per piece.
public struct PatternSync: Sendable {
    /// A message for the plugin (the UI encodes it as an atom).
    public enum Request: Equatable, Sendable {
        /// Send the text with this identity from `offset`, at most `window`
        /// bytes (`patch:Get` of the pattern with `tactus:textHash`,
        /// `tactus:textOffset`, `tactus:textWindow`); nil hash: the text in
        /// use, from its start.
        case textWanted(hash: UInt64?, offset: Int, window: Int)
        /// A whole payload in one message (`patch:Set` of the pattern or of a change).
        case payload(PayloadKind, sequence: Int32, bytes: [UInt8])
        /// A piece of a payload (`tactus:textPiece`).
        case piece(PayloadKind, sequence: Int32, offset: Int, length: Int, hash: UInt64, bytes: [UInt8])
    }

    /// What an edit carries: the whole text, or a change to the plugin's.
    public enum PayloadKind: Equatable, Sendable {
        case text
        case change
    }

    /// What a call asks of the UI.
    public struct Update: Sendable {
        /// Messages to send, in order.
        public var requests: [Request] = []
        /// A text from the plugin to show now in place of the document; as an
        /// undo step unless it is the first the editor shows.
        public var show: [UInt8]?
        public var undoable = false
        /// A notice for the top line about the last edit (refused, resent), or nil.
        public var notice: [UInt8]?

        public init() {}
    }

    /// Largest payload sent in one message: a worker request of every host
    /// holds it (jalv's and Qtractor's hold 4 KiB, and jalv does not check).
    public static var singleMessageBytes: Int { 2000 }
    /// Pieces the editor sends, and the most it sends ahead of the plugin's receipts.
    public static var pieceBytes: Int { 8192 }
    public static var sendWindow: Int { 32768 }
    /// The window the editor asks the plugin's text in (the smallest UI
    /// buffer of the hosts tried, Qtractor's, is the notify port's 64 KiB).
    public static var receiveWindow: Int { 32768 }
    public static var smallestWindow: Int { 2048 }
    /// Seconds without progress before a window is asked for, or sent, again.
    public static var stallSeconds: Double { 1.0 }
    /// Seconds an edit may go without its announcement before the editor asks what plays.
    public static var echoSeconds: Double { 3.0 }
    /// The most bytes of text the editor takes from the plugin.
    public static var largestText: Int { 64 << 20 }

    /// The plugin's text as far as the editor knows, and its hash.
    public private(set) var known: [UInt8]?
    public private(set) var knownHash: UInt64 = 0
    /// True while the plugin is known to play another text than `known`.
    public private(set) var playsUnknown = true
    /// The plugin's text on its way.
    public private(set) var assembly: TextAssembly?
    /// The number of the newest edit this editor sent (0 before any).
    public private(set) var lastSent: Int32 = 0
    private var highestSeen: Int32 = 0
    private var shownOnce = false
    private var requestedEnd = 0
    private var askedAt = 0.0
    private var lastProgress = 0.0
    private var window = PatternSync.receiveWindow
    private var edit: Edit?
    /// The document's text when it changed while an edit was in flight.
    private var latest: [UInt8]?
    private var tooLarge = false
    /// How many stall periods to wait before asking again what plays (doubles while nothing answers).
    private var questionBackoff = 1.0

    struct Edit: Sendable {
        var sequence: Int32
        var kind: PayloadKind
        var payload: [UInt8]
        var payloadHash: UInt64
        var expected: [UInt8]
        var expectedHash: UInt64
        var single: Bool
        var acked = 0
        var sent = 0
        var pieceBytes = PatternSync.pieceBytes
        var window = PatternSync.sendWindow
        var lastProgress: Double
        var sentAt: Double
        var rewoundAt = -1e9
        /// No announcement came in time: the next one settles the edit, whatever its number.
        var lost = false
    }

    public init() {}

    // MARK: - What the UI shows

    /// Whether the document may be edited: the editor holds the text the plugin plays.
    public var isEditable: Bool { known != nil && !playsUnknown }

    /// Bytes of the plugin's text received, and its length, while it is on its way.
    public var loading: (received: Int, length: Int)? {
        guard playsUnknown, let a = assembly else { return nil }
        return (a.received, a.length)
    }

    /// The plugin's text is larger than the editor takes (`largestText`).
    public var isTooLarge: Bool { tooLarge }

    /// Whether an edit is in flight (sent, not yet installed or refused): the next waits for it.
    public var hasEditInFlight: Bool { edit != nil }

    /// Bytes of the edit in flight the plugin has received, and its size, while it is sent in pieces.
    public var sending: (received: Int, length: Int)? {
        guard let e = edit, !e.single, e.acked < e.payload.count else { return nil }
        return (e.acked, e.payload.count)
    }

    // MARK: - From the plugin

    /// A whole text from the plugin (`patch:Set` of the pattern), with the
    /// number of the newest edit the plugin has installed or refused.
    public mutating func receiveText(_ text: [UInt8], sequence: Int32, now: Double) -> Update {
        var update = Update()
        highestSeen = max(highestSeen, sequence)
        questionBackoff = 1
        let hash = TextHash.of(text)
        // Older than the newest edit sent: that edit is on its way (or was), and an echo never undoes it.
        if sequence < lastSent, !(edit?.lost ?? false) { return update }
        assembly = nil
        tooLarge = false
        if let e = edit {
            edit = nil
            if hash == e.expectedHash, text == e.expected {
                confirm(e.expected, hash: hash, now: now, into: &update)
                return update
            }
            // Refused, or another text was installed after it: what plays is shown.
            latest = nil
            update.notice = PatternSync.bytes("the edit did not take: the editor shows what the plugin plays")
            take(text, hash: hash, into: &update, force: true)
            return update
        }
        take(text, hash: hash, into: &update, force: false)
        return update
    }

    /// A piece of the plugin's text: `bytes` at `offset` of the text of
    /// `length` bytes whose hash is `hash`.
    public mutating func receivePiece(
        sequence: Int32, offset: Int, length: Int, hash: UInt64, bytes: UnsafeRawBufferPointer, now: Double
    ) -> Update {
        var update = Update()
        highestSeen = max(highestSeen, sequence)
        questionBackoff = 1
        if sequence < lastSent, !(edit?.lost ?? false) { return update }
        if let e = edit {
            edit = nil
            if hash == e.expectedHash, length == e.expected.count {
                confirm(e.expected, hash: hash, now: now, into: &update)
                return update
            }
            latest = nil
            update.notice = PatternSync.bytes("the edit did not take: the editor shows what the plugin plays")
            if let k = known, hash == knownHash, length == k.count {
                playsUnknown = false
                assembly = nil
                update.show = k
                update.undoable = true
                return update
            }
        }
        if let k = known, hash == knownHash, length == k.count {
            // The text the editor holds (an answer to a question, another editor's request).
            assembly = nil
            if playsUnknown {
                playsUnknown = false
                update.show = k
                update.undoable = shownOnce
            }
            return update
        }
        guard length <= PatternSync.largestText else {
            playsUnknown = true
            tooLarge = true
            assembly = nil
            return update
        }
        tooLarge = false
        playsUnknown = true
        if assembly.map({ !$0.isSame(length: length, hash: hash) }) ?? true {
            assembly = TextAssembly(length: length, hash: hash)
            requestedEnd = 0
            window = PatternSync.receiveWindow
        }
        if assembly!.add(offset: offset, bytes) {
            lastProgress = now
        } else if offset > assembly!.received, now - askedAt > 0.1 {
            // A piece was lost: ask again from what arrived.
            ask(now: now, into: &update)
            return update
        }
        if assembly!.isComplete {
            if let text = assembly!.text {
                assembly = nil
                take(text, hash: hash, into: &update, force: false)
            } else {
                // The bytes are not the text named (never seen): start again.
                assembly = TextAssembly(length: length, hash: hash)
                requestedEnd = 0
                ask(now: now, into: &update)
            }
            return update
        }
        if assembly!.received >= requestedEnd {
            // A whole window arrived: the next may be larger again.
            if requestedEnd > 0 { window = min(window * 2, PatternSync.receiveWindow) }
            ask(now: now, into: &update)
        }
        return update
    }

    /// The plugin's receipt for the pieces of edit `sequence`: it holds the first `offset` bytes.
    public mutating func receiveReceipt(sequence: Int32, offset: Int, now: Double) -> Update {
        var update = Update()
        guard var e = edit, e.sequence == sequence, !e.single, offset >= e.acked else { return update }
        if offset > e.acked {
            e.acked = min(offset, e.payload.count)
            e.lastProgress = now
        } else if e.sent > offset, now - e.rewoundAt > PatternSync.stallSeconds / 4 {
            // A receipt is sent only for a block in which pieces came: one that shows no
            // progress means they were not taken (the plugin's buffer was busy, or a piece
            // was lost on the way): send again from what it holds.
            e.sent = offset
            e.rewoundAt = now
        }
        if e.sent < e.acked { e.sent = e.acked }
        edit = e
        sendPieces(now: now, into: &update)
        return update
    }

    // MARK: - From the editor

    /// The document is now `text` (an edit finished). Sends what changed,
    /// unless an edit is in flight (then it goes once that one is settled).
    /// Nothing is sent while the document is not editable.
    public mutating func commit(_ text: [UInt8], now: Double) -> Update {
        var update = Update()
        guard isEditable else { return update }
        if edit != nil {
            latest = text
            return update
        }
        send(text, now: now, into: &update)
        return update
    }

    /// Called now and then (each idle call): windows that stalled are asked
    /// for or sent again, and an edit that went unanswered leads to a question.
    public mutating func tick(now: Double) -> Update {
        var update = Update()
        if var e = edit {
            if !e.single, e.acked < e.payload.count, now - e.lastProgress > PatternSync.stallSeconds {
                // Go back to what the plugin holds, in smaller pieces.
                e.sent = e.acked
                e.pieceBytes = max(e.pieceBytes / 2, 1024)
                e.window = max(e.window / 2, PatternSync.smallestWindow)
                e.lastProgress = now
                edit = e
                sendPieces(now: now, into: &update)
            } else if !e.lost, (e.single || e.acked == e.payload.count), now - max(e.sentAt, e.lastProgress) > PatternSync.echoSeconds {
                e.lost = true
                edit = e
                update.requests.append(.textWanted(hash: nil, offset: 0, window: window))
                askedAt = now
            }
        }
        if playsUnknown, !tooLarge, now - max(lastProgress, askedAt) > PatternSync.stallSeconds * questionBackoff {
            window = max(window / 2, PatternSync.smallestWindow)
            if assembly == nil {
                // Nothing came: ask what plays, less and less often while no answer comes.
                update.requests.append(.textWanted(hash: nil, offset: 0, window: window))
                askedAt = now
                questionBackoff = min(questionBackoff * 2, 8)
            } else {
                ask(now: now, into: &update)
            }
        }
        return update
    }

    /// The editor asked the plugin for its parameters (`patch:Get`, when it opens).
    public mutating func opened(now: Double) {
        askedAt = now
        lastProgress = now
    }

    // MARK: - Internals

    private mutating func take(_ text: [UInt8], hash: UInt64, into update: inout Update, force: Bool) {
        let same = known.map { hash == knownHash && $0 == text } ?? false
        let wasUnknown = playsUnknown
        known = text
        knownHash = hash
        playsUnknown = false
        assembly = nil
        if same && !force && !wasUnknown { return }
        update.show = text
        update.undoable = shownOnce
        shownOnce = true
    }

    private mutating func confirm(_ text: [UInt8], hash: UInt64, now: Double, into update: inout Update) {
        known = text
        knownHash = hash
        playsUnknown = false
        assembly = nil
        if let next = latest {
            latest = nil
            if next != text { send(next, now: now, into: &update) }
        }
    }

    private mutating func send(_ text: [UInt8], now: Double, into update: inout Update) {
        guard let base = known, text != base else { return }
        let sequence = max(lastSent, highestSeen) &+ 1
        lastSent = sequence
        // Always a change, even when it is as large as the text: it names the text
        // it was made on, and the plugin applies it only to that text.
        let kind = PayloadKind.change
        let payload = PatternChange.between(base, text).encoded
        let single = payload.count <= PatternSync.singleMessageBytes
        edit = Edit(
            sequence: sequence, kind: kind, payload: payload, payloadHash: single ? 0 : TextHash.of(payload), expected: text,
            expectedHash: TextHash.of(text), single: single, lastProgress: now, sentAt: now)
        if single {
            update.requests.append(.payload(kind, sequence: sequence, bytes: payload))
        } else {
            sendPieces(now: now, into: &update)
        }
    }

    private mutating func sendPieces(now: Double, into update: inout Update) {
        guard var e = edit, !e.single else { return }
        while e.sent < e.payload.count, e.sent < e.acked + e.window {
            let end = min(e.payload.count, e.sent + e.pieceBytes, e.acked + e.window)
            update.requests.append(.piece(
                e.kind, sequence: e.sequence, offset: e.sent, length: e.payload.count, hash: e.payloadHash,
                bytes: Array(e.payload[e.sent..<end])))
            e.sent = end
        }
        edit = e
    }

    /// Asks for the next window of the text on its way.
    private mutating func ask(now: Double, into update: inout Update) {
        guard let a = assembly else { return }
        update.requests.append(.textWanted(hash: a.hash, offset: a.received, window: window))
        requestedEnd = a.received + window
        askedAt = now
        lastProgress = now
    }

    static func bytes(_ s: StaticString) -> [UInt8] {
        Array(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }
}
