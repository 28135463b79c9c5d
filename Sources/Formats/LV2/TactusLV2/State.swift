import CLV2
import LV2Atoms
import TactusEngine
import TactusModel

extension Plugin {
    /// `save()`: the pattern text in use (or accepted last), and the file it came from.
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
        return status
    }

    /// `restore()`: parses here, on the caller's thread, and hands the snapshot
    /// to the audio thread through the lock-free queue; it takes effect at the
    /// next block (§5). Safe while `run()` runs (state:threadSafeRestore).
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
            return LV2_STATE_SUCCESS  // Nothing of ours in this state: keep the pattern.
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
