import Foundation
import Testing
import TactusFuzzTargets
import TactusOffline

/// The fuzz targets' seed corpora (and every crash the fuzzers found, kept
/// there as regressions), replayed through the same checks libFuzzer runs,
/// plus a few thousand inputs from a seeded generator: the fuzz smoke that
/// `make test` runs without libFuzzer.
@Suite("Fuzz targets on their corpora")
struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound])).appendingPathComponent("Fuzz/Corpus")

    static func inputs(_ name: String) throws -> [(String, [UInt8])] {
        let dir = corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        return try files.map { ($0, Array(try Data(contentsOf: dir.appendingPathComponent($0)))) }
    }

    static func replay(_ name: String, random count: Int, _ target: (UnsafeRawBufferPointer) -> Violations) throws {
        let seeds = try inputs(name)
        try #require(!seeds.isEmpty, "no seed corpus in Fuzz/Corpus/\(name)")
        for (file, bytes) in seeds {
            let v = bytes.withUnsafeBytes { target($0) }
            #expect(v.isEmpty, "Fuzz/Corpus/\(name)/\(file):\n\(v)")
        }
        // Seeded variations of the seeds: a few bytes changed, cut, or appended.
        var rng = SplitMix64(seed: 1)
        for i in 0..<count {
            var bytes = seeds[i % seeds.count].1
            for _ in 0..<(1 + rng.below(8)) {
                switch rng.below(3) {
                case 0 where !bytes.isEmpty: bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                case 1 where !bytes.isEmpty: bytes.removeLast(rng.below(bytes.count))
                default: bytes.append(UInt8(truncatingIfNeeded: rng.next()))
                }
            }
            let v = bytes.withUnsafeBytes { target($0) }
            if !v.isEmpty {
                Issue.record("variation \(i) of Fuzz/Corpus/\(name) (\(bytes.map { String(format: "%02x", $0) }.joined())):\n\(v)")
                return
            }
        }
    }

    @Test("run(): every seed and 2000 variations keep the invariants")
    func pluginRun() throws { try FuzzCorpusTests.replay("plugin-run", random: 2000, PluginRunTarget.check) }

    @Test("the pattern parser: every seed and 20000 variations")
    func patternParser() throws { try FuzzCorpusTests.replay("pattern-parser", random: 20000, PatternParserTarget.check) }

    @Test("the SMF reader and import: every seed and 20000 variations")
    func smfReader() throws { try FuzzCorpusTests.replay("smf-reader", random: 20000, SMFReaderTarget.check) }

    @Test("restore(): every seed and 2000 variations")
    func stateRestore() throws { try FuzzCorpusTests.replay("state-restore", random: 2000, StateRestoreTarget.check) }

    @Test("the editor's half of the pattern messages: every seed and 2000 variations")
    func editorSync() throws { try FuzzCorpusTests.replay("editor-sync", random: 2000, EditorSyncTarget.check) }

    @Test("the CLAP plugin's process(): every seed and 2000 variations")
    func clapProcess() throws { try FuzzCorpusTests.replay("clap-process", random: 2000, CLAPProcessTarget.check) }
}

extension SplitMix64 {
    /// A number in 0..<n (0 when n is 0): the same variations on every machine.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}
