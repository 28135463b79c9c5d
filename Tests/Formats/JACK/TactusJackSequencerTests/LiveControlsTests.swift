import Testing
import TactusJackSequencer
import TactusModel

/// `tactus jack`'s `mute`, `unmute` and `thru` (timing contract §7.5, §7.6):
/// lanes by name or by number from 1, as the plugin's mute1-mute8; clear errors.
@Suite("Prompt: lane mutes and MIDI thru")
struct LiveControlsTests {
    let lanes = ["kick", "hats", "bass"]

    @Test("mute by name and by number, unmute some or all; the answer names the muted lanes")
    func muteAndUnmute() {
        var c = LiveControls()
        #expect(c.run(["mute", "hats"], lanes: lanes) == .answer("muted: hats (2)"))
        #expect(c.run(["mute", "3", "kick"], lanes: lanes) == .answer("muted: kick (1), hats (2), bass (3)"))
        #expect(c.laneMutes == 0b111)
        #expect(c.run(["unmute", "2"], lanes: lanes) == .answer("muted: kick (1), bass (3)"))
        #expect(c.run(["unmute"], lanes: lanes) == .answer("no lane muted"))
        #expect(c.laneMutes == 0)
        #expect(c.run(["mute", "all"], lanes: lanes) == .answer("muted: kick (1), hats (2), bass (3)"))
        #expect(c.run(["unmute", "all"], lanes: lanes) == .answer("no lane muted"))
    }

    @Test("a lane's name wins over a number it spells; bad lanes and words are refused and change nothing")
    func errors() {
        var named = LiveControls()
        #expect(named.run(["mute", "3"], lanes: ["3", "x", "y"]) == .answer("muted: 3 (1)"))
        var c = LiveControls()
        #expect(c.run(["mute", "2"], lanes: lanes) == .answer("muted: hats (2)"))
        let before = c
        #expect(c.run(["mute", "4"], lanes: lanes) == .error("mute: no lane '4': the lanes are 'kick', 'hats', 'bass', numbered 1-3"))
        #expect(c.run(["mute", "kick", "snare"], lanes: lanes) == .error("mute: no lane 'snare': the lanes are 'kick', 'hats', 'bass', numbered 1-3"))
        #expect(c.run(["mute"], lanes: lanes) == .error("mute: takes lane names or numbers (see lanes), or all"))
        #expect(c.run(["thru"], lanes: lanes) == .error("thru: takes on or off"))
        #expect(c.run(["thru", "yes"], lanes: lanes) == .error("thru: takes on or off"))
        #expect(c == before)
        #expect(c.run(["show"], lanes: lanes) == nil)
    }

    @Test("thru on and off, off by default")
    func thru() {
        var c = LiveControls()
        #expect(!c.thru)
        #expect(c.run(["thru", "on"], lanes: lanes) == .answer("MIDI thru on: notes played on the control input go to midi_out too"))
        #expect(c.thru)
        #expect(c.run(["thru", "off"], lanes: lanes) == .answer("MIDI thru off"))
        #expect(!c.thru)
    }

    @Test("the help lists them before the transport's line")
    func help() {
        let help = PatternEditor.help(adding: LiveControls.help)
        let lines = help.split(separator: "\n").map(String.init)
        let mute = lines.firstIndex { $0.hasPrefix("mute LANE...") }
        let play = lines.firstIndex { $0.hasPrefix("play | stop") }
        #expect(mute != nil && play != nil && mute! < play!)
        #expect(lines.contains { $0.hasPrefix("thru on|off") } && lines.contains { $0.hasPrefix("status") })
    }
}
