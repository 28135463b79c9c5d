import CCLAP
import TactusEngine

/// `process()`: the shape of LV2's `run()` (Formats/LV2/TactusLV2/Run.swift).
/// The sequencer installs a pattern handed over (block start, §5); the
/// host's `process->transport` is a report at offset 0 and each input event
/// is applied at its time, in the host's order, the engine rendering up to
/// each (§11.1), parameter events among them (§11.4); the block's MIDI goes
/// out as `CLAP_EVENT_MIDI` on note port 0.
enum CLAPProcess {
    @_noLocks
    static func run(
        _ sequencer: UnsafeMutablePointer<Sequencer>, controls: CLAPControls, owed: OwedNoteOffs, editor: EditorChannel,
        _ process: UnsafePointer<clap_process_t>
    ) {
        let frameCount = Int(process.pointee.frames_count)
        _ = sequencer.pointee.beginBlock(frameCount: frameCount, eventCapacity: sequencer.pointee.eventStorageCapacity)
        // §12 by §11.4: the clock as flush, a state load or the last block left it, from the first frame.
        sequencer.pointee.setMIDIClock(enabled: controls.bits & CLAPParameter.clockBit != 0)
        // §9.5, §9.6 by §11.4: `song` and `pattern` as flush, a state load or the last block left them.
        sequencer.pointee.setSongEnabled(controls.song, atOffset: 0)
        sequencer.pointee.setPatternControl(Float(controls.pattern), atOffset: 0)
        if let transport = process.pointee.transport {
            _ = sequencer.pointee.apply(TransportReading.update(transport.pointee), atOffset: 0)
        }
        // The editor's auditions (heard only when the transport at this frame is
        // stopped, §8.1: after the block's report), its lease, its lanes past 8.
        editor.receiveCommands(into: sequencer)
        // §11.4: mutes given outside process() (flush, a state load, a new
        // sequencer at another rate, the editor) from the block's first frame;
        // the lanes past 8 read once, so the block's parameter events keep them.
        let pastEight = editor.lanesPastEight
        let mutes = (controls.bits & CLAPParameter.muteMask) | pastEight
        if mutes != sequencer.pointee.renderer.parameterMutes { sequencer.pointee.apply(.laneMutes(mutes), atOffset: 0) }
        let input = process.pointee.in_events
        let count = tactus_clap_input_size(input)
        var index: UInt32 = 0
        while index < count {
            if let event = tactus_clap_input_get(input, index) {
                read(event, frameCount: frameCount, controls: controls, pastEight: pastEight, into: sequencer)
            }
            index += 1
        }
        sequencer.pointee.endBlock()

        let output = process.pointee.out_events
        // The host learns of the parameters the editor set.
        editor.sendChanges(to: output)
        var midi = clap_event_midi_t()
        midi.header.size = UInt32(MemoryLayout<clap_event_midi_t>.size)
        midi.header.space_id = CLAP_CORE_EVENT_SPACE_ID
        midi.header.type = UInt16(CLAP_EVENT_MIDI)
        midi.port_index = 0
        // First what a sequencer replaced at another rate owed (reading (e)).
        owed.send(frameCount: frameCount, to: output, using: &midi)
        // Notes and, with `clock` on, the clock's messages: a 1-byte message
        // (F8, FA, FB, FC) with data[1] and data[2] 0, a Song Position Pointer's 3 bytes.
        for e in sequencer.pointee.events {
            midi.header.time = UInt32(truncatingIfNeeded: e.offset)
            let length = e.byteCount
            midi.data = (e.status, length > 1 ? e.data1 : 0, length > 2 ? e.data2 : 0)
            let pushed = withUnsafePointer(to: &midi) { event in
                event.withMemoryRebound(to: clap_event_header_t.self, capacity: 1) { tactus_clap_output_push(output, $0) }
            }
            if !pushed { break }  // the host's list is full: what is left is lost, as on a full LV2 port
        }
        // What the editor is owed (the playhead while its lease lasts), for the main thread.
        if !sequencer.pointee.owesNothing { editor.tell(from: sequencer) }
    }

    /// One input event: a transport report (§11.1), MIDI (key-follow, all
    /// notes off, pattern triggers, thru; §5, §7.5, §9.6) or a parameter's value (§11.4). Events of
    /// other spaces or types, and events too short for their type, are
    /// passed over; a time at or beyond the block's end acts at its last
    /// frame, as LV2's event offsets do (reading (f)).
    @_noLocks
    static func read(
        _ event: UnsafePointer<clap_event_header_t>, frameCount: Int, controls: CLAPControls, pastEight: UInt64,
        into sequencer: UnsafeMutablePointer<Sequencer>
    ) {
        let header = event.pointee
        guard header.space_id == CLAP_CORE_EVENT_SPACE_ID else { return }
        let offset = Int(header.time) > frameCount ? frameCount : Int(header.time)
        let raw = UnsafeRawPointer(event)
        switch Int(header.type) {
        case CLAP_EVENT_TRANSPORT where Int(header.size) >= MemoryLayout<clap_event_transport_t>.size:
            _ = sequencer.pointee.apply(TransportReading.update(raw.load(as: clap_event_transport_t.self)), atOffset: offset)
        case CLAP_EVENT_MIDI where Int(header.size) >= MemoryLayout<clap_event_midi_t>.size:
            // §5, §7.5: the engine's one reading of MIDI input.
            let thru = controls.bits & CLAPParameter.thruBit != 0
            withUnsafeBytes(of: raw.load(as: clap_event_midi_t.self).data) { _ = sequencer.pointee.receiveMIDI($0, thru: thru, atOffset: offset) }
        case CLAP_EVENT_PARAM_VALUE:
            // §11.4: a mute, the clock, the song or a pattern at this frame; midi_thru for the MIDI events after it.
            if let bit = controls.take(event) {
                if bit & CLAPParameter.muteMask != 0 {
                    sequencer.pointee.apply(.laneMutes((controls.bits & CLAPParameter.muteMask) | pastEight), atOffset: offset)
                } else if bit == CLAPParameter.clockBit {
                    sequencer.pointee.setMIDIClock(enabled: controls.bits & bit != 0, atOffset: offset)
                } else if bit == CLAPParameter.songOffBit {
                    sequencer.pointee.setSongEnabled(controls.song, atOffset: offset)
                } else if bit == CLAPParameter.patternMask {
                    sequencer.pointee.setPatternControl(Float(controls.pattern), atOffset: offset)
                }
            }
        default:
            break
        }
    }
}
