import CCLAP
import CCLAPEntry
import Synchronization
import TactusEngine

/// The CLAP parameters (timing contract §11.4): the LV2 plugin's control
/// ports, `mute1` ... `mute8`, `midi_thru`, `clock`, `pattern` and `song`,
/// with the LV2 port indices as ids and the same values (the toggles 0 to 1,
/// stepped, on at 0.5 or above; `pattern` 0 to 128, rounded; `song` on by
/// default). Their names and flags are the C table of
/// `Sources/C/CCLAPEntry/entry.c`; this is what the values mean and where
/// they are kept.
package enum CLAPParameter {
    /// `mute1`'s id (its LV2 port index); `mute8` is `firstMute + 7`.
    package static var firstMute: UInt32 { UInt32(TACTUS_CLAP_PARAM_FIRST_MUTE) }
    package static var muteCount: Int { Int(TACTUS_CLAP_PARAM_MUTE_COUNT) }
    /// `midi_thru`'s id.
    package static var midiThru: UInt32 { UInt32(TACTUS_CLAP_PARAM_MIDI_THRU) }
    /// `clock`'s id (§12: MIDI clock on the note output).
    package static var clock: UInt32 { UInt32(TACTUS_CLAP_PARAM_CLOCK) }
    /// `pattern`'s id (§9.6: a change to k >= 1 requests pattern k).
    package static var pattern: UInt32 { UInt32(TACTUS_CLAP_PARAM_PATTERN) }
    /// `song`'s id (§9.5).
    package static var song: UInt32 { UInt32(TACTUS_CLAP_PARAM_SONG) }

    /// The lanes' mute bits of a value set (bit i: lane i, as §7.6 counts).
    static var muteMask: UInt64 { (1 << UInt64(muteCount)) - 1 }
    /// `midi_thru`'s bit in a value set.
    static var thruBit: UInt64 { 1 << UInt64(muteCount) }
    /// `clock`'s bit in a value set.
    static var clockBit: UInt64 { 1 << UInt64(muteCount + 1) }
    /// `song` off (so that a value set of 0 is every default: the song on).
    static var songOffBit: UInt64 { 1 << UInt64(muteCount + 2) }
    /// `pattern`'s number (0-128) in a value set: 8 bits from bit 16.
    static var patternShift: UInt64 { 16 }
    static var patternMask: UInt64 { 0xFF << patternShift }

    /// The bits of the parameter `id` in a value set, or nil for an id Tactus does not have.
    @_noLocks
    static func bits(_ id: UInt32) -> UInt64? {
        if id >= firstMute, id < firstMute + UInt32(muteCount) { return 1 << UInt64(id - firstMute) }
        switch id {
        case midiThru: return thruBit
        case clock: return clockBit
        case pattern: return patternMask
        case song: return songOffBit
        default: return nil
        }
    }

    /// The value of `id` in the value set `bits` (0 or 1; `pattern` 0-128).
    @_noLocks
    static func value(_ id: UInt32, in bits: UInt64) -> Double? {
        guard let mask = self.bits(id) else { return nil }
        if mask == patternMask { return Double((bits & patternMask) >> patternShift) }
        if mask == songOffBit { return bits & songOffBit != 0 ? 0 : 1 }
        return bits & mask != 0 ? 1 : 0
    }

    /// The pattern number `value` stands for (§9.6's rounding: 0-128, NaN 0).
    @_noLocks
    static func patternNumber(_ value: Double) -> UInt64 {
        value.isFinite ? UInt64(max(0, min(128, value + 0.5))) : 0
    }

    /// The LV2 symbol of each toggle's bit, from bit 0: the names a state saves
    /// (`pattern` and `song` are saved as `pattern=K` and `song=0`, when not their defaults).
    static var symbols: [String] { ["mute1", "mute2", "mute3", "mute4", "mute5", "mute6", "mute7", "mute8", "midi_thru", "clock"] }
}

/// The parameters' values as one set of bits (`CLAPParameter`), shared by
/// the audio thread (`process()`, `flush` while active), which sets one
/// parameter at a time, and the main thread (`get_value`, `flush` while
/// inactive, the state, the editor), which reads them, sets one, or
/// replaces them whole on a state load. One atomic word: no lock, and a
/// value set on one thread is never lost to one set on the other. Relaxed
/// ordering: nothing else is published with it. Allocated at
/// `create_plugin`, freed at `destroy`.
struct CLAPControls {
    private let word: UnsafeMutablePointer<Atomic<UInt64>>

    static func make() -> CLAPControls {
        let word = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: 1)
        word.initialize(to: Atomic(0))
        return CLAPControls(word: word)
    }

    func free() {
        word.deinitialize(count: 1)
        word.deallocate()
    }

    /// Every value, as bits.
    var bits: UInt64 {
        @_noLocks get { word.pointee.load(ordering: .relaxed) }
    }

    /// `pattern`'s value (0-128).
    var pattern: Int {
        @_noLocks get { Int((bits & CLAPParameter.patternMask) >> CLAPParameter.patternShift) }
    }

    /// Whether `song` is on.
    var song: Bool {
        @_noLocks get { bits & CLAPParameter.songOffBit == 0 }
    }

    /// Replaces every value (a state load).
    func replace(with bits: UInt64) {
        word.pointee.store(bits, ordering: .relaxed)
    }

    /// Sets one parameter to `value` (a toggle on at 0.5 or above, so NaN is
    /// off; `pattern` rounded to 0-128): its bits in the value set, or nil for
    /// an id Tactus does not have.
    @_noLocks @discardableResult
    func set(_ id: UInt32, to value: Double) -> UInt64? {
        guard let mask = CLAPParameter.bits(id) else { return nil }
        if mask == CLAPParameter.patternMask {
            let field = CLAPParameter.patternNumber(value) << CLAPParameter.patternShift
            var old = word.pointee.load(ordering: .relaxed)
            while true {
                let (done, seen) = word.pointee.compareExchange(expected: old, desired: (old & ~mask) | field, ordering: .relaxed)
                if done { break }
                old = seen
            }
            return mask
        }
        // `song` is kept as "off": on at 0.5 or above clears its bit.
        let set = mask == CLAPParameter.songOffBit ? !(value >= 0.5) : value >= 0.5
        if set { word.pointee.bitwiseOr(mask, ordering: .relaxed) } else { word.pointee.bitwiseAnd(~mask, ordering: .relaxed) }
        return mask
    }

    /// A `CLAP_EVENT_PARAM_VALUE` event (core space, long enough), applied: the
    /// bits it changed, or nil for any other event or an unknown id.
    @_noLocks
    func take(_ event: UnsafePointer<clap_event_header_t>) -> UInt64? {
        let header = event.pointee
        guard header.space_id == CLAP_CORE_EVENT_SPACE_ID, Int(header.type) == CLAP_EVENT_PARAM_VALUE,
            Int(header.size) >= MemoryLayout<clap_event_param_value_t>.size
        else { return nil }
        let change = UnsafeRawPointer(event).load(as: clap_event_param_value_t.self)
        return set(change.param_id, to: change.value)
    }
}

/// `clap_plugin_params.get_value` (main thread): the value of `id`.
@_cdecl("tactus_clap_param_value")
public func clapParamValue(_ instance: UnsafeMutableRawPointer?, _ id: UInt32, _ value: UnsafeMutablePointer<Double>?) -> Bool {
    guard let instance, let value, let v = CLAPParameter.value(id, in: CLAPPlugin.from(instance).pointee.controls.bits) else { return false }
    value.pointee = v
    return true
}

/// `clap_plugin_params.flush`: the host's parameter events outside
/// `process()` (on the audio thread while active, on the main thread
/// otherwise); they take effect at the next block's first frame (§11.4).
/// Out go the parameters the editor set (a mute clicked), for the host to record.
@_cdecl("tactus_clap_params_flush") @_noLocks
public func clapParamsFlush(
    _ instance: UnsafeMutableRawPointer?, _ input: UnsafePointer<clap_input_events_t>?, _ output: UnsafePointer<clap_output_events_t>?
) {
    guard let instance else { return }
    CLAPPlugin.from(instance).pointee.editorChannel.sendChanges(to: output)
    let controls = CLAPPlugin.from(instance).pointee.controls
    let count = tactus_clap_input_size(input)
    var index: UInt32 = 0
    while index < count {
        if let event = tactus_clap_input_get(input, index) { _ = controls.take(event) }
        index += 1
    }
}
