/// The client's side of the New Session Manager protocol (API 1.1, as
/// new-session-manager, RaySession and Agordejo speak it): the messages a
/// client sends, and what a message from the server asks for. No socket and
/// no JACK here, so that every rule is a unit test.
///
/// The conversation: the client announces itself (`announce`) and waits;
/// the server answers `/reply "/nsm/server/announce" ...` (or `/error`),
/// then sends `/nsm/client/open PATH DISPLAY_NAME CLIENT_ID`; only then may
/// the client register with JACK, under CLIENT_ID. Later `open`s (with
/// `:switch:`) move it to another session; `/nsm/client/save` asks it to
/// save there. Both want `/reply PATH MESSAGE` or `/error PATH CODE MESSAGE`
/// back. Quitting is SIGTERM, not a message.
public enum NSMProtocol {
    public static let apiMajor: Int32 = 1
    public static let apiMinor: Int32 = 1
    /// What `tactus jack` can do: say when it has unsaved changes, open
    /// another session without restarting, send status messages.
    public static let capabilities = ":dirty:switch:message:"

    /// The error codes of the API (nsmd's `ERR_*`).
    public enum ErrorCode: Int32, Sendable {
        case general = -1
        case incompatibleAPI = -2
        case blacklisted = -3
        case noSuchFile = -5
        case badProject = -9
        case createFailed = -10
    }

    public static let announcePath = "/nsm/server/announce"
    public static let openPath = "/nsm/client/open"
    public static let savePath = "/nsm/client/save"

    /// `/nsm/server/announce s:application_name s:capabilities s:executable i:major i:minor i:pid`.
    public static func announce(applicationName: String, executable: String, pid: Int32) -> OSCMessage {
        OSCMessage(announcePath, [
            .string(applicationName), .string(capabilities), .string(executable), .int32(apiMajor), .int32(apiMinor), .int32(pid),
        ])
    }

    /// `/reply s:path s:message`: `path` done.
    public static func reply(to path: String, _ message: String) -> OSCMessage {
        OSCMessage("/reply", [.string(path), .string(message)])
    }

    /// `/error s:path i:code s:message`: `path` failed, and why.
    public static func error(to path: String, _ code: ErrorCode, _ message: String) -> OSCMessage {
        OSCMessage("/error", [.string(path), .int32(code.rawValue), .string(message)])
    }

    /// `/nsm/client/is_dirty` or `/nsm/client/is_clean`.
    public static func dirty(_ isDirty: Bool) -> OSCMessage {
        OSCMessage(isDirty ? "/nsm/client/is_dirty" : "/nsm/client/is_clean")
    }

    /// `/nsm/client/message i:priority s:message`, priority 0 (chatter) to 3 (most important).
    public static func status(priority: Int32, _ text: String) -> OSCMessage {
        OSCMessage("/nsm/client/message", [.int32(max(0, min(3, priority))), .string(text)])
    }

    /// What a message from the server asks of the client.
    public enum Request: Equatable, Sendable {
        /// The server accepted the announce: its welcome, its name, its capabilities.
        case welcome(message: String, manager: String, capabilities: String)
        /// The server refused the announce.
        case refused(code: Int32, message: String)
        /// Open (or, after the first, switch to) the session at `path`, as JACK client `clientID`.
        case open(path: String, displayName: String, clientID: String)
        case save
        /// `/nsm/client/session_is_loaded`: every client of the session is there (nothing to do).
        case sessionIsLoaded
        /// A reply or error to something else, or an optional message Tactus does not use: noted.
        case note(String)
        /// Not understood: ignored, with what was wrong. `answer` is the error to
        /// send back when the message wanted a reply (an `open` or `save` with
        /// the wrong arguments), so that the server does not wait for one.
        case ignored(String, answer: OSCMessage?)
    }

    /// What `message` asks for.
    public static func request(_ message: OSCMessage) -> Request {
        let types = message.typeTags
        switch message.address {
        case openPath:
            guard let s = message.strings(3) else {
                let why = "\(openPath) with arguments ,\(types), not s:path s:display_name s:client_id"
                return .ignored(why, answer: error(to: openPath, .general, why))
            }
            guard s[0].hasPrefix("/") else {
                let why = "\(openPath): the session path '\(s[0])' is not absolute"
                return .ignored(why, answer: error(to: openPath, .noSuchFile, why))
            }
            guard !s[2].isEmpty, s[2].utf8.count <= 64, !s[2].contains(":") else {
                let why = "\(openPath): the client id '\(s[2])' is not a JACK client name (1-64 characters without ':')"
                return .ignored(why, answer: error(to: openPath, .general, why))
            }
            return .open(path: s[0], displayName: s[1], clientID: s[2])
        case savePath:
            guard message.arguments.isEmpty else {
                let why = "\(savePath) with arguments ,\(types), where it takes none"
                return .ignored(why, answer: error(to: savePath, .general, why))
            }
            return .save
        case "/nsm/client/session_is_loaded":
            return .sessionIsLoaded
        case "/reply":
            guard case .string(let path)? = message.arguments.first else { return .ignored("/reply with arguments ,\(types), not s:path ...", answer: nil) }
            if path == announcePath {
                guard let s = message.strings(4) else { return .ignored("/reply to the announce with arguments ,\(types), not ,ssss", answer: nil) }
                return .welcome(message: s[1], manager: s[2], capabilities: s[3])
            }
            return .note("reply to \(path)")
        case "/error":
            guard message.arguments.count == 3, case .string(let path) = message.arguments[0], case .int32(let code) = message.arguments[1],
                case .string(let text) = message.arguments[2]
            else { return .ignored("/error with arguments ,\(types), not s:path i:code s:message", answer: nil) }
            if path == announcePath { return .refused(code: code, message: text) }
            return .note("error \(code) from the session manager about \(path): \(text)")
        case "/nsm/client/show_optional_gui", "/nsm/client/hide_optional_gui":
            return .note("\(message.address) (tactus jack has no GUI to show or hide)")
        default:
            return .ignored("an unknown path \(message.address) (,\(types))", answer: nil)
        }
    }
}
