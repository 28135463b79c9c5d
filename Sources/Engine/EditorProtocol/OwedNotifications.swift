/// What the sequencer owes the control side at the end of a block: a set, so
/// that a wrapper sends "whatever is owed" with one test (`isEmpty`) and a new
/// kind of notification cannot be forgotten in a hand-written list.
///
/// Value type (one word); audio thread.
public struct OwedNotifications: OptionSet, Sendable, BitwiseCopyable {
    public let rawValue: UInt32

    @_noLocks @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The state to save changed (a new pattern from an edit): hosts mark the session dirty.
    public static var stateChanged: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 0) } }
    /// The pattern text in use (after a change, or when asked for).
    public static var pattern: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 1) } }
    /// The file the pattern came from, if it came from one.
    public static var patternFile: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 2) } }
    /// The last error (`Sequencer.lastError`), which may be empty: cleared by an accepted pattern.
    public static var error: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 3) } }
    /// The count of dropped note-ons (it changed, or was asked for).
    public static var droppedNoteOns: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 4) } }
    /// Replaced snapshots wait to be freed off the audio thread (a plugin asks its worker).
    public static var reclaim: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 5) } }
    /// Where the clock is, for an open editor (`Sequencer.playhead`, §8.2).
    public static var playhead: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 6) } }
    /// The next piece of the pattern text an editor asked for (a wrapper keeps where it is).
    public static var textPieces: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 7) } }
    /// A receipt for the pieces of an editor's edit received (a wrapper keeps how far).
    public static var receipt: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 8) } }
    /// §9: the pattern playing, the one queued, the song entry (`Sequencer.scene`): one of them changed,
    /// or an editor opened.
    public static var scene: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 9) } }
    /// §9.6: the count of ignored pattern requests, when asked for.
    public static var ignoredRequests: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 10) } }
    /// §7.6: the `urn:tactus:laneMutes` parameter (`Sequencer.laneMutes`): it changed, or an editor opened.
    public static var laneMutes: OwedNotifications { @_noLocks get { OwedNotifications(rawValue: 1 << 11) } }
}
