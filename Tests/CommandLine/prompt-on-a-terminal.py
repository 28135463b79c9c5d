#!/usr/bin/env python3
"""tactus jack's prompt on a terminal (a pseudo-terminal here): Tab completes
a command, Up recalls the last line, keys are edited in place, and no raw
escape sequence (^[[A) reaches the screen. Prints ok/FAIL lines.
Usage: prompt-on-a-terminal.py TACTUS SERVER"""
import os, pty, select, sys, time

tactus, server = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv(tactus, [tactus, "jack", "--server", server, "--name", server + "-prompt", "-q"])

def read_until(marker, seconds=5.0):
    out = b""
    end = time.time() + seconds
    while time.time() < end and marker not in out:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out

failures = 0
def check(name, ok, seen):
    global failures
    print(("ok   " if ok else "FAIL ") + name)
    if not ok:
        failures += 1
        print("     saw: " + repr(seen[-400:]))

check("the prompt shows", b"tactus> " in read_until(b"tactus> "), b"")
os.write(fd, b"sh\t\r")
out = read_until(b"tactus> ")
check("Tab completes 'sh' to 'show', which runs", b"length 4  (8 notes)" in out, out)
check("show prints note names beside the numbers", b"48 110        # C3" in out, out)
os.write(fd, b"add 0 1 F#3 100\r")
out = read_until(b"tactus> ")
os.write(fd, b"\x1b[A\x1b[D\x1b[D\x1b[D\x1b[D\x7f\x7f\x7fC4 \r")  # Up, Left x4, 3 backspaces: "add 0 1 C4 100"
out = read_until(b"tactus> ")
check("Up recalls the last line, and Left and Backspace edit it", b"^[[A" not in out and b"^[[D" not in out, out)
os.write(fd, b"show\r")
out = read_until(b"tactus> ")
check("... so the edited line added C4", b"10: note 0 1 60 100" in out and b"9: note 0 1 54 100" in out, out)
os.write(fd, b"quit\r")
out = read_until(b"tactus jack:")
_, status = os.waitpid(pid, 0)
check("quit ends the session with status 0", os.WEXITSTATUS(status) == 0, out)
sys.exit(1 if failures else 0)
