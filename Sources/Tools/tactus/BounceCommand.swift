import ArgumentParser
import Glibc
import Synchronization
import TactusBounce
import TactusCommandLine
import TactusEngine
import TactusModel
import TactusOffline

struct BounceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bounce",
        abstract: "Render patterns or MIDI files to WAV or FLAC through a SoundFont or an LV2 instrument, offline.",
        discussion: """
            A Standard MIDI File plays with its own tempo map, through its latest End of Track, \
            then its tail until the audio falls below -90 dBFS. A pattern needs --transport FILE \
            or --bars N --bpm T; a pattern file with a song plays the song once through without them \
            (at --bpm T, 120 by default). Every event reaches the instrument at its exact frame \
            (docs/bounce.md). Without --sf2 or --lv2, the default SoundFont \
            (\(BounceCommand.defaultSoundFont)) plays. Several inputs are a batch: -o names a folder. \
            An output is complete or not there. Exit status: 0 when every file was written, 1 when \
            one was not, 2 for a wrong command line.
            """)

    static let defaultSoundFont = "/usr/share/sounds/sf2/TimGM6mb.sf2"

    @Argument(help: "MIDI files (.mid) or pattern files.")
    var inputs: [String]

    @Option(name: .long, help: "SoundFont 2 file played by FluidSynth (default: \(BounceCommand.defaultSoundFont)).")
    var sf2: String?

    @Option(name: .long, help: "LV2 instrument URI, hosted through lilv.")
    var lv2: String?

    @Option(name: .long, help: "SYMBOL=VALUE for a control input of the --lv2 instrument, or URI=PATH for a file parameter (patch:Set).")
    var set: [String] = []

    @Option(name: .long, help: "A saved LV2 state (state.ttl, or its folder) to restore into the --lv2 instrument.")
    var state: String?

    @Option(name: .long, help: "An LV2 preset URI to restore into the --lv2 instrument.")
    var preset: String?

    @Flag(name: .long, help: "Play a pattern through the Tactus LV2 plugin itself, feeding the instrument (what the plugin plays in a host).")
    var chain = false

    @Option(name: .shortAndLong, help: "Output file (.wav or .flac), or a folder for several inputs.")
    var output: String?

    @Option(name: .long, help: "Sample rate in frames per second, 8000-384000.")
    var rate: Int = 48000

    @Option(name: .long, help: "Samples: 16 (dithered), 24 or float (WAV only) (default: 24).")
    var bits: String?

    @Option(name: .long, help: "Container when -o is a folder or absent: wav or flac.")
    var format: String = "wav"

    @Option(name: .long, help: "Transport script playing a pattern input (docs/transport-script.md).")
    var transport: String?

    @Option(name: .long, help: "Bars of 4 beats to play a pattern for (with --bpm), 1-100000.")
    var bars: Int?

    @Option(name: .long, help: "Tempo for --bars, or for a pattern file's song played once through (default 120), in beats per minute.")
    var bpm: Double?

    @Flag(name: .long, help: "No reverb (FluidSynth).")
    var noReverb = false

    @Flag(name: .long, help: "No chorus (FluidSynth).")
    var noChorus = false

    @Option(name: .long, help: "FluidSynth's synth.cpu-cores, 1-8: voice rendering threads (default: the cores left per batch thread).")
    var cpuCores: Int?

    @Option(name: .long, help: "Worker threads for a batch, 1-16.")
    var jobs: Int = 2

    @Flag(name: .long, help: "Scale the file so its peak is at -1 dBFS (a bounce that peaks below -18 dBFS says so).")
    var normalize = false

    @Option(name: .long, help: "Longest tail after the input's end, in seconds (0-3600).")
    var tailCap: Double = 10

    @Flag(name: .long, help: "Also write NAME.png: the waveform over a piano roll of the input.")
    var png = false

    @Flag(name: [.short, .long], help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if sf2 != nil && lv2 != nil { throw ValidationError("give --sf2 or --lv2, not both") }
        if !set.isEmpty && lv2 == nil { throw ValidationError("--set needs --lv2") }
        if (state != nil || preset != nil) && lv2 == nil { throw ValidationError("--state and --preset need --lv2") }
        if state != nil && preset != nil { throw ValidationError("give --state or --preset, not both") }
        for s in set where !s.contains("=") { throw ValidationError("--set '\(s)': expected SYMBOL=VALUE") }
        guard rate >= 8000, rate <= 384_000 else { throw ValidationError("--rate must be 8000-384000 frames per second") }
        if bars != nil && bpm == nil { throw ValidationError("--bars needs --bpm T") }
        if transport != nil && bpm != nil { throw ValidationError("give --transport or --bpm, not both (the script sets the tempo)") }
        if let bars, bars <= 0 || bars > 100_000 { throw ValidationError("--bars must be 1-100000") }
        if let bpm, !(bpm.isFinite && bpm > 0 && bpm <= 10_000) { throw ValidationError("--bpm must be a number of beats per minute, above 0") }
        if transport != nil && bars != nil { throw ValidationError("give --transport or --bars N --bpm T, not both") }
        guard ["wav", "flac"].contains(format.lowercased()) else { throw ValidationError("--format must be wav or flac") }
        guard tailCap >= 0, tailCap <= 3600 else { throw ValidationError("--tail-cap must be 0-3600 seconds, found \(formatNumber(tailCap))") }
        if let cpuCores, !(1...8).contains(cpuCores) { throw ValidationError("--cpu-cores must be 1-8") }
        guard (1...16).contains(jobs) else { throw ValidationError("--jobs must be 1-16") }
        if inputs.isEmpty { throw ValidationError("give at least one input (a .mid file or a pattern file)") }
        // The output's format, from -o's extension (or --format) and --bits:
        // a bad value is a wrong command line, found before anything is read.
        if let output, !Path.isFolder(output) {
            do throws(BounceError) { _ = try AudioFileFormat(path: output, bits: bits) } catch { throw ValidationError(error.description) }
        } else {
            guard let samples = AudioFileFormat.Samples(rawValue: bits ?? "24") else { throw ValidationError("--bits must be 16, 24 or float, found '\(bits ?? "")'") }
            if format.lowercased() == "flac" && samples == .float {
                throw ValidationError("--bits float with --format flac: FLAC holds integer samples only; use --bits 16 or 24, or --format wav for float")
            }
        }
    }

    /// One input and where its audio goes.
    struct Job {
        var input: String
        var output: String
    }

    func run() throws {
        let jobs = try plan()
        let timing = try self.timing()
        var formats: [AudioFileFormat] = []
        for job in jobs {
            do throws(BounceError) { formats.append(try AudioFileFormat(path: job.output, bits: bits)) } catch { throw ValidationError(error.description) }
        }
        let workers = min(self.jobs, jobs.count)
        // Instruments are made here, on one thread, before any rendering: a bad
        // SoundFont or URI fails at once, and each worker loads it once per batch.
        var instruments: [BounceInstrument] = []
        // FluidSynth's own threads take the cores the batch threads leave.
        let cores = cpuCores ?? max(1, Threads.processorCount / workers)
        for _ in 0..<workers {
            switch Result(catching: { () throws(BounceError) in try makeInstrument(cpuCores: cores) }) {
            case .success(let i): instruments.append(i)
            case .failure(let e): throw CommandFailure(e.description)
            }
        }

        let rate = self.rate
        let progress = ProgressLine(enabled: jobs.count == 1 && !quiet && isatty(STDERR_FILENO) == 1) { done, total in
            let shown = min(done, total)
            return "bouncing: \(formatSeconds(Double(shown) / Double(rate))) of \(formatSeconds(Double(total) / Double(rate))) (\(ProgressLine.percent(done, of: total)))"
                + (done > total ? ", tail \(formatSeconds(Double(done - total) / Double(rate)))" : "")
        }
        let batch = Batch(jobs: jobs, formats: formats, instruments: instruments, progress: progress)
        let started = MonotonicClock.now()
        let command = self
        Threads.concurrentPerform(workers) { worker in
            while let index = batch.take() {
                let job = jobs[index]
                let jobStart = MonotonicClock.now()
                let outcome: Result<(BounceRenderer.Result, [String]), BounceError>
                do {
                    outcome = .success(try command.bounce(job, format: batch.formats[index], timing: timing, instrument: batch.instruments[worker]) { frame, total in
                        batch.progress.report(frame, of: total)
                    })
                } catch {
                    outcome = .failure(error as? BounceError ?? BounceError("\(error)"))
                }
                batch.report(index, outcome, elapsed: MonotonicClock.now() - jobStart, command: command)
            }
        }
        if jobs.count > 1 && !quiet {
            print("tactus bounce: \(jobs.count - batch.failures) of \(counted(jobs.count, "file")) written in \(formatSeconds(MonotonicClock.now() - started)) on \(counted(workers, "thread"))")
        }
        if batch.failures > 0 { throw ExitCode(1) }
    }

    /// What the worker threads of a batch share: the next input to take, the
    /// messages (printed whole, one file at a time), the failures. A lock guards it.
    final class Batch: @unchecked Sendable {
        // Instruments are used by one worker each (the index of its thread).
        let jobs: [Job]
        let formats: [AudioFileFormat]
        let instruments: [BounceInstrument]
        /// Shown for a single input on a terminal (a batch prints a line a file).
        let progress: ProgressLine
        private let state = Mutex<(next: Int, failures: Int)>((0, 0))

        init(jobs: [Job], formats: [AudioFileFormat], instruments: [BounceInstrument], progress: ProgressLine) {
            self.jobs = jobs
            self.formats = formats
            self.instruments = instruments
            self.progress = progress
        }

        var failures: Int { state.withLock { $0.failures } }

        func take() -> Int? {
            state.withLock { s in
                guard s.next < jobs.count else { return nil }
                s.next += 1
                return s.next - 1
            }
        }

        func report(_ index: Int, _ outcome: Result<(BounceRenderer.Result, [String]), BounceError>, elapsed: Double, command: BounceCommand) {
            state.withLock { s in
                let job = jobs[index]
                let rate = command.rate
                switch outcome {
                case .success(let (r, warnings)):
                    progress.finish(at: r.frames, of: r.scheduleEndFrame)
                    for w in warnings { printError("Warning: \(displayPath(job.input)): \(w)") }
                    guard !command.quiet else { return }
                    let seconds = Double(r.frames) / Double(rate)
                    print(
                        "\(displayPath(job.input)) -> \(displayPath(job.output)): \(formatSeconds(seconds)) (\(formats[index]), \(rate) Hz), "
                            + "\(counted(r.eventsSent, "event")), tail \(formatSeconds(Double(r.tailFrames) / Double(rate))), "
                            + "peak \(BounceRenderer.Result.dBFS(Double(r.peak))), RMS \(BounceRenderer.Result.dBFS(r.rms)), "
                            + "\(Int(seconds / max(elapsed, 1e-9)))x realtime")
                    fflush(nil)
                    if !command.normalize, let quiet = BounceRenderer.Result.quietness(peak: r.peak) {
                        printError("Warning: \(displayPath(job.output)) \(quiet)")
                    }
                case .failure(let error):
                    progress.abandon()
                    s.failures += 1
                    printError("Error: \(error)")
                }
            }
        }
    }

    /// Inputs and outputs: `-o FILE` for one input, `-o DIR` (or nothing) for any number.
    func plan() throws(ValidationError) -> [Job] {
        let outputIsFolder = output.map(Path.isFolder) ?? false
        if inputs.count > 1, let output, !outputIsFolder {
            throw ValidationError("-o '\(displayPath(output))' must be an existing folder for \(inputs.count) inputs")
        }
        let ext = format.lowercased()
        var seen: Set<String> = []
        return try inputs.map { input throws(ValidationError) -> Job in
            let out: String
            if let output, !outputIsFolder {
                out = output
            } else {
                let base = Path.deletingExtension(Path.lastComponent(input)) + "." + ext
                out = output.map { Path.appending(base, to: $0) } ?? base
            }
            if out == input || inputs.contains(out) { throw ValidationError("-o: '\(displayPath(out))' would overwrite an input") }
            guard seen.insert(out).inserted else { throw ValidationError("two inputs would both be written to '\(displayPath(out))' (-o)") }
            return Job(input: input, output: out)
        }
    }

    func timing() throws(CommandFailure) -> BounceTiming {
        if let transport {
            let text = try TextFile.text(transport)
            do { return .script(try TransportScript(parsing: text), path: transport) } catch {
                throw CommandFailure("\(displayPath(transport)):\(error.line): \(error.reason)")
            }
        }
        if let bars, let bpm { return .bars(bars, bpm: bpm) }
        return .file(songTempo: bpm ?? 120)
    }

    func makeInstrument(cpuCores: Int) throws(BounceError) -> BounceInstrument {
        if let lv2 {
            let settings = set.map { s -> (key: String, value: String) in
                let parts = s.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
            let source: LV2Instrument.StateSource? = state.map { .file($0) } ?? preset.map { .preset($0) }
            return try LV2Instrument(uri: lv2, sampleRate: rate, settings: settings, state: source)
        }
        var options = FluidSynthInstrument.Options()
        options.reverb = !noReverb
        options.chorus = !noChorus
        options.cpuCores = cpuCores
        let path = sf2 ?? Self.defaultSoundFont
        if sf2 == nil && !Path.exists(path) {
            throw BounceError("no --sf2 given and the default SoundFont \(path) is not installed (make deps installs it: apt-get install timgm6mb-soundfont), or give --sf2 FILE")
        }
        return try FluidSynthInstrument(soundFont: path, sampleRate: rate, options: options)
    }

    func bounce(
        _ job: Job, format: AudioFileFormat, timing: BounceTiming, instrument: BounceInstrument, progress: @escaping (Int64, Int64) -> Void
    ) throws(BounceError) -> (BounceRenderer.Result, [String]) {
        let (schedule, warnings) = try BounceInput.schedule(
            job.input, timing: timing, sampleRate: rate, chain: chain,
            loadPattern: { path in PatternFile.load(path) },
            resolveScriptPath: { path in
                if case .script(_, let scriptPath) = timing { return PatternFile.resolve(path, relativeTo: scriptPath) }
                return path
            })
        try instrument.reset()
        var renderer = BounceRenderer()
        renderer.tailCapSeconds = tailCap
        let writer = try AudioFileWriter(path: job.output, format: format, sampleRate: rate)
        var held: (left: [Float], right: [Float]) = ([], [])
        let result: BounceRenderer.Result
        do {
            result = try renderer.render(schedule, through: instrument, into: { l, r, n throws(BounceError) in
                if normalize {
                    held.left.append(contentsOf: UnsafeBufferPointer(start: l, count: n))
                    held.right.append(contentsOf: UnsafeBufferPointer(start: r, count: n))
                } else {
                    try writer.write(left: l, right: r, frameCount: n)
                }
            }, progress: { progress($0, schedule.endFrame) })
            if normalize {
                let gain = result.peak > 0 ? Float(pow(10.0, -1.0 / 20)) / result.peak : 1
                for i in held.left.indices {
                    held.left[i] *= gain
                    held.right[i] *= gain
                }
                try writer.write(left: held.left, right: held.right, frameCount: held.left.count)
            }
            try writer.commit()
        } catch {
            writer.discard()
            throw error
        }
        var result2 = result
        if normalize, result.peak > 0 {
            let gain = Float(pow(10.0, -1.0 / 20)) / result.peak
            result2.peak *= gain
        }
        if png {
            let picture = Path.deletingExtension(job.output) + ".png"
            try WaveformPicture.write(schedule: schedule, result: result, to: picture)
        }
        return (result2, warnings)
    }
}
