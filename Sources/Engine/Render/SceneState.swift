/// Which pattern of a text plays, from which origin, and which switch is
/// pending (timing contract §9): the renderer's memory of patterns and songs.
///
/// The arithmetic of §9.2 (a request's boundary on its grid, grace) and §9.5
/// (the song entry at a beat, the next entry's start) lives here; the
/// renderer (`BlockRenderer`, PatternSwitching.swift) performs the switches
/// at their frames. Value type on the audio thread: every method is
/// allocation-free and lock-free; a song lookup is a binary search over its
/// entries, everything else O(1), whatever the number of patterns.
public struct SceneState: Sendable, BitwiseCopyable {
    /// The snapshot whose patterns these are.
    var snapshot: PatternSnapshot? = nil
    /// The pattern playing (a part of `snapshot`), nil when none plays (§9.1).
    public internal(set) var playing: PatternSnapshot? = nil
    /// Its index, from 0; -1 when none plays.
    public internal(set) var playingPart = -1
    /// §9.1: its origin `O`.
    public internal(set) var origin = BeatPosition.zero
    /// §9.2: whether a switch is pending, to which pattern (-1: to none,
    /// the end of a song that stops) and at which boundary `B`.
    public internal(set) var hasPending = false
    public internal(set) var pendingPart = -1
    public internal(set) var pendingBeat = BeatPosition.zero
    var pendingKeepsPhase = false
    var pendingRings = false
    /// Whether the pending switch is the song's next entry (`songEntry`, `songRepetition` then name it).
    var pendingFromSong = false
    var pendingEntry = 0
    var pendingRepetition: Int64 = 0
    /// §9.5: the `song` control (1 by default).
    public internal(set) var songEnabled = true
    /// §9.5: the song entry playing, 1-based; 0 when no song plays (off, none, before its start, after a `stop`).
    public internal(set) var songEntryNumber = 0
    /// §9.7: the playing pattern's program is owed at the next start of play.
    var programOwed = false

    @_noLocks
    public init() {}

    /// Whether the snapshot uses anything of §9 (several patterns, a program,
    /// a song): otherwise the renderer takes its version-2 path unchanged.
    var isActive: Bool {
        @_noLocks get {
            guard let s = snapshot else { return false }
            return s.partCount > 1 || s.songCount > 0 || s.partInfo(0).program >= 0
        }
    }

    /// Whether the song decides what plays (§9.5).
    var songPlays: Bool { @_noLocks get { songEnabled && (snapshot?.songCount ?? 0) > 0 } }

    /// The playing pattern's number, 1-based (0: none), for a host's display.
    public var playingNumber: Int { @_noLocks get { playingPart + 1 } }

    /// The pending switch's pattern number, 1-based (0: none pending).
    public var queuedNumber: Int { @_noLocks get { hasPending && !pendingFromSong ? pendingPart + 1 : 0 } }

    /// What a host or an editor shows of it (`urn:tactus:scene`).
    public var report: SceneReport {
        @_noLocks get {
            SceneReport(
                playing: playingNumber, queued: queuedNumber, switchBeat: pendingBeat, songEntry: songEntryNumber, origin: origin)
        }
    }

    // MARK: - A new snapshot

    /// §9.7: a new text. The playing pattern stays when its name is still in
    /// it (with its origin), a pending request when its target's is (with
    /// its `B`); otherwise pattern 1 plays from `O = 0`. With a song playing,
    /// the song's pattern at `beat`.
    @_noLocks
    mutating func install(_ s: PatternSnapshot?, at beat: BeatPosition, rolling: Bool) {
        let old = self
        snapshot = s
        songEntryNumber = 0
        guard let s else {
            playing = nil
            playingPart = -1
            hasPending = false
            return
        }
        if songPlays {
            locateSong(at: beat)
            return
        }
        var kept = -1
        if let oldSnapshot = old.snapshot, old.playingPart >= 0 {
            kept = s.partIndex(nameHash: oldSnapshot.partInfo(old.playingPart).nameHash)
        }
        if kept >= 0 && old.snapshot != nil && (old.snapshot!.partCount > 1 || s.partCount > 1) {
            playingPart = kept
            origin = old.origin
        } else {
            playingPart = 0
            origin = .zero
            // Instantiation, a new text, a restore: the program goes out at the next start of play.
            programOwed = s.partInfo(0).program >= 0
        }
        playing = s.part(playingPart)
        hasPending = false
        if old.hasPending, !old.pendingFromSong, let oldSnapshot = old.snapshot, old.pendingPart >= 0 {
            let target = s.partIndex(nameHash: oldSnapshot.partInfo(old.pendingPart).nameHash)
            if target >= 0 {
                self.hasPending = true
                pendingPart = target
                pendingBeat = old.pendingBeat
                pendingKeepsPhase = old.pendingKeepsPhase
                pendingRings = old.pendingRings
            }
        }
    }

    /// The host (re)activated the plugin: the pattern's program is owed again.
    @_noLocks
    mutating func activate() {
        if playingPart >= 0, let s = snapshot, s.partInfo(playingPart).program >= 0 { programOwed = true }
    }

    // MARK: - §9.2 Requests

    /// The boundary `B` of a request at beat `r` (§9.2) on `grid`, with
    /// `grace`, bars of `beatsPerBar`. `B <= r` means "switch now".
    @_noLocks
    func boundary(request r: BeatPosition, grid: SwitchSettings.Grid, grace: BeatPosition, beatsPerBar: Double) -> BeatPosition {
        let step: Double
        switch grid {
        case .now: return r
        case .beat: step = 1
        case .bar: step = beatsPerBar
        case .bars(let n): step = Double(n) * beatsPerBar
        case .end:
            guard let p = playing else { return r }
            // O + k × C, the first at or after r; the latest at or before r for grace.
            let k = p.approximateLoopIndex(containing: r - origin) ?? 0
            var after = k
            while let start = p.loopStart(after), start + origin < r { after &+= 1 }
            while let start = p.loopStart(after &- 1), !(start + origin < r) { after &-= 1 }
            let next = (p.loopStart(after) ?? .zero) + origin
            if let previous = p.loopStart(after &- 1), grace.approximateValue > 0 {
                let b = previous + origin
                if !((r - b) > grace) && !(r < b) { return b }
            }
            if next == r { return r }
            return next
        }
        guard step > 0, step.isFinite else { return r }
        // The grid points k × step around r, settled exactly.
        var k = Double(-BeatPosition.floorToInt64(-(r.approximateValue / step)))
        if let point = BeatPosition(k * step), point < r { k += 1 }
        if let previous = BeatPosition((k - 1) * step), !(previous < r) { k -= 1 }
        guard let next = BeatPosition(k * step) else { return r }
        if next == r { return r }
        if grace.approximateValue > 0, let previous = BeatPosition((k - 1) * step), !((r - previous) > grace) {
            return previous
        }
        return next
    }

    /// Makes a request pending (replacing any): pattern `part` at `B`.
    @_noLocks
    mutating func makePending(part: Int, at b: BeatPosition, keepsPhase: Bool, rings: Bool) {
        hasPending = true
        pendingPart = part
        pendingBeat = b
        pendingKeepsPhase = keepsPhase
        pendingRings = rings
        pendingFromSong = false
    }

    // MARK: - §9.5 The song

    /// `m × S`, the start of the song's repetition `m` (exact, rounded once: `songBeat`).
    @_noLocks
    func repetitionStart(_ m: Int64, in s: PatternSnapshot) -> BeatPosition {
        s.songBeat(entry: 0, repetition: m)
    }

    /// Plays what the song plays at `beat` (its entry, with that entry's
    /// origin) and makes the next entry's start pending. Every entry start
    /// it compares with is `songBeat`'s, the one the pending switch uses.
    @_noLocks
    mutating func locateSong(at beat: BeatPosition) {
        guard let s = snapshot, s.songCount > 0 else { return }
        let n = s.songCount
        if beat < .zero {
            setPlaying(-1, origin: .zero)
            songEntryNumber = 0
            pendSongEntry(0, repetition: 0)
            return
        }
        var m: Int64 = 0
        if !(beat < repetitionStart(1, in: s)) {
            switch s.songEnding {
            case .stop:
                setPlaying(-1, origin: .zero)
                songEntryNumber = 0
                hasPending = false
                return
            case .hold:
                setPlaying(Int(s.songStep(n - 1).part), origin: s.songBeat(entry: n - 1, repetition: 0))
                songEntryNumber = n
                hasPending = false
                return
            case .loop:
                m = BeatPosition.floorToInt64(beat.approximateValue / s.songLength.approximateValue)
                if m < 0 { m = 0 }
                while m > 0, beat < repetitionStart(m, in: s) { m -= 1 }
                while !(beat < repetitionStart(m &+ 1, in: s)) { m += 1 }
            }
        }
        // The last entry of repetition m starting at or before the beat.
        var low = 0
        var high = n
        while high - low > 1 {
            let mid = (low + high) >> 1
            if beat < s.songBeat(entry: mid, repetition: m) { high = mid } else { low = mid }
        }
        setPlaying(Int(s.songStep(low).part), origin: s.songBeat(entry: low, repetition: m))
        songEntryNumber = low + 1
        pendSongEntry(low + 1, repetition: m)
    }

    /// Makes song entry `entry` of repetition `m` pending (the end of the
    /// song when `entry` is past the last: a new repetition, nothing, or the
    /// last pattern held).
    @_noLocks
    mutating func pendSongEntry(_ entry: Int, repetition m: Int64) {
        guard let s = snapshot else { return }
        let n = s.songCount
        var e = entry
        var rep = m
        if e >= n {
            switch s.songEnding {
            case .hold:
                hasPending = false
                return
            case .stop:
                hasPending = true
                pendingFromSong = true
                pendingPart = -1
                pendingBeat = repetitionStart(1, in: s)
                pendingEntry = n
                pendingRepetition = 0
                pendingKeepsPhase = false
                pendingRings = s.switchSettings.notesRing
                return
            case .loop:
                e = 0
                rep = m &+ 1
            }
        }
        hasPending = true
        pendingFromSong = true
        pendingPart = Int(s.songStep(e).part)
        pendingBeat = s.songBeat(entry: e, repetition: rep)
        pendingEntry = e
        pendingRepetition = rep
        pendingKeepsPhase = false
        pendingRings = s.switchSettings.notesRing
    }

    @_noLocks
    mutating func setPlaying(_ part: Int, origin o: BeatPosition) {
        playingPart = part
        playing = part >= 0 ? snapshot?.part(part) : nil
        origin = o
    }
}

extension PatternSnapshot {
    /// The index of the pattern whose name hashes to `nameHash`, or -1. O(patterns), off the hot path (a new text).
    @_noLocks
    func partIndex(nameHash: UInt64) -> Int {
        for i in 0..<partCount where partInfo(i).nameHash == nameHash { return i }
        return -1
    }
}
