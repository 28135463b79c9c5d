import CLV2
import TactusEngine
import TactusModel

/// Every URI the plugin speaks, mapped once at instantiate.
///
/// Read-only after `instantiate`, so any thread may read it.
struct URIDTable {
    let atomBlank, atomObject, atomSequence, atomChunk, atomString, atomPath, atomURID: LV2_URID
    let atomInt, atomLong, atomFloat, atomDouble, atomBool: LV2_URID
    let midiEvent: LV2_URID
    let timePosition, timeFrame, timeSpeed, timeBar, timeBarBeat, timeBeat: LV2_URID
    let timeBeatsPerBar, timeBeatsPerMinute, timeBeatUnit: LV2_URID
    let patchSet, patchGet, patchProperty, patchValue, patchSubject, patchSequenceNumber: LV2_URID
    let editorOpen, editorClosed, playhead, audition, midiNoteNumber, midiVelocity, midiChannel: LV2_URID
    let stateChanged: LV2_URID
    let pattern, patternFile, error, droppedNoteOns, laneMutes: LV2_URID
    let patternChange, textPiece, textReceipt, textHash, textOffset, textLength, textWindow: LV2_URID
    let logError, logWarning, logNote: LV2_URID

    init(_ map: UnsafePointer<LV2_URID_Map>) {
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
        editorOpen = m(tactus_uri_editorOpen)
        editorClosed = m(tactus_uri_editorClosed)
        playhead = m(tactus_uri_playhead)
        audition = m(tactus_uri_audition)
        midiNoteNumber = m(tactus_uri_midi_noteNumber)
        midiVelocity = m(tactus_uri_midi_velocity)
        midiChannel = m(tactus_uri_midi_channel)
        stateChanged = m(tactus_uri_state_StateChanged)
        pattern = m(tactus_uri_pattern)
        patternFile = m(tactus_uri_patternFile)
        error = m(tactus_uri_error)
        droppedNoteOns = m(tactus_uri_droppedNoteOns)
        laneMutes = m(tactus_uri_laneMutes)
        patternChange = m(tactus_uri_patternChange)
        textPiece = m(tactus_uri_textPiece)
        textReceipt = m(tactus_uri_textReceipt)
        textHash = m(tactus_uri_textHash)
        textOffset = m(tactus_uri_textOffset)
        textLength = m(tactus_uri_textLength)
        textWindow = m(tactus_uri_textWindow)
        logError = m(tactus_uri_log_Error)
        logWarning = m(tactus_uri_log_Warning)
        logNote = m(tactus_uri_log_Note)
    }
}
