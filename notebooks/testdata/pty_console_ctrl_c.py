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
interact()" precedes it) and a second more, for progress to wait; the
SIGINT for the note's "kill -INT PID"; exit for the report of the
interrupted statement and a prompt after it. It exits 1 when a step waits
in vain, saying which on stderr.

With --simple-prompt, the console runs in that mode, where Ctrl-C reaches
the kernel: after it, the script waits for the report of the interrupted
statement and a prompt, types NEXT_CELL, and waits for the prompt after
it; it sends no SIGINT of its own.
"""
import os
import re
import signal
import sys
import time

from ptyconsole import Console


def main():
    args = sys.argv[1:]
    simple = args[:1] == ["--simple-prompt"]
    *setup, long_cell, next_cell = args[1:] if simple else args
    c = Console(*(["--simple-prompt"] if simple else []))
    text, out = c.text, c.out

    def step(what, until):
        if not c.read(until):
            raise TimeoutError(what)

    try:
        for i, cell in enumerate(setup + [long_cell]):
            step("prompt In [%d]" % (i + 1), lambda: b"In [%d]" % (i + 1) in text())
            c.type(cell)
        mark = len(out)
        step("the long statement's progress", lambda: b"iterations" in text(mark))
        os.write(c.fd, b"\x03")
        mark = len(out)
        interrupted = re.compile(rb"interrupted[^\n]*\n(.|\n)*In \[(\d+)\]")
        if simple:
            step("the report of the interrupted statement and a prompt", lambda: interrupted.search(text(mark)))
            n = int(interrupted.search(text(mark)).group(2))
            c.type(next_cell)
            step("prompt In [%d]" % (n + 1), lambda: b"In [%d]" % (n + 1) in text(mark))
        else:
            step("a prompt after Ctrl-C", lambda: re.search(rb"In \[\d+\]", text(mark)))
            # A second at the prompt, as a user takes to type: the fit's
            # progress states wait meanwhile, and the console prints them
            # at the Enter, before it draws the prompt again.
            time.sleep(1)
            c.type(next_cell)
            note = re.compile(rb"kill -INT (\d+)")
            step("the kernel's note on the cell that runs on", lambda: note.search(text(mark)))
            os.kill(int(note.search(text(mark)).group(1)), signal.SIGINT)
            mark = len(out)
            step("the report of the interrupted statement and a prompt", lambda: interrupted.search(text(mark)))
        c.type("exit")
        c.read(lambda: False)  # to the end: exit ends the console
        ok = True
    except TimeoutError as e:
        sys.stderr.write("waited in vain for %s\n" % e)
        ok = False
    c.finish(ok)


if __name__ == "__main__":
    main()
