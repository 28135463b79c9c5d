import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusEditorModel
import TactusOffline

// The pattern text between the plugin and its editor (issue 27, docs/plugin.md
// "Messages"): the built plugin in the project's host, with the editor's own
// half of the messages (PatternSync) as the host's `--editor`.

@Suite("Plugin and editor: the pattern text both ways")
struct EditorMessagesPluginTests {
    /// 20,000 notes written as an import writes them (comments, fractions, decimals, channels).
    static func twentyThousand(velocityShift: Int = 0, key: Int = 60) -> String {
        var lines = ["tactus-pattern 1", "# 20,000 notes", "length 2048"]
        for k in 0..<20_000 {
            if k % 500 == 0 { lines.append("# part \(k / 500)") }
            let start = k % 2 == 0 ? "\(k)/10" : "\(Double(k) / 10)"
            lines.append("note \(start) 1/16 \(k == 7 ? key : 48 + k % 24) \(1 + (k * 7 + velocityShift) % 127)\(k % 9 == 0 ? " 2" : "")\(k % 40 == 0 ? "  # \(k)" : "")")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Run {
        var out: PluginProcess.Output
        var saved: String
        var editor: String
    }

    /// The host with an editor (`--editor`) over `script`, starting from `pattern`; the plugin's saved text and the editor's.
    static func run(_ script: String, pattern: String, files: [String: String] = [:], blocks: String = "256", arguments: [String] = []) throws -> Run {
        var all = files
        all["script.transport"] = script
        all["pattern.pattern"] = pattern
        let dir = try PluginProcess.folder(all)
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = dir.appendingPathComponent("saved.pattern").path
        let editor = dir.appendingPathComponent("editor.pattern").path
        let out = try PluginProcess.run(
            in: dir, blocks: blocks, arguments: ["--editor", "--quiet", "--save-pattern", saved, "--editor-text", editor] + arguments)
        return Run(
            out: out, saved: (try? String(contentsOfFile: saved, encoding: .utf8)) ?? "",
            editor: (try? String(contentsOfFile: editor, encoding: .utf8)) ?? "")
    }

    static let rolling = "tactus-transport 1\nrate 48000\n0 tempo 120\n0 play\n"

    @Test("a 20,000-note pattern reaches the editor whole, in pieces; an edit of one note and one of every note reach the plugin, byte for byte")
    func largePatternBothWays() throws {
        let base = EditorMessagesPluginTests.twentyThousand()
        let one = EditorMessagesPluginTests.twentyThousand(key: 61)
        let every = EditorMessagesPluginTests.twentyThousand(velocityShift: 3, key: 61)
        for (blocks, extra) in [("256", [String]()), ("random:1-4096@27", []), ("64", ["--notify-capacity", "6000"])] {
            let r = try EditorMessagesPluginTests.run(
                EditorMessagesPluginTests.rolling + "96000 edit one.pattern\n192000 edit every.pattern\n288000 edit one.pattern\n480000 end\n",
                pattern: base, files: ["one.pattern": one, "every.pattern": every], blocks: blocks, arguments: extra)
            #expect(r.out.status == 0, "\(r.out.stderr)")
            #expect(r.saved == one, "blocks \(blocks): the plugin saves \(r.saved.utf8.count) bytes")
            #expect(r.editor == one, "blocks \(blocks): the editor holds \(r.editor.utf8.count) bytes")
            let pieces = r.out.notify.filter { $0.contains("urn:tactus:textPiece") }.count
            let receipts = r.out.notify.filter { $0.contains("urn:tactus:textReceipt") }.count
            #expect(pieces > 10 && receipts > 10, "blocks \(blocks): \(pieces) pieces, \(receipts) receipts")
            #expect(!r.out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("rejected") }, "\(r.out.notify.filter { $0.contains("error") })")
        }
    }

    @Test("at the format's limit (65,536 notes, 1.8 MB) the text goes both ways through an 8 KiB notify port and a 4 KiB worker ring; one note more is refused and the editor brought back")
    func noteLimitBothWays() throws {
        func text(_ notes: Int, keyShift: Int = 0, longer: Int? = nil) -> String {
            var lines = ["tactus-pattern 1", "length 4096"]
            for k in 0..<notes {
                lines.append("note \(k)/16 \(k == longer ? "1/8" : "1/16") \(36 + (k * 7 + keyShift) % 48) \(1 + k % 127)")
            }
            return lines.joined(separator: "\n") + "\n"
        }
        let base = text(65_536), one = text(65_536, longer: 30_000), every = text(65_536, keyShift: 1, longer: 30_000)
        let over = every + "note 1 1/16 60 100\n"
        let r = try EditorMessagesPluginTests.run(
            EditorMessagesPluginTests.rolling
                + "480000 edit one.pattern\n960000 edit every.pattern\n1440000 edit over.pattern\n1920000 end\n",
            pattern: base, files: ["one.pattern": one, "every.pattern": every, "over.pattern": over],
            arguments: ["--notify-capacity", "8192", "--worker-ring", "4096"])
        #expect(r.out.status == 0, "\(r.out.stderr)")
        #expect(base.utf8.count > 1_500_000)
        #expect(r.saved == every, "the plugin saves \(r.saved.utf8.count) bytes")
        #expect(r.editor == every, "the editor holds \(r.editor.utf8.count) bytes")
        let errors = r.out.notify.filter { $0.contains("urn:tactus:error") }
        #expect(errors.count == 1 && errors.allSatisfy { $0.contains("the pattern has more than 65536 notes") }, "\(errors)")
    }

    @Test("an edit made on a text the plugin no longer plays is refused, and the editor is brought back to what plays")
    func staleChangeIsRefused() throws {
        let base = "tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\n"
        let edited = "tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 64 100\n"
        let preset = "tactus-pattern 1\nlength 4\nnote 2 1 67 90\n"
        // The host's own edit (a preset, a generic UI) and the editor's in the same block.
        let r = try EditorMessagesPluginTests.run(
            EditorMessagesPluginTests.rolling + "24000 pattern preset.pattern\n24000 edit edited.pattern\n96000 end\n",
            pattern: base, files: ["preset.pattern": preset, "edited.pattern": edited])
        #expect(r.out.status == 0, "\(r.out.stderr)")
        #expect(r.saved == preset)
        #expect(r.editor == preset)
        #expect(r.out.notify.contains { $0.contains("urn:tactus:error") && $0.contains("no longer plays") }, "\(r.out.notify)")
    }

    @Test("texts of any size pass a 4 KiB worker ring (jalv's and Qtractor's): the request names the inbox, the text is not in it")
    func smallWorkerRing() throws {
        let big = EditorMessagesPluginTests.twentyThousand()
        var sixtyK = ""
        for line in big.split(separator: "\n") {
            if sixtyK.utf8.count + line.utf8.count + 1 > 60_000 { break }
            sixtyK += line + "\n"
        }
        let r = try EditorMessagesPluginTests.run(
            EditorMessagesPluginTests.rolling + "24000 pattern sixty.pattern\n96000 edit big.pattern\n300000 end\n",
            pattern: "tactus-pattern 1\nlength 4\nnote 0 1 60 100\n", files: ["sixty.pattern": sixtyK, "big.pattern": big],
            arguments: ["--worker-ring", "4096"])
        #expect(r.out.status == 0, "\(r.out.stderr)")
        #expect(r.saved == big && r.editor == big, "saved \(r.saved.utf8.count) bytes, editor \(r.editor.utf8.count)")
        #expect(r.out.notify.filter { $0.hasSuffix("state:StateChanged") }.count >= 2)
    }

    @Test("a second text in one block, while the first is with the worker, is refused with a reason; the first is installed")
    func secondTextInABlockIsRefused() throws {
        let first = "tactus-pattern 1\nlength 4\nnote 0 1 60 100\n"
        let second = "tactus-pattern 1\nlength 4\nnote 0 1 62 100\n"
        let dir = try PluginProcess.folder([
            "script.transport": EditorMessagesPluginTests.rolling + "24000 pattern first.pattern\n24000 pattern second.pattern\n48000 end\n",
            "pattern.pattern": "tactus-pattern 1\nlength 4\n", "first.pattern": first, "second.pattern": second,
        ])
        defer { try? FileManager.default.removeItem(at: dir) }
        let saved = dir.appendingPathComponent("saved.pattern").path
        let out = try PluginProcess.run(in: dir, arguments: ["--save-pattern", saved])
        #expect(try String(contentsOfFile: saved, encoding: .utf8) == first)
        #expect(out.notify.contains { $0.contains("still reading the previous edit") })
    }
}
