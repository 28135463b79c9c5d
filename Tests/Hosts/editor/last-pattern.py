#!/usr/bin/env python3
"""The last pattern text the plugin sent its editor, from jalv's -d dump.

Usage: last-pattern.py JALV_LOG OUT_PATTERN
Prints the sequence number it came with (0 when none). jalv prints each
message as Turtle under a "## Plugin => UI (N bytes) ##" line; the pattern
is the patch:value of a patch:Set whose patch:property is urn:tactus:pattern.
"""
import re
import sys

log = open(sys.argv[1], encoding="utf-8", errors="replace").read()
# Each line may come after the time it was written (Tests/Hosts/editor/stamp.py).
log = re.sub(r"(?m)^[0-9.]+\t", "", log)
last = None
for block in re.split(r"\n## ", log):
    if not block.startswith("Plugin => UI") or "patch:property <urn:tactus:pattern>" not in block:
        continue
    value = re.search(r'patch:value """(.*?)"""', block, re.S)
    number = re.search(r'patch:sequenceNumber "(\d+)"', block)
    if value:
        last = (value.group(1), int(number.group(1)) if number else 0)
if last is None:
    sys.exit("last-pattern: the plugin sent no pattern to its editor")
open(sys.argv[2], "w", encoding="utf-8").write(last[0])
print(last[1])
