import TactusEngine
import TactusModel
import TactusOffline

// What the §9 and §10 tests share: a render through the engine every surface
// runs (OfflineRender is `tactus render`), and its log as `tactus render` prints it.

/// The events of `patternText` under `scriptText` at 48 kHz.
func render(_ patternText: String, _ scriptText: String, blocks: BlockPlan = .fixed(256)) throws -> [LoggedEvent] {
    let script = try TransportScript(parsing: scriptText)
    let text = Array(patternText.utf8)
    let pattern = try PatternParser.parse(bytes: text)
    var events: [LoggedEvent] = []
    _ = OfflineRender(script: script, sampleRate: 48000, blocks: blocks)
        .run(pattern: pattern, patternText: text, loadPattern: { _ in .failure(PatternLoadError("no edits")) }, onBlock: { e, _ in events += e })
    return events
}

/// `frame hex bytes` lines, as `tactus render` prints them.
func lines(_ events: [LoggedEvent]) -> [String] {
    events.map { e in "\(e.frame) " + e.bytes.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined(separator: " ") }
}
