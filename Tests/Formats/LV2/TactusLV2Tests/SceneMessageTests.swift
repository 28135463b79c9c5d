import CLV2
import Foundation
import Testing
import TactusEditorModel
import TactusInProcessHost
import TactusModel
import TactusOffline
import TactusTestSupport

/// Timing contract §9 at the plugin's surface (docs/plugin.md, "Messages"):
/// the editor's `urn:tactus:request` plays as `tactus render`'s `request`,
/// and `urn:tactus:scene` tells each change of what plays, what waits (with
/// its boundary beat) and the song entry, in the block where it happens.
@Suite("Patterns: the scene messages and the editor's requests")
struct SceneMessageTests {
    /// Two patterns (4 and 3 beats) and a song: four twice (beats 0-8), three once (8-11), looping.
    static let text = SwitchTexts.fourAndThree(header: "", trailer: "song loop\nplay four 2\nplay three\n")

    /// 120 bpm at 48 kHz (24,000 frames a beat): the song, a request it ignores, the song off, requests on three grids.
    static let script = """
        tactus-transport 1
        rate 48000
        0 tempo 120
        0 play
        200000 request three
        300000 song off
        310000 request three bar
        420000 request four now
        430000 request three end
        590000 get ignoredRequests
        600000 end

        """

    /// One scene message: its frame (the block's start) and its values.
    struct Scene: Equatable, CustomStringConvertible {
        var frame: Int64
        var playing: Int, queued: Int, songEntry: Int
        var switchBeat: Double?
        var origin: Double?
        var description: String {
            "\(frame): playing \(playing) queued \(queued) at \(switchBeat.map { "\($0)" } ?? "-") entry \(songEntry) origin \(origin.map { "\($0)" } ?? "-")"
        }

        init?(_ line: String) {
            let words = line.split(separator: " ")
            guard words.count >= 2, words[1] == "urn:tactus:scene", let f = Int64(words[0]) else { return nil }
            frame = f
            var values: [String: String] = [:]
            for w in words.dropFirst(2) {
                let kv = w.split(separator: "=", maxSplits: 1)
                if kv.count == 2 { values[String(kv[0])] = String(kv[1]) }
            }
            playing = Int(values["urn:tactus:playing"] ?? "") ?? -1
            queued = Int(values["urn:tactus:queued"] ?? "") ?? -1
            songEntry = Int(values["urn:tactus:songEntry"] ?? "") ?? -1
            switchBeat = values["urn:tactus:switchBeat"].flatMap(Double.init)
            origin = values["urn:tactus:origin"].flatMap(Double.init)
        }

        /// From the plugin's notify port (in process).
        init(_ object: ObjectMessage, uris u: URIDTable) {
            frame = 0
            playing = Int(object.integer(u.playing, u) ?? -1)
            queued = Int(object.integer(u.queued, u) ?? -1)
            songEntry = Int(object.integer(u.songEntry, u) ?? -1)
            func double(_ key: LV2_URID) -> Double? {
                object.value(key).flatMap { v in
                    v.type == u.atomDouble && v.body.count >= 8 ? v.body.withUnsafeBytes { $0.loadUnaligned(as: Double.self) } : nil
                }
            }
            switchBeat = double(u.switchBeat)
            origin = double(u.origin)
        }
    }

    @Test("requests by message play as tactus render's; a scene message goes out in the block of each change, with the switch's beat")
    func scenesAtEachChange() throws {
        let dir = try PluginProcess.folder(["pattern.pattern": SceneMessageTests.text, "script.transport": SceneMessageTests.script])
        defer { try? FileManager.default.removeItem(at: dir) }
        // What changes, where (frame of the change) and to what: (frame, playing, queued, beat, entry).
        let changes: [(Int64, Int, Int, Double?, Int)] = [
            (0, 1, 0, nil, 1),  // the song's first entry
            (192_000, 2, 0, nil, 2),  // beat 8: three
            (264_000, 1, 0, nil, 1),  // beat 11: again
            (300_000, 1, 0, nil, 0),  // song off (at the block holding it): four plays on, no entry
            (310_000, 1, 2, 16, 0),  // three queued for the next bar (beat 16)
            (384_000, 2, 0, nil, 0),  // ... switched there
            (420_000, 1, 0, nil, 0),  // four now
            (430_000, 1, 2, 21.5, 0),  // three at the end of four's cycle: 17.5 + 4
            (516_000, 2, 0, nil, 0),
        ]
        for blocks in ["256", "random:1-4096@3", "1"] {
            let plugin = try PluginProcess.run(in: dir, blocks: blocks)
            #expect(plugin.status == 0, "\(plugin.stderr)")
            let core = try PluginProcess.expected(in: dir, blocks: blocks)
            #expect(core.contains { $0.frame == 384_000 && $0.bytes == [0xC0, 20] })
            #expect(difference(plugin.midi, core, ("plugin", "core")) == nil, "blocks \(blocks)")
            let scenes = plugin.notify.compactMap(Scene.init)
            #expect(scenes.count == changes.count, "blocks \(blocks): \(scenes)")
            for (scene, change) in zip(scenes, changes) {
                let (frame, playing, queued, beat, entry) = change
                #expect(scene.playing == playing && scene.queued == queued && scene.switchBeat == beat && scene.songEntry == entry,
                    "blocks \(blocks): \(scene), expected \(change)")
                // In the block that holds the change (the song's control is read at a block start: at or before it).
                #expect(scene.frame <= frame && frame - scene.frame < 4096, "blocks \(blocks): \(scene) for the change at \(frame)")
            }
            // The request made while the song played was ignored and counted (patch:Get of urn:tactus:ignoredRequests).
            #expect(plugin.notify.contains { $0.hasSuffix("patch:property=urn:tactus:ignoredRequests patch:value=1") }, "\(plugin.notify)")
        }
    }

    @Test("an editor that opens later is sent the scene; the output controls show the pattern playing and the one queued; a bad request is ignored and counted")
    func editorOpenedLater() throws {
        let plugin = InProcessPlugin.make()
        let ports = UnsafeMutablePointer<Float>.allocate(capacity: 3)
        defer { ports.deallocate() }
        ports.initialize(repeating: -1, count: 3)
        ports[0] = 0  // song off: requests play
        plugin.descriptor.pointee.connect_port?(plugin.handle, TactusPort.song, ports)
        plugin.descriptor.pointee.connect_port?(plugin.handle, TactusPort.playing, ports + 1)
        plugin.descriptor.pointee.connect_port?(plugin.handle, TactusPort.queued, ports + 2)
        let u = plugin.uris
        func scenes() throws -> [Scene] {
            try plugin.notifyEvents().compactMap { e in
                guard let object = ObjectMessage(e, uris: u), object.otype == u.scene else { return nil }
                return Scene(object, uris: u)
            }
        }
        func request(_ n: Int32, _ when: String?) -> InProcessPlugin.Input {
            InProcessPlugin.Input(type: u.atomObject, body: AtomBody.request(pattern: n, when: when, uris: u))
        }
        try plugin.block(256, [plugin.setPattern(SceneMessageTests.text)])
        #expect(try scenes().map(\.playing) == [1])  // the first block: the built-in pattern plays
        try plugin.block(256, [plugin.position(beat: 0)])  // the text installed: its pattern 1 plays (no change to tell)
        #expect(try scenes().isEmpty)
        #expect(ports[1] == 1 && ports[2] == 0)
        try plugin.block(256, [request(2, "bars 2")])  // beat 0.0107: the boundary is beat 8
        #expect(try scenes().map(\.switchBeat) == [8])
        #expect(ports[1] == 1 && ports[2] == 2)
        try plugin.block(256)
        #expect(try scenes().isEmpty)  // nothing changed: nothing sent
        // An editor opens: it is told at once, unchanged as it is.
        try plugin.block(256, [InProcessPlugin.Input(type: u.atomObject, body: AtomBody.object(otype: u.editorOpen, properties: []))])
        let told = try scenes()
        #expect(told.count == 1 && told.first?.queued == 2 && told.first?.switchBeat == 8 && told.first?.playing == 1, "\(told)")
        // Requests it cannot take: no such pattern, a `when` that is none of the five; then the count.
        try plugin.block(256, [request(3, nil), request(1, "soon"), request(1, "bars 65"), plugin.get(u.ignoredRequests)])
        #expect(try scenes().isEmpty)
        try plugin.block(256, [plugin.get(u.ignoredRequests)])
        #expect(try plugin.notifications().contains { $0.property == u.ignoredRequests && $0.long(u) == 3 })
        #expect(ports[2] == 2)
        // `now` switches in the block.
        try plugin.block(256, [request(2, "now")])
        #expect(try scenes().map { [$0.playing, $0.queued] } == [[2, 0]])
        #expect(ports[1] == 2 && ports[2] == 0)
    }

    @Test("an editor opened after a switch with phase restart at beat 6 is told origin 6: its playhead at host beat 7 is the pattern's beat 1, where b plays its beat-1 note (issue 29)")
    func originAfterRestart() throws {
        let plugin = InProcessPlugin.make()
        let u = plugin.uris
        func scenes() throws -> [Scene] {
            try plugin.notifyEvents().compactMap { e in
                guard let object = ObjectMessage(e, uris: u), object.otype == u.scene else { return nil }
                return Scene(object, uris: u)
            }
        }
        try plugin.block(256, [plugin.setPattern(SwitchTexts.restartEachBeat)])
        // Rolling from beat 5.5 at 120 bpm (24,000 frames a beat); b requested: it takes over at beat 6.
        try plugin.block(256, [plugin.position(beat: 5.5), InProcessPlugin.Input(type: u.atomObject, body: AtomBody.request(pattern: 2, when: nil, uris: u))])
        let queued = try scenes()
        #expect(queued.last?.queued == 2 && queued.last?.switchBeat == 6 && queued.last?.origin == 0, "\(queued)")
        var notes: [(Int64, UInt8)] = []
        var frame: Int64 = 256
        var told: [Scene] = []
        while frame < 24_000 * 2 {  // to beat 7.5
            let midi = try plugin.block(256)
            for (offset, bytes) in midi where bytes.count == 3 && bytes[0] & 0xF0 == 0x90 { notes.append((frame + offset, bytes[1])) }
            told += try scenes()
            frame += 256
        }
        // The switch (told with its origin), b's beat 0 at host beat 6, its beat 1 at host beat 7.
        #expect(told.map { [$0.playing, $0.queued] } == [[2, 0]] && told.first?.origin == 6, "\(told)")
        #expect(notes.map(\.1) == [60, 62] && notes.map(\.0) == [12_000, 36_000], "\(notes)")
        // An editor opens now: it is told origin 6 at once, and draws the playhead from it.
        try plugin.block(256, [InProcessPlugin.Input(type: u.atomObject, body: AtomBody.object(otype: u.editorOpen, properties: []))])
        let opened = try #require(try scenes().first)
        #expect(opened.playing == 2 && opened.origin == 6, "\(opened)")
        let scene = PatternScene().updated(with: PatternScene(playing: opened.playing, origin: opened.origin ?? .nan))
        #expect(scene.laneBeat(atHostBeat: 7, length: 4) == 1)  // b's beat 1 (origin 0 would draw beat 3)
        // A switch to the playing pattern with phase restart changes the origin alone: it is told.
        try plugin.block(256, [InProcessPlugin.Input(type: u.atomObject, body: AtomBody.request(pattern: 2, when: "now", uris: u))])
        let restarted = try scenes()
        #expect(restarted.count == 1 && restarted.first?.playing == 2 && (restarted.first?.origin ?? 0) > 7.5, "\(restarted)")
    }

    @Test("an editor that opens after a session with lanes 10 and 40 muted is restored is told them; its click on lane 12 leaves them muted; a restore while it is open is told (issue 29)")
    func restoredMutesToldToTheEditor() throws {
        let plugin = InProcessPlugin.make()
        let u = plugin.uris
        func toldMutes() throws -> [UInt64] {
            try plugin.notifications().filter { $0.property == u.laneMutes }.compactMap { $0.long(u).map { UInt64(bitPattern: $0) } }
        }
        try plugin.block(256)
        let restored: UInt64 = 1 << 9 | 1 << 39
        let store = StateStore()
        store[u.pattern] = StateStore.Property(value: Array(SwitchTexts.fortyLanes.utf8) + [0], type: u.atomString)
        store[u.laneMutes] = StateStore.Property(value: AtomBody.long(Int64(bitPattern: restored)), type: u.atomLong)
        #expect(plugin.restore(store) == LV2_STATE_SUCCESS)
        try plugin.block(256)
        #expect(try toldMutes() == [restored])  // a change, told (a host's generic UI shows it too)
        // The editor opens: it asks for everything and leases the playhead, and is told the mutes.
        try plugin.block(256, [plugin.getAll(), InProcessPlugin.Input(type: u.atomObject, body: AtomBody.object(otype: u.editorOpen, properties: []))])
        let opened = try toldMutes()
        #expect(opened.last == restored, "\(opened)")
        // The editor model shows both and sends lane 12's M as the whole word.
        var editor = PianoRollEditor(document: try EditorDocument(parsing: Array(SwitchTexts.fortyLanes.utf8)), width: 850, height: 400)
        _ = editor.setShowsAllLanes(true)
        _ = editor.setParameterMutes(opened.last ?? 0)
        #expect(editor.mutes.isMuted(9) && editor.mutes.isMuted(39))
        let click = try #require(editor.toggleMute(11).mute?.parameter)
        try plugin.block(256, [plugin.patchSet(u.laneMutes, type: u.atomLong, value: AtomBody.long(Int64(bitPattern: click)))])
        #expect(try toldMutes() == [restored | 1 << 11])
        // Rolling: lanes 10, 12 and 40 (keys 50, 52, 80) are silent, every other lane plays.
        let midi = try plugin.block(4096, [plugin.position(beat: 0)])
        let keys = Set(midi.filter { $0.1.count == 3 && $0.1[0] & 0xF0 == 0x90 }.map { $0.1[1] })
        #expect(keys == Set((41...80).map(UInt8.init)).subtracting([50, 52, 80]), "\(keys.sorted())")
        // A state restored while the editor is open (lane 20 alone) is told too.
        let other = StateStore()
        other[u.pattern] = StateStore.Property(value: Array(SwitchTexts.fortyLanes.utf8) + [0], type: u.atomString)
        other[u.laneMutes] = StateStore.Property(value: AtomBody.long(1 << 19), type: u.atomLong)
        #expect(plugin.restore(other) == LV2_STATE_SUCCESS)
        try plugin.block(256)
        #expect(try toldMutes() == [1 << 19])
        #expect(editor.setParameterMutes(1 << 19) == .redraw && editor.laneMutes == 1 << 19)
    }
}
