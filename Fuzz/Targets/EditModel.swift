import CLV2
import LV2Atoms
import TactusEngine
import TactusInProcessHost
import TactusModel

/// What the plugin must make of pattern edits (`docs/plugin.md`, "What
/// happens to an edit"): the pattern in use, the error text a person sees,
/// and when `state:StateChanged` is due, predicted from the edits alone.
///
/// A prediction needs a host whose worker always has room (the fuzzer knows
/// when it offered one); with no worker, every edit must be refused with the
/// same message and the pattern must stay.
struct EditModel {
    /// The text of the pattern in use (as `patch:Get` and `save()` report it).
    private(set) var inUse: [UInt8]
    /// The error text the plugin holds (what `patch:Get` of `urn:tactus:error`
    /// answers): exact, or only its beginning when it ends with the system's
    /// words for a file that could not be read.
    private(set) var error: (text: [UInt8], prefixOnly: Bool)? = ([], false)
    /// Outcomes of the last block's edits, delivered before the next block.
    private var results: [Result] = []
    /// Due on the notify port of the current block.
    private(set) var expectsStateChanged = false
    private(set) var expectsError = false
    /// Whether the inbox's buffer went to the worker in this block: a second text,
    /// change or path in the block is refused (the synchronous worker gives the
    /// buffer back before the next block).
    private var inboxAway = false

    enum Result {
        case accepted([UInt8])
        case rejected(String, prefixOnly: Bool = false)
    }

    let hasWorker: Bool

    init(initialText: [UInt8], hasWorker: Bool) {
        inUse = initialText
        self.hasWorker = hasWorker
    }

    /// The start of a block: the previous block's results arrive (`work_response`)
    /// and an accepted pattern is installed.
    mutating func beginBlock() {
        expectsStateChanged = false
        expectsError = false
        inboxAway = false
        for r in results {
            switch r {
            case .accepted(let text):
                inUse = text
                expectsStateChanged = true
                // An accepted pattern clears the error a person sees (an empty one is sent).
                if let held = error, !held.text.isEmpty || held.prefixOnly {
                    error = ([], false)
                    expectsError = true
                }
            case .rejected(let message, let prefixOnly):
                error = (Array(message.utf8), prefixOnly)
                expectsError = true
            }
        }
        results = []
    }

    /// A `patch:Set` the plugin read in this block.
    mutating func patchSet(property: LV2_URID?, value: (type: LV2_URID, bytes: [UInt8])?, uris: URIDTable) {
        guard let property else { return }
        if property == uris.pattern {
            guard let value, value.type == uris.atomString || value.type == uris.atomChunk else {
                refuse("pattern edit rejected: urn:tactus:pattern takes an atom:String with the pattern text")
                return
            }
            request(EditModel.stripped(value.bytes)) { text in
                do throws(PatternError) {
                    _ = try PatternParser.parse(bytes: text)
                    return .accepted(text)
                } catch {
                    return .rejected("pattern rejected, the pattern in use stays: \(error.message)")
                }
            }
        } else if property == uris.patternFile {
            guard let value, value.type == uris.atomPath || value.type == uris.atomString, !EditModel.stripped(value.bytes).isEmpty else {
                refuse("pattern file rejected: urn:tactus:patternFile takes an atom:Path to a file")
                return
            }
            request(EditModel.stripped(value.bytes)) { path in EditModel.loadFile(path) }
        }
    }

    /// A text or path for the worker, through the plugin's inbox (which the
    /// worker has room for), or the refusal a host without a worker gets, a
    /// second one in a block, or one larger than the inbox.
    private mutating func request(_ payload: [UInt8], outcome: ([UInt8]) -> Result) {
        guard hasWorker else {
            refuse("this host provides no worker (work:schedule), so the pattern cannot be changed while running")
            return
        }
        guard !inboxAway else {
            refuse("pattern edit rejected: the plugin is still reading the previous edit; send it again")
            return
        }
        guard payload.count <= 1 << 16 else {
            refuse("pattern edit rejected: \(payload.count) bytes is more than a pattern message may hold; use the pattern file parameter")
            return
        }
        inboxAway = true
        results.append(outcome(payload))
    }

    /// An error `run()` reports itself, in this block.
    private mutating func refuse(_ message: String) {
        error = (Array(message.utf8), false)
        expectsError = true
    }

    /// Whether `text` is the error the plugin must hold.
    func isExpectedError(_ text: [UInt8]) -> Bool {
        guard let error else { return false }
        return error.prefixOnly ? text.starts(with: error.text) && text.count > error.text.count : text == error.text
    }

    /// A `patch:Get` of `urn:tactus:error` re-sends the error held.
    mutating func errorRequested() {
        if error != nil { expectsError = true }
    }

    /// The bytes of a string-like body without its terminating NULs (as the plugin reads it).
    static func stripped(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        while b.last == 0 { b.removeLast() }
        return b
    }

    /// What loading a pattern file gives.
    static func loadFile(_ path: [UInt8]) -> Result {
        let name = QuotedText.quotedTail(path)
        let cPath = path.prefix { $0 != 0 }
        guard let bytes = FuzzFixtures.contents(String(decoding: cPath, as: UTF8.self)) else {
            return .rejected("pattern file rejected, the pattern in use stays: \(name): ", prefixOnly: true)
        }
        if MIDIFileReader.looksLikeMIDIFile(bytes) {
            // A Standard MIDI File is imported with the defaults (docs/midi-files.md M10-M15).
            do throws(MIDIFileError) {
                let file = try MIDIFileReader().read(bytes)
                do throws(MIDIImportError) {
                    return .accepted(Array(try MIDIFileImport.importPattern(file, options: MIDIImportOptions(track: file.format == 2 ? 1 : nil)).text.utf8))
                } catch {
                    return .rejected("pattern file rejected, the pattern in use stays: \(name): \(error.message)")
                }
            } catch {
                return .rejected("pattern file rejected, the pattern in use stays: \(name): \(error.message)")
            }
        }
        do {
            _ = try PatternParser.parse(bytes: bytes)
            return .accepted(bytes)
        } catch {
            return .rejected("pattern rejected, the pattern in use stays: \(name): \(error.message)")
        }
    }
}
