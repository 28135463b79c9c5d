/// One controller event of a pattern's cycle as the audio thread reads it
/// (contract §10): a point or a ramp's sample, its beat in the cycle, the
/// message, and the memory it is compared with (§10.3).
public struct ScheduledControl: Sendable, BitwiseCopyable {
    /// Beat within the cycle, swung, split as onsets are.
    public var beat: BeatPosition
    /// `Bn` (control change), `En` (pitch bend), `Dn` (pressure) or `Cn` (program).
    public var status: UInt8
    public var data1: UInt8
    public var data2: UInt8
    /// Index of its lane (text order).
    public var lane: UInt8
    /// The controller's slot in the renderer's memory (`ControllerMemory.slot`).
    public var memory: UInt16
    /// The value as the memory holds it: 0-127, a bend's 14 bits 0-16383.
    public var value: UInt16

    @_noLocks
    public init(beat: BeatPosition, status: UInt8, data1: UInt8, data2: UInt8, lane: UInt8, memory: UInt16, value: UInt16) {
        self.beat = beat
        self.status = status
        self.data1 = data1
        self.data2 = data2
        self.lane = lane
        self.memory = memory
        self.value = value
    }

    /// The event for a controller of `memory` slot with `value`, at `offset`.
    @_noLocks @inline(__always)
    public static func message(memory: Int, value: UInt16, offset: Int64) -> MIDIEvent {
        let channel = UInt8(truncatingIfNeeded: memory / ControllerMemory.slotsPerChannel)
        let index = memory % ControllerMemory.slotsPerChannel
        switch index {
        case ControllerMemory.bendIndex:
            return MIDIEvent(offset: offset, status: 0xE0 | channel, data1: UInt8(truncatingIfNeeded: value & 127), data2: UInt8(truncatingIfNeeded: value >> 7))
        case ControllerMemory.pressureIndex:
            return MIDIEvent(offset: offset, status: 0xD0 | channel, data1: UInt8(truncatingIfNeeded: value), data2: 0)
        case ControllerMemory.programIndex:
            return MIDIEvent(offset: offset, status: 0xC0 | channel, data1: UInt8(truncatingIfNeeded: value), data2: 0)
        default:
            return MIDIEvent(offset: offset, status: 0xB0 | channel, data1: UInt8(truncatingIfNeeded: index), data2: UInt8(truncatingIfNeeded: value))
        }
    }
}

/// The events of one controller of one lane, for a chase (§10.4): a range
/// of `PatternSnapshot.chaseIndex`, whose entries index the controls in
/// beat order.
public struct ControlChaseGroup: Sendable, BitwiseCopyable {
    public var lane: UInt8
    public var first: Int32
    public var count: Int32

    @_noLocks
    public init(lane: UInt8, first: Int32, count: Int32) {
        self.lane = lane
        self.first = first
        self.count = count
    }
}

/// Where a controller's last value lives in the renderer (§10.3): one slot
/// per channel and controller (`cc 0`-`cc 119`, bend, pressure, program).
public enum ControllerMemory {
    /// Slots of one channel: 120 control changes, then bend, pressure, program.
    public static var slotsPerChannel: Int { @_noLocks get { 123 } }
    public static var bendIndex: Int { @_noLocks get { 120 } }
    public static var pressureIndex: Int { @_noLocks get { 121 } }
    public static var programIndex: Int { @_noLocks get { 122 } }
    /// Every slot of the 16 channels.
    public static var slotCount: Int { @_noLocks get { 16 * 123 } }

    /// The slot of `index` (0-122) on `channel` (1-16).
    @_noLocks @inline(__always)
    public static func slot(channel: UInt8, index: Int) -> Int { (Int(channel) - 1) * slotsPerChannel + index }
}
