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
import sys

from ptyconsole import Console


def main():
    cells = sys.argv[1:] + ["exit"]
    c = Console()

    def prompted(n):
        """Whether the console has shown its prompt In [n] (drawn again as
        the cell is accepted, hence a number, not a count of prompts)."""
        return lambda: b"In [%d]" % n in c.text()

    ok = True
    for i, cell in enumerate(cells):
        if not c.read(prompted(i + 1)):
            ok = False
            break
        c.type(cell)
    if ok:
        c.read(lambda: False)  # to the end: exit ends the console
    c.finish(ok)


if __name__ == "__main__":
    main()
