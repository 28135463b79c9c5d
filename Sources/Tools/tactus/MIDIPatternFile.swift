import TactusEngine
import TactusModel
import TactusOffline

/// Standard MIDI Files where the command line takes a pattern file
/// (`check`, `render --pattern`, transport scripts): imported with the
/// defaults of docs/midi-files.md (M10-M15). Errors read `FILE: byte N, track T: reason`.
enum MIDIPatternFile {
    static func read(_ path: String, _ bytes: [UInt8]) -> Result<MIDIFile, PatternLoadError> {
        do throws(MIDIFileError) {
            return .success(try MIDIFileReader().read(bytes))
        } catch {
            return .failure(PatternLoadError("\(path): \(error.message)"))
        }
    }

    static func load(_ path: String, _ bytes: [UInt8], options: MIDIImportOptions? = nil) -> Result<MIDIImport, PatternLoadError> {
        let file: MIDIFile
        switch read(path, bytes) {
        case .success(let f): file = f
        case .failure(let e): return .failure(e)
        }
        do throws(MIDIImportError) {
            let chosen = options ?? MIDIImportOptions(track: file.format == 2 ? 1 : nil)
            return .success(try MIDIFileImport.importPattern(file, options: chosen))
        } catch {
            return .failure(PatternLoadError("\(path): \(error.message)"))
        }
    }
}
