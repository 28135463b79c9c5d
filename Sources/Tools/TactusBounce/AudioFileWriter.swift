import CSndFile
import Glibc

/// A stereo audio file written through libsndfile that is complete or not
/// there (docs/bounce.md, B6): samples go to a temporary file beside the
/// target (`.NAME.tmp-XXXXXX`, same folder, so the rename is atomic);
/// `commit()` closes, `fsync`s and renames it over the target. A failed write
/// (a full disk), a failed close, or `discard()` removes the temporary file
/// and leaves the target as it was.
///
/// 16-bit files get TPDF dither (two uniform variates, ±1 LSB peak, from a
/// fixed seed so a bounce is reproducible); float samples beyond ±1 are
/// clipped by libsndfile for integer formats. One thread; O(frames).
public final class AudioFileWriter {
    public let path: String
    public let format: AudioFileFormat
    private let temporaryPath: String
    private var file: OpaquePointer?
    private var interleaved: [Float] = []
    private var dither = SplitMix(seed: 0x7AC7_5B0C)
    public private(set) var framesWritten: Int64 = 0

    public init(path: String, format: AudioFileFormat, sampleRate: Int) throws(BounceError) {
        self.path = path
        self.format = format
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array((folder + "." + name + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw BounceError("cannot create '\(path)': \(String(cString: strerror(errno)))") }
        close(fd)
        temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let mask = umask(0)
        umask(mask)
        chmod(temporaryPath, 0o666 & ~mask)
        var info = SF_INFO(frames: 0, samplerate: Int32(sampleRate), channels: 2, format: format.sndfileFormat, sections: 0, seekable: 0)
        guard let file = sf_open(temporaryPath, Int32(SFM_WRITE), &info) else {
            let reason = String(cString: sf_strerror(nil))
            unlink(temporaryPath)
            throw BounceError("cannot write '\(path)' as \(format) at \(sampleRate) Hz: \(reason)")
        }
        self.file = file
        sf_command(file, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        // No PEAK chunk in float WAVs: it carries the time of writing, and the
        // same bounce should give the same bytes (the peak is reported anyway).
        sf_command(file, Int32(SFC_SET_ADD_PEAK_CHUNK), nil, Int32(SF_FALSE))
    }

    deinit { discard() }

    /// Appends `frameCount` frames. Throws (and removes the temporary file) when the write fails.
    public func write(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frameCount: Int) throws(BounceError) {
        guard let file else { throw BounceError("cannot write '\(path)': already closed") }
        if interleaved.count < 2 * frameCount { interleaved = [Float](repeating: 0, count: 2 * frameCount) }
        let lsb: Float = format.samples == .pcm16 ? 1.0 / 32768 : 0
        interleaved.withUnsafeMutableBufferPointer { out in
            for i in 0..<frameCount {
                out[2 * i] = left[i]
                out[2 * i + 1] = right[i]
            }
            if lsb > 0 {
                for i in 0..<(2 * frameCount) { out[i] += (dither.nextUnit() - dither.nextUnit()) * lsb }
            }
        }
        let written = interleaved.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(frameCount)) }
        guard written == frameCount else {
            let reason = sf_error(file) != 0 ? String(cString: sf_strerror(file)) : String(cString: strerror(errno))
            discard()
            throw BounceError("cannot write '\(path)': \(reason); nothing was left there")
        }
        framesWritten += Int64(frameCount)
    }

    /// Closes, syncs and renames the file into place, or throws and leaves nothing.
    public func commit() throws(BounceError) {
        guard let file else { throw BounceError("cannot write '\(path)': already closed") }
        self.file = nil
        sf_write_sync(file)
        let status = sf_close(file)
        var failure: String?
        if status != 0 { failure = String(cString: sf_error_number(status)) }
        if failure == nil {
            let fd = open(temporaryPath, O_RDONLY)
            if fd < 0 || fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
            if fd >= 0 { close(fd) }
        }
        if failure == nil, rename(temporaryPath, path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporaryPath)
            throw BounceError("cannot write '\(path)': \(failure); nothing was left there")
        }
    }

    /// Gives up: the temporary file is removed, the target stays as it was.
    public func discard() {
        guard let file else { return }
        sf_close(file)
        self.file = nil
        unlink(temporaryPath)
    }
}

/// SplitMix64, for dither: fast, seeded, the same noise every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func nextUnit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}
