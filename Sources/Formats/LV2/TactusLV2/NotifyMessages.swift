import CLV2
import LV2Atoms
import TactusEngine

/// The messages the plugin writes into its notify port more than once, at
/// the block's first frame (the codec's `AtomObjectWriter` writes their
/// properties; docs/plugin.md, "Messages"). Each is appended whole or not at
/// all: false when the port has no room for it. Audio thread.
extension AtomSequenceWriter {
    /// `patch:Set` of `property` to a string-like value, numbered when `sequenceNumber` is given.
    @_noLocks
    mutating func appendPatchSet(
        property: LV2_URID, sequenceNumber: Int32?, valueType: LV2_URID, text: UnsafeRawBufferPointer, uris: URIDTable
    ) -> Bool {
        guard var object = beginObject(otype: uris.patchSet) else { return false }
        object.addPatchSet(property: property, sequenceNumber: sequenceNumber, valueType: valueType, text: text, uris: uris)
        return endObject(object, frames: 0, objectType: uris.atomObject)
    }

    /// `tactus:textPiece`: bytes of the pattern text in use (`TextSending`).
    @_noLocks
    mutating func appendTextPiece(
        sequenceNumber: Int32, offset: Int, length: Int, hash: UInt64, bytes: UnsafeRawBufferPointer, uris: URIDTable
    ) -> Bool {
        guard var object = beginObject(otype: uris.textPiece) else { return false }
        object.addTextPiece(
            property: uris.pattern, sequenceNumber: sequenceNumber, offset: offset, length: length, hash: hash, bytes: bytes, uris: uris)
        return endObject(object, frames: 0, objectType: uris.atomObject)
    }

    /// `tactus:textReceipt`: of the editor's edit `sequenceNumber`, the first `offset` bytes arrived.
    @_noLocks
    mutating func appendReceipt(sequenceNumber: Int32, offset: Int, uris: URIDTable) -> Bool {
        guard var object = beginObject(otype: uris.textReceipt) else { return false }
        object.addTextReceipt(sequenceNumber: sequenceNumber, offset: offset, uris: uris)
        return endObject(object, frames: 0, objectType: uris.atomObject)
    }

    /// `patch:Set` of `property` to an `atom:Long` (`tactus:ignoredRequests`).
    @_noLocks
    mutating func appendPatchSet(property: LV2_URID, long value: Int64, uris: URIDTable) -> Bool {
        guard var object = beginObject(otype: uris.patchSet) else { return false }
        object.addPatchSet(property: property, long: value, uris: uris)
        return endObject(object, frames: 0, objectType: uris.atomObject)
    }

    /// `urn:tactus:scene`: what plays and from where, what waits, the song entry (§9.9).
    @_noLocks
    mutating func appendScene(_ scene: SceneReport, uris: URIDTable) -> Bool {
        guard var object = beginObject(otype: uris.scene) else { return false }
        object.addScene(
            playing: Int32(clamping: scene.playing), queued: Int32(clamping: scene.queued),
            switchBeat: scene.queued > 0 ? scene.switchBeat.approximateValue : nil, songEntry: Int32(clamping: scene.songEntry),
            origin: scene.origin.approximateValue, uris: uris)
        return endObject(object, frames: 0, objectType: uris.atomObject)
    }
}
