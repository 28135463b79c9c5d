import CLV2UI

/// The plugin's playhead (timing contract §8.2) extrapolated to now: the
/// plugin sends it at most about 30 times a second, the editor draws it at
/// every idle call.
///
/// UI thread; O(1).
struct PlayheadClock {
    /// Past this many seconds without news the playhead stops moving: a host
    /// that stopped running the plugin (or a lost lease) must not make it run away.
    static var extrapolationLimit: Double { 0.5 }

    private var beat = 0.0
    private var beatsPerSecond = 0.0
    private var arrival = 0.0
    private(set) var isKnown = false

    var isRolling: Bool { isKnown && beatsPerSecond != 0 }

    mutating func receive(beat: Double, beatsPerMinute: Double, speed: Double, at now: Double) {
        guard beat.isFinite, beatsPerMinute.isFinite, speed.isFinite else { return }
        self.beat = beat
        beatsPerSecond = beatsPerMinute / 60 * speed
        arrival = now
        isKnown = true
    }

    /// The beat now (global beats; a lane's position is this modulo its length).
    func beat(at now: Double) -> Double {
        let elapsed = min(max(now - arrival, 0), PlayheadClock.extrapolationLimit)
        return beat + elapsed * beatsPerSecond
    }
}
