import TactusEngine
import TactusModel

/// What the plugin plays of a text of several patterns, as its
/// `urn:tactus:scene` message says (docs/plugin.md, "Messages"; timing
/// contract §9.9): the pattern playing and its origin, the one queued and
/// the beat it takes over at, the song's entry; and the `song` control's
/// value, as the host passes it on.
///
/// Value type, UI thread. Patterns and entries are numbered from 1, 0 for none.
public struct PatternScene: Equatable, Sendable {
    /// The pattern playing (1-based), 0 for none (stopped song, nothing received).
    public var playing: Int = 0
    /// The pattern queued (1-based), 0 for none.
    public var queued: Int = 0
    /// The host beat (§1) the queued pattern takes over at, nil when nothing is queued.
    public var switchBeat: Double?
    /// The song entry playing (1-based), 0 for none (no song, or the song is off).
    public var songEntry: Int = 0
    /// The plugin's `song` control (port 14): the song plays when the text has one.
    public var songOn = true
    /// The playing pattern's origin `O` (§9.1) in host beats, as the plugin
    /// says it (0 until it does: pattern 1 from instantiation): its lanes are
    /// at `(b - O) mod length`, and so is the playhead drawn.
    public var origin: Double = 0

    public init(
        playing: Int = 0, queued: Int = 0, switchBeat: Double? = nil, songEntry: Int = 0, songOn: Bool = true, origin: Double = 0
    ) {
        self.playing = playing
        self.queued = queued
        self.switchBeat = switchBeat
        self.songEntry = songEntry
        self.songOn = songOn
        self.origin = origin.isFinite ? origin : 0
    }

    /// `incoming` (a scene message) as the editor keeps it: all of it, its
    /// origin included (the plugin holds it exactly, whatever switched when,
    /// also before the editor opened), but the song control's value, which
    /// comes from the host.
    public func updated(with incoming: PatternScene) -> PatternScene {
        var next = incoming
        next.songOn = songOn
        return next
    }

    /// The position in the playing pattern (beats from its origin) at host
    /// beat `beat`: where the playhead is drawn (the lanes wrap it by their lengths).
    public func patternBeat(atHostBeat beat: Double) -> Double { beat - origin }

    /// Where the playhead is in a lane of `length` beats of the playing
    /// pattern at host beat `beat`: `(beat - origin) mod length` (§9.1); nil
    /// for a length or beat a display cannot use.
    public func laneBeat(atHostBeat beat: Double, length: Double) -> Double? {
        PatternScene.beatInLoop(patternBeat(atHostBeat: beat), length: length)
    }

    /// `beat mod length`, in `0..<length`: a pattern's beat in a lane's loop (a pass starts at the pattern's beat 0).
    public static func beatInLoop(_ beat: Double, length: Double) -> Double? {
        guard length > 0, length.isFinite, beat.isFinite else { return nil }
        return beat - (beat / length).rounded(.down) * length
    }

    /// Whole beats left until the queued pattern takes over, counted as a
    /// musician counts in (4, 3, 2, 1: the beat under way counts), from the
    /// playhead's host beat `beat`; nil when nothing is queued or either is unknown.
    public func beatsLeft(atBeat beat: Double?) -> Int? {
        guard queued > 0, let target = switchBeat, let beat, target.isFinite, beat.isFinite else { return nil }
        let left = (target - beat).rounded(.up)
        return Int(Swift.min(Swift.max(left, 0), 1_000_000))
    }

    /// Whether the queued pattern's button is lit in this frame: it blinks
    /// twice a beat while the transport rolls (on the beat, off half a beat
    /// later), and once a second, wall-clock, while it stands.
    public static func blinkIsOn(beat: Double?, rolling: Bool, seconds: Double) -> Bool {
        if rolling, let beat, beat.isFinite {
            return beat - beat.rounded(.down) < 0.5
        }
        guard seconds.isFinite else { return true }
        return seconds - seconds.rounded(.down) < 0.5
    }
}

/// A request for the plugin: play pattern `pattern` (1-based) at `when`
/// (nil: the text's own `switch at`), sent as `urn:tactus:request`.
public struct PatternRequest: Equatable, Sendable {
    public var pattern: Int
    public var when: SwitchGrid?

    public init(pattern: Int, when: SwitchGrid?) {
        self.pattern = pattern
        self.when = when
    }
}

/// Where the scene's rows are, between the top line and the ruler (logical
/// pixels), and what a click there means: the row of pattern buttons (each a
/// ▶ to queue the pattern, and its name to edit it), and, when the text has
/// a song, the song's row (its on/off switch, then its entries, scrolled so
/// that the entry playing is in view).
///
/// Value type; O(patterns + entries shown).
public struct SceneLayout: Equatable, Sendable {
    /// The pattern row's height, and the song row's.
    public static var patternRowHeight: Double { 24 }
    public static var songRowHeight: Double { 20 }
    /// A pattern button's ▶ (the part that queues the pattern).
    public static var playWidth: Double { 18 }
    /// A button's widest and narrowest (narrower ones do not fit: the row ends).
    public static var widestButton: Double { 120 }
    public static var narrowestButton: Double { 40 }
    public static var songSwitchWidth: Double { 64 }
    public static var widestEntry: Double { 96 }
    public static var narrowestEntry: Double { 36 }

    /// The rows' top (below the top line).
    public var top: Double
    public var width: Double
    public var patternCount: Int
    /// The song's entries (indices into the patterns, passes), empty without a song.
    public var entries: [Song.Entry]

    public init(top: Double, width: Double, document: EditorDocument) {
        self.top = top
        self.width = width
        let several = document.patternNames.count > 1 || document.song != nil || document.hasPatternLines
        patternCount = several ? document.patternNames.count : 0
        entries = several ? document.song?.entries ?? [] : []
    }

    /// Whether the text has patterns to show (a text of one pattern has no scene rows).
    public var isShown: Bool { patternCount > 0 }

    /// The rows' height: 0 for a text of one pattern.
    public var height: Double {
        guard isShown else { return 0 }
        return SceneLayout.patternRowHeight + (entries.isEmpty ? 0 : SceneLayout.songRowHeight)
    }

    /// Pattern `i`'s button (0-based): left, width; nil when it does not fit in the row.
    public func patternButton(_ i: Int) -> (x: Double, width: Double)? {
        guard isShown, i >= 0, i < patternCount else { return nil }
        let w = buttonWidth
        let x = 4 + Double(i) * (w + 4)
        return x + w <= width ? (x, w) : nil
    }

    var buttonWidth: Double {
        let share = (width - 4) / Double(Swift.max(patternCount, 1)) - 4
        return Swift.min(Swift.max(share, SceneLayout.narrowestButton), SceneLayout.widestButton)
    }

    /// The song row's on/off switch: left, width.
    public var songSwitch: (x: Double, width: Double)? { entries.isEmpty ? nil : (4, SceneLayout.songSwitchWidth) }

    /// The song entries in view (indices, from 0) with their left and width,
    /// starting so that `current` (0-based, nil for none) is in view.
    public func songEntries(current: Int?) -> [(entry: Int, x: Double, width: Double)] {
        guard !entries.isEmpty else { return [] }
        let left = 4 + SceneLayout.songSwitchWidth + 8
        let room = width - left
        guard room >= SceneLayout.narrowestEntry else { return [] }
        let w = Swift.min(Swift.max(room / Double(entries.count) - 2, SceneLayout.narrowestEntry), SceneLayout.widestEntry)
        let fits = Swift.max(Int((room + 2) / (w + 2)), 1)
        var first = 0
        if let c = current, c >= fits { first = Swift.min(c - fits / 2, entries.count - fits) }
        var out: [(entry: Int, x: Double, width: Double)] = []
        for k in 0..<Swift.min(fits, entries.count - first) { out.append((first + k, left + Double(k) * (w + 2), w)) }
        return out
    }

    /// What a click at (x, y) is on.
    public enum Hit: Equatable, Sendable {
        /// Pattern `i`'s name (0-based): edit it.
        case edit(Int)
        /// Pattern `i`'s ▶: queue it.
        case queue(Int)
        /// The song's on/off switch.
        case songSwitch
        /// Song entry `i` (0-based): edit its pattern.
        case songEntry(Int)
    }

    /// What is at (x, y); nil outside the rows or between their items.
    public func hit(x: Double, y: Double, currentEntry: Int?) -> Hit? {
        guard isShown, x.isFinite, y.isFinite, y >= top, y < top + height else { return nil }
        if y < top + SceneLayout.patternRowHeight {
            let w = buttonWidth
            let i = Int(((x - 4) / (w + 4)).rounded(.down))
            guard let b = patternButton(i), x >= b.x, x < b.x + b.width else { return nil }
            return x < b.x + SceneLayout.playWidth ? .queue(i) : .edit(i)
        }
        if let s = songSwitch, x >= s.x, x < s.x + s.width { return .songSwitch }
        for e in songEntries(current: currentEntry) where x >= e.x && x < e.x + e.width { return .songEntry(e.entry) }
        return nil
    }
}
