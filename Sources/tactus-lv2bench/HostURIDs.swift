import CLilv
import LV2HostKit

/// The URIDs the bench host itself uses, mapped once.
struct HostURIDs {
    let atomSequence, atomChunk, atomObject, atomInt, atomLong, atomFloat, atomPath, atomURID: LV2_URID
    let midiEvent, timePosition, patchSet, patchProperty, patchValue: LV2_URID
    private let timeKeys: [TimeKey: LV2_URID]

    init(_ map: URIDMap) {
        let atom = "http://lv2plug.in/ns/ext/atom#"
        atomSequence = map.id(atom + "Sequence")
        atomChunk = map.id(atom + "Chunk")
        atomObject = map.id(atom + "Object")
        atomInt = map.id(atom + "Int")
        atomLong = map.id(atom + "Long")
        atomFloat = map.id(atom + "Float")
        atomPath = map.id(atom + "Path")
        atomURID = map.id(atom + "URID")
        midiEvent = map.id("http://lv2plug.in/ns/ext/midi#MidiEvent")
        timePosition = map.id("http://lv2plug.in/ns/ext/time#Position")
        patchSet = map.id("http://lv2plug.in/ns/ext/patch#Set")
        patchProperty = map.id("http://lv2plug.in/ns/ext/patch#property")
        patchValue = map.id("http://lv2plug.in/ns/ext/patch#value")
        var keys: [TimeKey: LV2_URID] = [:]
        for key in TimeKey.allCases { keys[key] = map.id(key.uri) }
        timeKeys = keys
    }

    func time(_ key: TimeKey) -> LV2_URID { timeKeys[key]! }
}
