import ArgumentParser
import FileIO
import Foundation
import TactusEngine
import TactusModel
import TactusJack
import TactusOffline

/// Lines of a transport script, split into frame-timed actions and the rest.
struct ScriptLines {
    var header: [String] = []
    var timed: [(frame: Int64, text: String)] = []
    var end: Int64?

    init(file: String) throws {
        let text = try FileInput.text(file)
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(separator: " ")
            if let first = words.first, let frame = Int64(first), words.count >= 2 {
                if words[1] == "end" { end = frame } else { timed.append((frame, words.dropFirst().joined(separator: " "))) }
            } else if !content.trimmingCharacters(in: .whitespaces).isEmpty {
                header.append(line)
            }
        }
    }
}

/// Where a `tactus jack` journal's frames sit on the JACK server's clock: the
/// runs of consecutive cycles it processed (`frame-times.txt`).
struct ClientClock {
    /// (first frame of the run in the client's frames, server frame time there, frames in the run)
    var runs: [(frame: Int64, time: Int64, count: Int64)] = []

    init(file: String, end: Int64) throws {
        var starts: [(Int64, Int64)] = []
        for line in try FileInput.text(file).split(separator: "\n") where !line.hasPrefix("#") {
            let w = line.split(separator: " ")
            guard w.count == 2, let f = Int64(w[0]), let t = Int64(w[1]) else { throw ValidationError("\(file): bad line '\(line)'") }
            starts.append((f, t))
        }
        for (i, s) in starts.enumerated() {
            let next = i + 1 < starts.count ? starts[i + 1].0 : end
            runs.append((s.0, s.1, max(0, next - s.0)))
        }
    }

    /// The client's frame at server frame time `time`, if the client ran that cycle.
    func frame(atTime time: Int64) -> Int64? {
        for r in runs where time >= r.time && time < r.time + r.count { return r.frame + (time - r.time) }
        return nil
    }
}

struct JackAlign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jack-align",
        abstract: "Line up a tactus jack journal with a recording of the same session, for tactus verify.",
        discussion: """
            The journal counts frames in tactus jack's cycles, the recorder in its own; \
            both are tied to the server's frame time (JOURNAL/frame-times.txt, the \
            recorder's --cycles), so a cycle JACK skipped for either client is accounted \
            for. Writes JOURNAL/recorded.log (the recording in the journal's frames) and \
            OUT/session.transport: the positions tactus jack must have given its core, \
            rebuilt with the same rule from the recorder's view of JACK transport in the \
            cycles tactus jack ran, with the journal's edits and all-notes-offs; and \
            OUT/recorded.log. Fails if a note is left sounding.
            """)

    @Option(help: "The journal folder (tactus jack --journal).") var journal: String
    @Option(help: "The recorder's event log (tactus jack-record --output).") var recorded: String
    @Option(help: "The recorder's cycles (tactus jack-record --cycles).") var cycles: String
    @Option(help: "Folder for the session rebuilt from the recorder's view.") var out: String

    func run() throws {
        let journalScript = try ScriptLines(file: journal + "/session.transport")
        guard let end = journalScript.end else { throw ValidationError("the journal has no end") }
        let clock = try ClientClock(file: journal + "/frame-times.txt", end: end)
        let recorderCycles = try FileInput.text(cycles).split(separator: "\n").compactMap(JackCycleLine.parse)
        let events = try EventLog.parse(String(contentsOfFile: recorded, encoding: .utf8))
        // Nothing may be left sounding (checked in the recorder's own order of events).
        var sounding = Set<Int>()
        var noteOns = 0
        for e in events {
            if e.isNoteOn { sounding.insert(e.slot); noteOns += 1 } else if e.isNoteOff { sounding.remove(e.slot) }
        }
        guard sounding.isEmpty else {
            throw ValidationError("\(sounding.count) notes still sounding at the end of the recording: "
                + sounding.sorted().map { "channel \($0 / 128 + 1) key \($0 % 128)" }.joined(separator: ", "))
        }
        // Under xruns JACK2 skips cycles and also runs some twice with the same frame
        // time and transport frame: then no clock ties one client's cycles to the
        // other's, and the session cannot be compared (exit 3: try again).
        var irregular = clock.runs.count - 1
        for (a, b) in zip(recorderCycles, recorderCycles.dropFirst())
        where Int64(b.frameTime) != Int64(a.frameTime) + Int64(a.cycle.frameCount) { irregular += 1 }
        if irregular > 0 {
            FileHandle.standardError.write(Data("tactus-hosttest: JACK ran \(irregular) cycles out of step (xruns): the recording cannot be lined up with the journal\n".utf8))
            throw ExitCode(3)
        }

        // The recording in the journal's frames.
        var moved: [LoggedEvent] = []
        var cycleIndex = 0
        for e in events {
            while cycleIndex < recorderCycles.count,
                recorderCycles[cycleIndex].cycle.cycleStart + Int64(recorderCycles[cycleIndex].cycle.frameCount) <= e.frame
            {
                cycleIndex += 1
            }
            guard cycleIndex < recorderCycles.count, recorderCycles[cycleIndex].cycle.cycleStart <= e.frame else {
                throw ValidationError("recorded event at recorder frame \(e.frame) is in no recorded cycle")
            }
            let c = recorderCycles[cycleIndex]
            let time = Int64(c.frameTime) + (e.frame - c.cycle.cycleStart)
            guard let frame = clock.frame(atTime: time) else {
                throw ValidationError("recorded event at server frame time \(time) is in a cycle tactus jack did not run")
            }
            moved.append(LoggedEvent(frame: frame, bytes: e.bytes))
        }
        var log = "# tactus event log: MIDI recorded from tactus jack, in the frames of its journal (its own cycles)\n"
        for e in moved { log += EventLog.line(e) + "\n" }
        try AtomicFile.write(log, to: journal + "/recorded.log")

        // The positions, rebuilt from the recorder's cycles that tactus jack ran too.
        var follower = JackTransportFollower()
        var positions: [(frame: Int64, text: String)] = []
        var seen = Set<Int64>()
        for c in recorderCycles {
            guard let frame = clock.frame(atTime: Int64(c.frameTime)), frame < end else { continue }
            seen.insert(frame)
            if let update = follower.update(for: c.cycle) {
                positions.append((frame, update.scriptPosition.scriptAction))
            }
        }
        // The cycles tactus jack ran (one period each) that the recorder has no record of.
        let period = Int64(max(recorderCycles.first?.cycle.frameCount ?? 1, 1))
        var missed = 0
        for r in clock.runs {
            var f = r.frame
            while f < min(r.frame + r.count, end) {
                if !seen.contains(f) { missed += 1 }
                f += period
            }
        }

        var session = "tactus-transport 1\n# The positions tactus jack gave its core, rebuilt from the recorder's view of JACK transport\n"
        session += "# in the cycles tactus jack ran; the edits and all-notes-offs from its journal.\n"
        let journalFolder = URL(fileURLWithPath: journal).standardizedFileURL.path
        for line in journalScript.header where !line.hasPrefix("tactus-transport") {
            session += line.hasPrefix("pattern ") ? "pattern \(journalFolder)/\(line.dropFirst(8))\n" : line + "\n"
        }
        var merged: [(frame: Int64, order: Int, text: String)] = positions.enumerated().map { ($1.frame, $0, $1.text) }
        for (i, action) in journalScript.timed.enumerated() where !action.text.hasPrefix("position frame=") {
            var text = action.text
            if text.hasPrefix("pattern ") { text = "pattern \(journalFolder)/\(text.dropFirst(8))" }
            // At one frame, the follower's position comes before the journal's own actions.
            merged.append((action.frame, positions.count + i, text))
        }
        merged.sort { ($0.frame, $0.order) < ($1.frame, $1.order) }
        for m in merged where m.frame < end { session += "\(m.frame) \(m.text)\n" }
        session += "\(end) end\n"
        try Folder.create(out)
        try AtomicFile.write(session, to: out + "/session.transport")
        try AtomicFile.write(log, to: out + "/recorded.log")

        let clockMessages = moved.filter { $0.bytes.first.map { $0 >= 0xF0 } ?? false }
        let clocks = clockMessages.isEmpty ? "" : " (\(clockMessages.filter { $0.bytes == [0xF8] }.count) of them Timing Clocks, \(clockMessages.count) MIDI clock messages in all)"
        print("tactus-hosttest: \(moved.count) events\(clocks), \(noteOns) note-ons; "
            + "\(journalScript.timed.filter { $0.text.hasPrefix("pattern ") }.count) edits installed")
        if missed > 0 {
            // The recorder lacks the transport of cycles tactus jack ran: the rebuilt positions
            // cannot be trusted, and neither can the recording of those cycles.
            throw ValidationError("the recorder missed \(missed) cycles that tactus jack ran (JACK skipped it): the session cannot be compared")
        }
    }
}

struct EditStorm: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit-storm",
        abstract: "Print a paced stream of random pattern edits for tactus jack's prompt, and the pattern they must leave.",
        discussion: """
            Adds, removes (by number and by place), length changes, clears and some \
            invalid edits (which must change nothing), at --rate edits a second; then \
            `save SAVE` and `quit`. The expected final pattern is computed by a model \
            of its own and written to --expect.
            """)

    @Option(help: "How many edits.") var count: Int = 10000
    @Option(help: "Edits per second.") var rate: Double = 4000
    @Option(help: "Random seed.") var seed: UInt64 = 1
    @Option(help: "The file the prompt is asked to save the final pattern to.") var save: String
    @Option(help: "Where to write the expected final pattern.") var expect: String
    @Option(help: "Start from this pattern (what tactus jack was started with).") var pattern: String

    struct Note { var start: BeatRational; var text: String; var key: Int; var channel: Int }

    func run() throws {
        var rng = SplitMix64(seed: seed)
        let initial = try PatternParser.parse(bytes: FileInput.read(pattern).mapError { FileReadFailure(path: pattern, reason: $0) }.get())
        var notes: [Note] = initial.notes.map {
            Note(start: $0.start, text: "\(PatternWriter.beatText($0.start)) \(PatternWriter.beatText($0.duration)) \($0.key) \($0.velocity) \($0.channel)",
                key: Int($0.key), channel: Int($0.channel))
        }
        var length = initial.length
        var lines: [String] = []
        var invalid = 0
        for _ in 0..<count {
            let roll = rng.below(100)
            if roll < 50 || notes.isEmpty {
                let den = [1, 2, 3, 4, 7][rng.below(5)]
                let span = Int(length.numerator) * den / Int(length.denominator)
                let num = rng.below(max(span, 1))
                let start = BeatRational(numerator: Int64(num), denominator: Int64(den))!
                let duration = ["1/4", "1/3", "1/2", "1", "3/7", "5"][rng.below(6)]
                let key = 36 + rng.below(48)
                let channel = 1 + rng.below(16)
                let text = "\(den == 1 ? "\(num)" : "\(num)/\(den)") \(duration) \(key) \(1 + rng.below(127)) \(channel)"
                if notes.count < 64 {
                    lines.append("add " + text)
                    notes.append(Note(start: start, text: text, key: key, channel: channel))
                } else {
                    lines.append("remove \(notes.count)")
                    notes.removeLast()
                }
            } else if roll < 80 {
                let index = rng.below(notes.count)
                lines.append("remove \(index + 1)")
                notes.remove(at: index)
            } else if roll < 88 {
                let target = notes[rng.below(notes.count)]
                lines.append("remove \(PatternWriter.beatText(target.start)) \(target.key) \(target.channel)")
                notes.removeAll { $0.start == target.start && $0.key == target.key && $0.channel == target.channel }
            } else if roll < 95 {
                // A length that keeps every note inside the loop.
                let latest = notes.map(\.start).max() ?? BeatRational.zero
                let whole = Int(latest.numerator / latest.denominator) + 1 + rng.below(2)
                length = BeatRational(Int64(whole))
                lines.append("length \(whole)")
            } else if roll < 96 {
                lines.append("clear")
                notes.removeAll()
            } else {
                // Invalid: each must be refused and change nothing.
                lines.append(["add 1 1 200 100", "add 0 0 60 100", "remove 9999", "length 0", "add x 1 60 100", "frobnicate"][rng.below(6)])
                invalid += 1
            }
        }
        var expected = "tactus-pattern 1\nlength \(PatternWriter.beatText(length))\n"
        for n in notes { expected += "note \(n.text)\n" }
        try AtomicFile.write(expected, to: expect)
        lines.append("save \(save)")
        lines.append("quit")

        let out = FileHandle.standardOutput
        let started = Date()
        var sent = 0
        let batch = max(1, Int(rate / 200))
        while sent < lines.count {
            let upTo = min(lines.count, sent + batch)
            out.write(Data((lines[sent..<upTo].joined(separator: "\n") + "\n").utf8))
            sent = upTo
            let due = started.addingTimeInterval(Double(sent) / rate)
            let wait = due.timeIntervalSinceNow
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
        }
        FileHandle.standardError.write(Data("tactus-hosttest: \(count) edits (\(invalid) invalid) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; final pattern \(notes.count) notes\n".utf8))
    }
}

struct SamePattern: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "same-pattern", abstract: "Exit 0 if two pattern files hold the same pattern (same length, same notes in the same order).")

    @Argument var first: String
    @Argument var second: String

    func run() throws {
        func load(_ path: String) throws -> Pattern {
            let data = try FileInput.read(path).mapError { FileReadFailure(path: path, reason: $0) }.get()
            do { return try PatternParser.parse(bytes: data) } catch { throw ValidationError("\(path):\(error.line): \(error.reasonText)") }
        }
        let a = try load(first)
        let b = try load(second)
        guard a == b else {
            throw ValidationError("the patterns differ: \(first) has length \(PatternWriter.beatText(a.length)) and \(a.notes.count) notes, \(second) has \(PatternWriter.beatText(b.length)) and \(b.notes.count)")
        }
    }
}

extension SplitMix64 {
    /// 0 ..< n (0 when n <= 1).
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int.random(in: 0..<n, using: &self) }
}
