import TactusEngine
import TactusModel

/// The core run as an offline host: a pattern, a transport script, a sample
/// rate and a block plan in; the event log out.
///
/// It plays the part of an LV2 host that runs the worker synchronously after
/// each `run()`: a pattern edit arriving in a block is parsed after that block
/// and takes effect at the start of the next one (timing contract §5).
public struct OfflineRender {
    /// A pattern edit the script asked for that could not be loaded; the pattern in use stayed.
    public struct EditFailure: Sendable, CustomStringConvertible {
        public var frame: Int64
        public var path: String
        public var message: String
        public var description: String { "frame \(frame): pattern '\(QuotedText.quotedTail(Array(path.utf8), limit: 400))' rejected, previous pattern kept: \(message)" }
    }

    public struct Report: Sendable {
        public var statistics = RenderStatistics()
        public var blocks = 0
        public var frames: Int64 = 0
        public var events = 0
        public var editsApplied = 0
        public var editFailures: [EditFailure] = []
        /// Script requests (`request NAME`) for a name the text playing lacks: `frame F: ...`.
        public var requestFailures: [String] = []
    }

    /// Loads a pattern file named by a script: the pattern and its text, or a message.
    public typealias PatternLoader = (String) -> Result<(Pattern, [UInt8]), PatternLoadError>

    public let script: TransportScript
    public let sampleRate: Double
    public let blocks: BlockPlan
    /// Output capacity per block (events). Large by default: an offline render should drop nothing.
    public var outputCapacity = 1 << 16
    /// Give every event its bar and beat (costs a little: blocks are rendered in steps).
    public var annotate = false
    /// §12: the engine also sends MIDI clock (off by default, as in the plugin).
    public var midiClock = false
    /// Sees every input the core receives, at its absolute frame (for tests and tracing).
    public var observer: ((Int64, DeliveredInput) -> Void)?

    /// An input as the core received it.
    public enum DeliveredInput {
        case position(PositionUpdate)
        case midi([UInt8])
        /// A new pattern installed at this block start.
        case installed(Pattern)
        /// `patch:Set` of the lane mutes (§7.6).
        case laneMutes(UInt64)
        /// A block of this many frames starts here.
        case blockStart(Int)
    }

    public init(script: TransportScript, sampleRate: Double, blocks: BlockPlan) {
        self.script = script
        self.sampleRate = sampleRate
        self.blocks = blocks
    }

    /// Renders the whole script. `onBlock` sees each block's events (absolute
    /// frames) and the frames rendered so far; `shouldStop`, asked after each
    /// block, ends the render there when true (a failed write, an output bound
    /// reached), and the report then covers what was rendered.
    public func run(
        pattern: Pattern, patternText: [UInt8]? = nil, loadPattern: PatternLoader,
        shouldStop: () -> Bool = { false }, onBlock: ([LoggedEvent], Int64) -> Void
    ) -> Report {
        var report = Report()
        // The engine the plugin and `tactus jack` run, wrapped by a host that
        // runs its worker synchronously after each block.
        var sequencer = Sequencer(sampleRate: sampleRate, eventCapacity: outputCapacity, pattern: nil)
        let exchange = sequencer.handOver
        var host = HostSimulator(script: script, sampleRate: sampleRate)
        var sizes = blocks.makeIterator()
        // §7.5: input notes pass to the output while the script's `thru` is on.
        var thru = false
        _ = exchange.pointee.reserve()
        sequencer.receive(prepared: PatternSnapshot.make(pattern, text: patternText))
        var preparedPattern: Pattern? = pattern
        // §9: the names of the patterns of the text installed, for `request NAME`.
        var names = OfflineRender.patternNames(text: patternText)
        var start: Int64 = 0
        var blockEvents: [LoggedEvent] = []
        while start < script.endFrame {
            if let p = preparedPattern {
                observer?(start, .installed(p))
                preparedPattern = nil
            }
            let size = Int(min(Int64(sizes.next()), script.endFrame - start))
            observer?(start, .blockStart(size))
            var edits: [(Int64, String)] = []
            sequencer.beginBlock(frameCount: size, eventCapacity: outputCapacity)
            if midiClock { sequencer.setMIDIClock(enabled: true) }
            if !blockEvents.isEmpty { blockEvents.removeAll(keepingCapacity: true) }
            // Collects what the engine wrote so far, positioned by the clock it was rendered under.
            func collect() {
                let events = sequencer.events
                for i in blockEvents.count..<events.count {
                    let e = events[i]
                    let frame = start + Int64(e.offset)
                    let clock = sequencer.renderer.clock
                    let position = MusicalPosition(beats: clock.beat(atFrame: frame).approximateValue, beatsPerBar: clock.beatsPerBar)
                    blockEvents.append(LoggedEvent(frame: frame, bytes: e.bytes, position: position))
                }
            }
            // Annotated logs are rendered in steps, up to each input.
            func renderForAnnotation(toOffset offset: Int) {
                guard annotate else { return }
                sequencer.render(toOffset: offset)
                collect()
            }
            func apply(_ update: PositionUpdate, atOffset offset: Int) {
                observer?(start + Int64(offset), .position(update))
                sequencer.apply(update, atOffset: offset)
            }
            // Most blocks bring at most the report of their start: taken without a list of inputs.
            if let quiet = host.quietBlock(blockStart: start, frameCount: size) {
                if case .report(let update) = quiet {
                    renderForAnnotation(toOffset: 0)
                    apply(update, atOffset: 0)
                }
            } else {
                for input in host.inputs(blockStart: start, frameCount: size) {
                    renderForAnnotation(toOffset: input.offset)
                    switch input.input {
                    case .position(let p):
                        apply(p.update, atOffset: input.offset)
                    case .midi(let bytes):
                        observer?(start + Int64(input.offset), .midi(bytes))
                        bytes.withUnsafeBytes { _ = sequencer.receiveMIDI($0, thru: thru, atOffset: input.offset) }
                    case .pattern(let path), .patternFile(let path), .editorEdit(let path):
                        // (An editor's edit is rendered as a text edit: what the editor
                        // sends is made to install the same text, timing aside.)
                        edits.append((start + Int64(input.offset), path))
                    case .laneMutes(let bits):
                        observer?(start + Int64(input.offset), .laneMutes(bits))
                        sequencer.apply(.laneMutes(bits), atOffset: input.offset)
                    case .thru(let on):
                        thru = on
                    case .request(let name, let grid):
                        if let i = names.firstIndex(of: Array(name.utf8)) {
                            sequencer.request(pattern: i + 1, grid: grid?.engineGrid, atOffset: input.offset)
                        } else {
                            report.requestFailures.append(OfflineRender.unknownRequest(name, frame: start + Int64(input.offset), names: names))
                        }
                    case .song(let on):
                        sequencer.setSongEnabled(on, atOffset: input.offset)
                    case .get:
                        break
                    }
                }
            }
            sequencer.endBlock()
            if annotate {
                collect()
            } else {
                for e in sequencer.events {
                    blockEvents.append(LoggedEvent(frame: start + Int64(e.offset), bytes: e.bytes))
                }
            }
            _ = sequencer.takeOwed()
            report.events += blockEvents.count
            // The "worker": frees what the block replaced, then parses the block's edits.
            exchange.pointee.reclaim()
            for (frame, path) in edits {
                switch loadPattern(path) {
                case .success(let (p, text)):
                    // A ticket is always free here: everything replaced was just reclaimed.
                    _ = exchange.pointee.reserve()
                    sequencer.receive(prepared: PatternSnapshot.make(p, text: text))
                    preparedPattern = p
                    names = OfflineRender.patternNames(text: text)
                    report.editsApplied += 1
                case .failure(let error):
                    report.editFailures.append(EditFailure(frame: frame, path: path, message: error.description))
                }
            }
            start += Int64(size)
            report.blocks += 1
            onBlock(blockEvents, start)
            if shouldStop() { break }
        }
        report.frames = start
        report.statistics = sequencer.renderer.statistics
        return report
    }
}

/// Why a pattern file could not be used.
public struct PatternLoadError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// For a problem in the pattern text itself: where (`FILE:LINE:COLUMN`)
    /// and why, so that `tactus check` can print it as compilers do
    /// (`FILE:LINE:COLUMN: error: REASON`, which editors' quickfix reads).
    public var diagnostic: (location: String, reason: String)?
    public init(_ description: String) { self.description = description }
    public init(location: String, reason: String) {
        description = "\(location): \(reason)"
        diagnostic = (location, reason)
    }
}

extension OfflineRender {
    /// The names of the patterns a text plays, in text order (`main` for a
    /// text of one pattern without a `pattern` line, or no text).
    public static func patternNames(text: [UInt8]?) -> [[UInt8]] {
        guard let text, PatternParser.declaresVersion3(text), let arrangement = try? PatternParser.arrangement(bytes: text) else {
            return [NamedPattern.mainName]
        }
        return arrangement.patterns.map(\.name)
    }

    /// What a script's `request NAME` for a name the text lacks reports.
    public static func unknownRequest(_ name: String, frame: Int64, names: [[UInt8]]) -> String {
        let known = names.map { "'\(String(decoding: $0, as: UTF8.self))'" }.joined(separator: ", ")
        return "frame \(frame): request '\(name)': the text playing has no pattern of that name (its patterns: \(known))"
    }
}
