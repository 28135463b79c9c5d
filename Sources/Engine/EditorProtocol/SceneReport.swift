/// What a host or an editor shows of timing contract §9: the pattern
/// playing and its origin, the one queued and the beat it takes over at,
/// the song entry playing (§9.9). The LV2 plugin sends it as `urn:tactus:scene` whenever it
/// changes (docs/plugin.md, "Messages"), and writes `playing` and `queued`
/// to its output controls.
///
/// Value type of a few words; audio thread; comparing two is O(1).
public struct SceneReport: Sendable, Equatable, BitwiseCopyable {
    /// The pattern playing, 1-based; 0 when none plays (a song that stopped).
    public var playing: Int
    /// The pattern a request queued, 1-based; 0 when none waits (a song's
    /// next entry is not a request, and is not reported here).
    public var queued: Int
    /// The queued switch's boundary `B` on the host's beat axis (§9.2);
    /// meaningful only while `queued` is not 0.
    public var switchBeat: BeatPosition
    /// The song entry playing, 1-based; 0 when no song plays.
    public var songEntry: Int
    /// The playing pattern's origin `O` (§9.1) on the host's beat axis: its
    /// lanes are at `(b - O) mod length`; zero when none plays. An editor
    /// draws the playhead from it (an editor that opens after a switch with
    /// `phase restart` cannot know it otherwise).
    public var origin: BeatPosition

    @_noLocks
    public init(playing: Int = 0, queued: Int = 0, switchBeat: BeatPosition = .zero, songEntry: Int = 0, origin: BeatPosition = .zero) {
        self.playing = playing
        self.queued = queued
        self.switchBeat = queued > 0 ? switchBeat : .zero
        self.songEntry = songEntry
        self.origin = playing > 0 ? origin : .zero
    }

    @_noLocks @inlinable
    public static func == (a: SceneReport, b: SceneReport) -> Bool {
        a.playing == b.playing && a.queued == b.queued && a.songEntry == b.songEntry
            && a.switchBeat.whole == b.switchBeat.whole && a.switchBeat.fraction == b.switchBeat.fraction
            && a.origin.whole == b.origin.whole && a.origin.fraction == b.origin.fraction
    }
}
