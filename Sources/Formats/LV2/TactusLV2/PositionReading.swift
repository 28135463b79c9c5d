import CLV2
import LV2Atoms
import TactusEngine

/// A `time:Position` as the engine reads it (timing contract §6): every key
/// as a number (`atom:Float`, `atom:Double`, `atom:Long` or `atom:Int`); a
/// key of another type, or too short for its type, makes the whole update
/// ignored; unknown keys are ignored; of a key sent twice, the last counts.
///
/// One walk down the object's properties: O(properties), no allocation,
/// audio thread. Hosts such as Carla send one every block; the engine's
/// quick repeat test (`TransportClock.applyIfCertainRepeat`) then takes it
/// in a few comparisons.
package enum PositionReading {
    @_noLocks
    package static func update(_ object: inout AtomObjectReader, uris: UnsafePointer<URIDTable>) -> PositionUpdate {
        let u = uris
        var update = PositionUpdate()
        while let (key, value) = object.next() {
            let number = value.number(u.pointee)
            if key == u.pointee.timeFrame { update.frame = number }
            else if key == u.pointee.timeSpeed { update.speed = number }
            else if key == u.pointee.timeBar { update.bar = number }
            else if key == u.pointee.timeBarBeat { update.barBeat = number }
            else if key == u.pointee.timeBeat { update.beat = number }
            else if key == u.pointee.timeBeatsPerBar { update.beatsPerBar = number }
            else if key == u.pointee.timeBeatsPerMinute { update.beatsPerMinute = number }
            else if key == u.pointee.timeBeatUnit { update.beatUnit = number }
            else { continue }  // Unknown keys are ignored.
            if number == nil { update.hasInvalidKey = true }
        }
        return update
    }
}
