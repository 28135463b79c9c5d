import CLV2
import Synchronization

/// A host's `urid:map` and `urid:unmap`: URIs numbered from 1 in the order
/// first seen, the same numbers for the life of the map.
///
/// Thread-safe (a mutex): a plugin may map from any thread. The feature
/// structures live at stable addresses until the map is released.
public final class URIDMap: @unchecked Sendable {
    private struct Table {
        var ids: [String: LV2_URID] = [:]
        var uris: [String] = [""]
        /// C strings handed out by `unmap`, kept for the map's life.
        var cStrings: [LV2_URID: UnsafeMutablePointer<CChar>] = [:]
    }

    private let table = Mutex(Table())
    /// Feature data for `urid:map`.
    public let map = UnsafeMutablePointer<LV2_URID_Map>.allocate(capacity: 1)
    /// Feature data for `urid:unmap`.
    public let unmap = UnsafeMutablePointer<LV2_URID_Unmap>.allocate(capacity: 1)

    public init() {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        map.initialize(to: LV2_URID_Map(handle: handle, map: { handle, uri in
            guard let handle, let uri else { return 0 }
            return Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().id(String(cString: uri))
        }))
        unmap.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, id in
            guard let handle else { return nil }
            return UnsafePointer(Unmanaged<URIDMap>.fromOpaque(handle).takeUnretainedValue().cString(id))
        }))
    }

    deinit {
        table.withLock { t in
            for p in t.cStrings.values { p.deallocate() }
        }
        map.deallocate()
        unmap.deallocate()
    }

    /// The number of `uri`, assigned on first use.
    public func id(_ uri: String) -> LV2_URID {
        table.withLock { t in
            if let id = t.ids[uri] { return id }
            let id = LV2_URID(t.uris.count)
            t.uris.append(uri)
            t.ids[uri] = id
            return id
        }
    }

    /// The URI numbered `id`, or nil for a number never handed out.
    public func uri(_ id: LV2_URID) -> String? {
        table.withLock { t in id > 0 && Int(id) < t.uris.count ? t.uris[Int(id)] : nil }
    }

    /// How many URIs have numbers (the largest number handed out).
    public var count: Int { table.withLock { $0.uris.count - 1 } }

    private func cString(_ id: LV2_URID) -> UnsafeMutablePointer<CChar>? {
        table.withLock { t in
            if let p = t.cStrings[id] { return p }
            guard id > 0, Int(id) < t.uris.count else { return nil }
            let bytes = Array(t.uris[Int(id)].utf8CString)
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
            p.initialize(from: bytes, count: bytes.count)
            t.cStrings[id] = p
            return p
        }
    }
}
