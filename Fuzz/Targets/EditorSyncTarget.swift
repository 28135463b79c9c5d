import TactusEditorModel
import TactusEngine
import TactusInProcessHost
import TactusModel

/// Fuzz target 5: the editor's half of the pattern messages (`PatternSync`,
/// docs/plugin.md "Messages"), fed whatever a plugin and a host could make of
/// them: whole texts with any number (stale, equal, newer), pieces of a few
/// texts in order, out of order, again, with lying lengths and hashes, pieces
/// of two texts mixed, receipts for any edit at any offset, the editor's own
/// edits, and time passing by any amount.
///
/// What must hold: the editor holds (and shows) only a text that was sent
/// whole, made whole from its pieces, or its own edit the plugin confirmed,
/// never a mix; it is editable only while it holds one; every edit it sends
/// is numbered above the one before, its pieces are the bytes of one payload
/// (the same bytes at an offset each time they are sent again), and a
/// payload, once whole, is a change that turns the text it was made on into
/// the text the editor had.
public enum EditorSyncTarget {
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var input = FuzzInput(data)
        var session = SyncSession()
        while !input.isExhausted && session.steps < 400 { session.step(&input) }
        return session.violations
    }

    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("editor sync")
    }
}

private struct SyncSession {
    var violations = Violations()
    var sync = PatternSync()
    var now = 0.0
    var steps = 0
    /// The plugin's texts: what it may send.
    var texts: [[UInt8]]
    /// Every text the editor may hold, by hash: the plugin's, and its own confirmed edits.
    var allowed: [UInt64: [UInt8]] = [:]
    /// The editor's edits sent: number -> (text made on, text made, payload bytes seen so far, length, hash).
    var sent: [Int32: (base: [UInt8], text: [UInt8], bytes: [UInt8?], hash: UInt64?)] = [:]
    var lastNumber: Int32 = 0
    var pluginNumber: Int32 = 0
    /// The text of a commit made while an edit was in flight (sent once that one is settled).
    var pendingCommit: [UInt8]?

    init() {
        texts = FuzzFixtures.patternTexts.map { Array($0.utf8) } + [Array(FuzzFixtures.longText.utf8)]
        for t in texts { allowed[TextHash.of(t)] = t }
    }

    mutating func step(_ input: inout FuzzInput) {
        steps += 1
        now += input.oneIn(4) ? Double(input.below(4000)) / 1000 : Double(input.below(60)) / 1000
        var update: PatternSync.Update
        switch input.below(10) {
        case 0, 1:
            // A whole text, numbered as the plugin numbers (or older, or anything).
            let text = input.oneIn(8) ? mutated(&input) : input.pick(texts)
            allowed[TextHash.of(text)] = text
            update = sync.receiveText(text, sequence: number(&input), now: now)
        case 2, 3, 4:
            // A piece: of a text, mostly in order from what the editor asked for.
            let text = input.pick(texts)
            var offset = sync.assembly.map { $0.hash == TextHash.of(text) ? $0.received : 0 } ?? 0
            switch input.below(6) {
            case 0: offset = input.below(text.count + 1)
            case 1: offset = max(0, offset - input.below(300))
            default: break
            }
            offset = min(offset, text.count)
            let size = min(text.count - offset, 1 + input.below(input.oneIn(3) ? 20000 : 3000))
            var piece = Array(text[offset..<(offset + size)])
            var length = text.count
            var hash = TextHash.of(text)
            if input.oneIn(12) { length = input.below(2 * length + 2) + 1 }
            if input.oneIn(12) { hash = input.u64() }
            if input.oneIn(16), !piece.isEmpty { piece[input.below(piece.count)] = input.byte() }
            let n = number(&input)
            let at = now
            update = piece.withUnsafeBytes { sync.receivePiece(sequence: n, offset: offset, length: length, hash: hash, bytes: $0, now: at) }
        case 5:
            // A receipt: for the newest edit mostly, at an offset the plugin could hold, or anything.
            let n = input.oneIn(4) ? Int32(input.below(1 << 20)) - 1 : lastNumber
            let length = sent[n]?.bytes.count ?? 0
            update = sync.receiveReceipt(sequence: n, offset: input.oneIn(6) ? Int(Int32(bitPattern: input.u32())) : input.below(length + 1), now: now)
        case 6, 7:
            // The editor's own edit: its text becomes another (a fixture, or its own with a byte changed).
            guard sync.isEditable, let known = sync.known else { update = sync.commit(mutated(&input), now: now); break }
            var text = input.oneIn(3) ? input.pick(texts) : known
            if !text.isEmpty, input.oneIn(2) { text.insert(contentsOf: Array("note 1 1/4 60 100\n".utf8), at: text.count) }
            let waits = sync.hasEditInFlight
            update = sync.commit(text, now: now)
            if waits { pendingCommit = text }
            record(update.requests, base: known, text: text)
        default:
            update = sync.tick(now: now)
        }
        observe(update)
        checkHeld()
    }

    /// A sequence number as the plugin sends them: its newest, an older one, or anything.
    mutating func number(_ input: inout FuzzInput) -> Int32 {
        switch input.below(8) {
        case 0: return Int32(input.below(1 << 20)) - 1
        case 1: return max(0, pluginNumber - Int32(input.below(3)))
        case 2, 3:
            pluginNumber = max(pluginNumber, lastNumber)
            return pluginNumber
        default: return pluginNumber
        }
    }

    mutating func mutated(_ input: inout FuzzInput) -> [UInt8] {
        var t = input.pick(texts)
        if !t.isEmpty { t[input.below(t.count)] = input.byte() }
        return t
    }

    /// The requests of a commit: the edit's number, its base and its text.
    mutating func record(_ requests: [PatternSync.Request], base: [UInt8], text: [UInt8]) {
        for r in requests {
            switch r {
            case .payload(_, let n, _), .piece(_, let n, _, _, _, _):
                if sent[n] == nil {
                    if n <= lastNumber { violations.add("edit \(n) is not numbered above the one before (\(lastNumber))") }
                    lastNumber = max(lastNumber, n)
                    sent[n] = (base, text, [], nil)
                    allowed[TextHash.of(text)] = text
                }
            default:
                break
            }
        }
    }

    mutating func observe(_ update: PatternSync.Update) {
        if let show = update.show, allowed[TextHash.of(show)] != show {
            violations.add("the editor shows a text it never received whole: \(String(decoding: show.prefix(100), as: UTF8.self).debugDescription)")
        }
        // An edit sent now that was committed while another was in flight: made on what the editor now holds.
        if let text = pendingCommit, let base = sync.known, !update.requests.isEmpty {
            record(update.requests, base: base, text: text)
        }
        for r in update.requests {
            switch r {
            case .payload(_, let n, let bytes):
                guard let s = sent[n] else {
                    violations.add("edit \(n) sent without an edit made")
                    continue
                }
                checkPayload(n, bytes, s.base, s.text)
            case .piece(_, let n, let offset, let length, let hash, let bytes):
                guard var s = sent[n] else {
                    violations.add("a piece of edit \(n), which was never made")
                    continue
                }
                if s.bytes.count != length {
                    if s.bytes.isEmpty { s.bytes = [UInt8?](repeating: nil, count: length) } else {
                        violations.add("the pieces of edit \(n) name two lengths (\(s.bytes.count), \(length))")
                    }
                }
                if let h = s.hash, h != hash { violations.add("the pieces of edit \(n) name two hashes") }
                s.hash = hash
                guard offset >= 0, offset + bytes.count <= length else {
                    violations.add("a piece of edit \(n) at \(offset) (\(bytes.count) bytes) outside its \(length)")
                    continue
                }
                for (i, b) in bytes.enumerated() {
                    if let old = s.bytes[offset + i], old != b { violations.add("edit \(n) sent two bytes at \(offset + i)") }
                    s.bytes[offset + i] = b
                }
                sent[n] = s
                if !s.bytes.contains(where: { $0 == nil }) {
                    let whole = s.bytes.map { $0! }
                    if TextHash.of(whole) != hash { violations.add("edit \(n)'s pieces do not make the payload they name") }
                    checkPayload(n, whole, s.base, s.text)
                }
            case .textWanted(_, let offset, let window):
                if offset < 0 || window <= 0 { violations.add("a question for the text at \(offset), window \(window)") }
            }
        }
    }

    /// A whole payload is a change that turns its base into the edited text.
    mutating func checkPayload(_ n: Int32, _ bytes: [UInt8], _ base: [UInt8], _ text: [UInt8]) {
        switch PatternChange.decode(bytes) {
        case .failure(let f): violations.add("edit \(n) is not a change: \(f.message)")
        case .success(let change):
            if case .success(let made) = change.apply(to: base), made == text { return }
            violations.add("edit \(n) does not turn the text it was made on into the editor's")
        }
    }

    mutating func checkHeld() {
        if sync.isEditable && sync.known == nil { violations.add("editable without a text") }
        if let known = sync.known, allowed[TextHash.of(known)] != known {
            violations.add("the editor holds a text it never received whole: \(String(decoding: known.prefix(100), as: UTF8.self).debugDescription)")
        }
        if let a = sync.assembly, a.received > a.length { violations.add("an assembly past its length") }
    }
}
