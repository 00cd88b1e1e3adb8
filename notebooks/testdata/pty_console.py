"""Run `jupyter console --kernel copulang` in its default (prompt_toolkit)
mode under a pseudo-terminal of 80 × 24, type each argument as a cell
followed by Enter once the console shows its next prompt (each cell must
take an execution count: In [1], In [2], ...), then `exit`, and
write everything the terminal received to stdout, as it came.

usage: pty_console.py CELL...

It answers the terminal's cursor position requests (ESC [ 6 n), as a
terminal would, so that prompt_toolkit does not wait for them. It exits 1
if a prompt does not come within 60 s.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]")
T = 60


def main():
    cells = sys.argv[1:] + ["exit"]
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.environ.pop("JUPYTER_CONSOLE_TEST", None)  # it forces the simple prompt
        os.environ["TERM"] = "xterm"
        os.execv(sys.executable, [sys.executable, "-m", "jupyter_console", "--kernel", "copulang"])
    out = bytearray()

    def read(until):
        """Read until until(out) holds or the console ends; False on timeout."""
        deadline = time.time() + T
        while time.time() < deadline:
            if until(out):
                return True
            r, _, _ = select.select([fd], [], [], 0.1)
            if not r:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the console has ended
                return until(out)
            if not chunk:
                return until(out)
            if b"\x1b[6n" in chunk:
                os.write(fd, b"\x1b[1;1R")
            out.extend(chunk)
        return False

    def prompted(n):
        """Whether the console has shown its prompt In [n] (drawn again as
        the cell is accepted, hence a number, not a count of prompts)."""
        return lambda b: b"In [%d]" % n in ANSI.sub(b"", bytes(b))

    ok = True
    for i, cell in enumerate(cells):
        if not read(prompted(i + 1)):
            ok = False
            break
        time.sleep(0.2)  # prompt_toolkit takes keys once its prompt is drawn
        os.write(fd, cell.encode() + b"\r")
    if ok:
        read(lambda b: False)  # to the end: exit ends the console
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(out))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
