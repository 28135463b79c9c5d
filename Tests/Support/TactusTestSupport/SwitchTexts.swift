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
}
