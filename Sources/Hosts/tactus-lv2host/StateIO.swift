import CLilv
import LV2HostKit
import Foundation
import TactusModel
import TactusOffline

extension PluginHost {
    /// Restores a state holding just this pattern text (the way a host loads a
    /// session), through the plugin's state interface.
    func restorePattern(_ text: [UInt8]) throws {
        try restore([(map.id("urn:tactus:pattern"), map.id("http://lv2plug.in/ns/ext/atom#String"), text + [0])])
    }

    /// Restores the given properties (key, type, value) through `restore()`.
    func restore(_ properties: [(key: LV2_URID, type: LV2_URID, value: [UInt8])]) throws {
        guard let iface = stateInterface else { throw HostError(description: "the plugin has no state interface") }
        final class Box { var items: [(LV2_URID, LV2_URID, [UInt8])] = [] }
        let box = Box()
        box.items = properties.map { ($0.key, $0.type, $0.value) }
        let retrieve: LV2_State_Retrieve_Function = { handle, key, size, type, flags in
            let box = Unmanaged<Box>.fromOpaque(handle!).takeUnretainedValue()
            guard let i = box.items.firstIndex(where: { $0.0 == key }) else { return nil }
            size?.pointee = box.items[i].2.count
            type?.pointee = box.items[i].1
            flags?.pointee = UInt32(LV2_STATE_IS_POD.rawValue | LV2_STATE_IS_PORTABLE.rawValue)
            return box.items[i].2.withUnsafeBytes { $0.baseAddress }
        }
        let status = withExtendedLifetime(box) {
            iface.pointee.restore?(handle, retrieve, Unmanaged.passUnretained(box).toOpaque(), 0, features.list)
        }
        if status != LV2_STATE_SUCCESS { throw HostError(description: "the plugin rejected the state (status \(status?.rawValue ?? 99))") }
    }

    /// Saves the plugin's state as LV2 state Turtle in `directory` (`state.ttl`), as hosts do.
    func saveState(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard let state = lilv_state_new_from_instance(
            plugin, instance, map.map, nil, directory, directory, directory, nil, nil, 0, features.list)
        else { throw HostError(description: "could not save the plugin's state") }
        defer { lilv_state_free(state) }
        // No URI: the state's subject is the file itself, as jalv writes it, so `jalv -l` loads it too.
        let result = lilv_state_save(world, map.map, map.unmap, state, nil, directory, "state.ttl")
        if result != 0 { throw HostError(description: "could not write the state to \(directory)") }
    }

    /// The names of the patterns of the text the plugin holds, in text order (`main` for a text of one pattern).
    func patternNames() throws -> [[UInt8]] {
        OfflineRender.patternNames(text: try savedPattern())
    }

    /// The pattern text the plugin's `save()` stores (`urn:tactus:pattern`), as it stores it.
    func savedPattern() throws -> [UInt8] {
        guard let iface = stateInterface else { throw HostError(description: "the plugin has no state interface") }
        guard let pattern = SavedProperty.bytes(map.id("urn:tactus:pattern"), interface: iface, handle: handle, features: features.list)
        else { throw HostError(description: "the plugin saved no pattern") }
        return pattern
    }

    /// Restores LV2 state Turtle written by `saveState(to:)`.
    func restoreState(from directory: String) throws {
        let path = (directory as NSString).appendingPathComponent("state.ttl")
        let subject = lilv_new_file_uri(world, nil, path)
        defer { lilv_node_free(subject) }
        guard let state = lilv_state_new_from_file(world, map.map, subject, path) else {
            throw HostError(description: "could not read a state from \(path)")
        }
        defer { lilv_state_free(state) }
        lilv_state_restore(state, instance, nil, nil, 0, features.list)
    }
}
