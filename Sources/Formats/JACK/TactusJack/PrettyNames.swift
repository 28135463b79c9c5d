import CJack

/// JACK metadata's pretty names (`http://jackaudio.org/metadata/pretty-name`,
/// `JACK_METADATA_PRETTY_NAME`): what patchbays such as Carla, RaySession,
/// Patchance and QjackCtl show instead of a client's or port's short name
/// (`jack_property -l` lists them). A server that keeps no metadata refuses
/// them, and the short names stay. Off the realtime thread (each is a request
/// to the server).
public enum PrettyNames {
    /// `JACK_METADATA_PRETTY_NAME` (a C global, which Swift 6 will not read unguarded).
    public static let key = "http://jackaudio.org/metadata/pretty-name"

    /// Sets `name` as the pretty name of `port`, which `client` registered.
    /// False when the server refused it.
    @discardableResult
    public static func set(_ name: String, port: OpaquePointer, client: OpaquePointer) -> Bool {
        jack_set_property(client, jack_port_uuid(port), key, name, "text/plain") == 0
    }

    /// Sets `name` as the pretty name of `client` itself. False when the
    /// server refused it (or gave no UUID for the client).
    @discardableResult
    public static func set(_ name: String, client: OpaquePointer) -> Bool {
        guard let uuid = uuid(of: client) else { return false }
        return jack_set_property(client, uuid, key, name, "text/plain") == 0
    }

    /// Removes the pretty names of `client` and of `ports` (before the client
    /// closes: the server keeps metadata after its subject is gone).
    public static func remove(client: OpaquePointer, ports: [OpaquePointer]) {
        for port in ports { jack_remove_property(client, jack_port_uuid(port), key) }
        if let uuid = uuid(of: client) { jack_remove_property(client, uuid, key) }
    }

    private static func uuid(of client: OpaquePointer) -> jack_uuid_t? {
        guard let text = jack_get_uuid_for_client_name(client, jack_get_client_name(client)) else { return nil }
        defer { jack_free(text) }
        var uuid: jack_uuid_t = 0
        return jack_uuid_parse(text, &uuid) == 0 ? uuid : nil
    }
}
