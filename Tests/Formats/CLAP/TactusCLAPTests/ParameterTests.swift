import CCLAP
import TactusEngine
import Testing

import TactusCLAP

/// The parameters in process() (timing contract §11.4): `midi_thru` passes
/// the input notes from its event's frame on, and no sooner; an unknown id,
/// another event space or a short event changes nothing. (The mutes against
/// `tactus render`'s `mute` lines, flush and the state are make clap-test's,
/// through tactus.clap itself.)
@Suite("CLAP parameters in process()")
struct ParameterTests {
    final class Lists {
        var input: [UnsafeRawPointer] = []
        var output: [MIDIEvent] = []
    }

    static func midi(_ time: UInt32, _ bytes: (UInt8, UInt8, UInt8)) -> UnsafeRawPointer {
        let event = UnsafeMutablePointer<clap_event_midi_t>.allocate(capacity: 1)
        event.initialize(to: clap_event_midi_t(
            header: clap_event_header_t(size: UInt32(MemoryLayout<clap_event_midi_t>.size), time: time, space_id: CLAP_CORE_EVENT_SPACE_ID,
                                        type: UInt16(CLAP_EVENT_MIDI), flags: 0),
            port_index: 0, data: bytes))
        return UnsafeRawPointer(event)
    }

    static func param(_ time: UInt32, _ id: UInt32, _ value: Double, space: UInt16 = CLAP_CORE_EVENT_SPACE_ID, short: Bool = false) -> UnsafeRawPointer {
        let event = UnsafeMutablePointer<clap_event_param_value_t>.allocate(capacity: 1)
        event.initialize(to: clap_event_param_value_t(
            header: clap_event_header_t(size: UInt32(MemoryLayout<clap_event_param_value_t>.size - (short ? 8 : 0)), time: time, space_id: space,
                                        type: UInt16(CLAP_EVENT_PARAM_VALUE), flags: 0),
            param_id: id, cookie: nil, note_id: -1, port_index: -1, channel: -1, key: -1, value: value))
        return UnsafeRawPointer(event)
    }

    /// A fresh instance, active at 48 kHz, for `body`; freed after it.
    static func withActiveInstance(maxFrames: UInt32 = 4096, _ body: (UnsafeMutableRawPointer) -> Void) {
        let instance = clapNew(nil)!
        defer { clapFree(instance) }
        #expect(clapActivate(instance, 48000, 1, maxFrames))
        body(instance)
    }

    /// One block of `frames` with `events` as its input, the transport stopped: the MIDI out.
    static func block(_ instance: UnsafeMutableRawPointer, frames: UInt32, _ events: [UnsafeRawPointer]) -> [MIDIEvent] {
        let lists = Lists()
        lists.input = events
        let context = Unmanaged.passUnretained(lists).toOpaque()
        var input = clap_input_events_t(
            ctx: context,
            size: { list in UInt32(Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input.count) },
            get: { list, index in
                Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue().input[Int(index)].assumingMemoryBound(to: clap_event_header_t.self)
            })
        var output = clap_output_events_t(
            ctx: context,
            try_push: { list, header in
                let lists = Unmanaged<Lists>.fromOpaque(list!.pointee.ctx!).takeUnretainedValue()
                let midi = UnsafeRawPointer(header!).load(as: clap_event_midi_t.self)
                lists.output.append(MIDIEvent(offset: Int64(header!.pointee.time), status: midi.data.0, data1: midi.data.1, data2: midi.data.2))
                return true
            })
        var process = clap_process_t()
        process.frames_count = frames
        withUnsafePointer(to: &input) { i in
            withUnsafePointer(to: &output) { o in
                process.in_events = i
                process.out_events = o
                #expect(clapProcess(instance, &process) == clap_process_status(CLAP_PROCESS_CONTINUE))
            }
        }
        for event in events { event.deallocate() }
        return lists.output
    }

    @Test("midi_thru passes the notes after its event, at their frames, and stops at the event that turns it off")
    func thruAtItsFrame() {
        Self.withActiveInstance { instance in
            let thru = CLAPParameter.midiThru
            let out = Self.block(instance, frames: 1000, [
                Self.midi(100, (0x90, 60, 100)),
                Self.param(200, thru, 1),
                Self.midi(300, (0x91, 62, 90)),
                Self.midi(350, (0x81, 62, 0)),
                Self.param(400, thru, 0.25),
                Self.midi(500, (0x80, 60, 0)),
            ])
            #expect(out == [MIDIEvent(offset: 300, status: 0x91, data1: 62, data2: 90), MIDIEvent(offset: 350, status: 0x81, data1: 62, data2: 0)])
            var value = -1.0
            #expect(clapParamValue(instance, thru, &value) && value == 0)
        }
    }

    @Test("an unknown id, another event space or a short event changes no parameter; a value of 0.5 or more is on, NaN off")
    func passedOver() {
        Self.withActiveInstance { instance in
            let thru = CLAPParameter.midiThru
            _ = Self.block(instance, frames: 64, [
                Self.param(0, 2, 1), Self.param(0, 15, 1), Self.param(0, thru, 1, space: 7), Self.param(0, thru, 1, short: true),
                Self.param(0, 3, 0.5), Self.param(0, 4, .nan), Self.param(9999, 10, 1),
            ])
            var values: [Double] = []
            for id in UInt32(3)...12 {
                var value = -1.0
                #expect(clapParamValue(instance, id, &value))
                values.append(value)
            }
            #expect(values == [1, 0, 0, 0, 0, 0, 0, 1, 0, 0])
            var value = 0.0
            #expect(!clapParamValue(instance, 2, &value) && !clapParamValue(instance, 15, &value))
        }
    }

    /// §11.4, §12.8 at an event's frame: 48 kHz, 120 quarter notes a minute, a clock every 1000 frames.
    @Test("the clock parameter: on while rolling, SPP and Continue at its frame, then the clocks; off, Stop at its frame; 1-byte messages with data 0")
    func clockAtItsFrame() {
        Self.withActiveInstance(maxFrames: 8192) { instance in
            let clock = CLAPParameter.clock
            // Stopped: turned on, it waits for the start.
            #expect(Self.block(instance, frames: 64, [Self.transportEvent(0, playing: false), Self.param(10, clock, 1)]).isEmpty)
            #expect(Self.block(instance, frames: 64, [Self.transportEvent(0, playing: false), Self.param(10, clock, 0)]).isEmpty)
            // Rolling from beat 0, turned on at frame 100 (quarter note 1/240): sixteenth 1, Continue, clock 6 at 6000.
            let on = Self.block(instance, frames: 8000, [Self.transportEvent(0, playing: true), Self.param(100, clock, 1)])
            #expect(on.filter { $0.status >= 0xF0 } == [
                MIDIEvent(offset: 100, status: 0xF2, data1: 1, data2: 0), MIDIEvent(offset: 100, status: 0xFB, data1: 0, data2: 0),
                MIDIEvent(offset: 6000, status: 0xF8, data1: 0, data2: 0), MIDIEvent(offset: 7000, status: 0xF8, data1: 0, data2: 0),
            ])
            var value = 0.0
            #expect(clapParamValue(instance, clock, &value) && value == 1)
            // Turned off at frame 8500: the clock of 8000, then Stop at 8500 and nothing more.
            let off = Self.block(instance, frames: 4000, [Self.param(500, clock, 0)])
            #expect(off.filter { $0.status >= 0xF0 } == [
                MIDIEvent(offset: 0, status: 0xF8, data1: 0, data2: 0), MIDIEvent(offset: 500, status: 0xFC, data1: 0, data2: 0),
            ])
        }
    }
}

extension ParameterTests {
    /// A transport at 120 quarter notes a minute, playing from `beat` (fixed point) or stopped.
    static func transportEvent(_ time: UInt32, playing: Bool, beat: Int64 = 0) -> UnsafeRawPointer {
        let event = UnsafeMutablePointer<clap_event_transport_t>.allocate(capacity: 1)
        var t = clap_event_transport_t()
        t.header = clap_event_header_t(size: UInt32(MemoryLayout<clap_event_transport_t>.size), time: time, space_id: CLAP_CORE_EVENT_SPACE_ID, type: UInt16(CLAP_EVENT_TRANSPORT), flags: 0)
        t.flags = CLAP_TRANSPORT_HAS_TEMPO.rawValue | (playing ? CLAP_TRANSPORT_IS_PLAYING.rawValue | CLAP_TRANSPORT_HAS_BEATS_TIMELINE.rawValue : 0)
        t.tempo = 120
        t.song_pos_beats = beat
        event.initialize(to: t)
        return UnsafeRawPointer(event)
    }

    /// Reading (e) at any rate: the fuzz target found the notes of a
    /// sequencer replaced at a new sample rate left sounding.
    @Test("a reactivation at another rate ends what sounded at the first frame of the next block; a block of 0 frames waits")
    func newRateEndsNotes() {
        Self.withActiveInstance { instance in
            let first = Self.block(instance, frames: 1000, [Self.transportEvent(0, playing: true)])
            #expect(first == [MIDIEvent(offset: 0, status: 0x90, data1: 48, data2: 110)])  // the default pattern's first note
            clapDeactivate(instance)
            #expect(clapActivate(instance, 44100, 1, 4096))
            #expect(Self.block(instance, frames: 0, [Self.transportEvent(0, playing: false)]).isEmpty)
            #expect(Self.block(instance, frames: 64, [Self.transportEvent(0, playing: false)]) == [MIDIEvent(offset: 0, status: 0x80, data1: 48, data2: 0)])
            #expect(Self.block(instance, frames: 64, []).isEmpty)
        }
    }
}
