import TactusEngine
/// Reads a Standard MIDI File (docs/midi-files.md, M1-M6).
///
/// Pure Swift, no Foundation, Embedded-safe; runs off the audio thread (the
/// plugin's worker, the command line). O(n) in the file's bytes; memory is
/// bounded by the limits, each checked before what it bounds is allocated.
public struct MIDIFileReader: Sendable {
    /// Most bytes a file may have (16 MiB, the plugin's file limit).
    public var maximumFileBytes = 16 << 20
    /// Most `MTrk` chunks.
    public var maximumTracks = 65_535
    /// Most notes in all tracks together.
    public var maximumNotes = 1 << 20

    public init() {}

    /// Reads `bytes` as a whole file; throws the first problem found (M3).
    /// What the file is comes first: a 40 MB WAV is "not a Standard MIDI
    /// File", not "too large".
    public func read(_ bytes: [UInt8]) throws(MIDIFileError) -> MIDIFile {
        guard Self.looksLikeMIDIFile(bytes) else { throw MIDIFileError(offset: 0, track: 0, reason: .notAMIDIFile) }
        guard bytes.count <= maximumFileBytes else {
            throw MIDIFileError(offset: 0, track: 0, reason: .fileTooLarge(size: bytes.count, limit: maximumFileBytes))
        }
        var result: Result<MIDIFile, MIDIFileError> = .failure(MIDIFileError(offset: 0, track: 0, reason: .notAMIDIFile))
        bytes.withUnsafeBufferPointer { b in
            do throws(MIDIFileError) {
                result = .success(try readFile(b))
            } catch {
                result = .failure(error)
            }
        }
        return try result.get()
    }

    /// Whether `bytes` start like a Standard MIDI File (`MThd`).
    public static func looksLikeMIDIFile(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x4D && bytes[1] == 0x54 && bytes[2] == 0x68 && bytes[3] == 0x64
    }

    private func readFile(_ b: UnsafeBufferPointer<UInt8>) throws(MIDIFileError) -> MIDIFile {
        guard b.count >= 4, b[0] == 0x4D, b[1] == 0x54, b[2] == 0x68, b[3] == 0x64 else {
            throw MIDIFileError(offset: 0, track: 0, reason: .notAMIDIFile)
        }
        guard b.count >= 8 else {
            throw MIDIFileError(offset: b.count, track: 0, reason: .fileEndsInHeader(size: b.count))
        }
        let headerLength = Int(Self.uint32(b, 4))
        guard headerLength <= b.count - 8 else {
            throw MIDIFileError(offset: 0, track: 0, reason: .chunkBeyondFile(type: "MThd", claimed: headerLength, left: b.count - 8))
        }
        guard headerLength >= 6 else {
            throw MIDIFileError(offset: 4, track: 0, reason: .headerTooShort(length: headerLength))
        }
        let format = Int(Self.uint16(b, 8))
        guard format <= 2 else { throw MIDIFileError(offset: 8, track: 0, reason: .unknownFormat(format)) }
        let declared = Int(Self.uint16(b, 10))
        let division = Self.uint16(b, 12)
        if division & 0x8000 != 0 {
            let fps = -Int(Int8(bitPattern: UInt8(division >> 8)))
            throw MIDIFileError(offset: 12, track: 0, reason: .smpteDivision(framesPerSecond: fps, ticksPerFrame: Int(division & 0xFF)))
        }
        guard division > 0 else { throw MIDIFileError(offset: 12, track: 0, reason: .zeroDivision) }

        var file = MIDIFile(format: format, ticksPerQuarter: Int(division), declaredTrackCount: declared, tracks: [])
        var position = 8 + headerLength
        var notes = 0
        // Fewer than 8 bytes after the last chunk: padding, tolerated (M2).
        while b.count - position >= 8 {
            let chunkOffset = position
            let length = Int(Self.uint32(b, position + 4))
            let isTrack = b[position] == 0x4D && b[position + 1] == 0x54 && b[position + 2] == 0x72 && b[position + 3] == 0x6B
            let left = b.count - position - 8
            guard length <= left else {
                let type = QuotedText.quoted([b[position], b[position + 1], b[position + 2], b[position + 3]])
                throw MIDIFileError(offset: chunkOffset, track: isTrack ? file.tracks.count + 1 : 0,
                                    reason: .chunkBeyondFile(type: type, claimed: length, left: left))
            }
            position += 8
            if isTrack {
                guard file.tracks.count < maximumTracks else {
                    throw MIDIFileError(offset: chunkOffset, track: file.tracks.count + 1, reason: .tooManyTracks(limit: maximumTracks))
                }
                var track = try readTrack(b, start: position, end: position + length, number: file.tracks.count + 1, notesBefore: notes)
                track.offset = chunkOffset
                notes += track.notes.count
                file.tracks.append(track)
            }
            position += length
        }
        return file
    }

    /// One track chunk's events, `start..<end` (M2, M4-M6).
    private func readTrack(_ b: UnsafeBufferPointer<UInt8>, start: Int, end: Int, number: Int, notesBefore: Int) throws(MIDIFileError) -> MIDIFileTrack {
        var track = MIDIFileTrack()
        var pairing = NotePairing()
        // A note takes at least 6 bytes of a chunk (two 3-byte events with
        // running status): room reserved for that many, within the note limit,
        // spares the appends their reallocations.
        let likelyNotes = min((end - start) / 6, maximumNotes - notesBefore)
        track.notes.reserveCapacity(likelyNotes)
        pairing.reserve(likelyNotes)
        var position = start
        var tick: Int64 = 0
        var running: UInt8 = 0
        while position < end {
            let eventOffset = position
            tick += Int64(try Self.quantity(b, &position, end: end, track: number, event: eventOffset))
            guard position < end else { throw MIDIFileError(offset: eventOffset, track: number, reason: .eventBeyondChunk) }
            var status = b[position]
            var pendingData: UInt8? = nil
            if status < 0x80 {
                guard running != 0 else {
                    throw MIDIFileError(offset: position, track: number, reason: .runningStatusMissing(dataByte: status))
                }
                pendingData = status
                status = running
            }
            position += 1
            switch status {
            case 0xFF:
                guard position < end else { throw MIDIFileError(offset: eventOffset, track: number, reason: .eventBeyondChunk) }
                let type = b[position]
                position += 1
                let length = Int(try Self.quantity(b, &position, end: end, track: number, event: eventOffset))
                guard length <= end - position else { throw MIDIFileError(offset: eventOffset, track: number, reason: .eventBeyondChunk) }
                let data = UnsafeBufferPointer(rebasing: b[position..<(position + length)])
                position += length
                if type == 0x2F {
                    // End of Track: whatever follows in the chunk is ignored (M2).
                    track.hasEndOfTrack = true
                    track.endTick = tick
                    pairing.closeAll(endingAt: tick, in: &track.notes)
                    return track
                }
                meta(type, data, tick: tick, into: &track)
            case 0xF0, 0xF7:
                // SysEx and escapes: skipped by their length. Running status is kept (M2).
                let length = Int(try Self.quantity(b, &position, end: end, track: number, event: eventOffset))
                guard length <= end - position else { throw MIDIFileError(offset: eventOffset, track: number, reason: .eventBeyondChunk) }
                position += length
            case 0xF1...0xFE:
                throw MIDIFileError(offset: position - 1, track: number, reason: .statusNotAllowed(status))
            default:
                running = status
                let kind = status >> 4
                let needed = (kind == 0xC || kind == 0xD) ? 1 : 2
                var data: (UInt8, UInt8) = (0, 0)
                for i in 0..<needed {
                    let byte: UInt8
                    if i == 0, let first = pendingData {
                        byte = first
                    } else {
                        guard position < end else { throw MIDIFileError(offset: eventOffset, track: number, reason: .eventBeyondChunk) }
                        byte = b[position]
                        guard byte < 0x80 else {
                            throw MIDIFileError(offset: position, track: number, reason: .statusWhereDataExpected(byte))
                        }
                        position += 1
                    }
                    if i == 0 { data.0 = byte } else { data.1 = byte }
                }
                let channel = (status & 0x0F) + 1
                if kind == 0x9 && data.1 > 0 {
                    guard notesBefore + track.notes.count < maximumNotes else {
                        throw MIDIFileError(offset: eventOffset, track: number, reason: .tooManyNotes(limit: maximumNotes))
                    }
                    track.notes.append(MIDIFileNote(startTick: tick, endTick: tick, key: data.0, velocity: data.1, channel: channel))
                    pairing.open(track.notes.count - 1, channel: channel, key: data.0)
                } else if kind == 0x8 || kind == 0x9 {
                    if let index = pairing.close(channel: channel, key: data.0) {
                        track.notes[index].endTick = tick
                    } else {
                        track.unmatchedNoteOffs += 1
                    }
                } else {
                    track.channelEvents.append(MIDIChannelEvent(tick: tick, status: status, data1: data.0, data2: data.1))
                }
            }
            track.endTick = tick
        }
        // No End of Track: the track ends at its last event (M2, M4).
        pairing.closeAll(endingAt: tick, in: &track.notes)
        track.endTick = tick
        return track
    }

    /// The meta events the reader keeps (M6); others are skipped.
    private func meta(_ type: UInt8, _ data: UnsafeBufferPointer<UInt8>, tick: Int64, into track: inout MIDIFileTrack) {
        switch type {
        case 0x03 where track.name == nil:
            track.name = Array(data)
        case 0x51 where data.count >= 3:
            let tempo = Int(data[0]) << 16 | Int(data[1]) << 8 | Int(data[2])
            track.tempoChanges.append(MIDITempoChange(tick: tick, microsecondsPerQuarter: tempo))
        case 0x58 where data.count >= 2:
            track.timeSignatures.append(MIDITimeSignature(tick: tick, numerator: Int(data[0]), denominatorPower: Int(data[1])))
        case 0x7F:
            if let length = TactusLoopLengthMeta.parse(data) { track.tactusLoopLength = length }
        default:
            break
        }
    }

    /// A variable-length quantity at `position` (at most 4 bytes, so below 2^28).
    @inline(__always)
    static func quantity(_ b: UnsafeBufferPointer<UInt8>, _ position: inout Int, end: Int, track: Int, event: Int) throws(MIDIFileError) -> UInt32 {
        var value: UInt32 = 0
        let first = position
        while true {
            guard position < end else { throw MIDIFileError(offset: event, track: track, reason: .eventBeyondChunk) }
            guard position - first < 4 else { throw MIDIFileError(offset: first, track: track, reason: .quantityTooLong) }
            let byte = b[position]
            position += 1
            value = value << 7 | UInt32(byte & 0x7F)
            if byte < 0x80 { return value }
        }
    }

    static func uint32(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    static func uint16(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16 {
        UInt16(b[at]) << 8 | UInt16(b[at + 1])
    }
}
