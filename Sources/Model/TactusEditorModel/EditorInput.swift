import TactusEngine
import TactusModel

/// A mouse button, as the piano roll editor uses them: left draws, moves and
/// resizes; right erases; middle pans the view.
public enum MouseButton: Equatable, Sendable {
    case left
    case middle
    case right
}

/// The modifier keys held with a press, a key or a wheel turn.
public struct EditorModifiers: OptionSet, Equatable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static var shift: EditorModifiers { EditorModifiers(rawValue: 1) }
    public static var control: EditorModifiers { EditorModifiers(rawValue: 2) }
    public static var alt: EditorModifiers { EditorModifiers(rawValue: 4) }
}

/// A key pressed in the editor, as the UI toolkit reported it: the key and
/// the modifiers held. The editor's key bindings (`PianoRollEditor.key`)
/// decide what it does, so that a UI only translates its toolkit's key codes:
/// printable keys as the ASCII character they type (`+`, `z`, `Z` with
/// Shift; the keypad's `+` and `-` as those), the others by name (X11's
/// `ISO_Left_Tab`, what Shift+Tab sends, as `.tab` with `.shift`).
public struct EditorKey: Equatable, Sendable {
    /// Which key.
    public enum Name: Equatable, Sendable {
        /// A printable ASCII character, as typed (`Z` with Shift held, `+`).
        case character(UInt8)
        case delete
        case backspace
        case tab
        case escape
        case enter
        case left
        case right
        case up
        case down
        case pageUp
        case pageDown
        case home
        case end
    }

    public var name: Name
    public var modifiers: EditorModifiers

    public init(_ name: Name, modifiers: EditorModifiers = []) {
        self.name = name
        self.modifiers = modifiers
    }

    /// A printable key: `EditorKey.character("z", modifiers: .control)`.
    public static func character(_ c: Unicode.Scalar, modifiers: EditorModifiers = []) -> EditorKey {
        EditorKey(.character(UInt8(truncatingIfNeeded: c.value)), modifiers: modifiers)
    }
}

/// A note to sound now, so that a person hears what was clicked or drawn:
/// the UI sends it to the plugin, which plays it only while the transport is
/// stopped. MIDI values: key 0-127, velocity 1-127, channel 1-16.
public struct EditorAudition: Equatable, Sendable {
    public var key: UInt8
    public var velocity: UInt8
    public var channel: UInt8

    public init(key: UInt8, velocity: UInt8, channel: UInt8) {
        self.key = key
        self.velocity = velocity
        self.channel = channel
    }
}

/// A lane muted or unmuted in the editor, for the plugin (timing contract
/// §7.6): the UI sets the plugin's mute for lane `lane` (from 0) to `muted`:
/// for lanes 1-8 the mute control port to `muted`; and, when `parameter` is
/// not nil, the `urn:tactus:laneMutes` parameter to that whole word (the
/// lanes past 8, and a lane of the first 8 the parameter muted and the
/// click unmutes).
public struct LaneMute: Equatable, Sendable {
    public var lane: Int
    public var muted: Bool
    /// The parameter's new value (bit i: lane i), nil when it does not change.
    public var parameter: UInt64?

    public init(lane: Int, muted: Bool, parameter: UInt64? = nil) {
        self.lane = lane
        self.muted = muted
        self.parameter = parameter
    }

    /// Lanes 1-8 (from 0: 0-7) have a mute control port each.
    public static var portCount: Int { 8 }
}

/// The plugin's lane mutes as the editor knows them (timing contract §7.6,
/// docs/plugin.md "Messages"): one model for both ways the plugin holds
/// them. Lanes 1-8 are the mute control ports (their values come as the
/// host passes control ports on); the `urn:tactus:laneMutes` parameter, all
/// 64 bits, comes as the plugin's `patch:Set`. A lane is muted when either
/// mutes it. A click sends what changes and keeps everything else, so that
/// lanes muted by a restored session stay muted.
///
/// Value type; UI thread; O(1).
public struct LaneMutes: Equatable, Sendable {
    /// The mute ports' values (bits 0-7).
    public private(set) var ports: UInt64 = 0
    /// The parameter's value, as the plugin last said (or the editor last set).
    public private(set) var parameter: UInt64 = 0

    public init(ports: UInt64 = 0, parameter: UInt64 = 0) {
        self.ports = ports & LaneMutes.portMask
        self.parameter = parameter
    }

    static var portMask: UInt64 { (1 << UInt64(LaneMute.portCount)) - 1 }

    /// The lanes shown muted (bit i: lane i).
    public var shown: UInt64 { ports | parameter }

    /// Whether lane `lane` (from 0) is muted.
    public func isMuted(_ lane: Int) -> Bool { (0..<64).contains(lane) && shown & (1 << UInt64(lane)) != 0 }

    /// A mute port's value, as the host passes it on (lanes 0-7).
    public mutating func setPort(_ lane: Int, _ muted: Bool) {
        guard (0..<LaneMute.portCount).contains(lane) else { return }
        let bit: UInt64 = 1 << UInt64(lane)
        ports = muted ? ports | bit : ports & ~bit
    }

    /// The parameter's value, as the plugin says.
    public mutating func setParameter(_ bits: UInt64) { parameter = bits }

    /// Mutes lane `lane` (0-63) when `muted`, else unmutes it, by whatever mutes
    /// it: what the plugin must be told (nil when nothing changes).
    public mutating func set(_ lane: Int, muted: Bool) -> LaneMute? {
        guard (0..<64).contains(lane), isMuted(lane) != muted else { return nil }
        let bit: UInt64 = 1 << UInt64(lane)
        var change = LaneMute(lane: lane, muted: muted)
        if lane < LaneMute.portCount {
            // The port says it; the parameter, when it muted the lane too, is cleared of it.
            setPort(lane, muted)
            if !muted, parameter & bit != 0 {
                parameter &= ~bit
                change.parameter = parameter
            }
        } else {
            parameter = muted ? parameter | bit : parameter & ~bit
            change.parameter = parameter
        }
        return change
    }
}

/// What the UI must do after an input: redraw; send the pattern text to the
/// plugin (`commit`, set once an edit is finished: at a release or a key,
/// never on a mere pointer motion); sound a note (`audition`); set a lane's
/// mute in the plugin (`mute`).
public struct EditorEffects: Equatable, Sendable {
    public var redraw: Bool
    public var commit: Bool
    public var audition: EditorAudition?
    public var mute: LaneMute?

    public init(redraw: Bool = false, commit: Bool = false, audition: EditorAudition? = nil, mute: LaneMute? = nil) {
        self.redraw = redraw
        self.commit = commit
        self.audition = audition
        self.mute = mute
    }

    /// Nothing to do.
    public static var none: EditorEffects { EditorEffects() }
    /// Redraw only.
    public static var redraw: EditorEffects { EditorEffects(redraw: true) }

    /// Both sets of effects (the later audition and mute win).
    public func merged(with other: EditorEffects) -> EditorEffects {
        EditorEffects(
            redraw: redraw || other.redraw, commit: commit || other.commit, audition: other.audition ?? audition, mute: other.mute ?? mute)
    }
}
