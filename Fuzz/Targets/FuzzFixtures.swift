import Glibc
import Synchronization
import TactusEngine
import TactusInProcessHost
import TactusModel

/// Pattern texts and pattern files the fuzz targets send, chosen by index, so
/// that an input can name a valid dense pattern in one byte instead of
/// hoping to spell one. Random bytes are sent too; these make sure that
/// accepted edits, and notes, happen often.
public enum FuzzFixtures {
    public static let patternTexts: [String] = [
        // Dense: merges, retriggers, overlaps, notes longer than the loop, two channels.
        "tactus-pattern 1\nlength 2\nnote 0 1/4 60 100\nnote 0 1/2 60 90\nnote 1/3 1/3 62 80 2\nnote 1/2 3 64 70\nnote 1 1/7 60 127\nnote 3/2 1/1000 65 1 16\n",
        "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\n",
        "tactus-pattern 1\nlength 7/3\nnote 0 5 48 64 3\nnote 1/7 1/7 50 64 3\nnote 2/7 1/100000 52 64\nnote 2 1/3 48 64 3\n",
        "tactus-pattern 1\nlength 1\n",
        "tactus-pattern 1\nlength 4\nnote 0 1 60 0\n",
        "tactus-pattern 1\nnote 0 1 60 100\n",
        "\u{FEFF}tactus-pattern 1\r\nlength 7/2\r\nnote 0 1/2 60 100\r\nnote 1.75 1/2 67 100\r\n",
        "tactus-pattern 1\nlength 1000000\nnote 0 1/2147483647 60 100\nnote 999999.999999999 1000000 61 100\n",
        // A loop far shorter than a block: the work bound and the skip path.
        "tactus-pattern 1\nlength 1/1000\nnote 0 1/2000 60 100\nnote 1/3000 1/1000 61 100 2\n",
        "tactus-pattern 1\nlength 4\nnote 5 1 60 100\n",
        "tactus-pattern 1\nlength 4\n# caf\u{E9}\nnote 0 1 60 100\n",
        "tactus-pattern 1\nlength 1/3\nnote 0 1000000 60 100\nnote 0 1000000 60 100\nnote 1/9 1/9 127 127 16\n",
        manyNotes,
        // Controllers (contract §10): ramps across the loop end, locks on overlapping notes, programs, a switch.
        "tactus-pattern 3\ntrigger program\npattern a program 3\nlane x length 2 channel 2 ramp-step 1/16\nnote 0 1 60 100 cc74=120\nnote 1/2 1 62 90 cc74=10 cc1=64\ncc 74 0 0\ncc 74 3/2 127 ramp\nbend 1 -8192 ramp\nprogram 0 7\npattern b\nlane y length 3/2 swing 2/3 1/4\nnote 0 1/4 64 100 cc74=90\ncc 1 0 0\ncc 1 1 127 ramp\npressure 1/2 64\n",
        "tactus-pattern 3\nlane fine length 1/1000 ramp-step 1/100000\nnote 0 1/2000 60 100 cc7=1\ncc 7 0 0\ncc 7 1/2000 127 ramp\n",
    ]

    /// About 45 KB: more than the plugin announces in one message (32 KiB), so it goes in pieces.
    public static let longText: String = {
        var text = "tactus-pattern 1\n# long: sent in pieces\nlength 200\n"
        for i in 0..<1500 { text += "note \(i)/8 1/16 \(36 + i % 60) \(1 + i % 127)   # note \(i) of a long pattern\n" }
        return text
    }()

    /// 300 notes on 300 (channel, key) slots, all at once: more than small buffers hold.
    static var manyNotes: String {
        var text = "tactus-pattern 1\nlength 1\n"
        for i in 0..<300 { text += "note \(i % 3)/4 1/2 \(i % 128) 100 \(i / 128 + 1)\n" }
        return text
    }

    /// A scratch folder with pattern files, made once per process.
    public static let folder: String = {
        var template = Array("/tmp/tactus-fuzz-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        write(dir + "/valid.pattern", patternTexts[0])
        write(dir + "/one.pattern", patternTexts[1])
        write(dir + "/invalid.pattern", patternTexts[4])
        write(dir + "/empty.pattern", "")
        write(dir + "/song.mid", "MThd")
        mkfifo(dir + "/fifo.pattern", 0o600)  // opening it must not wait for a writer
        return dir
    }()

    /// Paths a `patternFile` edit or a restored state may name.
    public static let patternPaths: [String] = {
        [
            folder + "/valid.pattern", folder + "/one.pattern", folder + "/invalid.pattern", folder + "/empty.pattern",
            folder + "/song.mid", folder + "/missing.pattern", folder, "/dev/null", "relative/missing.pattern",
            folder + "/fifo.pattern", folder + "/one.pattern\u{0}ignored", "\u{1B}[31m/tmp/escape.pattern",
            "/" + String(repeating: "x", count: 5000), "",
        ]
    }()

    /// One URID map for every input of a process: a fresh map per input would
    /// cost more than the plugin's run, and a map hands out the same numbers
    /// for the same URIs mapped in the same order, input after input.
    public static let map = URIDMap()

    static func write(_ path: String, _ text: String) {
        guard let f = fopen(path, "wb") else { return }
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, f) }
        fclose(f)
    }

    /// The contents of a file, or nil when it cannot be read (a FIFO or a
    /// socket is not read: it could block). The fixtures never change, so each
    /// is read once per process.
    public static func contents(_ path: String) -> [UInt8]? {
        if let known = cache.withLock({ $0[path] }) { return known }
        let bytes = read(path)
        cache.withLock { $0[path] = .some(bytes) }
        return bytes
    }

    private static let cache = Mutex<[String: [UInt8]?]>([:])

    private static func read(_ path: String) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        guard kind != S_IFIFO, kind != S_IFSOCK, let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 4096, f) }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return ferror(f) != 0 ? nil : out
    }
}
