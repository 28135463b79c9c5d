import TactusEngine
/// Pairs note-offs with note-ons inside one track (docs/midi-files.md, M4):
/// a note-off ends the earliest still-open note of its key and channel
/// (first in, first out, as DAWs pair them), so every note-on stays a note
/// even when notes of one key overlap.
///
/// One FIFO queue per key and channel, kept as a linked list through the
/// track's note indices: O(1) per event, no allocation besides `next`
/// (one entry per note). Off the audio thread.
struct NotePairing {
    /// First and last open note of each (channel, key), -1 when none.
    private var head = [Int32](repeating: -1, count: 16 * 128)
    private var tail = [Int32](repeating: -1, count: 16 * 128)
    /// For each note index: the next open note of its key and channel.
    private var next: [Int32] = []

    mutating func reserve(_ count: Int) { next.reserveCapacity(count) }

    /// Records note `index` (already appended to the track) as open.
    mutating func open(_ index: Int, channel: UInt8, key: UInt8) {
        let slot = Int(channel &- 1) &* 128 &+ Int(key)
        if index < next.count { next[index] = -1 } else { while next.count <= index { next.append(-1) } }
        if tail[slot] >= 0 { next[Int(tail[slot])] = Int32(index) } else { head[slot] = Int32(index) }
        tail[slot] = Int32(index)
    }

    /// The earliest open note of this key and channel, removed from the open ones; nil when none is open.
    mutating func close(channel: UInt8, key: UInt8) -> Int? {
        let slot = Int(channel &- 1) &* 128 &+ Int(key)
        let first = head[slot]
        guard first >= 0 else { return nil }
        head[slot] = next[Int(first)]
        if head[slot] < 0 { tail[slot] = -1 }
        return Int(first)
    }

    /// Ends every still-open note at `tick` (the track's end) and forgets them.
    mutating func closeAll(endingAt tick: Int64, in notes: inout [MIDIFileNote]) {
        for slot in 0..<head.count {
            var i = head[slot]
            while i >= 0 {
                notes[Int(i)].endTick = tick
                i = next[Int(i)]
            }
            head[slot] = -1
            tail[slot] = -1
        }
    }
}
