import TactusEngine
import TactusInProcessHost
import TactusModel

/// Checks the MIDI a plugin writes, block after block, against what the
/// timing contract requires of any output (§5, readings (e)-(g)):
///
/// - frame offsets inside the block and non-decreasing; well-formed 3-byte
///   note messages; at one frame, note-offs before note-ons;
/// - a note-off only for a sounding (channel, key), a note-on only for a
///   silent one: every note-on is later matched by exactly one note-off;
/// - a stop, an all-notes-off or a deactivation ends every note sounding
///   when it acts, at that frame; after a stop no note-on comes until a
///   position that may restart the transport.
///
/// When a block's output was full, the note-offs that did not fit may come
/// later (reading (g)): they are then owed, and `owed` must be empty once the
/// host gives room again and stops the transport.
struct NoteChecker {
    private var sounding = [Bool](repeating: false, count: 2048)
    private(set) var soundingCount = 0
    /// Notes a cut ended whose note-offs a full block could not hold.
    private(set) var owed = Set<Int>()
    /// After a stop (or before any position), until a position that may restart.
    private(set) var stopped = true
    /// The last frame at which a report set the transport rolling: a start and a
    /// stop at one frame (in that order) leave the start's chase and program
    /// change (§9.4, §10.4), sent at that frame, standing.
    private var rolledAt: Int64 = -1
    /// A cut at an absolute frame, and the notes it ended whose note-offs have not come yet.
    private var pendingCut: (frame: Int64, slots: Set<Int>)? = nil

    var soundingSlots: [Int] { (0..<2048).filter { sounding[$0] } }

    /// One input acting at absolute frame `frame` (block order), in a block whose output was `full` or not.
    mutating func input(_ kind: DeliveredInput.Kind, at frame: Int64, full: Bool, violations: inout Violations) {
        switch kind {
        case .stop:
            cut(at: frame, full: full, violations: &violations)
            stopped = true
        case .allNotesOff:
            cut(at: frame, full: full, violations: &violations)
        case .position:
            stopped = false
            rolledAt = frame
        default:
            break
        }
    }

    /// The host deactivated the plugin before the block starting at `frame`.
    mutating func deactivated(at frame: Int64, violations: inout Violations) {
        // Between blocks: a cut still pending is at this very frame (a block ended on it), never before.
        cut(at: frame, full: false, violations: &violations)
        stopped = true
    }

    private mutating func cut(at frame: Int64, full: Bool, violations: inout Violations) {
        resolveCut(before: frame, full: full, violations: &violations)
        let slots = Set(soundingSlots.filter { !owed.contains($0) })
        if let p = pendingCut, p.frame == frame {
            pendingCut = (frame, p.slots.union(slots))
        } else {
            pendingCut = (frame, slots)
        }
    }

    /// The notes a cut at a frame before `frame` ended must be silent by now.
    private mutating func resolveCut(before frame: Int64, full: Bool, violations: inout Violations) {
        guard let p = pendingCut, p.frame < frame else { return }
        pendingCut = nil
        let late = p.slots.sorted()
        if late.isEmpty { return }
        if full {
            owed.formUnion(late)
        } else {
            violations.add("notes \(late.map(NoteChecker.name)) still sound after the stop or cut at frame \(p.frame)")
        }
    }

    /// One block's MIDI output. `start` is its absolute first frame, `full`
    /// whether the block used all the room the host offered, `inputs` the
    /// events the block delivered at their effective absolute frames.
    mutating func block(
        start: Int64, frames: Int, output: [OutputSequence.Event], midiType: UInt32, full: Bool,
        inputs: [(frame: Int64, kind: DeliveredInput.Kind)], violations: inout Violations
    ) {
        var pending = inputs[...]
        var lastOffset: Int64 = -1
        var onAtOffset = false
        for e in output {
            let offset = e.frames
            let frame = start + offset
            while let i = pending.first, i.frame <= frame {
                pending = pending.dropFirst()
                input(i.kind, at: i.frame, full: full, violations: &violations)
            }
            resolveCut(before: frame, full: full, violations: &violations)
            guard offset >= 0, offset < Int64(frames) else {
                violations.add("an event at offset \(offset) in a block of \(frames) frames")
                continue
            }
            if offset < lastOffset { violations.add("offset \(offset) after offset \(lastOffset)") }
            if offset != lastOffset { onAtOffset = false }
            lastOffset = offset
            // Contract §10: the lanes' controllers, never while stopped. A pattern's
            // bank select and program change (§9.4) may be: a request made while
            // stopped at its boundary switches at once (§9.3).
            if e.type == midiType, let status = e.body.first, [0xB0, 0xC0, 0xD0, 0xE0].contains(status & 0xF0) {
                let size = status & 0xF0 == 0xC0 || status & 0xF0 == 0xD0 ? 2 : 3
                // (A CLAP MIDI event always carries three data bytes.)
                if e.body.count < size || e.body.count > 3 || e.body.dropFirst().contains(where: { $0 >= 128 }) { violations.add("a malformed controller message: \(e.body)") }
                let patternProgram = status & 0xF0 == 0xC0 || (status & 0xF0 == 0xB0 && e.body.count > 1 && (e.body[1] == 0 || e.body[1] == 32))
                if stopped && rolledAt != frame && !patternProgram { violations.add("a controller message \(e.body) at \(frame) while the transport is stopped") }
                continue
            }
            guard e.type == midiType, e.body.count == 3, e.body[1] < 128, e.body[2] < 128 else {
                violations.add("not a 3-byte note message: type \(e.type), \(e.body)")
                continue
            }
            let slot = Int(e.body[0] & 0x0F) * 128 + Int(e.body[1])
            switch e.body[0] & 0xF0 {
            case 0x90 where e.body[2] > 0:
                if sounding[slot] { violations.add("note-on of \(NoteChecker.name(slot)) at \(frame) while it sounds") }
                if stopped { violations.add("note-on of \(NoteChecker.name(slot)) at \(frame) while the transport is stopped") }
                if owed.contains(slot) { violations.add("note-on of \(NoteChecker.name(slot)) at \(frame) before its owed note-off") }
                sounding[slot] = true
                soundingCount += 1
                onAtOffset = true
            case 0x80, 0x90:
                if !sounding[slot] { violations.add("note-off of silent \(NoteChecker.name(slot)) at \(frame)") }
                if onAtOffset { violations.add("note-off of \(NoteChecker.name(slot)) after a note-on at frame \(frame)") }
                if sounding[slot] { soundingCount -= 1 }
                sounding[slot] = false
                owed.remove(slot)
                pendingCut?.slots.remove(slot)
            default:
                violations.add("a message that is not a note: \(e.body)")
            }
        }
        let end = start + Int64(frames)
        while let i = pending.first {
            pending = pending.dropFirst()
            input(i.kind, at: i.frame, full: full, violations: &violations)
        }
        resolveCut(before: end, full: full, violations: &violations)
    }

    static func name(_ slot: Int) -> String { "channel \(slot / 128 + 1) key \(slot % 128)" }
}
