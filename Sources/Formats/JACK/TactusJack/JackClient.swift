import CJack

/// A JACK client opened on a named (or the default) server.
///
/// Off the realtime thread: open, register ports, connect, activate, close.
public final class JackClient {
    public let client: OpaquePointer
    public let name: String

    public struct OpenError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens a client; never starts a server (JackNoStartServer), so a missing server is an error.
    public init(name: String, server: String?) throws(OpenError) {
        var status = jack_status_t(rawValue: 0)
        var options = JackNoStartServer
        if server != nil { options = jack_options_t(rawValue: options.rawValue | JackServerName.rawValue) }
        let opened = jack_client_open_named(name, options, &status, server)
        guard let opened else {
            throw OpenError(description: "cannot connect to the JACK server \(server ?? "(default)") (status 0x\(String(status.rawValue, radix: 16))); is jackd running?")
        }
        client = opened
        self.name = String(cString: jack_get_client_name(opened))
    }

    deinit {
        jack_client_close(client)
    }

    public var sampleRate: Double { Double(jack_get_sample_rate(client)) }

    /// Connects two ports by full name ("client:port"); false (with the JACK error) if it fails.
    @discardableResult
    public func connect(_ source: String, _ destination: String) -> Bool {
        jack_connect(client, source, destination) == 0
    }

    public func activate() -> Bool { jack_activate(client) == 0 }
    public func deactivate() { jack_deactivate(client) }

    /// Whether a port with this full name exists.
    public func hasPort(_ name: String) -> Bool { jack_port_by_name(client, name) != nil }
}
