import TactusEngine
import TactusModel

/// One input a host delivers to the plugin at a frame offset of a block.
public enum ScriptInput: Equatable, Sendable {
    case position(HostPosition)
    case midi([UInt8])
    /// A pattern edit naming a pattern file, sent as its text.
    case pattern(String)
    /// A pattern edit naming a pattern file, sent as its path.
    case patternFile(String)
    /// A `patch:Get` (of one property, or all).
    case get(String?)
    /// `patch:Set` of `urn:tactus:laneMutes` (§7.6).
    case laneMutes(UInt64)
    /// MIDI thru on or off (§7.5): the plugin's `midi_thru` control port, which
    /// it reads at each block start (a host sets it for the block it falls in).
    case thru(Bool)
    /// A request for a pattern by name on a grid (§9.2; `tactus jack`'s `play NAME [WHEN]`).
    case request(String, SwitchGrid?)
    /// The song on or off (§9.5): the plugin's `song` control port, read at each block start.
    case song(Bool)
    /// An open editor's edit to the text of this pattern file (what changed, sent as an editor sends it).
    case editorEdit(String)
}

public struct TimedScriptInput: Equatable, Sendable {
    public var offset: Int
    public var input: ScriptInput
}

/// A host's transport, simulated from a `TransportScript`: it keeps its own
/// timeline (tempo, meter, play/stop, locate, loop range) the way a DAW does,
/// and reports it the way the script says a host reports it (on change or
/// every block; BBT, beat or frame keys; Ardour's tick rounding; Object or
/// Blank).
///
/// Its beats are the host's, computed in doubles from its own anchor; what it
/// sends goes through the wire types hosts use (Float `barBeat`, Long `bar`),
/// so the plugin sees the same rounding it sees from a real host.
public struct HostSimulator: Sendable {
    public let script: TransportScript
    public let sampleRate: Double

    private var nextAction = 0
    private var speed: Double = 0
    private var tempo: Double = 120
    private var beatsPerBar: Double = 4
    /// `time:beatUnit`: 4 until a `meter N U` says otherwise.
    private var beatUnit = 4
    private var anchorFrame: Int64 = 0
    private var anchorBeat: Double = 0
    private var transportAnchor: Int64 = 0
    private var loop: (start: Double, end: Double)?
    /// What the last `on-beat` report said.
    private var lastOnBeatReport: OnBeatSignature?

    public init(script: TransportScript, sampleRate: Double) {
        self.script = script
        self.sampleRate = sampleRate
    }

    var isRolling: Bool { speed > 0 && tempo > 0 }
    var beatsPerFrame: Double { speed * tempo / (60 * sampleRate) }

    /// The host's beat at `frame` (its own extrapolation).
    public func hostBeat(at frame: Int64) -> Double {
        isRolling ? anchorBeat + Double(frame - anchorFrame) * beatsPerFrame : anchorBeat
    }

    func transportFrame(at frame: Int64) -> Int64 {
        isRolling ? transportAnchor &+ HostSimulator.frames((Double(frame - anchorFrame) * speed).rounded()) : transportAnchor
    }

    /// Frames as an integer, saturated far beyond any script (a host's counter never traps).
    static func frames(_ x: Double) -> Int64 {
        guard x == x else { return 0 }
        return Int64(max(-4.0e18, min(4.0e18, x)))
    }

    private mutating func reanchor(at frame: Int64) {
        transportAnchor = transportFrame(at: frame)
        anchorBeat = hostBeat(at: frame)
        anchorFrame = frame
    }

    private mutating func moveTo(beat: Double, at frame: Int64) {
        anchorFrame = frame
        anchorBeat = beat
        transportAnchor = HostSimulator.frames((beat * 60 * sampleRate / tempo).rounded())
    }

    /// The first frame at or after `from` where the host's loop wraps, if any.
    func wrapFrame(from: Int64) -> Int64? {
        guard isRolling, let loop, anchorBeat < loop.end else { return nil }
        let distance = ((loop.end - anchorBeat) / beatsPerFrame).rounded(.up)
        guard distance < 1.0e15 else { return nil }  // never within any script's length
        var w = anchorFrame + Int64(distance)
        while w > anchorFrame, hostBeat(at: w - 1) >= loop.end { w -= 1 }
        while hostBeat(at: w) < loop.end { w += 1 }
        return max(w, from)
    }

    /// The position report for the host's state at `frame`.
    public func position(at frame: Int64) -> HostPosition {
        var fields = FieldList()
        report(at: frame, into: &fields)
        return HostPosition(fields: fields.fields, asBlank: script.asBlank)
    }

    /// `position(at:).update`, built without the list of wire values in between.
    public func positionUpdate(at frame: Int64) -> PositionUpdate {
        var update = PositionUpdate()
        report(at: frame, into: &update)
        return update
    }

    /// Where a report's keys go, in the order the host sends them.
    protocol ReportSink {
        mutating func add(_ key: PositionKey, _ value: WireValue)
    }

    struct FieldList: ReportSink {
        var fields: [(key: PositionKey, value: WireValue)] = []
        mutating func add(_ key: PositionKey, _ value: WireValue) { fields.append((key, value)) }
    }

    /// The one description of what the host reports at `frame`: each key, in
    /// order, with the wire type hosts use (what `position(at:)` lists and
    /// `positionUpdate(at:)` decodes).
    @inline(__always)
    func report<Sink: ReportSink>(at frame: Int64, into sink: inout Sink) {
        let beat = hostBeat(at: frame)
        switch script.keys {
        case .bbt:
            sink.add(.frame, .long(transportFrame(at: frame)))
            sink.add(.speed, .float(Float(speed)))
            var (bar, barBeat) = barAndBarBeat(beat)
            if let ticks = script.barBeatTicks {
                barBeat = (barBeat * Double(ticks)).rounded() / Double(ticks)
                if barBeat >= beatsPerBar { bar += 1; barBeat -= beatsPerBar }
            }
            sink.add(.bar, .long(Int64(bar)))
            sink.add(.barBeat, .float(Float(barBeat)))
            sink.add(.beatUnit, .int(Int32(beatUnit)))
            sink.add(.beatsPerBar, .float(Float(beatsPerBar)))
            sink.add(.beatsPerMinute, .float(Float(tempo)))
        case .beat:
            sink.add(.frame, .long(transportFrame(at: frame)))
            sink.add(.speed, .float(Float(speed)))
            sink.add(.beat, .double(beat))
            sink.add(.beatsPerMinute, .float(Float(tempo)))
        case .frame:
            sink.add(.frame, .long(transportFrame(at: frame)))
            sink.add(.speed, .float(Float(speed)))
        case .qtractor:
            let whole = HostSimulator.qtractorWholeBeat(beat)
            let bar = max(-4.0e18, min(4.0e18, (whole / beatsPerBar).rounded(.down)))
            // Qtractor forges its frame from a 32-bit float (qtractorLv2Plugin::updateTime):
            // exact up to 2^24 frames, every other frame beyond.
            sink.add(.frame, .long(Int64(Float(transportFrame(at: frame)))))
            sink.add(.speed, .float(Float(speed)))
            sink.add(.bar, .long(Int64(bar)))
            sink.add(.beat, .double(whole - bar * beatsPerBar + 1))
            sink.add(.barBeat, .float(Float(bar * beatsPerBar)))
            sink.add(.beatUnit, .int(Int32(beatUnit)))
            sink.add(.beatsPerBar, .float(Float(beatsPerBar)))
            sink.add(.beatsPerMinute, .float(Float(tempo)))
        case .muse:
            sink.add(.frame, .long(transportFrame(at: frame)))
            sink.add(.speed, .float(Float(speed)))
            // MusE's lv2host.cpp: its tick count at `division` a beat, cut down, split
            // into bar, beat of the bar and tick of the beat; `beat` is
            // double(bar × z + beat) + double(tick) / double(division), `barBeat`
            // float(beat) + float(tick) / float(division).
            let division = Double(script.floorTicks)
            let ticks = max(-4.0e18, min(4.0e18, (beat * division).rounded(.down)))
            let wholeBeats = (ticks / division).rounded(.down)
            let tickOfBeat = ticks - wholeBeats * division
            let bar = (wholeBeats / beatsPerBar).rounded(.down)
            sink.add(.beatsPerMinute, .float(Float(tempo)))
            sink.add(.beatsPerBar, .float(Float(beatsPerBar)))
            sink.add(.beat, .double(wholeBeats + tickOfBeat / division))
            sink.add(.bar, .long(Int64(bar)))
            sink.add(.barBeat, .float(Float(wholeBeats - bar * beatsPerBar) + Float(tickOfBeat) / Float(division)))
            sink.add(.beatUnit, .int(Int32(beatUnit)))
        case .all:
            // Element's order (its LV2 node): the bar, the beat within it and the running beat.
            let (bar, barBeat) = barAndBarBeat(beat)
            sink.add(.bar, .long(Int64(bar)))
            sink.add(.barBeat, .float(Float(barBeat)))
            sink.add(.beat, .double(beat))
            sink.add(.beatUnit, .int(Int32(beatUnit)))
            sink.add(.beatsPerBar, .float(Float(beatsPerBar)))
            sink.add(.beatsPerMinute, .float(Float(tempo)))
            sink.add(.frame, .long(transportFrame(at: frame)))
            sink.add(.speed, .float(Float(speed)))
        }
    }

    /// The bar a beat lies in, from 0, and the beat within it (`keys bbt` and `keys all` alike).
    @inline(__always)
    func barAndBarBeat(_ beat: Double) -> (bar: Double, barBeat: Double) {
        let bar = max(-4.0e18, min(4.0e18, (beat / beatsPerBar).rounded(.down)))
        return (bar, beat - bar * beatsPerBar)
    }

    /// Qtractor's whole beat: its tick count at 960 a beat, rounded to the
    /// nearest tick (qtractorTimeScale::Node::tickFromFrame), then cut to a beat.
    static func qtractorWholeBeat(_ beat: Double) -> Double {
        (max(-4.0e18, min(4.0e18, (beat * 960).rounded())) / 960).rounded(.down)
    }

    /// What an `on-beat` host compares to decide whether to report: speed, whole beat, meter, tempo.
    struct OnBeatSignature: Equatable {
        var speed, wholeBeat, beatsPerBar, tempo: Double
        var beatUnit: Int
    }

    private func onBeatSignature(at frame: Int64) -> OnBeatSignature {
        OnBeatSignature(
            speed: speed, wholeBeat: HostSimulator.qtractorWholeBeat(hostBeat(at: frame)), beatsPerBar: beatsPerBar, tempo: tempo, beatUnit: beatUnit)
    }

    /// An `on-beat` host's look at its transport at the start of a block of
    /// `frameCount` frames: whether it reports (and remembers what it said).
    private mutating func onBeatReportDue(at start: Int64, frameCount: Int) -> Bool {
        guard frameCount > 0 else { return false }
        let signature = onBeatSignature(at: start)
        guard signature != lastOnBeatReport else { return false }
        lastOnBeatReport = signature
        return true
    }

    /// Everything the host delivers in the block `[start, start + frameCount)`,
    /// in delivery order. Blocks must be asked for in order, without gaps.
    public mutating func inputs(blockStart start: Int64, frameCount: Int) -> [TimedScriptInput] {
        let end = start + Int64(frameCount)
        var out: [TimedScriptInput] = []
        var sentAtStart = false
        // An every-block report describes the transport as the block begins,
        // before anything the block's own actions change. Only such a host
        // needs it, and building it costs more than the rest of a quiet block.
        let positionAtStart = script.sendPolicy == .everyBlock ? position(at: start) : nil
        // An on-beat host (Qtractor) looks at its transport once a block, at its start,
        // after what happens at that frame and before anything later in the block.
        let onBeat = script.sendPolicy == .onBeat
        var onBeatChecked = !onBeat
        func checkOnBeat(into out: inout [TimedScriptInput]) {
            onBeatChecked = true
            guard onBeatReportDue(at: start, frameCount: frameCount) else { return }
            out.insert(TimedScriptInput(offset: 0, input: .position(position(at: start))), at: 0)
        }
        var cursor = start
        while true {
            let actionFrame = nextAction < script.actions.count ? script.actions[nextAction].frame : Int64.max
            let wrap = wrapFrame(from: cursor) ?? Int64.max
            let frame = min(actionFrame, wrap)
            if !onBeatChecked && frame > start { checkOnBeat(into: &out) }
            guard frame < end else { break }
            var frameInputs: [ScriptInput] = []
            var updateIndex: Int?
            if wrap == frame, let loop {
                moveTo(beat: loop.start, at: frame)
                updateIndex = 0
            }
            while nextAction < script.actions.count, script.actions[nextAction].frame == frame {
                let action = script.actions[nextAction].action
                nextAction += 1
                switch action {
                case .tempo(let t): reanchor(at: frame); tempo = t
                case .meter(let m, let unit): reanchor(at: frame); beatsPerBar = m; beatUnit = unit ?? beatUnit
                case .speed(let s): reanchor(at: frame); speed = s
                case .locate(let b): moveTo(beat: b, at: frame)
                case .loop(let a, let b): reanchor(at: frame); loop = (a, b)
                case .loopOff: reanchor(at: frame); loop = nil
                case .midi(let bytes): frameInputs.append(.midi(bytes))
                case .position(let p): frameInputs.append(.position(p))
                case .pattern(let path): frameInputs.append(.pattern(path))
                case .patternFile(let path): frameInputs.append(.patternFile(path))
                case .get(let property): frameInputs.append(.get(property))
                case .laneMutes(let bits): frameInputs.append(.laneMutes(bits))
                case .thru(let on): frameInputs.append(.thru(on))
                case .request(let name, let grid): frameInputs.append(.request(name, grid))
                case .song(let on): frameInputs.append(.song(on))
                case .editorEdit(let path): frameInputs.append(.editorEdit(path))
                }
                if action.changesTransport { updateIndex = frameInputs.count }
            }
            if let i = updateIndex, !onBeat {
                frameInputs.insert(.position(position(at: frame)), at: i)
                if frame == start { sentAtStart = true }
            }
            if frame == start, let positionAtStart, !sentAtStart {
                frameInputs.insert(.position(positionAtStart), at: 0)
                sentAtStart = true
            }
            out += frameInputs.map { TimedScriptInput(offset: Int(frame - start), input: $0) }
            cursor = frame + 1
        }
        if !onBeatChecked { checkOnBeat(into: &out) }
        if let positionAtStart, !sentAtStart && frameCount > 0 {
            out.insert(TimedScriptInput(offset: 0, input: .position(positionAtStart)), at: 0)
        }
        return out
    }
}

extension HostSimulator {
    /// What a block in which the script does nothing brings.
    public enum QuietBlock: Equatable, Sendable {
        case nothing
        /// One report at the block's first frame, as the core receives it (`HostPosition.update`).
        case report(PositionUpdate)
    }

    /// What `inputs(blockStart:frameCount:)` would deliver, when the block is
    /// one in which the script does nothing and the loop does not wrap (nearly
    /// every block of a session): nothing, or the one report its start brings,
    /// built straight into a `PositionUpdate`, without allocating. Nil for any
    /// other block, which is then to be asked of `inputs`. Blocks must be asked
    /// for in order, without gaps, of either method.
    public mutating func quietBlock(blockStart start: Int64, frameCount: Int) -> QuietBlock? {
        let end = start &+ Int64(frameCount)
        if nextAction < script.actions.count, script.actions[nextAction].frame < end { return nil }
        if let wrap = wrapFrame(from: start), wrap < end { return nil }
        switch script.sendPolicy {
        case .everyBlock:
            return frameCount > 0 ? .report(positionUpdate(at: start)) : .nothing
        case .onBeat:
            return onBeatReportDue(at: start, frameCount: frameCount) ? .report(positionUpdate(at: start)) : .nothing
        case .onChange:
            return .nothing
        }
    }
}

extension PositionUpdate: HostSimulator.ReportSink {
    mutating func add(_ key: PositionKey, _ value: WireValue) { set(key, value) }
}
