import FileIO

/// `--png` (docs/bounce.md, B9): the waveform drawn over a piano roll of
/// the input, a picture a person checks at a glance: notes as bars coloured
/// by channel (key up the picture, time across), the peak envelope of the
/// audio in dark grey on top, the input's end as a red line.
///
/// Written as an RGB PNG by a small encoder of its own (no library), through
/// `AtomicFile` (complete or not there).
/// O(width × height + notes).
public enum WaveformPicture {
    public static func write(
        schedule: BounceSchedule, result: BounceRenderer.Result, to path: String, width: Int = 1200, height: Int = 400
    ) throws(BounceError) {
        var pixels = [UInt8](repeating: 255, count: width * height * 3)
        func set(_ x: Int, _ y: Int, _ c: (UInt8, UInt8, UInt8)) {
            guard x >= 0, x < width, y >= 0, y < height else { return }
            let i = (y * width + x) * 3
            pixels[i] = c.0
            pixels[i + 1] = c.1
            pixels[i + 2] = c.2
        }
        let total = max(result.frames, 1)
        func column(_ frame: Int64) -> Int { Int(Int64(width) * frame / total) }
        let notes = schedule.notes
        let low = Int(notes.map(\.key).min() ?? 36), high = Int(notes.map(\.key).max() ?? 84)
        let span = max(high - low + 1, 12)
        let palette: [(UInt8, UInt8, UInt8)] = [
            (120, 170, 230), (230, 150, 110), (130, 200, 130), (210, 140, 210), (230, 200, 100), (110, 200, 200),
            (200, 120, 120), (150, 150, 230), (180, 210, 110), (160, 120, 160), (240, 170, 170), (120, 180, 160),
            (200, 180, 140), (170, 200, 230), (220, 160, 200), (180, 180, 180),
        ]
        for n in notes {
            let y0 = height - 1 - (Int(n.key) - low + 1) * (height - 1) / span
            let y1 = height - 1 - (Int(n.key) - low) * (height - 1) / span
            for x in column(n.start)...max(column(n.start), column(n.end)) {
                for y in y0...max(y0, y1 - 1) { set(x, y, palette[n.channel]) }
            }
        }
        // The envelope: each column's peak, mirrored about the middle.
        let buckets = result.envelope
        if !buckets.isEmpty {
            for x in 0..<width {
                let a = x * buckets.count / width, b = max(a + 1, (x + 1) * buckets.count / width)
                let peak = min(1, buckets[a..<min(b, buckets.count)].max() ?? 0)
                let half = Int(peak * Float(height / 2 - 1))
                for y in (height / 2 - half)...(height / 2 + half) { set(x, y, (60, 60, 60)) }
            }
        }
        let end = column(schedule.endFrame)
        for y in 0..<height { set(end, y, (220, 30, 30)) }
        do { try AtomicFile.write(PNG.rgb(width: width, height: height, pixels: pixels), to: path) } catch {
            throw BounceError(error.description)
        }
    }
}

/// A minimal PNG encoder: 8-bit RGB, no filter, one deflate block with the
/// fixed Huffman codes, whose only matches repeat the pixel before (distance
/// 3): the picture is mostly runs of one colour, so that is most of what
/// compression can give (a 1200×400 picture is tens of KB, not 1.4 MB).
enum PNG {
    static func rgb(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (width * 3 + 1))
        for y in 0..<height {
            raw.append(0)
            raw.append(contentsOf: pixels[(y * width * 3)..<((y + 1) * width * 3)])
        }
        var z: [UInt8] = [0x78, 0x01]
        z += deflateFixed(raw)
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        z += bigEndian(b << 16 | a)
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0])
        out += chunk("IDAT", z)
        out += chunk("IEND", [])
        return out
    }

    /// Bits written least significant first, as deflate packs them.
    struct BitWriter {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var count = 0
        mutating func write(_ value: UInt32, bits: Int) {
            accumulator |= value << UInt32(count)
            count += bits
            while count >= 8 {
                bytes.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                count -= 8
            }
        }
        /// A Huffman code: its bits most significant first.
        mutating func writeCode(_ code: UInt32, bits: Int) {
            var reversed: UInt32 = 0
            for i in 0..<bits where code & (1 << UInt32(i)) != 0 { reversed |= 1 << UInt32(bits - 1 - i) }
            write(reversed, bits: bits)
        }
        mutating func finish() -> [UInt8] {
            if count > 0 { bytes.append(UInt8(accumulator & 0xFF)) }
            return bytes
        }
    }

    static let lengthBases: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

    /// RFC 1951 fixed-Huffman literal/length code of `symbol` (0-287).
    static func writeSymbol(_ symbol: Int, _ w: inout BitWriter) {
        switch symbol {
        case 0...143: w.writeCode(UInt32(0x30 + symbol), bits: 8)
        case 144...255: w.writeCode(UInt32(0x190 + symbol - 144), bits: 9)
        case 256...279: w.writeCode(UInt32(symbol - 256), bits: 7)
        default: w.writeCode(UInt32(0xC0 + symbol - 280), bits: 8)
        }
    }

    static func deflateFixed(_ data: [UInt8]) -> [UInt8] {
        var w = BitWriter()
        w.write(1, bits: 1)  // BFINAL
        w.write(1, bits: 2)  // BTYPE 01: fixed Huffman codes
        var i = 0
        while i < data.count {
            var run = 0
            if i >= 3 {
                while run < 258, i + run < data.count, data[i + run] == data[i + run - 3] { run += 1 }
            }
            if run >= 3 {
                var code = lengthBases.count - 1
                while lengthBases[code] > run { code -= 1 }
                writeSymbol(257 + code, &w)
                if lengthExtra[code] > 0 { w.write(UInt32(run - lengthBases[code]), bits: lengthExtra[code]) }
                w.writeCode(2, bits: 5)  // distance 3
                i += run
            } else {
                writeSymbol(Int(data[i]), &w)
                i += 1
            }
        }
        writeSymbol(256, &w)
        return w.finish()
    }

    private static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return bigEndian(UInt32(data.count)) + body + bigEndian(~crc)
    }
}
