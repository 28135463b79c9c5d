/// MIDI clock out (timing contract §12): Song Position Pointer, Start or
/// Continue at a start or jump, a Timing Clock every 1/24 quarter note placed
/// by §3's frame rule under the transport's anchor, Stop at a stop.
///
/// The `BlockRenderer` owns it and drives it with its own `TransportClock`, so
/// the clock moves exactly as the notes do: it tells it each transport change
/// (`transportChanged`) after rendering up to the update's frame, and asks it
/// for the clock messages due (`emit`) before each note event and at the end
/// of each rendered stretch, which keeps §12.6's order at one frame: Stop,
/// SPP, Start/Continue, Timing Clock, then the notes.
///
/// Off (`isEnabled` false) it sends nothing and the renderer's output is what
/// it was without it. Value type; every method is O(1) but `emit`, which is
/// bounded by the output's room (once the output is full, the clocks of the
/// stretch are skipped in O(1) and counted); allocation-free, `@_noLocks`,
/// owned by the audio thread.
public struct MIDIClock: Sendable, BitwiseCopyable {
    /// `F8`, 24 a quarter note.
    public static var timingClock: UInt8 { @_noLocks get { 0xF8 } }
    /// `FA`.
    public static var start: UInt8 { @_noLocks get { 0xFA } }
    /// `FB`.
    public static var `continue`: UInt8 { @_noLocks get { 0xFB } }
    /// `FC`.
    public static var stop: UInt8 { @_noLocks get { 0xFC } }
    /// `F2 lsb msb`: sixteenths since the song's start.
    public static var songPositionPointer: UInt8 { @_noLocks get { 0xF2 } }
    /// The last sixteenth a Song Position Pointer can name (14 bits, §12.5).
    public static var lastSixteenth: Int64 { @_noLocks get { 16383 } }
    /// Clocks a sixteenth (24 a quarter note).
    @inlinable static var clocksPerSixteenth: Int64 { 6 }
    /// The first clock out of range: that of sixteenth 16384 (§12.5).
    public static var endClock: Int64 { @_noLocks get { (lastSixteenth &+ 1) &* 6 } }

    /// Whether the clock is sent at all (the plugin's `clock` toggle, `tactus
    /// jack`'s `clock_out`). Off by default.
    public private(set) var isEnabled = false
    /// Start or Continue was sent and no Stop since: Timing Clocks flow.
    public private(set) var isRunning = false
    /// Rolling before beat 0 (§12.5): SPP 0 and Start go out at beat 0's frame.
    public private(set) var isWaitingForBeatZero = false
    /// The index `k` of the next Timing Clock (at quarter note `k/24`).
    public private(set) var nextClock: Int64 = 0
    /// A Stop owed by a deactivation, sent at the first frame rendered next (§12.4).
    public private(set) var owesStop = false
    /// Clock messages that found no room in the output (§12.7).
    public private(set) var droppedMessages: Int64 = 0
    /// The host's beat unit `u` (§12.1): clock `k` lies at beat `k × u / 96`.
    /// The transport's (`TransportClock.beatUnit`, 4 until a host's
    /// `time:beatUnit` is read), taken at every change the clock is told of.
    public private(set) var beatUnit: Int64 = 4

    /// A clock that is off.
    @_noLocks
    public init() {}

    /// The beat of clock `k` (`k >= 0`): `k × u / 96`, its whole beats exact
    /// and its fraction a multiple of 1/96 (exact to a double's rounding).
    @_noLocks @inline(__always)
    public func beat(ofClock k: Int64) -> BeatPosition {
        let n = k &* beatUnit
        let whole = n / 96
        return BeatPosition(whole: whole, fraction: Double(n &- whole &* 96) / 96)
    }

    /// True when the renderer must look at the clock before skipping a quiet stretch.
    public var needsRendering: Bool {
        @inline(__always) @_noLocks get { isRunning || isWaitingForBeatZero || owesStop }
    }

    // MARK: - Changes (the renderer calls these at the frame they act, after rendering up to it)

    /// Turns the clock on or off at absolute `frame` (a block start). On while
    /// the transport rolls, it starts as a start there would (§12.2, no Stop);
    /// off while running, it sends Stop there.
    @_noLocks
    public mutating func setEnabled(_ on: Bool, transport: TransportClock, atFrame frame: Int64, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        guard on != isEnabled else { return }
        if on {
            isEnabled = true
            beatUnit = Int64(transport.beatUnit)
            if transport.isRolling { begin(transport: transport, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs) }
        } else {
            if isRunning { send(MIDIClock.stop, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs) }
            self = MIDIClock()
        }
    }

    /// The transport changed at absolute `frame` (§12.2-§12.4); `transport` is
    /// the clock after the update.
    @_noLocks
    public mutating func transportChanged(_ change: TransportChange, transport: TransportClock, atFrame frame: Int64, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        guard isEnabled else { return }
        // Reading (s): another beat unit puts the same beat on another quarter
        // note; while running that is a jump of the clock (Stop, SPP, Continue).
        let unit = Int64(transport.beatUnit)
        let unitChanged = unit != beatUnit
        beatUnit = unit
        switch change {
        case .ignored, .stoppedUpdate:
            return
        case .repeat, .correction:
            // §12.3: the clocks to come follow the new anchor; none is re-sent.
            if unitChanged && isRunning {
                begin(transport: transport, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
            }
        case .stop:
            if isRunning { send(MIDIClock.stop, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs) }
            isRunning = false
            isWaitingForBeatZero = false
        case .start, .jump:
            begin(transport: transport, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
        }
    }

    /// The transport was forgotten (deactivation, reading (e)): a running
    /// clock owes a Stop at the next frame rendered.
    @_noLocks
    public mutating func activate() {
        if isRunning { owesStop = true }
        isRunning = false
        isWaitingForBeatZero = false
    }

    /// §12.2 at a start or jump to the beat at `frame`: the transport's anchor
    /// beat when the update moved the anchor there, else (a beat unit changed
    /// in a repeat, which keeps the anchor) the beat extrapolated to `frame`.
    @_noLocks
    mutating func begin(transport: TransportClock, atFrame frame: Int64, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        if isRunning { send(MIDIClock.stop, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs) }
        isRunning = false
        isWaitingForBeatZero = false
        let sinceAnchor = frame &- transport.anchorFrame
        let b = sinceAnchor == 0 ? transport.anchorBeat : transport.beat(atFrame: frame)
        if b < BeatPosition.zero {
            isWaitingForBeatZero = true
            return
        }
        // ceil(16 b / u) sixteenths, then §3's tolerance decides the edge exactly.
        let approximate = b.approximateValue * 16 / Double(beatUnit)
        guard approximate < Double(MIDIClock.lastSixteenth) + 2 else { return }
        var n = BeatPosition.floorToInt64(approximate)
        if Double(n) < approximate { n &+= 1 }
        if n > 0 && isAtOrAfter(clock: (n &- 1) &* MIDIClock.clocksPerSixteenth, sinceAnchor: sinceAnchor, transport) { n &-= 1 }
        if !isAtOrAfter(clock: n &* MIDIClock.clocksPerSixteenth, sinceAnchor: sinceAnchor, transport) { n &+= 1 }
        guard n <= MIDIClock.lastSixteenth else { return }
        sendPosition(sixteenth: n, atFrame: frame, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
    }

    /// Whether clock `k` lies at or after the update `sinceAnchor` frames
    /// after the transport's anchor, by §3's test (`x > -1e-4` frames).
    @_noLocks @inline(__always)
    func isAtOrAfter(clock k: Int64, sinceAnchor: Int64, _ transport: TransportClock) -> Bool {
        let x = transport.exactOffset(of: beat(ofClock: k))
        return FrameRule.isAtOrAfterUpdate(exactOffset: sinceAnchor == 0 ? x : x - DoubleDouble(Double(sinceAnchor)))
    }

    /// SPP `n`, then Start (n = 0) or Continue; the clock runs from clock `6n`.
    @_noLocks
    mutating func sendPosition(sixteenth n: Int64, atFrame frame: Int64, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        let offset = frame &- blockStart
        if hasRoom(output, owedNoteOffs: owedNoteOffs, for: 2) {
            _ = output.append(MIDIEvent(offset: offset, status: MIDIClock.songPositionPointer, data1: UInt8(truncatingIfNeeded: n & 0x7f), data2: UInt8(truncatingIfNeeded: n >> 7)))
            _ = output.append(MIDIEvent(offset: offset, status: n == 0 ? MIDIClock.start : MIDIClock.continue, data1: 0, data2: 0))
        } else {
            droppedMessages &+= 2
        }
        isRunning = true
        nextClock = n &* MIDIClock.clocksPerSixteenth
    }

    // MARK: - Emission

    /// Sends every clock message due at absolute frames `<= last` (and not
    /// before `segmentStart`: one whose frame under the anchor in force lies
    /// earlier goes out at `segmentStart`, §12.3). Call it only while the
    /// renderer has nothing staged before `last`.
    @_noLocks
    public mutating func emit(through last: Int64, segmentStart: Int64, transport: TransportClock, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        if owesStop {
            owesStop = false
            send(MIDIClock.stop, atFrame: segmentStart, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
        }
        guard isEnabled, transport.isRolling else { return }
        if isWaitingForBeatZero {
            var f = transport.frame(of: .zero)
            if f > last { return }
            if f < segmentStart { f = segmentStart }
            isWaitingForBeatZero = false
            sendPosition(sixteenth: 0, atFrame: f, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
        }
        guard isRunning else { return }
        // Bounded: each pass sends a message or leaves; a full output skips the rest at once.
        while true {
            var f = transport.frame(of: beat(ofClock: nextClock))
            if f > last { return }
            if f < segmentStart { f = segmentStart }
            if nextClock >= MIDIClock.endClock {
                // §12.5: past sixteenth 16383 the clock stops.
                send(MIDIClock.stop, atFrame: f, blockStart: blockStart, output: &output, owedNoteOffs: owedNoteOffs)
                isRunning = false
                return
            }
            guard hasRoom(output, owedNoteOffs: owedNoteOffs, for: 1) else {
                skipClocks(through: last, transport: transport)
                continue
            }
            _ = output.append(MIDIEvent(offset: f &- blockStart, status: MIDIClock.timingClock, data1: 0, data2: 0))
            nextClock &+= 1
        }
    }

    /// The output is full: every clock due through `last` is dropped and
    /// counted, in O(1) (the first clock after `last` is found from the beat
    /// at `last`, then checked against the frame rule).
    @_noLocks
    mutating func skipClocks(through last: Int64, transport: TransportClock) {
        let beatThere = transport.beat(atFrame: last).approximateValue
        var k = BeatPosition.floorToInt64(beatThere * 96 / Double(beatUnit)) &- 1
        if k < nextClock { k = nextClock }
        // A few steps at most: the estimate is within a clock of the answer.
        var steps = 0
        while k < MIDIClock.endClock && transport.frame(of: beat(ofClock: k)) <= last && steps < 8 {
            k &+= 1
            steps &+= 1
        }
        if k > MIDIClock.endClock { k = MIDIClock.endClock }
        if k == nextClock && k < MIDIClock.endClock { k &+= 1 }  // always progress
        droppedMessages &+= k &- nextClock
        nextClock = k
    }

    @_noLocks @inline(__always)
    func hasRoom(_ output: borrowing MIDIEventBuffer, owedNoteOffs: Int, for count: Int) -> Bool {
        output.count &+ owedNoteOffs &+ count <= output.capacity
    }

    @_noLocks @inline(__always)
    mutating func send(_ status: UInt8, atFrame frame: Int64, blockStart: Int64, output: inout MIDIEventBuffer, owedNoteOffs: Int) {
        if hasRoom(output, owedNoteOffs: owedNoteOffs, for: 1) {
            _ = output.append(MIDIEvent(offset: frame &- blockStart, status: status, data1: 0, data2: 0))
        } else {
            droppedMessages &+= 1
        }
    }
}

extension MIDIEvent {
    /// The message's length in bytes: 1 for System Real Time (`F8`-`FF`) and
    /// Tune Request, 3 for Song Position Pointer, 2 for the other messages of
    /// two bytes, 3 for the rest (notes, controllers). A wrapper writes this
    /// many of `status`, `data1`, `data2`.
    public var byteCount: Int {
        @_noLocks get {
            switch status {
            case 0xF6, 0xF8...0xFF: return 1
            case 0xF1, 0xF3: return 2
            case 0xC0...0xDF: return 2
            default: return 3
            }
        }
    }

    /// A System Real Time or System Common message (MIDI clock, §12), which
    /// `tactus jack` sends on its `clock_out` port.
    public var isSystemMessage: Bool { @_noLocks get { status >= 0xF0 } }
}
