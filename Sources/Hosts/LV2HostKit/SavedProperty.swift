import CLV2

/// One property of what a plugin's `save()` stores, read the way a host
/// saves a session (LV2 state), without writing a file: the bytes the
/// plugin hands to the store function for `key`, trailing NULs removed.
///
/// Not realtime (the store callback copies); call it between `run()`s, as
/// hosts call `save()`. O(size of the state).
public enum SavedProperty {
    public static func bytes(
        _ key: LV2_URID, interface: UnsafePointer<LV2_State_Interface>, handle: LV2_Handle,
        features: UnsafePointer<UnsafePointer<LV2_Feature>?>?
    ) -> [UInt8]? {
        final class Box {
            var value: [UInt8]?
            let key: LV2_URID
            init(key: LV2_URID) { self.key = key }
        }
        let box = Box(key: key)
        let store: LV2_State_Store_Function = { handle, key, value, size, _, _ in
            let box = Unmanaged<Box>.fromOpaque(handle!).takeUnretainedValue()
            if key == box.key, let value {
                var bytes = Array(UnsafeRawBufferPointer(start: value, count: size))
                while bytes.last == 0 { bytes.removeLast() }
                box.value = bytes
            }
            return LV2_STATE_SUCCESS
        }
        _ = withExtendedLifetime(box) {
            interface.pointee.save?(handle, store, Unmanaged.passUnretained(box).toOpaque(), 0, features)
        }
        return box.value
    }
}
