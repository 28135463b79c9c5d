// swift-tools-version: 6.1
import PackageDescription

// The targets are grouped as Sources/ is (docs/architecture.md): the engine and
// the model, the formats (LV2, its editor, JACK), the tools (the command line
// and what it uses), the hosts (the project's own LV2 hosts and checks), the C
// shims; then the tests, which mirror the same groups.

let package = Package(
    name: "Tactus",
    products: [
        .executable(name: "tactus", targets: ["tactus"]),
        .executable(name: "tactus-lv2host", targets: ["tactus-lv2host"]),
        .executable(name: "tactus-lv2bench", targets: ["tactus-lv2bench"]),
        .executable(name: "tactus-hosttest", targets: ["tactus-hosttest"]),
        // The editor's test host (Tests/Editor): loads tactus_ui.so under X, records what it writes.
        .executable(name: "tactus-editorhost", targets: ["tactus-editorhost"]),
        // The CLAP test host (Tests/Formats/CLAP/clap-test): loads tactus.clap, runs it, prints its MIDI.
        .executable(name: "tactus-claphost", targets: ["tactus-claphost"]),
        // Preloaded into a host to count allocator and lock calls inside run().
        .library(name: "TactusRTCheck", type: .dynamic, targets: ["TactusRTCheck"]),
        // The engine and the pattern model (used by the benchmarks' package).
        .library(name: "TactusEngine", targets: ["TactusEngine"]),
        .library(name: "TactusModel", targets: ["TactusModel"]),
        // Transport scripts, the simulated host, SplitMix64 (used by the benchmarks).
        .library(name: "TactusOffline", targets: ["TactusOffline"]),
        // The plugin as normal Swift, loaded by make test-asan (the bundle's
        // plugin.lv2/tactus.so and tactus_ui.so are Embedded Swift, built by make plugin).
        .library(name: "TactusLV2", type: .dynamic, targets: ["TactusLV2"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/attaswift/BigInt", from: "6.0.1"),
    ],
    targets: [
        // MARK: Engine and model (Sources/Engine, Sources/Model): pure Swift, no Foundation,
        // inside the Embedded subset (the Makefile also builds them with Embedded Swift,
        // under the same names, into the plugin and its editor).

        // What the audio thread runs: time, transport, render, hand-over, the snapshot it
        // plays, the sequencer and the audio side of the editor's protocol. Every public
        // entry point is `@_noLocks` (scripts/nolocks-check, docs/architecture.md);
        // whole-module compilation lets `@_noLocks` see every callee in the module.
        .target(name: "TactusEngine", path: "Sources/Engine", swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The pattern (its parser, writer, errors, note names), the one snapshot builder,
        // MIDI files, the text transfer: used by the worker, the editor and the tools.
        .target(name: "TactusModel", dependencies: ["TactusEngine"], path: "Sources/Model/TactusModel"),
        // The editor's model: the piano roll's document, geometry, selection and history.
        .target(name: "TactusEditorModel", dependencies: ["TactusEngine", "TactusModel"], path: "Sources/Model/TactusEditorModel"),

        // MARK: Formats (Sources/Formats): the thin wrappers a host loads or runs

        // The atom codec and the URID table of every LV2 party in the project: the plugin,
        // its editor and the hosts read and write atoms (sequences, objects, strings, the
        // 8-byte padding) through it alone. Embedded-clean; `make plugin` compiles the same
        // folder with Embedded Swift into the plugin and its editor.
        .target(name: "LV2Atoms", dependencies: ["CLV2"], path: "Sources/Formats/LV2/LV2Atoms"),
        // The LV2 glue. Here a normal Swift module (the hosted build: the in-process
        // host, the sanitizers, libFuzzer); `make plugin` compiles the same folder with
        // Embedded Swift into plugin.lv2/tactus.so, linked with exports.map. The dynamic
        // product is the hosted plugin that make test-asan loads. (No linker settings
        // here: SwiftPM would apply exports.map to every executable that links the
        // module, the test runner included, where it hides ASan's allocator.)
        .target(
            name: "TactusLV2", dependencies: ["CLV2", "CLV2Descriptor", "LV2Atoms", "TactusEngine", "TactusModel"],
            path: "Sources/Formats/LV2/TactusLV2",
            exclude: ["exports.map"],
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The pattern editor (ui:X11UI). Here a normal Swift module, so that every build
        // type-checks it; `make plugin` compiles it with Embedded Swift into
        // plugin.lv2/tactus_ui.so (libc, libX11 and libcairo; exports lv2ui_descriptor).
        .target(
            name: "TactusUI", dependencies: ["CLV2", "CLV2UI", "LV2Atoms", "TactusEngine", "TactusModel", "TactusEditorModel"],
            path: "Sources/Formats/LV2/TactusUI",
            exclude: ["exports.map"]),
        // JACK: the client, the transport follower and master, the recorder used by
        // tests and the demo.
        .target(name: "TactusJack", dependencies: ["CJack", "TactusEngine", "TactusModel", "TactusOffline"], path: "Sources/Formats/JACK/TactusJack"),
        // New Session Manager support for `tactus jack`, free of JACK: the OSC codec,
        // the UDP socket, the protocol's messages, the session's folder and settings.
        .target(name: "TactusNSM", dependencies: ["FileIO", "TactusModel"], path: "Sources/Formats/JACK/TactusNSM"),
        // `tactus jack`: the sequencer as a JACK client, a thin wrapper of the
        // engine. `@_noLocks` on its process callback checks across the
        // module line: the engine's public `@_noLocks` methods and `@inlinable` queue.
        .target(
            name: "TactusJackSequencer", dependencies: ["CJack", "CEditLine", "CRTCheckHooks", "TactusEngine", "TactusModel", "TactusJack", "TactusOffline", "TactusCommandLine", "FileIO", "TactusNSM"],
            path: "Sources/Formats/JACK/TactusJackSequencer",
            swiftSettings: [.unsafeFlags(["-wmo", "-num-threads", "2"])]),
        // The CLAP glue (issue 31, in progress): the host's transport as the engine's
        // position reports (timing contract §11), process() driving the engine.
        // Embedded-clean, `@_noLocks`; make clap compiles it into tactus.clap.
        .target(
            name: "TactusCLAP", dependencies: ["CCLAP", "CCLAPEntry", "CLV2", "LV2Atoms", "TactusEngine", "TactusModel"], path: "Sources/Formats/CLAP/TactusCLAP",
            exclude: ["exports.map"],
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
                "TactusEngine", "TactusModel", "TactusOffline", "TactusJack", "TactusJackSequencer", "FileIO", "TactusBounce", "TactusCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/Tools/tactus",
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
        // What the command line needs from the system, without Foundation: the
        // progress line, printf formats, paths, threads, the monotonic clock.
        .target(name: "TactusCommandLine", dependencies: ["FileIO"], path: "Sources/Tools/TactusCommandLine"),
        // Files written whole or not at all (temporary file and rename) and read whole, with the system's reason on failure.
        .target(name: "FileIO", dependencies: ["TactusEngine", "TactusModel"], path: "Sources/Tools/FileIO"),
        // The offline host: transport scripts, a simulated host, event logs.
        .target(name: "TactusOffline", dependencies: ["TactusEngine", "TactusModel", "TactusCommandLine"], path: "Sources/Tools/TactusOffline"),
        // tactus bounce: schedules of exact frames rendered through libfluidsynth or an
        // LV2 instrument (lilv, the host kit) into WAV or FLAC (libsndfile); docs/bounce.md.
        .target(
            name: "TactusBounce",
            dependencies: ["TactusEngine", "TactusModel", "TactusOffline", "FileIO", "CFluidSynth", "CSndFile", "CLilv", "CTestHost", "LV2HostKit", "CLV2"],
            path: "Sources/Tools/TactusBounce"),

        // MARK: Hosts (Sources/Hosts): the project's own LV2 hosts and realtime check

        // The one host kit of every LV2 host in the project (the lilv test and bench
        // hosts, the in-process host): URID map, synchronous worker, atom port
        // buffers and bodies, the URIs and position keys, the features and options.
        .target(name: "LV2HostKit", dependencies: ["CLV2", "LV2Atoms", "TactusOffline"], path: "Sources/Hosts/LV2HostKit"),
        // The test host: the plugin through lilv, in child processes of the tests.
        .executableTarget(
            name: "tactus-lv2host",
            dependencies: [
                "CLilv", "CTestHost", "CRTCheckHooks", "LV2HostKit", "TactusEngine", "TactusModel", "TactusEditorModel", "TactusOffline",
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
            dependencies: ["TactusEngine", "TactusModel", "TactusOffline", "TactusJack", "FileIO", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/Hosts/tactus-hosttest"),
        // The editor's test host, in C: two instances of tactus_ui.so under windows of
        // its own, idled like a host's UI thread, every write_function call logged.
        .executableTarget(
            name: "tactus-editorhost", dependencies: ["CLV2"], path: "Sources/Hosts/tactus-editorhost",
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("cairo"), .linkedLibrary("dl")]),
        // The CLAP test host, in C: loads tactus.clap with dlopen, checks what it declares,
        // runs blocks under a steady host transport and prints the event log (make clap-test);
        // with --gui 1, opens the plugin's editor in an X11 window of its own (libX11).
        // libm: the Embedded plugin takes ceil from the host process, as the LV2 plugin does.
        .executableTarget(
            name: "tactus-claphost", dependencies: ["CCLAP", "CRTCheckHooks"], path: "Sources/Hosts/tactus-claphost",
            linkerSettings: [.linkedLibrary("dl"), .linkedLibrary("m"), .linkedLibrary("X11")]),
        // The realtime check: an interposer preloaded into a host, counting allocator
        // and lock calls between the hooks the hosts call around audio-thread work.
        .target(name: "TactusRTCheck", path: "Sources/Hosts/TactusRTCheck"),
        // The plugin in this process (the hosted TactusLV2): what the fuzzers, the
        // sanitizers and the robustness tests run.
        .target(
            name: "TactusInProcessHost", dependencies: ["TactusLV2", "CLV2", "CInProcessHost", "LV2HostKit"],
            path: "Sources/Hosts/InProcessHost"),
        // The fuzz targets (run by libFuzzer in `make fuzz`, replayed by the tests).
        .target(
            name: "TactusFuzzTargets",
            dependencies: [
                "TactusInProcessHost", "TactusEngine", "TactusModel", "TactusEditorModel", "TactusOffline", "CLV2", "LV2HostKit", "TactusCLAP", "CCLAP",
                "CCLAPEntry",
            ],
            path: "Fuzz/Targets"),
        // The SMF reader alone on one file, timed (make bench, beside mido; BENCHMARKS.md).
        .executableTarget(name: "tactus-smf-bench", dependencies: ["TactusEngine", "TactusModel"], path: "Benchmarks/SMFRead"),

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
        // The CLAP headers (Debian's dpf-source, or the CLAP SDK's <clap/clap.h>): the CLAP glue.
        .target(name: "CCLAP", path: "Sources/C/CCLAP"),
        // The CLAP plugin's entry, factory, plugin table and note ports (constant C tables).
        .target(name: "CCLAPEntry", dependencies: ["CCLAP"], path: "Sources/C/CCLAPEntry"),
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

        // MARK: Tests (Tests/): the tests of X next to X's name, in the same groups

        // LV2's own atom forge (lv2/atom/forge.h), the reference the codec's tests compare with.
        .target(name: "CLV2Forge", path: "Tests/Support/CLV2Forge"),
        // Random sessions and lanes shared by the test targets.
        .target(name: "TactusTestSupport", dependencies: ["TactusEngine", "TactusModel", "TactusOffline"], path: "Tests/Support/TactusTestSupport"),
        // The engine: contract rules, a reference model (exact rationals), differential and
        // block-partition property tests, exact hosts, the queue, the soak.
        .testTarget(
            name: "TactusEngineTests",
            dependencies: ["TactusEngine", "TactusModel", "TactusOffline", "TactusTestSupport", .product(name: "BigInt", package: "BigInt")],
            path: "Tests/Engine/TactusEngineTests"),
        // The pattern model: the parser, the snapshot builder, MIDI files, the text transfer.
        .testTarget(
            name: "TactusModelTests",
            dependencies: ["TactusEngine", "TactusModel", "TactusOffline", "TactusTestSupport", .product(name: "BigInt", package: "BigInt")],
            path: "Tests/Model/TactusModelTests"),
        // The editor's model.
        .testTarget(
            name: "TactusEditorModelTests", dependencies: ["TactusEngine", "TactusModel", "TactusEditorModel", "TactusTestSupport"],
            path: "Tests/Model/TactusEditorModelTests"),
        // The plugin's glue, all of it: through the project's lilv host (tactus-lv2host) in
        // child processes and beside tactus jack's process callback, run without a server;
        // and in this process (the hosted build): fuzz corpora, threads, regressions.
        .testTarget(
            name: "TactusLV2Tests",
            dependencies: [
                "TactusEngine", "TactusModel", "TactusEditorModel", "TactusOffline", "TactusTestSupport", "TactusJack",
                "TactusJackSequencer", "LV2HostKit", "TactusInProcessHost", "TactusLV2", "TactusFuzzTargets", "CLV2",
            ],
            path: "Tests/Formats/LV2/TactusLV2Tests"),
        // The atom codec: what it writes it reads back, byte for byte as lv2_atom_forge lays
        // it out; malformed sequences and objects end the walk where they should.
        .testTarget(name: "LV2AtomsTests", dependencies: ["LV2Atoms", "LV2HostKit", "CLV2", "CLV2Forge", "TactusOffline"], path: "Tests/Formats/LV2/LV2AtomsTests"),
        // The CLAP glue: §11's transport mapping against LV2's reports of the same place.
        .testTarget(
            name: "TactusCLAPTests",
            dependencies: [
                "TactusCLAP", "CCLAP", "CCLAPEntry", "CLV2", "LV2Atoms", "TactusEngine", "TactusModel", "TactusEditorModel", "TactusOffline", "TactusTestSupport", "FileIO",
            ],
            path: "Tests/Formats/CLAP/TactusCLAPTests"),
        // tactus jack's prompt commands and its process callback.
        .testTarget(
            name: "TactusJackSequencerTests", dependencies: ["TactusJackSequencer", "TactusEngine", "TactusModel", "TactusOffline", "FileIO"],
            path: "Tests/Formats/JACK/TactusJackSequencerTests"),
        // The OSC codec (round trips, truncated and malformed packets), NSM's messages, the session's settings.
        .testTarget(name: "TactusNSMTests", dependencies: ["TactusNSM"], path: "Tests/Formats/JACK/TactusNSMTests"),
        // The tools: transport scripts, event logs and the simulated host; tactus bounce;
        // the command line's own parts (the progress line, formatting, paths).
        .testTarget(name: "TactusOfflineTests", dependencies: ["TactusEngine", "TactusModel", "TactusOffline", "TactusTestSupport"], path: "Tests/Tools/TactusOfflineTests"),
        .testTarget(
            name: "TactusBounceTests", dependencies: ["TactusBounce", "TactusEngine", "TactusModel", "TactusOffline"],
            path: "Tests/Tools/TactusBounceTests"),
        .testTarget(name: "TactusCommandLineTests", dependencies: ["TactusCommandLine"], path: "Tests/Tools/TactusCommandLineTests"),
    ]
)
