import CCLAP
import CCLAPEntry
import TactusEngine
import TactusModel

/// CLAP's state: what the LV2 state holds (Formats/LV2/TactusLV2/State.swift),
/// the pattern text in use, byte for byte, and the file it came from, if any,
/// in one stream (CLAP has no keys), described in docs/plugin.md ("State"),
/// and the parameters' values, which a CLAP host keeps only in the plugin's
/// state (an LV2 host saves its control ports itself):
///
///     tactus-clap-state 1\n
///     pattern N\n  then the N bytes of the text, then \n
///     file N\n     then the N bytes of the path, then \n      (only when there is a file)
///     controls N\n then the N bytes of the LV2 symbols of the toggles that are on,
///                  then `pattern=K` when the pattern control is not 0, `song=0`
///                  when the song is off and `lanes=BITS` when a lane past 8 is
///                  muted, each followed by a space
///                  (mute2 midi_thru pattern=3 lanes=2560 ), then \n
///
/// `lanes=BITS`: the lanes past the eight mute parameters that are muted
/// (`urn:tactus:laneMutes`, timing contract §7.6; the editor's M on lanes
/// 9-64), decimal, bit i for lane i + 1 (2560: lanes 10 and 12); bits 0-7
/// (the parameters' lanes) are refused.
///
/// A state without `controls` (as saved before there were parameters) has
/// every control at its default (the toggles off, `pattern` 0, the song on,
/// no lane past 8 muted).
/// Lengths are decimal; the text is kept whole (a pattern may hold any
/// bytes), so nothing is escaped. Main thread only, as CLAP calls save and load.
package enum CLAPState {
    static var header: [UInt8] { Array("tactus-clap-state 1\n".utf8) }
    /// Largest text or path a state holds: the LV2 plugin's largest edit.
    static var largestField: Int { 32 << 20 }

    /// The stream for `text`, `source`, the parameters' `controls` (`CLAPControls.bits`)
    /// and the lanes past 8 muted (`lanes`, bits 8-63; 0 for none).
    package static func encode(text: [UInt8], source: [UInt8]?, controls: UInt64, lanes: UInt64 = 0) -> [UInt8] {
        var bytes = header
        field("pattern", text, into: &bytes)
        if let source { field("file", source, into: &bytes) }
        var on: [UInt8] = []
        for (i, symbol) in CLAPParameter.symbols.enumerated() where controls & (1 << UInt64(i)) != 0 {
            on.append(contentsOf: Array(symbol.utf8))
            on.append(0x20)
        }
        // `pattern`, `song` and `lanes` only when not their defaults (0, on, none):
        // a state of the defaults is the bytes it was before they were saved.
        let pattern = (controls & CLAPParameter.patternMask) >> CLAPParameter.patternShift
        if pattern != 0 { on.append(contentsOf: Array("pattern=\(pattern) ".utf8)) }
        if controls & CLAPParameter.songOffBit != 0 { on.append(contentsOf: Array("song=0 ".utf8)) }
        let pastEight = lanes & ~CLAPParameter.muteMask
        if pastEight != 0 { on.append(contentsOf: Array("lanes=\(pastEight) ".utf8)) }
        field("controls", on, into: &bytes)
        return bytes
    }

    /// The bits of a `controls` field's symbols and the lanes past 8, or nil when one is not a control's.
    private static func controls(_ value: [UInt8]) -> (bits: UInt64, lanes: UInt64)? {
        var bits: UInt64 = 0
        var lanes: UInt64 = 0
        var word: [UInt8] = []
        for byte in value + [0x20] {
            if byte != 0x20 { word.append(byte); continue }
            if word.isEmpty { continue }
            defer { word = [] }
            if let i = CLAPParameter.symbols.firstIndex(where: { Array($0.utf8) == word }) {
                bits |= 1 << UInt64(i)
                continue
            }
            // `pattern=K` (0-128), `song=0` or `song=1`, `lanes=BITS` (bits 8-63).
            guard let equals = word.firstIndex(of: 0x3D), equals + 1 < word.count, word.count - equals <= 21 else { return nil }
            var number: UInt64 = 0
            for d in word[(equals + 1)...] {
                guard d >= 0x30, d <= 0x39 else { return nil }
                let (tens, o1) = number.multipliedReportingOverflow(by: 10)
                let (sum, o2) = tens.addingReportingOverflow(UInt64(d - 0x30))
                guard !o1, !o2 else { return nil }
                number = sum
            }
            let name = Array(word[..<equals])
            if name == Array("lanes".utf8), number & CLAPParameter.muteMask == 0 {
                lanes = number
            } else if name == Array("pattern".utf8), number <= 128 {
                bits = (bits & ~CLAPParameter.patternMask) | (number << CLAPParameter.patternShift)
            } else if name == Array("song".utf8), number == 0 || number == 1 {
                bits = number == 0 ? bits | CLAPParameter.songOffBit : bits & ~CLAPParameter.songOffBit
            } else {
                return nil
            }
        }
        return (bits, lanes)
    }

    private static func field(_ name: String, _ value: [UInt8], into bytes: inout [UInt8]) {
        bytes.append(contentsOf: Array("\(name) \(value.count)\n".utf8))
        bytes.append(contentsOf: value)
        bytes.append(0x0A)
    }

    /// What a stream decodes to: the text, its file, the parameters' bits, the lanes past 8 muted.
    package struct Decoded {
        package var text: [UInt8] = []
        package var source: [UInt8]? = nil
        package var controls: UInt64 = 0
        /// The lanes past the eight mute parameters that are muted (bits 8-63).
        package var lanes: UInt64 = 0
        /// Why the stream is not a state, for a person; nil when it is one.
        package var problem: String? = nil
    }

    private static func refused(_ problem: String) -> Decoded { Decoded(problem: problem) }

    /// The text, file and controls of a stream, or the reason a person reads why it is not one.
    package static func decode(_ bytes: [UInt8]) -> Decoded {
        let head = header
        guard bytes.count >= head.count, Array(bytes[0..<head.count]) == head else {
            return refused("not a Tactus CLAP state (it does not begin with \"tactus-clap-state 1\")")
        }
        var at = head.count
        var text: [UInt8]? = nil
        var source: [UInt8]? = nil
        var controls: (bits: UInt64, lanes: UInt64)? = nil
        while at < bytes.count {
            // "NAME N\n"
            var end = at
            while end < bytes.count, bytes[end] != 0x0A, end - at < 64 { end += 1 }
            guard end < bytes.count, bytes[end] == 0x0A else { return refused("a field's line is cut off at byte \(at)") }
            let line = Array(bytes[at..<end])
            guard let space = line.firstIndex(of: 0x20) else { return refused("a field without a length at byte \(at)") }
            let name = Array(line[0..<space])
            var count = 0
            let digits = line[(space + 1)...]
            guard !digits.isEmpty, digits.count <= 9 else { return refused("a field's length is not a number at byte \(at)") }
            for d in digits {
                guard d >= 0x30, d <= 0x39 else { return refused("a field's length is not a number at byte \(at)") }
                count = count * 10 + Int(d - 0x30)
            }
            guard count <= largestField else { return refused("a field of \(count) bytes at byte \(at) (at most \(largestField))") }
            let start = end + 1
            guard bytes.count - start >= count + 1, bytes[start + count] == 0x0A else {
                return refused("the field at byte \(at) is cut off (\(count) bytes announced)")
            }
            let value = Array(bytes[start..<(start + count)])
            if name == Array("pattern".utf8), text == nil { text = value }
            else if name == Array("file".utf8), source == nil { source = value }
            else if name == Array("controls".utf8), controls == nil {
                guard let read = Self.controls(value) else {
                    return refused("the controls at byte \(at) name one Tactus does not have (it has \(CLAPParameter.symbols.joined(separator: ", ")), pattern=0-128, song=0 or 1, lanes=BITS of lanes 9-64)")
                }
                controls = read
            }
            else { return refused("an unknown or repeated field at byte \(at)") }
            at = start + count + 1
        }
        guard let text else { return refused("no pattern in it") }
        return Decoded(text: text, source: source.flatMap { $0.isEmpty ? nil : $0 }, controls: controls?.bits ?? 0, lanes: controls?.lanes ?? 0)
    }
}

extension CLAPPlugin {
    /// `clap_plugin_state.save`: the text in use (or accepted last), its file, the controls and the lanes past 8 muted.
    func save(to stream: UnsafePointer<clap_ostream_t>) -> Bool {
        guard let write = stream.pointee.write else { return false }
        let bytes = CLAPState.encode(text: text, source: source, controls: controls.bits, lanes: editorChannel.lanesPastEight)
        return bytes.withUnsafeBytes { all in
            var done = 0
            while done < all.count {
                let n = write(stream, all.baseAddress! + done, UInt64(all.count - done))
                if n <= 0 { return false }  // the host's error, or no progress: not a complete state
                done += Int(n)
            }
            return true
        }
    }

    /// `clap_plugin_state.load`: parses here, on the main thread; the pattern
    /// is handed to the audio thread through the sequencer's exchange and
    /// plays from the next block (§5), as LV2's `restore()` does. Before the
    /// first activation it is kept for `activate`. A stream that is not a
    /// state, or whose pattern does not parse, is refused (false) and the
    /// pattern in use stays; the reason goes to the host's log.
    mutating func load(from stream: UnsafePointer<clap_istream_t>) -> Bool {
        guard let read = stream.pointee.read else { return false }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(stream, $0.baseAddress!, UInt64($0.count)) }
            if n < 0 { return refuse("the host could not read the state") }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(n)])
            if bytes.count > 2 * CLAPState.largestField + 64 { return refuse("the state is larger than a Tactus state can be") }
        }
        let decoded = CLAPState.decode(bytes)
        if let problem = decoded.problem { return refuse(problem) }
        if let problem = install(decoded.text, source: decoded.source) { return refuse(problem) }
        // §11.4: from the next block; the host shows the new values.
        controls.replace(with: decoded.controls)
        editorChannel.lanesPastEight = decoded.lanes
        tactus_clap_params_rescan(host)
        // An open editor shows the state's pattern.
        editorShowsNewText(sequence: 0)
        return true
    }

    private func refuse(_ reason: String) -> Bool {
        log(TACTUS_CLAP_LOG_ERROR, "state rejected, the pattern in use stays: \(reason)")
        return false
    }
}
