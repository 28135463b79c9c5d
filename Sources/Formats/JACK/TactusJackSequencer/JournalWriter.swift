import FileIO
import Glibc
import TactusEngine
import TactusJack
import TactusModel
import TactusOffline

/// Writes what a `tactus jack` session did as a session description that
/// `tactus render` and `tactus verify` replay: `session.transport` (the
/// positions the core was given, the all-notes-offs, and the pattern edits at
/// the cycle that installed them), the pattern files it names, and
/// `frame-times.txt`, which ties its frames to the JACK server's frame time.
///
/// Frames count from the client's first process cycle, as a plugin's do.
/// Positions are written as raw Double positions, exactly as applied, so the
/// replay gives the core the same input. An edit installed at the start of
/// the cycle at frame F is written at F-1: an edit takes effect at the start
/// of the block after the one it arrives in (timing contract §5).
///
/// Every file is written whole or not at all (`AtomicFile`); what could not be
/// written is kept in `failures` with the system's reason, and the session
/// ends with exit status 1.
///
/// Thread: the prompt thread. Not realtime.
struct JournalWriter {
    /// The journal's folder, as given.
    let folder: String
    private var script: String
    /// Pattern texts of edits not (yet) installed, by tag.
    private var texts: [UInt64: [UInt8]] = [:]
    /// `frame-times.txt`: where each run of consecutive cycles starts, in this
    /// client's frames and in the server's frame time (to line up recordings).
    private var frameTimes = "# FRAME JACK_FRAME_TIME: a run of consecutive cycles starts here (first cycle, or after a skipped one)\n"
    private var installed: Set<UInt64> = []
    /// The prompt's pattern requests not yet given to the core: `NAME [WHEN]` by request word.
    private var requests: [UInt64: String] = [:]
    private var lastInstalled: UInt64 = 0
    private let period: Int
    /// Files that could not be written, as messages (`cannot write 'PATH': No space left on device`).
    private(set) var failures: [String] = []

    init(folder: String, sampleRate: Double, period: Int) throws(FileWriteError) {
        self.folder = folder
        self.period = period
        try Folder.create(folder)
        script = """
            tactus-transport 1
            # What a tactus jack session did, written as it ran: the positions the
            # core was given at each cycle, the all-notes-offs on its control port,
            # and each pattern edit the frame before the cycle that installed it.
            # Frames count from the client's first cycle. Replay: tactus render
            # --transport session.transport (or tactus verify with a recorded log).
            rate \(JournalWriter.number(sampleRate))
            blocks \(period)

            """
    }

    static func fileName(tag: UInt64) -> String {
        let digits = String(tag)
        return "edit-" + String(repeating: "0", count: max(0, 5 - digits.count)) + digits + ".pattern"
    }

    /// Keeps an edit's text until it is installed (or the session ends).
    mutating func recordEdit(tag: UInt64, text: [UInt8]) {
        texts[tag] = text
    }

    /// Keeps a `play NAME [WHEN]` request's words until the core takes it.
    mutating func recordRequest(word: UInt64, text: String) {
        requests[word] = text
    }

    mutating func write(_ entry: JournalEntry) {
        switch entry.kind {
        case .position:
            // Every key the core was given (the beat unit the MIDI clock counts by too), Doubles exact.
            script += "\(entry.frame) \(entry.update.scriptPosition.scriptAction)\n"
        case .allNotesOff:
            script += "\(entry.frame) midi \(JournalWriter.hex(entry.status)) \(JournalWriter.hex(entry.data1)) 00\n"
        case .followInput:
            script += "\(entry.frame) midi \(JournalWriter.hex(entry.status)) \(JournalWriter.hex(entry.data1)) \(JournalWriter.hex(entry.data2))\n"
        case .laneMutes:
            // The transport script's `mute` (lanes from 0; none: every lane unmuted).
            let lanes = (0..<64).filter { entry.snapshot & (UInt64(1) << UInt64($0)) != 0 }
            script += "\(entry.frame) mute" + lanes.map { " \($0)" }.joined() + "\n"
        case .thru:
            script += "\(entry.frame) thru \(entry.snapshot != 0 ? "on" : "off")\n"
        case .song:
            script += "\(entry.frame) song \(entry.snapshot != 0 ? "on" : "off")\n"
        case .request:
            // The transport script's `request NAME [WHEN]` (requests replaced within one cycle never reached the core).
            if let text = requests[entry.snapshot] { script += "\(entry.frame) request \(text)\n" }
            requests = requests.filter { $0.key > entry.snapshot }
        case .clock:
            frameTimes += "\(entry.frame) \(entry.snapshot)\n"
        case .installed:
            let name = JournalWriter.fileName(tag: entry.snapshot)
            if let text = texts[entry.snapshot] { save(text, as: name) }
            installed.insert(entry.snapshot)
            lastInstalled = entry.snapshot
            // Edits made before this one and never installed were replaced within one cycle.
            texts = texts.filter { $0.key > entry.snapshot }
            script += entry.frame == 0 ? "pattern \(name)\n" : "\(entry.frame - 1) pattern \(name)\n"
        }
    }

    /// Ends the script at `endFrame` and writes it; also writes `last.pattern`,
    /// the pattern that played last.
    mutating func finish(endFrame: Int64) {
        script += "\(max(endFrame, 1)) end\n"
        save(Array(script.utf8), as: "session.transport")
        save(Array(frameTimes.utf8), as: "frame-times.txt")
        if case .success(let text) = FileInput.read(path(of: JournalWriter.fileName(tag: lastInstalled))) {
            save(text, as: "last.pattern")
        }
    }

    private mutating func save(_ bytes: [UInt8], as name: String) {
        do { try AtomicFile.write(bytes, to: path(of: name)) } catch {
            SequencerSession.printError("Error: journal: \(error)")
            failures.append(error.description)
        }
    }

    /// The path of the journal's file `name`.
    func path(of name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
