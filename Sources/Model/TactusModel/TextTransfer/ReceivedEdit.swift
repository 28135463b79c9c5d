import TactusEngine

/// An editor's edit as a plugin holds it whole (docs/plugin.md, "Messages"):
/// a whole text or a `PatternChange`, with the `TextHash` its pieces named
/// (0 when it came in one message). `text(on:)` gives the pattern text the
/// edit makes, or the reason a person reads why it is refused, the same
/// for every format (the LV2 plugin's worker, the CLAP plugin's main
/// thread). Off the audio thread; allocates; O(text length).
public struct ReceivedEdit: Sendable {
    public enum Kind: Sendable {
        /// The whole text (`urn:tactus:pattern`).
        case text
        /// A change to the text in use (`urn:tactus:patternChange`).
        case change
    }

    public var kind: Kind
    public var payload: [UInt8]
    /// `TextHash` of the payload as its pieces named it; 0 for a payload that came in one message.
    public var hash: UInt64

    public init(kind: Kind, payload: [UInt8], hash: UInt64 = 0) {
        self.kind = kind
        self.payload = payload
        self.hash = hash
    }

    public enum Outcome: Sendable {
        /// The pattern text the edit makes (not yet parsed).
        case text([UInt8])
        case refused(String)
    }

    /// The text this edit makes on `base`, the text in use (a change applies
    /// only to the text it was made on).
    public func text(on base: [UInt8]) -> Outcome {
        if hash != 0, TextHash.of(payload) != hash {
            return .refused("pattern edit rejected, the pattern in use stays: its pieces did not make the text they named")
        }
        guard kind == .change else { return .text(payload) }
        let change: PatternChange
        switch PatternChange.decode(payload) {
        case .success(let c): change = c
        case .failure(let f): return .refused("pattern edit rejected, the pattern in use stays: \(f.message)")
        }
        guard base.count == change.baseLength, TextHash.of(base) == change.baseHash else {
            return .refused("pattern edit rejected, the pattern in use stays: the edit was made on a pattern the plugin no longer plays")
        }
        switch change.apply(to: base) {
        case .success(let text): return .text(text)
        case .failure(let f): return .refused("pattern edit rejected, the pattern in use stays: \(f.message)")
        }
    }
}
