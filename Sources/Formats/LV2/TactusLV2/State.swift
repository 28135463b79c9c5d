import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

extension Plugin {
    /// `save()`: the pattern text in use (or accepted last), the file it came
    /// from, and the lanes past 8 muted by `urn:tactus:laneMutes` (§7.6; an
    /// `atom:Long`, bit i for lane i + 1, stored only when one is muted, so a
    /// state without them is what it was before they were saved). Lanes 1-8
    /// are the `mute1`...`mute8` ports, which the host saves.
    func save(store: LV2_State_Store_Function, handle: LV2_State_Handle?, features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
        tactus_mutex_lock(control.pointee.mutex)
        var text = control.pointee.latestText
        let source = control.pointee.latestSource
        tactus_mutex_unlock(control.pointee.mutex)

        let flags = UInt32(LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue)
        text.append(0)
        var status = text.withUnsafeBytes {
            store(handle, uris.pointee.pattern, $0.baseAddress, $0.count, uris.pointee.atomString, flags)
        }
        if status == LV2_STATE_SUCCESS, var path = source {
            path.append(0)
            let mapPath = FeatureList(features).data(tactus_uri_state_mapPath)?.assumingMemoryBound(to: LV2_State_Map_Path.self)
            if let mapPath {
                let abstract = path.withUnsafeBufferPointer { p in
                    p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { mapPath.pointee.abstract_path(mapPath.pointee.handle, $0) }
                }
                if let abstract {
                    status = store(handle, uris.pointee.patternFile, abstract, strlen(abstract) + 1, uris.pointee.atomPath, flags)
                    let freePath = FeatureList(features).data(tactus_uri_state_freePath)?.assumingMemoryBound(to: LV2_State_Free_Path.self)
                    if let freePath { freePath.pointee.free_path(freePath.pointee.handle, abstract) } else { free(abstract) }
                }
            } else {
                status = path.withUnsafeBytes { store(handle, uris.pointee.patternFile, $0.baseAddress, $0.count, uris.pointee.atomPath, flags) }
            }
        }
        var mutes = Int64(bitPattern: shared.pointee.laneMutes.pointee.savedBits)
        if status == LV2_STATE_SUCCESS, mutes != 0 {
            status = store(handle, uris.pointee.laneMutes, &mutes, MemoryLayout<Int64>.size, uris.pointee.atomLong, flags)
        }
        return status
    }

    /// `restore()`: parses here, on the caller's thread, and hands the snapshot
    /// to the audio thread through the lock-free queue; it takes effect at the
    /// next block (§5), with the state's lanes past 8 muted (none when it has
    /// no `urn:tactus:laneMutes`), handed over through `LaneMuteRecord`. Safe
    /// while `run()` runs (state:threadSafeRestore). A state refused changes
    /// neither the pattern nor the mutes.
    func restore(retrieve: LV2_State_Retrieve_Function, handle: LV2_State_Handle?, features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) -> LV2_State_Status {
        if !shared.pointee.reclaimInWorker { reclaim() }
        var size = 0
        var type: UInt32 = 0
        var flags: UInt32 = 0
        var path: [UInt8]? = nil
        if let value = retrieve(handle, uris.pointee.patternFile, &size, &type, &flags), type == uris.pointee.atomPath || type == uris.pointee.atomString {
            var bytes = Array(UnsafeRawBufferPointer(start: value, count: size))
            while bytes.last == 0 { bytes.removeLast() }
            let mapPath = FeatureList(features).data(tactus_uri_state_mapPath)?.assumingMemoryBound(to: LV2_State_Map_Path.self)
            if let mapPath, !bytes.isEmpty {
                var zeroTerminated = bytes.map { CChar(bitPattern: $0) }
                zeroTerminated.append(0)
                if let absolute = mapPath.pointee.absolute_path(mapPath.pointee.handle, zeroTerminated) {
                    bytes = Array(UnsafeRawBufferPointer(start: absolute, count: strlen(absolute)))
                    let freePath = FeatureList(features).data(tactus_uri_state_freePath)?.assumingMemoryBound(to: LV2_State_Free_Path.self)
                    if let freePath { freePath.pointee.free_path(freePath.pointee.handle, absolute) } else { free(absolute) }
                }
            }
            path = bytes.isEmpty ? nil : bytes
        }

        // §7.6: the lanes past 8 muted; another type is refused before anything changes.
        var mutes: UInt64 = 0
        if let value = retrieve(handle, uris.pointee.laneMutes, &size, &type, &flags) {
            if type == uris.pointee.atomLong, size == MemoryLayout<Int64>.size {
                mutes = UInt64(bitPattern: value.loadUnaligned(as: Int64.self))
            } else if type == uris.pointee.atomInt, size == MemoryLayout<Int32>.size {
                mutes = UInt64(UInt32(bitPattern: value.loadUnaligned(as: Int32.self)))
            } else {
                log(uris.pointee.logError, "state rejected, the pattern in use stays: urn:tactus:laneMutes is not an atom:Long")
                return LV2_STATE_ERR_BAD_TYPE
            }
        }

        let result: PatternLoading.Result
        if let value = retrieve(handle, uris.pointee.pattern, &size, &type, &flags) {
            guard type == uris.pointee.atomString || type == uris.pointee.atomChunk else {
                log(uris.pointee.logError, "state rejected, the pattern in use stays: urn:tactus:pattern is not an atom:String")
                return LV2_STATE_ERR_BAD_TYPE
            }
            var bytes = Array(UnsafeRawBufferPointer(start: value, count: size))
            while bytes.last == 0 { bytes.removeLast() }
            result = PatternLoading.fromText(bytes, source: path, origin: "saved state: ")
        } else if let path {
            result = PatternLoading.fromFile(path: path)
        } else {
            // Nothing of ours in this state but the mutes, if any: keep the pattern.
            if mutes != 0 { shared.pointee.laneMutes.pointee.restore(mutes) }
            return LV2_STATE_SUCCESS
        }
        switch result {
        case .rejected(let message):
            log(uris.pointee.logError, message)
            return LV2_STATE_ERR_UNKNOWN
        case .loaded(let snapshot):
            guard shared.pointee.exchange.pointee.offer(snapshot) else {
                snapshot.destroy()
                log(uris.pointee.logError, PatternLoading.busyMessage)
                return LV2_STATE_ERR_NO_SPACE
            }
            accept(snapshot)
            shared.pointee.laneMutes.pointee.restore(mutes)
            return LV2_STATE_SUCCESS
        }
    }
}

/// The host's feature list, searched by URI.
struct FeatureList {
    let features: UnsafePointer<UnsafePointer<LV2_Feature>?>?

    init(_ features: UnsafePointer<UnsafePointer<LV2_Feature>?>?) { self.features = features }

    func data(_ uri: UnsafePointer<CChar>) -> UnsafeMutableRawPointer? {
        guard var f = features else { return nil }
        while let feature = f.pointee {
            if strcmp(feature.pointee.URI, uri) == 0 { return feature.pointee.data }
            f += 1
        }
        return nil
    }
}
