#!/usr/bin/python3
"""Note lists of Standard MIDI Files as mido reads them, for the differential
test of Tactus's reader (Tests/Model/TactusModelTests/MIDIFileDifferentialTests.swift).

For each file given, prints `FILE path`, then `ERROR reason` when mido refuses
it, else `PPQ n` and one line `NOTE track start end key channel velocity` per
note (ticks; channel 1-16), in the order of the note-ons within each track.

mido (python3-mido) parses the bytes; the note pairing here applies Tactus's
rules of docs/midi-files.md on top, since mido only lists messages:
velocity-0 note-on is a note-off (M4); a note-off ends the earliest open note
of its key and channel (M4); a track ends at its first End of Track (M2: mido
keeps reading the chunk after it), or at its last message; notes still open
then end there (M4).
"""
import sys
from collections import defaultdict, deque

import mido


def notes_of(track):
    tick = 0
    notes = []
    open_notes = defaultdict(deque)
    for msg in track:
        tick += msg.time
        if msg.type == 'end_of_track':
            break
        if msg.type == 'note_on' and msg.velocity > 0:
            open_notes[(msg.channel, msg.note)].append(len(notes))
            notes.append([tick, tick, msg.note, msg.channel + 1, msg.velocity])
        elif msg.type in ('note_off', 'note_on'):
            queue = open_notes[(msg.channel, msg.note)]
            if queue:
                notes[queue.popleft()][1] = tick
    for queue in open_notes.values():
        for i in queue:
            notes[i][1] = tick
    return notes


def main():
    out = sys.stdout
    for path in sys.argv[1:]:
        out.write('FILE %s\n' % path)
        try:
            f = mido.MidiFile(path)
        except Exception as e:  # mido raises IOError, EOFError, ValueError, KeyError...
            out.write('ERROR %s: %s\n' % (type(e).__name__, str(e).replace('\n', ' ')))
            continue
        out.write('PPQ %d\n' % f.ticks_per_beat)
        for number, track in enumerate(f.tracks, 1):
            for n in notes_of(track):
                out.write('NOTE %d %d %d %d %d %d\n' % (number, n[0], n[1], n[2], n[3], n[4]))


if __name__ == '__main__':
    main()
