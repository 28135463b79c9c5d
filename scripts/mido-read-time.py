#!/usr/bin/python3
"""mido-read-time.py FILE [RUNS]: mido (python3-mido) reading one Standard MIDI
File, RUNS times (default 5) after one unmeasured run, for BENCHMARKS.md beside
tactus-smf-bench. Prints mido<TAB>BYTES<TAB>NOTES<TAB>MIN_MS<TAB>MEDIAN_MS
(NOTES: note-ons with a velocity above 0)."""
import os
import statistics
import sys
import time

import mido

path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
mido.MidiFile(path)
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    f = mido.MidiFile(path)
    times.append((time.perf_counter() - t0) * 1000)
notes = sum(1 for t in f.tracks for m in t if m.type == 'note_on' and m.velocity > 0)
print('mido\t%d\t%d\t%f\t%f' % (os.path.getsize(path), notes, min(times), statistics.median(times)))
