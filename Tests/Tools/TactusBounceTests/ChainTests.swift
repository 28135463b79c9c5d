import Foundation
import TactusBounce
import TactusEngine
import TactusModel
import TactusOffline
import Testing

/// `--chain` (docs/bounce.md, B10): the Tactus plugin as the first plugin.
@Suite struct ChainTests {
    static var root: String {
        let here = #filePath
        return String(here[..<here.range(of: "/Tests/")!.lowerBound])
    }
    /// `make plugin` builds the bundle and links it into .build/lv2.
    static var pluginBuilt: Bool { FileManager.default.fileExists(atPath: root + "/.build/lv2/tactus.lv2/tactus.so") }

    @Test("B10: the plugin under the demo transport sends the instrument tactus render's events, event for event, and the bounces are identical",
          .enabled(if: ChainTests.pluginBuilt))
    func chainEqualsRender() throws {
        // The bundle this checkout built comes first (named, not through LV2_PATH:
        // setenv while other tests' threads read the environment corrupts the heap).
        let bundle = Self.root + "/.build/lv2/tactus.lv2"
        let patternPath = Self.root + "/examples/demo.pattern"
        let text = Array(try String(contentsOfFile: patternPath, encoding: .utf8).utf8)
        let script = try TransportScript(parsing: try String(contentsOfFile: Self.root + "/examples/demo.transport", encoding: .utf8))
        for rate in [44100, 48000] {
            let chained = try PluginChainSchedule.make(patternPath: patternPath, script: script, sampleRate: rate, bundle: bundle).schedule
            let rendered = PatternSchedule.make(
                pattern: try PatternParser.parse(bytes: text), text: text, script: script, sampleRate: rate,
                loadPattern: { _ in .failure(PatternLoadError("")) }).schedule
            #expect(chained.events == rendered.events, "rate \(rate)")
            let a = try RenderTests.render(chained, ClickInstrument(sampleRate: rate)).0
            let b = try RenderTests.render(rendered, ClickInstrument(sampleRate: rate)).0
            #expect(a == b)
        }
    }

    /// Three patterns of 4, 3 and 2 beats (a lock, a ramp, program changes), switched at the next bar by default.
    static let threePatterns = """
        tactus-pattern 3
        switch at bar
        pattern four program 3
        lane a length 4
        note 0 1/2 60 100 cc74=110
        note 1 1 62 100
        note 5/2 1 64 100
        cc 74 0 20
        cc 74 2 90 ramp
        pattern three program 7
        lane b length 3
        note 0 1/2 48 90
        note 3/2 1 50 90
        pattern two
        lane c length 2
        note 0 3/2 72 80

        """

    /// 120 bpm at 48 kHz (24,000 frames a beat): a request at each WHEN, the default, and a name the text lacks.
    static let requests = """
        tactus-transport 1
        rate 48000
        0 tempo 120
        0 play
        30000 request three
        110000 request two now
        130001 request four beat
        200000 request three bars 2
        300000 request two end
        350000 request four
        420000 request nine
        460000 meter 3
        470000 request three bar
        500000 stop
        520000 play
        530000 request two end
        700000 stop
        701000 end

        """

    @Test("§9.2: a script's 'request NAME [WHEN]' reaches the plugin as the editor's urn:tactus:request at its frame; the plugin switches at the frames tactus render prints, at every WHEN; an unknown name is the same warning",
          .enabled(if: ChainTests.pluginBuilt))
    func chainPlaysRequests() throws {
        let bundle = Self.root + "/.build/lv2/tactus.lv2"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-chain-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let patternPath = folder.appendingPathComponent("three.pattern").path
        try Self.threePatterns.write(toFile: patternPath, atomically: true, encoding: .utf8)
        let text = Array(Self.threePatterns.utf8)
        let script = try TransportScript(parsing: Self.requests)
        let chained = try PluginChainSchedule.make(patternPath: patternPath, script: script, sampleRate: 48000, bundle: bundle)
        let rendered = PatternSchedule.make(
            pattern: try PatternParser.parse(bytes: text), text: text, script: script, sampleRate: 48000,
            loadPattern: { _ in .failure(PatternLoadError("")) })
        #expect(chained.schedule.events == rendered.schedule.events)
        #expect(chained.warnings == rendered.report.requestFailures)
        #expect(chained.warnings == ["frame 420000: request 'nine': the text playing has no pattern of that name (its patterns: 'four', 'three', 'two')"])
        // The switches happened: `two now` at its own frame (C5 at once), `three` at the next bar (its program change 7 at beat 4).
        let events = chained.schedule.events
        #expect(events.contains { $0.frame == 110_000 && $0.isNoteOn && $0.data1 == 72 })
        #expect(events.contains { $0.frame == 96_000 && $0.status == 0xC0 && $0.data1 == 7 })
    }
}
