import CLV2
import TactusEngine
import TactusInProcessHost
import TactusModel

/// Helpers for driving the in-process plugin in tests: one block with the
/// given control events, the MIDI it wrote, the notify messages.
extension InProcessPlugin {
    static func make(sampleRate: Double = 48000, worker: Bool = true) -> InProcessPlugin {
        var config = Configuration()
        config.sampleRate = sampleRate
        config.withWorker = worker
        return InProcessPlugin(descriptor: lv2_descriptor(0)!, configuration: config)!
    }

    /// A control event to send: an atom type and body at a frame offset.
    struct Input {
        var frames: Int64 = 0
        var type: LV2_URID
        var body: [UInt8]
    }

    func position(at frames: Int64 = 0, speed: Float = 1, beat: Double = 0, tempo: Float = 120) -> Input {
        Input(frames: frames, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [
            AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(speed)),
            AtomProperty(key: uris.timeBeat, type: uris.atomDouble, body: AtomBody.double(beat)),
            AtomProperty(key: uris.timeBeatsPerMinute, type: uris.atomFloat, body: AtomBody.float(tempo)),
        ]))
    }

    func stop(at frames: Int64 = 0) -> Input {
        Input(frames: frames, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [
            AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(0)),
        ]))
    }

    func setPattern(_ text: String, at frames: Int64 = 0) -> Input {
        patchSet(uris.pattern, type: uris.atomString, value: AtomBody.text(text), at: frames)
    }

    func setPatternFile(_ path: [UInt8], at frames: Int64 = 0) -> Input {
        patchSet(uris.patternFile, type: uris.atomPath, value: AtomBody.text(path), at: frames)
    }

    func patchSet(_ property: LV2_URID, type: LV2_URID, value: [UInt8], at frames: Int64 = 0) -> Input {
        Input(frames: frames, type: uris.atomObject, body: AtomBody.object(otype: uris.patchSet, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: AtomBody.urid(property)),
            AtomProperty(key: uris.patchValue, type: type, body: value),
        ]))
    }

    func get(_ property: LV2_URID, at frames: Int64 = 0) -> Input {
        Input(frames: frames, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: [
            AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: AtomBody.urid(property)),
        ]))
    }

    func getAll(at frames: Int64 = 0) -> Input {
        Input(frames: frames, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: []))
    }

    /// Runs one block; the MIDI events as `(offset, bytes)`.
    @discardableResult
    func block(_ frames: UInt32, _ inputs: [Input] = [], midiBytes: Int = 1 << 16) throws -> [(Int64, [UInt8])] {
        control.clear()
        for i in inputs { control.append(frames: i.frames, type: i.type, body: i.body) }
        midiOut.offered = midiBytes
        run(frames: frames)
        return try midiEvents().map { ($0.frames, $0.body) }
    }

    /// The `patch:Set` messages of the last block's notify output.
    func notifications() throws -> [PatchSetMessage] {
        try notifyEvents().compactMap { PatchSetMessage($0, uris: uris) }
    }

    /// The last block's error message, if it sent one.
    func errorMessage() throws -> String? {
        try notifications().last { $0.property == uris.error }?.text
    }

    /// The pattern text in use, asked with `patch:Get` in a block of its own.
    func patternInUse() throws -> String? {
        try block(1, [getAll()])
        return try notifications().first { $0.property == uris.pattern }?.text
    }
}
