import Foundation
import Testing
import TactusCore
import TactusOffline

/// The recordings made in real hosts (Tests/Fixtures, written by
/// `TACTUS_RECORD_FIXTURES=1 make host-test`), replayed through the core
/// offline: every session must reproduce its recorded log event for event,
/// within the tolerance its description states (none, for these), and no note
/// may stay sounding across a loop wrap, a stop or a locate.
@Suite("Recorded host sessions")
struct RecordedSessionTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static var sessions: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("\($0)/session.transport").path) }.sorted()
    }

    @Test("there are recordings from Ardour and from jalv")
    func recordingsExist() {
        #expect(Self.sessions.contains { $0.hasPrefix("ardour-") })
        #expect(Self.sessions.contains { $0.hasPrefix("jalv-") })
    }

    @Test("each recorded session replays as recorded", arguments: sessions)
    func replay(name: String) throws {
        let dir = Self.fixtures.appendingPathComponent(name)
        let script = try TransportScript(parsing: String(contentsOf: dir.appendingPathComponent("session.transport"), encoding: .utf8))
        let recorded = try EventLog.parse(String(contentsOf: dir.appendingPathComponent("recorded.log"), encoding: .utf8))
        let patternPath = try #require(script.initialPattern)
        let pattern = try PatternParser.parse(String(contentsOf: dir.appendingPathComponent(patternPath), encoding: .utf8))
        let render = OfflineRender(script: script, sampleRate: script.sampleRate ?? 48000, blocks: script.blocks ?? .fixed(256))
        var replayed: [LoggedEvent] = []
        _ = render.run(pattern: pattern, loadPattern: { _ in .failure(PatternLoadError("no edits in recordings")) }, onBlock: { e, _ in replayed += e })
        let comparison = LogComparison(expected: replayed, recorded: recorded, tolerance: script.tolerance?.frames ?? 0)
        #expect(recorded.count > 20)
        #expect(comparison.agrees, "\(name): \(comparison.differences.first?.description ?? "")")
        #expect(comparison.pairs == recorded.count)

        // No stuck notes: after each stop, and at the end, nothing sounds.
        let stops = script.actions.compactMap { action -> Int64? in
            guard case .position(let p) = action.action, p.update.speed == 0 else { return nil }
            return action.frame
        }
        var sounding = Set<Int>()
        var nextStop = stops[...]
        for e in recorded {
            while let s = nextStop.first, s < e.frame {
                #expect(sounding.isEmpty, "\(name): notes \(sounding.sorted()) sound after the stop at \(s)")
                nextStop = nextStop.dropFirst()
            }
            if e.isNoteOn {
                #expect(!sounding.contains(e.slot), "\(name): note-on of a sounding note at \(e.frame)")
                sounding.insert(e.slot)
            } else if e.isNoteOff {
                #expect(sounding.remove(e.slot) != nil, "\(name): note-off of a silent note at \(e.frame)")
            }
        }
        #expect(sounding.isEmpty, "\(name): notes \(sounding.sorted()) still sound at the end")
    }
}
