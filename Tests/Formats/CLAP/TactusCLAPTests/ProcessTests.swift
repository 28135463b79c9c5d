import CCLAP
import TactusEngine
import TactusModel
import TactusOffline
import Testing

import TactusCLAP

/// `process()` (in this process: the hosted build of the glue) against the
/// engine driven as the LV2 plugin drives it, with the LV2 report of the same
/// place in every block (a Carla-style host): the same events at the same
/// frames, for random block sizes, in 4/4 and 7/8, with the transport given
/// as `process->transport` or as a `CLAP_EVENT_TRANSPORT` in mid-block.
@Suite("CLAP process() plays as the LV2 plugin does")
struct ProcessTests {
    /// The host's event lists: the input holds at most one event, the output
    /// collects MIDI as (absolute frame, bytes).
    final class Lists {
        var input: UnsafeRawPointer? = nil
        var output: [MIDIEvent] = []
        var blockStart: Int64 = 0
    }

    static func run(meterNumerator n: UInt16, denominator d: UInt16, midBlockEvent: Bool, seed: UInt64) -> (clap: [MIDIEvent], lv2: [MIDIEvent]) {
        let rate = 48000.0
        let tempoQuarters = 120.0
        let instance = clapNew(nil)!
        defer { clapFree(instance) }
        #expect(clapActivate(instance, rate, 1, 4096))

        let text = DefaultPattern.bytes
        let snapshot = PatternSnapshot.make(try! PatternParser.parse(bytes: text), text: text)
        var reference = Sequencer(sampleRate: rate, eventCapacity: 8192, pattern: snapshot)
        reference.activate()

        let lists = Lists()
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var input = clap_input_events_t(
            ctx: context,
            size: { list in Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input == nil ? 0 : 1 },
            get: { list, _ in
                Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input?.assumingMemoryBound(to: clap_event_header_t.self)
            })
        var output = clap_output_events_t(
            ctx: context,
            try_push: { list, header in
                let lists = Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                guard let header, Int(header.pointee.type) == CLAP_EVENT_MIDI else { return false }
                let midi = UnsafeRawPointer(header).load(as: clap_event_midi_t.self)
                lists.output.append(MIDIEvent(offset: lists.blockStart + Int64(header.pointee.time), status: midi.data.0, data1: midi.data.1, data2: midi.data.2))
                return true
            })

        var rng = SplitMix64(seed: seed)
        var lv2Events: [MIDIEvent] = []
        var frame: Int64 = 0
        let quartersPerFrame = tempoQuarters / 60 / rate
        let barQuarters = Double(n) * 4 / Double(d)
        while frame < Int64(10 * rate) {
            let frames = Int(1 + rng.next() % 4096)
            // Where the host is at the report (the block start, or an offset inside it).
            let reportOffset = midBlockEvent ? Int(rng.next() % UInt64(frames)) : 0
            let quarters = Double(frame + Int64(reportOffset)) * quartersPerFrame  // exact: 1/24000 multiples, a float host's value
            var transport = clap_event_transport_t()
            transport.header = clap_event_header_t(
                size: UInt32(MemoryLayout<clap_event_transport_t>.size), time: UInt32(reportOffset), space_id: CLAP_CORE_EVENT_SPACE_ID,
                type: UInt16(CLAP_EVENT_TRANSPORT), flags: 0)
            transport.flags = CLAP_TRANSPORT_HAS_TEMPO.rawValue | CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue
                | CLAP_TRANSPORT_HAS_TIME_SIGNATURE.rawValue | CLAP_TRANSPORT_IS_PLAYING.rawValue
            transport.tempo = tempoQuarters
            transport.tsig_num = n
            transport.tsig_denom = d
            let bar = (quarters / barQuarters).rounded(.down)
            transport.bar_number = Int32(bar)
            transport.bar_start = Int64((bar * barQuarters * 0x1p31).rounded())
            transport.song_pos_beats = Int64((quarters * 0x1p31).rounded(.down))

            // The LV2 report of the same place: what the CLAP mapping must equal.
            let barBeat = Double(transport.song_pos_beats - transport.bar_start) * Double(d) * 0x1p-33
            let lv2 = PositionUpdate(speed: 1, bar: bar, barBeat: barBeat, beatsPerBar: Double(n), beatsPerMinute: tempoQuarters * Double(d) / 4)
            _ = reference.beginBlock(frameCount: frames, eventCapacity: reference.eventStorageCapacity)
            _ = reference.apply(lv2, atOffset: reportOffset)
            reference.endBlock()
            lv2Events += reference.events.map { MIDIEvent(offset: frame + $0.offset, status: $0.status, data1: $0.data1, data2: $0.data2) }

            lists.blockStart = frame
            withUnsafePointer(to: &transport) { transportPointer in
                lists.input = midBlockEvent ? UnsafeRawPointer(transportPointer) : nil
                var process = clap_process_t()
                process.steady_time = -1
                process.frames_count = UInt32(frames)
                process.transport = midBlockEvent ? nil : transportPointer
                withUnsafePointer(to: &input) { inputPointer in
                    withUnsafePointer(to: &output) { outputPointer in
                        process.in_events = inputPointer
                        process.out_events = outputPointer
                        #expect(clapProcess(instance, &process) == clap_process_status(CLAP_PROCESS_CONTINUE))
                    }
                }
            }
            frame += Int64(frames)
        }
        return (lists.output, lv2Events)
    }

    @Test("4/4 and 7/8, the transport at the block start or in mid-block, random blocks for 10 s: the LV2 plugin's events")
    func sameAsLV2() {
        for (n, d) in [(UInt16(4), UInt16(4)), (7, 8)] {
            for midBlock in [false, true] {
                let (clap, lv2) = Self.run(meterNumerator: n, denominator: d, midBlockEvent: midBlock, seed: 11 + UInt64(n))
                #expect(!lv2.isEmpty)
                #expect(clap == lv2, "\(n)/\(d) mid-block \(midBlock): \(clap.count) against \(lv2.count) events")
            }
        }
    }

    @Test("the default pattern's first bar from the top at 120 quarter notes a minute, 48 kHz: every onset at its frame")
    func firstBar() {
        let (clap, _) = Self.run(meterNumerator: 4, denominator: 4, midBlockEvent: false, seed: 5)
        let onsets = clap.filter { $0.status & 0xF0 == 0x90 && $0.data2 > 0 }.prefix(8)
        // Beats 0, 1/2, 1, 2, 5/2, 3, 10/3, 11/3 at 24,000 frames a beat.
        #expect(onsets.map(\.offset) == [0, 12000, 24000, 48000, 60000, 72000, 80000, 88000])
        #expect(onsets.map(\.data1) == [48, 64, 55, 52, 67, 55, 57, 59])
    }
}
