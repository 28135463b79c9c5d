import CJack
import TactusOffline

/// A JACK timebase master that plays a transport script: tempo and meter
/// changes, play, stop and locate at given frames (counted from the master's
/// first cycle), and the bar/beat/tick of every cycle.
///
/// Its timeline is the one `HostSimulator` keeps: an anchor (transport frame,
/// beat, tempo), re-anchored at each tempo change so that beats stay
/// continuous; a locate to beat B puts the transport at frame B·60R/tempo.
/// Tempo and meter changes are applied in the timebase callback for the
/// frame being computed, so BBT never jumps at a tempo change. JACK applies
/// transport requests at cycle boundaries, so an action at frame F takes
/// effect at the first cycle starting at or after F.
public final class TimebaseMaster {
    public let jack: JackClient
    let script: TransportScript
    let ticksPerBeat: Double
    private var next = 0
    /// Frames since the first cycle.
    public private(set) var elapsed: Int64 = 0
    private var tempo: Double = 120
    private var beatsPerBar: Double = 4
    /// `beat_type`: 4 until a `meter N U` says otherwise.
    private var beatType: Double = 4
    private var anchorFrame: Double = 0
    private var anchorBeat: Double = 0
    private var pendingTempo: Double?
    private var pendingMeter: (beatsPerBar: Double, unit: Int?)?
    private var pendingLocate: (frame: Double, beat: Double)?
    public private(set) var finished = false
    public private(set) var unsupported: [String] = []

    public init(jack: JackClient, script: TransportScript, ticksPerBeat: Double = 1920) {
        self.jack = jack
        self.script = script
        self.ticksPerBeat = ticksPerBeat
        for a in script.actions {
            switch a.action {
            case .speed(let s) where s != 0 && s != 1: unsupported.append("line \(a.line): JACK transport has no speed \(s)")
            case .loop, .loopOff: unsupported.append("line \(a.line): JACK transport has no loop range")
            default: break
            }
        }
    }

    /// Activates the client. With `publishBBT` false it only starts, stops and
    /// locates the transport and publishes no bar/beat/tick (a transport with no
    /// timebase master), so tempo and meter actions have no effect.
    public func start(publishBBT: Bool = true) -> Bool {
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_transport_stop(jack.client)
        jack_transport_locate(jack.client, 0)
        guard jack_set_process_callback(jack.client, { n, arg in
            Unmanaged<TimebaseMaster>.fromOpaque(arg!).takeUnretainedValue().process(n)
            return 0
        }, me) == 0 else { return false }
        if publishBBT {
            guard jack_set_timebase_callback(jack.client, 0, { state, n, pos, newPosition, arg in
                Unmanaged<TimebaseMaster>.fromOpaque(arg!).takeUnretainedValue().timebase(pos!)
            }, me) == 0 else { return false }
        }
        return jack.activate()
    }

    /// The beat at a transport frame.
    func beat(atFrame frame: Double) -> Double {
        anchorBeat + (frame - anchorFrame) * tempo / (60 * jack.sampleRate)
    }

    private func process(_ frameCount: jack_nframes_t) {
        while next < script.actions.count, script.actions[next].frame <= elapsed {
            let action = script.actions[next].action
            next += 1
            switch action {
            case .tempo(let t): pendingTempo = t
            case .meter(let m, let unit): pendingMeter = (m, unit)
            case .speed(let s): if s > 0 { jack_transport_start(jack.client) } else { jack_transport_stop(jack.client) }
            case .locate(let b):
                // The new anchor applies once JACK has moved (the timebase callback
                // sees the located frame): until then BBT stays on the old line.
                let t = pendingTempo ?? tempo
                let frame = max(0, (b * 60 * jack.sampleRate / t).rounded())
                pendingLocate = (frame, b)
                jack_transport_locate(jack.client, jack_nframes_t(frame))
            default: break
            }
        }
        elapsed += Int64(frameCount)
        if elapsed >= script.endFrame { finished = true }
    }

    private func timebase(_ pos: UnsafeMutablePointer<jack_position_t>) {
        let frame = Double(pos.pointee.frame)
        if let target = pendingLocate, target.frame == frame {
            if let t = pendingTempo { tempo = t; pendingTempo = nil }
            anchorFrame = target.frame
            anchorBeat = target.beat
            pendingLocate = nil
        }
        if let t = pendingTempo {
            anchorBeat = beat(atFrame: frame)
            anchorFrame = frame
            tempo = t
            pendingTempo = nil
        }
        if let m = pendingMeter {
            beatsPerBar = m.beatsPerBar
            if let u = m.unit { beatType = Double(u) }
            pendingMeter = nil
        }
        pos.pointee.setBBT(beats: beat(atFrame: frame), beatsPerBar: beatsPerBar, beatType: beatType, ticksPerBeat: ticksPerBeat, beatsPerMinute: tempo)
    }

    public func stop() {
        jack_release_timebase(jack.client)
        jack.deactivate()
    }
}
