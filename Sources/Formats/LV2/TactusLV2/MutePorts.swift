import CLV2
import TactusEngine
import TactusModel

/// The `mute1` ... `mute8` control ports (timing contract §7.6) as the
/// sequencer reads them (`MuteControls`): a table of pointers to their
/// levels, where a port the host has not connected (or disconnected) points
/// to a level of 0. The sequencer reads the levels only in a block that plays
/// an onset, so the table is always complete and never needs a nil check.
///
/// Allocated at `init` (instantiate); `connect` runs in `connect_port`
/// (audio threading class). Owned by the audio side.
struct MutePorts: ~Copyable {
    private let levels: UnsafeMutablePointer<UnsafePointer<Float>>
    /// What an unconnected port reads.
    private let unconnected: UnsafeMutablePointer<Float>

    static var count: Int { Int(TACTUS_PORT_MUTE_COUNT) }

    init() {
        unconnected = .allocate(capacity: 1)
        unconnected.initialize(to: 0)
        levels = .allocate(capacity: MutePorts.count)
        levels.initialize(repeating: UnsafePointer(unconnected), count: MutePorts.count)
    }

    deinit {
        levels.deallocate()
        unconnected.deallocate()
    }

    /// Port `index` (0 for `mute1`) now reads `level`; nil disconnects it.
    @_noLocks
    func connect(_ index: Int, to level: UnsafePointer<Float>?) {
        guard index >= 0, index < MutePorts.count else { return }
        levels[index] = level ?? UnsafePointer(unconnected)
    }

    /// The table, for `Sequencer.readPortMutes(from:)`: valid while this value lives.
    var controls: MuteControls { MuteControls(levels: UnsafePointer(levels), count: MutePorts.count) }
}
