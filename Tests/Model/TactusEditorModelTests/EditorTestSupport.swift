import TactusEngine
import TactusModel
import TactusEditorModel

// Helpers shared by the editor model's tests.

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

func string(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

func frac(_ n: Int64, _ d: Int64 = 1) -> BeatRational { BeatRational(numerator: n, denominator: d)! }

func document(_ text: String) throws -> EditorDocument {
    try EditorDocument(parsing: bytes(text))
}

/// The id of the note at `index` in text order.
func id(_ doc: EditorDocument, _ index: Int) -> UInt32 { doc.notes[index].id }

/// Whether the document's text parses to exactly the document's pattern.
func textMatches(_ doc: EditorDocument) -> Bool {
    guard let parsed = try? PatternParser.parse(bytes: doc.text()) else { return false }
    return parsed == doc.pattern()
}

/// The comments of a text, line by line (`PatternParser.commentStart`), CR of CR LF excluded.
func comments(_ text: [UInt8]) -> [String] {
    var out: [String] = []
    var body = text
    if body.starts(with: [0xEF, 0xBB, 0xBF]) { body.removeFirst(3) }
    for var line in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init) {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let at = PatternParser.commentStart(in: line)
        if at < line.count { out.append(string(Array(line[at...]))) }
    }
    return out
}

/// An editor in a view of 850 x 400 pixels laid out for exact pixel
/// arithmetic: keyboard 50 wide, ruler 20 high, velocity strip 40 high,
/// 100 pixels a beat, rows 10 high, key 72 in the top row, beat 0 at x 50.
/// So beat b is at x = 50 + 100 b, and key k's row spans y = 20 + 10 (72 - k)
/// to 10 pixels below (its middle at `y(k)`).
func editor(_ text: String, snap: SnapGrid = .sixteenth) throws -> PianoRollEditor {
    var e = PianoRollEditor(document: try document(text), width: 850, height: 400)
    // One lane at a time (the stacked view's tests ask for it themselves).
    _ = e.setShowsAllLanes(false)
    e.geometry = testGeometry()
    e.keyboardStripWidth = 50
    _ = e.setSnap(snap)
    return e
}

func testGeometry() -> PianoRollGeometry {
    var g = PianoRollGeometry(width: 850, height: 400)
    g.keyboardWidth = 50
    g.rulerHeight = 20
    g.velocityHeight = 40
    g.setPixelsPerBeat(100)
    g.setKeyHeight(10)
    g.topKey = 72
    g.firstBeat = 0
    return g
}

/// The x of beat b in `testGeometry`.
func x(_ beat: Double) -> Double { 50 + 100 * beat }

/// The middle of key k's row in `testGeometry`.
func y(_ key: Int) -> Double { 25 + Double(72 - key) * 10 }
