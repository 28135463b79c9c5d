import CLV2
import LV2Atoms
import TactusOffline

extension AtomBody {
    /// A `time:Position` object body from the wire values of a transport
    /// script or the simulated host (`HostPosition`): each key with the atom
    /// type they give it, in their order, as a host sends it.
    public static func position(_ p: HostPosition, uris u: URIDTable) -> [UInt8] {
        object(otype: u.timePosition, properties: p.fields.compactMap { field in
            guard let key = u.time(field.key.rawValue) else { return nil }
            switch field.value {
            case .int(let v): return AtomProperty(key: key, type: u.atomInt, body: int(v))
            case .long(let v): return AtomProperty(key: key, type: u.atomLong, body: long(v))
            case .float(let v): return AtomProperty(key: key, type: u.atomFloat, body: float(v))
            case .double(let v): return AtomProperty(key: key, type: u.atomDouble, body: double(v))
            case .string(let s): return AtomProperty(key: key, type: u.atomString, body: text(s))
            }
        })
    }
}
