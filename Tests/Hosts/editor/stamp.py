#!/usr/bin/env python3
"""Copies standard input to standard output, each line after the time it was read
(milliseconds on the monotonic clock, a tab): jalv's dump of the messages
between the plugin and its editor, timed (scripts/host-test, part "editor")."""
import sys
import time

for line in sys.stdin:
    sys.stdout.write(f"{time.monotonic() * 1000:.1f}\t{line}")
    sys.stdout.flush()
