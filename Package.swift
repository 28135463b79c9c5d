// swift-tools-version: 6.1
import Foundation
import PackageDescription

// The targets are grouped as Sources/ is (docs/architecture.md): the engine and
// the model, the formats (LV2, its editor, JACK), the tools (the command line
// and what it uses), the hosts (the project's own LV2 hosts and checks), the C
// shims; then the tests, which mirror the same groups.

/// This package's folder, for linker flags that name files in it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

let package = Package(
    name: "Tactus",
    products: [
        .executable(name: "tactus", targets: ["tactus"]),
        .executable(name: "tactus-lv2host", targets: ["tactus-lv2host"]),
        .executable(name: "tactus-lv2bench", targets: ["tactus-lv2bench"]),
        .executable(name: "tactus-hosttest", targets: ["tactus-hosttest"]),
        // The editor's test host (Tests/Editor): loads tactus_ui.so under X, records what it writes.
        .executable(name: "tactus-editorhost", targets: ["tactus-editorhost"]),
        // Preloaded into a host to count allocator and lock calls inside run().
        .library(name: "TactusRTCheck", type: .dynamic, targets: ["TactusRTCheck"]),
        .library(name: "TactusCore", targets: ["TactusCore"]),
        // Transport scripts, the simulated host, SplitMix64 (used by the benchmarks).
        .library(name: "TactusOffline", targets: ["TactusOffline"]),
        // The LV2 plugin binary (copied into plugin.lv2/ by the Makefile).
        .library(name: "TactusLV2", type: .dynamic, targets: ["TactusLV2"]),
        // The pattern editor, an LV2 X11 UI (copied into plugin.lv2/ by the Makefile).
        .library(name: "TactusUI", type: .dynamic, targets: ["TactusUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.1"),
    ],
    targets: [
        // MARK: Engine and model (Sources/TactusCore)

        // The realtime core: pure Swift, no Foundation, kept inside the Embedded subset.
        // Whole-module compilation lets `@_noLocks` see every callee in the module.
        .target(name: "TactusCore", swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The one Embedded Swift build of the core (its sources, through the Core
        // link), used by the plugin and by its UI: each .so needs libc alone (the UI
        // adds libX11 and libcairo).
        .target(
            name: "TactusCoreEmbedded",
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ]),

        // MARK: Formats (Sources/Formats): the thin wrappers a host loads or runs

        // The LV2 glue, built with Embedded Swift on the Embedded core.
        .target(
            name: "TactusLV2", dependencies: ["CLV2", "CLV2Descriptor", "TactusCoreEmbedded"],
            path: "Sources/Formats/LV2/TactusLV2",
            exclude: ["exports.map"],
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--version-script=\(root)/Sources/Formats/LV2/TactusLV2/exports.map", "-Xlinker", "--gc-sections",
            ])]),
        // The pattern editor (ui:X11UI), Embedded Swift on the same Embedded core as
        // the plugin: the .so needs libc, libX11 and libcairo, and exports lv2ui_descriptor.
        .target(
            name: "TactusUI", dependencies: ["CLV2", "CLV2UI", "TactusCoreEmbedded"],
            path: "Sources/Formats/LV2/TactusUI",
            exclude: ["exports.map"],
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--version-script=\(root)/Sources/Formats/LV2/TactusUI/exports.map", "-Xlinker", "--gc-sections",
                "-Xlinker", "-z", "-Xlinker", "defs",
            ])]),
        // The plugin's sources (glue and core, through the Plugin and Core links) as a normal
        // Swift module, with an in-process host: what sanitizers and libFuzzer run.
        // The link is the only way to build the same sources a second time with
        // sanitizer and coverage instrumentation, as a normal (not Embedded) module.
        .target(
            name: "TactusLV2Hosted", dependencies: ["CLV2", "CLV2Descriptor", "CInProcessHost", "LV2HostKit"], exclude: ["Plugin/exports.map"],
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // JACK: the client, the transport follower and master, the recorder used by
        // tests and the demo.
        .target(name: "TactusJack", dependencies: ["CJack", "TactusCore", "TactusOffline"], path: "Sources/Formats/JACK/TactusJack"),
        // `tactus jack`: the sequencer as a JACK client, a thin wrapper of the
        // core's engine. `@_noLocks` on its process callback checks across the
        // module line: the core's public `@_noLocks` methods and `@inlinable` queue.
        .target(
            name: "TactusJackSequencer", dependencies: ["CJack", "CEditLine", "CRTCheckHooks", "TactusCore", "TactusJack", "FileIO"],
            path: "Sources/Formats/JACK/TactusJackSequencer",
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),

        // MARK: Tools (Sources/Tools): the command line and what it is made of

        // The command line imports no Foundation (its modules and TactusJackSequencer
        // use the C library and Synchronization): linked statically (make cli), full
        // Foundation would bring ICU's data, most of an 80 MB executable. Only
        // ArgumentParser's FoundationEssentials remains (README, "Installing").
        // Linked with lld, which, unlike gold, does not repeat glibc's warning about
        // the mktemp that FoundationEssentials' Data writing references.
        .executableTarget(
            name: "tactus",
            dependencies: [
                "TactusCore", "TactusOffline", "TactusJack", "TactusJackSequencer", "FileIO", "TactusBounce", "TactusCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/tactus",
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
        // What the command line needs from the system, without Foundation: the
        // progress line, printf formats, paths, threads, the monotonic clock.
        .target(name: "TactusCommandLine", dependencies: ["FileIO"], path: "Sources/Tools/TactusCommandLine"),
        // Files written whole or not at all (temporary file and rename) and read whole, with the system's reason on failure.
        .target(name: "FileIO", dependencies: ["TactusCore"], path: "Sources/Tools/FileIO"),
        // The offline host: transport scripts, a simulated host, event logs.
        .target(name: "TactusOffline", dependencies: ["TactusCore"], path: "Sources/Tools/TactusOffline"),
        // tactus bounce: schedules of exact frames rendered through libfluidsynth or an
        // LV2 instrument (lilv, the host kit) into WAV or FLAC (libsndfile); docs/bounce.md.
        .target(
            name: "TactusBounce",
            dependencies: ["TactusCore", "TactusOffline", "FileIO", "CFluidSynth", "CSndFile", "CLilv", "CTestHost", "LV2HostKit", "CLV2"],
            path: "Sources/Tools/TactusBounce"),

        // MARK: Hosts (Sources/Hosts): the project's own LV2 hosts and realtime check

        // The one host kit of every LV2 host in the project (the lilv test and bench
        // hosts, the in-process host): URID map, synchronous worker, atom port
        // buffers and bodies, the URIs and position keys, the features and options.
        .target(name: "LV2HostKit", dependencies: ["CLV2"], path: "Sources/Hosts/LV2HostKit"),
        // The test host: the plugin through lilv, in child processes of the tests.
        .executableTarget(
            name: "tactus-lv2host",
            dependencies: [
                "CLilv", "CTestHost", "CRTCheckHooks", "LV2HostKit", "TactusCore", "TactusOffline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Hosts/tactus-lv2host",
            linkerSettings: [.linkedLibrary("dl")]),
        // The bench host (make bench): Tactus and its peers side by side through lilv, run() timed per block.
        .executableTarget(
            name: "tactus-lv2bench",
            dependencies: ["CLilv", "CTestHost", "LV2HostKit", "CBenchClock", "TactusOffline", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/Hosts/tactus-lv2bench"),
        // Tools for the live host tests: probe logs to fixtures, ideal sessions.
        .executableTarget(
            name: "tactus-hosttest",
            dependencies: ["TactusCore", "TactusOffline", "TactusJack", "FileIO", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/Hosts/tactus-hosttest"),
        // The editor's test host, in C: two instances of tactus_ui.so under windows of
        // its own, idled like a host's UI thread, every write_function call logged.
        .executableTarget(
            name: "tactus-editorhost", dependencies: ["CLV2"], path: "Sources/Hosts/tactus-editorhost",
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("cairo"), .linkedLibrary("dl")]),
        // The realtime check: an interposer preloaded into a host, counting allocator
        // and lock calls between the hooks the hosts call around audio-thread work.
        .target(name: "TactusRTCheck", path: "Sources/Hosts/TactusRTCheck"),
        // The fuzz targets (run by libFuzzer in `make fuzz`, replayed by the tests).
        .target(name: "TactusFuzzTargets", dependencies: ["TactusLV2Hosted", "CLV2", "LV2HostKit"], path: "Fuzz/Targets"),
        // The SMF reader alone on one file, timed (make bench, beside mido; BENCHMARKS.md).
        .executableTarget(name: "tactus-smf-bench", dependencies: ["TactusCore"], path: "Benchmarks/SMFRead"),

        // MARK: C (Sources/C): headers and what Swift cannot import from them

        // LV2 headers and what Swift cannot import from them (URI constants, port
        // indices, varargs log): shared by the plugin and every host of the project.
        .target(name: "CLV2", path: "Sources/C/CLV2"),
        // The plugin's descriptor and extension tables (C constants), linked into the plugin only.
        .target(name: "CLV2Descriptor", dependencies: ["CLV2"], path: "Sources/C/CLV2Descriptor"),
        // The editor's C side: LV2 UI, X11 and cairo headers, its descriptor table.
        .target(
            name: "CLV2UI", dependencies: ["CLV2"], path: "Sources/C/CLV2UI",
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("cairo"), .linkedLibrary("m")]),
        // The in-process host's log capture (a C variadic function).
        .target(name: "CInProcessHost", path: "Sources/C/CInProcessHost"),
        // JACK, and the realtime check's hooks, looked up in the preloaded interposer by
        // the hosts that bracket audio-thread calls.
        .target(name: "CJack", path: "Sources/C/CJack", linkerSettings: [.linkedLibrary("jack"), .linkedLibrary("dl")]),
        .target(name: "CRTCheckHooks", path: "Sources/C/CRTCheckHooks", linkerSettings: [.linkedLibrary("dl")]),
        // libedit, for line editing, history and completion at tactus jack's prompt.
        .systemLibrary(name: "CEditLine", path: "Sources/C/CEditLine", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        // No pkgConfig for FluidSynth: its .pc file passes glib's and SDL2's
        // -pthread and -D flags, which SwiftPM refuses with a warning on every
        // build; fluidsynth.h needs none of them (it is in /usr/include).
        .systemLibrary(name: "CFluidSynth", path: "Sources/C/CFluidSynth", providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CSndFile", path: "Sources/C/CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // The lilv hosts: lilv, plus the C they need (a variadic log) and a clock for the bench.
        .systemLibrary(name: "CLilv", path: "Sources/C/CLilv", pkgConfig: "lilv-0", providers: [.apt(["liblilv-dev"])]),
        .target(name: "CTestHost", path: "Sources/C/CTestHost"),
        .target(name: "CBenchClock", path: "Sources/C/CBenchClock"),

        // MARK: Tests (Tests/): the tests of X next to X's name

        // Random sessions shared by the test targets.
        .target(name: "TactusTestSupport", dependencies: ["TactusCore", "TactusOffline"], path: "Tests/TactusTestSupport"),
        .testTarget(
            name: "TactusCoreTests",
            dependencies: ["TactusCore", "TactusOffline", "TactusTestSupport", .product(name: "BigInt", package: "BigInt")]),
        .testTarget(name: "TactusOfflineTests", dependencies: ["TactusCore", "TactusOffline"]),
        // The plugin, run through the project's lilv host (tactus-lv2host) in child processes.
        // and beside tactus jack's process callback, run without a server.
        .testTarget(name: "TactusLV2Tests", dependencies: ["TactusCore", "TactusOffline", "TactusTestSupport", "TactusJack", "TactusJackSequencer", "LV2HostKit"]),
        // The plugin in-process (hosted build): fuzz corpora, threads, regressions.
        .testTarget(name: "TactusRobustnessTests", dependencies: ["TactusLV2Hosted", "TactusFuzzTargets", "TactusOffline", "CLV2", "LV2HostKit"]),
        // tactus jack's prompt commands and its process callback.
        .testTarget(name: "TactusJackSequencerTests", dependencies: ["TactusJackSequencer", "TactusCore"]),
        // The command line's own parts: the progress line, formatting, paths.
        .testTarget(name: "TactusCommandLineTests", dependencies: ["TactusCommandLine"]),
        .testTarget(name: "TactusBounceTests", dependencies: ["TactusBounce", "TactusCore", "TactusOffline"]),
    ]
)
