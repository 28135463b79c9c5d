import Testing
import TactusEngine
import TactusModel
import TactusTestSupport

private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

// How a pattern text travels between the plugin and its editor (issue 27):
// a change names the lines it replaces and the text it was made on; a text
// in pieces is assembled only whole and only from one text; the editor's
// half of the messages never edits what it has not received.

/// Lines such as pattern texts have: notes, comments, blanks, CR LF now and then, no final line end now and then.
private func randomText(_ r: inout RandomSession, lines: Int) -> [UInt8] {
    var out: [UInt8] = []
    for i in 0..<lines {
        switch r.below(6) {
        case 0: out += bytes("# comment \(r.below(50))")
        case 1: out += []
        default: out += bytes("note \(r.below(16))/4 1/4 \(36 + r.below(40)) \(1 + r.below(127))")
        }
        if i < lines - 1 || r.below(3) > 0 { out += r.below(8) == 0 ? [13, 10] : [10] }
    }
    return out
}

private func linesOf(_ text: [UInt8]) -> [[UInt8]] {
    var out: [[UInt8]] = []
    var line: [UInt8] = []
    for b in text {
        line.append(b)
        if b == 10 { out.append(line); line = [] }
    }
    if !line.isEmpty { out.append(line) }
    return out
}

/// Random edits of whole lines: some rewritten in place, some removed, some added.
private func edited(_ text: [UInt8], _ r: inout RandomSession) -> [UInt8] {
    var lines = linesOf(text)
    for _ in 0..<(1 + r.below(4)) {
        let at = lines.isEmpty ? 0 : r.below(lines.count)
        switch r.below(4) {
        case 0 where !lines.isEmpty: lines[at] = bytes("note 9 1/8 \(r.below(128)) 100\n")
        case 1 where !lines.isEmpty: lines.remove(at: at)
        case 2: lines.insert(bytes("note \(r.below(9)) 1/2 60 \(1 + r.below(127))\n"), at: min(at, lines.count))
        default: lines.append(bytes("# at the end \(r.below(9))"))
        }
    }
    return lines.flatMap { $0 }
}

@Suite("Pattern text transfer: changes")
struct PatternChangeTests {
    @Test("a change applied to its base gives the result, byte for byte (2,000 random pairs, through the wire form)")
    func roundTrip() throws {
        var r = RandomSession(seed: 27)
        for _ in 0..<2000 {
            let base = randomText(&r, lines: r.below(30))
            let result = r.below(10) == 0 ? randomText(&r, lines: r.below(30)) : edited(base, &r)
            let change = PatternChange.between(base, result)
            let decoded = try PatternChange.decode(change.encoded).get()
            #expect(decoded == change)
            #expect(try decoded.apply(to: base).get() == result)
        }
    }

    @Test("one note rewritten in a 20,000-line text is one hunk of one line")
    func oneLine() throws {
        var lines = (0..<20_000).map { "note \($0) 1/4 60 100\n" }
        let base = bytes(lines.joined())
        lines[12_345] = "note 12345 1/2 62 100 # moved\n"
        let result = bytes(lines.joined())
        let change = PatternChange.between(base, result)
        #expect(change.hunks == [PatternChange.Hunk(first: 12_346, count: 1, bytes: bytes("note 12345 1/2 62 100 # moved\n"))])
        #expect(change.encoded.count < 200)
        #expect(try change.apply(to: base).get() == result)
    }

    @Test("notes moved in place far apart are hunks of their own; an added note is an insertion")
    func scattered() throws {
        let base = bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\nnote 2 1 64 100\nnote 3 1 65 100\n")
        let moved = bytes("tactus-pattern 1\nlength 4\nnote 0 1 61 100\nnote 1 1 62 100\nnote 2 1 64 100\nnote 3 1 66 100\n")
        #expect(PatternChange.between(base, moved).hunks.map { [$0.first, $0.count] } == [[3, 1], [6, 1]])
        let added = bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\nnote 1/2 1 67 100\nnote 2 1 64 100\nnote 3 1 65 100\n")
        let insert = PatternChange.between(base, added)
        #expect(insert.hunks == [PatternChange.Hunk(first: 5, count: 0, bytes: bytes("note 1/2 1 67 100\n"))])
    }

    @Test("a change is refused on another base, and when it does not give the text it names")
    func refusals() throws {
        let base = bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n")
        let result = bytes("tactus-pattern 1\nlength 4\nnote 0 1 61 100\n")
        let change = PatternChange.between(base, result)
        let other = bytes("tactus-pattern 1\nlength 4\nnote 0 1 59 100\n")
        guard case .failure(let f) = change.apply(to: other) else { Issue.record("applied to another base"); return }
        #expect(f.kind == .otherBase)
        var lying = change
        lying.hunks[0].bytes = bytes("note 0 1 62 100\n")
        guard case .failure(let g) = lying.apply(to: base) else { Issue.record("a wrong result was accepted"); return }
        #expect(g.kind == .otherResult)
    }

    @Test("a malformed change is refused with a reason, never a crash (truncations and byte flips of a valid one)")
    func malformed() {
        let base = bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\nnote 1 1 62 100\n")
        let change = PatternChange.between(base, bytes("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n")).encoded
        var r = RandomSession(seed: 5)
        for cut in 0..<change.count {
            if case .success(let c) = PatternChange.decode(Array(change.prefix(cut))) {
                #expect(c.apply(to: base).isSuccess == false || cut == change.count)
            }
        }
        for _ in 0..<5000 {
            var broken = change
            for _ in 0..<(1 + r.below(3)) { broken[r.below(broken.count)] = UInt8(truncatingIfNeeded: r.next()) }
            if case .success(let c) = PatternChange.decode(broken), case .success(let text) = c.apply(to: base) {
                // Only a change that names its result exactly may apply: then it gives exactly that.
                #expect(text.count == c.resultLength && TextHash.of(text) == c.resultHash)
            }
        }
        for wrong in ["", "tactus-change 2\n", "tactus-change 1\nbase 10 zz\n", "tactus-change 1\nbase 1 0000000000000000\nresult 1 0000000000000000\nreplace 0 1 1\nx"] {
            guard case .failure(let f) = PatternChange.decode(bytes(wrong)) else { Issue.record("decoded \(wrong.debugDescription)"); continue }
            #expect(f.kind == .malformed && f.message.hasPrefix("not a pattern change"))
        }
    }
}

@Suite("Pattern text transfer: assembly")
struct TextAssemblyTests {
    @Test("pieces in order make the text; duplicates, gaps and pieces of another text are passed over")
    func pieces() {
        let text = bytes(String(repeating: "note 0 1/4 60 100\n", count: 100))
        var a = TextAssembly(length: text.count, hash: TextHash.of(text))
        var taken: [Bool] = []
        text.withUnsafeBytes { all in
            taken.append(a.add(offset: 100, UnsafeRawBufferPointer(rebasing: all[100..<200])))  // a gap
            taken.append(a.add(offset: 0, UnsafeRawBufferPointer(rebasing: all[0..<100])))
            taken.append(a.add(offset: 0, UnsafeRawBufferPointer(rebasing: all[0..<100])))      // a duplicate
            taken.append(a.add(offset: 100, UnsafeRawBufferPointer(rebasing: all[100..<1000])))
        }
        #expect(taken == [false, true, false, true])
        #expect(a.text == nil)
        text.withUnsafeBytes { all in taken.append(a.add(offset: 1000, UnsafeRawBufferPointer(rebasing: all[1000...]))) }
        #expect(taken.last == true)
        #expect(a.text == text)
        // The same length, other bytes: complete, but not the text named.
        var b = TextAssembly(length: text.count, hash: TextHash.of(text))
        let other = bytes(String(repeating: "note 0 1/4 61 100\n", count: 100))
        let whole = other.withUnsafeBytes { b.add(offset: 0, $0) }
        #expect(whole)
        #expect(b.isComplete && b.text == nil)
    }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
