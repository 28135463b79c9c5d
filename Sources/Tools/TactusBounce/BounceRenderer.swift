import Glibc

/// The bounce engine (docs/bounce.md, B4 and B7): plays a schedule through an
/// instrument, offline and as fast as the instrument renders, and hands the
/// audio to a sink block by block.
///
/// Rendering is split at every event's frame: the events of frame `f` are
/// sent right before the render that starts at `f`, so an instrument that
/// applies events at the start of a render (the click instrument, an LV2
/// plugin given the event at offset 0) sounds each one at its exact frame.
/// Between events, blocks are at most `blockLength` frames (and the
/// instrument's maximum). After the schedule's end the tail is rendered
/// until a block is entirely below `tailThresholdDBFS`, at most
/// `tailCapSeconds`; the file ends after the last sample at or above the
/// threshold (never before the schedule's end).
///
/// One thread; O(frames + events); memory O(blockLength).
public struct BounceRenderer {
    public var blockLength = 1024
    public var tailThresholdDBFS = -90.0
    public var tailCapSeconds = 10.0
    /// Frames per envelope bucket (the waveform picture's resolution).
    public var envelopeBucket = 256

    public init() {}

    /// What a bounce measured.
    public struct Result: Sendable {
        /// Frames handed to the sink: the schedule's end plus the tail.
        public var frames: Int64 = 0
        public var scheduleEndFrame: Int64 = 0
        public var tailFrames: Int64 = 0
        public var eventsSent = 0
        /// Largest absolute sample, both channels (linear, 1 = full scale).
        public var peak: Float = 0
        var sumOfSquares: Double = 0
        /// Largest absolute sample in each bucket of `envelopeBucket` frames.
        public var envelope: [Float] = []

        /// RMS of both channels over the whole file (linear).
        public var rms: Double { frames > 0 ? (sumOfSquares / Double(2 * frames)).squareRoot() : 0 }

        /// Below this peak (dBFS) a bounce is quiet: at FluidSynth's default gain
        /// a sparse pattern peaks near -30 dBFS (docs/bounce.md, B7).
        public static let quietPeakDBFS = -18.0

        /// What to tell a person of a file that peaks at `peak` (linear) when it is
        /// below `quietPeakDBFS` or silent, naming `--normalize`; nil otherwise.
        public static func quietness(peak: Float) -> String? {
            guard peak > 0 else { return "is silent: no sample is above 0" }
            guard 20 * log10(Double(peak)) < quietPeakDBFS else { return nil }
            return "peaks at \(dBFS(Double(peak))), below \(Int(quietPeakDBFS)) dBFS: quiet; --normalize puts its peak at -1 dBFS"
        }

        /// A level in dBFS, as a person reads it (`-inf` for silence).
        public static func dBFS(_ linear: Double) -> String {
            guard linear > 0 else { return "-inf dBFS" }
            let tenths = (200 * log10(linear)).rounded()
            return "\(tenths < 0 ? "-" : "")\(Int(abs(tenths)) / 10).\(Int(abs(tenths)) % 10) dBFS"
        }
    }

    /// Where the audio goes: `left`, `right`, frame count.
    public typealias Sink = (UnsafePointer<Float>, UnsafePointer<Float>, Int) throws(BounceError) -> Void

    /// `progress` is called after every block (at most `blockLength` frames)
    /// with the frames rendered so far, the tail's included: a display that
    /// wants fewer updates decides by its own clock (the command line's
    /// progress line redraws four times a second).
    public func render(
        _ schedule: BounceSchedule, through instrument: BounceInstrument, into sink: Sink,
        progress: ((Int64) -> Void)? = nil
    ) throws(BounceError) -> Result {
        let block = max(1, min(blockLength, instrument.maximumBlockLength))
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 2 * block)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: 2 * block)
        defer { left.deallocate(); right.deallocate() }
        var result = Result()
        result.scheduleEndFrame = schedule.endFrame
        var envelopePeak: Float = 0
        var envelopeFill = 0
        func account(_ l: UnsafePointer<Float>, _ r: UnsafePointer<Float>, _ n: Int) throws(BounceError) {
            var sum: Double = 0
            for i in 0..<n {
                let a = max(abs(l[i]), abs(r[i]))
                if a > envelopePeak { envelopePeak = a }
                envelopeFill += 1
                if envelopeFill == envelopeBucket {
                    result.envelope.append(envelopePeak)
                    result.peak = max(result.peak, envelopePeak)
                    envelopePeak = 0
                    envelopeFill = 0
                }
                sum += Double(l[i] * l[i] + r[i] * r[i])
            }
            result.sumOfSquares += sum
            result.frames += Int64(n)
            try sink(l, r, n)
        }

        let events = schedule.events
        var next = 0
        var frame: Int64 = 0
        while frame < schedule.endFrame {
            while next < events.count, events[next].frame <= frame {
                instrument.send(events[next])
                next += 1
            }
            var end = min(schedule.endFrame, frame + Int64(block))
            if next < events.count { end = min(end, events[next].frame) }
            let n = Int(end - frame)
            try instrument.render(left: left, right: right, frameCount: n)
            try account(left, right, n)
            frame = end
            progress?(frame)
        }
        result.eventsSent = next

        // The tail: quiet samples are held back until something loud follows them.
        let threshold = Float(pow(10, tailThresholdDBFS / 20))
        let cap = Int64(tailCapSeconds * Double(instrument.sampleRate))
        let heldLeft = UnsafeMutablePointer<Float>.allocate(capacity: block)
        let heldRight = UnsafeMutablePointer<Float>.allocate(capacity: block)
        defer { heldLeft.deallocate(); heldRight.deallocate() }
        var held = 0
        var tailRendered: Int64 = 0
        while tailRendered < cap {
            let n = Int(min(Int64(block), cap - tailRendered))
            try instrument.render(left: left, right: right, frameCount: n)
            tailRendered += Int64(n)
            progress?(schedule.endFrame + tailRendered)
            var last = -1
            for i in stride(from: n - 1, through: 0, by: -1) where abs(left[i]) >= threshold || abs(right[i]) >= threshold {
                last = i
                break
            }
            if last < 0 { break }
            if held > 0 { try account(heldLeft, heldRight, held) }
            try account(left, right, last + 1)
            held = n - last - 1
            heldLeft.update(from: left + last + 1, count: held)
            heldRight.update(from: right + last + 1, count: held)
        }
        if envelopeFill > 0 {
            result.envelope.append(envelopePeak)
            result.peak = max(result.peak, envelopePeak)
        }
        result.tailFrames = result.frames - schedule.endFrame
        progress?(result.frames)
        return result
    }
}
