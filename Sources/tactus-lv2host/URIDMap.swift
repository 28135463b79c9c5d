import CLilv

/// The host's urid:map and urid:unmap: URIs numbered from 1 in the order first seen.
///
/// Used only outside `run()` (instantiate, state), so a dictionary is fine.
final class URIDMap {
    private var ids: [String: LV2_URID] = [:]
    private var uris: [String] = [""]
    /// C strings handed to the plugin by `unmap`, kept alive for the instance's life.
    private var unmapped: [LV2_URID: UnsafeMutablePointer<CChar>] = [:]

    /// Feature data, at stable addresses for the plugin's life.
    let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
    let unmap = UnsafeMutablePointer<LV2_URID_Unmap>.allocate(capacity: 1)

    init() {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        map.initialize(to: LV2_URID_Map())
        unmap.initialize(to: LV2_URID_Unmap())
        map.pointee.handle = handle
        map.pointee.map = { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().id(String(cString: uri))
        }
        unmap.pointee.handle = handle
        unmap.pointee.unmap = { handle, urid in
            guard let handle else { return nil }
            return UnsafePointer(Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().cString(urid))
        }
    }

    deinit {
        for p in unmapped.values { p.deallocate() }
        map.deallocate()
        unmap.deallocate()
    }

    func id(_ uri: String) -> LV2_URID {
        if let id = ids[uri] { return id }
        let id = LV2_URID(uris.count)
        uris.append(uri)
        ids[uri] = id
        return id
    }

    func uri(_ id: LV2_URID) -> String? {
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
