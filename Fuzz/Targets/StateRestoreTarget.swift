import CLV2
import LV2Atoms
import TactusEngine
import TactusInProcessHost
import TactusModel

/// Fuzz target 3: `restore()` with arbitrary properties: any keys, value
/// types, flags and bytes, with or without `state:mapPath` (whose
/// `absolute_path` may fail), a few restores in a row with blocks between.
///
/// After each restore: the status says what happened (success, bad type,
/// rejected); a rejection is logged with its reason and keeps the pattern
/// in use; an accepted pattern is the one playing from the next block and
/// the one `save()` stores; nothing sounds after a stop. At the end the
/// saved state, restored into a fresh instance, plays the same pattern.
public enum StateRestoreTarget {
    public static func check(_ data: UnsafeRawBufferPointer) -> Violations {
        var input = FuzzInput(data)
        var violations = Violations()
        var config = InProcessPlugin.Configuration()
        config.withWorker = !input.oneIn(4)
        config.workerCapacity = 1 << 16
        config.controlCapacity = 1 << 12
        config.midiCapacity = 1 << 14
        config.notifyCapacity = 1 << 14
        guard let plugin = InProcessPlugin(descriptor: lv2_descriptor(0)!, configuration: config, map: FuzzFixtures.map) else {
            violations.add("instantiate failed")
            return violations
        }
        let uris = plugin.uris
        let paths: PathMapping? = input.oneIn(3) ? nil : PathMapping()
        paths?.absolutePathFails = input.oneIn(4)
        // The round trip through a fresh instance costs a second instantiation: one input in four.
        let roundTrip = input.oneIn(4)
        var inUse = EditModel.stripped(plugin.save().1[uris.pattern]?.value ?? [])
        var notes = NoteChecker()
        var rounds = 0
        while !input.isExhausted && rounds < 4 {
            rounds += 1
            let store = StateStore()
            for _ in 0..<input.below(5) {
                let key = input.pick([uris.pattern, uris.pattern, uris.patternFile, uris.patternFile, uris.error, 0, input.u32()])
                let type = input.pick([
                    uris.atomString, uris.atomString, uris.atomPath, uris.atomChunk, uris.atomInt, uris.atomLong, uris.atomURID,
                    uris.atomObject, 0, input.u32(),
                ])
                store[key] = StateStore.Property(value: value(&input), type: type, flags: input.u32())
            }
            let expected = predict(store, paths: paths, uris: uris)
            let logged = plugin.logCount
            let status = plugin.restore(store, paths: paths)
            switch expected {
            case .nothing:
                if status != LV2_STATE_SUCCESS { violations.add("restore of a state without our properties returned \(status)") }
            case .accepted(let text):
                if status != LV2_STATE_SUCCESS { violations.add("restore of a valid pattern returned \(status): \(plugin.lastLogMessage)") }
                inUse = text
            case .rejected(let message, let prefixOnly, let expectedStatus):
                if status != expectedStatus { violations.add("a rejected state returned \(status), not \(expectedStatus)") }
                let last = plugin.lastLogMessage
                var wanted = "tactus: " + message
                var exact = !prefixOnly
                if wanted.utf8.count > InProcessPlugin.logMessageLimit {
                    // The host's capture keeps the start of a long message (a long path or text quoted in it).
                    wanted = String(decoding: wanted.utf8.prefix(InProcessPlugin.logMessageLimit - 8), as: UTF8.self)
                    exact = false
                }
                if plugin.logCount == logged {
                    violations.add("a rejected state was not logged (\(message))")
                } else if exact ? last != wanted : !(last.hasPrefix(wanted) && last.count > wanted.count) {
                    violations.add("a rejected state logged \(last.debugDescription), expected \(wanted.debugDescription)")
                }
            }
            // The next block installs what was restored; patch:Get reports it; a start plays it.
            plugin.control.clear()
            plugin.control.append(frames: 0, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: []))
            plugin.control.append(frames: Int64(input.below(256)), type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [
                AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(1)),
                AtomProperty(key: uris.timeBeat, type: uris.atomDouble, body: AtomBody.double(Double(input.below(64)) / 8)),
            ]))
            runAndCheck(plugin, frames: 64 + UInt32(input.below(2048)), stopAt: nil, notes: &notes, violations: &violations)
            let answer = (try? plugin.notifyEvents()) ?? []
            let reported = answer.compactMap { PatchSetMessage($0, uris: uris) }.first { $0.property == uris.pattern }
            // A text over 32 KiB is announced by its first piece: its length and hash name it.
            let piece = answer.compactMap { ObjectMessage($0, uris: uris) }.first { $0.otype == uris.textPiece }
            let named = piece.map { $0.integer(uris.textLength, uris) == Int64(inUse.count) && $0.integer(uris.textHash, uris) == Int64(bitPattern: TextHash.of(inUse)) }
            if reported?.value != inUse && !(reported == nil && named == true) {
                violations.add("after restore the pattern in use is \(String(decoding: (reported?.value ?? []).prefix(80), as: UTF8.self).debugDescription), expected \(String(decoding: inUse.prefix(80), as: UTF8.self).debugDescription)")
            }
            let saved = EditModel.stripped(plugin.save(paths: paths).1[uris.pattern]?.value ?? [])
            if saved != inUse { violations.add("save() after restore stores another pattern than the one in use") }
            plugin.control.clear()
            plugin.control.append(frames: 0, type: uris.atomObject, body: AtomBody.object(otype: uris.timePosition, properties: [
                AtomProperty(key: uris.timeSpeed, type: uris.atomFloat, body: AtomBody.float(0)),
            ]))
            runAndCheck(plugin, frames: 64, stopAt: plugin.framesRun, notes: &notes, violations: &violations)
            if notes.soundingCount > 0 { violations.add("stuck notes after a stop: \(notes.soundingSlots.map(NoteChecker.name))") }
        }
        // The saved state, restored into a fresh instance, plays the same pattern.
        let (_, state) = plugin.save(paths: paths)
        if roundTrip, let fresh = InProcessPlugin(descriptor: lv2_descriptor(0)!, configuration: config, map: FuzzFixtures.map) {
            let status = fresh.restore(state, paths: paths)
            if status != LV2_STATE_SUCCESS {
                violations.add("a saved state does not restore (\(status)): \(fresh.lastLogMessage)")
            }
            fresh.control.clear()
            fresh.control.append(frames: 0, type: uris.atomObject, body: AtomBody.object(otype: uris.patchGet, properties: []))
            fresh.run(frames: 16)
            let answer = (try? fresh.notifyEvents()) ?? []
            let reported = answer.compactMap { PatchSetMessage($0, uris: fresh.uris) }.first { $0.property == fresh.uris.pattern }
            let piece = answer.compactMap { ObjectMessage($0, uris: fresh.uris) }.first { $0.otype == fresh.uris.textPiece }
            let named = piece.map { $0.integer(uris.textLength, uris) == Int64(inUse.count) && $0.integer(uris.textHash, uris) == Int64(bitPattern: TextHash.of(inUse)) }
            if reported?.value != inUse && !(reported == nil && named == true) {
                violations.add("a saved state restored into a new instance plays another pattern")
            }
        }
        return violations
    }

    public static func fuzz(_ data: UnsafeRawBufferPointer) {
        check(data).trapIfAny("state restore")
    }

    static func value(_ input: inout FuzzInput) -> [UInt8] {
        switch input.below(8) {
        case 0, 1: return AtomBody.text(input.pick(FuzzFixtures.patternTexts))
        case 2: return Array(input.pick(FuzzFixtures.patternTexts).utf8)
        case 3: return AtomBody.text(input.pick(FuzzFixtures.patternPaths))
        case 4: return []
        case 5: return AtomBody.int(Int32(truncatingIfNeeded: input.u32()))
        default: return input.bytes(upTo: 2048)
        }
    }

    enum Expected {
        case nothing
        case accepted([UInt8])
        case rejected(String, prefixOnly: Bool, status: LV2_State_Status)
    }

    /// What `restore()` must do with `store` (`docs/plugin.md`, "State").
    static func predict(_ store: StateStore, paths: PathMapping?, uris: URIDTable) -> Expected {
        var path: [UInt8]? = nil
        if let file = store[uris.patternFile], file.type == uris.atomPath || file.type == uris.atomString {
            var bytes = EditModel.stripped(file.value)
            if paths != nil, !bytes.isEmpty, paths?.absolutePathFails == false {
                bytes = Array(bytes.prefix { $0 != 0 })
            }
            path = bytes.isEmpty ? nil : bytes
        }
        if let text = store[uris.pattern] {
            guard text.type == uris.atomString || text.type == uris.atomChunk else {
                return .rejected("state rejected, the pattern in use stays: urn:tactus:pattern is not an atom:String", prefixOnly: false, status: LV2_STATE_ERR_BAD_TYPE)
            }
            let bytes = EditModel.stripped(text.value)
            do {
                _ = try PatternParser.parse(bytes: bytes)
                return .accepted(bytes)
            } catch {
                return .rejected("pattern rejected, the pattern in use stays: saved state: \(error.message)", prefixOnly: false, status: LV2_STATE_ERR_UNKNOWN)
            }
        }
        guard let path else { return .nothing }
        switch EditModel.loadFile(path) {
        case .accepted(let text): return .accepted(text)
        case .rejected(let message, let prefixOnly): return .rejected(message, prefixOnly: prefixOnly, status: LV2_STATE_ERR_UNKNOWN)
        }
    }

    /// Runs a block and checks its MIDI (a stop at `stopAt` when given).
    static func runAndCheck(_ plugin: InProcessPlugin, frames: UInt32, stopAt: Int64?, notes: inout NoteChecker, violations: inout Violations) {
        let start = plugin.framesRun
        plugin.run(frames: frames)
        do {
            let midi = try plugin.midiEvents()
            var inputs: [(frame: Int64, kind: DeliveredInput.Kind)] = [(start, .position)]
            if let stopAt { inputs = [(stopAt, .stop)] }
            notes.block(start: start, frames: Int(frames), output: midi, midiType: plugin.uris.midiEvent, full: false, inputs: inputs, violations: &violations)
        } catch {
            violations.add("MIDI output: \(error)")
        }
    }
}
