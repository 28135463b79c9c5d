import CLV2

// The properties of the messages between Tactus, its editor and a host
// (docs/plugin.md, "Messages"), written once for all of them: the plugin
// writes them into its notify port (realtime), the editor and the hosts into
// arrays. Each writes what its Turtle says, in that order.

extension AtomObjectWriter {
    /// `[] a patch:Set ; patch:property <property> ; [patch:sequenceNumber n ;]
    /// patch:value "text"^^valueType`: a string-like value (`atom:String`,
    /// `atom:Path`), numbered when `sequenceNumber` is given.
    @_noLocks
    public mutating func addPatchSet(
        property: LV2_URID, sequenceNumber: Int32?, valueType: LV2_URID, text: UnsafeRawBufferPointer, uris: URIDTable
    ) {
        add(uris.patchProperty, urid: property, uris: uris)
        if let sequenceNumber { add(uris.patchSequenceNumber, int: sequenceNumber, uris: uris) }
        add(uris.patchValue, type: valueType, text: text)
    }

    /// `[] a patch:Set ; patch:property <property> ; patch:value n`, an `atom:Long`
    /// (`tactus:droppedNoteOns`, `tactus:laneMutes`).
    @_noLocks
    public mutating func addPatchSet(property: LV2_URID, long value: Int64, uris: URIDTable) {
        add(uris.patchProperty, urid: property, uris: uris)
        add(uris.patchValue, long: value, uris: uris)
    }

    /// `[] a patch:Get ; patch:property <property>`; no property: every parameter.
    @_noLocks
    public mutating func addPatchGet(property: LV2_URID?, uris: URIDTable) {
        if let property { add(uris.patchProperty, urid: property, uris: uris) }
    }

    /// `[] a patch:Get ; patch:property tactus:pattern ; [tactus:textHash h ;]
    /// tactus:textOffset o ; tactus:textWindow w`: at most `w` bytes of the
    /// pattern text from `o`, of the text whose hash is `h` (nil: the one in use).
    @_noLocks
    public mutating func addTextWanted(hash: UInt64?, offset: Int, window: Int, uris: URIDTable) {
        add(uris.patchProperty, urid: uris.pattern, uris: uris)
        if let hash { add(uris.textHash, long: Int64(bitPattern: hash), uris: uris) }
        add(uris.textOffset, long: Int64(offset), uris: uris)
        add(uris.textWindow, long: Int64(window), uris: uris)
    }

    /// `[] a tactus:textPiece ; patch:property <property> ; patch:sequenceNumber n ;
    /// tactus:textOffset o ; tactus:textLength l ; tactus:textHash h ;
    /// patch:value "..."^^atom:Chunk`: bytes `o ..< o + count` of a payload of
    /// `l` bytes whose `TextHash` is `h` (the Long holds the hash's bits).
    @_noLocks
    public mutating func addTextPiece(
        property: LV2_URID, sequenceNumber: Int32, offset: Int, length: Int, hash: UInt64, bytes: UnsafeRawBufferPointer,
        uris: URIDTable
    ) {
        add(uris.patchProperty, urid: property, uris: uris)
        add(uris.patchSequenceNumber, int: sequenceNumber, uris: uris)
        add(uris.textOffset, long: Int64(offset), uris: uris)
        add(uris.textLength, long: Int64(length), uris: uris)
        add(uris.textHash, long: Int64(bitPattern: hash), uris: uris)
        add(uris.patchValue, type: uris.atomChunk, bytes: bytes)
    }

    /// `[] a tactus:textReceipt ; patch:sequenceNumber n ; tactus:textOffset o`:
    /// of the editor's edit `n`, the first `o` bytes are here.
    @_noLocks
    public mutating func addTextReceipt(sequenceNumber: Int32, offset: Int, uris: URIDTable) {
        add(uris.patchSequenceNumber, int: sequenceNumber, uris: uris)
        add(uris.textOffset, long: Int64(offset), uris: uris)
    }

    /// `[] a tactus:playhead ; time:beat b ; time:beatsPerMinute t ; time:speed s ;
    /// time:beatsPerBar m`, each an `atom:Double` (timing contract §8.2).
    @_noLocks
    public mutating func addPlayhead(beat: Double, beatsPerMinute: Double, speed: Double, beatsPerBar: Double, uris: URIDTable) {
        add(uris.timeBeat, double: beat, uris: uris)
        add(uris.timeBeatsPerMinute, double: beatsPerMinute, uris: uris)
        add(uris.timeSpeed, double: speed, uris: uris)
        add(uris.timeBeatsPerBar, double: beatsPerBar, uris: uris)
    }

    /// `[] a tactus:audition ; midi:noteNumber k ; midi:velocity v ; midi:channel c`,
    /// each an `atom:Int`, the channel 0-15 as LV2 counts (timing contract §8.1).
    @_noLocks
    public mutating func addAudition(key: Int32, velocity: Int32, channel: Int32, uris: URIDTable) {
        add(uris.midiNoteNumber, int: key, uris: uris)
        add(uris.midiVelocity, int: velocity, uris: uris)
        add(uris.midiChannel, int: channel, uris: uris)
    }

    /// `[] a tactus:scene ; tactus:playing p ; tactus:queued q ; [tactus:switchBeat b ;]
    /// tactus:songEntry e ; tactus:origin o`: the pattern playing and the one
    /// queued (1-based, 0 none), each an `atom:Int`; the queued switch's
    /// boundary beat (an `atom:Double`, only while one is queued); the song
    /// entry playing (1-based, 0 when no song plays), an `atom:Int`; the
    /// playing pattern's origin, a beat (an `atom:Double`) (timing contract §9.9).
    @_noLocks
    public mutating func addScene(playing: Int32, queued: Int32, switchBeat: Double?, songEntry: Int32, origin: Double, uris: URIDTable) {
        add(uris.playing, int: playing, uris: uris)
        add(uris.queued, int: queued, uris: uris)
        if let switchBeat { add(uris.switchBeat, double: switchBeat, uris: uris) }
        add(uris.songEntry, int: songEntry, uris: uris)
        add(uris.origin, double: origin, uris: uris)
    }

    /// `[] a tactus:request ; tactus:pattern n ; [tactus:when "bar"]`: asks for
    /// pattern `n` (1-based, an `atom:Int`) at the boundary `when` spells
    /// (`now`, `beat`, `bar`, `bars N`, `end`; nil: the text's `switch at`).
    @_noLocks
    public mutating func addRequest(pattern: Int32, when: UnsafeRawBufferPointer?, uris: URIDTable) {
        add(uris.pattern, int: pattern, uris: uris)
        if let when { add(uris.when, type: uris.atomString, text: when) }
    }
}
