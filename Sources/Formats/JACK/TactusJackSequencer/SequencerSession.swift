import CJack
import CRTCheckHooks
import FileIO
import Glibc
import Synchronization
import TactusEngine
import TactusModel
import TactusJack
import TactusNSM

/// How `tactus jack` runs: the command line's options.
public struct SequencerOptions: Sendable {
    /// The pattern to start with; the default one-bar figure when nil.
    public var patternFile: String?
    public var name = "tactus"
    /// A JACK server name; `$JACK_DEFAULT_SERVER` or the default server when nil.
    public var server: String?
    /// Be the JACK timebase master, at a constant tempo and meter.
    public var master = false
    public var beatsPerMinute = 120.0
    public var beatsPerBar = 4.0
    /// Start the transport rolling at launch (`--play`).
    public var play = false
    /// Input ports to connect the MIDI output to.
    public var connect: [String] = []
    /// A folder for the session journal (`session.transport` and the patterns it names).
    public var journal: String?
    /// Count allocator and lock calls in the process callback (libTactusRTCheck.so preloaded).
    public var rtcheck = false
    /// Print only errors (and the answers to show).
    public var quiet = false
    /// Lane mutes (bit `i`: lane `i`) and MIDI thru at the start: a session's settings (NSM).
    public var laneMutes: UInt64 = 0
    public var thru = false

    public init() {}
}

/// A `tactus jack` failure the user must fix: the message says what and how.
public struct SequencerError: Error, CustomStringConvertible {
    public var description: String
}

/// Set from SIGINT/SIGTERM, and when JACK shuts the client down.
let quitSignal = Atomic<Bool>(false)
let serverGone = Atomic<Bool>(false)
let xrunCount = Atomic<Int>(0)

/// `tactus jack`: a JACK client that plays a pattern in time with JACK
/// transport while a person edits it at a line prompt.
///
/// Threads: `run` opens the client, then becomes the prompt thread. It is the
/// only producer of pattern snapshots (each edit builds one and offers it to
/// the process callback through the core's `SnapshotExchange`) and the only
/// reclaimer (retired snapshots come back and are freed here), and it drains
/// the process callback's journal. The process callback
/// (`JackSequencerProcess.process`) owns the renderer.
public enum SequencerSession {
    /// Runs until `quit`, the end of standard input, SIGINT/SIGTERM or the
    /// JACK server going away. Throws when it cannot start.
    ///
    /// With `NSM_URL` set (docs/jack.md, "In a session manager"), it first
    /// announces itself to the session manager and registers with JACK only
    /// once told to open a session, under the client id given, with the
    /// session's pattern and settings; the end of standard input does not
    /// quit it then.
    public static func run(_ options: SequencerOptions) throws(SequencerError) {
        var options = options
        var editor: PatternEditor
        var firstText: [UInt8]
        if let file = options.patternFile {
            switch FileInput.read(file) {
            case .success(let bytes): firstText = bytes
            case .failure(let reason): throw SequencerError(description: "\(PatternEditor.displayPath(file)): cannot read it: \(reason)")
            }
            do { editor = try PatternEditor(parsing: firstText) } catch {
                throw SequencerError(description: "\(PatternEditor.displayPath(file)):\(error.location): \(error.reasonText)")
            }
        } else {
            firstText = DefaultPattern.bytes
            do { editor = try PatternEditor(parsing: firstText) } catch {
                throw SequencerError(description: "the default pattern does not parse: \(error)")
            }
        }

        let seedText = firstText
        let seedSettings = options.sessionSettings
        signal(SIGINT) { _ in quitSignal.store(true, ordering: .relaxed) }
        signal(SIGTERM) { _ in quitSignal.store(true, ordering: .relaxed) }
        signal(SIGPIPE, SIG_IGN)

        let sessionManager = SessionManagerLink.fromEnvironment(quiet: options.quiet)
        var opening: SessionManagerLink.OpenRequest? = nil
        if let link = sessionManager {
            link.announce(name: options.name)
            // No JACK client until the session manager says which session, under which name.
            while opening == nil {
                guard let request = try link.waitForOpen(quit: { quitSignal.load(ordering: .relaxed) }) else { return }
                switch OpenedSession.open(SessionFolder(path: request.path), seedText: seedText, seedSettings: seedSettings) {
                case .success(let opened):
                    for warning in opened.warnings { printError("Warning: \(warning)") }
                    editor = opened.editor
                    firstText = opened.text
                    options.apply(opened.settings)
                    options.name = request.clientID
                    opening = request
                case .failure(let failure):
                    link.fail(NSMProtocol.openPath, failure.code, failure.message, sender: request.sender)
                }
            }
        }
        do {
            try openAndPlay(options, editor: editor, firstText: firstText, sessionManager: sessionManager, opening: opening, seedText: seedText, seedSettings: seedSettings)
        } catch {
            // The session manager is told why, not left waiting for the open's answer.
            if let opening { sessionManager?.fail(NSMProtocol.openPath, .general, error.description, sender: opening.sender) }
            throw error
        }
    }

    /// Opens the JACK client (named `options.name`), plays `editor`'s
    /// pattern and runs the prompt until the end.
    private static func openAndPlay(
        _ options: SequencerOptions, editor: PatternEditor, firstText: [UInt8], sessionManager: SessionManagerLink?,
        opening: SessionManagerLink.OpenRequest?, seedText: [UInt8], seedSettings: SessionSettings
    ) throws(SequencerError) {
        var status = jack_status_t(rawValue: 0)
        var openOptions = JackNoStartServer
        if options.server != nil { openOptions = jack_options_t(rawValue: openOptions.rawValue | JackServerName.rawValue) }
        guard let client = jack_client_open_named(options.name, openOptions, &status, options.server) else {
            throw SequencerError(description: "cannot connect to the JACK server \(options.server ?? "(default)") (status 0x\(String(status.rawValue, radix: 16))); is jackd running?")
        }
        defer { jack_client_close(client) }
        let clientName = String(cString: jack_get_client_name(client))
        guard let midiOut = jack_port_register(client, "midi_out", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsOutput.rawValue), 0),
            let clockOut = jack_port_register(client, "clock_out", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsOutput.rawValue), 0),
            let controlIn = jack_port_register(client, "control", JACK_DEFAULT_MIDI_TYPE, UInt(JackPortIsInput.rawValue), 0)
        else { throw SequencerError(description: "cannot register the MIDI ports") }
        // JACK metadata: the names patchbays show (a server without a metadata store just keeps the short ones).
        PrettyNames.set("Tactus", client: client)
        for (port, pretty) in [(midiOut, "MIDI Out"), (clockOut, "MIDI Clock Out"), (controlIn, "Control In")] {
            PrettyNames.set(pretty, port: port, client: client)
        }
        defer { PrettyNames.remove(client: client, ports: [midiOut, clockOut, controlIn]) }
        if options.rtcheck && tactus_rtcheck_hooks_init() != 1 {
            throw SequencerError(description: "--rtcheck needs the interposer preloaded: LD_PRELOAD=.../libTactusRTCheck.so")
        }

        let sampleRate = Double(jack_get_sample_rate(client))
        // The first pattern plays from the first cycle.
        let first = editor.snapshot(tag: 0)
        let session = SessionState(
            sampleRate: sampleRate, client: client, midiOut: midiOut, clockOut: clockOut, controlIn: controlIn, options: options, pattern: first)
        defer { session.free() }
        var journal: JournalWriter? = nil
        if let folder = options.journal {
            do { journal = try JournalWriter(folder: folder, sampleRate: sampleRate, period: Int(jack_get_buffer_size(client))) } catch {
                throw SequencerError(description: "cannot write the journal: \(error)")
            }
        }
        // The first pattern plays from the first cycle.
        journal?.recordEdit(tag: 0, text: firstText)
        journal?.write(JournalEntry(kind: .installed, frame: 0, snapshot: 0))

        jack_on_shutdown(client, { _ in serverGone.store(true, ordering: .relaxed) }, nil)
        jack_set_xrun_callback(client, { _ in xrunCount.add(1, ordering: .relaxed); return 0 }, nil)
        guard jack_set_process_callback(client, { n, arg in
            JackSequencerProcess.process(n, arg!)
            return 0
        }, UnsafeMutableRawPointer(session.context)) == 0 else { throw SequencerError(description: "cannot set the process callback") }
        if options.master && !session.becomeTimebaseMaster() { throw SequencerError(description: "cannot become the JACK timebase master") }
        guard jack_activate(client) == 0 else { throw SequencerError(description: "cannot activate the JACK client") }
        session.connect(options.connect)
        if options.play { jack_transport_start(client) }

        let tty = isatty(0) == 1
        if !options.quiet {
            let period = jack_get_buffer_size(client)
            SequencerSession.say("tactus jack: client \(clientName) at \(Int(sampleRate)) Hz, \(period) frames a cycle; ports \(clientName):midi_out, \(clientName):clock_out, \(clientName):control")
            SequencerSession.say(options.master
                ? "tactus jack: timebase master at \(PatternEditor.numberText(options.beatsPerMinute)) bpm, \(PatternEditor.numberText(options.beatsPerBar)) beats a bar"
                : "tactus jack: following JACK transport (BBT from the timebase master when there is one)")
            if tty { SequencerSession.say("type help for the commands") }
        }

        var prompt = Prompt(session: session, editor: editor, journal: journal, tty: tty, quiet: options.quiet)
        if let link = sessionManager, let opening {
            // Open: registered, playing; the session manager hears it is done.
            prompt.sessionManager = link
            prompt.seedText = seedText
            prompt.seedSettings = seedSettings
            var controls = LiveControls()
            controls.laneMutes = options.laneMutes
            controls.thru = options.thru
            prompt.apply(controls)
            link.folder = SessionFolder(path: opening.path)
            link.clientID = opening.clientID
            link.markClean()
            link.reply(to: NSMProtocol.openPath, "opened \(opening.path) as JACK client \(clientName)", sender: opening.sender)
            link.say("opened \(PatternEditor.displayPath(opening.path)) as JACK client \(clientName)")
        }
        prompt.loop()
        let failures = prompt.close()
        if !failures.isEmpty {
            throw SequencerError(description: "the journal in '\(PatternEditor.displayPath(journal!.folder))' is incomplete: \(CappedList.inline(failures))")
        }
    }

    /// Writes to standard output at once (no stdio buffering), so that answers,
    /// errors and the prompt come out in order in a log or a pipe.
    static func say(_ text: String, terminator: String = "\n") {
        let bytes = Array((text + terminator).utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            written += n
        }
    }

    static func printError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            written += n
        }
    }
}

/// What the prompt thread allocates for the process callback, and frees after it.
final class SessionState {
    let context: UnsafeMutablePointer<ProcessContext>
    /// What the timebase callback reads; a switch to another session's tempo
    /// makes a new one and keeps the old in `retiredClocks` until `free()`.
    var clock: UnsafeMutablePointer<MasterClock>
    var retiredClocks: [UnsafeMutablePointer<MasterClock>] = []
    let client: OpaquePointer
    /// The options as they are now (a switch to another session changes its settings).
    var options: SequencerOptions
    let sampleRate: Double

    init(
        sampleRate: Double, client: OpaquePointer, midiOut: OpaquePointer, clockOut: OpaquePointer? = nil, controlIn: OpaquePointer,
        options: SequencerOptions, pattern: PatternSnapshot
    ) {
        self.client = client
        self.options = options
        self.sampleRate = sampleRate
        let sequencer = UnsafeMutablePointer<Sequencer>.allocate(capacity: 1)
        sequencer.initialize(to: Sequencer(sampleRate: sampleRate, eventCapacity: 8192, pattern: pattern))
        let follower = UnsafeMutablePointer<JackTransportFollower>.allocate(capacity: 1)
        follower.initialize(to: JackTransportFollower())
        let journal = UnsafeMutablePointer<SPSCQueue<JournalEntry>>.allocate(capacity: 1)
        journal.initialize(to: SPSCQueue(capacity: 1 << 16))
        let counters = UnsafeMutablePointer<ProcessCounters>.allocate(capacity: 1)
        counters.initialize(to: ProcessCounters())
        let flags = UnsafeMutablePointer<SessionFlags>.allocate(capacity: 1)
        flags.initialize(to: SessionFlags())
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 4)
        context = .allocate(capacity: 1)
        context.initialize(to: ProcessContext(
            client: client, midiOut: midiOut, clockOut: clockOut, controlIn: controlIn, sequencer: sequencer, follower: follower,
            journal: journal, counters: counters, flags: flags, scratch: scratch,
            rtcheck: options.rtcheck, journaling: options.journal != nil))
        clock = .allocate(capacity: 1)
        clock.initialize(to: MasterClock(sampleRate: sampleRate, beatsPerMinute: options.beatsPerMinute, beatsPerBar: options.beatsPerBar))
    }

    /// After the client is deactivated: frees everything, snapshots included.
    func free() {
        let c = context.pointee
        c.sequencer.deinitialize(count: 1).deallocate()  // frees every snapshot it holds
        c.follower.deinitialize(count: 1).deallocate()
        c.journal.deinitialize(count: 1).deallocate()
        c.counters.deinitialize(count: 1).deallocate()
        c.flags.deinitialize(count: 1).deallocate()
        c.scratch.deallocate()
        context.deinitialize(count: 1).deallocate()
        clock.deinitialize(count: 1).deallocate()
        for retired in retiredClocks { retired.deinitialize(count: 1).deallocate() }
    }

    /// The timebase callback of `--master`, at `clock`'s tempo and meter.
    func becomeTimebaseMaster() -> Bool {
        jack_set_timebase_callback(client, 0, { _, _, pos, _, arg in
            JackSequencerProcess.timebase(pos!, arg!)
        }, UnsafeMutableRawPointer(clock)) == 0
    }
}

/// The prompt: reads lines from standard input (a terminal or a pipe) without
/// blocking the housekeeping it does between them: freeing retired
/// snapshots, offering an edit that found the queue full, writing the journal.
struct Prompt {
    let session: SessionState
    var editor: PatternEditor
    var journal: JournalWriter?
    let tty: Bool
    let quiet: Bool
    /// Under a session manager (NSM): the link, and what a new session starts from.
    var sessionManager: SessionManagerLink?
    var seedText: [UInt8] = []
    var seedSettings = SessionSettings()
    /// Standard input ended under a session manager, which keeps the client running.
    private var inputEnded = false
    /// An edit not yet accepted by the full queue; a newer edit replaces it.
    private var waiting: PatternSnapshot? = nil
    private var nextTag: UInt64 = 1
    private var input = LineReader(fd: 0)
    /// On a terminal: libedit's line editing, history and completion.
    private var lineEditor: LineEditor?
    private var edits = 0
    private var rejected = 0
    /// Lane mutes and MIDI thru (`mute`, `unmute`, `thru`), handed to the process callback.
    var controls = LiveControls()
    /// `play NAME [WHEN]`, `song on|off`, `patterns` (§9), handed to the process callback.
    var patternControls = PatternControls()

    init(session: SessionState, editor: PatternEditor, journal: JournalWriter?, tty: Bool, quiet: Bool) {
        self.session = session
        self.editor = editor
        self.journal = journal
        self.tty = tty
        self.quiet = quiet
    }

    private var exchange: UnsafePointer<SnapshotExchange> { session.context.pointee.sequencer.pointee.handOver }

    mutating func loop() {
        if tty { lineEditor = LineEditor(prompt: "tactus> ") }
        defer { lineEditor?.close() }
        if lineEditor == nil { showPrompt() }
        while !quitSignal.load(ordering: .relaxed) {
            if serverGone.load(ordering: .relaxed) {
                SequencerSession.printError("tactus jack: the JACK server shut the client down")
                return
            }
            housekeeping()
            if inputEnded {
                serviceSessionManager(timeoutMilliseconds: 20)
                continue
            }
            let next = lineEditor != nil ? lineEditor!.next(timeoutMilliseconds: 20) : input.next(timeoutMilliseconds: 20)
            switch next {
            case .timeout: continue
            case .end:
                // A session manager starts clients without a terminal: it, not the input, ends the session.
                guard sessionManager != nil else { return }
                inputEnded = true
                if !quiet { SequencerSession.say("tactus jack: standard input ended; the session manager keeps tactus running (SIGTERM quits)") }
            case .line(let line):
                if !handle(line) { return }
                showPrompt()
            }
        }
    }

    private func showPrompt() {
        if let lineEditor {
            lineEditor.showPrompt()
        } else if tty {
            SequencerSession.say("tactus> ", terminator: "")
        }
    }

    /// False to quit.
    private mutating func handle(_ line: String) -> Bool {
        for command in PatternEditor.commands(in: line) where !run(command) { return false }
        return true
    }

    /// One command of a line; false to quit.
    private mutating func run(_ command: String) -> Bool {
        let words = PatternEditor.words(of: command)
        let outcome: PatternEditor.Outcome
        let before = controls
        let flags = session.context.pointee.flags
        if let (answer, request) = patternControls.run(words, text: patternText, now: playing) {
            outcome = answer
            flags.pointee.song.store(patternControls.song, ordering: .relaxed)
            if let request {
                journal?.recordRequest(word: request.word, text: words.dropFirst().joined(separator: " "))
                flags.pointee.patternRequest.store(request.word, ordering: .relaxed)
            }
        } else if let live = controls.run(words, lanes: LiveControls.laneNames(editor.pattern)) {
            outcome = live
            if controls != before { sessionManager?.markDirty() }
            flags.pointee.laneMutes.store(controls.laneMutes, ordering: .relaxed)
            flags.pointee.thru.store(controls.thru, ordering: .relaxed)
        } else if words.first == "status" {
            outcome = words.count == 1 ? .answer(status()) : .error("status: takes nothing")
        } else if words.first == "help" || words.first == "?" {
            outcome = .answer(PatternEditor.help(adding: LiveControls.help + "\n" + PatternControls.help))
        } else {
            outcome = editor.run(command)
        }
        switch outcome {
        case .answer(let text):
            if !text.isEmpty { SequencerSession.say(text) }
        case .error(let text):
            rejected += 1
            SequencerSession.printError("error: \(text)")
        case .changed(let text):
            edits += 1
            publish()
            sessionManager?.markDirty()
            if !quiet { SequencerSession.say(text) }
        case .transport(let request):
            transport(request)
        case .quit:
            return false
        }
        return true
    }

    /// Builds the edited pattern's snapshot here, off the audio thread, and
    /// offers it; if the queue is full (the process callback is not running),
    /// it waits in `waiting`, replaced by any newer edit, and is offered again
    /// by `housekeeping`.
    mutating func publish() {
        // The text as edited: the author's comments and layout kept.
        let text = editor.text
        let tag = nextTag
        nextTag += 1
        journal?.recordEdit(tag: tag, text: text)
        let snapshot = editor.snapshot(tag: tag)
        if let superseded = waiting { superseded.destroy() }
        waiting = snapshot
        housekeeping()
    }

    private mutating func housekeeping() {
        exchange.pointee.reclaim()
        if let snapshot = waiting, exchange.pointee.offer(snapshot) { waiting = nil }
        drainJournal()
        if !inputEnded { serviceSessionManager(timeoutMilliseconds: 0) }
    }

    private mutating func drainJournal() {
        let queue = session.context.pointee.journal
        while let entry = queue.pointee.pop() { journal?.write(entry) }
    }

    /// The patterns of the text at the prompt, and whether it has a song.
    private var patternText: PatternControls.Text {
        PatternControls.Text(names: editor.patternNames, hasSong: editor.arrangement?.song != nil)
    }

    /// The pattern playing and the one queued, as the process callback last published them.
    private var playing: PatternControls.Playing {
        let flags = session.context.pointee.flags
        return PatternControls.Playing(
            playing: flags.pointee.playingPattern.load(ordering: .relaxed), queued: flags.pointee.queuedPattern.load(ordering: .relaxed))
    }

    /// What `status` says: JACK transport as Tactus follows it, the lane
    /// mutes, MIDI thru, and what each port is connected to.
    private func status() -> String {
        let client = session.client
        var pos = jack_position_t()
        let state = jack_transport_query(client, &pos)
        var transport = state == JackTransportRolling ? "rolling" : (state == JackTransportStarting ? "starting" : "stopped")
        if pos.valid.rawValue & JackPositionBBT.rawValue != 0 {
            transport += " at bar \(pos.bar) beat \(pos.beat), \(PatternEditor.numberText((pos.beats_per_minute * 100).rounded() / 100)) bpm, "
                + "\(PatternEditor.numberText(Double(pos.beats_per_bar)))/\(PatternEditor.numberText(Double(pos.beat_type)))"
        } else {
            transport += " at frame \(pos.frame) (no BBT: \(PatternEditor.numberText(session.options.beatsPerMinute)) bpm)"
        }
        let name = String(cString: jack_get_client_name(client))
        var lines = [
            "transport: " + transport + (session.options.master ? " (Tactus is the timebase master)" : ""),
            "lanes: " + controls.mutesText(lanes: LiveControls.laneNames(editor.pattern)),
            "MIDI thru: " + (controls.thru ? "on" : "off"),
            "patterns: " + patternControls.patternsText(patternText, now: playing),
        ]
        for (port, arrow) in [("midi_out", "->"), ("clock_out", "->"), ("control", "<-")] {
            var peers: [String] = []
            if let p = jack_port_by_name(client, "\(name):\(port)"), let list = jack_port_get_connections(p) {
                var i = 0
                while let c = list[i] { peers.append(String(cString: c)); i += 1 }
                jack_free(UnsafeMutableRawPointer(mutating: list))
            }
            lines.append("\(name):\(port) \(arrow) " + (peers.isEmpty ? "(not connected)" : peers.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n")
    }

    private func transport(_ request: PatternEditor.TransportRequest) {
        let client = session.client
        switch request {
        case .play: jack_transport_start(client)
        case .stop: jack_transport_stop(client)
        case .locate(let beat):
            // At the tempo JACK publishes now (constant tempo assumed), else --bpm.
            var pos = jack_position_t()
            _ = jack_transport_query(client, &pos)
            let hasBBT = pos.valid.rawValue & JackPositionBBT.rawValue != 0 && pos.beats_per_minute > 0
            let bpm = hasBBT ? pos.beats_per_minute : session.options.beatsPerMinute
            let frame = max(0, beat * 60 * session.sampleRate / bpm)
            jack_transport_locate(client, jack_nframes_t(min(frame.rounded(), Double(UInt32.max))))
        }
    }

    /// Stops the sequencer (note-offs for what sounds), lets the last edit
    /// reach the journal, deactivates, reports. Returns the journal's files
    /// that could not be written.
    mutating func close() -> [String] {
        // Closing (a SIGTERM is how a session manager ends a session): no more of its messages.
        sessionManager = nil
        let flags = session.context.pointee.flags
        // An edit still waiting goes out first, so that none is lost.
        var patience = 0
        while waiting != nil && patience < 200 && !serverGone.load(ordering: .relaxed) {
            housekeeping()
            usleep(5_000)
            patience += 1
        }
        let deadline = 400
        var waited = 0
        while exchange.pointee.hasPending && waited < deadline && !serverGone.load(ordering: .relaxed) {
            usleep(5_000)
            waited += 1
        }
        flags.pointee.closeRequested.store(true, ordering: .releasing)
        waited = 0
        while flags.pointee.closedAt.load(ordering: .acquiring) < 0 && waited < deadline && !serverGone.load(ordering: .relaxed) {
            usleep(5_000)
            waited += 1
        }
        jack_deactivate(session.client)
        housekeeping()
        let counters = session.context.pointee.counters.pointee
        let statistics = session.context.pointee.sequencer.pointee.renderer.statistics
        let closedAt = flags.pointee.closedAt.load(ordering: .acquiring)
        journal?.finish(endFrame: closedAt >= 0 ? closedAt : counters.processed)
        if let superseded = waiting { superseded.destroy() }
        waiting = nil

        // One line a person (or a test) can read: what was done, what went wrong.
        let xruns = xrunCount.load(ordering: .relaxed)
        let count = PatternEditor.counted
        var report = "tactus jack: \(count(edits, "edit")), \(rejected) rejected; \(count(xruns, "xrun")), "
            + "\(count(Int(counters.failedWrites), "event")) JACK could not take, \(count(Int(statistics.droppedNoteOns), "note-on")) dropped"
        report += "; longest callback \(counters.longestCallback) µs of a \(Int(1e6 * Double(jack_get_buffer_size(session.client)) / session.sampleRate)) µs cycle"
        if counters.lostJournalEntries > 0 { report += ", \(counters.lostJournalEntries) journal entr\(counters.lostJournalEntries == 1 ? "y" : "ies") lost" }
        if session.options.rtcheck {
            let allocations = tactus_rtcheck_hooks_allocations()
            let locks = tactus_rtcheck_hooks_locks()
            report += "; rtcheck: \(allocations) allocator calls, \(locks) lock calls in \(flags.pointee.cycles.load(ordering: .relaxed)) process cycles"
            if allocations + locks > 0 { report += " (first: \(String(cString: tactus_rtcheck_hooks_first())))" }
        }
        SequencerSession.printError(report)
        return journal?.failures ?? []
    }
}

/// Lines from a file descriptor, with a timeout, so that the prompt thread
/// keeps doing its housekeeping while nobody types.
struct LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private var ended = false

    init(fd: Int32) { self.fd = fd }

    enum Result { case line(String), timeout, end }

    mutating func next(timeoutMilliseconds: Int32) -> Result {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return .line(line)
            }
            if ended {
                guard !buffer.isEmpty else { return .end }
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return .line(line)
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            if ready == 0 { return .timeout }
            if ready < 0 {
                if errno == EINTR { return .timeout }
                ended = true
                continue
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &chunk, chunk.count)
            if n > 0 {
                buffer += chunk[..<n]
            } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                ended = true
            }
        }
    }
}
