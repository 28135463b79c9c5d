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
            let chained = try PluginChainSchedule.make(patternPath: patternPath, script: script, sampleRate: rate, bundle: bundle)
            let rendered = PatternSchedule.make(
                pattern: try PatternParser.parse(bytes: text), text: text, script: script, sampleRate: rate,
                loadPattern: { _ in .failure(PatternLoadError("")) }).schedule
            #expect(chained.events == rendered.events, "rate \(rate)")
            let a = try RenderTests.render(chained, ClickInstrument(sampleRate: rate)).0
            let b = try RenderTests.render(rendered, ClickInstrument(sampleRate: rate)).0
            #expect(a == b)
        }
    }
}
