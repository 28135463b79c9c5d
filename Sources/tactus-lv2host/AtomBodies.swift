import TactusOffline
import LV2HostKit

/// Builds atom bodies the way a host's forge would.
struct AtomBodies {
    let map: URIDMap

    /// An `atom:Object` body: id 0, the type, then each property (key, value type, value bytes).
    func object(type: String, properties: [(key: String, type: String, value: [UInt8])]) -> [UInt8] {
        var out = le(UInt32(0)) + le(map.id(type))
        for p in properties {
            out += le(map.id(p.key)) + le(UInt32(0)) + le(UInt32(p.value.count)) + le(map.id(p.type)) + p.value
            while out.count % 8 != 0 { out.append(0) }
        }
        return out
    }

    /// A `time:Position` object from a script's wire values.
    func position(_ p: HostPosition) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/time#Position", properties: p.fields.map { field in
            let key = "http://lv2plug.in/ns/ext/time#" + field.key.rawValue
            switch field.value {
            case .int(let v): return (key, "http://lv2plug.in/ns/ext/atom#Int", le(UInt32(bitPattern: v)))
            case .long(let v): return (key, "http://lv2plug.in/ns/ext/atom#Long", le(UInt64(bitPattern: v)))
            case .float(let v): return (key, "http://lv2plug.in/ns/ext/atom#Float", le(v.bitPattern))
            case .double(let v): return (key, "http://lv2plug.in/ns/ext/atom#Double", le(v.bitPattern))
            case .string(let s): return (key, "http://lv2plug.in/ns/ext/atom#String", Array(s.utf8) + [0])
            }
        })
    }

    /// `patch:Set` of `property` to a string-like value (`atom:String` or `atom:Path`).
    func patchSet(property: String, valueType: String, text: [UInt8]) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/patch#Set", properties: [
            ("http://lv2plug.in/ns/ext/patch#property", "http://lv2plug.in/ns/ext/atom#URID", le(map.id(property))),
            ("http://lv2plug.in/ns/ext/patch#value", valueType, text + [0]),
        ])
    }

    /// `patch:Get`, of one property or (nil) of all.
    func patchGet(property: String?) -> [UInt8] {
        object(type: "http://lv2plug.in/ns/ext/patch#Get", properties: property.map {
            [("http://lv2plug.in/ns/ext/patch#property", "http://lv2plug.in/ns/ext/atom#URID", le(map.id($0)))]
        } ?? [])
    }

    func le(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    func le(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
}
