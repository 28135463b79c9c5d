import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusEditorModel
import TactusOffline
import TactusTestSupport

// Property tests of the editor model: random pattern texts dressed the way
// people write them, random edits through the document, and a monkey of
// random presses, drags, releases, keys and wheel turns through the editor.
// After every step the text must parse to exactly the model's notes, and the
// comments must all still be there, in order.

/// How many random editor events the monkey sends (10^4 by default;
/// TACTUS_EDITOR_EVENTS sets more).
private let monkeyEvents = ProcessInfo.processInfo.environment["TACTUS_EDITOR_EVENTS"].flatMap(Int.init) ?? 10_000

/// A random valid pattern (version 1 or 2) written as a person might:
/// comments after statements and on lines of their own, blank lines, tabs and
/// runs of spaces, note names for keys, statements joined by `;`, CR LF line
/// ends, a byte-order mark, no final line end.
private func dressedPattern(_ gen: inout RandomSession) -> [UInt8] {
    let plain = gen.chance(0.5) ? gen.pattern(maxNotes: 12) : gen.lanePattern()
    var lines: [String] = []
    var comment = 0
    for line in plain.split(separator: "\n").map(String.init) {
        var fields = line.split(separator: " ").map(String.init)
        if fields.first == "note", fields.count >= 5, gen.chance(0.3), let key = UInt8(fields[3]) {
            fields[3] = NoteName.name(key)
        }
        var text = ""
        for (i, field) in fields.enumerated() {
            if i > 0 { text += gen.pick([" ", " ", "  ", "\t", " \t "]) }
            text += field
        }
        if gen.chance(0.2) { text = gen.pick([" ", "\t"]) + text }
        lines.append(text)
    }
    // Join some neighbours into one line of statements.
    var joined: [String] = []
    for line in lines {
        if let last = joined.last, gen.chance(0.25) {
            joined[joined.count - 1] = last + gen.pick([";", "; ", " ;  ", ";;"]) + line
        } else {
            joined.append(line)
        }
    }
    if gen.chance(0.1) { joined = [joined.joined(separator: "; ")] }
    var out: [String] = []
    for line in joined {
        if gen.chance(0.15) { out.append(gen.chance(0.5) ? "" : "# remark \(comment)"); comment += 1 }
        var text = line
        if gen.chance(0.35) { text += gen.pick([" ", "   ", "\t", ""]) + "# c\(comment) F#3 ;x"; comment += 1 }
        out.append(text)
    }
    if gen.chance(0.3) { out.append("# end \(comment)") }
    let newline = gen.chance(0.3) ? "\r\n" : "\n"
    var text = out.joined(separator: newline)
    if gen.chance(0.8) { text += newline }
    return (gen.chance(0.2) ? [0xEF, 0xBB, 0xBF] : []) + Array(text.utf8)
}

/// A random beat value near `around`, on a grid or not.
private func randomBeat(_ gen: inout RandomSession, below limit: Double) -> BeatRational {
    let den = Int64(gen.pick([1, 2, 3, 4, 6, 8, 96, 7, 1000]))
    let top = Int(max(1, limit * Double(den) * 1.2))
    return BeatRational(numerator: Int64(gen.int(-2...top)), denominator: den)!
}

@Suite("Editor model: properties")
struct EditorPropertyTests {
    @Test("a dressed-up random text is written back byte for byte")
    func dressedTextRoundTrips() throws {
        var gen = RandomSession(seed: 0xED17_0001)
        for _ in 0..<500 {
            let text = dressedPattern(&gen)
            let doc = try EditorDocument(parsing: text)
            #expect(doc.text() == text, "\(string(text))")
            #expect(textMatches(doc))
        }
    }

    @Test("random document edits: the text always parses to the edited notes, every comment stays, a refused edit changes nothing")
    func randomDocumentEdits() throws {
        var gen = RandomSession(seed: 0xED17_0002)
        var acceptedCount = 0
        var refusedCount = 0
        defer { #expect(acceptedCount > 2000 && refusedCount > 1000) }
        for _ in 0..<200 {
            let original = dressedPattern(&gen)
            var doc = try EditorDocument(parsing: original)
            let originalComments = comments(original)
            for _ in 0..<40 {
                let before = doc.text()
                let lane = gen.int(0...doc.lanes.count - 1)
                let length = doc.lanes[lane].length.approximateValue
                let target = doc.notes.isEmpty ? 0 : doc.notes[gen.int(0...doc.notes.count - 1)].id
                var accepted = true
                switch gen.int(0...6) {
                case 0:
                    if case .failure = doc.addNote(
                        lane: lane, start: randomBeat(&gen, below: length), duration: randomBeat(&gen, below: 2),
                        key: UInt8(gen.int(0...130)), velocity: UInt8(gen.int(0...130)), channel: gen.chance(0.5) ? nil : UInt8(gen.int(0...17)))
                    {
                        accepted = false
                    }
                case 1:
                    accepted = doc.removeNote(target)
                case 2:
                    if case .failure = doc.moveNote(target, start: randomBeat(&gen, below: length), key: UInt8(gen.int(0...130))) {
                        accepted = false
                    }
                case 3:
                    if case .failure = doc.resizeNote(target, duration: randomBeat(&gen, below: 3)) { accepted = false }
                case 4:
                    if case .failure = doc.setVelocity(target, UInt8(gen.int(0...130))) { accepted = false }
                case 5:
                    if case .failure = doc.setLength(ofLane: lane, to: randomBeat(&gen, below: length * 2)) { accepted = false }
                default:
                    let ids = doc.notes.filter { _ in gen.chance(0.3) }.map(\.id)
                    accepted = doc.removeNotes(ids) > 0
                }
                if !accepted { #expect(doc.text() == before); refusedCount += 1 } else { acceptedCount += 1 }
                #expect(textMatches(doc), "\(string(doc.text()))")
                #expect(comments(doc.text()) == originalComments, "\(string(original))\n---\n\(string(doc.text()))")
                #expect(doc.notes.map(\.id) == doc.notes.map(\.id).filter { doc.note($0) != nil })
            }
        }
    }

    @Test("the monkey: random presses, drags, releases, keys and wheel turns never break the text")
    func monkey() throws {
        var gen = RandomSession(seed: 0xED17_0003)
        var sent = 0
        var commits = 0
        var edited = 0
        while sent < monkeyEvents {
            let original = dressedPattern(&gen)
            var reference = comments(original)
            var e = PianoRollEditor(
                document: try EditorDocument(parsing: original), width: Double(gen.int(100...1200)), height: Double(gen.int(80...800)))
            if gen.chance(0.5) { _ = e.setSnap(gen.pick(SnapGrid.allCases)) }
            var replaced = false
            for _ in 0..<gen.int(50...400) {
                sent += 1
                let g = e.geometry
                // A point: mostly somewhere that responds (a note's edge or body, the loop
                // marker, the velocity strip, the keyboard), sometimes anywhere, even outside.
                var px = Double(gen.int(-50...Int(g.width) + 50)) + gen.unit()
                var py = Double(gen.int(-50...Int(g.height) + 50)) + gen.unit()
                let notes = e.laneNotes
                if !notes.isEmpty, gen.chance(0.5) {
                    let r = g.rectangle(of: notes[gen.int(0...notes.count - 1)])
                    px = r.x + gen.pick([0, 1, r.width / 2, r.width - 1, r.width]) + gen.unit() - 0.5
                    py = r.y + r.height / 2
                } else if gen.chance(0.2) {
                    px = g.x(forBeat: e.lane.length.approximateValue) + Double(gen.int(-4...4))
                    py = g.rulerHeight / 2
                } else if gen.chance(0.1) {
                    py = g.gridBottom + Double(gen.int(0...Int(g.velocityHeight)))
                }
                var modifiers: EditorModifiers = []
                if gen.chance(0.15) { modifiers.insert(.shift) }
                if gen.chance(0.1) { modifiers.insert(.control) }
                let effects: EditorEffects
                switch gen.int(0...19) {
                case 0...3:
                    effects = e.press(x: px, y: py, button: gen.pick([.left, .left, .left, .right, .middle]), modifiers: modifiers)
                case 4...9:
                    effects = e.drag(x: px, y: py)
                    #expect(!effects.commit, "a drag committed")
                case 10...13:
                    effects = e.release(x: px, y: py)
                case 14...16:
                    let names: [EditorKey.Name] = [
                        .delete, .backspace, .tab, .escape, .left, .right, .up, .down, .pageUp, .pageDown, .home, .end,
                        .character(UInt8(ascii: "z")), .character(UInt8(ascii: "Z")), .character(UInt8(ascii: "y")),
                        .character(UInt8(ascii: "a")), .character(UInt8(ascii: "g")), .character(UInt8(ascii: "f")),
                        .character(UInt8(ascii: "+")), .character(UInt8(ascii: "-")), .character(UInt8(ascii: "q")),
                    ]
                    effects = e.key(EditorKey(gen.pick(names), modifiers: modifiers))
                case 17:
                    effects = e.wheel(x: px, y: py, deltaX: Double(gen.int(-2...2)), deltaY: Double(gen.int(-3...3)), modifiers: modifiers)
                case 18:
                    effects = gen.chance(0.5) ? e.undo() : e.redo()
                default:
                    if gen.chance(0.1) {
                        let incoming = dressedPattern(&gen)
                        if case .success = e.replace(with: incoming, undoable: gen.chance(0.8)) {
                            reference = comments(incoming)
                            replaced = true
                        }
                        effects = .redraw
                    } else if gen.chance(0.5) {
                        effects = e.selectLane(gen.int(-1...e.document.lanes.count))
                    } else {
                        effects = e.playheadMoved(toBeat: gen.unit() * 20)
                    }
                }
                if effects.commit { commits += 1 }
                if let a = effects.audition {
                    #expect(a.key <= 127 && (1...127).contains(a.velocity) && (1...16).contains(a.channel))
                }
                let text = e.text()
                let parsed = try PatternParser.parse(bytes: text)
                #expect(parsed == e.document.pattern(), "\(string(text))")
                if !(comments(text) == reference) {
                    // Undo past a replace brings the earlier text's comments back.
                    reference = comments(text)
                    #expect(e.canRedo || e.canUndo, "comments changed: \(string(text))")
                }
                #expect(e.laneIndex >= 0 && e.laneIndex < e.document.lanes.count)
                let laneIDs = e.laneNotes.map(\.id)
                #expect(e.selection.ids.allSatisfy { laneIDs.contains($0) })
                #expect(e.geometry.firstBeat.isFinite && e.geometry.firstBeat >= 0 && (0...127).contains(e.geometry.topKey))
                if e.document.notes != (try EditorDocument(parsing: original)).notes { edited += 1 }
            }
            _ = e.release(x: 0, y: 0)
            // Every change was recorded: undoing all of it (when fewer steps than
            // the history keeps, and no new pattern came) gives the text back.
            var steps = 0
            while e.canUndo, steps <= 200 {
                _ = e.undo()
                steps += 1
            }
            if steps < 200, !replaced { #expect(e.text() == original, "\(string(original))\n---\n\(string(e.text()))") }
        }
        // The monkey did edit: commits happened and documents changed.
        #expect(commits > monkeyEvents / 100)
        #expect(edited > monkeyEvents / 10)
    }
}
