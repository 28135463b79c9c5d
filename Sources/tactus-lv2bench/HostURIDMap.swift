import CLilv
import Glibc

/// The bench host's `urid:map` and `urid:unmap`, shared by every plugin it
/// runs: URIs numbered from 1 in the order first seen.
///
/// Plugins map URIs when they are instantiated, not in `run()`, so a
/// dictionary is fine; the C strings `unmap` hands out live as long as the map.
final class HostURIDMap {
    private var ids: [String: LV2_URID] = [:]
    private var uris: [UnsafeMutablePointer<CChar>?] = [nil]

    /// Feature data, at stable addresses for the plugins' lives.
    let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
    let unmap = UnsafeMutablePointer<LV2_URID_Unmap>.allocate(capacity: 1)

    init() {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        map.initialize(to: LV2_URID_Map(handle: handle, map: { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<HostURIDMap>.fromOpaque(handle).takeUnretainedValue().id(String(cString: uri))
        }))
        unmap.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, urid in
            guard let handle else { return nil }
            let table = Unmanaged<HostURIDMap>.fromOpaque(handle).takeUnretainedValue()
            return Int(urid) < table.uris.count ? UnsafePointer(table.uris[Int(urid)]) : nil
        }))
    }

    deinit {
        for p in uris { free(p) }
        map.deallocate()
        unmap.deallocate()
    }

    func id(_ uri: String) -> LV2_URID {
        if let id = ids[uri] { return id }
        let id = LV2_URID(uris.count)
        uris.append(strdup(uri))
        ids[uri] = id
        return id
    }
}
