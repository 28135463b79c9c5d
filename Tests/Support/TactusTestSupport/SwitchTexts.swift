/// Version-3 texts the pattern-switch tests share (timing contract §9 and
/// its worked example 9): pattern `four` (4 beats: C4 on beat 1, a 3-beat D4
/// from beat 3) and pattern `three` (3 beats of quarter-beat E4 F4 G4,
/// program 20), after `header` (a `switch` line, triggers) and before
/// `trailer` (a song).
public enum SwitchTexts {
    public static func fourAndThree(header: String, trailer: String = "") -> String {
        """
        tactus-pattern 3
        \(header)
        pattern four
        lane a length 4
        note 0 1 60 100
        note 2 3 62 100
        pattern three program 20
        lane a length 3
        note 0 1/2 64 90
        note 1 1/2 65 90
        note 2 1/2 67 90
        \(trailer)
        """
    }

    /// Two 4-beat patterns, `a` (C3 on its beat 0) and `b` (C4 D4 E4 F4, one on each of
    /// its beats), switched at the next beat with the phase restarted (issue 29's editor origin).
    public static let restartEachBeat = """
        tactus-pattern 3
        switch at beat phase restart
        pattern a
        lane x length 4
        note 0 1 48 100
        pattern b
        lane x length 4
        note 0 1/2 60 90
        note 1 1/2 62 90
        note 2 1/2 64 90
        note 3 1/2 65 90

        """

    /// Forty lanes of one beat (version 2), lane n playing key 40 + n on each beat: which lanes a mute silences is which keys.
    public static let fortyLanes = "tactus-pattern 2\n" + (1...40).map { "lane l\($0) length 1\nnote 0 1/4 \(40 + $0) 100\n" }.joined()
}
