import CLilv

/// A host's `urid:map` and `urid:unmap`: URIs numbered from 1 in the order
/// first seen, shared by every plugin instance the host runs.
///
/// Thread: the host's main thread only. Plugins map URIs when they are
/// instantiated or restore state, never in `run()`, so a dictionary is fine.
/// The C strings `unmap` hands out live as long as the map.
public final class URIDMap {
    private var ids: [String: LV2_URID] = [:]
    private var uris: [String] = [""]
    /// C strings handed to plugins by `unmap`, made on first request.
    private var unmapped: [LV2_URID: UnsafeMutablePointer<CChar>] = [:]

    /// The feature data, at stable addresses for the plugins' lives.
    public let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
    public let unmap = UnsafeMutablePointer<LV2_URID_Unmap>.allocate(capacity: 1)

    public init() {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        map.initialize(to: LV2_URID_Map(handle: handle, map: { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().id(String(cString: uri))
        }))
        unmap.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, urid in
            guard let handle else { return nil }
            return UnsafePointer(Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().cString(urid))
        }))
    }

    deinit {
        for p in unmapped.values { p.deallocate() }
        map.deallocate()
        unmap.deallocate()
    }

    /// The URID of `uri`, numbering it when it is new.
    public func id(_ uri: String) -> LV2_URID {
        if let id = ids[uri] { return id }
        let id = LV2_URID(uris.count)
        uris.append(uri)
        ids[uri] = id
        return id
    }

    /// The URI of `id`, or nil when it was never handed out.
    public func uri(_ id: LV2_URID) -> String? {
        Int(id) < uris.count && id > 0 ? uris[Int(id)] : nil
    }

    private func cString(_ id: LV2_URID) -> UnsafeMutablePointer<CChar>? {
        if let p = unmapped[id] { return p }
        guard let uri = uri(id) else { return nil }
        let bytes = Array(uri.utf8CString)
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
        p.initialize(from: bytes, count: bytes.count)
        unmapped[id] = p
        return p
    }
}
