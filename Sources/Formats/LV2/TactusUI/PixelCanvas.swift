import CLV2UI

/// Solid rectangles written straight into an image surface's pixels: the
/// notes and velocity stems of a frame, which can be tens of thousands.
///
/// Why not cairo: a `cairo_rectangle` and `cairo_fill` cost about 3 µs each
/// here, so 20,000 notes and their stems took 130 ms a frame; written as
/// pixels they take about 1 ms. Rectangles are snapped to whole device
/// pixels (at least one wide and high), with no anti-aliasing: a piano
/// roll's edges are crisp. Everything else (text, lines, the few large
/// rectangles) is drawn with cairo; `begin` and `end` hand the pixels
/// between the two.
///
/// Coordinates are the painter's (logical pixels); `scale` turns them into
/// the image's device pixels. UI thread; O(pixels written).
struct PixelCanvas {
    private let data: UnsafeMutablePointer<UInt32>
    private let wordsPerRow: Int
    private let width: Int
    private let height: Int
    let scale: Double
    /// Device pixels outside this rectangle are never written.
    private var clipX0 = 0, clipY0 = 0, clipX1 = 0, clipY1 = 0

    /// The pixels of `surface` (an image surface of CAIRO_FORMAT_RGB24 or
    /// ARGB32); nil when it has none. Call `end` before cairo draws again.
    init?(surface: OpaquePointer, scale: Double) {
        cairo_surface_flush(surface)
        guard let bytes = cairo_image_surface_get_data(surface) else { return nil }
        data = UnsafeMutableRawPointer(bytes).assumingMemoryBound(to: UInt32.self)
        wordsPerRow = Int(cairo_image_surface_get_stride(surface)) / 4
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        self.scale = scale
        clipX1 = width
        clipY1 = height
    }

    /// Tells cairo the pixels changed.
    func end(_ surface: OpaquePointer) {
        cairo_surface_mark_dirty(surface)
    }

    /// Limits writing to the logical rectangle (within the image).
    mutating func clip(x: Double, y: Double, width w: Double, height h: Double) {
        clipX0 = Swift.max(0, device(x))
        clipY0 = Swift.max(0, device(y))
        clipX1 = Swift.min(width, device(x + w))
        clipY1 = Swift.min(height, device(y + h))
    }

    private func device(_ v: Double) -> Int {
        let d = v * scale
        guard d.isFinite else { return d > 0 ? Int(Int32.max) : Int(Int32.min) }
        return Int(Swift.min(Swift.max(d, -1e9), 1e9).rounded())
    }

    /// 0x00RRGGBB from components 0-1, rounded as cairo rounds them.
    static func colour(_ r: Double, _ g: Double, _ b: Double) -> UInt32 {
        func c(_ v: Double) -> UInt32 { UInt32(Swift.min(Swift.max(v, 0), 1) * 255 + 0.5) }
        return c(r) << 16 | c(g) << 8 | c(b)
    }

    /// Fills the logical rectangle, snapped to device pixels, at least one pixel each way.
    func fill(x: Double, y: Double, width w: Double, height h: Double, colour: UInt32) {
        var x0 = device(x), y0 = device(y)
        var x1 = Swift.max(device(x + w), x0 + 1), y1 = Swift.max(device(y + h), y0 + 1)
        x0 = Swift.max(x0, clipX0)
        y0 = Swift.max(y0, clipY0)
        x1 = Swift.min(x1, clipX1)
        y1 = Swift.min(y1, clipY1)
        guard x0 < x1, y0 < y1 else { return }
        var row = data + y0 * wordsPerRow
        for _ in y0..<y1 {
            (row + x0).update(repeating: colour, count: x1 - x0)
            row += wordsPerRow
        }
    }

    /// A frame `thickness` logical pixels wide just inside the rectangle.
    func outline(x: Double, y: Double, width w: Double, height h: Double, thickness t: Double, colour: UInt32) {
        let tx = Swift.min(t, w / 2), ty = Swift.min(t, h / 2)
        fill(x: x, y: y, width: w, height: ty, colour: colour)
        fill(x: x, y: y + h - ty, width: w, height: ty, colour: colour)
        fill(x: x, y: y, width: tx, height: h, colour: colour)
        fill(x: x + w - tx, y: y, width: tx, height: h, colour: colour)
    }
}
