import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

// Tactus's SMF reader against an independent one, mido (python3-mido), on
// files other programs wrote and on the edge cases of docs/midi-files.md
// written byte by byte. mido parses the bytes; scripts/mido-notes.py pairs
// notes by Tactus's rules (M2, M4) and prints the note lists. For every file
// mido reads, the lists (track, start and end tick, key, channel, velocity)
// must be equal, unless the case below says why they differ by design.

private let packageRoot = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound]))

/// Real files from Debian packages, and files made by abc2midi, LilyPond and MIDIUtil (Tests/Fixtures/midi).
private let corpusFolders: [(folder: String, package: String)] = [
    ("/usr/share/games/openttd/baseset/openmsx", "openttd-openmsx"),
    ("/usr/share/planetblupi/music", "planetblupi-music-midi"),
    (packageRoot.appendingPathComponent("Tests/Fixtures/midi").path, "(in the repository)"),
]

/// What the two readers must do with an edge case.
private enum Expectation {
    /// Both read it, the same notes.
    case agree
    /// Both refuse it.
    case bothRefuse
    /// Tactus reads it, mido refuses it: the reason it is by design.
    case onlyTactusReads(String)
    /// Tactus refuses it, mido reads it: the reason it is by design.
    case onlyMidoReads(String)
    /// Both read it, with different notes: the reason it is by design.
    case differentNotes(String)
}

private func h(_ format: UInt8 = 0, tracks: UInt8 = 1, division: (UInt8, UInt8) = (0, 0x60)) -> [UInt8] {
    [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, format, 0, tracks, division.0, division.1]
}

private func t(_ body: [UInt8]) -> [UInt8] { [0x4D, 0x54, 0x72, 0x6B, 0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body }

private let eot: [UInt8] = [0x00, 0xFF, 0x2F, 0x00]

/// The edge cases of docs/midi-files.md M1-M6, byte by byte.
private let edgeCases: [(name: String, bytes: [UInt8], expectation: Expectation)] = [
    ("running-status-across-meta", h() + t([0x00, 0x90, 0x3C, 0x64, 0x30, 0xFF, 0x01, 0x01, 0x41, 0x30, 0x3C, 0x00] + eot), .agree),
    ("velocity-zero", h() + t([0x00, 0x91, 0x40, 0x50, 0x20, 0x91, 0x40, 0x00, 0x00, 0x81, 0x41, 0x00] + eot), .agree),
    ("overlapping-same-key", h() + t([0x00, 0x90, 0x3C, 0x64, 0x0A, 0x90, 0x3C, 0x32, 0x0A, 0x80, 0x3C, 0x00, 0x0A, 0x80, 0x3C, 0x00] + eot), .agree),
    ("unterminated-note", h() + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0xFF, 0x2F, 0x00]), .agree),
    ("no-end-of-track", h() + t([0x00, 0x90, 0x3C, 0x64, 0x40, 0xB0, 0x07, 0x64]), .agree),
    ("early-end-of-track", h() + t([0x00, 0x90, 0x3C, 0x64, 0x10, 0xFF, 0x2F, 0x00, 0x10, 0x90, 0x3E, 0x64]), .agree),
    ("header-of-8-bytes", [0x4D, 0x54, 0x68, 0x64, 0, 0, 0, 8, 0, 0, 0, 1, 0, 0x60, 0xAB, 0xCD] + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + eot), .agree),
    ("ppq-7", h(division: (0, 7)) + t([0x03, 0x90, 0x3C, 0x64, 0x07, 0x80, 0x3C, 0x00] + eot), .agree),
    ("ppq-32767", h(division: (0x7F, 0xFF)) + t([0x00, 0x90, 0x3C, 0x64, 0x81, 0xFF, 0x7F, 0x80, 0x3C, 0x00] + eot), .agree),
    ("format-2", h(2, tracks: 2) + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + eot) + t([0x00, 0x90, 0x3E, 0x64, 0x30, 0x80, 0x3E, 0x00] + eot), .agree),
    ("sysex-then-note-with-status", h() + t([0x00, 0x90, 0x3C, 0x64, 0x00, 0xF0, 0x03, 0x43, 0x12, 0xF7, 0x10, 0x80, 0x3C, 0x00] + eot), .agree),
    ("sysex-then-running-status", h() + t([0x00, 0x90, 0x3C, 0x64, 0x00, 0xF0, 0x03, 0x43, 0x12, 0xF7, 0x10, 0x3C, 0x00, 0x20, 0xFF, 0x2F, 0x00]),
     .differentNotes("M2: Tactus keeps the note's running status across SysEx and ends the note at 16; mido takes F0 as the running status, reads an empty SysEx, loses the note-off and the note lasts to the track's end")),
    ("unknown-chunk", h() + [0x58, 0x46, 0x49, 0x48, 0, 0, 0, 3, 1, 2, 3] + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + eot),
     .onlyTactusReads("M2: Tactus skips chunks of unknown type as the spec asks; mido 1.2 expects MTrk after MThd")),
    ("smpte-division", h(division: (0xE7, 0x28)) + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + eot),
     .onlyMidoReads("M3: a pattern counts beats, so Tactus refuses SMPTE time; mido reads it as a negative ticks_per_beat")),
    ("zero-ppq", h(division: (0, 0)) + t([0x00, 0x90, 0x3C, 0x64, 0x60, 0x80, 0x3C, 0x00] + eot),
     .onlyMidoReads("M3: 0 ticks per quarter note gives no beats; mido does not check the division")),
    ("quantity-of-5-bytes", h() + t([0x80, 0x80, 0x80, 0x80, 0x00, 0x90, 0x3C, 0x64] + eot),
     .onlyMidoReads("M3: the spec bounds a quantity to 4 bytes; mido reads any length")),
    ("song-position-status", h() + t([0x00, 0xF2, 0x00, 0x00, 0x00, 0x90, 0x3C, 0x64] + eot),
     .onlyMidoReads("M3: F1-F6 and F8-FE are not SMF events; mido reads them as live MIDI messages")),
    ("truncated-chunk", h() + [0x4D, 0x54, 0x72, 0x6B, 0, 0, 0, 8, 0x00, 0x90, 0x3C, 0x64], .bothRefuse),
    ("running-status-without-status", h() + t([0x00, 0x3C, 0x64] + eot), .bothRefuse),
    ("not-a-midi-file", Array("RIFF\u{0}\u{0}\u{0}\u{4}RMID".utf8), .bothRefuse),
]

/// Patterns Tactus exports, read back by mido (the writer checked by another reader).
private let exportedPatterns: [(name: String, text: String, loops: Int)] = [
    ("export-triplets", "tactus-pattern 1\nlength 7/2\nnote 0 1/3 60 100\nnote 0 1/2 64 90 2\nnote 1/3 1/3 60 80\nnote 2.75 2 67 127 16\n", 2),
    ("export-inexact", "tactus-pattern 1\nlength 4\nnote 1/1009 1/1013 60 100\nnote 3 1 61 1 16\n", 3),
    ("export-long-gap", "tactus-pattern 1\nlength 1000000\nnote 999999 1 60 100\n", 1),
]

/// `NOTE track start end key channel velocity` lines as scripts/mido-notes.py prints them.
private func tactusNotes(_ bytes: [UInt8]) -> Result<[String], MIDIFileError> {
    do {
        let file = try MIDIFileReader().read(bytes)
        var lines: [String] = []
        for (i, track) in file.tracks.enumerated() {
            for n in track.notes { lines.append("NOTE \(i + 1) \(n.startTick) \(n.endTick) \(n.key) \(n.channel) \(n.velocity)") }
        }
        return .success(lines)
    } catch {
        return .failure(error)
    }
}

/// mido's view of each file: nil notes and the error when it refuses.
private func midoNotes(_ paths: [String]) throws -> [String: (notes: [String]?, error: String?)] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [packageRoot.appendingPathComponent("scripts/mido-notes.py").path] + paths
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    var result: [String: (notes: [String]?, error: String?)] = [:]
    var current = ""
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        if line.hasPrefix("FILE ") {
            current = String(line.dropFirst(5))
            result[current] = ([], nil)
        } else if line.hasPrefix("ERROR ") {
            result[current] = (nil, String(line.dropFirst(6)))
        } else if line.hasPrefix("NOTE ") {
            result[current]?.notes?.append(String(line))
        }
    }
    return result
}

@Suite("Standard MIDI File reader against mido (docs/midi-files.md)")
struct MIDIFileDifferentialTests {
    @Test("mido and Tactus find the same notes in real files, in files Tactus exported, and in the edge cases; each difference is by design")
    func againstMido() throws {
        let hasMido = FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/mido/__init__.py")
        try #require(hasMido, "python3-mido is not installed (apt-get install python3-mido): the differential test cannot run")

        var corpus: [String] = []
        for (folder, package) in corpusFolders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            let files = names.filter { $0.hasSuffix(".mid") }.sorted().map { folder + "/" + $0 }
            #expect(!files.isEmpty, "no MIDI files in \(folder): install \(package)")
            corpus += files
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-smf-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var expectations: [String: Expectation] = [:]
        for edge in edgeCases {
            let path = scratch.appendingPathComponent(edge.name + ".mid").path
            try Data(edge.bytes).write(to: URL(fileURLWithPath: path))
            expectations[path] = edge.expectation
        }
        for p in exportedPatterns {
            let path = scratch.appendingPathComponent(p.name + ".mid").path
            try Data(PatternExport.export(try PatternParser.parse(p.text), loops: p.loops).bytes).write(to: URL(fileURLWithPath: path))
            corpus.append(path)
        }
        let all = corpus + edgeCases.map { scratch.appendingPathComponent($0.name + ".mid").path }
        let mido = try midoNotes(all)
        var notesCompared = 0
        var filesCompared = 0
        for path in all {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let ours = tactusNotes(bytes)
            guard let theirs = mido[path] else {
                Issue.record("mido printed nothing for \(path)")
                continue
            }
            let name = (path as NSString).lastPathComponent
            switch (expectations[path] ?? .agree, ours, theirs.notes) {
            case (.agree, .success(let a), let b?):
                #expect(a == b, "\(name): the note lists differ; first difference at \(Array(zip(a, b)).firstIndex { $0.0 != $0.1 } ?? min(a.count, b.count)) of \(a.count) (Tactus) and \(b.count) (mido)")
                notesCompared += a.count
                filesCompared += 1
            case (.differentNotes, .success(let a), let b?) where a != b:
                break
            case (.bothRefuse, .failure, nil):
                break
            case (.onlyTactusReads, .success, nil):
                break
            case (.onlyMidoReads, .failure, _?):
                break
            case (let expected, .success(let a), let b):
                Issue.record("\(name): expected \(expected); Tactus read \(a.count) notes, mido \(b.map { "read \($0.count) notes" } ?? "refused: \(theirs.error ?? "")")")
            case (let expected, .failure(let e), let b):
                Issue.record("\(name): expected \(expected); Tactus refused (\(e.message)), mido \(b.map { "read \($0.count) notes" } ?? "refused: \(theirs.error ?? "")")")
            }
        }
        // The corpus is what it claims to be: real files of many notes.
        #expect(filesCompared >= corpus.count + 11)
        #expect(notesCompared > 100_000)
        print("MIDIFileDifferentialTests: \(filesCompared) files, \(notesCompared) notes agree with mido")
    }
}
