import CLV2
import LV2Atoms

extension URIDTable {
    /// The table mapped with a host's own map.
    public init(_ map: URIDMap) { self.init(UnsafePointer(map.map)) }

    /// The URID of a `time:Position` key by its LV2 name (`frame`, `barBeat`,
    /// ...: a transport script's `PositionKey`), or nil for another name. The
    /// names come from CLV2's URIs (what follows the `#`), not from a list here.
    public func time(_ name: String) -> LV2_URID? {
        let keys: [(UnsafePointer<CChar>?, LV2_URID)] = [
            (tactus_uri_time_frame, timeFrame), (tactus_uri_time_speed, timeSpeed), (tactus_uri_time_bar, timeBar),
            (tactus_uri_time_barBeat, timeBarBeat), (tactus_uri_time_beat, timeBeat), (tactus_uri_time_beatUnit, timeBeatUnit),
            (tactus_uri_time_beatsPerBar, timeBeatsPerBar), (tactus_uri_time_beatsPerMinute, timeBeatsPerMinute),
        ]
        for (uri, id) in keys where String(cString: uri!).hasSuffix("#" + name) { return id }
        return nil
    }
}
