import Testing
import TactusEngine
import TactusModel
import TactusJackSequencer
import TactusOffline
import FileIO
import Glibc

/// `tactus jack`'s `play NAME [WHEN]`, `song on|off` and `patterns` (timing
/// contract §9), and the prompt holding a text of several patterns: it plays
/// it whole and refuses to edit it rather than lose patterns.
@Suite("Prompt: patterns and songs")
struct PatternControlsTests {
    static let drums = """
        tactus-pattern 3
        # a comment the prompt keeps
        switch at bar
        pattern intro
        lane a length 4
        note 0 1 36 100
        pattern groove
        lane a length 4
        note 0 1 36 100
        note 2 1 38 100
        pattern fill
        lane a length 2
        note 0 1/4 38 120

        """
    static let withSong = drums + "song loop\nplay intro\nplay groove 2\nplay fill\n"
    let text = PatternControls.Text(names: ["intro", "groove", "fill"], hasSong: false)
    let idle = PatternControls.Playing(playing: 1, queued: 0)

    /// The command's outcome and request (an outcome of nil: not a command of these).
    func run(_ c: inout PatternControls, _ words: [String], _ text: PatternControls.Text, _ now: PatternControls.Playing) -> (PatternEditor.Outcome?, PatternRequest?) {
        guard let (outcome, request) = c.run(words, text: text, now: now) else { return (nil, nil) }
        return (outcome, request)
    }

    @Test("play NAME requests the pattern's number on the text's grid, play NAME WHEN on its own; each request is new")
    func play() throws {
        var c = PatternControls()
        let (answer, request) = run(&c, ["play", "fill"], text, idle)
        #expect(answer == .answer("requested fill"))
        #expect(request?.number == 3 && request?.grid == nil)
        let (answer2, request2) = run(&c, ["play", "groove", "bars", "4"], text, idle)
        #expect(answer2 == .answer("requested groove at bars 4"))
        #expect(request2?.number == 2 && request2?.grid == .bars(4))
        let (_, again) = run(&c, ["play", "groove", "bars", "4"], text, idle)
        #expect(again?.word != request2?.word)
        for grid in [SwitchSettings.Grid.now, .beat, .bar, .bars(64), .end] {
            let r = PatternRequest(sequence: 7, number: 512, grid: grid)
            #expect(PatternRequest(word: r.word) == r)
        }
        #expect(PatternRequest(word: PatternRequest(sequence: 1, number: 2, grid: nil).word).grid == nil)
        // `play` alone is the transport's.
        #expect(c.run(["play"], text: text, now: idle) == nil)
    }

    @Test("an unknown name, a bad WHEN and a request while the song plays are refused with what to do")
    func refusals() throws {
        var c = PatternControls()
        #expect(run(&c, ["play", "verse"], text, idle).0
            == .error("play: no pattern 'verse': the patterns are 'intro', 'groove', 'fill'"))
        #expect(run(&c, ["play", "fill", "soon"], text, idle).0
            == .error("play fill: when is now, beat, bar, bars N (1-64) or end, not 'soon'"))
        #expect(run(&c, ["play", "fill", "bars", "65"], text, idle).0
            == .error("play fill: when is now, beat, bar, bars N (1-64) or end, not 'bars 65'"))
        let song = PatternControls.Text(names: text.names, hasSong: true)
        let (refused, none) = run(&c, ["play", "fill"], song, idle)
        #expect(refused == .error("play: the song is playing and decides the pattern; 'song off' first"))
        #expect(none == nil)
        #expect(run(&c, ["song", "off"], song, idle).0 == .answer("song off: play NAME switches patterns"))
        #expect(run(&c, ["play", "fill"], song, idle).1?.number == 3)
        #expect(run(&c, ["song", "maybe"], song, idle).0 == .error("song: takes on or off"))
    }

    @Test("patterns lists them in text order with the one playing and the one queued, and the song")
    func patternsList() throws {
        var c = PatternControls()
        #expect(run(&c, ["patterns"], text, PatternControls.Playing(playing: 2, queued: 3)).0
            == .answer("intro, groove (playing), fill (queued); no song"))
        let song = PatternControls.Text(names: text.names, hasSong: true)
        #expect(c.patternsText(song, now: idle) == "intro (playing), groove, fill; song on")
    }

    @Test("the prompt plays a text of several patterns whole (its text as written), shows it, and refuses edits that would lose patterns")
    func severalPatterns() throws {
        var editor = try PatternEditor(parsing: Array(Self.withSong.utf8))
        #expect(editor.patternNames == ["intro", "groove", "fill"])
        #expect(editor.arrangement?.song != nil)
        #expect(editor.text == Array(Self.withSong.utf8))
        #expect(editor.snapshot(tag: 1).partCount == 3)
        #expect(editor.run("show") == .answer(String(Self.withSong.dropLast())))
        for command in ["add 0 1 60 100", "remove 1", "length 8", "lane b length 2", "seed 3", "clear"] {
            let word = String(command.split(separator: " ")[0])
            #expect(editor.run(command) == .error(
                "\(word): the editor edits one pattern; this text has 3 patterns with a switch, triggers or a song (version 3): it plays, edit it as text"))
        }
        #expect(editor.text == Array(Self.withSong.utf8))
        // save FILE.mid: what tactus export writes of the text (its song once through, at 120 bpm); FILE.mid NAME, one pattern.
        let folder = "/tmp/tactus-pattern-controls-\(getpid())"
        mkdir(folder, 0o700)
        defer { unlink(folder + "/song.mid"); unlink(folder + "/fill.mid"); rmdir(folder) }
        let song = try TextExport.make(
            text: Array(Self.withSong.utf8), pattern: editor.pattern, patternName: nil, loops: 1, bpm: 120, name: "song", label: "the text", otherPattern: "")
        #expect(song.summary.hasPrefix("the song, once through (3 entries"))
        #expect(editor.run("save \(folder)/song.mid") == .answer("saved \(folder)/song.mid: \(song.summary)"))
        let bytes = try FileInput.read(folder + "/song.mid").get()
        #expect(bytes == song.bytes)
        let answer = editor.run("save \(folder)/fill.mid fill")
        #expect(answer == .answer("saved \(folder)/fill.mid: pattern 3 'fill' of 3: 1 note (1 loop of 2 beats) at 120 bpm, 96 ticks per quarter note, every beat exact"), "\(answer)")
        #expect(editor.run("save \(folder)/verse.mid verse") == .error("save: the text has no pattern 'verse' (its patterns: 'intro', 'groove', 'fill'); nothing was written"))
        #expect(editor.run("save x.pattern fill") == .error("save: takes one file (FILE.mid PATTERN writes one pattern of several)"))
        // A one-pattern text is edited as before.
        let one = try PatternEditor(parsing: Array("tactus-pattern 1\nlength 4\nnote 0 1 60 100\n".utf8))
        #expect(one.arrangement == nil && one.patternNames == ["main"])
    }
}
