import CFluidSynth
import Glibc
import Synchronization

/// A SoundFont played by libfluidsynth through its C API (docs/bounce.md, B5):
/// events go straight to the synth between writes (never `fluid_player`),
/// `synth.min-note-length` 0, a GM reset at load, every channel-voice kind,
/// channel 10 as GM drums (FluidSynth's default bank mode), reverb and chorus
/// on unless switched off.
///
/// FluidSynth applies an event at the start of its next internal 64-frame
/// block, so an onset lands up to 63 frames after its frame: FluidSynth's own
/// grid, which the renderer cannot remove (measured in docs/bounce.md).
///
/// One thread at a time (the synth's own API lock is off: offline, one caller).
public final class FluidSynthInstrument: BounceInstrument {
    public struct Options: Sendable {
        public var reverb = true
        public var chorus = true
        /// FluidSynth's `synth.cpu-cores`: extra threads for voice rendering.
        public var cpuCores = 1
        /// `synth.polyphony`.
        public var polyphony = 256
        /// `synth.gain` (FluidSynth's default, 0.2, leaves room for dense files).
        public var gain = 0.2
        public init() {}
    }

    public let sampleRate: Int
    public let maximumBlockLength = 8192
    public let soundFontPath: String
    private let settings: OpaquePointer
    private let synth: OpaquePointer

    /// FluidSynth's one-time initialization and its log hooks are not thread-safe:
    /// synths are made and deleted one at a time (rendering runs in parallel).
    private static let lifecycle = Mutex(())

    public init(soundFont path: String, sampleRate: Int, options: Options = Options()) throws(BounceError) {
        let made = Self.lifecycle.withLock { _ in Result { () throws(BounceError) in try Self.make(path: path, sampleRate: sampleRate, options: options) } }
        (settings, synth) = try made.get()
        self.sampleRate = sampleRate
        soundFontPath = path
        try reset()
    }

    private static func make(path: String, sampleRate: Int, options: Options) throws(BounceError) -> (OpaquePointer, OpaquePointer) {
        FluidLog.install()
        // A file that cannot be opened says so with the system's words, before FluidSynth tries.
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw BounceError("cannot read SoundFont '\(path)': \(String(cString: strerror(errno)))") }
        close(fd)
        // Neither a SoundFont 2 nor a DLS: refused here, not by FluidSynth's loaders (SoundFontFile).
        if case .failure(let problem) = SoundFontFile.kind(of: path) { throw BounceError("cannot load SoundFont '\(path)': \(problem.description)") }
        let settings = new_fluid_settings()!
        fluid_settings_setnum(settings, "synth.sample-rate", Double(sampleRate))
        fluid_settings_setint(settings, "synth.min-note-length", 0)
        fluid_settings_setint(settings, "synth.reverb.active", options.reverb ? 1 : 0)
        fluid_settings_setint(settings, "synth.chorus.active", options.chorus ? 1 : 0)
        fluid_settings_setint(settings, "synth.cpu-cores", Int32(max(1, options.cpuCores)))
        fluid_settings_setint(settings, "synth.polyphony", Int32(options.polyphony))
        fluid_settings_setint(settings, "synth.threadsafe-api", 0)
        fluid_settings_setnum(settings, "synth.gain", options.gain)
        guard let synth = new_fluid_synth(settings) else {
            delete_fluid_settings(settings)
            throw BounceError("FluidSynth could not start: \(FluidLog.takeLast() ?? "no reason given")")
        }
        FluidLog.clear()
        if fluid_synth_sfload(synth, path, 1) == FLUID_FAILED {
            let reason = FluidLog.takeLast() ?? "not a SoundFont 2 file"
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
            throw BounceError("cannot load SoundFont '\(path)': \(reason)")
        }
        return (settings, synth)
    }

    deinit {
        Self.lifecycle.withLock { _ in
            delete_fluid_synth(synth)
            delete_fluid_settings(settings)
        }
    }

    public func send(_ e: BounceEvent) {
        let channel = Int32(e.channel)
        switch e.kind {
        case 0x8: fluid_synth_noteoff(synth, channel, Int32(e.data1))
        case 0x9:
            if e.data2 == 0 { fluid_synth_noteoff(synth, channel, Int32(e.data1)) } else { fluid_synth_noteon(synth, channel, Int32(e.data1), Int32(e.data2)) }
        case 0xA: fluid_synth_key_pressure(synth, channel, Int32(e.data1), Int32(e.data2))
        case 0xB: fluid_synth_cc(synth, channel, Int32(e.data1), Int32(e.data2))
        case 0xC: fluid_synth_program_change(synth, channel, Int32(e.data1))
        case 0xD: fluid_synth_channel_pressure(synth, channel, Int32(e.data1))
        case 0xE: fluid_synth_pitch_bend(synth, channel, Int32(e.data1) | Int32(e.data2) << 7)
        default: break
        }
    }

    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) throws(BounceError) {
        guard fluid_synth_write_float(synth, Int32(frameCount), left, 0, 1, right, 0, 1) == FLUID_OK else {
            throw BounceError("FluidSynth failed to render: \(FluidLog.takeLast() ?? "no reason given")")
        }
    }

    /// Each channel's (bank, program) as the synth has it now, channels 1-16 in order.
    public func programs() -> [(bank: Int, program: Int)] {
        (0..<16).map { channel in
            var font: Int32 = 0, bank: Int32 = 0, program: Int32 = 0
            fluid_synth_get_program(synth, Int32(channel), &font, &bank, &program)
            return (Int(bank), Int(program))
        }
    }

    /// Every voice off and every channel to its power-on state, then a GM
    /// System On (`F0 7E 7F 09 01 F7`), as a GM file expects to start.
    public func reset() throws(BounceError) {
        fluid_synth_system_reset(synth)
        let gmOn: [CChar] = [0x7E, 0x7F, 0x09, 0x01]
        _ = gmOn.withUnsafeBufferPointer { fluid_synth_sysex(synth, $0.baseAddress, 4, nil, nil, nil, 0) }
    }
}

/// FluidSynth's log, kept instead of printed: its last error or warning is
/// what a bounce's own message quotes. Installed once; FluidSynth calls it on
/// the thread that loads or renders.
enum FluidLog {
    nonisolated(unsafe) private static var last: String?
    nonisolated(unsafe) private static var installed = false

    static func install() {
        guard !installed else { return }
        installed = true
        let keep: fluid_log_function_t = { _, message, _ in
            if let message { FluidLog.last = String(cString: message) }
        }
        for level in [FLUID_PANIC, FLUID_ERR, FLUID_WARN] { fluid_set_log_function(Int32(level.rawValue), keep, nil) }
        for level in [FLUID_INFO, FLUID_DBG] { fluid_set_log_function(Int32(level.rawValue), nil, nil) }
    }

    static func clear() { last = nil }

    static func takeLast() -> String? {
        defer { last = nil }
        return last
    }
}
