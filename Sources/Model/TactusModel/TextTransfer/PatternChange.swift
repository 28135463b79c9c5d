import TactusEngine
/// A change to a pattern text: the lines it replaces, named by their numbers
/// in the text it was made on, with that text's identity and the result's
/// (length and `TextHash`). The editor sends one for an edit instead of the
/// whole text; the plugin's worker applies it to the text it holds, and only
/// when that text is the one the change was made on.
///
/// Its wire form is text, so that a host's dump of the message reads:
///
///     tactus-change 1
///     base 593636 5b0bd34a4bd3b2e2
///     result 593641 0d9f8c7e26a1c3b4
///     replace 1042 1 23
///     note 3 1/2 60 100 # kick
///
/// `replace FIRST COUNT BYTES`: the COUNT lines from line FIRST (counted from
/// 1; COUNT 0 inserts before it, FIRST one past the last line appends) give
/// way to the BYTES bytes that follow the line, exactly (their own line ends
/// included). Hunks come in text order and do not overlap. A line is what
/// ends with a line feed, or the end of the text (a CR before the LF is part
/// of the line). Off the audio thread; allocates; O(text length).
public struct PatternChange: Equatable, Sendable {
    /// The lines `first ..< first + count` (from 1) of the base replaced by `bytes`.
    public struct Hunk: Equatable, Sendable {
        public var first: Int
        public var count: Int
        public var bytes: [UInt8]

        public init(first: Int, count: Int, bytes: [UInt8]) {
            self.first = first
            self.count = count
            self.bytes = bytes
        }
    }

    public var baseLength: Int
    public var baseHash: UInt64
    public var resultLength: Int
    public var resultHash: UInt64
    public var hunks: [Hunk]

    /// Why a change could not be read or applied, for a person.
    public struct Failure: Error, Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// Not a change in the wire form above.
            case malformed
            /// Made on another text than the one it is applied to.
            case otherBase
            /// Applied, it does not give the text it names.
            case otherResult
        }

        public var kind: Kind
        public var message: String
    }

    public init(baseLength: Int, baseHash: UInt64, resultLength: Int, resultHash: UInt64, hunks: [Hunk]) {
        self.baseLength = baseLength
        self.baseHash = baseHash
        self.resultLength = resultLength
        self.resultHash = resultHash
        self.hunks = hunks
    }

    // MARK: - Making a change

    /// The change that turns `base` into `result`: the lines between their
    /// common beginning and common end. When as many lines lie between in
    /// both, each run of lines that differs is a hunk of its own (moving
    /// notes rewrites their lines in place), unless one hunk replacing them
    /// all is smaller (every line changed); otherwise one hunk replaces them
    /// all. O(n + m).
    public static func between(_ base: [UInt8], _ result: [UInt8]) -> PatternChange {
        let n = base.count
        let m = result.count
        var change = PatternChange(
            baseLength: n, baseHash: TextHash.of(base), resultLength: m, resultHash: TextHash.of(result), hunks: [])
        var p = 0
        while p < n, p < m, base[p] == result[p] { p += 1 }
        if p == n && p == m { return change }
        // The middle starts at a line start (the same in both: the bytes before it are common) ...
        var start = p
        while start > 0, base[start - 1] != 10 { start -= 1 }
        // ... the common end may reach back to it (an inserted line is an insertion) ...
        var s = 0
        while s < n - start, s < m - start, base[n - 1 - s] == result[m - 1 - s] { s += 1 }
        // ... and the middle ends at a line start of both, or at both ends.
        var k = 0
        while k < s {
            let b = n - s + k
            let r = m - s + k
            if isLineStart(base, b) && isLineStart(result, r) { break }
            k += 1
        }
        let baseEnd = n - s + k
        let resultEnd = m - s + k
        let firstLine = 1 + newlines(base, 0, start)
        let baseLines = lineRanges(base, start, baseEnd)
        let resultLines = lineRanges(result, start, resultEnd)
        // One hunk for the whole middle, or (when as many lines lie between in
        // both) one for each run of lines that differs, whichever is smaller.
        let whole = Hunk(first: firstLine, count: baseLines.count, bytes: Array(result[start..<resultEnd]))
        if baseLines.count == resultLines.count {
            var i = 0
            while i < baseLines.count {
                guard !equal(base, baseLines[i], result, resultLines[i]) else {
                    i += 1
                    continue
                }
                var j = i + 1
                while j < baseLines.count, !equal(base, baseLines[j], result, resultLines[j]) { j += 1 }
                change.hunks.append(Hunk(
                    first: firstLine + i, count: j - i, bytes: Array(result[resultLines[i].lowerBound..<resultLines[j - 1].upperBound])))
                i = j
            }
            if PatternChange.encodedSize(change.hunks) > PatternChange.encodedSize([whole]) { change.hunks = [whole] }
        } else {
            change.hunks.append(whole)
        }
        return change
    }

    /// Bytes of the hunks' wire form (their `replace` lines and bytes).
    static func encodedSize(_ hunks: [Hunk]) -> Int {
        var n = 0
        for h in hunks { n += 8 + digits(h.first) + 1 + digits(h.count) + 1 + digits(h.bytes.count) + 1 + h.bytes.count }
        return n
    }

    static func digits(_ v: Int) -> Int {
        var n = 1
        var x = v
        while x >= 10 { x /= 10; n += 1 }
        return n
    }

    static func isLineStart(_ text: [UInt8], _ position: Int) -> Bool {
        position == 0 || position == text.count || text[position - 1] == 10
    }

    static func newlines(_ text: [UInt8], _ from: Int, _ to: Int) -> Int {
        var count = 0
        var i = from
        while i < to {
            if text[i] == 10 { count += 1 }
            i += 1
        }
        return count
    }

    /// The lines of `text[from ..< to]` (`from` a line start, `to` a line start or the end).
    static func lineRanges(_ text: [UInt8], _ from: Int, _ to: Int) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var lineStart = from
        var i = from
        while i < to {
            if text[i] == 10 {
                out.append(lineStart..<(i + 1))
                lineStart = i + 1
            }
            i += 1
        }
        if lineStart < to { out.append(lineStart..<to) }
        return out
    }

    static func equal(_ a: [UInt8], _ ra: Range<Int>, _ b: [UInt8], _ rb: Range<Int>) -> Bool {
        guard ra.count == rb.count else { return false }
        var i = 0
        while i < ra.count {
            if a[ra.lowerBound + i] != b[rb.lowerBound + i] { return false }
            i += 1
        }
        return true
    }

    // MARK: - Applying it

    /// The text the change makes of `base`, or why it cannot: `base` is not
    /// the text the change was made on (its length or hash differ), a hunk
    /// lies outside it, or the result is not the text the change names.
    public func apply(to base: [UInt8]) -> Result<[UInt8], Failure> {
        guard base.count == baseLength, TextHash.of(base) == baseHash else {
            return .failure(Failure(
                kind: .otherBase,
                message: "the change was made on another pattern text (\(baseLength) bytes) than the one in use (\(base.count) bytes)"))
        }
        var starts: [Int] = [0]
        for (i, b) in base.enumerated() where b == 10 && i + 1 < base.count { starts.append(i + 1) }
        let lineCount = base.isEmpty ? 0 : starts.count
        if base.isEmpty { starts = [] }
        starts.append(base.count)
        var out: [UInt8] = []
        out.reserveCapacity(max(resultLength, 0))
        var line = 0
        for h in hunks {
            let first = h.first - 1
            guard first >= line, h.count >= 0, first + h.count <= lineCount else {
                return .failure(Failure(kind: .malformed, message: "the change replaces lines \(h.first)-\(h.first + h.count - 1), which are out of order or past the end (\(lineCount) lines)"))
            }
            out += base[starts[line]..<starts[first]]
            out += h.bytes
            line = first + h.count
        }
        out += base[starts[line]..<base.count]
        guard out.count == resultLength, TextHash.of(out) == resultHash else {
            return .failure(Failure(kind: .otherResult, message: "the change does not give the text it names (\(out.count) bytes, \(resultLength) named)"))
        }
        return .success(out)
    }

    // MARK: - Wire form

    static var header: StaticString { "tactus-change 1\n" }

    /// The wire form (see the type's description).
    public var encoded: [UInt8] {
        var out = PatternChange.bytes(PatternChange.header)
        out += Array("base \(baseLength) ".utf8) + TextHash.hex(baseHash) + [10]
        out += Array("result \(resultLength) ".utf8) + TextHash.hex(resultHash) + [10]
        for h in hunks {
            out += Array("replace \(h.first) \(h.count) \(h.bytes.count)\n".utf8)
            out += h.bytes
        }
        return out
    }

    /// Whether `bytes` start as a change does (`tactus-change`).
    public static func looksLikeChange(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let h = header
        guard bytes.count >= h.utf8CodeUnitCount else { return false }
        for i in 0..<h.utf8CodeUnitCount where bytes[i] != h.utf8Start[i] { return false }
        return true
    }

    /// Reads the wire form, strictly.
    public static func decode(_ bytes: [UInt8]) -> Result<PatternChange, Failure> {
        var reader = Reader(bytes: bytes)
        func malformed(_ what: String) -> Result<PatternChange, Failure> {
            .failure(Failure(kind: .malformed, message: "not a pattern change: \(what)"))
        }
        guard reader.take(header) else { return malformed("it does not start with 'tactus-change 1'") }
        guard reader.take("base "), let baseLength = reader.number(), reader.take(" "), let baseHash = reader.hash(), reader.take("\n")
        else { return malformed("the line 'base LENGTH HASH' is missing or wrong") }
        guard reader.take("result "), let resultLength = reader.number(), reader.take(" "), let resultHash = reader.hash(), reader.take("\n")
        else { return malformed("the line 'result LENGTH HASH' is missing or wrong") }
        var hunks: [Hunk] = []
        while !reader.atEnd {
            guard reader.take("replace "), let first = reader.number(), first >= 1, reader.take(" "), let count = reader.number(),
                reader.take(" "), let size = reader.number(), reader.take("\n")
            else { return malformed("hunk \(hunks.count + 1): the line 'replace FIRST COUNT BYTES' is missing or wrong") }
            guard let raw = reader.raw(size) else { return malformed("hunk \(hunks.count + 1): \(size) bytes announced, fewer follow") }
            if let last = hunks.last, first < last.first + last.count {
                return malformed("hunk \(hunks.count + 1) overlaps or precedes the one before it")
            }
            hunks.append(Hunk(first: first, count: count, bytes: raw))
        }
        return .success(PatternChange(baseLength: baseLength, baseHash: baseHash, resultLength: resultLength, resultHash: resultHash, hunks: hunks))
    }

    static func bytes(_ s: StaticString) -> [UInt8] {
        Array(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Reads the wire form front to back.
    struct Reader {
        let bytes: [UInt8]
        var at = 0

        var atEnd: Bool { at >= bytes.count }

        mutating func take(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard bytes.count - at >= n else { return false }
            for i in 0..<n where bytes[at + i] != word.utf8Start[i] { return false }
            at += n
            return true
        }

        /// A decimal number of at most 15 digits (no sign, no leading zero but "0").
        mutating func number() -> Int? {
            var value = 0
            var digits = 0
            while at < bytes.count, bytes[at] >= 48, bytes[at] <= 57 {
                if digits == 1 && value == 0 { return nil }
                value = value * 10 + Int(bytes[at] - 48)
                digits += 1
                at += 1
                if digits > 15 { return nil }
            }
            return digits > 0 ? value : nil
        }

        mutating func hash() -> UInt64? {
            guard bytes.count - at >= 16, let h = TextHash.parseHex(bytes[at..<(at + 16)]) else { return nil }
            at += 16
            return h
        }

        mutating func raw(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - at else { return nil }
            defer { at += count }
            return Array(bytes[at..<(at + count)])
        }
    }
}
