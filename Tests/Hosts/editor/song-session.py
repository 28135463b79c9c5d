#!/usr/bin/env python3
"""The jalv.gtk3 sessions with a large pattern (scripts/host-test, part "editor").

  song-session.py cells SONG N          N empty cells of the editor's first view of SONG, as "X Y"
                                        (window coordinates: where a click adds a note)
  song-session.py loaded LOG SONG       exit 0 once the dump shows the editor had SONG whole
  song-session.py unreceived LOG SONG FROM TO
                                        the clicks between FROM and TO (ms) came before the editor had
                                        SONG whole, and it sent no edit at all
  song-session.py edited LOG SONG OUT   the edits the editor sent, applied to SONG (each must apply to
                                        the text before it), written to OUT; the plugin's announcement of
                                        the last names that text; prints the figures (sizes, latencies)

LOG is jalv.gtk3 -d's output through stamp.py (each line after its time in ms).
The editor's view at its default size: 96 pixels a beat from x = 56, key rows
of 12 pixels from y = 40, 27 rows (PianoRollGeometry's defaults; fitKeys).
"""
import base64
import os
import re
import statistics
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Editor"))
from pattern_messages import apply_change, text_hash  # noqa: E402

NOTE = re.compile(r"^\s*note\s+(\S+)\s+(\S+)\s+(\S+)\s+(\d+)")


def notes(text):
    out = []
    for line in text.splitlines():
        m = NOTE.match(line.split("#", 1)[0])
        if m:
            out.append((Fraction(m.group(1)), Fraction(m.group(2)), int(m.group(3))))
    return out


def top_key(keys, rows=27):
    low, high = (min(keys), max(keys)) if keys else (60, 60)
    span = high - low + 1
    top = high + (rows - span) // 2 if span <= rows else high
    return max(top, rows - 1)


def cells(song, count):
    ns = notes(song)
    top = top_key([k for _, _, k in ns])
    found = []
    for key in range(top - 2, top - 26, -3):
        for q in range(0, 26, 3):
            start = Fraction(q, 4)
            if any(k == key and s < start + Fraction(1, 4) and start < s + d for s, d, k in ns):
                continue
            found.append((56 + int(start * 96) + 6, 40 + (top - key) * 12 + 6))
            if len(found) == count:
                return found
    return found


def blocks(path):
    """The dump's messages: (ms, direction, text of the Turtle)."""
    out = []
    current = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            ms, _, line = raw.partition("\t")
            m = re.match(r"^(?:\x1b\[[0-9;]*m)?## (UI => Plugin|Plugin => UI) \(", line)
            if m:
                current = [float(ms), m.group(1), []]
                out.append(current)
            elif current is not None:
                current[2].append(line)
    return [(ms, d, "".join(lines)) for ms, d, lines in out]


def value(turtle, key):
    m = re.search(re.escape(key) + r' "(-?\d+)"', turtle)
    return int(m.group(1)) if m else None


def long_string(turtle):
    m = re.search(r'patch:value """(.*?)"""', turtle, re.S) or re.search(r'patch:value "(.*?)"(?:\^\^| ;| \.)', turtle, re.S)
    return m.group(1).encode() if m else None


def chunk(turtle):
    m = re.search(r'patch:value (?:"""|")([A-Za-z0-9+/=\s]*)(?:"""|")\^\^xsd:base64Binary', turtle)
    return base64.b64decode(re.sub(r"\s", "", m.group(1))) if m else None


def received_at(log, song):
    """When the editor had SONG whole (the pieces delivered to it), or None."""
    want, have = len(song), bytearray()
    for ms, direction, turtle in blocks(log):
        if direction != "Plugin => UI":
            continue
        if "urn:tactus:textPiece" in turtle:
            if value(turtle, "<urn:tactus:textLength>") != want:
                continue
            offset, data = value(turtle, "<urn:tactus:textOffset>"), chunk(turtle)
            if data is not None and offset == len(have):
                have += data
        elif "patch:property <urn:tactus:pattern>" in turtle and long_string(turtle) == song:
            return ms
        if len(have) == want and bytes(have) == song:
            return ms
    return None


def edits(log):
    return [(ms, t) for ms, d, t in blocks(log) if d == "UI => Plugin" and "a patch:Set" in t
            and re.search(r"patch:property <urn:tactus:(pattern|patternChange)>", t)]


def main():
    what = sys.argv[1]
    if what == "cells":
        song = open(sys.argv[2], encoding="utf-8").read()
        for x, y in cells(song, int(sys.argv[3])):
            print(x, y)
        return 0
    log, song = sys.argv[2], open(sys.argv[3], "rb").read()
    if what == "loaded":
        return 0 if received_at(log, song) is not None else 1
    if what == "unreceived":
        first, last = float(sys.argv[4]), float(sys.argv[5])
        whole = received_at(log, song)
        sent = edits(log)
        if sent:
            print(f"the editor sent {len(sent)} edits of a pattern it had not received whole")
            return 1
        if whole is not None and whole < last:
            print(f"the editor had the pattern {last - whole:.0f} ms before the last click: nothing was tested")
            return 1
        print(f"clicks and keys from {first:.0f} to {last:.0f} ms; the editor had the pattern whole at "
              + (f"{whole:.0f} ms" if whole else "no time") + "; no edit sent")
        return 0
    # edited
    out = sys.argv[4]
    text, latencies, sizes = song, [], []
    announcements = [(ms, t) for ms, d, t in blocks(log) if d == "Plugin => UI"
                     and ("urn:tactus:textPiece" in t or "patch:property <urn:tactus:pattern>" in t)]
    sent = edits(log)
    if not sent:
        print("the editor sent no edit")
        return 1
    for ms, turtle in sent:
        number = value(turtle, "patch:sequenceNumber")
        change = long_string(turtle)
        if change is None:
            print(f"edit {number}: no value in the dump")
            return 1
        try:
            text = apply_change(text, change) if b"tactus-change 1\n" == change[:16] else change
        except ValueError as e:
            print(f"edit {number} does not apply to the text before it: {e}")
            return 1
        sizes.append(len(change))
        answer = next((a for a in announcements if a[0] >= ms and value(a[1], "patch:sequenceNumber") == number), None)
        if answer is None:
            print(f"the plugin never announced edit {number}")
            return 1
        latencies.append(answer[0] - ms)
        last = answer[1]
    if "urn:tactus:textPiece" in last:
        named = (value(last, "<urn:tactus:textLength>"), value(last, "<urn:tactus:textHash>"))
        want = (len(text), text_hash(text) - (1 << 64) if text_hash(text) >= 1 << 63 else text_hash(text))
        if named != want:
            print(f"the plugin's last announcement names {named}, the edited text is {want}")
            return 1
    elif long_string(last) != text:
        print("the plugin's last announcement is not the edited text")
        return 1
    open(out, "wb").write(text)
    print(f"{len(sent)} edits sent as changes of {min(sizes)}-{max(sizes)} bytes, each applied to the text before it; "
          f"from the editor's write to the plugin's announcement reaching it (jalv's dump, polled at 60 Hz): "
          f"median {statistics.median(latencies):.0f} ms, longest {max(latencies):.0f} ms")
    print(f"MEDIAN {statistics.median(latencies):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
