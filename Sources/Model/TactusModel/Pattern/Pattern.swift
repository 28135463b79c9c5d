import TactusEngine
/// One note of a pattern: where it starts in the loop, how long it lasts,
/// and what it plays. Beats are exact rationals (pattern format §"note").
public struct PatternNote: Equatable, Sendable {
    /// Beats from the start of the loop, `0 <= start < length`.
    public var start: BeatRational
    /// Beats, `> 0`. May exceed the loop: the note then overlaps the next pass.
    public var duration: BeatRational
    /// MIDI key, 0-127.
    public var key: UInt8
    /// MIDI velocity, 1-127.
    public var velocity: UInt8
    /// MIDI channel as people count it, 1-16 (in version 2, the lane's
    /// channel when the text names none).
    public var channel: UInt8
    /// The chance that the note plays in a pass of its lane, `0 < P <= 1`
    /// (`prob=`, version 2; contract §7.4). 1 for every version-1 note.
    public var probability: BeatRational
    /// Index of its lane in `Pattern.lanes` (0 in version 1).
    public var lane: Int
    /// `ccN=V` fields (version 3, contract §10.5), in text order; each controller at most once.
    public var locks: [ControllerLock]

    public init(
        start: BeatRational, duration: BeatRational, key: UInt8, velocity: UInt8, channel: UInt8 = 1,
        probability: BeatRational = BeatRational(1), lane: Int = 0, locks: [ControllerLock] = []
    ) {
        self.locks = locks
        self.start = start
        self.duration = duration
        self.key = key
        self.velocity = velocity
        self.channel = channel
        self.probability = probability
        self.lane = lane
    }
}

/// One lane of a version-2 pattern: a loop of its own length (contract §7.1).
public struct PatternLane: Equatable, Sendable {
    /// 1-32 bytes of `A-Z a-z 0-9 - _`; `main` for the one lane of version 1.
    public var name: [UInt8]
    /// Loop length in beats, `> 0`.
    public var length: BeatRational
    /// Channel of the notes that name none, 1-16.
    public var channel: UInt8
    /// `swing R G`: the ratio `0 < R < 1`, nil without swing (§7.2).
    public var swingRatio: BeatRational?
    /// `swing R G`: the grid step `G > 0` in beats.
    public var swingGrid: BeatRational
    /// `follow ROOT`: the written root key, nil when the lane does not follow (§7.5).
    public var followRoot: UInt8?
    /// `follow ROOT in C`: the input channel 1-16 listened to, 0 for any.
    public var followChannel: UInt8
    /// `ramp-step S` (version 3): the grid its ramps are sampled on, `> 0` beats (§10.2).
    public var rampStep: BeatRational

    /// The `ramp-step` of a lane that names none: 1/32 beat.
    public static var defaultRampStep: BeatRational { BeatRational(numerator: 1, denominator: 32)! }

    public init(
        name: [UInt8], length: BeatRational, channel: UInt8 = 1, swingRatio: BeatRational? = nil,
        swingGrid: BeatRational = BeatRational(1), followRoot: UInt8? = nil, followChannel: UInt8 = 0,
        rampStep: BeatRational = PatternLane.defaultRampStep
    ) {
        self.rampStep = rampStep
        self.name = name
        self.length = length
        self.channel = channel
        self.swingRatio = swingRatio
        self.swingGrid = swingGrid
        self.followRoot = followRoot
        self.followChannel = followChannel
    }

    /// The name of the one lane of a version-1 pattern.
    public static var mainName: [UInt8] { Array("main".utf8) }
}

/// A pattern as a person wrote it: a loop length and notes in text order.
///
/// The text order matters: it breaks ties between notes that start together
/// (timing contract §5). `Pattern` is the editable model, used off the audio
/// thread; the audio thread plays a `PatternSnapshot` built from it.
public struct Pattern: Equatable, Sendable {
    /// Most notes a pattern may hold (pattern format, "Limits").
    public static var maximumNoteCount: Int { 65_536 }

    /// Most lanes a version-2 pattern may hold.
    public static var maximumLaneCount: Int { PatternSnapshot.maximumLaneCount }

    /// Loop length in beats, `> 0`: in version 1 the loop; in version 2 the
    /// lanes' common cycle (their least common multiple, contract §7.1).
    public var length: BeatRational
    /// Notes in the order of the text.
    public var notes: [PatternNote]
    /// The lanes of a version-2 pattern in text order; empty in version 1.
    public var laneList: [PatternLane]
    /// `seed S` (version 2; 0 by default): with the lane names, decides the `prob=` notes (§7.4).
    public var seed: UInt32
    /// The lanes' controller points (version 3, §10), in text order (so lane by lane).
    public var controllers: [ControllerPoint]

    /// Most controller points one text may hold (pattern format, "Limits (version 3)").
    public static var maximumControllerPointCount: Int { 65_536 }

    /// A version-1 pattern: one loop of `length`.
    public init(length: BeatRational, notes: [PatternNote] = []) {
        self.length = length
        self.notes = notes
        self.laneList = []
        self.seed = 0
        self.controllers = []
    }

    /// A version-2 pattern; `length` is the lanes' common cycle (`LaneCycle.commonCycle`).
    public init(lanes: [PatternLane], notes: [PatternNote], seed: UInt32, commonCycle: BeatRational, controllers: [ControllerPoint] = []) {
        self.length = commonCycle
        self.notes = notes
        self.laneList = lanes
        self.seed = seed
        self.controllers = controllers
    }

    /// 1 or 2: version 2 exactly when the pattern has lanes (a pattern
    /// with controllers has lanes and is written as version 3: `usesControllers`).
    public var version: Int { laneList.isEmpty ? 1 : 2 }

    /// Whether only version 3 can say this pattern: a controller point, a
    /// lock or a lane's `ramp-step` (§10). O(notes + lanes).
    public var usesControllers: Bool {
        !controllers.isEmpty || notes.contains { !$0.locks.isEmpty } || laneList.contains { $0.rampStep != PatternLane.defaultRampStep }
    }

    /// The lanes as the contract sees them: a version-1 pattern is one lane
    /// named `main` of its length (§7).
    public var lanes: [PatternLane] {
        laneList.isEmpty ? [PatternLane(name: PatternLane.mainName, length: length)] : laneList
    }

    /// Checks the pattern format's rules on a pattern built in code (the parser
    /// applies the same rules with line numbers). Returns the first problem.
    public func validationError() -> PatternError? {
        if length <= .zero { return PatternError(line: 0, reason: .lengthNotPositive) }
        if !PatternLimits.isWritable(length) { return PatternError(line: 0, reason: .fractionPartTooLarge(field: "length")) }
        if length > PatternLimits.maximumBeatValue { return PatternError(line: 0, reason: .beatValueTooLarge(field: "length")) }
        if notes.count > Pattern.maximumNoteCount { return PatternError(line: 0, reason: .tooManyNotes) }
        if laneList.count > Pattern.maximumLaneCount { return PatternError(line: 0, reason: .tooManyLanes) }
        for lane in laneList {
            if lane.length <= .zero { return PatternError(line: 0, reason: .lengthNotPositive) }
            if let r = lane.swingRatio, r <= .zero || r >= BeatRational(1) { return PatternError(line: 0, reason: .swingRatioOutOfRange) }
            if lane.swingGrid <= .zero { return PatternError(line: 0, reason: .swingGridNotPositive) }
        }
        let laneLengths = lanes.map { $0.length }
        for (i, note) in notes.enumerated() {
            let line = i + 1
            if note.lane < 0 || note.lane >= laneLengths.count { return PatternError(line: line, reason: .noteOutsideLane) }
            if note.start < .zero { return PatternError(line: line, reason: .negativeBeat(field: "start")) }
            if note.start >= laneLengths[note.lane] {
                return PatternError(line: line, reason: laneList.isEmpty ? .startNotBeforeLength : .startNotBeforeLaneLength)
            }
            if note.probability <= .zero || note.probability > BeatRational(1) { return PatternError(line: line, reason: .probabilityOutOfRange) }
            if note.duration <= .zero { return PatternError(line: line, reason: .durationNotPositive) }
            if !PatternLimits.isWritable(note.start) { return PatternError(line: line, reason: .fractionPartTooLarge(field: "start")) }
            if !PatternLimits.isWritable(note.duration) { return PatternError(line: line, reason: .fractionPartTooLarge(field: "duration")) }
            if note.duration > PatternLimits.maximumBeatValue { return PatternError(line: line, reason: .beatValueTooLarge(field: "duration")) }
            if note.key > 127 { return PatternError(line: line, reason: .outOfRange(field: "key", range: "0-127", found: "\(note.key)")) }
            if note.velocity < 1 || note.velocity > 127 { return PatternError(line: line, reason: .outOfRange(field: "velocity", range: "1-127", found: "\(note.velocity)")) }
            if note.channel < 1 || note.channel > 16 { return PatternError(line: line, reason: .outOfRange(field: "channel", range: "1-16", found: "\(note.channel)")) }
            for (j, lock) in note.locks.enumerated() {
                if lock.controller > 119 || lock.value > 127 { return PatternError(line: line, reason: .badLock(lock.text)) }
                if note.locks[..<j].contains(where: { $0.controller == lock.controller }) {
                    return PatternError(line: line, reason: .duplicateLock(controller: lock.controller))
                }
            }
        }
        if !controllers.isEmpty || laneList.contains(where: { $0.rampStep != PatternLane.defaultRampStep }) {
            if laneList.isEmpty { return PatternError(line: 0, reason: .controllerBeforeLane) }
            if controllers.count > Pattern.maximumControllerPointCount { return PatternError(line: 0, reason: .tooManyControllerPoints) }
            for lane in laneList where lane.rampStep <= .zero { return PatternError(line: 0, reason: .rampStepNotPositive) }
            for (i, point) in controllers.enumerated() {
                let line = notes.count + i + 1
                if point.lane < 0 || point.lane >= laneLengths.count { return PatternError(line: line, reason: .controllerBeforeLane) }
                if point.start < .zero { return PatternError(line: line, reason: .negativeBeat(field: "start")) }
                if point.start >= laneLengths[point.lane] { return PatternError(line: line, reason: .pointStartNotBeforeLaneLength) }
                if !PatternLimits.isWritable(point.start) { return PatternError(line: line, reason: .fractionPartTooLarge(field: "start")) }
                if let problem = point.problem { return PatternError(line: line, reason: problem) }
            }
            if let (_, second) = ControllerCycle.firstDuplicate(controllers) {
                let p = controllers[second]
                return PatternError(line: notes.count + second + 1, reason: .duplicatePoint(controller: p.kind.name, channel: p.channel, beat: PatternWriter.beatText(p.start), firstLine: 0))
            }
        }
        if !laneList.isEmpty {
            if let problem = LaneCycle.check(self) { return PatternError(line: 0, reason: problem.reason) }
        }
        return nil
    }
}

/// The numeric limits of the pattern format.
public enum PatternLimits {
    /// Largest beat value (1,000,000).
    public static var maximumBeatValue: BeatRational { BeatRational(1_000_000) }
    /// Most digits after a decimal point.
    public static var maximumDecimalDigits: Int { 9 }
    /// A fraction's numerator and denominator are below this (2^31).
    public static var fractionPartLimit: Int64 { 1 << 31 }

    /// Whether the text format can spell `value` exactly: as a decimal of at
    /// most nine places, or as a fraction with parts below 2^31. (A pattern
    /// built in code must pass this, or its saved text would not load.)
    public static func isWritable(_ value: BeatRational) -> Bool {
        if 1_000_000_000 % value.denominator == 0 { return true }
        return value.numerator.magnitude < UInt64(fractionPartLimit) && value.denominator < fractionPartLimit
    }
}

// Hashing needs a random seed, which in Embedded Swift would tie the plugin to
// a C library with arc4random_buf (glibc 2.36); only tests and tools hash these.
#if !hasFeature(Embedded)
extension PatternNote: Hashable {}
extension Pattern: Hashable {}
extension PatternLane: Hashable {}
#endif
