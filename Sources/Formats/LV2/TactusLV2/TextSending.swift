import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

/// The pattern text going out to an editor (docs/plugin.md, "Messages").
///
/// A text that fits one message (`wholeTextBytes`, and the notify port's
/// room) goes whole, as `patch:Set` of `urn:tactus:pattern`, as hosts'
/// generic UIs expect. A larger one goes in pieces (`tactus:textPiece`), at
/// most one a block, each at most half of the port's capacity (read at every
/// `run()`) and `largestPiece`: first one piece when the pattern changes or
/// is asked for, then the windows the editor asks for (`patch:Get` with
/// `tactus:textHash`, `tactus:textOffset`, `tactus:textWindow`), so that no
/// buffer between the plugin and its UI ever holds more than a window.
///
/// The pieces are copied from the text of the snapshot in use, which the
/// audio thread owns while it plays: when another pattern is installed, the
/// next piece finds another hash, and the window ends (the new pattern is
/// announced from its start). Nothing is ever read from a retired snapshot.
///
/// Audio thread.
struct TextSending {
    /// `TextHash` of the text being sent.
    var hash: UInt64 = 0
    /// The next byte to send, and the end of the window asked for.
    var next = 0
    var end = 0

    var isActive: Bool { next < end }

    /// A text up to this size goes whole (the smallest host buffer towards a UI, Qtractor's, holds twice as much).
    static var wholeTextBytes: Int { 32768 }
    static var largestPiece: Int { 16384 }
    static var largestWindow: Int { 65536 }
    /// Room kept for the message around a piece's bytes.
    static var pieceOverhead: Int { 160 }
}

extension Plugin {
    /// An editor asks for the text whose hash is `hash` from `offset`, at
    /// most `window` bytes; nil hash, or a text no longer in use: the one in
    /// use is announced (from its start).
    @_noLocks
    func textWanted(hash: UInt64?, offset: Int, window: Int) {
        let a = audio
        guard let pattern = a.pointee.sequencer.renderer.pattern else { return }
        guard let hash, hash == pattern.textHash, offset >= 0, offset < pattern.text.count else {
            a.pointee.sequencer.owe(.pattern)
            return
        }
        let size = min(max(window, 1024), TextSending.largestWindow)
        a.pointee.textOut = TextSending(hash: hash, next: offset, end: min(pattern.text.count, offset + size))
        a.pointee.sequencer.owe(.textPieces)
    }

    /// The pattern in use: whole when it fits one message, else its first piece.
    @_noLocks
    func announce(_ pattern: PatternSnapshot, to out: inout AtomSequenceWriter) {
        let a = audio
        let u = uris
        let text = UnsafeRawBufferPointer(pattern.text)
        if text.count <= TextSending.wholeTextBytes,
            out.appendPatchSet(
                property: u.pointee.pattern, sequenceNumber: a.pointee.installedSequence != 0 ? a.pointee.installedSequence : nil,
                valueType: u.pointee.atomString, text: text, uris: u.pointee)
        {
            a.pointee.textOut = TextSending()
            return
        }
        a.pointee.textOut = TextSending(hash: pattern.textHash, next: 0, end: min(text.count, TextSending.largestPiece))
        sendPiece(of: pattern, to: &out)
    }

    /// The next piece of the window, if any and if there is room (else it waits a block).
    @_noLocks
    func sendPiece(of pattern: PatternSnapshot, to out: inout AtomSequenceWriter) {
        let a = audio
        let u = uris
        guard a.pointee.textOut.isActive else { return }
        guard out.isConnected, a.pointee.textOut.hash == pattern.textHash else {
            a.pointee.textOut = TextSending()
            return
        }
        let next = a.pointee.textOut.next
        // (Nested: a variadic min would allocate its arguments' array.)
        let count = min(min(a.pointee.textOut.end - next, TextSending.largestPiece), min(out.bodyCapacity / 2, out.freeBytes - TextSending.pieceOverhead))
        if count > 0 {
            let text = UnsafeRawBufferPointer(pattern.text)
            let piece = UnsafeRawBufferPointer(rebasing: text[next..<(next + count)])
            if out.appendTextPiece(
                sequenceNumber: a.pointee.installedSequence, offset: next, length: text.count, hash: pattern.textHash, bytes: piece,
                uris: u.pointee)
            {
                a.pointee.textOut.next = next + count
            }
        }
        if a.pointee.textOut.isActive { a.pointee.sequencer.owe(.textPieces) }
    }
}
