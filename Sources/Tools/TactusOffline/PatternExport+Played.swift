import TactusEngine
import TactusModel

extension PatternExport {
    /// Frames per tick of the render behind an export whose PPQ is not
    /// exact: its events are rendered this much finer, then rounded to the
    /// nearest tick.
    static var framesPerInexactTick: Int { 64 }

    /// A pattern as a Standard MIDI File (docs/midi-files.md, M16-M18): the
    /// events the engine sends playing it from beat 0 for `loops` passes,
    /// as `tactus render` plays it (the chase at the start, controllers only
    /// when they change, ramps as their samples, locks and their restores,
    /// `prob=` notes as the seed decides; timing contract §3-§10), at the
    /// ticks of their beats. A note still sounding at the end of the last
    /// pass keeps its note-off (and its locks' restores) where the loop
    /// playing on would send it. `text`: the pattern's text, when the
    /// pattern is all of it (a version-3 pattern's own program change
    /// then goes out too).
    ///
    /// The render runs at 60 bpm with a beat of `ticksPerQuarter` frames
    /// (times `framesPerInexactTick` when no PPQ is exact), so a frame is
    /// a tick. Off the audio thread; O(frames / 8192 + events).
    public static func export(
        _ pattern: Pattern, text: [UInt8]? = nil, loops: Int = 1, microsecondsPerQuarter: Int = 500_000,
        name: [UInt8] = Array("Tactus pattern".utf8)
    ) -> MIDIExport {
        let loops = max(loops, 1)
        let exact = exactTicksPerQuarter(for: pattern)
        let ppq = exact ?? fallbackTicksPerQuarter
        let framesPerTick = exact == nil ? framesPerInexactTick : 1
        let framesPerBeat = ppq * framesPerTick
        // The last pass's notes end within `overhang` beats after its end.
        let span = pattern.length.approximateValue * Double(loops)
        let script = TransportScript.playing(beats: span + overhang(pattern).rounded(.up) + 1, bpm: 60, sampleRate: framesPerBeat)
        let endTick = loopEndTick(pattern, loops: loops, ticksPerQuarter: ppq)
        let endFrame = endTick * Int64(framesPerTick)
        var played: [LoggedEvent] = []
        let (blockFrames, capacity) = renderBlocks(pattern, framesPerBeat: framesPerBeat)
        var render = OfflineRender(script: script, sampleRate: Double(framesPerBeat), blocks: .fixed(blockFrames))
        render.outputCapacity = capacity
        _ = render.run(
            pattern: pattern, patternText: text, loadPattern: { _ in .failure(PatternLoadError("no edits")) },
            onBlock: { events, _ in played += events })
        let kept = eventsOfPasses(played, endFrame: endFrame, locks: lockedControllers(pattern))
        var events: [MIDIFileEvent] = []
        events.reserveCapacity(kept.count)
        var notes = 0
        for e in kept {
            let tick = framesPerTick == 1 ? e.frame : (e.frame + Int64(framesPerTick / 2)) / Int64(framesPerTick)
            events.append(MIDIFileEvent(tick: tick, bytes: e.bytes))
            if e.bytes.count == 3 && e.bytes[0] & 0xF0 == 0x90 && e.bytes[2] > 0 { notes += 1 }
        }
        let bytes = file(events: events, length: pattern.length, ticksPerQuarter: ppq, endTick: endTick, microsecondsPerQuarter: microsecondsPerQuarter, name: name)
        return MIDIExport(
            bytes: bytes, ticksPerQuarter: ppq, isExact: exact != nil,
            largestErrorBeats: exact == nil ? largestError(pattern, loops: loops, ticksPerQuarter: ppq) : 0, noteCount: notes)
    }

    /// Blocks as long as the events of one block surely fit its output
    /// (nothing dropped, however dense the pattern), and as long as that
    /// allows up to 2^20 frames (a sparse pattern of many beats renders in
    /// few blocks): a block of `B` beats meets at most `B / length + 2`
    /// cycles' events.
    static func renderBlocks(_ pattern: Pattern, framesPerBeat: Int) -> (frames: Int, capacity: Int) {
        let mostLocks = pattern.notes.map(\.locks.count).max() ?? 0
        let perCycle = LaneCycle.cycleNoteCount(pattern) * 2 * (1 + mostLocks) + ControllerCycle.eventCount(pattern) + 4 * pattern.lanes.count + 64
        let capacity = max(1 << 16, 3 * perCycle)
        let cyclesPerBlock = Double(capacity / perCycle - 2)
        let frames = pattern.length.approximateValue * cyclesPerBlock * Double(framesPerBeat)
        return (Int(min(max(frames, 1), Double(1 << 20))), capacity)
    }

    /// The (channel 0-15, controller) pairs the pattern's notes lock.
    static func lockedControllers(_ pattern: Pattern) -> Set<Int> {
        var out: Set<Int> = []
        for note in pattern.notes { for lock in note.locks { out.insert(Int(note.channel &- 1) * 128 + Int(lock.controller)) } }
        return out
    }

    /// The channel messages of the passes, before `endFrame`; after it only
    /// the note-offs of the notes still sounding there, each followed by the
    /// restores of its frame (control changes of a locked controller on its
    /// channel, which the engine sends right after the note-offs, §10.5).
    static func eventsOfPasses(_ played: [LoggedEvent], endFrame: Int64, locks: Set<Int>) -> [LoggedEvent] {
        var kept: [LoggedEvent] = []
        kept.reserveCapacity(played.count)
        var sounding: [Int: Int] = [:]
        var restoring: (frame: Int64, channels: Set<Int>)? = nil
        for e in played where !e.bytes.isEmpty && e.bytes[0] >= 0x80 && e.bytes[0] < 0xF0 {
            let status = e.bytes[0] & 0xF0
            let channel = Int(e.bytes[0] & 0x0F)
            let isNoteOn = status == 0x90 && e.bytes.count == 3 && e.bytes[2] > 0
            let isNoteOff = status == 0x80 || (status == 0x90 && e.bytes.count == 3 && e.bytes[2] == 0)
            let slot = e.bytes.count > 1 ? channel * 128 + Int(e.bytes[1]) : -1
            if e.frame < endFrame {
                kept.append(e)
                if isNoteOn { sounding[slot, default: 0] += 1 }
                if isNoteOff, let n = sounding[slot], n > 0 { sounding[slot] = n - 1 }
                continue
            }
            if isNoteOff, let n = sounding[slot], n > 0 {
                sounding[slot] = n - 1
                kept.append(e)
                if restoring?.frame != e.frame { restoring = (e.frame, []) }
                restoring?.channels.insert(channel)
            } else if status == 0xB0, let r = restoring, r.frame == e.frame, r.channels.contains(channel), locks.contains(channel * 128 + Int(e.bytes[1])) {
                kept.append(e)
            } else if !isNoteOff {
                restoring = nil
            }
        }
        return kept
    }
}
