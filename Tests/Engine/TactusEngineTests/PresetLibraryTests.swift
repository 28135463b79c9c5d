import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// The preset library (plugin.lv2/presets.ttl): every preset's pattern parses,
/// and renders 16 beats at 120 bpm, with a key played on the input after 8
/// beats, exactly as the reference model says (timing contract §3-§7).
@Suite("Preset library")
struct PresetLibraryTests {
    static var bundle: URL {
        URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound]))
            .appendingPathComponent("plugin.lv2")
    }

    /// (preset URI, pattern text) for each preset in presets.ttl.
    static func presets() throws -> [(name: String, text: String)] {
        let ttl = try String(contentsOf: bundle.appendingPathComponent("presets.ttl"), encoding: .utf8)
        var result: [(String, String)] = []
        var rest = ttl[...]
        while let subject = rest.range(of: "<urn:tactus:preset:") {
            let name = rest[subject.upperBound...].prefix { $0 != ">" }
            guard let open = rest.range(of: "<urn:tactus:pattern> \"\"\"", range: subject.upperBound..<rest.endIndex),
                let close = rest.range(of: "\"\"\"", range: open.upperBound..<rest.endIndex)
            else { break }
            result.append((String(name), String(rest[open.upperBound..<close.lowerBound])))
            rest = rest[close.upperBound...]
        }
        return result
    }

    @Test("at least 20 presets, each listed in manifest.ttl; drum grooves, key-following lines, polymeter, swing, and several patterns with songs among them")
    func libraryIsComplete() throws {
        let presets = try PresetLibraryTests.presets()
        #expect(presets.count >= 20)
        let manifest = try String(contentsOf: PresetLibraryTests.bundle.appendingPathComponent("manifest.ttl"), encoding: .utf8)
        for preset in presets { #expect(manifest.contains("<urn:tactus:preset:\(preset.name)>"), "\(preset.name) not in manifest.ttl") }
        let patterns = try presets.map { try PatternParser.parse($0.text) }
        #expect(patterns.filter { $0.lanes.contains { $0.followRoot != nil } }.count >= 5)
        #expect(patterns.filter { Set($0.lanes.map(\.length)).count > 1 }.count >= 3)
        #expect(patterns.filter { $0.lanes.contains { $0.swingRatio != nil } }.count >= 3)
        #expect(patterns.filter { $0.notes.contains { $0.probability != BeatRational(1) } }.count >= 3)
        #expect(patterns.filter { $0.notes.allSatisfy { $0.channel == 10 } && !$0.notes.isEmpty }.count >= 10)
        // Version 3 (§9): texts of several patterns, songs and triggers.
        let arrangements = try presets.map { try PatternParser.arrangement($0.text) }
        #expect(arrangements.filter { $0.patterns.count >= 3 }.count >= 4)
        #expect(arrangements.filter { $0.song != nil }.count >= 2)
        #expect(arrangements.filter { $0.triggers != PatternTriggers() }.count >= 3)
    }

    @Test("every preset parses and renders 16 beats exactly as the reference model does")
    func everyPresetRenders() throws {
        for preset in try PresetLibraryTests.presets() {
            let script = """
                tactus-transport 1
                rate 48000
                0 position frame=0 speed=1 bar=0 barBeat=0 beatsPerBar=4 beatsPerMinute=120
                192000 midi 90 2b 64
                384000 position speed=0
                384001 end

                """
            // Version 3 (patterns and songs, §9) is beyond the reference model: its
            // presets must render alike for any block partition instead.
            let version3 = preset.text.hasPrefix("tactus-pattern 3")
            let result = try SessionHarness.run(pattern: preset.text, script: script, blocks: .fixed(256), withReference: !version3)
            #expect(result.core.filter { $0.bytes[0] & 0xF0 == 0x90 }.count >= 8, "\(preset.name) plays too little")
            if version3 {
                for plan in [BlockPlan.fixed(1), .random(minimum: 1, maximum: 3000, seed: 30)] {
                    let other = try SessionHarness.run(pattern: preset.text, script: script, blocks: plan, withReference: false)
                    #expect(other.core == result.core, "\(preset.name) with blocks \(plan)")
                }
            } else if let difference = firstDifference(canonical(result.core), canonical(result.reference!)) {
                Issue.record("\(preset.name): \(difference)")
            }
        }
    }
}
