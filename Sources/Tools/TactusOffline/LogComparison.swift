/// Compares a recorded event log with the log a replay of the same session
/// produces, event by event.
///
/// Every byte counts, with one equivalence the contract allows: a note-off
/// written `9n kk 00` is the note-off `8n kk 00`. The order of events on one
/// frame is not compared (the contract leaves two note-offs on a frame in any
/// order).
///
/// Each expected event is matched, in frame order, with the earliest recorded
/// event of the same bytes that is not yet matched and lies within `tolerance`
/// frames of it. What is left unmatched on either side is a difference. To show
/// a person what went wrong where, each unmatched expected event is reported
/// beside what was recorded in its place: an unmatched recorded event within
/// tolerance of its frame (of the same channel and key if there is one), else
/// the nearest unmatched recorded event of the same channel and key. So a
/// changed velocity reads `expected '1332992 90 3c 64', recorded '1332992 90 3c 65'`
/// rather than as a chain of notes shifted by a loop.
///
/// Complexity: O(n log n) in the number of events, plus the scan of the
/// unmatched ones.
public struct LogComparison: Sendable {
    /// An expected event with what was recorded in its place, or a recorded
    /// event that nothing expected.
    public struct Difference: Sendable, CustomStringConvertible {
        public var expected: LoggedEvent?
        public var recorded: LoggedEvent?
        /// The musical position of the frame, from the replay (for display).
        public var position: MusicalPosition?

        /// The frame it happens at (the earlier of the two).
        public var frame: Int64 { min(expected?.frame ?? Int64.max, recorded?.frame ?? Int64.max) }

        public var description: String {
            let where_ = position.map { " (\($0.barBeatText))" } ?? ""
            switch (expected, recorded) {
            case let (e?, r?):
                let off = r.frame == e.frame ? "" : " (\(r.frame - e.frame) frame\(abs(r.frame - e.frame) == 1 ? "" : "s") off)"
                return "frame \(frame)\(where_): expected '\(EventLog.line(e))', recorded '\(EventLog.line(r))'\(off)"
            case let (e?, nil):
                return "frame \(e.frame)\(where_): expected '\(EventLog.line(e))', recorded nothing in its place"
            case let (nil, r?):
                return "frame \(r.frame)\(where_): recorded '\(EventLog.line(r))', expected nothing like it"
            default:
                return "no difference"
            }
        }
    }

    /// Events matched with a counterpart within tolerance.
    public var pairs = 0
    /// Matched events at exactly the same frame.
    public var exact = 0
    /// Largest |recorded - expected| over the matched events.
    public var largestDeviation: Int64 = 0
    /// The differences, in frame order.
    public var differences: [Difference] = []
    /// Events on either side without a counterpart (a changed byte counts twice).
    public var unmatched = 0

    public var agrees: Bool { differences.isEmpty }

    public init(expected: [LoggedEvent], recorded: [LoggedEvent], tolerance: Int64 = 0) {
        let tolerance = tolerance.magnitude > UInt64(Int64.max / 4) ? Int64.max / 4 : Int64(tolerance.magnitude)
        let expectedInOrder = Self.inFrameOrder(expected)
        let recordedInOrder = Self.inFrameOrder(recorded)

        // Recorded events by bytes, each list in frame order, consumed from its front.
        var waiting: [[UInt8]: (events: [Int], next: Int)] = [:]
        for (i, r) in recordedInOrder.enumerated() { waiting[Self.canonical(r.bytes), default: ([], 0)].events.append(i) }
        var recordedMatched = [Bool](repeating: false, count: recordedInOrder.count)
        var expectedUnmatched: [Int] = []
        for (i, e) in expectedInOrder.enumerated() {
            let key = Self.canonical(e.bytes)
            guard var queue = waiting[key] else {
                expectedUnmatched.append(i)
                continue
            }
            // Recorded events too early for this one are too early for every later one.
            while queue.next < queue.events.count, recordedInOrder[queue.events[queue.next]].frame < e.frame - tolerance {
                queue.next += 1
            }
            if queue.next < queue.events.count, recordedInOrder[queue.events[queue.next]].frame <= e.frame + tolerance {
                let r = recordedInOrder[queue.events[queue.next]]
                recordedMatched[queue.events[queue.next]] = true
                queue.next += 1
                pairs += 1
                let deviation = (r.frame - e.frame).magnitude
                if deviation == 0 { exact += 1 }
                largestDeviation = max(largestDeviation, Int64(deviation))
            } else {
                expectedUnmatched.append(i)
            }
            waiting[key] = queue
        }

        let recordedUnmatched = recordedInOrder.indices.filter { !recordedMatched[$0] }
        unmatched = expectedUnmatched.count + recordedUnmatched.count
        guard unmatched > 0 else { return }

        // Put beside each missing event what was recorded in its place.
        let leftFrames = recordedUnmatched.map { recordedInOrder[$0].frame }
        var used = [Bool](repeating: false, count: recordedUnmatched.count)
        var bySlot: [Int: [Int]] = [:]  // positions in recordedUnmatched, by channel and key
        for (k, i) in recordedUnmatched.enumerated() where recordedInOrder[i].bytes.count == 3 {
            bySlot[recordedInOrder[i].slot, default: []].append(k)
        }
        for i in expectedUnmatched {
            let e = expectedInOrder[i]
            var chosen: Int? = nil
            // Within tolerance of its frame: the same channel and key first, else anything.
            var k = Self.firstIndex(in: leftFrames, atOrAfter: e.frame - tolerance)
            while k < leftFrames.count, leftFrames[k] <= e.frame + tolerance {
                if !used[k] {
                    let r = recordedInOrder[recordedUnmatched[k]]
                    if r.bytes.count == 3, e.bytes.count == 3, r.slot == e.slot { chosen = k; break }
                    if chosen == nil { chosen = k }
                }
                k += 1
            }
            // Else the nearest of the same channel and key, anywhere.
            if chosen == nil, e.bytes.count == 3, let candidates = bySlot[e.slot] {
                for c in candidates where !used[c] {
                    if chosen == nil || (leftFrames[c] - e.frame).magnitude < (leftFrames[chosen!] - e.frame).magnitude { chosen = c }
                }
            }
            if let c = chosen { used[c] = true }
            differences.append(
                Difference(expected: e, recorded: chosen.map { recordedInOrder[recordedUnmatched[$0]] }, position: e.position))
        }
        let expectedFrames = expectedInOrder.map(\.frame)
        for (k, i) in recordedUnmatched.enumerated() where !used[k] {
            let r = recordedInOrder[i]
            // The bar:beat of a frame the replay also played at, when there is one.
            let j = Self.firstIndex(in: expectedFrames, atOrAfter: r.frame)
            let position = j < expectedInOrder.count && expectedInOrder[j].frame == r.frame ? expectedInOrder[j].position : nil
            differences.append(Difference(expected: nil, recorded: r, position: position))
        }
        differences.sort { $0.frame < $1.frame }
    }

    /// The bytes with a velocity-0 note-on written as the note-off it is.
    static func canonical(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.count == 3, bytes[0] & 0xF0 == 0x90, bytes[2] == 0 { return [0x80 | (bytes[0] & 0x0F), bytes[1], 0] }
        return bytes
    }

    /// Stable sort by frame: the logs are written in frame order already, except
    /// when a producer interleaves ports.
    static func inFrameOrder(_ events: [LoggedEvent]) -> [LoggedEvent] {
        events.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }.map(\.element)
    }

    static func firstIndex(in frames: [Int64], atOrAfter frame: Int64) -> Int {
        var lo = 0
        var hi = frames.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if frames[mid] < frame { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
