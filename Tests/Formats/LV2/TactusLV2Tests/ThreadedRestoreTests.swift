import CLV2
import Foundation
import Synchronization
import Testing
import TactusEngine
import TactusInProcessHost
import TactusModel

/// `restore()` on one thread while `run()` runs on another, as a host with
/// `state:threadSafeRestore` may do (loading a preset during playback). Run
/// by `make test` and, for data races, by `make test-tsan`.
@Suite("restore() while run() runs")
struct ThreadedRestoreTests {
    static let patterns = [
        "tactus-pattern 1\nlength 1\nnote 0 1/4 60 100\nnote 1/2 1/4 64 90 2\n",
        "tactus-pattern 1\nlength 3/2\nnote 0 2 48 80\nnote 1/3 1/3 50 80\n",
        "tactus-pattern 1\nlength 1/4\nnote 0 1/16 72 127 10\n",
        "tactus-pattern 1\nlength 4\nnote 0 1 60 0\n",  // rejected: velocity 0
    ]

    @Test("the audio thread stays well formed, the last accepted restore wins, nothing sticks", arguments: [true, false])
    func restoreWhileRunning(withWorker: Bool) throws {
        let plugin = InProcessPlugin.make(worker: withWorker)
        let restores = 3000
        let finished = Atomic<Bool>(false)
        let lastAccepted = Mutex<String?>(nil)
        // Issues are collected and checked on the test's own thread.
        let restoreProblems = Mutex<[String]>([])
        let restoreThread = Thread {
            for i in 0..<restores {
                let text = ThreadedRestoreTests.patterns[i % ThreadedRestoreTests.patterns.count]
                let store = StateStore()
                store[plugin.uris.pattern] = StateStore.Property(value: AtomBody.text(text), type: plugin.uris.atomString)
                let status = plugin.restore(store)
                if text.contains(" 0\n") {
                    if status != LV2_STATE_ERR_UNKNOWN { restoreProblems.withLock { $0.append("a bad pattern restored with \(status)") } }
                } else if status == LV2_STATE_SUCCESS {
                    lastAccepted.withLock { $0 = text }
                } else if status != LV2_STATE_ERR_NO_SPACE {
                    // NO_SPACE: the audio thread has not taken the waiting restores yet; refused, nothing changes.
                    restoreProblems.withLock { $0.append("a good pattern restored with \(status)") }
                }
            }
            finished.store(true, ordering: .releasing)
        }
        restoreThread.start()

        // The audio thread: a rolling transport, blocks of every size, MIDI checked as it comes.
        var sounding = Set<Int>()
        var blocks = 0
        var problems: [String] = []
        var size: UInt32 = 1
        while !finished.load(ordering: .acquiring) || blocks < 100 {
            let midi = try plugin.block(size, blocks == 0 ? [plugin.position(at: 0)] : [])
            var last: Int64 = 0
            for (offset, bytes) in midi {
                if offset < last || offset >= Int64(size) { problems.append("offset \(offset) in a block of \(size)") }
                last = offset
                let slot = Int(bytes[0] & 0x0F) * 128 + Int(bytes[1])
                if bytes[0] & 0xF0 == 0x90 {
                    if !sounding.insert(slot).inserted { problems.append("note-on of a sounding note") }
                } else if sounding.remove(slot) == nil {
                    problems.append("note-off of a silent note")
                }
            }
            blocks += 1
            size = size % 1024 + 97
        }
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(restoreProblems.withLock { $0 }.isEmpty, "\(restoreProblems.withLock { $0 }.prefix(5))")
        #expect(blocks >= 100)

        // Stopped, drained: nothing sounds, and the pattern in use is the last restore accepted.
        for (offset, bytes) in try plugin.block(256, [plugin.stop(at: 0)]) {
            #expect(offset == 0 && bytes[0] & 0xF0 == 0x80)
            sounding.remove(Int(bytes[0] & 0x0F) * 128 + Int(bytes[1]))
        }
        #expect(sounding.isEmpty)
        let expected = try #require(lastAccepted.withLock { $0 })
        #expect(try plugin.patternInUse() == expected)
        let (_, state) = plugin.save()
        #expect(state[plugin.uris.pattern].map { String(decoding: $0.value.dropLast(), as: UTF8.self) } == expected)
    }
}

@Suite("Entry points from many threads")
struct ConcurrentEntryPointTests {
    /// `make test-tsan` found a race here: the descriptor and the extension
    /// interfaces were Swift globals, written or borrowed inout at each call.
    @Test("lv2_descriptor, extension_data and instantiate from eight threads at once")
    func descriptorFromManyThreads() async {
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var ok = true
                    for _ in 0..<200 {
                        guard let d = lv2_descriptor(0) else { return false }
                        ok = ok && String(cString: d.pointee.URI) == "urn:tactus:sequencer" && lv2_descriptor(1) == nil
                        ok = ok && d.pointee.extension_data?("http://lv2plug.in/ns/ext/worker#interface") != nil
                        ok = ok && d.pointee.extension_data?("http://lv2plug.in/ns/ext/state#interface") != nil
                        ok = ok && d.pointee.extension_data?("urn:nothing") == nil
                    }
                    let plugin = InProcessPlugin.make()
                    ok = ok && (try? plugin.block(64)) != nil
                    return ok
                }
            }
            var all: [Bool] = []
            for await r in group { all.append(r) }
            return all
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}

/// The snapshot budget (docs/plugin.md, "What happens to an edit"): with no
/// `run()` to take them, restores are accepted until 16 patterns are alive,
/// then refused with a message a person reads; the pattern in use stays, and
/// the newest accepted one plays at the next block. Nothing is dropped.
@Suite("The snapshot budget")
struct SnapshotBudgetTests {
    @Test("the 16th live pattern is the last accepted without run(); the next is refused and logged; run() frees room")
    func restoresBeyondTheBudgetAreRefused() throws {
        let plugin = InProcessPlugin.make(worker: true)
        func restore(_ i: Int) -> LV2_State_Status {
            let store = StateStore()
            store[plugin.uris.pattern] = StateStore.Property(
                value: AtomBody.text("tactus-pattern 1\nlength 1\nnote 0 1/4 \(40 + i) 100\n"), type: plugin.uris.atomString)
            return plugin.restore(store)
        }
        // The default pattern holds one ticket: 15 more fit.
        for i in 0..<15 { #expect(restore(i) == LV2_STATE_SUCCESS, "restore \(i)") }
        #expect(restore(15) == LV2_STATE_ERR_NO_SPACE)
        #expect(plugin.lastLogMessage.contains("16 patterns are already waiting for the audio thread"), "\(plugin.lastLogMessage)")
        // One block installs the newest and retires the rest; the worker frees them.
        _ = try plugin.block(64)
        _ = try plugin.block(64)
        #expect(try plugin.patternInUse()?.contains("note 0 1/4 54 100") == true)
        #expect(restore(16) == LV2_STATE_SUCCESS)
    }
}
