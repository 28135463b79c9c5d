import CCLAP
import CCLAPEntry
import CLV2
import LV2Atoms
import TactusEngine
import TactusEditorModel
import TactusModel
import TactusTestSupport
import Testing

import TactusCLAP

/// The editor's messages in the CLAP plugin (in this process: the hosted
/// glue, without the X11 editor, which make clap-test opens under Xvfb):
/// the atoms the editor writes through its write function, as the LV2
/// plugin reads them, reach the engine: an audition sounds while stopped, an
/// edit (whole, a change, or in pieces) plays from the next block and is
/// what the state saves, a change on another text is refused and the
/// pattern stays, a mute clicked or the song's switch is a parameter change
/// the host is told of, a pattern requested plays from the next block.
@Suite("CLAP: the editor's messages", .serialized)
struct EditorMessageTests {
    /// What the plugin pushed to the host: MIDI, or a parameter event (type, id, value).
    enum Out: Equatable {
        case midi(time: UInt32, UInt8, UInt8, UInt8)
        case gesture(begin: Bool, id: UInt32)
        case value(id: UInt32, Double)
    }

    final class Lists {
        var input: [UnsafeRawPointer] = []
        var output: [Out] = []
    }

    nonisolated(unsafe) static var flushRequests = 0
    nonisolated(unsafe) static var timerSupport = clap_host_timer_support_t(
        register_timer: { _, _, id in
            id?.pointee = 7
            return true
        },
        unregister_timer: { _, _ in true })
    nonisolated(unsafe) static var params = clap_host_params_t(
        rescan: { _, _ in }, clear: { _, _, _ in }, request_flush: { _ in EditorMessageTests.flushRequests += 1 })

    /// A host with timer-support and params (the editor's needs), its strings never freed.
    static func makeHost() -> UnsafeMutablePointer<clap_host_t> {
        let host = UnsafeMutablePointer<clap_host_t>.allocate(capacity: 1)
        let empty = UnsafePointer(strdup("")!)
        host.initialize(to: clap_host_t(
            clap_version: clap_version_t(major: 1, minor: 1, revision: 1), host_data: nil, name: UnsafePointer(strdup("tests")!), vendor: empty,
            url: empty, version: empty,
            get_extension: { _, id in
                guard let id else { return nil }
                if strcmp(id, "clap.timer-support") == 0 { return withUnsafePointer(to: &EditorMessageTests.timerSupport) { UnsafeRawPointer($0) } }
                if strcmp(id, "clap.params") == 0 { return withUnsafePointer(to: &EditorMessageTests.params) { UnsafeRawPointer($0) } }
                return nil
            },
            request_restart: { _ in }, request_process: { _ in }, request_callback: { _ in }))
        return host
    }

    /// An active instance whose gui was created (the editor's link set up, no window), for `body`.
    static func withEditorLink(_ body: (UnsafeMutableRawPointer, URIDTable) throws -> Void) rethrows {
        let host = makeHost()
        let instance = clapNew(host)!
        defer { clapFree(instance) }
        #expect(clapActivate(instance, 48000, 1, 4096))
        #expect(clapGuiCreate(instance))
        let uris = URIDTable(tactus_clap_urid_map().assumingMemoryBound(to: LV2_URID_Map.self))
        try body(instance, uris)
        clapGuiDestroy(instance)
    }

    /// The editor writes `atom` to the control port.
    static func write(_ instance: UnsafeMutableRawPointer, _ atom: [UInt8], uris: URIDTable) {
        atom.withUnsafeBytes { clapEditorWrite(instance, TACTUS_PORT_CONTROL, UInt32($0.count), uris.atomEventTransfer, $0.baseAddress) }
    }

    /// A transport rolling from beat `quarters` at 120 bpm in 4/4, or stopped at 0.
    static func transport(rolling: Bool, quarters: Int64 = 0) -> clap_event_transport_t {
        var t = clap_event_transport_t()
        t.header = clap_event_header_t(
            size: UInt32(MemoryLayout<clap_event_transport_t>.size), time: 0, space_id: CLAP_CORE_EVENT_SPACE_ID,
            type: UInt16(CLAP_EVENT_TRANSPORT), flags: 0)
        t.flags = CLAP_TRANSPORT_HAS_TEMPO.rawValue | CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue | CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue
            | (rolling ? CLAP_TRANSPORT_IS_PLAYING.rawValue : 0)
        t.song_pos_beats = quarters << 31
        t.tempo = 120
        t.tsig_num = 4
        t.tsig_denom = 4
        return t
    }

    /// One block of `frames` under `transport`: what the plugin pushed.
    static func block(_ instance: UnsafeMutableRawPointer, frames: UInt32, transport: clap_event_transport_t) -> [Out] {
        let lists = Lists()
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var input = clap_input_events_t(ctx: context, size: { _ in 0 }, get: { _, _ in nil })
        var output = clap_output_events_t(
            ctx: context,
            try_push: { list, header in
                let lists = Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                guard let header else { return false }
                let raw = UnsafeRawPointer(header)
                switch Int(header.pointee.type) {
                case CLAP_EVENT_MIDI:
                    let m = raw.load(as: clap_event_midi_t.self)
                    lists.output.append(.midi(time: header.pointee.time, m.data.0, m.data.1, m.data.2))
                case CLAP_EVENT_PARAM_VALUE:
                    let p = raw.load(as: clap_event_param_value_t.self)
                    lists.output.append(.value(id: p.param_id, p.value))
                case CLAP_EVENT_PARAM_GESTURE_BEGIN, CLAP_EVENT_PARAM_GESTURE_END:
                    let g = raw.load(as: clap_event_param_gesture_t.self)
                    lists.output.append(.gesture(begin: Int(header.pointee.type) == CLAP_EVENT_PARAM_GESTURE_BEGIN, id: g.param_id))
                default:
                    return false
                }
                return true
            })
        callProcess(instance, frames: frames, transport: transport, input: &input, output: &output)
        return lists.output
    }

    /// The pattern text the state holds (`tactus-clap-state 1`, its `pattern` field).
    static func savedText(_ instance: UnsafeMutableRawPointer) -> [UInt8] {
        CLAPState.decode(savedState(instance)).text
    }

    /// The state's bytes, as `clap_plugin_state.save` writes them.
    static func savedState(_ instance: UnsafeMutableRawPointer) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var stream = clap_ostream_t(
            ctx: Unmanaged.passUnretained(sink).toOpaque(),
            write: { stream, buffer, size in
                let sink = Unmanaged<Sink>.fromOpaque(stream!.pointee.ctx!).takeUnretainedValue()
                sink.bytes += UnsafeRawBufferPointer(start: buffer, count: Int(size))
                return Int64(size)
            })
        #expect(clapStateSave(instance, &stream))
        return sink.bytes
    }

    static func patternSet(_ text: [UInt8], change: Bool = false, sequence: Int32, uris: URIDTable) -> [UInt8] {
        AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) { object in
            text.withUnsafeBytes {
                object.addPatchSet(
                    property: change ? uris.patternChange : uris.pattern, sequenceNumber: sequence, valueType: uris.atomString, text: $0,
                    uris: uris)
            }
        }
    }

    static let edited = Array("tactus-pattern 1\nlength 4\nnote 0 1 70 100\nnote 2 1 72 90\n".utf8)

    @Test("an audition sounds at the next block's first frame while stopped, and not while rolling")
    func audition() {
        Self.withEditorLink { instance, uris in
            let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.audition) {
                $0.addAudition(key: 61, velocity: 100, channel: 2, uris: uris)
            }
            Self.write(instance, atom, uris: uris)
            let stopped = Self.block(instance, frames: 256, transport: Self.transport(rolling: false))
            #expect(stopped == [.midi(time: 0, 0x92, 61, 100)])
            _ = Self.block(instance, frames: 48000, transport: Self.transport(rolling: false))  // the audition ends
            Self.write(instance, atom, uris: uris)
            let rolling = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            #expect(!rolling.contains(.midi(time: 0, 0x92, 61, 100)))
        }
    }

    @Test("an edit in one message plays from the next block and is what the state saves")
    func wholeEdit() {
        Self.withEditorLink { instance, uris in
            Self.write(instance, Self.patternSet(Self.edited, sequence: 1, uris: uris), uris: uris)
            #expect(Self.savedText(instance) == Self.edited)
            let out = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            #expect(out == [.midi(time: 0, 0x90, 70, 100)])
        }
    }

    @Test("a change is applied to the text in use; one made on another text, or one that does not parse, is refused and the pattern stays")
    func changes() {
        Self.withEditorLink { instance, uris in
            let change = PatternChange.between(DefaultPattern.bytes, Self.edited)
            Self.write(instance, Self.patternSet(change.encoded, change: true, sequence: 1, uris: uris), uris: uris)
            #expect(Self.savedText(instance) == Self.edited)
            // The same change again: its base is no longer the text in use.
            Self.write(instance, Self.patternSet(change.encoded, change: true, sequence: 2, uris: uris), uris: uris)
            #expect(Self.savedText(instance) == Self.edited)
            Self.write(instance, Self.patternSet(Array("tactus-pattern 1\nlength 0\n".utf8), sequence: 3, uris: uris), uris: uris)
            #expect(Self.savedText(instance) == Self.edited)
            let out = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            #expect(out == [.midi(time: 0, 0x90, 70, 100)])
        }
    }

    @Test("an edit in pieces is taken whole, once its last piece is in and its hash matches")
    func pieces() {
        Self.withEditorLink { instance, uris in
            let hash = TextHash.of(Self.edited)
            func piece(_ range: Range<Int>) -> [UInt8] {
                AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.textPiece) { object in
                    Array(Self.edited[range]).withUnsafeBytes {
                        object.addTextPiece(
                            property: uris.pattern, sequenceNumber: 4, offset: range.lowerBound, length: Self.edited.count, hash: hash, bytes: $0,
                            uris: uris)
                    }
                }
            }
            Self.write(instance, piece(0..<20), uris: uris)
            #expect(Self.savedText(instance) == DefaultPattern.bytes)
            Self.write(instance, piece(20..<Self.edited.count), uris: uris)
            #expect(Self.savedText(instance) == Self.edited)
        }
    }

    @Test("a mute the editor clicks is the parameter's value, told to the host as gesture, value, end; the lane is muted from the next block")
    func muteParameter() {
        Self.withEditorLink { instance, uris in
            let before = Self.flushRequests
            var on: Float = 1
            withUnsafeBytes(of: &on) { clapEditorWrite(instance, TACTUS_PORT_MUTE_FIRST, 4, 0, $0.baseAddress) }
            #expect(Self.flushRequests == before + 1)
            var value = -1.0
            #expect(clapParamValue(instance, 3, &value) && value == 1)
            let out = Self.block(instance, frames: 48000 * 2, transport: Self.transport(rolling: true))
            #expect(out == [.gesture(begin: true, id: 3), .value(id: 3, 1), .gesture(begin: false, id: 3)])
        }
    }

    static let twoPatterns = Array("tactus-pattern 3\nswitch at bar\n\npattern a\nlane x length 4\nnote 0 1 48 100\n\npattern b\nlane x length 4\nnote 0 1 60 90\n".utf8)

    @Test("a pattern the editor requests (urn:tactus:request, now) plays from the next block's first frame")
    func request() {
        Self.withEditorLink { instance, uris in
            Self.write(instance, Self.patternSet(Self.twoPatterns, sequence: 1, uris: uris), uris: uris)
            let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.request) { object in
                Array("now".utf8).withUnsafeBytes { object.addRequest(pattern: 2, when: $0, uris: uris) }
            }
            Self.write(instance, atom, uris: uris)
            let out = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            #expect(out == [.midi(time: 0, 0x90, 60, 90)])
        }
    }

    @Test("the song's switch in the editor is the song parameter, told to the host as gesture, value, end")
    func songParameter() {
        Self.withEditorLink { instance, uris in
            var off: Float = 0
            withUnsafeBytes(of: &off) { clapEditorWrite(instance, TACTUS_PORT_SONG, 4, 0, $0.baseAddress) }
            var value = -1.0
            #expect(clapParamValue(instance, 14, &value) && value == 0)
            let out = Self.block(instance, frames: 64, transport: Self.transport(rolling: false))
            #expect(out == [.gesture(begin: true, id: 14), .value(id: 14, 0), .gesture(begin: false, id: 14)])
        }
    }

    /// The `urn:tactus:laneMutes` values and the scenes (playing, origin) among the editor's messages.
    static func told(_ messages: [(port: UInt32, format: UInt32, bytes: [UInt8])], uris: URIDTable) -> (mutes: [UInt64], scenes: [(Int32, Double)]) {
        var mutes: [UInt64] = []
        var scenes: [(Int32, Double)] = []
        for m in messages where m.port == TACTUS_PORT_NOTIFY && m.format == uris.atomEventTransfer {
            m.bytes.withUnsafeBytes { raw in
                guard var object = AtomObjectReader(atom: raw.baseAddress!, byteCount: raw.count, uris: uris) else { return }
                if object.objectType == uris.patchSet {
                    var property: LV2_URID? = nil
                    var value: Int64? = nil
                    while let (key, v) = object.next() {
                        if key == uris.patchProperty { property = v.urid(uris) } else if key == uris.patchValue { value = v.long(uris) }
                    }
                    if property == uris.laneMutes, let value { mutes.append(UInt64(bitPattern: value)) }
                } else if object.objectType == uris.scene {
                    var playing: Int32 = -1
                    var origin = Double.nan
                    while let (key, v) = object.next() {
                        if key == uris.playing, let n = v.int(uris) { playing = n } else if key == uris.origin, let d = v.double(uris) { origin = d }
                    }
                    scenes.append((playing, origin))
                }
            }
        }
        return (mutes, scenes)
    }

    static let fortyLanes = Array(SwitchTexts.fortyLanes.utf8)

    @Test("an editor that opens after a state with lanes 10 and 40 muted is told them (not lanes 1-8: parameters); its lane 12 keeps them; a state loaded while it is open is told (issue 29)")
    func restoredMutesTold() {
        Self.withEditorLink { instance, uris in
            let restored: UInt64 = 1 << 9 | 1 << 39
            #expect(loadState(instance, CLAPState.encode(text: Self.fortyLanes, source: nil, controls: 0b1, lanes: restored)))
            _ = Self.block(instance, frames: 256, transport: Self.transport(rolling: false))
            // The editor opens (set_parent marks it open; it asks for the text and leases the playhead).
            _ = clapEditorMessagesDue(instance)
            let open = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.editorOpen) { _ in }
            Self.write(instance, open, uris: uris)
            _ = Self.block(instance, frames: 256, transport: Self.transport(rolling: false))
            let opened = Self.told(clapEditorMessagesDue(instance), uris: uris)
            #expect(opened.mutes == [restored], "\(opened.mutes)")  // lane 1 (mute1, bit 0) goes as its parameter
            // The editor's model shows them, and its click on lane 12 sends the whole word.
            var mutes = LaneMutes()
            mutes.setParameter(opened.mutes.last ?? 0)
            let click = mutes.set(11, muted: true)?.parameter ?? 0
            let set = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) {
                $0.addPatchSet(property: uris.laneMutes, long: Int64(bitPattern: click), uris: uris)
            }
            Self.write(instance, set, uris: uris)
            let out = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            let keys = Set(out.compactMap { if case .midi(_, let status, let key, _) = $0, status & 0xF0 == 0x90 { key } else { nil } })
            #expect(keys == Set((41...80).map(UInt8.init)).subtracting([41, 50, 52, 80]), "\(keys.sorted())")
            #expect(Self.told(clapEditorMessagesDue(instance), uris: uris).mutes == [restored | 1 << 11])
            #expect(CLAPState.decode(Self.savedState(instance)).lanes == restored | 1 << 11)
            // A state loaded while the editor is open: lane 20 alone.
            #expect(loadState(instance, CLAPState.encode(text: Self.fortyLanes, source: nil, controls: 0, lanes: 1 << 19)))
            _ = Self.block(instance, frames: 256, transport: Self.transport(rolling: true))
            #expect(Self.told(clapEditorMessagesDue(instance), uris: uris).mutes == [1 << 19])
        }
    }

    @Test("an editor opened after a switch with phase restart at beat 6 is told origin 6 in the scene (issue 29)")
    func originTold() {
        Self.withEditorLink { instance, uris in
            Self.write(instance, Self.patternSet(Array(SwitchTexts.restartEachBeat.utf8), sequence: 1, uris: uris), uris: uris)
            // Blocks of an eighth of a beat (3,000 frames at 120 bpm) from beat 5; b requested at
            // beat 5.5 takes over at beat 6 (block 8), where its beat 0 plays; its beat 1 at beat 7 (block 16).
            var out: [(Int64, Out)] = []
            var k: Int64 = 0
            func run(_ n: Int) {
                for _ in 0..<n {
                    var t = Self.transport(rolling: true)
                    t.song_pos_beats = (40 + k) << 28
                    out += Self.block(instance, frames: 3000, transport: t).map { (k, $0) }
                    k += 1
                }
            }
            run(4)
            let request = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.request) { $0.addRequest(pattern: 2, when: nil, uris: uris) }
            Self.write(instance, request, uris: uris)
            run(13)
            let ons = out.filter { if case .midi(_, let status, _, _) = $0.1 { status & 0xF0 == 0x90 } else { false } }
            #expect(ons.count == 2 && ons[0] == (8, .midi(time: 0, 0x90, 60, 90)) && ons[1] == (16, .midi(time: 0, 0x90, 62, 90)), "\(ons)")
            // The editor opens now.
            _ = clapEditorMessagesDue(instance)
            let open = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.editorOpen) { _ in }
            Self.write(instance, open, uris: uris)
            run(1)
            let scenes = Self.told(clapEditorMessagesDue(instance), uris: uris).scenes
            #expect(scenes.count == 1 && scenes.first?.0 == 2 && scenes.first?.1 == 6, "\(scenes)")
            let scene = PatternScene().updated(with: PatternScene(playing: 2, origin: scenes.first?.1 ?? 0))
            #expect(scene.laneBeat(atHostBeat: 7, length: 4) == 1)
        }
    }
}
