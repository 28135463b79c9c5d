import CJack
import Glibc
import TactusEngine
import TactusModel
import TactusNSM

/// A session's pattern and settings, read and checked, ready to play.
struct OpenedSession {
    var editor: PatternEditor
    var text: [UInt8]
    var settings: SessionSettings
    var warnings: [String]

    /// Reads `folder` (made if new); what it lacks comes from `seed` (the
    /// command line's pattern and settings). A pattern that does not parse
    /// is `badProject`, with its file, line and column.
    static func open(_ folder: SessionFolder, seedText: [UInt8], seedSettings: SessionSettings) -> Result<OpenedSession, SessionFolder.OpenFailure> {
        let contents: SessionFolder.Contents
        do { contents = try folder.open() } catch { return .failure(error) }
        let text = contents.pattern ?? seedText
        do {
            let editor = try PatternEditor(parsing: text)
            return .success(OpenedSession(editor: editor, text: text, settings: contents.settings ?? seedSettings, warnings: contents.warnings))
        } catch {
            return .failure(SessionFolder.OpenFailure(code: .badProject, message: "\(PatternEditor.displayPath(folder.patternPath)):\(error.location): \(error.reasonText)"))
        }
    }
}

extension SequencerOptions {
    /// The settings a session keeps (`SessionSettings`), as these options have them.
    var sessionSettings: SessionSettings {
        var settings = SessionSettings()
        settings.master = master
        settings.beatsPerMinute = beatsPerMinute
        settings.beatsPerBar = beatsPerBar
        settings.connect = connect
        settings.laneMutes = laneMutes
        settings.thru = thru
        return settings
    }

    mutating func apply(_ settings: SessionSettings) {
        master = settings.master
        beatsPerMinute = settings.beatsPerMinute
        beatsPerBar = settings.beatsPerBar
        connect = settings.connect
        laneMutes = settings.laneMutes
        thru = settings.thru
    }
}

extension SessionState {
    /// Becomes the timebase master at the options' tempo and meter, or stops
    /// being it, as `settings` say (a switch to another session). The clock
    /// the callback read until now is kept until `free()`: a cycle may still
    /// be reading it.
    func applyTimebase(_ settings: SessionSettings) -> Bool {
        let unchanged = settings.master == options.master && settings.beatsPerMinute == options.beatsPerMinute && settings.beatsPerBar == options.beatsPerBar
        if unchanged { return true }
        if options.master { jack_release_timebase(client) }
        options.master = settings.master
        options.beatsPerMinute = settings.beatsPerMinute
        options.beatsPerBar = settings.beatsPerBar
        guard settings.master else { return true }
        retiredClocks.append(clock)
        clock = .allocate(capacity: 1)
        clock.initialize(to: MasterClock(sampleRate: sampleRate, beatsPerMinute: settings.beatsPerMinute, beatsPerBar: settings.beatsPerBar))
        return becomeTimebaseMaster()
    }

    /// Connects `midi_out` to `ports`, each refusal a warning naming the port.
    func connect(_ ports: [String]) {
        let name = String(cString: jack_get_client_name(client))
        for port in ports where jack_connect(client, "\(name):midi_out", port) != 0 {
            SequencerSession.printError("Warning: cannot connect \(name):midi_out to \(port) (see jack_lsp for the port names)")
        }
    }

    /// The connections a switch asks for: the old session's that the new
    /// one does not name are undone, the new ones made.
    func applyConnections(_ settings: SessionSettings) {
        let name = String(cString: jack_get_client_name(client))
        for port in options.connect where !settings.connect.contains(port) { jack_disconnect(client, "\(name):midi_out", port) }
        connect(settings.connect.filter { !options.connect.contains($0) })
        options.connect = settings.connect
    }
}

extension Prompt {
    /// Lane mutes and MIDI thru as a session has them: the next cycle plays by them.
    mutating func apply(_ new: LiveControls) {
        controls = new
        let flags = session.context.pointee.flags
        flags.pointee.laneMutes.store(controls.laneMutes, ordering: .relaxed)
        flags.pointee.thru.store(controls.thru, ordering: .relaxed)
    }

    /// Between lines: the session manager's messages (no wait when `timeoutMilliseconds` is 0).
    mutating func serviceSessionManager(timeoutMilliseconds: Int32) {
        guard let link = sessionManager else { return }
        let actions: [SessionManagerLink.Action]
        do { actions = try link.receive(timeoutMilliseconds: timeoutMilliseconds) } catch {
            SequencerSession.printError("tactus jack: NSM: \(error.description)")
            return
        }
        for action in actions {
            switch action {
            case .save(let sender): saveSession(link, sender: sender)
            case .open(let request): switchSession(link, request)
            }
        }
    }

    /// `/nsm/client/save`: the pattern as edited and the settings, each file whole.
    private func saveSession(_ link: SessionManagerLink, sender: SocketAddress) {
        guard let folder = link.folder else {
            link.fail(NSMProtocol.savePath, .general, "no session is open", sender: sender)
            return
        }
        var settings = session.options.sessionSettings
        settings.laneMutes = controls.laneMutes
        settings.thru = controls.thru
        do {
            try folder.save(pattern: editor.text, settings: settings)
        } catch {
            link.fail(NSMProtocol.savePath, .general, "\(error.description); the session keeps playing, unsaved", sender: sender)
            return
        }
        link.markClean()
        link.reply(to: NSMProtocol.savePath, "saved \(folder.path)", sender: sender)
        link.say("saved \(PatternEditor.displayPath(folder.path))")
    }

    /// `/nsm/client/open` while a session is open (`:switch:`): the other
    /// session's pattern goes in at the next cycle, as an edit does, and its
    /// settings replace these; the JACK client stays (its name too: JACK
    /// cannot rename a client). A session that cannot be read is refused
    /// and this one plays on.
    private mutating func switchSession(_ link: SessionManagerLink, _ request: SessionManagerLink.OpenRequest) {
        let folder = SessionFolder(path: request.path)
        let opened: OpenedSession
        switch OpenedSession.open(folder, seedText: seedText, seedSettings: seedSettings) {
        case .success(let o): opened = o
        case .failure(let failure):
            link.fail(NSMProtocol.openPath, failure.code, failure.message + "; the session open before plays on", sender: request.sender)
            return
        }
        for warning in opened.warnings { SequencerSession.printError("Warning: \(warning)") }
        editor = opened.editor
        publish()
        if !session.applyTimebase(opened.settings) { SequencerSession.printError("Warning: cannot become the JACK timebase master") }
        session.applyConnections(opened.settings)
        var controls = LiveControls()
        controls.laneMutes = opened.settings.laneMutes
        controls.thru = opened.settings.thru
        apply(controls)
        link.folder = folder
        var message = "opened \(request.path)"
        let name = String(cString: jack_get_client_name(session.client))
        if request.clientID != name {
            message += " (the JACK client keeps its name \(name): JACK cannot rename a client)"
            link.status(message, priority: 2)
        }
        link.clientID = request.clientID
        link.markClean()
        link.reply(to: NSMProtocol.openPath, message, sender: request.sender)
        link.say("switched: " + message)
    }
}
