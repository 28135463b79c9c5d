import Testing
import TactusEngine
import TactusModel
import TactusTestSupport
import TactusOffline

/// Runs one session (pattern text, transport script text, block plan) through
/// the core, as `tactus render` does, and optionally through the reference
/// model fed with exactly the inputs the core received.
struct SessionResult {
    var core: [LoggedEvent] = []
    var reference: [LoggedEvent]?
    var report: OfflineRender.Report
    /// Every block's (start, size).
    var blocks: [(start: Int64, size: Int)] = []
    /// Frames at which a position update stopped a rolling transport (per the reference).
    var stopFrames: [Int64] = []
    var endFrame: Int64
    /// What the reference saw happen, rule by rule.
    var coverage: [String: Int] = [:]
}

enum SessionHarness {
    static func run(
        pattern: String, script: String, blocks: BlockPlan, sampleRate: Double? = nil,
        patterns: [String: String] = [:], withReference: Bool, outputCapacity: Int = 1 << 16
    ) throws -> SessionResult {
        let parsedScript = try TransportScript(parsing: script)
        let rate = sampleRate ?? parsedScript.sampleRate ?? 48000
        let initial = try PatternParser.parse(pattern)
        var render = OfflineRender(script: parsedScript, sampleRate: rate, blocks: blocks)
        render.outputCapacity = outputCapacity
        var reference = withReference ? ReferenceSequencer(sampleRate: rate, pattern: initial) : nil
        var blockList: [(Int64, Int)] = []
        var stops: [Int64] = []
        render.observer = { frame, input in
            switch input {
            case .blockStart(let size):
                blockList.append((frame, size))
            case .installed(let p):
                reference?.install(p, at: frame)
            case .laneMutes(let bits):
                reference?.setMutes(Set((0..<64).filter { bits & (1 << UInt64($0)) != 0 }), at: frame)
            case .position(let u):
                let wasRolling = reference?.rolling ?? false
                reference?.update(u, at: frame)
                if wasRolling && !(reference?.rolling ?? true) { stops.append(frame) }
            case .midi(let bytes):
                if bytes.count >= 2, MIDIInput.isAllNotesOff(status: bytes[0], data1: bytes[1]) {
                    reference?.allNotesOff(at: frame)
                } else if bytes.count >= 3 {
                    // §7.5, read from the bytes as the contract says (not through MIDIInput).
                    let channel = Int(bytes[0] & 0x0F) + 1
                    if bytes[0] & 0xF0 == 0x90 && bytes[2] > 0 { reference?.followKey(channel: channel, key: Int(bytes[1]), at: frame) }
                    if bytes[0] & 0xF0 == 0xB0 && bytes[1] == 121 { reference?.resetFollow(channel: channel, at: frame) }
                }
            }
        }
        var events: [LoggedEvent] = []
        let report = render.run(
            pattern: initial, patternText: Array(pattern.utf8),
            loadPattern: { name in
                guard let text = patterns[name] else { return .failure(PatternLoadError("no pattern '\(name)'")) }
                do { return .success((try PatternParser.parse(text), Array(text.utf8))) } catch {
                    return .failure(PatternLoadError((error as? PatternError)?.message ?? "\(error)"))
                }
            },
            onBlock: { blockEvents, _ in events += blockEvents })
        reference?.advance(to: parsedScript.endFrame)
        return SessionResult(
            core: events, reference: reference?.output, report: report, blocks: blockList, stopFrames: stops,
            endFrame: parsedScript.endFrame, coverage: reference?.coverage ?? [:])
    }
}

/// Event logs compared as the contract orders them: by frame, note-offs before
/// note-ons; the order among note-offs (or among note-ons) of one frame is free.
func canonical(_ events: [LoggedEvent]) -> [LoggedEvent] {
    events.enumerated().sorted { a, b in
        let (x, y) = (a.element, b.element)
        if x.frame != y.frame { return x.frame < y.frame }
        if x.isNoteOff != y.isNoteOff { return x.isNoteOff }
        if x.slot != y.slot { return x.slot < y.slot }
        return a.offset < b.offset
    }.map(\.element)
}

/// The first place two logs differ, as a readable message.
func firstDifference(_ a: [LoggedEvent], _ b: [LoggedEvent], names: (String, String) = ("core", "reference")) -> String? {
    for i in 0..<max(a.count, b.count) {
        let x = i < a.count ? EventLog.line(a[i]) : "(end)"
        let y = i < b.count ? EventLog.line(b[i]) : "(end)"
        if x != y {
            let context = (max(0, i - 3)..<i).map { "    " + EventLog.line(a[$0]) }.joined(separator: "\n")
            return "event \(i): \(names.0) \(x), \(names.1) \(y)\n  before:\n\(context)"
        }
    }
    return nil
}

/// The contract's invariants on any log (§5): frames non-decreasing, note-offs
/// before note-ons at a frame, every note-on ended by exactly one note-off
/// (no note-off without a note-on), nothing sounding after a stop, and nothing
/// sounding at the end when the session ends stopped.
func invariantViolations(_ result: SessionResult, endsStopped: Bool) -> [String] {
    var problems: [String] = []
    var sounding = Set<Int>()
    var lastFrame = Int64.min
    var sawOnAtFrame = false
    var stops = result.stopFrames[...]
    for e in result.core {
        // A stop at frame f: after the events at f, nothing may sound.
        while let s = stops.first, s < e.frame {
            if !sounding.isEmpty { problems.append("notes \(sounding.sorted()) still sound after the stop at \(s)") }
            stops = stops.dropFirst()
        }
        if e.frame < lastFrame { problems.append("frame \(e.frame) after \(lastFrame)") }
        if e.frame != lastFrame { sawOnAtFrame = false }
        lastFrame = e.frame
        if e.isNoteOn {
            if sounding.contains(e.slot) { problems.append("note-on of sounding slot \(e.slot) at \(e.frame)") }
            sounding.insert(e.slot)
            sawOnAtFrame = true
        } else if e.isNoteOff {
            if sawOnAtFrame { problems.append("note-off after a note-on at frame \(e.frame)") }
            if sounding.remove(e.slot) == nil { problems.append("note-off of silent slot \(e.slot) at \(e.frame)") }
        }
        if problems.count > 5 { break }
    }
    for s in stops where s < result.endFrame && !sounding.isEmpty {
        problems.append("notes \(sounding.sorted()) still sound after the stop at \(s)")
        break
    }
    if endsStopped && !sounding.isEmpty { problems.append("notes \(sounding.sorted()) sound at the end") }
    return problems
}

/// One session of the block-partition property: rendered in fixed 256-frame
/// blocks and in random blocks from 1 to a random maximum, the logs must be
/// identical and each must keep the invariants. Returns the blocks rendered,
/// or the problem a person reads (with the pattern and the script).
func partitionCheck(pattern: String, script: String, seed: UInt64, gen: inout RandomSession) throws -> Result<Int, PartitionFailure> {
    let fixed = try SessionHarness.run(pattern: pattern, script: script, blocks: .fixed(256), withReference: false)
    let plan = BlockPlan.random(minimum: 1, maximum: gen.pick([16, 300, 8192]), seed: seed)
    let random = try SessionHarness.run(pattern: pattern, script: script, blocks: plan, withReference: false)
    if let difference = firstDifference(random.core, fixed.core, names: ("random blocks", "256-frame blocks")) {
        return .failure(PartitionFailure(description: "seed \(seed), blocks \(plan): \(difference)\n--- pattern\n\(pattern)--- script\n\(script)"))
    }
    for result in [fixed, random] {
        let problems = invariantViolations(result, endsStopped: true)
        if !problems.isEmpty {
            return .failure(PartitionFailure(description: "seed \(seed): \(problems)\n--- pattern\n\(pattern)--- script\n\(script)"))
        }
    }
    return .success(random.report.blocks + fixed.report.blocks)
}

/// The block-partition property (`partitionCheck`) on random sessions, seed
/// after seed from `firstSeed`, until `blockBudget` blocks and at least
/// `minimumSessions` sessions have been rendered; `session` makes each one's
/// pattern and script from its seed and generator. The first failure is
/// recorded as an issue and ends the run. Returns the sessions and blocks rendered.
@discardableResult
func checkPartitions(
    firstSeed: UInt64, blockBudget: Int, minimumSessions: Int,
    session: (UInt64, inout RandomSession) -> (pattern: String, script: String)
) throws -> (sessions: Int, blocks: Int) {
    var blocks = 0, sessions = 0, seed = firstSeed
    while blocks < blockBudget || sessions < minimumSessions {
        var gen = RandomSession(seed: seed)
        let (pattern, script) = session(seed, &gen)
        switch try partitionCheck(pattern: pattern, script: script, seed: seed, gen: &gen) {
        case .success(let n): blocks += n
        case .failure(let failure):
            Issue.record("\(failure)")
            return (sessions, blocks)
        }
        seed += 1
        sessions += 1
    }
    return (sessions, blocks)
}

/// Why a session broke the block-partition property.
struct PartitionFailure: Error, CustomStringConvertible {
    var description: String
}
