import ArgumentParser
import Dispatch
import Foundation
import TactusBounce
import TactusCore
import TactusOffline

struct BounceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bounce",
        abstract: "Render patterns or MIDI files to WAV or FLAC through a SoundFont or an LV2 instrument, offline.",
        discussion: """
            A Standard MIDI File plays with its own tempo map, through its latest End of Track, \
            then its tail until the audio falls below -90 dBFS. A pattern needs --transport FILE \
            or --bars N --bpm T. Every event reaches the instrument at its exact frame \
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

    @Option(name: .long, help: "Sample rate in frames per second (default 48000).")
    var rate: Int = 48000

    @Option(name: .long, help: "Samples: 16 (dithered), 24 or float (WAV only); default 24.")
    var bits: String?

    @Option(name: .long, help: "Container when -o is a folder or absent: wav or flac (default wav).")
    var format: String = "wav"

    @Option(name: .long, help: "Transport script playing a pattern input (docs/transport-script.md).")
    var transport: String?

    @Option(name: .long, help: "Bars of 4 beats to play a pattern for (with --bpm).")
    var bars: Int?

    @Option(name: .long, help: "Tempo for --bars, in beats per minute.")
    var bpm: Double?

    @Flag(name: .long, help: "No reverb (FluidSynth).")
    var noReverb = false

    @Flag(name: .long, help: "No chorus (FluidSynth).")
    var noChorus = false

    @Option(name: .long, help: "FluidSynth's synth.cpu-cores (voice rendering threads; default: the cores left per batch thread, 2 for one file here).")
    var cpuCores: Int?

    @Option(name: .long, help: "Worker threads for a batch (default 2: the machine's two cores).")
    var jobs: Int = 2

    @Flag(name: .long, help: "Scale the file so its peak is at -1 dBFS.")
    var normalize = false

    @Option(name: .long, help: "Longest tail after the input's end, in seconds (default 10).")
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
        if (bars == nil) != (bpm == nil) { throw ValidationError("--bars and --bpm go together") }
        if let bars, bars <= 0 || bars > 100_000 { throw ValidationError("--bars must be 1-100000") }
        if let bpm, !(bpm.isFinite && bpm > 0 && bpm <= 10_000) { throw ValidationError("--bpm must be a number of beats per minute, above 0") }
        if transport != nil && bars != nil { throw ValidationError("give --transport or --bars N --bpm T, not both") }
        guard ["wav", "flac"].contains(format.lowercased()) else { throw ValidationError("--format must be wav or flac") }
        guard tailCap >= 0, tailCap.isFinite else { throw ValidationError("--tail-cap must be 0 or more seconds") }
        if let cpuCores, !(1...8).contains(cpuCores) { throw ValidationError("--cpu-cores must be 1-8") }
        guard (1...16).contains(jobs) else { throw ValidationError("--jobs must be 1-16") }
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
            do throws(BounceError) { formats.append(try AudioFileFormat(path: job.output, bits: bits)) } catch { throw CommandFailure(error.description) }
        }
        let workers = min(self.jobs, jobs.count)
        // Instruments are made here, on one thread, before any rendering: a bad
        // SoundFont or URI fails at once, and each worker loads it once per batch.
        var instruments: [BounceInstrument] = []
        // FluidSynth's own threads take the cores the batch threads leave.
        let cores = cpuCores ?? max(1, ProcessInfo.processInfo.activeProcessorCount / workers)
        for _ in 0..<workers {
            switch Result(catching: { () throws(BounceError) in try makeInstrument(cpuCores: cores) }) {
            case .success(let i): instruments.append(i)
            case .failure(let e): throw CommandFailure(e.description)
            }
        }

        let batch = Batch(jobs: jobs, formats: formats, instruments: instruments, showProgress: jobs.count == 1 && !quiet)
        let started = Date()
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            while let index = batch.take() {
                let job = jobs[index]
                let jobStart = Date()
                let outcome: Result<(BounceRenderer.Result, [String]), BounceError>
                do {
                    outcome = .success(try bounce(job, format: batch.formats[index], timing: timing, instrument: batch.instruments[worker]) { frame, total in
                        batch.showProgress(frame: frame, total: total, rate: rate)
                    })
                } catch {
                    outcome = .failure(error as? BounceError ?? BounceError("\(error)"))
                }
                batch.report(index, outcome, elapsed: Date().timeIntervalSince(jobStart), command: self)
            }
        }
        if jobs.count > 1 && !quiet {
            print("tactus bounce: \(jobs.count - batch.failures) of \(counted(jobs.count, "file")) written in \(formatSeconds(Date().timeIntervalSince(started))) on \(counted(workers, "thread"))")
        }
        if batch.failures > 0 { throw ExitCode(1) }
    }

    /// What the worker threads of a batch share: the next input to take, the
    /// messages (printed whole, one file at a time), the failures. A lock guards it.
    final class Batch: @unchecked Sendable {
        let jobs: [Job]
        let formats: [AudioFileFormat]
        let instruments: [BounceInstrument]
        let progressShown: Bool
        private let lock = NSLock()
        private var next = 0
        private(set) var failures = 0
        private var progress = ProgressLine()

        init(jobs: [Job], formats: [AudioFileFormat], instruments: [BounceInstrument], showProgress: Bool) {
            self.jobs = jobs
            self.formats = formats
            self.instruments = instruments
            progressShown = showProgress
        }

        func take() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard next < jobs.count else { return nil }
            next += 1
            return next - 1
        }

        func showProgress(frame: Int64, total: Int64, rate: Int) {
            guard progressShown else { return }
            lock.lock()
            progress.update("bouncing: \(formatSeconds(Double(frame) / Double(rate))) of \(formatSeconds(Double(total) / Double(rate)))")
            lock.unlock()
        }

        func report(_ index: Int, _ outcome: Result<(BounceRenderer.Result, [String]), BounceError>, elapsed: Double, command: BounceCommand) {
            lock.lock()
            defer { lock.unlock() }
            if progressShown { progress.finish() }
            let job = jobs[index]
            let rate = command.rate
            switch outcome {
            case .success(let (r, warnings)):
                for w in warnings { printError("tactus bounce: \(displayPath(job.input)): \(w)") }
                guard !command.quiet else { return }
                let seconds = Double(r.frames) / Double(rate)
                print(
                    "\(displayPath(job.input)) -> \(displayPath(job.output)): \(formatSeconds(seconds)) (\(formats[index]), \(rate) Hz), "
                        + "\(counted(r.eventsSent, "event")), tail \(formatSeconds(Double(r.tailFrames) / Double(rate))), "
                        + "peak \(BounceRenderer.Result.dBFS(Double(r.peak))), RMS \(BounceRenderer.Result.dBFS(r.rms)), "
                        + "\(Int(seconds / max(elapsed, 1e-9)))x realtime")
                fflush(nil)
            case .failure(let error):
                failures += 1
                printError("tactus bounce: \(error)")
            }
        }
    }

    /// Inputs and outputs: `-o FILE` for one input, `-o DIR` (or nothing) for any number.
    func plan() throws(CommandFailure) -> [Job] {
        var isDirectory: ObjCBool = false
        let outputIsFolder = output.map { FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && isDirectory.boolValue } ?? false
        if inputs.count > 1, let output, !outputIsFolder {
            throw CommandFailure("-o '\(displayPath(output))' must be an existing folder for \(inputs.count) inputs")
        }
        let ext = format.lowercased()
        var seen: Set<String> = []
        return try inputs.map { input throws(CommandFailure) -> Job in
            let out: String
            if let output, !outputIsFolder {
                out = output
            } else {
                let base = ((input as NSString).lastPathComponent as NSString).deletingPathExtension + "." + ext
                out = output.map { ($0 as NSString).appendingPathComponent(base) } ?? base
            }
            if out == input || inputs.contains(out) { throw CommandFailure("'\(displayPath(out))' would overwrite an input") }
            guard seen.insert(out).inserted else { throw CommandFailure("two inputs would both be written to '\(displayPath(out))'") }
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
        return .file
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
        if sf2 == nil && !FileManager.default.fileExists(atPath: path) {
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
            let picture = ((job.output as NSString).deletingPathExtension) + ".png"
            try WaveformPicture.write(schedule: schedule, result: result, to: picture)
        }
        return (result2, warnings)
    }
}
