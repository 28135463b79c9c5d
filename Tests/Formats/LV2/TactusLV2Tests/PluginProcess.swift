import Foundation
import Testing
import TactusEngine
import TactusModel
import TactusOffline

/// Runs the built plugin (plugin.lv2/tactus.so) through the project's lilv
/// host, `tactus-lv2host`, in a child process, and reads back what it printed.
enum PluginProcess {
    static let repository = URL(fileURLWithPath: String(#filePath[..<#filePath.range(of: "/Tests/")!.lowerBound]))
    /// plugin.lv2, or the bundle `TACTUS_LV2_BUNDLE` names (`make test-asan` and
    /// `make test-tsan` point it at a bundle holding the sanitized build of tactus.so).
    static var bundle: URL {
        if let dir = ProcessInfo.processInfo.environment["TACTUS_LV2_BUNDLE"] { return URL(fileURLWithPath: dir) }
        return repository.appendingPathComponent("plugin.lv2")
    }

    /// The folder of this build's products (where the test binary and the host are).
    static let products: URL = {
        if let dir = ProcessInfo.processInfo.environment["TACTUS_PRODUCTS"] { return URL(fileURLWithPath: dir) }
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = me.deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("tactus-lv2host").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        return repository.appendingPathComponent(".build/release")
    }()

    struct Output {
        var midi: [LoggedEvent]
        var notify: [String]
        var stderr: String
        var status: Int32
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// A scratch folder with the given files (name → text).
    static func folder(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tactus-lv2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    /// Runs the host on `script.transport` (and `pattern.pattern` if present) in `dir`.
    static func run(in dir: URL, blocks: String = "256", arguments: [String] = [], rtcheck: Bool = false) throws -> Output {
        guard FileManager.default.fileExists(atPath: bundle.appendingPathComponent("tactus.so").path) else {
            throw Failure(description: "plugin.lv2/tactus.so is not built: run `make plugin` (make test does)")
        }
        let host = products.appendingPathComponent("tactus-lv2host")
        let outURL = dir.appendingPathComponent("midi.log")
        let errURL = dir.appendingPathComponent("stderr.log")
        var args = ["--bundle", bundle.path, "--transport", dir.appendingPathComponent("script.transport").path, "--blocks", blocks,
                    "--notify", dir.appendingPathComponent("notify.log").path]
        if FileManager.default.fileExists(atPath: dir.appendingPathComponent("pattern.pattern").path) {
            args += ["--pattern", dir.appendingPathComponent("pattern.pattern").path]
        }
        var environment = ProcessInfo.processInfo.environment
        if rtcheck {
            environment["LD_PRELOAD"] = products.appendingPathComponent("libTactusRTCheck.so").path
            args.append("--rtcheck")
        }
        let status = try spawn(host.path, args + arguments, environment: environment, stdout: outURL.path, stderr: errURL.path)
        let outData = try Data(contentsOf: outURL)
        let errData = try Data(contentsOf: errURL)
        let midi = try EventLog.parse(String(decoding: outData, as: UTF8.self))
        let notifyText = (try? String(contentsOf: dir.appendingPathComponent("notify.log"), encoding: .utf8)) ?? ""
        return Output(
            midi: midi, notify: notifyText.split(separator: "\n").map(String.init),
            stderr: String(decoding: errData, as: UTF8.self), status: status)
    }

    /// Runs a program with its output in files and waits for it (posix_spawn: safe from many test threads at once).
    static func spawn(_ path: String, _ arguments: [String], environment: [String: String], stdout: String, stderr: String) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else { throw Failure(description: "cannot run \(path): error \(result)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exit code, or 128 + the signal when it was killed.
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// What the core renders offline for the same files and blocks.
    /// `midiClock`: with the MIDI clock (§12), as `tactus render --clock` and the plugin's `clock` toggle.
    static func expected(in dir: URL, blocks: String, sampleRate: Double? = nil, midiClock: Bool = false) throws -> [LoggedEvent] {
        let script = try TransportScript(parsing: String(contentsOf: dir.appendingPathComponent("script.transport"), encoding: .utf8))
        let patternURL = dir.appendingPathComponent("pattern.pattern")
        let initialText = FileManager.default.fileExists(atPath: patternURL.path)
            ? try String(contentsOf: patternURL, encoding: .utf8)
            : try String(contentsOf: repository.appendingPathComponent("examples/demo.pattern"), encoding: .utf8)
        let initial = try PatternParser.parse(initialText)
        var render = OfflineRender(script: script, sampleRate: sampleRate ?? script.sampleRate ?? 48000, blocks: try BlockPlan(parsing: blocks))
        render.midiClock = midiClock
        var events: [LoggedEvent] = []
        _ = render.run(
            pattern: initial, patternText: Array(initialText.utf8),
            loadPattern: { name in
                let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : dir.appendingPathComponent(name)
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { return .failure(PatternLoadError("cannot read \(name)")) }
                do { return .success((try PatternParser.parse(text), Array(text.utf8))) } catch {
                    return .failure(PatternLoadError((error as? PatternError)?.message ?? "\(error)"))
                }
            },
            onBlock: { e, _ in events += e })
        return events
    }
}

/// The first difference between two logs, for messages.
func difference(_ a: [LoggedEvent], _ b: [LoggedEvent], _ names: (String, String)) -> String? {
    for i in 0..<max(a.count, b.count) {
        let x = i < a.count ? EventLog.line(a[i]) : "(end)"
        let y = i < b.count ? EventLog.line(b[i]) : "(end)"
        if x != y { return "event \(i): \(names.0) \(x), \(names.1) \(y)" }
    }
    return nil
}
