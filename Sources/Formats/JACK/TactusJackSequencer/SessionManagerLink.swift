import Glibc
import TactusNSM

/// `tactus jack`'s end of a New Session Manager session (docs/jack.md, "In a
/// session manager"): the socket it announced from, the session it has open,
/// and whether the session has changes not saved. The protocol itself is
/// `NSMProtocol` (no JACK); this is what the prompt thread does with it.
///
/// Thread: the prompt thread only. Not realtime.
final class SessionManagerLink {
    let endpoint: UDPEndpoint
    let url: NSMURL
    let quiet: Bool
    /// The session open now (nil before the first `open`).
    var folder: SessionFolder?
    var clientID: String?
    /// What the server was last told: changes not saved.
    private(set) var dirty = false
    /// The server answered the announce.
    private var welcomed = false

    /// An `open` the server sent, and where to answer it.
    struct OpenRequest {
        var path: String
        var displayName: String
        var clientID: String
        var sender: SocketAddress
    }

    /// What the prompt acts on.
    enum Action {
        case open(OpenRequest)
        case save(SocketAddress)
    }

    /// The link when `NSM_URL` is set (and not empty), nil otherwise. As the
    /// API says, an `NSM_URL` that cannot be used (not osc.udp://HOST:PORT/,
    /// a host not found) means no session management: a warning, and nil.
    static func fromEnvironment(quiet: Bool) -> SessionManagerLink? {
        guard let raw = getenv("NSM_URL"), raw.pointee != 0 else { return nil }
        do {
            let url = try NSMURL(parsing: String(cString: raw))
            return SessionManagerLink(endpoint: try UDPEndpoint(server: url), url: url, quiet: quiet)
        } catch {
            SequencerSession.printError("Warning: \(error.description); running without a session manager")
            return nil
        }
    }

    private init(endpoint: UDPEndpoint, url: NSMURL, quiet: Bool) {
        self.endpoint = endpoint
        self.url = url
        self.quiet = quiet
    }

    /// `/nsm/server/announce`, as application `name` (what JACK would be given).
    func announce(name: String) {
        let executable = CommandLine.arguments.first.map { String($0.split(separator: "/").last ?? "tactus") } ?? "tactus"
        send(NSMProtocol.announce(applicationName: name, executable: executable, pid: getpid()))
        say("announced to the session manager at \(url.text); waiting for it to open a session")
    }

    /// Before JACK: waits for the server's first `open` (answering whatever
    /// else comes), or returns nil at SIGINT/SIGTERM. Throws when the server
    /// refuses the announce.
    func waitForOpen(quit: () -> Bool) throws(SequencerError) -> OpenRequest? {
        var waited = 0
        while !quit() {
            waited += 1
            if waited == 50 && !welcomed {
                // An NSM server answers at once; say so rather than wait in silence.
                SequencerSession.printError("tactus jack: NSM: no answer from the session manager at \(url.text) in 5 s; still waiting for it to open a session (SIGTERM quits)")
            }
            for action in try receive(timeoutMilliseconds: 100) {
                switch action {
                case .open(let request): return request
                case .save(let sender):
                    // Nothing is open yet: nothing to save.
                    send(NSMProtocol.error(to: NSMProtocol.savePath, .general, "no session is open yet"), to: sender)
                }
            }
        }
        return nil
    }

    /// The messages that came within `timeoutMilliseconds`, read: what the
    /// prompt must act on is returned; the rest is answered or noted here,
    /// and a packet that is not OSC, or not NSM's, is ignored with a message.
    func receive(timeoutMilliseconds: Int32) throws(SequencerError) -> [Action] {
        var actions: [Action] = []
        var timeout = timeoutMilliseconds
        while let (bytes, sender) = endpoint.receive(timeoutMilliseconds: timeout) {
            timeout = 0
            let message: OSCMessage
            do { message = try OSCMessage.decode(bytes) } catch {
                SequencerSession.printError("tactus jack: NSM: ignored a \(bytes.count)-byte packet from \(sender) that is not OSC: \(error.description)")
                continue
            }
            switch NSMProtocol.request(message) {
            case .welcome(let text, let manager, let capabilities):
                welcomed = true
                say("under \(manager) (\(text.isEmpty ? "no message" : text); its capabilities \(capabilities.isEmpty ? "none" : capabilities))")
            case .refused(let code, let text):
                throw SequencerError(description: "the session manager at \(url.text) refused tactus (error \(code)): \(text)")
            case .open(let path, let displayName, let clientID):
                actions.append(.open(OpenRequest(path: path, displayName: displayName, clientID: clientID, sender: sender)))
            case .save:
                actions.append(.save(sender))
            case .sessionIsLoaded:
                break
            case .note(let text):
                say(text)
            case .ignored(let why, let answer):
                SequencerSession.printError("tactus jack: NSM: ignored a message from \(sender): \(why)")
                if let answer { send(answer, to: sender) }
            }
        }
        return actions
    }

    /// Tells the server of unsaved changes (once, until the next save or open).
    func markDirty() {
        guard folder != nil, !dirty else { return }
        dirty = true
        send(NSMProtocol.dirty(true))
    }

    /// After a save or an open: nothing unsaved.
    func markClean() {
        dirty = false
        send(NSMProtocol.dirty(false))
    }

    func reply(to path: String, _ text: String, sender: SocketAddress) {
        send(NSMProtocol.reply(to: path, text), to: sender)
    }

    /// An `/error` reply, also said on standard error and as a status message the manager shows.
    func fail(_ path: String, _ code: NSMProtocol.ErrorCode, _ text: String, sender: SocketAddress) {
        SequencerSession.printError("tactus jack: NSM: \(path == NSMProtocol.savePath ? "save" : "open") failed: \(text)")
        send(NSMProtocol.error(to: path, code, text), to: sender)
        send(NSMProtocol.status(priority: 3, text))
    }

    func status(_ text: String, priority: Int32 = 1) {
        send(NSMProtocol.status(priority: priority, text))
    }

    private func send(_ message: OSCMessage, to address: SocketAddress? = nil) {
        if let reason = endpoint.send(message.encoded(), to: address) {
            SequencerSession.printError("tactus jack: NSM: cannot send \(message.address) to \(address?.description ?? url.text): \(reason)")
        }
    }

    func say(_ text: String) {
        if !quiet { SequencerSession.say("tactus jack: NSM: \(text)") }
    }
}
