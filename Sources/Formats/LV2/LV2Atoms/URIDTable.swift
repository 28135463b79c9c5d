import CLV2

/// Every URI the project maps, mapped once: the atom, MIDI, time, patch,
/// state and log vocabulary, and Tactus's own parameters and messages
/// (docs/plugin.md, "Messages"). The plugin maps it at instantiate, the
/// editor when it opens, each host with its own map; the URI strings are
/// CLV2's.
///
/// Read-only after `init`, so any thread may read it; `init` calls the
/// host's map (not realtime).
public struct URIDTable: Sendable {
    public let atomBlank, atomObject, atomSequence, atomChunk, atomString, atomPath, atomURID: LV2_URID
    public let atomInt, atomLong, atomFloat, atomDouble, atomBool, atomEventTransfer: LV2_URID
    public let midiEvent: LV2_URID
    public let timePosition, timeFrame, timeSpeed, timeBar, timeBarBeat, timeBeat: LV2_URID
    public let timeBeatsPerBar, timeBeatsPerMinute, timeBeatUnit: LV2_URID
    public let patchSet, patchGet, patchProperty, patchValue, patchSubject, patchSequenceNumber: LV2_URID
    public let midiNoteNumber, midiVelocity, midiChannel: LV2_URID
    public let stateChanged: LV2_URID
    public let logError, logWarning, logNote: LV2_URID
    /// Tactus's parameters.
    public let pattern, patternFile, error, droppedNoteOns, laneMutes: LV2_URID
    /// Between the plugin and its editor: the lease, the playhead, an auditioned note.
    public let editorOpen, editorClosed, playhead, audition: LV2_URID
    /// The pattern text between the plugin and its editor, in pieces.
    public let patternChange, textPiece, textReceipt, textHash, textOffset, textLength, textWindow: LV2_URID
    /// Patterns and songs (timing contract §9): the scene the plugin reports, a request, the ignored requests' count.
    public let scene, playing, queued, switchBeat, songEntry, origin, request, when, ignoredRequests: LV2_URID

    /// Maps every URI with the host's `urid:map`.
    public init(_ map: UnsafePointer<LV2_URID_Map>) {
        func m(_ uri: UnsafePointer<CChar>) -> LV2_URID { map.pointee.map(map.pointee.handle, uri) }
        atomBlank = m(tactus_uri_atom_Blank)
        atomObject = m(tactus_uri_atom_Object)
        atomSequence = m(tactus_uri_atom_Sequence)
        atomChunk = m(tactus_uri_atom_Chunk)
        atomString = m(tactus_uri_atom_String)
        atomPath = m(tactus_uri_atom_Path)
        atomURID = m(tactus_uri_atom_URID)
        atomInt = m(tactus_uri_atom_Int)
        atomLong = m(tactus_uri_atom_Long)
        atomFloat = m(tactus_uri_atom_Float)
        atomDouble = m(tactus_uri_atom_Double)
        atomBool = m(tactus_uri_atom_Bool)
        atomEventTransfer = m(tactus_uri_atom_eventTransfer)
        midiEvent = m(tactus_uri_midi_MidiEvent)
        timePosition = m(tactus_uri_time_Position)
        timeFrame = m(tactus_uri_time_frame)
        timeSpeed = m(tactus_uri_time_speed)
        timeBar = m(tactus_uri_time_bar)
        timeBarBeat = m(tactus_uri_time_barBeat)
        timeBeat = m(tactus_uri_time_beat)
        timeBeatsPerBar = m(tactus_uri_time_beatsPerBar)
        timeBeatsPerMinute = m(tactus_uri_time_beatsPerMinute)
        timeBeatUnit = m(tactus_uri_time_beatUnit)
        patchSet = m(tactus_uri_patch_Set)
        patchGet = m(tactus_uri_patch_Get)
        patchProperty = m(tactus_uri_patch_property)
        patchValue = m(tactus_uri_patch_value)
        patchSubject = m(tactus_uri_patch_subject)
        patchSequenceNumber = m(tactus_uri_patch_sequenceNumber)
        midiNoteNumber = m(tactus_uri_midi_noteNumber)
        midiVelocity = m(tactus_uri_midi_velocity)
        midiChannel = m(tactus_uri_midi_channel)
        stateChanged = m(tactus_uri_state_StateChanged)
        logError = m(tactus_uri_log_Error)
        logWarning = m(tactus_uri_log_Warning)
        logNote = m(tactus_uri_log_Note)
        pattern = m(tactus_uri_pattern)
        patternFile = m(tactus_uri_patternFile)
        error = m(tactus_uri_error)
        droppedNoteOns = m(tactus_uri_droppedNoteOns)
        laneMutes = m(tactus_uri_laneMutes)
        editorOpen = m(tactus_uri_editorOpen)
        editorClosed = m(tactus_uri_editorClosed)
        playhead = m(tactus_uri_playhead)
        audition = m(tactus_uri_audition)
        patternChange = m(tactus_uri_patternChange)
        textPiece = m(tactus_uri_textPiece)
        textReceipt = m(tactus_uri_textReceipt)
        textHash = m(tactus_uri_textHash)
        textOffset = m(tactus_uri_textOffset)
        textLength = m(tactus_uri_textLength)
        textWindow = m(tactus_uri_textWindow)
        scene = m(tactus_uri_scene)
        playing = m(tactus_uri_playing)
        queued = m(tactus_uri_queued)
        switchBeat = m(tactus_uri_switchBeat)
        songEntry = m(tactus_uri_songEntry)
        origin = m(tactus_uri_origin)
        request = m(tactus_uri_request)
        when = m(tactus_uri_when)
        ignoredRequests = m(tactus_uri_ignoredRequests)
    }
}
