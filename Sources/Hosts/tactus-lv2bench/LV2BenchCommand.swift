import ArgumentParser
import CBenchClock
import CLilv
import Foundation

/// The project's LV2 bench host: runs several plugins side by side through
/// lilv, fed the same rolling transport, and reports what each one's `run()`
/// costs per block and how many notes it played.
///
/// The plugins are interleaved block by block (plugin A, B, C for block 1;
/// B, C, A for block 2; ...), so the machine's noise - other processes,
/// frequency changes, cache pollution - falls on all of them alike, as it
/// does on plugins sharing a real host's cycle. Each `run()` is timed alone
/// (`CBenchClock`); reading the clock around nothing is timed the same way,
/// in the same loop, and reported: the raw figures include it, the net ones
/// have its median taken off.
@main
struct LV2BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tactus-lv2bench",
        abstract: "Time the run() of LV2 plugins side by side, under the same rolling transport.",
        discussion: """
            Each --plugin is LABEL=URI[;SYMBOL=VALUE]...[;@PROPERTY=PATH]...: control ports set by \
            symbol, and patch:Set messages with an atom:Path value sent in the first block. \
            The first plugin is the reference of the ratios.
            """)

    @Option(name: .customLong("plugin"), help: "A plugin to run (repeat for each).") var plugins: [String]
    @Option(name: .customLong("bundle"), help: "An LV2 bundle to load besides LV2_PATH (repeatable).") var bundles: [String] = []
    @Option(help: "Measured blocks.") var blocks = 100_000
    @Option(help: "Blocks run before measuring (the transport already rolls).") var warmup = 1_000
    @Option(help: "Frames per block.") var frames = 256
    @Option(help: "Sample rate.") var rate = 48_000.0
    @Option(help: "Tempo, beats per minute.") var tempo = 120.0
    @Option(help: "When the position is sent: on-change (once, at the start) or every-block.") var send = "on-change"
    @Option(help: "Which keys it holds: bbt (as Ardour, jalv), or all (also time:beat, the running beat, as Element and JUCE hosts).") var keys = "bbt"
    @Option(help: "Also write the results as JSON to this file.") var json: String?

    func run() throws {
        guard let policy = RollingTransport.SendPolicy(rawValue: send) else {
            throw ValidationError("--send must be on-change or every-block")
        }
        guard blocks > 0, warmup >= 0, frames > 0, rate > 0, tempo > 0 else { throw ValidationError("counts and rates must be positive") }
        let specs = try plugins.map { try PluginSpec(parsing: $0) }
        guard !specs.isEmpty else { throw ValidationError("give at least one --plugin") }

        let world = lilv_world_new()!
        defer { lilv_world_free(world) }
        lilv_world_load_all(world)
        for bundle in bundles {
            let path = URL(fileURLWithPath: bundle).standardizedFileURL.path + "/"
            let node = lilv_new_file_uri(world, nil, path)
            lilv_world_load_bundle(world, node)
            lilv_node_free(node)
        }
        let host = BenchHost(sampleRate: rate, blockLength: frames, sequenceSize: 1 << 17)
        let benched = try specs.map {
            try BenchedPlugin($0, world: world, host: host, sampleRate: rate, blockLength: frames, atomCapacity: 1 << 17)
        }
        guard keys == "bbt" || keys == "all" else { throw ValidationError("--keys must be bbt or all") }
        let transport = RollingTransport(sampleRate: rate, tempo: tempo, allKeys: keys == "all")
        let nsPerTick = tactus_bench_ns_per_tick(200)

        var timings = benched.map { _ in BlockTimings(capacity: blocks) }
        var clockCost = BlockTimings(capacity: blocks)
        var frame: Int64 = 0
        for block in 0..<(warmup + blocks) {
            let measured = block >= warmup
            let sendPosition = block == 0 || policy == .everyBlock
            for k in 0..<benched.count {
                let i = (block + k) % benched.count
                let plugin = benched[i]
                plugin.prepareBlock(frame: frame, sendPosition: sendPosition, transport: transport)
                let ticks = plugin.runTimed(frameCount: UInt32(frames))
                if measured { timings[i].record(ticks) }
                plugin.finishBlock(counting: measured)
            }
            if measured {
                let start = tactus_bench_ticks_begin()
                clockCost.record(tactus_bench_ticks_end() &- start)
            }
            frame += Int64(frames)
        }

        let clock = clockCost.summary(nsPerTick: nsPerTick)
        let report = Report(
            blocks: blocks, warmup: warmup, frames: frames, rate: rate, tempo: tempo, policy: policy,
            clockName: String(cString: tactus_bench_clock_name()), nsPerTick: nsPerTick, clockCost: clock,
            plugins: zip(benched, timings).map {
                let raw = $1.summary(nsPerTick: nsPerTick)
                return Report.Entry(spec: $0.spec, raw: raw, net: raw.less(clock.typical), noteOns: $0.noteOns, noteOffs: $0.noteOffs)
            })
        print(report.table())
        if let json { try report.json().write(toFile: json, atomically: true, encoding: .utf8) }
    }
}

/// The results of one run, as a table and as JSON.
struct Report {
    struct Entry {
        var spec: PluginSpec
        var raw: BlockTimings.Summary
        var net: BlockTimings.Summary
        var noteOns: Int
        var noteOffs: Int
    }

    var blocks: Int
    var warmup: Int
    var frames: Int
    var rate: Double
    var tempo: Double
    var policy: RollingTransport.SendPolicy
    var clockName: String
    var nsPerTick: Double
    var clockCost: BlockTimings.Summary
    var plugins: [Entry]

    func table() -> String {
        let reference = plugins[0]
        var lines = [
            "run() per block: \(blocks) blocks of \(frames) frames at \(number(rate)) Hz, \(number(tempo)) bpm, "
                + "position \(policy.rawValue), after \(warmup) warm-up blocks",
            "clock: \(clockName) (\(String(format: "%.4f", nsPerTick)) ns a tick); reading it around nothing: "
                + "median \(ns(clockCost.median)) ns, typical \(ns(clockCost.typical)) ns",
            "",
            column("", 14) + column("note-ons", 9) + column("raw ns: min", 12) + column("median", 8) + column("p99", 8)
                + column("max", 9) + column("typical", 9) + column("net typical", 12) + column("net / \(reference.spec.label)", 14),
        ]
        for p in plugins {
            lines.append(
                column(p.spec.label, 14, left: true) + column("\(p.noteOns)", 9) + column(ns(p.raw.min), 12)
                    + column(ns(p.raw.median), 8) + column(ns(p.raw.p99), 8) + column(ns(p.raw.max), 9)
                    + column(ns(p.raw.typical), 9) + column(ns(p.net.typical), 12)
                    + column(String(format: "%.2f", p.net.typical / reference.net.typical), 14))
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        func summary(_ s: BlockTimings.Summary) -> String {
            "{\"count\": \(s.count), \"min\": \(s.min), \"median\": \(s.median), \"p99\": \(s.p99), \"max\": \(s.max), \"mean\": \(s.mean), \"typical\": \(s.typical)}"
        }
        let entries = plugins.map { p in
            "    {\"label\": \(quoted(p.spec.label)), \"uri\": \(quoted(p.spec.uri)), \"noteOns\": \(p.noteOns), "
                + "\"noteOffs\": \(p.noteOffs), \"raw\": \(summary(p.raw)), \"net\": \(summary(p.net))}"
        }
        return """
            {
              "blocks": \(blocks), "warmup": \(warmup), "frames": \(frames), "rate": \(rate), "tempo": \(tempo), "send": \(quoted(policy.rawValue)),
              "clock": \(quoted(clockName)), "nsPerTick": \(nsPerTick), "clockCost": \(summary(clockCost)),
              "plugins": [
            \(entries.joined(separator: ",\n"))
              ]
            }

            """
    }

    private func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private func number(_ x: Double) -> String { x == x.rounded() ? String(Int64(x)) : String(x) }

    private func ns(_ x: Double) -> String { x >= 100 ? String(format: "%.0f", x) : String(format: "%.1f", x) }

    private func column(_ s: String, _ width: Int, left: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(1, width - s.count))
        return left ? s + fill : fill + s
    }
}
