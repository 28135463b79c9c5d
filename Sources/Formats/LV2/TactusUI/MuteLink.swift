import CLV2
import CLV2UI
import LV2Atoms
import TactusEngine
import TactusModel
import TactusEditorModel

/// The editor's side of the plugin's lane mutes (timing contract §7.6,
/// docs/plugin.md "Ports"): lanes 1-8 are the control ports `mute1` to
/// `mute8`, which the editor writes as a host's own controls are written
/// (`write_function` with protocol 0, a float), so that the host shows,
/// saves and automates them and tells the editor of every change
/// (`port_event`, format 0); lanes 9-64 are bits of `urn:tactus:laneMutes`,
/// sent as a `patch:Set` of the whole parameter as the plugin last told it
/// (`LaneMutes`), with the clicked lane's bit changed, so that the lanes a
/// restored session muted stay muted.
///
/// UI thread.
enum MuteLink {
    /// The lane (from 0) a mute control port stands for, nil for any other port.
    static func lane(ofPort port: UInt32) -> Int? {
        guard port >= TACTUS_PORT_MUTE_FIRST, port < TACTUS_PORT_MUTE_FIRST + TACTUS_PORT_MUTE_COUNT else { return nil }
        return Int(port - TACTUS_PORT_MUTE_FIRST)
    }

    /// Tells the plugin of `mute`: its port (lanes 1-8), its parameter (when it changes).
    static func send(_ mute: LaneMute, link: PluginLink) {
        if mute.lane < Int(TACTUS_PORT_MUTE_COUNT) {
            var value: Float = mute.muted ? 1 : 0
            withUnsafeBytes(of: &value) { raw in
                link.write(link.controller, TACTUS_PORT_MUTE_FIRST + UInt32(mute.lane), 4, 0, raw.baseAddress)
            }
        }
        guard let parameter = mute.parameter else { return }
        let uris = link.uris
        // [] a patch:Set ; patch:property tactus:laneMutes ; patch:value (an atom:Long).
        let atom = AtomObjectWriter.atom(objectType: uris.atomObject, otype: uris.patchSet) {
            $0.addPatchSet(property: uris.laneMutes, long: Int64(bitPattern: parameter), uris: uris)
        }
        atom.withUnsafeBytes { raw in
            link.write(link.controller, TACTUS_PORT_CONTROL, UInt32(raw.count), uris.atomEventTransfer, raw.baseAddress)
        }
    }
}
