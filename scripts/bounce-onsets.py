#!/usr/bin/python3
"""Onset accuracy of a bounce (docs/bounce.md, "Timing").

    bounce-onsets.py make FILE.mid            a MIDI file of isolated percussive notes at non-64-aligned frames
    bounce-onsets.py measure FILE.mid RATE WAV [WAV...]

`make` writes notes (GM drums, channel 10, hi wood block, velocity 127) a second or a little more apart at 120 bpm, PPQ 960, each a different number of ticks after
its half-second, so their exact frames fall at every offset modulo 64; the
first note is at tick 0. `measure` reads each WAV (16- or 24-bit PCM), finds
each note's onset (the first sample above -60 dBFS, and above what is left
of the note before), and reports, per file, onset - exact frame - (the same for the note at
frame 0): the delay an instrument or a player adds to an event, independent
of the sound's own attack. Exact frames: ceil(tick x 500000 x RATE / (960 x 10^6)).
"""
import struct, sys, wave
from fractions import Fraction

PPQ, TEMPO, COUNT = 960, 500000, 64


def note_ticks():
    return [0] + [1920 * k + (k * 37) % 480 for k in range(1, COUNT)]


def make(path):
    import mido
    f = mido.MidiFile(ticks_per_beat=PPQ)
    t = mido.MidiTrack()
    f.tracks.append(t)
    t.append(mido.MetaMessage('set_tempo', tempo=TEMPO, time=0))
    now = 0
    for tick in note_ticks():
        t.append(mido.Message('note_on', channel=9, note=76, velocity=127, time=tick - now))
        t.append(mido.Message('note_off', channel=9, note=76, velocity=0, time=30))
        now = tick + 30
    t.append(mido.MetaMessage('end_of_track', time=960))
    f.save(path)


def exact_frame(tick, rate):
    x = Fraction(tick * TEMPO * rate, PPQ * 10**6)
    return -((-x.numerator) // x.denominator)


def read(path):
    w = wave.open(path)
    n, width, channels = w.getnframes(), w.getsampwidth(), w.getnchannels()
    raw = w.readframes(n)
    step = width * channels
    out = []
    for i in range(n):
        b = raw[i * step:i * step + width]  # left channel
        if width == 2:
            v = struct.unpack('<h', b)[0] / 32768
        elif width == 3:
            v = int.from_bytes(b, 'little', signed=True) / 8388608
        else:
            v = struct.unpack('<i', b)[0] / 2147483648
        out.append(v)
    return out


def onsets(samples, frames):
    """The first sample from 300 frames before each exact frame that rises above
    -60 dBFS and above 4 times the largest sample in the 300 frames before that
    (what is left of the previous note's tail or reverb)."""
    result = []
    for f in frames:
        start = max(0, f - 300)
        floor = max((abs(x) for x in samples[max(0, start - 300):start]), default=0)
        threshold = max(0.001, 4 * floor)
        i = start
        while i < len(samples) and abs(samples[i]) < threshold:
            i += 1
        result.append(i)
    return result


def measure(mid, rate, wavs):
    """Per file: each onset minus its exact frame. The spread (max - min) over
    notes 1-63 is what timing adds (0: every note exactly as late as every
    other, the sound's own attack); 'late' subtracts the attack the first file
    shows for the note at frame 0 (a frame where FluidSynth's 64-frame grid
    adds nothing), which is meaningful for files of the same SoundFont."""
    frames = [exact_frame(t, rate) for t in note_ticks()]
    aligned = sum(1 for f in frames if f % 64 == 0)
    print(f"{len(frames)} notes, {aligned} at frames divisible by 64, rate {rate}")
    reference = None
    for path in wavs:
        found = onsets(read(path), frames)
        offsets = [o - f for o, f in zip(found, frames)]
        if reference is None:
            reference = offsets[0]
        rest = offsets[1:]
        late = [x - reference for x in rest]
        print(f"{path}: note at frame 0: +{offsets[0]}; notes 1-{len(rest)}: onset - frame {min(rest)}..{max(rest)} "
              f"(spread {max(rest) - min(rest)}); late by {min(late)}..{max(late)}, mean {sum(late) / len(late):.1f}")


if __name__ == '__main__':
    if sys.argv[1] == 'make':
        make(sys.argv[2])
    else:
        measure(sys.argv[2], int(sys.argv[3]), sys.argv[4:])
