import CLV2
import Glibc

/// A plugin state as a host keeps it: properties (key, value bytes, value
/// type, flags) that `save()` stores and `restore()` retrieves.
///
/// Any property can be put in by hand, with any type and any bytes, so that
/// tests and fuzzers can restore states no `save()` would write. The bytes a
/// retrieve hands out stay valid until the store is released or changed.
public final class StateStore: @unchecked Sendable {
    public struct Property: Sendable {
        public var value: [UInt8]
        public var type: LV2_URID
        public var flags: UInt32

        public init(value: [UInt8], type: LV2_URID, flags: UInt32 = 0) {
            self.value = value
            self.type = type
            self.flags = flags
        }
    }

    public private(set) var properties: [LV2_URID: Property] = [:]
    /// Calls to `store` the plugin made, in order (a key stored twice appears twice).
    public private(set) var storedKeys: [LV2_URID] = []
    /// Copies handed out by `retrieve` (freed with the store).
    private var retrieved: [UnsafeMutableRawPointer] = []

    public init() {}

    deinit { for p in retrieved { p.deallocate() } }

    public subscript(key: LV2_URID) -> Property? {
        get { properties[key] }
        set { properties[key] = newValue }
    }

    /// `LV2_State_Store_Function`, with the store as its handle.
    public static let store: LV2_State_Store_Function = { handle, key, value, size, type, flags in
        guard let handle else { return LV2_STATE_ERR_UNKNOWN }
        let store = Unmanaged<StateStore>.fromOpaque(handle).takeUnretainedValue()
        let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
        store.properties[key] = Property(value: bytes, type: type, flags: flags)
        store.storedKeys.append(key)
        return LV2_STATE_SUCCESS
    }

    /// `LV2_State_Retrieve_Function`, with the store as its handle. Each value
    /// is handed out as a fresh 8-aligned copy of exactly its bytes, so that a
    /// read past the end is caught by the address sanitizer.
    public static let retrieve: LV2_State_Retrieve_Function = { handle, key, size, type, flags in
        guard let handle else { return nil }
        let store = Unmanaged<StateStore>.fromOpaque(handle).takeUnretainedValue()
        guard let p = store.properties[key] else { return nil }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(p.value.count, 1), alignment: 8)
        p.value.withUnsafeBytes { if let b = $0.baseAddress, p.value.count > 0 { copy.copyMemory(from: b, byteCount: p.value.count) } }
        store.retrieved.append(copy)
        size?.pointee = p.value.count
        type?.pointee = p.type
        flags?.pointee = p.flags
        return UnsafeRawPointer(copy)
    }

    public var handle: LV2_State_Handle { Unmanaged.passUnretained(self).toOpaque() }
}

/// `state:mapPath` and `state:freePath` for save and restore: paths pass
/// unchanged (as a host that stores absolute paths does), or, when
/// `absolutePathFails` is set, `absolute_path` returns NULL as a host that
/// cannot resolve a path does. The strings returned are malloc'd; the plugin
/// frees them with `free_path` (when offered) or `free`.
public final class PathMapping: @unchecked Sendable {
    public var absolutePathFails = false
    public let mapPath = UnsafeMutablePointer<LV2_State_Map_Path>.allocate(capacity: 1)
    public let freePath = UnsafeMutablePointer<LV2_State_Free_Path>.allocate(capacity: 1)

    public init() {
        let handle = Unmanaged.passUnretained(self).toOpaque()
        mapPath.initialize(to: LV2_State_Map_Path(
            handle: handle,
            abstract_path: { _, path in path.flatMap { strdup($0) } },
            absolute_path: { handle, path in
                guard let handle, let path else { return nil }
                if Unmanaged<PathMapping>.fromOpaque(handle).takeUnretainedValue().absolutePathFails { return nil }
                return strdup(path)
            }))
        freePath.initialize(to: LV2_State_Free_Path(handle: handle, free_path: { _, path in free(path) }))
    }

    deinit {
        mapPath.deallocate()
        freePath.deallocate()
    }
}
