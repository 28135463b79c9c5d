import Glibc
import TactusEngine
import TactusModel

/// What a SoundFont file is, read from its RIFF structure before FluidSynth
/// sees it (docs/bounce.md, B5). FluidSynth hands a file its SoundFont loader
/// refuses on to libinstpatch's DLS loader, which prints a glib
/// `CRITICAL **: ipatch_container_init_iter` line for anything that is not a
/// DLS; a file that is neither is refused here, with what is wrong with it.
///
/// Reads the 12-byte RIFF header and the top-level chunk headers only:
/// O(chunks), not O(size).
public enum SoundFontFile {
    public enum Kind: Equatable, Sendable {
        /// `RIFF` `sfbk` with its three lists: FluidSynth's own loader.
        case soundFont2
        /// `RIFF` `DLS `: FluidSynth loads it through libinstpatch.
        case downloadableSounds
    }

    /// A chunk tag as a message shows it (control characters as `\xNN`).
    private static func printable(_ text: String) -> String { QuotedText.quoted(Array(text.utf8)) }

    /// The file's kind, or why it is neither (a sentence).
    public static func kind(of path: String) -> Result<Kind, BounceError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(BounceError("\(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(BounceError("\(String(cString: strerror(errno)))")) }
        let size = Int64(info.st_size)
        func read(_ count: Int, at offset: Int64) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return n == count ? bytes : nil
        }
        func tag(_ b: [UInt8], _ at: Int) -> String { String(decoding: b[at..<at + 4], as: UTF8.self) }
        func length(_ b: [UInt8], _ at: Int) -> Int64 {
            Int64(b[at]) | Int64(b[at + 1]) << 8 | Int64(b[at + 2]) << 16 | Int64(b[at + 3]) << 24
        }
        guard let header = read(12, at: 0), tag(header, 0) == "RIFF" else {
            return .failure(BounceError("not a SoundFont 2 file (it does not start with 'RIFF')"))
        }
        switch tag(header, 8) {
        case "sfbk": break
        case "DLS ": return .success(.downloadableSounds)
        default: return .failure(BounceError("not a SoundFont 2 file (a RIFF file of type '\(printable(tag(header, 8)))', not 'sfbk')"))
        }
        let riffEnd = 8 + length(header, 4)
        guard riffEnd <= size + 1 else {
            return .failure(BounceError("a broken SoundFont 2 file: its RIFF chunk claims \(riffEnd - 8) bytes, the file has \(size - 8) after the header"))
        }
        // The three lists of the SoundFont 2 spec, in order: INFO, sdta, pdta.
        var lists: [String] = []
        var offset: Int64 = 12
        while offset + 12 <= riffEnd, lists.count < 3 {
            guard let chunk = read(12, at: offset) else { break }
            let end = offset + 8 + length(chunk, 4)
            guard end <= riffEnd else {
                return .failure(BounceError("a broken SoundFont 2 file: its '\(printable(tag(chunk, 0)))' chunk at byte \(offset) runs past the end of the file"))
            }
            if tag(chunk, 0) == "LIST" { lists.append(tag(chunk, 8)) }
            offset = end + (end & 1)
        }
        guard lists == ["INFO", "sdta", "pdta"] else {
            return .failure(BounceError("a broken SoundFont 2 file: it has the lists \(lists.isEmpty ? "none" : lists.joined(separator: ", ")), not INFO, sdta and pdta"))
        }
        return .success(.soundFont2)
    }
}

