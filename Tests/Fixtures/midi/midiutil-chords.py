#!/usr/bin/python3
"""Writes midiutil-chords.mid with MIDIUtil 1.2.1 (PyPI): two tracks at 960
PPQ, a tempo change, fractional beats (thirds and fifths, rounded to ticks
by MIDIUtil), overlapping notes of one key, a program change, pitch bends
and a controller. Run: PYTHONPATH=DIR-WITH-MIDIUTIL python3 midiutil-chords.py"""
from midiutil import MIDIFile

f = MIDIFile(2, ticks_per_quarternote=960, eventtime_is_ticks=False, deinterleave=False)
f.addTempo(0, 0, 96)
f.addTempo(0, 8, 132)
f.addTimeSignature(0, 0, 3, 2, 24)
f.addProgramChange(1, 1, 0, 33)
for bar in range(4):
    base = bar * 3
    for i, key in enumerate((60, 64, 67)):
        f.addNote(0, 0, key, base + i / 3, 1 / 3, 80 + i * 10)
    f.addNote(0, 0, 72, base + 1, 2, 70)          # overlaps the next one of its key
    f.addNote(0, 0, 72, base + 2, 1 / 5, 90)
    f.addNote(1, 1, 36 + bar, base, 3, 100)
    f.addPitchWheelEvent(1, 1, base + 1.5, 2048 * bar)
    f.addControllerEvent(1, 1, base, 7, 100 - bar * 10)
with open("midiutil-chords.mid", "wb") as out:
    f.writeFile(out)
