import TactusEngine
/// Note names in scientific pitch notation, as pattern files and the prompt
/// accept them for a key: a letter `A`-`G` in either case, an optional `#`
/// (sharp) or lowercase `b` (flat), and an octave from `-1`. Middle C, MIDI
/// key 60, is `C4` (as Ardour and MuseScore name it; some DAWs call it C3).
/// So `C-1` is 0, `F#2` and `f#2` are 42, `Bb3` and `bb3` are 58 (the first
/// `b` the letter, the second the flat), `b3` is 59, `eb2` is 39 and `G9` is
/// 127 (docs/pattern-format.md). An accidental moves the key and the octave
/// stays the letter's: `cb4` is 59 (B3), `e#4` is 65 (F4).
///
/// Pure functions, off the audio thread (names are read with the pattern);
/// O(length of the name).
public enum NoteName {
    /// What a key field spelled as a note name stands for.
    public enum Reading: Equatable, Sendable {
        case key(UInt8)
        /// A well-formed name outside C-1 to G9 (`G#9`, `Cb-1`).
        case outOfRange
        /// Not a note name at all.
        case notANoteName
    }

    /// Reads a note name; `bytes` is the whole field.
    public static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> Reading {
        var i = 0
        guard i < bytes.count, let pitchClass = pitchClass(of: bytes[i]) else { return .notANoteName }
        i += 1
        var key = pitchClass
        if i < bytes.count, bytes[i] == UInt8(ascii: "#") { key += 1; i += 1 }
        else if i < bytes.count, bytes[i] == UInt8(ascii: "b") { key -= 1; i += 1 }
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        var octave = 0
        let digitsStart = i
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39, i - digitsStart < 3 {
            octave = octave * 10 + Int(bytes[i] - 0x30)
            i += 1
        }
        guard i > digitsStart, i == bytes.count else { return .notANoteName }
        if negative { octave = -octave }
        key += (octave + 1) * 12
        return (0...127).contains(key) ? .key(UInt8(key)) : .outOfRange
    }

    /// Whether `byte` is a note letter (`A`-`G`, `a`-`g`), the one place where
    /// a `#` right after it is a sharp rather than the start of a comment.
    public static func isLetter(_ byte: UInt8) -> Bool { pitchClass(of: byte) != nil }

    /// The name Tactus shows for `key` (0-127): sharps, never flats: `C4`, `F#2`, `C-1`.
    public static func name(_ key: UInt8) -> String {
        let letters: StaticString = "CCDDEFFGGAAB"
        let pitchClass = Int(key % 12)
        var bytes: [UInt8] = [letters.utf8Start[pitchClass]]
        if [1, 3, 6, 8, 10].contains(pitchClass) { bytes.append(UInt8(ascii: "#")) }
        let octave = Int(key / 12) - 1
        if octave < 0 { bytes.append(UInt8(ascii: "-")) }
        bytes.append(0x30 + UInt8(octave < 0 ? -octave : octave))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func pitchClass(of byte: UInt8) -> Int? {
        // Lowercase letters are the same notes (`c#4` is `C#4`); 0x20 is the case bit.
        switch byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "g") ? byte - 0x20 : byte {
        case UInt8(ascii: "C"): return 0
        case UInt8(ascii: "D"): return 2
        case UInt8(ascii: "E"): return 4
        case UInt8(ascii: "F"): return 5
        case UInt8(ascii: "G"): return 7
        case UInt8(ascii: "A"): return 9
        case UInt8(ascii: "B"): return 11
        default: return nil
        }
    }
}
