import TactusEngine
/// How an error message quotes text that a person or a host supplied (a
/// field of a pattern, a file path).
///
/// The text is shown as written, with two exceptions that keep the message
/// whole wherever it is shown. Control characters appear as `\xNN`: a NUL
/// would end the message where hosts print it as a C string (LV2's log, a
/// host's status line), cutting off the reason after it. And a quote is cut
/// at a character boundary after `limit` bytes (`quoted` keeps the start,
/// `quotedTail` the end, where a path's file name is), marked `...`, so that
/// the reason after it always fits the message. Off the audio thread.
public enum QuotedText {
    /// The start of `bytes`, escaped, at most `limit` bytes of it.
    public static func quoted(_ bytes: [UInt8], limit: Int = 40) -> String {
        let e = escaped(bytes)
        guard e.count > limit else { return String(decoding: e, as: UTF8.self) }
        var end = limit
        while end > 0, e[end] & 0xC0 == 0x80 { end -= 1 }
        return String(decoding: e[..<end], as: UTF8.self) + "..."
    }

    /// The end of `bytes`, escaped, at most `limit` bytes of it.
    public static func quotedTail(_ bytes: [UInt8], limit: Int = 160) -> String {
        let e = escaped(bytes)
        guard e.count > limit else { return String(decoding: e, as: UTF8.self) }
        var start = e.count - limit
        while start < e.count, e[start] & 0xC0 == 0x80 { start += 1 }
        return "..." + String(decoding: e[start...], as: UTF8.self)
    }

    /// `bytes` cut to at most `limit` bytes without splitting a UTF-8 character.
    public static func prefix(_ bytes: [UInt8], limit: Int) -> [UInt8] {
        guard bytes.count > limit else { return bytes }
        var end = limit
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end])
    }

    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            if b < 0x20 || b == 0x7F {
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "x"))
                out.append(hexDigit(b >> 4))
                out.append(hexDigit(b & 0x0F))
            } else {
                out.append(b)
            }
        }
        return out
    }

    static func hexDigit(_ d: UInt8) -> UInt8 { d < 10 ? 0x30 + d : 0x61 + d - 10 }
}
