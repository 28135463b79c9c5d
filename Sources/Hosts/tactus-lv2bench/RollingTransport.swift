import LV2Atoms
import LV2HostKit
import TactusOffline

/// The transport every benchmarked plugin is fed: rolling from frame 0 at a
/// fixed tempo in 4/4, never stopping, never relocating.
///
/// It is reported the way jalv and Ardour report theirs: a `time:Position`
/// object with `frame` (Long), `speed`, `bar` (Long), `barBeat`, `beatUnit`
/// (Int), `beatsPerBar` and `beatsPerMinute` (Floats), and the same values on
/// the control ports a plugin designates for them (`lv2:designation time:…`),
/// which hosts update every block. With `allKeys`, the object also holds
/// `beat` (Double, the running beat), as Element and JUCE hosts send it.
struct RollingTransport {
    let sampleRate: Double
    let tempo: Double
    let beatsPerBar: Double = 4
    var allKeys = false

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
    func value(of key: PositionKey, atFrame frame: Int64) -> Double {
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
    func positionBody(atFrame frame: Int64, uris: URIDTable) -> [UInt8] {
        func long(_ key: PositionKey) -> AtomProperty {
            AtomProperty(key: uris.time(key.rawValue)!, type: uris.atomLong, body: AtomBody.long(Int64(value(of: key, atFrame: frame))))
        }
        func float(_ key: PositionKey) -> AtomProperty {
            AtomProperty(key: uris.time(key.rawValue)!, type: uris.atomFloat, body: AtomBody.float(Float(value(of: key, atFrame: frame))))
        }
        let beatUnit = AtomProperty(key: uris.time(PositionKey.beatUnit.rawValue)!, type: uris.atomInt, body: AtomBody.int(Int32(value(of: .beatUnit, atFrame: frame))))
        let beat = AtomProperty(key: uris.time(PositionKey.beat.rawValue)!, type: uris.atomDouble, body: AtomBody.double(value(of: .beat, atFrame: frame)))
        return AtomBody.object(otype: uris.timePosition, properties: [
            long(.frame), float(.speed), long(.bar), float(.barBeat)] + (allKeys ? [beat] : []) + [beatUnit, float(.beatsPerBar), float(.beatsPerMinute),
        ])
    }
}
