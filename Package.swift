// swift-tools-version: 6.1
import Foundation
import PackageDescription

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
        // The realtime core: pure Swift, no Foundation, kept inside the Embedded subset.
        // Whole-module compilation lets `@_noLocks` see every callee in the module.
        .target(name: "TactusCore", swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // LV2 headers and what Swift cannot import from them (URI constants, port
        // indices, varargs log): shared by the plugin and every host of the project.
        .target(name: "CLV2"),
        // The plugin's descriptor and extension tables (C constants), linked into the plugin only.
        .target(name: "CLV2Descriptor", dependencies: ["CLV2"]),
        // The one Embedded Swift build of the core (its sources, through the Core
        // link), used by the plugin and by its UI: each .so needs libc alone (the UI
        // adds libX11 and libcairo).
        .target(
            name: "TactusCoreEmbedded",
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ]),
        // The LV2 glue, built with Embedded Swift on the Embedded core.
        .target(
            name: "TactusLV2", dependencies: ["CLV2", "CLV2Descriptor", "TactusCoreEmbedded"],
            exclude: ["exports.map"],
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--version-script=\(root)/Sources/TactusLV2/exports.map", "-Xlinker", "--gc-sections",
            ])]),
        // The editor's test host, in C: two instances of tactus_ui.so under windows of
        // its own, idled like a host's UI thread, every write_function call logged.
        .executableTarget(
            name: "tactus-editorhost", dependencies: ["CLV2"],
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("cairo"), .linkedLibrary("dl")]),
        // The editor's C side: LV2 UI, X11 and cairo headers, its descriptor table.
        .target(name: "CLV2UI", dependencies: ["CLV2"], linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("cairo"), .linkedLibrary("m")]),
        // The pattern editor (ui:X11UI), Embedded Swift on the same Embedded core as
        // the plugin: the .so needs libc, libX11 and libcairo, and exports lv2ui_descriptor.
        .target(
            name: "TactusUI", dependencies: ["CLV2", "CLV2UI", "TactusCoreEmbedded"],
            exclude: ["exports.map"],
            swiftSettings: [
                .enableExperimentalFeature("Embedded"),
                .unsafeFlags(["-wmo", "-Xfrontend", "-disable-stack-protector", "-Xfrontend", "-function-sections"]),
            ],
            linkerSettings: [.unsafeFlags([
                "-Xlinker", "--version-script=\(root)/Sources/TactusUI/exports.map", "-Xlinker", "--gc-sections",
                "-Xlinker", "-z", "-Xlinker", "defs",
            ])]),
        // The plugin's sources (glue and core, through the Plugin and Core links) as a normal
        // Swift module, with an in-process host: what sanitizers and libFuzzer run.
        // The link is the only way to build the same sources a second time with
        // sanitizer and coverage instrumentation, as a normal (not Embedded) module.
        .target(name: "CInProcessHost"),
        .target(
            name: "TactusLV2Hosted", dependencies: ["CLV2", "CLV2Descriptor", "CInProcessHost", "LV2HostKit"], exclude: ["Plugin/exports.map"],
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The fuzz targets (run by libFuzzer in `make fuzz`, replayed by the tests).
        .target(name: "TactusFuzzTargets", dependencies: ["TactusLV2Hosted", "CLV2", "LV2HostKit"], path: "Fuzz/Targets"),
        // Files written whole or not at all (temporary file and rename) and read whole, with the system's reason on failure.
        .target(name: "FileIO", dependencies: ["TactusCore"]),
        // The offline host: transport scripts, a simulated host, event logs.
        .target(name: "TactusOffline", dependencies: ["TactusCore"]),
        // JACK: the transport master and recorder used by tests and the demo.
        .target(name: "CJack", linkerSettings: [.linkedLibrary("jack"), .linkedLibrary("dl")]),
        // The realtime check's hooks, looked up in the preloaded interposer by the hosts that bracket audio-thread calls.
        .target(name: "CRTCheckHooks", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "TactusJack", dependencies: ["CJack", "TactusCore", "TactusOffline"]),
        // `tactus jack`: the sequencer as a JACK client, a thin wrapper of the
        // core's engine. `@_noLocks` on its process callback checks across the
        // module line: the core's public `@_noLocks` methods and `@inlinable` queue.
        .target(
            name: "TactusJackSequencer", dependencies: ["CJack", "CEditLine", "CRTCheckHooks", "TactusCore", "TactusJack", "FileIO"],
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
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
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
        // What the command line needs from the system, without Foundation: the
        // progress line, printf formats, paths, threads, the monotonic clock.
        .target(name: "TactusCommandLine", dependencies: ["FileIO"]),
        // tactus bounce: schedules of exact frames rendered through libfluidsynth or an
        // LV2 instrument (lilv, the host kit) into WAV or FLAC (libsndfile); docs/bounce.md.
        // No pkgConfig for FluidSynth: its .pc file passes glib's and SDL2's
        // -pthread and -D flags, which SwiftPM refuses with a warning on every
        // build; fluidsynth.h needs none of them (it is in /usr/include).
        .systemLibrary(name: "CFluidSynth", providers: [.apt(["libfluidsynth-dev"])]),
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .target(
            name: "TactusBounce",
            dependencies: ["TactusCore", "TactusOffline", "FileIO", "CFluidSynth", "CSndFile", "CLilv", "CTestHost", "LV2HostKit", "CLV2"]),
        .testTarget(name: "TactusBounceTests", dependencies: ["TactusBounce", "TactusCore", "TactusOffline"]),
        // libedit, for line editing, history and completion at tactus jack's prompt.
        .systemLibrary(name: "CEditLine", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),
        // The test host: lilv, plus the C it needs (a variadic log) and the RT-check hooks.
        .systemLibrary(name: "CLilv", pkgConfig: "lilv-0", providers: [.apt(["liblilv-dev"])]),
        .target(name: "CTestHost"),
        // The one host kit of every LV2 host in the project (the lilv test and bench
        // hosts, the in-process host): URID map, synchronous worker, atom port
        // buffers and bodies, the URIs and position keys, the features and options.
        .target(name: "LV2HostKit", dependencies: ["CLV2"]),
        .target(name: "TactusRTCheck"),
        .executableTarget(
            name: "tactus-lv2host",
            dependencies: [
                "CLilv", "CTestHost", "CRTCheckHooks", "LV2HostKit", "TactusCore", "TactusOffline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: [.linkedLibrary("dl")]),
        // The bench host (make bench): Tactus and its peers side by side through lilv, run() timed per block.
        .target(name: "CBenchClock"),
        .executableTarget(
            name: "tactus-lv2bench",
            dependencies: ["CLilv", "CTestHost", "LV2HostKit", "CBenchClock", "TactusOffline", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The SMF reader alone on one file, timed (make bench, beside mido; BENCHMARKS.md).
        .executableTarget(name: "tactus-smf-bench", dependencies: ["TactusCore"], path: "Benchmarks/SMFRead"),
        // Random sessions shared by the test targets.
        .target(name: "TactusTestSupport", dependencies: ["TactusCore", "TactusOffline"], path: "Tests/TactusTestSupport"),
        // Tools for the live host tests: probe logs to fixtures, ideal sessions.
        .executableTarget(
            name: "tactus-hosttest",
            dependencies: ["TactusCore", "TactusOffline", "TactusJack", "FileIO", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .testTarget(
            name: "TactusCoreTests",
            dependencies: ["TactusCore", "TactusOffline", "TactusTestSupport", .product(name: "BigInt", package: "BigInt")]),
        .testTarget(name: "TactusOfflineTests", dependencies: ["TactusCore", "TactusOffline"]),
        // The plugin, run through the project's lilv host (tactus-lv2host) in child processes.
        // and beside tactus jack's process callback, run without a server.
        .testTarget(name: "TactusLV2Tests", dependencies: ["TactusCore", "TactusOffline", "TactusTestSupport", "TactusJack", "TactusJackSequencer", "LV2HostKit"]),
        // The command line's own parts: the progress line, formatting, paths.
        .testTarget(name: "TactusCommandLineTests", dependencies: ["TactusCommandLine"]),
        // tactus jack's prompt commands and its process callback.
        .testTarget(name: "TactusJackSequencerTests", dependencies: ["TactusJackSequencer", "TactusCore"]),
        // The plugin in-process (hosted build): fuzz corpora, threads, regressions.
        .testTarget(name: "TactusRobustnessTests", dependencies: ["TactusLV2Hosted", "TactusFuzzTargets", "TactusOffline", "CLV2", "LV2HostKit"]),
    ]
)
