/// What a bounce plays its schedule through: a synthesizer that takes
/// channel-voice events and renders stereo audio, offline, on one thread.
///
/// The renderer (`BounceRenderer`) calls `send` for the events of a frame
/// right before rendering from that frame on, so an instrument that applies
/// events at the start of its next render puts each one at its exact frame
/// (B4). Not thread-safe: one thread drives an instrument at a time.
public protocol BounceInstrument: AnyObject {
    /// Frames per second it renders at.
    var sampleRate: Int { get }
    /// The most frames one `render` call may ask for.
    var maximumBlockLength: Int { get }
    /// An event that takes effect at the next rendered frame.
    func send(_ event: BounceEvent)
    /// Renders the next `frameCount` frames (at most `maximumBlockLength`)
    /// into `left` and `right`, overwriting them.
    func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frameCount: Int) throws(BounceError)
    /// Silences every voice and resets every channel (GM reset), as at load:
    /// the next bounce starts from the same state as the first.
    func reset() throws(BounceError)
}

/// Why a bounce cannot go on: a sentence a person reads, naming the file or
/// instrument at fault (`cannot load SoundFont 'x.sf2': ...`).
public struct BounceError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
