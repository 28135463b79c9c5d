/// An input that acts at a frame of a block (timing contract §5: it acts
/// after all output before its frame and before the onsets at its frame).
public enum InputEvent: Sendable, BitwiseCopyable, Equatable {
    /// A host position report.
    case position(PositionUpdate)
    /// MIDI CC 123 (all notes off) or CC 120 (all sound off) on any channel.
    case allNotesOff
    /// §7.5: a note-on on input channel `channel` (1-16): lanes that follow it transpose to `key`.
    case followKey(channel: UInt8, key: UInt8)
    /// §7.5: control change 121 on input channel `channel` (1-16): lanes that follow it forget the key.
    case resetFollow(channel: UInt8)
    /// §7.6: the `urn:tactus:laneMutes` parameter (bit i mutes lane i).
    case laneMutes(UInt64)
}

/// An input event with its frame offset into the block.
public struct TimedInputEvent: Sendable, BitwiseCopyable, Equatable {
    public var offset: Int
    public var event: InputEvent

    @_noLocks
    public init(offset: Int, event: InputEvent) {
        self.offset = offset
        self.event = event
    }
}

/// Counters a person can look at: what the renderer had to drop or ignore.
public struct RenderStatistics: Sendable, BitwiseCopyable, Equatable {
    /// Note-ons not emitted because the block's output was full or its work bound was reached.
    public var droppedNoteOns: Int64 = 0
    /// Blocks whose output filled up (note-offs then wait for the next block).
    public var overfullBlocks: Int64 = 0
    /// Position updates ignored as a whole (§6).
    public var ignoredUpdates: Int64 = 0
    /// Searches for the first onset past a segment made to skip onsets beyond
    /// the work bound (reading (h)): at most one per segment, whatever the rate.
    public var skipSearches: Int64 = 0
    /// §9.2: requests for a pattern that does not exist, or made while a song plays.
    public var ignoredRequests: Int64 = 0

    @_noLocks
    public init() {}
}

/// How MIDI on the control input is read (timing contract §5).
public enum MIDIInput {
    /// What a message on the control input did (`Sequencer.receiveMIDI`).
    public enum Effect: Sendable, BitwiseCopyable, Equatable {
        /// Nothing the sequencer acts on (passed on only with thru).
        case none
        /// CC 123 or CC 120: every sounding note ended (§5).
        case allNotesOff
        /// A key-follow note-on or CC 121 (§7.5).
        case follow
        /// Read by a pattern trigger (§9.6): a pattern requested, a trigger
        /// key released, or a Bank Select MSB kept for the next program change.
        case trigger
    }

    /// True for control change 123 (all notes off) or 120 (all sound off), any channel.
    @_noLocks
    public static func isAllNotesOff(status: UInt8, data1: UInt8) -> Bool {
        status & 0xF0 == 0xB0 && (data1 == 123 || data1 == 120)
    }

    /// §9.6: the pattern (1-based) a MIDI message requests under `triggers`,
    /// or 0. `bankMSB` is the last Bank Select MSB received on a channel the
    /// program trigger listens to (updated here).
    @_noLocks
    public static func requestedPattern(status: UInt8, data1: UInt8, data2: UInt8, triggers t: TriggerSettings, bankMSB: inout UInt8) -> Int {
        let channel = (status & 0x0F) + 1
        switch status & 0xF0 {
        case 0xC0:
            if t.programChannel >= 0 && TriggerSettings.hears(UInt8(t.programChannel), channel) {
                return Int(bankMSB) * 128 + Int(data1) + 1
            }
        case 0xB0:
            if isBankSelect(status: status, data1: data1, triggers: t) { bankMSB = data2 & 0x7F }
            if t.controller >= 0 && Int16(data1) == t.controller && TriggerSettings.hears(t.controllerChannel, channel) {
                return Int(data2) + 1
            }
        case 0x90:
            if data2 > 0, isTriggerNote(status: status, key: data1, triggers: t) { return Int(data1) - Int(t.noteKey) + 1 }
        default:
            break
        }
        return 0
    }

    /// §9.6: whether a control change is the Bank Select MSB (CC 0) on a
    /// channel the program trigger listens to.
    @_noLocks
    public static func isBankSelect(status: UInt8, data1: UInt8, triggers t: TriggerSettings) -> Bool {
        status & 0xF0 == 0xB0 && data1 == 0 && t.programChannel >= 0
            && TriggerSettings.hears(UInt8(t.programChannel), (status & 0x0F) + 1)
    }

    /// §9.6: whether a note-on or note-off is a trigger (keys from the
    /// trigger's key up, on a listened channel): it neither moves key-follow
    /// nor passes through.
    @_noLocks
    public static func isTriggerNote(status: UInt8, key: UInt8, triggers t: TriggerSettings) -> Bool {
        guard status & 0xE0 == 0x80, t.noteKey >= 0, Int16(key) >= t.noteKey else { return false }
        return TriggerSettings.hears(t.noteChannel, (status & 0x0F) + 1)
    }

    /// The key-follow input a MIDI message is (§7.5), if any: a note-on with
    /// velocity > 0, or control change 121. Channels counted from 1.
    @_noLocks
    public static func followEvent(status: UInt8, data1: UInt8, data2: UInt8) -> InputEvent? {
        let channel = (status & 0x0F) + 1
        if status & 0xF0 == 0x90 && data2 > 0 && data1 < 128 { return .followKey(channel: channel, key: data1) }
        if status & 0xF0 == 0xB0 && data1 == 121 { return .resetFollow(channel: channel) }
        return nil
    }
}
