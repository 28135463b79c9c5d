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
    }

    /// True for control change 123 (all notes off) or 120 (all sound off), any channel.
    @_noLocks
    public static func isAllNotesOff(status: UInt8, data1: UInt8) -> Bool {
        status & 0xF0 == 0xB0 && (data1 == 123 || data1 == 120)
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
