/// Compares a recorded event log with the log a replay of the same session
/// produces, event by event.
///
/// Events are paired by what they are (note-on or note-off, channel, key) and
/// their order among events of that kind: the k-th note-on of C4 on channel 1
/// recorded is the k-th one replayed. A pair agrees when its frames differ by
/// at most `tolerance`; the order of simultaneous events is not compared (the
/// contract leaves it free). A note-off written `9n kk 00` is a note-off.
public struct LogComparison: Sendable {
    /// A pair that disagrees, or an event with no counterpart.
    public struct Difference: Sendable, CustomStringConvertible {
        public var expected: LoggedEvent?
        public var recorded: LoggedEvent?

        /// The frame it happens at (the earlier of the two).
        public var frame: Int64 { min(expected?.frame ?? Int64.max, recorded?.frame ?? Int64.max) }

        public var description: String {
            let where_ = expected?.position.map { " (\($0.barBeatText))" } ?? ""
            switch (expected, recorded) {
            case let (e?, r?):
                return "frame \(e.frame)\(where_): expected '\(EventLog.line(e))', recorded '\(EventLog.line(r))' (\(r.frame - e.frame) frames off)"
            case let (e?, nil):
                return "frame \(e.frame)\(where_): expected '\(EventLog.line(e))', recorded nothing like it"
            case let (nil, r?):
                return "frame \(r.frame): recorded '\(EventLog.line(r))', expected nothing like it"
            default:
                return "no difference"
            }
        }
    }

    public var pairs = 0
    public var exact = 0
    /// Largest |recorded - expected| over the pairs within tolerance.
    public var largestDeviation: Int64 = 0
    /// Differences beyond tolerance (or unpaired events), in frame order.
    public var differences: [Difference] = []

    public var agrees: Bool { differences.isEmpty }

    public init(expected: [LoggedEvent], recorded: [LoggedEvent], tolerance: Int64 = 0) {
        var expectedByKind: [Kind: [LoggedEvent]] = [:]
        var recordedByKind: [Kind: [LoggedEvent]] = [:]
        for e in expected { expectedByKind[Kind(e), default: []].append(e) }
        for r in recorded { recordedByKind[Kind(r), default: []].append(r) }
        for kind in Set(expectedByKind.keys).union(recordedByKind.keys) {
            let es = expectedByKind[kind] ?? []
            let rs = recordedByKind[kind] ?? []
            for i in 0..<max(es.count, rs.count) {
                let e = i < es.count ? es[i] : nil
                let r = i < rs.count ? rs[i] : nil
                guard let e, let r else {
                    differences.append(Difference(expected: e, recorded: r))
                    continue
                }
                pairs += 1
                let deviation = (r.frame - e.frame).magnitude
                if deviation == 0 { exact += 1 }
                if deviation > tolerance.magnitude {
                    differences.append(Difference(expected: e, recorded: r))
                } else {
                    largestDeviation = max(largestDeviation, Int64(deviation))
                }
            }
        }
        differences.sort { $0.frame < $1.frame }
    }

    /// What an event is, for pairing: note-on or note-off (velocity-0 note-ons are
    /// note-offs), channel and key; other messages by their bytes.
    struct Kind: Hashable {
        var status: UInt8
        var key: UInt8
        var data: [UInt8]

        init(_ e: LoggedEvent) {
            if e.isNoteOff {
                status = 0x80 | (e.bytes[0] & 0x0F)
                key = e.bytes[1]
                data = []
            } else if e.isNoteOn {
                status = e.bytes[0]
                key = e.bytes[1]
                data = [e.bytes[2]]
            } else {
                status = e.bytes.first ?? 0
                key = 0
                data = e.bytes
            }
        }
    }
}
