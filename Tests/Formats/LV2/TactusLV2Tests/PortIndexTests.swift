import Foundation
import LV2HostKit
import Testing

/// The port indices are written once on each side of the C/Swift line (CLV2.h,
/// which the plugin and the hosts both read); the bundle's Turtle must say
/// the same, or a host would connect the MIDI output to the control input.
@Suite("Port indices: tactus.ttl and the code")
struct PortIndexTests {
    @Test("every port in tactus.ttl has the index the code uses, and no other port exists")
    func ttlMatchesTheCode() throws {
        let ttl = try String(contentsOf: PluginProcess.bundle.appendingPathComponent("tactus.ttl"), encoding: .utf8)
        // Each port is a blank node with its own `lv2:index N ;` and `lv2:symbol "s" ;`.
        var ports: [String: UInt32] = [:]
        var index: UInt32? = nil
        for line in ttl.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("lv2:index ") {
                index = UInt32(line.dropFirst("lv2:index ".count).prefix { $0.isNumber })
            } else if line.hasPrefix("lv2:symbol \""), let i = index {
                ports[String(line.dropFirst("lv2:symbol \"".count).prefix { $0 != "\"" })] = i
                index = nil
            }
        }
        var expected = ["control": TactusPort.control, "midi_out": TactusPort.midiOut, "notify": TactusPort.notify]
        // Timing contract §7.6: mute1 ... mute8 follow the three atom ports.
        for i in 0..<TactusPort.muteCount { expected["mute\(i + 1)"] = TactusPort.muteFirst + i }
        expected["midi_thru"] = TactusPort.midiThru  // §7.5
        expected["clock"] = TactusPort.clock  // §12
        expected["pattern"] = TactusPort.pattern  // §9.6
        expected["song"] = TactusPort.song  // §9.5
        expected["playing"] = TactusPort.playing  // §9, an output
        expected["queued"] = TactusPort.queued
        #expect(ports == expected)
        #expect(UInt32(ports.count) == TactusPort.count)
    }
}
