import Testing
import TactusNSM

/// The OSC codec as NSM's messages use it: what is written reads back the
/// same, byte for byte as liblo lays it out, and no cut or corrupted packet
/// traps or reads past its end: each is refused with what was wrong.
@Suite struct OSCMessageTests {
    static let open = OSCMessage("/nsm/client/open", [.string("/home/me/NSM Sessions/live/tactus.nRWXT"), .string("tactus"), .string("tactus.nRWXT")])

    @Test func roundTripsStringsIntegersAndFloats() throws {
        let messages = [
            Self.open,
            OSCMessage("/nsm/client/save"),
            OSCMessage("/error", [.string("/nsm/client/save"), .int32(-1), .string("cannot write")]),
            OSCMessage("/x", [.int32(.min), .int32(.max), .float32(0.25), .float32(-1e9), .string(""), .string("abc"), .string("abcd")]),
            NSMProtocol.announce(applicationName: "tactus", executable: "tactus", pid: 4242),
        ]
        for message in messages {
            let bytes = message.encoded()
            #expect(bytes.count % 4 == 0)
            #expect(try OSCMessage.decode(bytes) == message)
        }
    }

    /// The layout OSC 1.0 (and liblo) give `/reply ,ss "a" ""`: strings NUL-terminated and padded to 4.
    @Test func layoutIsOSC10() {
        let bytes = OSCMessage("/reply", [.string("a"), .string("")]).encoded()
        let want: [UInt8] = Array("/reply\0\0".utf8) + Array(",ss\0".utf8) + Array("a\0\0\0".utf8) + [0, 0, 0, 0]
        #expect(bytes == want)
        #expect(OSCMessage("/i", [.int32(0x0102_0304)]).encoded().suffix(4) == [1, 2, 3, 4])
    }

    @Test func blobsAreSkippedByTheirSize() throws {
        let message = OSCMessage("/b", [.string("x"), .blob(5), .int32(7)])
        #expect(try OSCMessage.decode(message.encoded()) == message)
        // A blob that claims more than the packet holds.
        var bytes = OSCMessage("/b", [.blob(4)]).encoded()
        bytes[8 + 3] = 200
        #expect(throws: OSCDecodeError.self) { try OSCMessage.decode(bytes) }
        bytes[8] = 0xFF  // 4 GB: no overflow, no read
        #expect(throws: OSCDecodeError.self) { try OSCMessage.decode(bytes) }
    }

    @Test func otherStandardTagsAreSkipped() throws {
        var bytes = Array("/t\0\0".utf8) + Array(",hTs\0\0\0\0".utf8)
        bytes += [0, 0, 0, 0, 0, 0, 0, 9] + Array("ok\0\0".utf8)
        let message = try OSCMessage.decode(bytes)
        #expect(message.arguments == [.other("h"), .other("T"), .string("ok")])
    }

    /// Every prefix of every message is refused (never a trap), and says why.
    @Test func everyTruncationIsRefused() {
        for message in [Self.open, OSCMessage("/error", [.string("/nsm/client/save"), .int32(-1), .string("x")]), OSCMessage("/b", [.blob(9)])] {
            let bytes = message.encoded()
            for cut in 0..<bytes.count {
                let prefix = Array(bytes[..<cut])
                do {
                    let decoded = try OSCMessage.decode(prefix)
                    // A cut at an argument's boundary still leaves a message: never the whole one.
                    #expect(decoded != message)
                } catch {
                    #expect(!error.description.isEmpty)
                }
            }
        }
        #expect(throws: OSCDecodeError("its size, 3 bytes, is not a multiple of 4")) { try OSCMessage.decode([0x2F, 0x61, 0x00]) }
        #expect(throws: OSCDecodeError("an empty packet")) { try OSCMessage.decode([]) }
    }

    @Test func namesWhatIsWrong() {
        #expect(throws: OSCDecodeError("an OSC bundle (NSM sends single messages)")) { try OSCMessage.decode(Array("#bundle\0".utf8) + [UInt8](repeating: 0, count: 8)) }
        #expect(throws: OSCDecodeError("it does not start with an address ('/')")) { try OSCMessage.decode(Array("abc\0".utf8)) }
        #expect(throws: OSCDecodeError("/x: argument 1 ('q'): an unknown type tag, so the rest cannot be read")) { try OSCMessage.decode(Array("/x\0\0,q\0\0".utf8)) }
        #expect(throws: OSCDecodeError("/x: argument 1 ('i'): the packet ends before its 4 bytes")) { try OSCMessage.decode(Array("/x\0\0,i\0\0".utf8)) }
        #expect(throws: OSCDecodeError("/x: argument 1 ('s'): the string has no terminating NUL before the packet ends")) { try OSCMessage.decode(Array("/x\0\0,s\0\0abcd".utf8)) }
        #expect(throws: OSCDecodeError("/x: 4 bytes after the last argument")) { try OSCMessage.decode(Array("/x\0\0,\0\0\0abc\0".utf8)) }
    }

    /// Random bytes, and random corruptions of a real message: refused or read, never a trap.
    @Test func garbageNeverTraps() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let base = Self.open.encoded()
        for _ in 0..<20_000 {
            var bytes = base
            for _ in 0..<(1 + Int(next() % 4)) { bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next()) }
            _ = try? OSCMessage.decode(bytes)
            let noise = (0..<Int(next() % 64) * 4).map { _ in UInt8(truncatingIfNeeded: next()) }
            _ = try? OSCMessage.decode([UInt8(ascii: "/")] + noise.dropFirst())
        }
    }
}

/// What a server's message asks of the client, and what the client answers.
@Suite struct NSMProtocolTests {
    @Test func announceCarriesTheCapabilitiesAndAPI() {
        let m = NSMProtocol.announce(applicationName: "tactus", executable: "tactus", pid: 12)
        #expect(m.address == "/nsm/server/announce")
        #expect(m.arguments == [.string("tactus"), .string(":dirty:switch:message:"), .string("tactus"), .int32(1), .int32(1), .int32(12)])
    }

    @Test func readsOpenSaveAndTheAnnounceReply() {
        #expect(NSMProtocol.request(OSCMessageTests.open) == .open(path: "/home/me/NSM Sessions/live/tactus.nRWXT", displayName: "tactus", clientID: "tactus.nRWXT"))
        #expect(NSMProtocol.request(OSCMessage("/nsm/client/save")) == .save)
        #expect(NSMProtocol.request(OSCMessage("/reply", [.string("/nsm/server/announce"), .string("hi"), .string("nsmd"), .string(":server-control:")]))
            == .welcome(message: "hi", manager: "nsmd", capabilities: ":server-control:"))
        #expect(NSMProtocol.request(OSCMessage("/error", [.string("/nsm/server/announce"), .int32(-2), .string("old")])) == .refused(code: -2, message: "old"))
        #expect(NSMProtocol.request(OSCMessage("/nsm/client/session_is_loaded")) == .sessionIsLoaded)
    }

    @Test func wrongTypesAreIgnoredAndAnsweredWhenAReplyIsDue() {
        let why = "/nsm/client/open with arguments ,si, not s:path s:display_name s:client_id"
        #expect(NSMProtocol.request(OSCMessage("/nsm/client/open", [.string("/a"), .int32(3)]))
            == .ignored(why, answer: NSMProtocol.error(to: "/nsm/client/open", .general, why)))
        if case .ignored(_, let answer) = NSMProtocol.request(OSCMessage("/nsm/client/save", [.int32(1)])) { #expect(answer?.address == "/error") } else { Issue.record("save ,i not ignored") }
        #expect(NSMProtocol.request(OSCMessage("/nsm/client/frobnicate", [.float32(1)])) == .ignored("an unknown path /nsm/client/frobnicate (,f)", answer: nil))
        if case .ignored(_, let answer) = NSMProtocol.request(OSCMessage("/nsm/client/open", [.string("/a"), .string("x"), .string("a:b")])) { #expect(answer != nil) } else { Issue.record("a client id with ':' accepted") }
    }
}

@Suite struct SessionSettingsTests {
    @Test func writesAndReadsBack() throws {
        var settings = SessionSettings()
        settings.master = true
        settings.beatsPerMinute = 133.7
        settings.beatsPerBar = 7
        settings.connect = ["fluidsynth:midi_00", "a:b"]
        settings.laneMutes = 1 << 1 | 1 << 63
        settings.thru = true
        var warnings: [String] = []
        #expect(try SessionSettings(parsing: settings.text, warnings: &warnings) == settings)
        #expect(warnings.isEmpty)
        #expect(settings.text.contains("\ntactus-jack-settings 1\nmaster on\nbpm 133.7\nbeats-per-bar 7\nconnect fluidsynth:midi_00\nconnect a:b\nmute 2 64\nthru on\n"))
        #expect(SessionSettings().text.hasSuffix("beats-per-bar 4\nthru off\n"))
    }

    @Test func unknownKeysAreSkippedWithAWarning() throws {
        var warnings: [String] = []
        let settings = try SessionSettings(parsing: "tactus-jack-settings 1\nswing-all 2\nbpm 90 # slow\n", warnings: &warnings)
        #expect(settings.beatsPerMinute == 90)
        #expect(warnings == ["line 2: the key 'swing-all' is not known to this version of tactus; skipped"])
    }

    @Test func badValuesNameTheLine() {
        var warnings: [String] = []
        #expect(throws: NSMError("line 3: bpm takes beats per minute above 0 (at most 10000), found '0'")) {
            try SessionSettings(parsing: "# x\ntactus-jack-settings 1\nbpm 0\n", warnings: &warnings)
        }
        #expect(throws: NSMError("line 1: expected 'tactus-jack-settings 1' first, found 'bpm 90'")) { try SessionSettings(parsing: "bpm 90\n", warnings: &warnings) }
        #expect(throws: NSMError("line 2: connect takes one port CLIENT:PORT, like fluidsynth:midi_00, found 'synth'")) {
            try SessionSettings(parsing: "tactus-jack-settings 1\nconnect synth\n", warnings: &warnings)
        }
    }

    @Test func muteTakesLaneNumbers() {
        var warnings: [String] = []
        #expect(throws: NSMError("line 2: mute takes lane numbers 1-64, found '0'")) { try SessionSettings(parsing: "tactus-jack-settings 1\nmute 0\n", warnings: &warnings) }
        #expect(throws: NSMError("line 2: thru takes on or off, found 'yes'")) { try SessionSettings(parsing: "tactus-jack-settings 1\nthru yes\n", warnings: &warnings) }
    }

    @Test func nsmURLs() throws {
        #expect(try NSMURL(parsing: "osc.udp://localhost:15000/") .port == 15000)
        #expect(try NSMURL(parsing: "osc.udp://[::1]:7000/").host == "::1")
        #expect(throws: NSMError.self) { try NSMURL(parsing: "osc.tcp://localhost:1/") }
        #expect(throws: NSMError.self) { try NSMURL(parsing: "osc.udp://localhost/") }
        #expect(throws: NSMError.self) { try NSMURL(parsing: "osc.udp://localhost:99999/") }
    }
}
