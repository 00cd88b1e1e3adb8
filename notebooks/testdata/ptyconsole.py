"""What the pty_console scripts share: `jupyter console --kernel copulang`
under a pseudo-terminal of 80 × 24 that answers the terminal's cursor
position requests (ESC [ 6 n), as a terminal would, so that prompt_toolkit
does not wait for them; reading until a condition holds; typing a cell; and
the end of a run, which writes everything the terminal received to stdout,
as it came.
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
T = 60  # seconds a read waits at most


class Console:
    """A jupyter console with the given arguments after --kernel copulang."""

    def __init__(self, *args):
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            os.environ.pop("JUPYTER_CONSOLE_TEST", None)  # it forces the simple prompt
            os.environ["TERM"] = "xterm"
            os.execv(sys.executable, [sys.executable, "-m", "jupyter_console", "--kernel", "copulang", *args])
        self.pid, self.fd, self.out = pid, fd, bytearray()

    def text(self, since=0):
        """What the terminal received from byte since on, without ANSI codes."""
        return ANSI.sub(b"", bytes(self.out[since:]))

    def read(self, until):
        """Read until until() holds or the console ends; False on timeout."""
        deadline = time.time() + T
        while time.time() < deadline:
            if until():
                return True
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if not r:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the console has ended
                return until()
            if not chunk:
                return until()
            if b"\x1b[6n" in chunk:
                os.write(self.fd, b"\x1b[1;1R")
            self.out.extend(chunk)
        return False

    def type(self, cell):
        """Type cell and Enter."""
        time.sleep(0.2)  # prompt_toolkit takes keys once its prompt is drawn
        os.write(self.fd, cell.encode() + b"\r")

    def finish(self, ok):
        """End the console, write what the terminal received to stdout and
        exit, 0 if ok."""
        try:
            os.kill(self.pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        sys.stdout.buffer.write(bytes(self.out))
        sys.exit(0 if ok else 1)
