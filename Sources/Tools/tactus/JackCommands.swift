import ArgumentParser
import FileIO
import Glibc
import Synchronization
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusJack
import enum TactusJackSequencer.CappedList
import TactusOffline

/// Set by SIGINT/SIGTERM: the JACK tools finish cleanly (flush, close) instead of dying.
let stopRequested = Atomic<Bool>(false)

func installStopHandlers() {
    signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
    signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
}

struct JackTransportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jack-transport",
        abstract: "Be the JACK timebase master and play a transport script (tempo, meter, play, stop, locate).",
        discussion: """
            Frames in the script count from the master's first cycle; JACK applies \
            each action at the first cycle starting at or after its frame. Speed \
            changes other than play/stop, and loop ranges, do not exist in JACK \
            transport and are refused.
            """)

    @Argument(help: "Transport script (docs/transport-script.md).") var script: String
    @Option(help: "JACK server name (default: $JACK_DEFAULT_SERVER or the default server).") var server: String?
    @Option(help: "Ticks per beat in the BBT it publishes, 1-100000.") var ticksPerBeat: Double = 1920
    @Option(help: "Wait (up to 10 s) until these ports exist before starting (comma-separated).") var waitFor: String = ""
    @Flag(help: "Start, stop and locate only; publish no bar/beat/tick (JACK with no timebase master).") var noBbt = false

    func validate() throws {
        guard ticksPerBeat >= 1, ticksPerBeat <= 100_000 else { throw ValidationError("--ticks-per-beat must be 1-100000, found \(formatNumber(ticksPerBeat))") }
        if let bad = waitFor.split(separator: ",", omittingEmptySubsequences: false).first(where: { !$0.isEmpty && !$0.contains(":") }) {
            throw ValidationError("--wait-for '\(bad)': a port is CLIENT:PORT, like tactus:midi_out")
        }
    }

    func run() throws {
        let text = try TextFile.text(script)
        let parsed: TransportScript
        do { parsed = try TransportScript(parsing: text) } catch { throw CommandFailure("\(displayPath(script)):\(error.line): \(error.reason)") }
        let jack: JackClient
        do { jack = try JackClient(name: "tactus-transport", server: server) } catch { throw CommandFailure(error.description) }
        let master = TimebaseMaster(jack: jack, script: parsed, ticksPerBeat: ticksPerBeat)
        guard master.unsupported.isEmpty else { throw CommandFailure(CappedList.lines(master.unsupported, noun: "more unsupported action")) }
        let ports = waitFor.split(separator: ",").map(String.init)
        let deadline = MonotonicClock.now() + 10
        while !ports.allSatisfy(jack.hasPort), MonotonicClock.now() < deadline { usleep(20_000) }
        if let missing = ports.first(where: { !jack.hasPort($0) }) { throw CommandFailure("port \(missing) did not appear") }
        installStopHandlers()
        guard master.start(publishBBT: !noBbt) else { throw CommandFailure("cannot become the JACK timebase master") }
        while !master.finished && !stopRequested.load(ordering: .relaxed) { usleep(10_000) }
        master.stop()
    }
}

struct JackRecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jack-record",
        abstract: "Record the MIDI a JACK port sends, with frames and the transport of each cycle.",
        discussion: """
            Frames count from the recorder's first cycle. Each event line carries \
            the JACK transport frame and bar:beat as a comment. With --jalv-script \
            it also writes the positions jalv sent its plugin in those cycles, as a \
            transport script, so that `tactus render` can replay the session.
            """)

    @Option(help: "JACK server name.") var server: String?
    @Option(help: "Ports to connect to the recorder's input (comma-separated).") var connect: String = ""
    @Option(name: .shortAndLong, help: "Event log file (default: standard output).") var output: String?
    @Option(help: "Write the positions jalv sent (a transport script) here.") var jalvScript: String?
    @Option(help: "Write every cycle's JACK transport and server frame time here (one line a cycle; tactus-hosttest jack-align reads it).") var cycles: String?
    @Option(help: "Stop after this many seconds (default: at SIGINT or SIGTERM).") var seconds: Double?

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds <= 1e6) { throw ValidationError("--seconds must be a number of seconds above 0, found \(formatNumber(seconds))") }
        if let bad = connect.split(separator: ",", omittingEmptySubsequences: false).first(where: { !$0.isEmpty && !$0.contains(":") }) {
            throw ValidationError("--connect '\(bad)': a port is CLIENT:PORT, like tactus:midi_out")
        }
        if let output, output == jalvScript || output == cycles { throw ValidationError("-o '\(displayPath(output))' is also given to --jalv-script or --cycles") }
    }

    func run() throws {
        let jack: JackClient
        do { jack = try JackClient(name: "tactus-record", server: server) } catch { throw CommandFailure(error.description) }
        let recorder: MIDIRecorder
        do { recorder = try MIDIRecorder(jack: jack) } catch { throw CommandFailure(error.description) }
        installStopHandlers()
        guard recorder.start() else { throw CommandFailure("cannot activate the recorder") }
        for source in connect.split(separator: ",").map(String.init) where !jack.connect(source, recorder.portName) {
            throw CommandFailure("cannot connect \(source) to \(recorder.portName)")
        }
        var log = try OutputStream(path: output)
        log.write("# tactus jack-record: FRAME (from the recorder's first cycle) then MIDI bytes; comment: JACK transport frame, bar:beat")
        var model = JalvPositionModel()
        var script = "tactus-transport 1\nrate \(Int(jack.sampleRate))\n# the positions jalv sent its plugin, rebuilt from the JACK transport of each cycle\n"
        var lastCycleEnd: Int64 = 0
        var cycleLog = cycles != nil ? JackCycleLine.header + "\n" : ""
        let started = MonotonicClock.now()
        while !stopRequested.load(ordering: .relaxed) {
            if let seconds, MonotonicClock.now() - started >= seconds { break }
            usleep(20_000)
            for entry in recorder.drain() {
                let t = entry.transport
                switch entry.kind {
                case .cycle:
                    lastCycleEnd = t.cycleStart + Int64(t.frameCount)
                    if cycles != nil { cycleLog += JackCycleLine.text(t, frameTime: entry.frameTime) + "\n" }
                    if let position = model.position(for: t) {
                        script += "\(t.cycleStart) \(position.scriptAction)\n"
                    }
                case .event:
                    let bytes = [entry.b0, entry.b1, entry.b2].prefix(Int(entry.size))
                    let event = LoggedEvent(frame: t.cycleStart + Int64(entry.offset), bytes: Array(bytes))
                    var comment = "transport \(Int64(t.frame) + (t.rolling ? Int64(entry.offset) : 0))"
                    if let beats = t.beats {
                        let b = beats + (t.rolling ? Double(entry.offset) * t.beatsPerMinute / (60 * jack.sampleRate) : 0)
                        comment += " " + MusicalPosition(beats: b, beatsPerBar: Double(t.beatsPerBar)).barBeatText
                    }
                    let line = EventLog.line(event)
                    log.write(line + String(repeating: " ", count: max(1, 20 - line.count)) + "# " + comment + "  " + event.summary)
                }
            }
        }
        recorder.stop()
        // Each file is complete or not written; every failure is reported, then exit status 1.
        var failures: [String] = []
        do { try log.finish() } catch { failures.append(error.description) }
        if let cycles {
            do { try AtomicFile.write(cycleLog, to: cycles) } catch { failures.append(error.description) }
        }
        if let jalvScript {
            script += "\(max(lastCycleEnd, 1)) end\n"
            do { try AtomicFile.write(script, to: jalvScript) } catch { failures.append(error.description) }
        }
        if recorder.xruns > 0 { printError("Warning: JACK reported \(counted(recorder.xruns, "xrun")) while recording") }
        if recorder.droppedEntries > 0 { printError("Warning: \(counted(recorder.droppedEntries, "entry", plural: "entries")) lost (the main thread fell behind)") }
        if !failures.isEmpty { throw CommandFailure(failures.joined(separator: "\n")) }
    }
}
