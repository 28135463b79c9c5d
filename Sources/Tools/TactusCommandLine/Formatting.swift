import Glibc

/// Numbers and durations as messages show them, through the C library's
/// `printf` formats (the command line links no Foundation). Pure functions.
public enum Formatting {
    /// `format` (one `printf` conversion or more) applied to `arguments`.
    public static func printf(_ format: String, _ arguments: CVarArg...) -> String {
        withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            let needed = Int(vsnprintf(&buffer, buffer.count, format, list))
            guard needed >= buffer.count else { return string(buffer) }
            buffer = [CChar](repeating: 0, count: needed + 1)
            return withVaList(arguments) { again in
                _ = vsnprintf(&buffer, buffer.count, format, again)
                return string(buffer)
            }
        }
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `0.68 s`, `4:05.65`, `2:00:00.00`.
public func formatSeconds(_ s: Double) -> String {
    if s < 60 { return Formatting.printf("%.2f s", s) }
    let minutes = Int32(clamping: Int(s) / 60), seconds = s.truncatingRemainder(dividingBy: 60)
    return minutes < 60
        ? Formatting.printf("%d:%05.2f", minutes, seconds)
        : Formatting.printf("%d:%02d:%05.2f", minutes / 60, minutes % 60, seconds)
}

/// `48000`, `133.7`: whole numbers without a point.
public func formatNumber(_ x: Double) -> String {
    x == x.rounded() && x.magnitude < 1e15 ? String(Int64(x)) : String(x)
}
