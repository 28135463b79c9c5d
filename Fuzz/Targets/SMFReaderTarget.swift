import TactusEngine
import TactusInProcessHost
import TactusModel
import TactusOffline

/// Fuzz target 4: the Standard MIDI File reader and import, on any bytes
/// (docs/midi-files.md).
///
/// It must never crash. A refusal names a byte inside the file (or its end)
/// and a track no further than the chunks read, as `byte N[, track T]: reason`.
/// A file read holds only well-formed notes (key 0-127, velocity 1-127,
/// channel 1-16, ending at or after their start and no later than their
/// track). Its import with the plugin's defaults either refuses with a
/// reason or makes a pattern that passes the format's rules and whose text
/// parses back to it; that pattern exported reads back with the same notes
/// and loop length.
public enum SMFReaderTarget {
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var violations = Violations()
        let bytes = Array(data)
        let file: MIDIFile
        do throws(MIDIFileError) {
            file = try MIDIFileReader().read(bytes)
        } catch {
            if error.offset < 0 || error.offset > bytes.count { violations.add("refused at byte \(error.offset), outside 0-\(bytes.count): \(error.message)") }
            if error.track < 0 || error.track > bytes.count / 8 + 1 { violations.add("refused in track \(error.track) of a \(bytes.count)-byte file") }
            let place = error.track > 0 ? "byte \(error.offset), track \(error.track): " : "byte \(error.offset): "
            if error.reasonText.isEmpty || error.message != place + error.reasonText { violations.add("a refusal without its place or reason: \(error.message)") }
            return violations
        }
        if file.format > 2 || file.ticksPerQuarter < 1 || file.ticksPerQuarter > 32767 {
            violations.add("accepted format \(file.format), \(file.ticksPerQuarter) ticks per quarter note")
        }
        for (i, track) in file.tracks.enumerated() {
            for n in track.notes where n.key > 127 || n.velocity < 1 || n.velocity > 127 || n.channel < 1 || n.channel > 16
                || n.endTick < n.startTick || n.startTick < 0 || n.endTick > track.endTick {
                violations.add("track \(i + 1): a malformed note \(n) (track ends at \(track.endTick))")
                break
            }
        }
        let imported: MIDIImport
        do throws(MIDIImportError) {
            imported = try MIDIFileImport.importPattern(file, options: MIDIImportOptions(track: file.format == 2 && !file.tracks.isEmpty ? 1 : nil))
        } catch {
            if error.message.isEmpty { violations.add("an import refused without a reason") }
            return violations
        }
        if let problem = imported.pattern.validationError() { violations.add("imported a pattern that breaks the rules: \(problem.message)") }
        do {
            let again = try PatternParser.parse(imported.text)
            if again != imported.pattern { violations.add("the imported text reads back as another pattern:\n\(imported.text)") }
        } catch {
            violations.add("the imported text does not parse (\(error.message)):\n\(imported.text)")
        }
        let export = PatternExport.export(imported.pattern)
        do throws(MIDIFileError) {
            let back = try MIDIFileReader().read(export.bytes)
            // The export holds what the engine plays: onsets of one key at one frame sound once (timing contract §5 rule 5).
            if back.noteCount != export.noteCount { violations.add("the export holds \(back.noteCount) notes, not the \(export.noteCount) it played") }
            if export.noteCount > imported.pattern.notes.count { violations.add("the export plays \(export.noteCount) notes of \(imported.pattern.notes.count)") }
            if back.tracks.first?.tactusLoopLength != imported.pattern.length { violations.add("the export does not keep the loop length") }
        } catch {
            violations.add("the export of the imported pattern cannot be read: \(error.message)")
        }
        return violations
    }

    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("SMF reader")
    }
}
