import CLV2

/// The plugin's ports, on the host side (the indices are CLV2's, which the
/// plugin uses too and a test checks against tactus.ttl).
public enum TactusPort {
    public static var control: UInt32 { TACTUS_PORT_CONTROL }
    public static var midiOut: UInt32 { TACTUS_PORT_MIDI_OUT }
    public static var notify: UInt32 { TACTUS_PORT_NOTIFY }
    public static var count: UInt32 { TACTUS_PORT_COUNT }
    /// `mute1` ... `mute8` (§7.6): `muteFirst + i` mutes lane i.
    public static var muteFirst: UInt32 { TACTUS_PORT_MUTE_FIRST }
    public static var muteCount: UInt32 { TACTUS_PORT_MUTE_COUNT }
    /// `midi_thru` (§7.5).
    public static var midiThru: UInt32 { TACTUS_PORT_MIDI_THRU }
}

/// The URIs the project's hosts speak, mapped once: the atom, MIDI, time,
/// patch and state vocabulary, and Tactus's own parameters. The URI strings
/// are CLV2's, where the plugin takes them too.
public struct HostURIs: Sendable {
    public let atomSequence, atomObject, atomBlank, atomChunk, atomString, atomPath, atomURID: LV2_URID
    public let atomInt, atomLong, atomFloat, atomDouble, atomBool: LV2_URID
    public let midiEvent: LV2_URID
    public let timePosition, timeFrame, timeSpeed, timeBar, timeBarBeat, timeBeat: LV2_URID
    public let timeBeatsPerBar, timeBeatsPerMinute, timeBeatUnit: LV2_URID
    public let patchSet, patchGet, patchProperty, patchValue, patchSequenceNumber: LV2_URID
    public let stateChanged: LV2_URID
    public let pattern, patternFile, error, droppedNoteOns, laneMutes: LV2_URID
    /// The pattern text between the plugin and its editor (docs/plugin.md, "Messages").
    public let patternChange, textPiece, textReceipt, textHash, textOffset, textLength, textWindow: LV2_URID
    private let timeByName: [String: LV2_URID]

    public init(_ map: URIDMap) {
        func id(_ uri: UnsafePointer<CChar>) -> LV2_URID { map.id(String(cString: uri)) }
        atomSequence = id(tactus_uri_atom_Sequence)
        atomObject = id(tactus_uri_atom_Object)
        atomBlank = id(tactus_uri_atom_Blank)
        atomChunk = id(tactus_uri_atom_Chunk)
        atomString = id(tactus_uri_atom_String)
        atomPath = id(tactus_uri_atom_Path)
        atomURID = id(tactus_uri_atom_URID)
        atomInt = id(tactus_uri_atom_Int)
        atomLong = id(tactus_uri_atom_Long)
        atomFloat = id(tactus_uri_atom_Float)
        atomDouble = id(tactus_uri_atom_Double)
        atomBool = id(tactus_uri_atom_Bool)
        midiEvent = id(tactus_uri_midi_MidiEvent)
        timePosition = id(tactus_uri_time_Position)
        timeFrame = id(tactus_uri_time_frame)
        timeSpeed = id(tactus_uri_time_speed)
        timeBar = id(tactus_uri_time_bar)
        timeBarBeat = id(tactus_uri_time_barBeat)
        timeBeat = id(tactus_uri_time_beat)
        timeBeatsPerBar = id(tactus_uri_time_beatsPerBar)
        timeBeatsPerMinute = id(tactus_uri_time_beatsPerMinute)
        timeBeatUnit = id(tactus_uri_time_beatUnit)
        patchSet = id(tactus_uri_patch_Set)
        patchGet = id(tactus_uri_patch_Get)
        patchProperty = id(tactus_uri_patch_property)
        patchValue = id(tactus_uri_patch_value)
        patchSequenceNumber = id(tactus_uri_patch_sequenceNumber)
        stateChanged = id(tactus_uri_state_StateChanged)
        pattern = id(tactus_uri_pattern)
        patternFile = id(tactus_uri_patternFile)
        error = id(tactus_uri_error)
        droppedNoteOns = id(tactus_uri_droppedNoteOns)
        laneMutes = id(tactus_uri_laneMutes)
        patternChange = id(tactus_uri_patternChange)
        textPiece = id(tactus_uri_textPiece)
        textReceipt = id(tactus_uri_textReceipt)
        textHash = id(tactus_uri_textHash)
        textOffset = id(tactus_uri_textOffset)
        textLength = id(tactus_uri_textLength)
        textWindow = id(tactus_uri_textWindow)
        var byName: [String: LV2_URID] = [:]
        for uri in [tactus_uri_time_frame, tactus_uri_time_speed, tactus_uri_time_bar, tactus_uri_time_barBeat, tactus_uri_time_beat,
                    tactus_uri_time_beatUnit, tactus_uri_time_beatsPerBar, tactus_uri_time_beatsPerMinute] {
            let text = String(cString: uri!)
            if let hash = text.lastIndex(of: "#") { byName[String(text[text.index(after: hash)...])] = map.id(text) }
        }
        timeByName = byName
    }

    /// The URID of a `time:Position` key by its LV2 name (`frame`, `barBeat`,
    /// ...: a transport script's `PositionKey`), or nil for another name. The
    /// names come from CLV2's URIs (what follows the `#`), not from a list here.
    public func time(_ name: String) -> LV2_URID? { timeByName[name] }

}
