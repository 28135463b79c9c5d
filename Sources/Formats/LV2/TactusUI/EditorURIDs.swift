import CLV2
import CLV2UI

/// Every URI the editor speaks, mapped once when it opens.
///
/// Read-only after `init`; UI thread.
struct EditorURIDs {
    let atomObject, atomBlank, atomString, atomChunk, atomURID, atomInt, atomLong, atomDouble, eventTransfer: LV2_URID
    let patchSet, patchGet, patchProperty, patchValue, patchSequenceNumber: LV2_URID
    let pattern, error, laneMutes: LV2_URID
    let patternChange, textPiece, textReceipt, textHash, textOffset, textLength, textWindow: LV2_URID
    let editorOpen, editorClosed, playhead, audition: LV2_URID
    let timeBeat, timeBeatsPerMinute, timeSpeed, timeBeatsPerBar: LV2_URID
    let midiNoteNumber, midiVelocity, midiChannel: LV2_URID

    init(_ map: UnsafePointer<LV2_URID_Map>) {
        func m(_ uri: UnsafePointer<CChar>) -> LV2_URID { map.pointee.map(map.pointee.handle, uri) }
        atomObject = m(tactus_uri_atom_Object)
        atomBlank = m(tactus_uri_atom_Blank)
        atomString = m(tactus_uri_atom_String)
        atomChunk = m(tactus_uri_atom_Chunk)
        atomURID = m(tactus_uri_atom_URID)
        atomInt = m(tactus_uri_atom_Int)
        atomLong = m(tactus_uri_atom_Long)
        atomDouble = m(tactus_uri_atom_Double)
        eventTransfer = m(tactus_uri_atom_eventTransfer)
        patchSet = m(tactus_uri_patch_Set)
        patchGet = m(tactus_uri_patch_Get)
        patchProperty = m(tactus_uri_patch_property)
        patchValue = m(tactus_uri_patch_value)
        patchSequenceNumber = m(tactus_uri_patch_sequenceNumber)
        pattern = m(tactus_uri_pattern)
        error = m(tactus_uri_error)
        laneMutes = m(tactus_uri_laneMutes)
        patternChange = m(tactus_uri_patternChange)
        textPiece = m(tactus_uri_textPiece)
        textReceipt = m(tactus_uri_textReceipt)
        textHash = m(tactus_uri_textHash)
        textOffset = m(tactus_uri_textOffset)
        textLength = m(tactus_uri_textLength)
        textWindow = m(tactus_uri_textWindow)
        editorOpen = m(tactus_uri_editorOpen)
        editorClosed = m(tactus_uri_editorClosed)
        playhead = m(tactus_uri_playhead)
        audition = m(tactus_uri_audition)
        timeBeat = m(tactus_uri_time_beat)
        timeBeatsPerMinute = m(tactus_uri_time_beatsPerMinute)
        timeSpeed = m(tactus_uri_time_speed)
        timeBeatsPerBar = m(tactus_uri_time_beatsPerBar)
        midiNoteNumber = m(tactus_uri_midi_noteNumber)
        midiVelocity = m(tactus_uri_midi_velocity)
        midiChannel = m(tactus_uri_midi_channel)
    }
}
