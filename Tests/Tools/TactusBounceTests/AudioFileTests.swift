import Foundation
import TactusBounce
import Testing

/// Output files (docs/bounce.md, B6): format by extension, complete or not there.
@Suite struct AudioFileTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bnc-audio-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("B6: WAV and FLAC by extension; FLAC refuses float; another extension is refused with the reason")
    func formats() throws {
        #expect(try AudioFileFormat(path: "a.WAV", bits: nil) == AudioFileFormat(container: .wav, samples: .pcm24))
        #expect(try AudioFileFormat(path: "x/b.flac", bits: "16") == AudioFileFormat(container: .flac, samples: .pcm16))
        #expect(throws: BounceError("--bits float with 'c.flac': FLAC holds integer samples only; use --bits 16 or 24, or a .wav for float")) {
            try AudioFileFormat(path: "c.flac", bits: "float")
        }
        #expect(throws: BounceError("-o 'd.mp3': the output's extension must be .wav or .flac (it says which format to write)")) {
            try AudioFileFormat(path: "d.mp3", bits: nil)
        }
    }

    @Test("B6: a file is in place only after commit; a discarded one leaves nothing, not even a temporary file")
    func completeOrNotThere() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let samples = [Float](repeating: 0.25, count: 4800)
        for (name, format) in [("a.wav", AudioFileFormat(container: .wav, samples: .pcm16)), ("b.flac", AudioFileFormat(container: .flac, samples: .pcm24)),
                               ("c.wav", AudioFileFormat(container: .wav, samples: .float))] {
            let writer = try AudioFileWriter(path: dir + "/" + name, format: format, sampleRate: 44100)
            try writer.write(left: samples, right: samples, frameCount: samples.count)
            #expect(!FileManager.default.fileExists(atPath: dir + "/" + name))
            try writer.commit()
            #expect(FileManager.default.fileExists(atPath: dir + "/" + name))
        }
        let abandoned = try AudioFileWriter(path: dir + "/d.wav", format: AudioFileFormat(container: .wav, samples: .pcm24), sampleRate: 48000)
        try abandoned.write(left: samples, right: samples, frameCount: 100)
        abandoned.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.wav", "b.flac", "c.wav"])
        // A WAV's header says 44100 Hz, 2 channels, 4800 frames of 16-bit samples.
        let wav = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.wav"))
        #expect(wav.count == 44 + 4800 * 4)
        #expect(wav[24..<28].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == 44100)
    }

    @Test("B6: an output folder that does not exist: the path and the system's reason")
    func unwritable() {
        #expect(throws: BounceError("cannot create '/nonexistent-bnc/x.wav': No such file or directory")) {
            try AudioFileWriter(path: "/nonexistent-bnc/x.wav", format: AudioFileFormat(container: .wav, samples: .pcm24), sampleRate: 48000)
        }
    }
}
