import CSndFile

/// The container and sample format of an output file (docs/bounce.md, B6):
/// the container from the file's extension (`.wav`, `.flac`), the samples
/// from `--bits` (16, 24, or `float` for WAV only). 16-bit output is dithered.
public struct AudioFileFormat: Equatable, Sendable, CustomStringConvertible {
    public enum Container: String, Sendable { case wav, flac }
    public enum Samples: String, Sendable { case pcm16 = "16", pcm24 = "24", float = "float" }

    public var container: Container
    public var samples: Samples

    public init(container: Container, samples: Samples) {
        self.container = container
        self.samples = samples
    }

    /// The format for `path` (by its extension, case-insensitive) and `bits`
    /// (`16`, `24`, `float`; nil: 24). Throws a sentence naming what is wrong.
    public init(path: String, bits: String?) throws(BounceError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), let container = Container(rawValue: name[name.index(after: dot)...].lowercased()) else {
            throw BounceError("-o '\(path)': the output's extension must be .wav or .flac (it says which format to write)")
        }
        guard let samples = Samples(rawValue: bits ?? "24") else {
            throw BounceError("--bits must be 16, 24 or float, found '\(bits ?? "")'")
        }
        if container == .flac && samples == .float {
            throw BounceError("--bits float with '\(path)': FLAC holds integer samples only; use --bits 16 or 24, or a .wav for float")
        }
        self.init(container: container, samples: samples)
    }

    /// libsndfile's format code.
    var sndfileFormat: Int32 {
        let major = container == .wav ? SF_FORMAT_WAV : SF_FORMAT_FLAC
        let minor: Int
        switch samples {
        case .pcm16: minor = SF_FORMAT_PCM_16
        case .pcm24: minor = SF_FORMAT_PCM_24
        case .float: minor = SF_FORMAT_FLOAT
        }
        return Int32(major | minor)
    }

    public var description: String {
        "\(container == .wav ? "WAV" : "FLAC") \(samples == .float ? "32-bit float" : samples.rawValue + "-bit")"
    }
}
