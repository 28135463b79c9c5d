/// The transport every benchmarked plugin is fed: rolling from frame 0 at a
/// fixed tempo in 4/4, never stopping, never relocating.
///
/// It is reported the way jalv and Ardour report theirs: a `time:Position`
/// object with `frame` (Long), `speed`, `bar` (Long), `barBeat`, `beatUnit`
/// (Int), `beatsPerBar` and `beatsPerMinute` (Floats), and the same values on
/// the control ports a plugin designates for them (`lv2:designation time:…`),
/// which hosts update every block.
struct RollingTransport {
    let sampleRate: Double
    let tempo: Double
    let beatsPerBar: Double = 4

    /// When a plugin is sent the position.
    enum SendPolicy: String, CaseIterable {
        /// Once, where the transport starts (jalv, Ardour: on every change, and nothing changes).
        case onChange = "on-change"
        /// At the start of every block (Carla).
        case everyBlock = "every-block"
    }

    func beat(atFrame frame: Int64) -> Double {
        Double(frame) * tempo / (60 * sampleRate)
    }

    /// The value of a `time:` key at `frame`, for an object property or a designated control port.
    func value(of key: TimeKey, atFrame frame: Int64) -> Double {
        let beat = beat(atFrame: frame)
        let bar = (beat / beatsPerBar).rounded(.down)
        switch key {
        case .frame: return Double(frame)
        case .speed: return 1
        case .bar: return bar
        case .barBeat: return beat - bar * beatsPerBar
        case .beat: return beat
        case .beatUnit: return 4
        case .beatsPerBar: return beatsPerBar
        case .beatsPerMinute: return tempo
        }
    }

    /// The `time:Position` object body at `frame`.
    func positionBody(atFrame frame: Int64, uris: HostURIDs) -> [UInt8] {
        var body = AtomObjectBody(objectType: uris.timePosition)
        body.add(key: uris.time(.frame), int64Type: uris.atomLong, Int64(value(of: .frame, atFrame: frame)))
        body.add(key: uris.time(.speed), floatType: uris.atomFloat, Float(value(of: .speed, atFrame: frame)))
        body.add(key: uris.time(.bar), int64Type: uris.atomLong, Int64(value(of: .bar, atFrame: frame)))
        body.add(key: uris.time(.barBeat), floatType: uris.atomFloat, Float(value(of: .barBeat, atFrame: frame)))
        body.add(key: uris.time(.beatUnit), int32Type: uris.atomInt, Int32(value(of: .beatUnit, atFrame: frame)))
        body.add(key: uris.time(.beatsPerBar), floatType: uris.atomFloat, Float(value(of: .beatsPerBar, atFrame: frame)))
        body.add(key: uris.time(.beatsPerMinute), floatType: uris.atomFloat, Float(value(of: .beatsPerMinute, atFrame: frame)))
        return body.bytes
    }
}

/// The keys of `time:Position` a host fills in.
enum TimeKey: String, CaseIterable {
    case frame, speed, bar, barBeat, beat, beatUnit, beatsPerBar, beatsPerMinute

    var uri: String { "http://lv2plug.in/ns/ext/time#" + rawValue }
}
