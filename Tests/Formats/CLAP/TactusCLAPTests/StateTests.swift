import Testing

import TactusCLAP

/// The CLAP state stream (docs/plugin.md, "State"): any text and path come
/// back byte for byte; anything cut off, too long or unknown is refused with
/// where it went wrong. (Saving, loading into a fresh instance and playing
/// are make clap-test's, through tactus.clap itself.)
@Suite("CLAP state stream")
struct StateTests {
    @Test("any bytes, NUL and newlines included, come back as they were saved, with and without a file")
    func roundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let text = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path: [UInt8]? = Bool.random() ? Array("/home/me/p\n\0.pattern".utf8) : nil
            let controls = UInt64.random(in: 0..<(1 << 9), using: &generator)
            let lanes = Bool.random() ? 0 : UInt64.random(in: 0...UInt64.max, using: &generator) & ~0xFF
            let decoded = CLAPState.decode(CLAPState.encode(text: text, source: path, controls: controls, lanes: lanes))
            #expect(decoded.problem == nil)
            #expect(decoded.text == text)
            #expect(decoded.source == path)
            #expect(decoded.controls == controls)
            #expect(decoded.lanes == lanes)
        }
    }

    @Test("a stream cut anywhere, with a wrong length, or with an unknown field is refused with a reason")
    func refusals() {
        let good = CLAPState.encode(text: Array("tactus-pattern 1\nlength 4\n".utf8), source: Array("/p".utf8), controls: 0b1_0000_0010)
        #expect(String(decoding: good, as: UTF8.self).hasSuffix("file 2\n/p\ncontrols 16\nmute2 midi_thru \n"))
        // The lanes past 8 beside the controls; bit i is lane i + 1.
        let highAndTen: UInt64 = 1 << 63 | 1 << 9
        let lanes = CLAPState.encode(text: [], source: nil, controls: 0b10, lanes: highAndTen)
        #expect(String(decoding: lanes, as: UTF8.self).hasSuffix("controls 32\nmute2 lanes=9223372036854776320 \n"))
        #expect(CLAPState.decode(lanes).lanes == highAndTen)
        for cut in 0..<good.count {
            let decoded = CLAPState.decode(Array(good[0..<cut]))
            // Cut right after the pattern or the file field, the stream is whole (the file and controls are optional).
            let controls = "controls 16\nmute2 midi_thru \n".utf8.count
            if cut == good.count - controls || cut == good.count - controls - "file 2\n/p\n".utf8.count {
                #expect(decoded.problem == nil)
                #expect(decoded.controls == 0)
                continue
            }
            #expect(decoded.problem != nil, "cut at \(cut)")
        }
        let header = "tactus-clap-state 1\n"
        for bad in ["\(header)pattern 3\nab\n", "\(header)pattern x\nabc\n", "\(header)tempo 1\n1\n", "\(header)pattern 1\na\npattern 1\nb\n", "\(header)",
                    "tactus-clap-state 2\npattern 1\na\n", "\(header)pattern 999999999\n",
                    "\(header)pattern 1\na\ncontrols 6\nmute9 \n", "\(header)pattern 1\na\ncontrols 8\nlanes=1 \n",
                    "\(header)pattern 1\na\ncontrols 27\nlanes=18446744073709551616 \n", "\(header)pattern 1\na\ncontrols 5\nmute1\ncontrols 0\n\n"] {
            let decoded = CLAPState.decode(Array(bad.utf8))
            #expect(decoded.problem != nil, "\(bad)")
        }
    }
}
