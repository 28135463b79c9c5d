#!/usr/bin/env python3
"""A command's progress line as a person sees it on a terminal (a
pseudo-terminal here): runs COMMAND..., reads what it writes as it comes, and
checks the line the way a person would judge it, without asserting a
wall-clock time: it must move at least once for every second the command ran
(Tactus redraws four times a second: four times the slack), its percentages
never go back, and it must end at 100 %. Prints ok/FAIL lines; exits 1 on a
FAIL. Usage: progress-on-a-terminal.py NAME COMMAND...
"""
import os, pty, re, select, sys, time

name, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
out = b""
start = time.monotonic()
while True:
    ready, _, _ = select.select([fd], [], [], 0.05)
    if not ready:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:  # the command ended (EIO on Linux)
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
elapsed = time.monotonic() - start
text = out.decode("utf-8", "replace")

# Every redraw is "\r" + the line + "ESC [K"; the last ends with a line feed.
lines = re.findall(r"\r([^\r\n\x1b]*)\x1b\[K", text)
shown = [l for l in lines if l]
percents = [int(m.group(1)) for m in (re.search(r"\((\d+)%\)", l) for l in shown) if m]
failures = 0


def check(what, ok, detail):
    global failures
    print(("ok   " if ok else "FAIL ") + f"{name}: {what}")
    if not ok:
        failures += 1
        print("     " + detail)
        print("     saw: " + repr(text[-600:]))


check("exits 0", os.WEXITSTATUS(status) == 0, f"exit status {os.WEXITSTATUS(status)}")
distinct = len(set(shown))
check(f"the line moves at least once a second ({distinct} lines in {elapsed:.1f} s)",
      distinct >= max(2, int(elapsed)), f"{distinct} different lines in {elapsed:.1f} s: {shown[:6]}")
check("its percentages never go back", percents == sorted(percents), f"percentages {percents}")
check("it ends at 100 %", bool(shown) and "(100%)" in shown[-1] and re.search(r"\x1b\[K\r?\n", text) is not None,
      f"last line {shown[-1] if shown else None!r}")
sys.exit(1 if failures else 0)
