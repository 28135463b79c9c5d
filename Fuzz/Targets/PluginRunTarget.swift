import CLV2
import LV2Atoms
import Glibc
import TactusEngine
import TactusInProcessHost
import TactusModel

/// Fuzz target 1: the plugin's `run()` fed whatever a host could put on the
/// control input, block after block, with the invariants checked after every
/// block (`NoteChecker`, `EditModel`).
///
/// An input is a program: a host setup (sample rate, worker, buffer sizes,
/// ports), then blocks of random lengths, each with up to a few dozen events:
/// `time:Position` objects and blanks with any keys, types, sizes and values
/// (NaN, infinities, absurd tempos, beats beyond 2^32, wrong types, truncated
/// bodies), stops, starts and seeks, MIDI of any length, `patch:Set` with
/// any property and value, `patch:Get`, atoms of random types, lying sizes and
/// truncated sequences; between blocks, deactivation and port changes. At
/// the end the host stops the transport with room in its buffers: nothing
/// may sound after that, and the pattern in use and the saved state must be
/// the last pattern accepted.
///
/// And the editor's messages (docs/plugin.md, "Messages"): pieces of edits
/// (`tactus:textPiece`) in order, reordered, duplicated, with lying lengths
/// and hashes, stale numbers, pieces of two edits mixed; changes
/// (`urn:tactus:patternChange`) made on the text in use or on another, broken
/// now and then; questions for windows of the text. Whatever comes, the
/// plugin never installs a text it did not receive whole: every text it
/// announces or saves is one that was sent whole, made whole from its
/// pieces, or named as a change's result; and every piece of text it sends
/// is the bytes of the text it names, where it says.
public enum PluginRunTarget {
    /// Runs one input; what was wrong, if anything.
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var input = FuzzInput(data)
        var session = Session(&input)
        session.run(&input)
        return session.violations
    }

    /// The libFuzzer entry: a violation is a crash.
    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("plugin run")
    }
}

private struct Session {
    var violations = Violations()
    let plugin: InProcessPlugin?
    let uris: URIDTable?
    var notes = NoteChecker()
    var edits: EditModel
    /// Whether edits can be predicted exactly (a worker with room for every request,
    /// no editor's pieces or changes: those make the inbox's state the plugin's).
    var predictable: Bool
    /// Every text the plugin may install, by hash: sent whole, made from pieces, named by a change.
    var allowed: [UInt64: [UInt8]] = [:]
    /// The editor's edits being sent in pieces (number, property, payload, hash, next offset).
    var payloads: [(sequence: Int32, property: LV2_URID, bytes: [UInt8], hash: UInt64, next: Int)] = []
    var lastSequence: Int32 = 0
    var midiConnected = true
    var controlConnected = true
    var notifyConnected = true
    /// Offered MIDI bytes per block: fixed, or chosen per block when nil.
    let midiBytes: Int?
    let notifyBytes: Int
    /// Port buffers: room for 680 MIDI events a block, and for any text an input can carry.
    static let bufferBytes = 1 << 14
    /// `TACTUS_FUZZ_TRACE=1`: print every block's inputs and MIDI (to read a crash).
    static var tracing: Bool { DeliveredInput.tracing }
    static func trace(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    init(_ input: inout FuzzInput) {
        let rates: [Double] = [48000, 44100, 96000, 22050, 192000, 8000, 1, 0]
        var rate = input.pick(rates)
        if rate == 0 { rate = Double(bitPattern: input.u64()) }
        var config = InProcessPlugin.Configuration()
        config.sampleRate = rate
        config.controlCapacity = Session.bufferBytes
        config.midiCapacity = Session.bufferBytes
        config.notifyCapacity = Session.bufferBytes
        let workerMode = input.below(8)
        config.withWorker = workerMode != 0
        // Room for 32 edits in a block (the most an input sends) of up to 6.6 KiB (the largest
        // fixture; raw texts stop at 4000 bytes): a worker that never refuses one.
        config.workerCapacity = workerMode == 1 ? 40 : (workerMode == 2 ? 200 : 1 << 18)
        // Mostly 42 events a block: full blocks (reading (g)) are common, and a block that reaches
        // the work bound (4 × 42 + 4096 onsets) stays cheap enough for millions of inputs.
        let midiChoice = [0, 8, 16, 40, 64, 1032, 1032, 1032, -1, Session.bufferBytes][input.below(10)]
        midiBytes = midiChoice < 0 ? nil : midiChoice
        notifyBytes = [0, 16, 100, 300, Session.bufferBytes, Session.bufferBytes, Session.bufferBytes, Session.bufferBytes][input.below(8)]
        plugin = InProcessPlugin(descriptor: lv2_descriptor(0)!, configuration: config, map: FuzzFixtures.map)
        if Session.tracing { Session.trace("rate \(rate), worker \(workerMode), MIDI \(midiChoice), notify \(notifyBytes)") }
        let valid = rate.isFinite && rate > 0
        if plugin == nil && valid { violations.add("instantiate refused the sample rate \(rate)") }
        if plugin != nil && !valid { violations.add("instantiate accepted the sample rate \(rate)") }
        uris = plugin?.uris
        predictable = workerMode > 2 && notifyBytes == Session.bufferBytes
        var initial: [UInt8] = []
        if let plugin {
            let (_, state) = plugin.save()
            initial = EditModel.stripped(state[plugin.uris.pattern]?.value ?? [])
            switch input.below(16) {
            case 0: midiConnected = false
            case 1: controlConnected = false
            case 2: notifyConnected = false
            default: break
            }
            plugin.connect(control: controlConnected, midi: midiConnected, notify: notifyConnected)
        }
        edits = EditModel(initialText: initial, hasWorker: config.withWorker)
        allow(initial)
    }

    mutating func allow(_ text: [UInt8]) { allowed[TextHash.of(text)] = text }

    mutating func run(_ input: inout FuzzInput) {
        guard let plugin, let uris else { return }
        var blocks = 0
        while !input.isExhausted && blocks < 48 {
            blocks += 1
            let frames = Session.blockLength(&input)
            betweenBlocks(&input, plugin)
            plugin.control.clear()
            let count = input.oneIn(16) ? input.below(33) : input.below(9)
        if count > 0, input.oneIn(4) {
            // An editor at work: a run of its messages in the block.
            for _ in 0..<(1 + input.below(6)) { writeEditorMessage(&input, frames: frames, plugin: plugin, uris: uris) }
        }
            for _ in 0..<count { writeEvent(&input, frames: frames, plugin: plugin, uris: uris) }
            if input.oneIn(16) {
                // A truncated sequence: the declared size cuts it anywhere.
                plugin.control.setDeclaredSize(UInt32(8 + input.below(plugin.control.eventBytes + 1)))
            } else if input.oneIn(64) {
                plugin.control.setType(input.pick([uris.atomChunk, uris.atomObject, 0]))
            }
            plugin.midiOut.offered = midiBytes ?? input.pick([0, 16, 40, 64, 1032, Session.bufferBytes])
            plugin.notify.offered = notifyBytes
            runBlock(frames: frames, plugin: plugin, uris: uris)
        }
        finish(plugin, uris)
    }

    static func blockLength(_ input: inout FuzzInput) -> UInt32 {
        switch input.below(8) {
        case 0: return 0
        case 1: return 1
        case 2: return UInt32(1 + input.below(64))
        case 3: return UInt32(1 + input.u16() % 8192)
        case 4: return 256
        case 5: return 4096
        case 6: return UInt32(input.u16())
        default: return input.oneIn(4) ? input.u32() : UInt32(1 + input.u16() % 8192)
        }
    }

    mutating func betweenBlocks(_ input: inout FuzzInput, _ plugin: InProcessPlugin) {
        switch input.below(32) {
        case 0:
            if Session.tracing { Session.trace("deactivate, activate") }
            plugin.deactivate()
            plugin.activate()
            notes.deactivated(at: plugin.framesRun, violations: &violations)
        case 1:
            controlConnected.toggle()
            plugin.connect(control: controlConnected, midi: midiConnected, notify: notifyConnected)
        case 2:
            notifyConnected.toggle()
            plugin.connect(control: controlConnected, midi: midiConnected, notify: notifyConnected)
        default:
            break
        }
    }

    // MARK: - Events

    static let interestingNumbers: [Double] = [
        0, 1, -1, 0.5, 120, 4, 3, 1e-9, 1e9, 4_294_967_296, 4_294_967_297, 1e300, -1e300, .nan, .infinity, -.infinity,
        999.9, 1000, 1000.0001, -1000, 9_007_199_254_740_992, 4.6e18, 9.3e18, -9.3e18, 1.0 / 1920, 1.0 / 16, 60, 300,
        0.25, .leastNonzeroMagnitude, -0.0, 2_147_483_648, 1.5, 7,
    ]

    mutating func writeEvent(_ input: inout FuzzInput, frames: UInt32, plugin: InProcessPlugin, uris: URIDTable) {
        let at = Session.offset(&input, frames: frames)
        let c = plugin.control
        switch input.below(16) {
        case 0, 1, 2:
            var properties: [AtomProperty] = []
            for _ in 0..<input.below(9) { properties.append(randomPositionProperty(&input, uris)) }
            let type = input.oneIn(10) ? input.pick([uris.atomBlank, uris.atomString, uris.atomChunk]) : uris.atomObject
            let otype = input.oneIn(20) ? input.pick([uris.patchSet, uris.atomInt, 0, input.u32()]) : uris.timePosition
            c.append(frames: at, type: type, body: AtomBody.object(otype: otype, properties: properties))
        case 3:
            let speed = AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(0))
            c.append(frames: at, type: input.oneIn(4) ? uris.atomBlank : uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [speed]))
        case 4, 5:
            // A start, or a seek while rolling: sane values, so that notes play often.
            let properties = [
                AtomProperty(key: uris.timeBar, type: uris.atomLong, body: AtomBody.long(Int64(input.below(40)) - 4)),
                AtomProperty(key: uris.timeBarBeat, type: uris.atomFloat, body: AtomBody.float(Float(input.below(64)) / 16)),
                AtomProperty(key: uris.timeBeatsPerBar, type: uris.atomFloat, body: AtomBody.float(input.pick([4, 3, 7, 0.5]))),
                AtomProperty(key: uris.timeBeatsPerMinute, type: uris.atomFloat, body: AtomBody.float(input.pick([120, 60, 133.7, 300, 999, 30, 1000, 1]))),
                AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(input.pick([1, 1, 1, 0.5, 2, 1000, 0.001]))),
            ]
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: properties))
        case 6:
            let bpm = AtomProperty(key: uris.timeBeatsPerMinute, type: uris.atomDouble, body: AtomBody.double(input.pick(Session.interestingNumbers)))
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [bpm]))
        case 7:
            var bytes = input.oneIn(2)
                ? [0xB0 | input.byte() & 0x0F, input.pick([123, 120, 7, 64]), input.byte() & 0x7F]
                : [input.byte(), input.byte(), input.byte(), input.byte()]
            bytes = Array(bytes.prefix(input.below(6)))
            c.append(frames: at, type: uris.midiEvent, body: bytes)
        case 8, 9:
            let text = patternText(&input)
            allow(EditModel.stripped(text))
            let value = AtomProperty(key: uris.patchValue, type: input.oneIn(16) ? uris.atomChunk : uris.atomString, body: text)
            let property = AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: AtomBody.urid(uris.pattern))
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.patchSet, properties: [property, value]))
        case 10:
            let name = input.pick(FuzzFixtures.patternPaths)
            if case .accepted(let text) = EditModel.loadFile(Array(name.utf8)) { allow(text) }
            let path = AtomBody.text(name)
            let value = AtomProperty(key: uris.patchValue, type: input.oneIn(8) ? uris.atomString : uris.atomPath, body: path)
            let property = AtomProperty(key: uris.patchProperty, type: uris.atomURID, body: AtomBody.urid(uris.patternFile))
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.patchSet, properties: [property, value]))
        case 11:
            let properties = oddPatchProperties(&input, uris)
            // Whatever value it carries is a text sent whole, should it be one.
            for p in properties where p.key == uris.patchValue { allow(EditModel.stripped(p.body)) }
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.patchSet, properties: properties))
        case 12:
            var properties: [AtomProperty] = []
            if !input.oneIn(3) {
                let property = input.pick([uris.pattern, uris.patternFile, uris.error, uris.droppedNoteOns, input.u32()])
                properties.append(AtomProperty(key: uris.patchProperty, type: input.oneIn(8) ? uris.atomInt : uris.atomURID, body: AtomBody.urid(property)))
            }
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: properties))
        case 13, 14:
            // An atom of any type with any body, its size possibly a lie.
            let type = input.oneIn(4) ? input.u32() : UInt32(input.below(64))
            let body = input.bytes(upTo: 96)
            let declared: UInt32? = input.oneIn(4) ? input.u32() % 256 : nil
            c.append(frames: at, type: type, body: body, declaredSize: declared)
        default:
            // A position whose property sizes lie.
            var properties: [AtomProperty] = []
            for _ in 0..<(1 + input.below(4)) {
                var p = randomPositionProperty(&input, uris)
                p.declaredSize = input.oneIn(2) ? UInt32(input.below(24)) : input.u32()
                properties.append(p)
            }
            c.append(frames: at, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: properties))
        }
    }

    /// A message of an editor's (docs/plugin.md, "Messages"), well formed or not.
    mutating func writeEditorMessage(_ input: inout FuzzInput, frames: UInt32, plugin: InProcessPlugin, uris: URIDTable) {
        let at = Session.offset(&input, frames: frames)
        let c = plugin.control
        switch input.below(4) {
        case 0, 1:
            // A piece of an edit sent in pieces: mostly the next, sometimes out of order, again, or lying.
            predictable = false
            if payloads.isEmpty || input.oneIn(5) {
                var text = Array(input.pick(FuzzFixtures.patternTexts).utf8)
                if input.oneIn(3) { text = Array(FuzzFixtures.longText.utf8) }
                if input.oneIn(8), !text.isEmpty { text[input.below(text.count)] = input.byte() }
                lastSequence = input.oneIn(8) ? Int32(input.below(Int(lastSequence) + 1)) : lastSequence &+ 1
                allow(text)
                payloads.append((lastSequence, input.oneIn(6) ? uris.patternChange : uris.pattern, text, TextHash.of(text), 0))
                if payloads.count > 3 { payloads.removeFirst() }
            }
            let i = input.below(payloads.count)
            var p = payloads[i]
            var offset = p.next
            switch input.below(8) {
            case 0: offset = input.below(p.bytes.count + 1)           // anywhere
            case 1: offset = max(0, p.next - 1 - input.below(64))     // again
            default: break
            }
            let size = min(p.bytes.count - min(offset, p.bytes.count), 1 + input.below(input.oneIn(4) ? 9000 : 700))
            let piece = Array(p.bytes[min(offset, p.bytes.count)..<(min(offset, p.bytes.count) + size)])
            var length = p.bytes.count
            var hash = p.hash
            if input.oneIn(16) { length = input.below(2 * length + 2) }
            if input.oneIn(16) { hash = input.u64() }
            let body = AtomBody.textPiece(
                property: p.property, sequence: input.oneIn(16) ? Int32(bitPattern: input.u32()) : p.sequence, offset: offset,
                length: length, hash: hash, bytes: input.oneIn(32) ? input.bytes(upTo: 64) : piece, uris: uris)
            c.append(frames: at, type: uris.atomObject, body: body, declaredSize: input.oneIn(32) ? UInt32(input.below(body.count + 1)) : nil)
            if offset == p.next { p.next = offset + size }
            payloads[i] = p
        case 2:
            // A change: made on the text in use (or another), to a fixture, broken now and then.
            predictable = false
            let base = input.oneIn(4) ? (allowed.values.first ?? edits.inUse) : edits.inUse
            let result = Array(input.pick(FuzzFixtures.patternTexts).utf8)
            var change = PatternChange.between(base, result).encoded
            if input.oneIn(6), !change.isEmpty { change[input.below(change.count)] = input.byte() }
            if input.oneIn(8) { change = Array(change.prefix(input.below(change.count + 1))) }
            allow(result)
            lastSequence &+= 1
            c.append(frames: at, type: uris.atomObject, body: AtomBody.numberedPatchSet(
                property: uris.patternChange, sequence: lastSequence, text: change, uris: uris))
        default:
            // A question for a window of the text: the one in use, or a hash the plugin never heard of.
            let hash = input.oneIn(3) ? input.u64() : TextHash.of(edits.inUse)
            c.append(frames: at, type: uris.atomObject, body: AtomBody.textWanted(
                hash: input.oneIn(8) ? nil : hash, offset: input.oneIn(4) ? Int(Int32(bitPattern: input.u32())) : input.below(40000),
                window: input.oneIn(4) ? Int(Int32(bitPattern: input.u32())) : input.below(70000), uris: uris))
        }
    }

    static func offset(_ input: inout FuzzInput, frames: UInt32) -> Int64 {
        switch input.below(8) {
        case 0: return -Int64(input.byte()) - 1
        case 1: return Int64(frames) + Int64(input.byte())
        case 2: return input.pick([Int64.min, Int64.max, Int64(Int32.max), Int64(UInt32.max) + 1])
        default: return frames == 0 ? 0 : Int64(input.u32() % frames)
        }
    }

    func randomPositionProperty(_ input: inout FuzzInput, _ uris: URIDTable) -> AtomProperty {
        let key = input.pick([
            uris.timeFrame, uris.timeSpeed, uris.timeBar, uris.timeBarBeat, uris.timeBeat, uris.timeBeatsPerBar,
            uris.timeBeatsPerMinute, uris.timeBeatUnit, input.u32(), 0,
        ])
        let number = input.oneIn(4) ? Double(bitPattern: input.u64()) : input.pick(Session.interestingNumbers)
        let type = input.pick([
            uris.atomFloat, uris.atomFloat, uris.atomDouble, uris.atomDouble, uris.atomLong, uris.atomInt, uris.atomString,
            uris.atomBool, uris.atomURID, input.u32(),
        ])
        var body: [UInt8]
        switch type {
        case uris.atomFloat: body = AtomBody.float(Float(number))
        case uris.atomDouble: body = AtomBody.double(number)
        case uris.atomLong: body = AtomBody.long(number.isFinite ? Int64(clamping: Int64(exactly: number.rounded(.towardZero)) ?? (number > 0 ? .max : .min)) : 0)
        case uris.atomInt: body = AtomBody.int(number.isFinite ? Int32(clamping: Int64(exactly: number.rounded(.towardZero)) ?? (number > 0 ? .max : .min)) : 0)
        case uris.atomString: body = AtomBody.text("\(number)")
        default: body = AtomBody.int(Int32(truncatingIfNeeded: input.u32()))
        }
        if input.oneIn(12) { body = Array(body.prefix(input.below(body.count + 1))) }
        if input.oneIn(24) { body += input.bytes(upTo: 12) }
        return AtomProperty(key: key, type: type, body: body)
    }

    /// The text of a pattern edit: a fixture, a fixture with a few bytes changed, or raw bytes.
    func patternText(_ input: inout FuzzInput) -> [UInt8] {
        switch input.below(8) {
        case 0, 1:
            return AtomBody.text(input.bytes(upTo: 4000))
        case 2:
            var text = Array(input.pick(FuzzFixtures.patternTexts).utf8)
            for _ in 0..<(1 + input.below(4)) where !text.isEmpty { text[input.below(text.count)] = input.byte() }
            return AtomBody.text(text)
        default:
            var text = AtomBody.text(input.pick(FuzzFixtures.patternTexts))
            if input.oneIn(16) { text += [0, 0, 0] }
            return text
        }
    }

    /// `patch:Set` with a property or value a host should not send.
    func oddPatchProperties(_ input: inout FuzzInput, _ uris: URIDTable) -> [AtomProperty] {
        var properties: [AtomProperty] = []
        if !input.oneIn(4) {
            let property = input.pick([uris.pattern, uris.patternFile, uris.error, uris.droppedNoteOns, 0, input.u32()])
            let type = input.oneIn(4) ? input.pick([uris.atomInt, uris.atomString, uris.atomLong]) : uris.atomURID
            properties.append(AtomProperty(key: uris.patchProperty, type: type, body: input.oneIn(6) ? [] : AtomBody.urid(property)))
        }
        if !input.oneIn(4) {
            let type = input.pick([uris.atomInt, uris.atomPath, uris.atomString, uris.atomChunk, uris.atomURID, uris.atomObject, input.u32()])
            let body = input.oneIn(3) ? [] : input.bytes(upTo: 64)
            properties.append(AtomProperty(key: uris.patchValue, type: type, body: body))
        }
        if input.oneIn(2) { properties.shuffle(using: &input) }
        return properties
    }

    // MARK: - One block

    mutating func runBlock(frames: UInt32, plugin: InProcessPlugin, uris: URIDTable) {
        let start = plugin.framesRun
        let delivered = DeliveredInput(plugin.control, connected: controlConnected, uris: uris)
        edits.beginBlock()
        // Where each input acts: its offset clamped to the block, and never
        // before an input that acted earlier (timing contract, reading (f)).
        var acted: Int64 = 0
        var timed: [(frame: Int64, kind: DeliveredInput.Kind)] = []
        for e in delivered.events {
            let clamped = e.frames < 0 ? 0 : min(e.frames, Int64(max(frames, 1) - 1))
            switch e.kind {
            case .stop, .position, .allNotesOff:
                acted = max(acted, clamped)
                timed.append((start + acted, e.kind))
            case .patchSet(let property, let value):
                edits.patchSet(property: property, value: value, uris: uris)
            case .patchGet(let property):
                if property == uris.error { edits.errorRequested() }
            case .other:
                break
            }
        }
        plugin.run(frames: frames)
        if Session.tracing {
            Session.trace("block at \(start), \(frames) frames, MIDI room \(plugin.midiOut.offered) bytes, control \(controlConnected ? "connected" : "unconnected")")
            for e in delivered.events { Session.trace("  in  \(e.frames) \(e.kind) \(e.detail)") }
            for e in (try? plugin.midiEvents()) ?? [] { Session.trace("  out \(e.frames) \(e.body.map { String($0, radix: 16) }.joined(separator: " "))") }
        }

        let room = midiConnected ? max(0, (plugin.midiOut.offered - 16) / 24) : 0
        var midi: [OutputSequence.Event] = []
        if midiConnected {
            do { midi = try plugin.midiEvents() } catch { violations.add("MIDI output: \(error)") }
        }
        if midiConnected {
            notes.block(
                start: start, frames: Int(frames), output: midi, midiType: uris.midiEvent, full: midi.count >= room,
                inputs: timed, violations: &violations)
        } else if frames > 0 {
            // Unobserved output: the checker cannot follow the notes; it still requires silence at the end.
            notes = NoteChecker()
        }
        if notifyConnected { checkNotify(plugin, uris) }
    }

    mutating func checkNotify(_ plugin: InProcessPlugin, _ uris: URIDTable) {
        let events: [OutputSequence.Event]
        do { events = try plugin.notifyEvents() } catch {
            violations.add("notify output: \(error)")
            return
        }
        checkTexts(events, uris)
        guard predictable else { return }
        var sawStateChanged = false
        var errors: [[UInt8]] = []
        for e in events {
            if e.type == uris.atomObject, e.body.count >= 8,
                e.body.withUnsafeBytes({ $0.loadUnaligned(fromByteOffset: 4, as: UInt32.self) }) == uris.stateChanged
            {
                sawStateChanged = true
            }
            guard let message = PatchSetMessage(e, uris: uris) else { continue }
            if message.property == uris.pattern, message.value != edits.inUse {
                violations.add("notify reports the pattern \(String(decoding: message.value.prefix(80), as: UTF8.self).debugDescription); in use should be \(String(decoding: edits.inUse.prefix(80), as: UTF8.self).debugDescription)")
            }
            if message.property == uris.error { errors.append(message.value) }
        }
        if sawStateChanged != edits.expectsStateChanged {
            violations.add(edits.expectsStateChanged ? "an accepted edit was installed without state:StateChanged" : "state:StateChanged without an accepted edit")
        }
        if edits.expectsError && errors.isEmpty { violations.add("a rejected edit was not reported on the notify port") }
        for text in errors where !edits.isExpectedError(text) {
            violations.add("notify reports the error \(String(decoding: text, as: UTF8.self).debugDescription); expected \(String(decoding: edits.error?.text ?? [], as: UTF8.self).debugDescription)")
        }
    }

    /// Every text the plugin announces is one it may install (sent whole, made whole
    /// from pieces, named by a change), and every piece it sends is that text's bytes.
    mutating func checkTexts(_ events: [OutputSequence.Event], _ uris: URIDTable) {
        for e in events {
            if let message = PatchSetMessage(e, uris: uris), message.property == uris.pattern {
                if allowed[TextHash.of(message.value)] != message.value {
                    violations.add("the plugin announces a text it was never sent whole: \(String(decoding: message.value.prefix(120), as: UTF8.self).debugDescription)")
                }
            } else if let o = ObjectMessage(e, uris: uris), o.otype == uris.textPiece {
                guard let offset = o.integer(uris.textOffset, uris), let length = o.integer(uris.textLength, uris),
                    let hash = o.integer(uris.textHash, uris), let value = o.value(uris.patchValue), value.type == uris.atomChunk
                else {
                    violations.add("a piece of text without its offset, length, hash or bytes")
                    continue
                }
                guard let text = allowed[UInt64(bitPattern: hash)], Int64(text.count) == length else {
                    violations.add("a piece of a text (\(length) bytes) the plugin was never sent whole")
                    continue
                }
                guard offset >= 0, offset + Int64(value.body.count) <= length,
                    Array(text[Int(offset)..<(Int(offset) + value.body.count)]) == value.body
                else {
                    violations.add("a piece at \(offset) (\(value.body.count) bytes) is not those bytes of the text it names")
                    continue
                }
            }
        }
    }

    // MARK: - The end: stop with room, then nothing may sound

    mutating func finish(_ plugin: InProcessPlugin, _ uris: URIDTable) {
        controlConnected = true
        notifyConnected = true
        plugin.connect(control: true, midi: midiConnected, notify: true)
        plugin.control.clear()
        plugin.control.append(
            frames: 0, type: uris.atomObject,
            body: AtomBody.object(otype: uris.timePosition, properties: [AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(0))]))
        plugin.midiOut.offered = Session.bufferBytes
        plugin.notify.offered = Session.bufferBytes
        runBlock(frames: 64, plugin: plugin, uris: uris)
        if midiConnected, notes.soundingCount > 0 {
            violations.add("stuck notes after the final stop: \(notes.soundingSlots.map(NoteChecker.name))")
        }
        plugin.control.clear()
        plugin.control.append(frames: 0, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: []))
        runBlock(frames: 4096, plugin: plugin, uris: uris)
        if midiConnected, let after = try? plugin.midiEvents(), !after.isEmpty {
            violations.add("\(after.count) MIDI events in a block after the final stop")
        }
        // The pattern in use, as patch:Get reports it (whole, or its first piece), is what save() stores.
        let answer = (try? plugin.notifyEvents()) ?? []
        let reported = answer.compactMap { PatchSetMessage($0, uris: uris) }.first { $0.property == uris.pattern }?.value
        let piece = answer.compactMap { ObjectMessage($0, uris: uris) }.first { $0.otype == uris.textPiece }
        let (status, state) = plugin.save()
        let saved = EditModel.stripped(state[uris.pattern]?.value ?? [])
        if status != LV2_STATE_SUCCESS { violations.add("save() failed: \(status)") }
        if let reported, reported != saved { violations.add("save() stores a pattern other than the one in use") }
        if let piece, reported == nil,
            piece.integer(uris.textLength, uris) != Int64(saved.count) || piece.integer(uris.textHash, uris) != Int64(bitPattern: TextHash.of(saved))
        {
            violations.add("save() stores a pattern other than the one whose pieces are sent")
        }
        if reported == nil && piece == nil { violations.add("patch:Get was not answered with the pattern in use") }
        if allowed[TextHash.of(saved)] != saved { violations.add("save() stores a text the plugin was never sent whole") }
        if predictable, saved != edits.inUse { violations.add("save() stores a pattern other than the last accepted") }
        do { _ = try PatternParser.parse(bytes: saved) } catch {
            violations.add("the saved pattern does not parse: \(error.message)")
        }
    }
}
