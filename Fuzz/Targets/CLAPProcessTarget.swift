import CCLAP
import CCLAPEntry
import LV2HostKit
import TactusCLAP
import TactusEngine
import TactusModel
import Glibc

/// Fuzz target 6: the CLAP plugin (`TactusCLAP` and its C entry, as the host
/// reaches it through `clap_entry`) fed whatever a CLAP host could give
/// `process()`, block after block, with the invariants of any output checked
/// after every block (`NoteChecker`, the same rules as for the LV2 plugin).
///
/// An input is a program: a sample rate, then blocks of 0 to 4096 frames,
/// each with `process->transport` null or any transport, and up to 32 input
/// events: transports (any flags, NaN and infinite tempi, positions near the
/// fixed point's ends, meters of 0), MIDI of any bytes (all notes off, notes
/// that key-follow lanes), parameter values (any id, NaN), events of unknown
/// types and other spaces, sizes too short for their type or larger than
/// it, times beyond the block, out of order.
/// Between blocks: `params.flush`, a state load (a good one, or bytes that
/// are not a state), `reset`, a deactivation and activation at another rate.
/// At the end the host stops its transport with room: nothing may sound.
/// `midi_thru` passes the host's own notes on, which the note checker cannot
/// tell from Tactus's: an input that turns it on is run for crashes only, as
/// is one with a block whose events are out of time order (CLAP asks for
/// time order; out of it, where an event acts depends on whether the plugin
/// rendered for the events before it, which the checker cannot know).
public enum CLAPProcessTarget {
    /// Runs one input; what was wrong, if anything.
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var input = FuzzInput(data)
        var session = CLAPSession(&input)
        session.run(&input)
        return session.violations
    }

    /// The libFuzzer entry: a violation is a crash.
    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("clap process")
    }
}

/// The host's side of one session: the event lists point into this.
private final class CLAPLists {
    /// One slot per input event, large enough for any core event (a transport is the largest).
    static let slotBytes = 128
    let slots = UnsafeMutableRawPointer.allocate(byteCount: 32 * slotBytes, alignment: 16)
    var count = 0
    var output: [OutputSequence.Event] = []

    init() { slots.initializeMemory(as: UInt8.self, repeating: 0, count: 32 * CLAPLists.slotBytes) }
    deinit { slots.deallocate() }

    func slot(_ i: Int) -> UnsafeMutableRawPointer { slots + i * CLAPLists.slotBytes }

    /// Puts the events in time order (a stable sort, as a host merges its lists).
    func sortByTime() {
        let events = (0..<count).map { i in Array(UnsafeRawBufferPointer(start: slot(i), count: CLAPLists.slotBytes)) }
        let order = (0..<count).sorted {
            (slot($0).load(as: clap_event_header_t.self).time, $0) < (slot($1).load(as: clap_event_header_t.self).time, $1)
        }
        for (to, from) in order.enumerated() { events[from].withUnsafeBytes { slot(to).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
    }
}

/// What the log extension says goes nowhere: a fuzzed state is refused often.
private func silentLog(_ host: UnsafePointer<clap_host_t>?, _ severity: Int32, _ message: UnsafePointer<CChar>?) {}
private struct HostLog {
    var log: @convention(c) (UnsafePointer<clap_host_t>?, Int32, UnsafePointer<CChar>?) -> Void = silentLog
}
nonisolated(unsafe) private let hostLog = UnsafeMutablePointer<HostLog>.allocate(capacity: 1)
private let hostLogReady: Bool = {
    hostLog.initialize(to: HostLog())
    return true
}()

private struct CLAPSession {
    var violations = Violations()
    var notes = NoteChecker()
    let lists = CLAPLists()
    var frame: Int64 = 0
    var rate: Double
    /// `midi_thru` was turned on: the note checker is not told (see above).
    var thru = false
    /// A block listed its events out of time order (see `block`): not checked from then on.
    var unordered = false
    /// Whether the note checker follows the session.
    var checked: Bool { !thru && !unordered }
    /// One session in eight may list events out of order, or turn midi_thru on (crashes only).
    var mayDisorder = false
    var mayThru = false
    let plugin: UnsafePointer<clap_plugin_t>?
    let host: UnsafeMutablePointer<clap_host_t>

    static let midiType: UInt32 = 1
    static let allFlags: UInt32 = 0x1FF

    init(_ input: inout FuzzInput) {
        _ = hostLogReady
        rate = input.pick([44100, 48000, 96000, 22050, 8000])
        mayDisorder = input.oneIn(8)
        mayThru = input.oneIn(8)
        host = .allocate(capacity: 1)
        host.initialize(to: clap_host_t())
        host.pointee.clap_version = clap_version_t(major: 1, minor: 1, revision: 1)
        host.pointee.get_extension = { _, id in
            guard let id, String(cString: id) == "clap.log" else { return nil }
            return UnsafeRawPointer(hostLog)
        }
        host.pointee.request_restart = { _ in }
        host.pointee.request_process = { _ in }
        host.pointee.request_callback = { _ in }
        let entry = clap_entry
        _ = entry.`init`?("/fuzz/tactus.clap")
        let factory = entry.get_factory?("clap.plugin-factory")?.assumingMemoryBound(to: clap_plugin_factory_t.self)
        plugin = factory?.pointee.create_plugin?(factory, host, TACTUS_CLAP_ID)
        if plugin == nil { violations.add("create_plugin failed") }
    }

    var params: UnsafePointer<clap_plugin_params_t>? {
        plugin?.pointee.get_extension?(plugin, "clap.params")?.assumingMemoryBound(to: clap_plugin_params_t.self)
    }
    var stateExtension: UnsafePointer<clap_plugin_state_t>? {
        plugin?.pointee.get_extension?(plugin, "clap.state")?.assumingMemoryBound(to: clap_plugin_state_t.self)
    }

    mutating func run(_ input: inout FuzzInput) {
        guard let plugin else { return }
        defer {
            plugin.pointee.destroy?(plugin)
            host.deinitialize(count: 1)
            host.deallocate()
        }
        _ = plugin.pointee.`init`?(plugin)
        if input.oneIn(3) { loadState(&input) }
        guard plugin.pointee.activate?(plugin, rate, 1, 4096) == true else {
            violations.add("activate failed at \(rate) Hz")
            return
        }
        var blocks = 0
        while !input.isExhausted && blocks < 200 {
            blocks += 1
            let step = input.below(16)
            if CLAPSession.trace, step < 4 { print(["flush", "state load", "reset", "deactivation and activation"][step], "at", frame) }
            switch step {
            case 0: flush(&input)
            case 1: loadState(&input)
            case 2:
                plugin.pointee.reset?(plugin)
                if checked { notes.deactivated(at: frame, violations: &violations) }
            case 3:
                plugin.pointee.deactivate?(plugin)
                if checked { notes.deactivated(at: frame, violations: &violations) }
                if input.oneIn(2) { rate = input.pick([44100, 48000, 96000, 22050]) }
                _ = plugin.pointee.activate?(plugin, rate, 1, 4096)
            default: block(&input)
            }
        }
        finish()
        plugin.pointee.deactivate?(plugin)
        if CLAPSession.trace { print("session: \(blocks) steps, \(checked ? "checked" : thru ? "thru: crashes only" : "out of order: crashes only")") }
    }

    // MARK: - Events

    /// A transport: sometimes a clean stop (which must stop), else anything.
    func transport(_ input: inout FuzzInput) -> (clap_event_transport_t, DeliveredInput.Kind) {
        var t = clap_event_transport_t()
        t.header = clap_event_header_t(
            size: UInt32(MemoryLayout<clap_event_transport_t>.size), time: 0, space_id: CLAP_CORE_EVENT_SPACE_ID,
            type: UInt16(CLAP_EVENT_TRANSPORT), flags: 0)
        if input.oneIn(4) {
            t.flags = CLAP_TRANSPORT_HAS_TEMPO.rawValue
            t.tempo = 120
            return (t, CLAPSession.kind(t))
        }
        t.flags = input.oneIn(4) ? input.u32() & CLAPSession.allFlags
            : CLAP_TRANSPORT_HAS_TEMPO.rawValue | CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue
                | CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue | (input.oneIn(4) ? 0 : CLAP_TRANSPORT_IS_PLAYING.rawValue)
        let tempi: [Double] = [120, 90, 133.7, 1, 1000, 0, -5, .nan, .infinity, 2e9, 60.000001]
        t.tempo = input.oneIn(8) ? Double(bitPattern: input.u64()) : input.pick(tempi)
        // Positions: near the fixed point's ends now and then, else a few hundred quarter notes.
        t.song_pos_beats = input.oneIn(8) ? Int64(bitPattern: input.u64()) : Int64(input.below(1 << 20)) << Int64(input.below(24))
        t.bar_start = input.oneIn(2) ? Int64(bitPattern: input.u64()) : 0
        t.bar_number = Int32(bitPattern: input.u32())
        t.tsig_num = input.oneIn(4) ? input.u16() : UInt16(input.below(13))
        t.tsig_denom = input.oneIn(4) ? input.u16() : UInt16(1) << UInt16(input.below(6))
        t.tempo_inc = input.oneIn(4) ? Double(bitPattern: input.u64()) : 0
        t.loop_start_beats = Int64(bitPattern: input.u64())
        return (t, CLAPSession.kind(t))
    }

    /// Writes input event `i` into its slot.
    mutating func event(_ i: Int, in frames: Int, _ input: inout FuzzInput) {
        let slot = lists.slot(i)
        slot.initializeMemory(as: UInt8.self, repeating: 0, count: CLAPLists.slotBytes)
        let time = input.oneIn(16) ? input.u32() : UInt32(input.below(max(frames, 1)))
        switch input.below(8) {
        case 0, 1:
            var (t, _) = transport(&input)
            t.header.time = time
            slot.storeBytes(of: t, as: clap_event_transport_t.self)
        case 2, 3, 4:
            var bytes = (input.byte(), input.byte(), input.byte())
            if input.oneIn(4) { bytes = (0xB0 | UInt8(input.below(16)), input.pick([120, 123]), 0) }
            if input.oneIn(3) { bytes = (0x90 | UInt8(input.below(16)), UInt8(input.below(128)), UInt8(input.below(128))) }
            let midi = clap_event_midi_t(
                header: clap_event_header_t(
                    size: UInt32(MemoryLayout<clap_event_midi_t>.size), time: time, space_id: CLAP_CORE_EVENT_SPACE_ID,
                    type: UInt16(CLAP_EVENT_MIDI), flags: 0),
                port_index: input.u16(), data: bytes)
            slot.storeBytes(of: midi, as: clap_event_midi_t.self)
        case 5, 6:
            // Mostly the mutes; any id (midi_thru, unknown ones) now and then.
            var id = input.oneIn(16) ? UInt32(input.below(16)) : CLAPParameter.firstMute + UInt32(input.below(CLAPParameter.muteCount))
            if id == CLAPParameter.midiThru, !mayThru { id = CLAPParameter.firstMute }
            let value = input.oneIn(8) ? Double(bitPattern: input.u64()) : Double(input.below(3)) / 2
            let change = clap_event_param_value_t(
                header: clap_event_header_t(
                    size: UInt32(MemoryLayout<clap_event_param_value_t>.size), time: time, space_id: CLAP_CORE_EVENT_SPACE_ID,
                    type: UInt16(CLAP_EVENT_PARAM_VALUE), flags: 0),
                param_id: id, cookie: nil, note_id: -1, port_index: -1, channel: -1, key: -1, value: value)
            slot.storeBytes(of: change, as: clap_event_param_value_t.self)
        default:
            // Anything: random bytes under a header of any type, space and size.
            for b in 16..<CLAPLists.slotBytes { slot.storeBytes(of: input.byte(), toByteOffset: b, as: UInt8.self) }
            slot.storeBytes(
                of: clap_event_header_t(size: input.u32() % 256, time: time, space_id: input.oneIn(2) ? 0 : input.u16(), type: input.u16(), flags: input.u32()),
                as: clap_event_header_t.self)
            // An event that claims a size too short for its type (a transport, MIDI, a value) is passed over.
        }
        // Now and then a size that lies: too short for the type (passed over) or longer (read as the type).
        if input.oneIn(12) { slot.storeBytes(of: UInt32(input.below(CLAPLists.slotBytes)), toByteOffset: 0, as: UInt32.self) }
    }

    /// What an input event is for the checker, read from its bytes as the
    /// plugin reads them (a random event may be a valid transport or MIDI).
    static func kind(_ event: UnsafeRawPointer) -> DeliveredInput.Kind {
        let header = event.load(as: clap_event_header_t.self)
        guard header.space_id == CLAP_CORE_EVENT_SPACE_ID else { return .other }
        switch Int(header.type) {
        case CLAP_EVENT_TRANSPORT where header.size >= UInt32(MemoryLayout<clap_event_transport_t>.size):
            return kind(event.load(as: clap_event_transport_t.self))
        case CLAP_EVENT_MIDI where header.size >= UInt32(MemoryLayout<clap_event_midi_t>.size):
            let data = event.load(as: clap_event_midi_t.self).data
            return data.0 & 0xF0 == 0xB0 && (data.1 == 120 || data.1 == 123) ? .allNotesOff : .other
        default:
            return .other
        }
    }

    /// A transport that must stop (the clean stop: a tempo of 120 and nothing
    /// else, not playing), or any other, which may do anything.
    static func kind(_ t: clap_event_transport_t) -> DeliveredInput.Kind {
        t.flags == CLAP_TRANSPORT_HAS_TEMPO.rawValue && t.tempo == 120 ? .stop : .position
    }

    // MARK: - Blocks

    mutating func block(_ input: inout FuzzInput) {
        guard let plugin else { return }
        let frames = input.oneIn(16) ? 0 : 1 + input.below(input.oneIn(4) ? 4096 : 512)
        var inputs: [(frame: Int64, kind: DeliveredInput.Kind)] = []
        var given: clap_event_transport_t? = nil
        if input.oneIn(2) {
            let (t, kind) = transport(&input)
            given = t
            inputs.append((frame, kind))
        }
        lists.count = input.below(33)
        for i in 0..<lists.count { event(i, in: frames, &input) }
        // CLAP asks hosts to list events in time order; most blocks do, some do not.
        if !mayDisorder || !input.oneIn(4) { lists.sortByTime() }
        var last: Int64 = 0
        for i in 0..<lists.count {
            let event = UnsafeRawPointer(lists.slot(i))
            // Reading (f): a time at or past the block's end acts at its last frame.
            let time = min(Int64(event.load(as: clap_event_header_t.self).time), Int64(max(frames, 1) - 1))
            // Out of order, where an event acts depends on which events before it the plugin
            // passed over without rendering: the session is then checked for crashes only.
            if time < last { unordered = true }
            last = time
            let kind = CLAPSession.kind(event)
            if kind != .other { inputs.append((frame + time, kind)) }
        }
        lists.output = []
        // midi_thru turned on anywhere in the block (even if off again at its end) passes the host's notes.
        for i in 0..<lists.count {
            let header = lists.slot(i).load(as: clap_event_header_t.self)
            guard header.space_id == CLAP_CORE_EVENT_SPACE_ID, Int(header.type) == CLAP_EVENT_PARAM_VALUE,
                header.size >= UInt32(MemoryLayout<clap_event_param_value_t>.size)
            else { continue }
            let change = lists.slot(i).load(as: clap_event_param_value_t.self)
            if change.param_id == CLAPParameter.midiThru, change.value >= 0.5 { thru = true }
        }
        run(plugin, frames: frames, transport: given)
        checkThru()
        if CLAPSession.trace { print(describeBlock(frames: frames, transport: given, inputs: inputs)); fflush(nil) }
        if checked {
            notes.block(
                start: frame, frames: frames, output: lists.output, midiType: CLAPSession.midiType, full: false, inputs: inputs,
                violations: &violations)
        }
        frame += Int64(frames)
    }

    /// TACTUS_FUZZ_TRACE=1: each block, its inputs and its output on standard
    /// output, to read what a kept input does (`fuzz-clap-process FILE`).
    static let trace = getenv("TACTUS_FUZZ_TRACE") != nil

    func describeBlock(frames: Int, transport: clap_event_transport_t?, inputs: [(frame: Int64, kind: DeliveredInput.Kind)]) -> String {
        var lines = ["block at \(frame), \(frames) frames, transport " + (transport.map { "flags \($0.flags) tempo \($0.tempo) beats \($0.song_pos_beats)" } ?? "none")]
        for i in 0..<lists.count {
            let h = lists.slot(i).load(as: clap_event_header_t.self)
            var line = "  in: type \(h.type) space \(h.space_id) size \(h.size) time \(h.time)"
            if h.type == CLAP_EVENT_TRANSPORT {
                let t = lists.slot(i).load(as: clap_event_transport_t.self)
                line += " flags \(t.flags) tempo \(t.tempo) beats \(t.song_pos_beats)"
            } else if h.type == CLAP_EVENT_MIDI {
                let m = lists.slot(i).load(as: clap_event_midi_t.self)
                line += " midi \(m.data)"
            } else if h.type == CLAP_EVENT_PARAM_VALUE {
                let v = lists.slot(i).load(as: clap_event_param_value_t.self)
                line += " param \(v.param_id) = \(v.value)"
            }
            lines.append(line)
        }
        for (f, k) in inputs where k != .other { lines.append("  checker: \(k) at \(f)") }
        for e in lists.output { lines.append("  out: \(frame + e.frames) \(e.body)") }
        return lines.joined(separator: "\n")
    }

    /// Whether `midi_thru` is on now (any event may have set it, a random one too).
    mutating func checkThru() {
        var value = 0.0
        if let plugin, let params, params.pointee.get_value?(plugin, 11, &value) == true, value >= 0.5 { thru = true }
    }

    /// One `process()` call. (The output list always has room: a host whose
    /// list refuses events loses them; docs/robustness.md.)
    mutating func run(_ plugin: UnsafePointer<clap_plugin_t>, frames: Int, transport: clap_event_transport_t?) {
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var inEvents = clap_input_events_t(
            ctx: context,
            size: { list in UInt32(Unmanaged<CLAPLists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().count) },
            get: { list, index in
                let lists = Unmanaged<CLAPLists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                guard Int(index) < lists.count else { return nil }
                return UnsafePointer(lists.slot(Int(index)).assumingMemoryBound(to: clap_event_header_t.self))
            })
        var outEvents = clap_output_events_t(
            ctx: context,
            try_push: { list, header in
                let lists = Unmanaged<CLAPLists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                guard let header else { return false }
                guard Int(header.pointee.type) == CLAP_EVENT_MIDI, header.pointee.size >= UInt32(MemoryLayout<clap_event_midi_t>.size) else {
                    lists.output.append(OutputSequence.Event(frames: Int64(header.pointee.time), type: 0, body: []))
                    return true
                }
                let midi = UnsafeRawPointer(header).load(as: clap_event_midi_t.self)
                // A random parameter event may turn the `clock` on (id 12): its system messages (§12) are
                // the clock's, checked against the reference in MIDIClockTests and clap-test, not notes.
                if midi.data.0 >= 0xF0 { return true }
                lists.output.append(
                    OutputSequence.Event(frames: Int64(header.pointee.time), type: CLAPSession.midiType, body: [midi.data.0, midi.data.1, midi.data.2]))
                return true
            })
        var t = transport ?? clap_event_transport_t()
        let status = withUnsafePointer(to: &inEvents) { i in
            withUnsafePointer(to: &outEvents) { o in
                withUnsafePointer(to: &t) { tp in
                    var process = clap_process_t()
                    process.steady_time = frame
                    process.frames_count = UInt32(frames)
                    process.transport = transport == nil ? nil : tp
                    process.in_events = i
                    process.out_events = o
                    return plugin.pointee.process?(plugin, &process)
                }
            }
        }
        if status != clap_process_status(CLAP_PROCESS_CONTINUE) { violations.add("process() returned \(String(describing: status))") }
    }

    // MARK: - Between blocks

    mutating func flush(_ input: inout FuzzInput) {
        guard let plugin, let params else { return }
        lists.count = input.below(33)
        for i in 0..<lists.count { event(i, in: 0, &input) }
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var inEvents = clap_input_events_t(
            ctx: context,
            size: { list in UInt32(Unmanaged<CLAPLists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().count) },
            get: { list, index in
                UnsafePointer(Unmanaged<CLAPLists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().slot(Int(index))
                    .assumingMemoryBound(to: clap_event_header_t.self))
            })
        var outEvents = clap_output_events_t(ctx: nil, try_push: { _, _ in false })
        params.pointee.flush?(plugin, &inEvents, &outEvents)
        // A flush's transports and MIDI are not process()'s: passed over.
        checkThru()
    }

    /// A state: a good one (one of the fixtures' patterns, with controls), or bytes that are not one.
    mutating func loadState(_ input: inout FuzzInput) {
        guard let plugin, let stateExtension else { return }
        var bytes: [UInt8]
        if input.oneIn(3) {
            bytes = input.bytes(upTo: 200)
        } else {
            let text = Array(input.pick(FuzzFixtures.patternTexts).utf8)
            let controls = input.pick(mayThru ? ["", "mute1 ", "mute2 mute8 ", "midi_thru ", "mute9 "] : ["", "mute1 ", "mute2 mute8 ", "mute9 "])
            bytes = Array("tactus-clap-state 1\npattern \(text.count)\n".utf8) + text
            bytes += Array("\ncontrols \(controls.utf8.count)\n\(controls)\n".utf8)
        }
        final class Reader {
            var bytes: [UInt8]
            var at = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let reader = Reader(bytes)
        var stream = clap_istream_t(
            ctx: Unmanaged.passUnretained(reader).toOpaque(),
            read: { stream, buffer, size in
                let r = Unmanaged<Reader>.fromOpaque(stream!.pointee.ctx!).takeUnretainedValue()
                let n = min(Int(size), r.bytes.count - r.at, 777)
                r.bytes.withUnsafeBytes { buffer!.copyMemory(from: $0.baseAddress! + r.at, byteCount: n) }
                r.at += n
                return Int64(n)
            })
        _ = stateExtension.pointee.load?(plugin, &stream)
        checkThru()
        // A state saved now loads back into the same bytes.
        final class Writer { var bytes: [UInt8] = [] }
        let writer = Writer()
        var out = clap_ostream_t(
            ctx: Unmanaged.passUnretained(writer).toOpaque(),
            write: { stream, buffer, size in
                let w = Unmanaged<Writer>.fromOpaque(stream!.pointee.ctx!).takeUnretainedValue()
                w.bytes += UnsafeRawBufferPointer(start: buffer, count: Int(size))
                return Int64(size)
            })
        guard stateExtension.pointee.save?(plugin, &out) == true else {
            violations.add("the state could not be saved")
            return
        }
        let decoded = CLAPState.decode(writer.bytes)
        if let problem = decoded.problem { violations.add("the saved state is not a state: \(problem)") }
        do { _ = try PatternParser.parse(bytes: decoded.text) } catch {
            violations.add("the saved state's pattern does not parse: \(error.message)")
        }
    }

    // MARK: - The end: stop with room, then nothing may sound

    mutating func finish() {
        guard let plugin else { return }
        var stop = clap_event_transport_t()
        stop.flags = CLAP_TRANSPORT_HAS_TEMPO.rawValue
        stop.tempo = 120
        lists.count = 0
        lists.output = []
        run(plugin, frames: 64, transport: stop)
        if CLAPSession.trace { print(describeBlock(frames: 64, transport: stop, inputs: [(frame, .stop)])); fflush(nil) }
        if checked {
            notes.block(
                start: frame, frames: 64, output: lists.output, midiType: CLAPSession.midiType, full: false, inputs: [(frame, .stop)],
                violations: &violations)
            if notes.soundingCount > 0 { violations.add("stuck notes after the final stop: \(notes.soundingSlots.map(NoteChecker.name))") }
        }
        frame += 64
        lists.output = []
        run(plugin, frames: 4096, transport: stop)
        if checked, !lists.output.isEmpty { violations.add("\(lists.output.count) MIDI events in a block after the final stop") }
    }
}
