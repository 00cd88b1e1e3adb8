"""Press Ctrl-C in `jupyter console --kernel copulang` (default,
prompt_toolkit mode, under a pseudo-terminal of 80 × 24) during a long
statement, type a cell at the prompt that follows, and stop the statement
as the kernel's note says, with SIGINT to the process it names; then
`exit`. Write everything the terminal received to stdout, as it came.

usage: pty_console_ctrl_c.py [--simple-prompt] SETUP_CELL... LONG_CELL NEXT_CELL

Each step waits for what it needs (at most 60 s each): each setup cell and
the long one for the prompt that takes it (In [1], In [2], ...); Ctrl-C for
the long statement's progress (its "iterations"); NEXT_CELL for the prompt
after Ctrl-C (the console's own message "KeyboardInterrupt escaped
interact()" precedes it); the SIGINT for the note's "kill -INT PID"; exit
for the report of the interrupted statement and a prompt after it. It exits
1 when a step waits in vain, saying which on stderr.

With --simple-prompt, the console runs in that mode, where Ctrl-C reaches
the kernel: after it, the script waits for the report of the interrupted
statement and a prompt, types NEXT_CELL, and waits for the prompt after
it; it sends no SIGINT of its own.
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>]")
T = 60


def main():
    args = sys.argv[1:]
    simple = args[:1] == ["--simple-prompt"]
    *setup, long_cell, next_cell = args[1:] if simple else args
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        os.environ.pop("JUPYTER_CONSOLE_TEST", None)  # it forces the simple prompt
        os.environ["TERM"] = "xterm"
        os.execv(sys.executable, [sys.executable, "-m", "jupyter_console", "--kernel", "copulang"]
                 + (["--simple-prompt"] if simple else []))
    out = bytearray()

    def text(since=0):
        return ANSI.sub(b"", bytes(out[since:]))

    def read(until):
        """Read until until() holds or the console ends; False on timeout."""
        deadline = time.time() + T
        while time.time() < deadline:
            if until():
                return True
            r, _, _ = select.select([fd], [], [], 0.1)
            if not r:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the console has ended
                return until()
            if not chunk:
                return until()
            if b"\x1b[6n" in chunk:
                os.write(fd, b"\x1b[1;1R")
            out.extend(chunk)
        return False

    def step(what, until):
        if not read(until):
            raise TimeoutError(what)

    def type_cell(cell):
        time.sleep(0.2)  # prompt_toolkit takes keys once its prompt is drawn
        os.write(fd, cell.encode() + b"\r")

    try:
        for i, cell in enumerate(setup + [long_cell]):
            step("prompt In [%d]" % (i + 1), lambda: b"In [%d]" % (i + 1) in text())
            type_cell(cell)
        mark = len(out)
        step("the long statement's progress", lambda: b"iterations" in text(mark))
        os.write(fd, b"\x03")
        mark = len(out)
        interrupted = re.compile(rb"interrupted[^\n]*\n(.|\n)*In \[(\d+)\]")
        if simple:
            step("the report of the interrupted statement and a prompt", lambda: interrupted.search(text(mark)))
            n = int(interrupted.search(text(mark)).group(2))
            type_cell(next_cell)
            step("prompt In [%d]" % (n + 1), lambda: b"In [%d]" % (n + 1) in text(mark))
        else:
            step("a prompt after Ctrl-C", lambda: re.search(rb"In \[\d+\]", text(mark)))
            type_cell(next_cell)
            note = re.compile(rb"kill -INT (\d+)")
            step("the kernel's note on the cell that runs on", lambda: note.search(text(mark)))
            os.kill(int(note.search(text(mark)).group(1)), signal.SIGINT)
            mark = len(out)
            step("the report of the interrupted statement and a prompt", lambda: interrupted.search(text(mark)))
        type_cell("exit")
        read(lambda: False)  # to the end: exit ends the console
        ok = True
    except TimeoutError as e:
        sys.stderr.write("waited in vain for %s\n" % e)
        ok = False
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    sys.stdout.buffer.write(bytes(out))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
