import CLV2
import Synchronization

/// A host's `urid:map` and `urid:unmap`: URIs numbered from 1 in the order
/// first seen, the same numbers for the life of the map.
///
/// Thread-safe (a mutex): a plugin may map from any thread. The feature
/// structures live at stable addresses until the map is released.
public final class HostURIDMap: @unchecked Sendable {
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
            return Unmanaged<HostURIDMap>.fromOpaque(handle).takeUnretainedValue().id(String(cString: uri))
        }))
        unmap.initialize(to: LV2_URID_Unmap(handle: handle, unmap: { handle, id in
            guard let handle else { return nil }
            return UnsafePointer(Unmanaged<HostURIDMap>.fromOpaque(handle).takeUnretainedValue().cString(id))
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

/// The URIs the in-process host and its users speak, mapped once.
public struct HostURIs: Sendable {
    public let atomSequence, atomObject, atomBlank, atomChunk, atomString, atomPath, atomURID: LV2_URID
    public let atomInt, atomLong, atomFloat, atomDouble, atomBool: LV2_URID
    public let midiEvent: LV2_URID
    public let timePosition, timeFrame, timeSpeed, timeBar, timeBarBeat, timeBeat: LV2_URID
    public let timeBeatsPerBar, timeBeatsPerMinute, timeBeatUnit: LV2_URID
    public let patchSet, patchGet, patchProperty, patchValue: LV2_URID
    public let stateChanged: LV2_URID
    public let pattern, patternFile, error, droppedNoteOns: LV2_URID

    public init(_ map: HostURIDMap) {
        let atom = "http://lv2plug.in/ns/ext/atom#"
        let time = "http://lv2plug.in/ns/ext/time#"
        let patch = "http://lv2plug.in/ns/ext/patch#"
        atomSequence = map.id(atom + "Sequence")
        atomObject = map.id(atom + "Object")
        atomBlank = map.id(atom + "Blank")
        atomChunk = map.id(atom + "Chunk")
        atomString = map.id(atom + "String")
        atomPath = map.id(atom + "Path")
        atomURID = map.id(atom + "URID")
        atomInt = map.id(atom + "Int")
        atomLong = map.id(atom + "Long")
        atomFloat = map.id(atom + "Float")
        atomDouble = map.id(atom + "Double")
        atomBool = map.id(atom + "Bool")
        midiEvent = map.id("http://lv2plug.in/ns/ext/midi#MidiEvent")
        timePosition = map.id(time + "Position")
        timeFrame = map.id(time + "frame")
        timeSpeed = map.id(time + "speed")
        timeBar = map.id(time + "bar")
        timeBarBeat = map.id(time + "barBeat")
        timeBeat = map.id(time + "beat")
        timeBeatsPerBar = map.id(time + "beatsPerBar")
        timeBeatsPerMinute = map.id(time + "beatsPerMinute")
        timeBeatUnit = map.id(time + "beatUnit")
        patchSet = map.id(patch + "Set")
        patchGet = map.id(patch + "Get")
        patchProperty = map.id(patch + "property")
        patchValue = map.id(patch + "value")
        stateChanged = map.id("http://lv2plug.in/ns/ext/state#StateChanged")
        pattern = map.id("urn:tactus:pattern")
        patternFile = map.id("urn:tactus:patternFile")
        error = map.id("urn:tactus:error")
        droppedNoteOns = map.id("urn:tactus:droppedNoteOns")
    }
}
