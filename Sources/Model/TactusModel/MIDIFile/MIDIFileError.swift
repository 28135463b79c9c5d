import TactusEngine
/// Why a Standard MIDI File was refused, and where (docs/midi-files.md, M3).
///
/// `message` is the sentence a person reads: `byte 1234, track 2: reason`
/// (no track for the header or for a chunk between tracks). Offsets count
/// bytes from the start of the file; tracks count `MTrk` chunks from 1.
public struct MIDIFileError: Error, Sendable, Equatable {
    /// Byte offset from the start of the file.
    public var offset: Int
    /// 1-based track (`MTrk` chunk) number; 0 when not inside a track.
    public var track: Int
    public var reason: Reason

    public init(offset: Int, track: Int, reason: Reason) {
        self.offset = offset
        self.track = track
        self.reason = reason
    }

    /// Every way a file can be refused.
    public enum Reason: Sendable, Equatable {
        /// The file does not start with `MThd`.
        case notAMIDIFile
        /// The header chunk's length is below 6.
        case headerTooShort(length: Int)
        /// Format 3 or above.
        case unknownFormat(Int)
        /// The division is SMPTE time (frames a second, ticks a frame).
        case smpteDivision(framesPerSecond: Int, ticksPerFrame: Int)
        /// 0 ticks per quarter note.
        case zeroDivision
        /// A chunk (or chunk header) that claims more bytes than the file has left.
        case chunkBeyondFile(type: String, claimed: Int, left: Int)
        /// The file ends before the header chunk's 8-byte chunk header does.
        case fileEndsInHeader(size: Int)
        /// More tracks than the reader's limit.
        case tooManyTracks(limit: Int)
        /// More bytes than the reader's limit.
        case fileTooLarge(size: Int, limit: Int)
        /// A variable-length quantity of five bytes or more.
        case quantityTooLong
        /// An event cut off by the end of its track chunk.
        case eventBeyondChunk
        /// A data byte at the start of an event with no running status to use.
        case runningStatusMissing(dataByte: UInt8)
        /// A status byte inside an event's data.
        case statusWhereDataExpected(UInt8)
        /// A system common or realtime status (F1-F6, F8-FE), which files may not hold.
        case statusNotAllowed(UInt8)
        /// More notes than the reader's limit.
        case tooManyNotes(limit: Int)
    }

    /// The reason as a sentence, without the place.
    public var reasonText: String {
        switch reason {
        case .notAMIDIFile:
            return "not a Standard MIDI File (it does not start with 'MThd')"
        case .headerTooShort(let length):
            return "the header chunk is \(length) bytes, fewer than the 6 it needs"
        case .unknownFormat(let format):
            return "unknown SMF format \(format) (0, 1 and 2 exist)"
        case .smpteDivision(let fps, let ticks):
            return "the division is SMPTE time (\(fps) frames a second, \(ticks) ticks a frame); a pattern counts beats, so only ticks per quarter note can be read"
        case .zeroDivision:
            return "the division is 0 ticks per quarter note"
        case .chunkBeyondFile(let type, let claimed, let left):
            return "the '\(type)' chunk claims \(claimed) bytes but the file has \(left) left"
        case .fileEndsInHeader(let size):
            return "the file ends after \(size) bytes, inside the header chunk"
        case .tooManyTracks(let limit):
            return "more than \(limit) tracks"
        case .fileTooLarge(let size, let limit):
            return "the file is \(size) bytes; a MIDI file may have at most \(limit)"
        case .quantityTooLong:
            return "a variable-length quantity longer than 4 bytes"
        case .eventBeyondChunk:
            return "the event runs past the end of the track chunk"
        case .runningStatusMissing(let byte):
            return "data byte \(MIDIFileError.hex(byte)) with no running status before it"
        case .statusWhereDataExpected(let byte):
            return "status byte \(MIDIFileError.hex(byte)) where a data byte was expected"
        case .statusNotAllowed(let byte):
            return "status byte \(MIDIFileError.hex(byte)) is not an event a MIDI file may hold"
        case .tooManyNotes(let limit):
            return "more than \(limit) notes"
        }
    }

    /// `byte OFFSET, track N: reason` (or `byte OFFSET: reason` outside tracks).
    public var message: String {
        track > 0 ? "byte \(offset), track \(track): \(reasonText)" : "byte \(offset): \(reasonText)"
    }

    /// `0x9F`: a byte as people write MIDI bytes.
    static func hex(_ byte: UInt8) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        let d = digits.utf8Start
        return "0x" + String(decoding: [d[Int(byte >> 4)], d[Int(byte & 15)]], as: UTF8.self)
    }
}
