import TactusEngine
/// What a fresh plugin instance or `tactus jack` plays: a one-bar figure in
/// 4/4 (documented in the README). A test checks that it parses.
public enum DefaultPattern {
    public static var text: StaticString {
        """
        tactus-pattern 1
        # Tactus default: a one-bar figure in 4/4. Replace it with the plugin's
        # "Pattern" or "Pattern file" parameter.
        length 4
        # note START DURATION KEY VELOCITY [CHANNEL]
        note 0     1/2  48 110      # C3 on beat 1
        note 1     1/4  55  90      # G3 on beat 2
        note 2     1/2  52 100      # E3 on beat 3
        note 3     1/3  55  80      # a triplet pickup on beat 4: G3,
        note 10/3  1/3  57  80      #   A3,
        note 11/3  1/3  59  80      #   B3
        note 1/2   1/4  64  70 2    # off-beat stab E4, channel 2
        note 5/2   1/4  67  70 2    # off-beat stab G4, channel 2

        """
    }

    public static var bytes: [UInt8] {
        let t = text
        return Array(UnsafeBufferPointer(start: t.utf8Start, count: t.utf8CodeUnitCount))
    }
}
