"""Drive the real copulang kernel with two jupyter_client clients, one that
behaves as a notebook (nbclient) does and one that behaves as jupyter
console does (an is_complete_request for a cell's code before executing
it), and check how each is shown the progress of a fit.

usage: console_progress_driver.py   (JUPYTER_PATH must point at the kernelspec)

Each check raises on failure; the script prints "PASS <name>" per check and
"ALL PASSED" at the end, and TestKernelConsoleProgress requires both.
"""
import re
import time

from jupyter_client import BlockingKernelClient
from jupyter_client.manager import start_new_kernel

T = 60  # seconds to wait for any single message

DECLARE = ("data sim = simulate(FullCopula(p = 6), n = 1000, levels = 4, seed = 2)\n"
           "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
# About 2 s: eight states or so, at one every 250 ms.
FIT = "fit m with gibbs, iter = 4000, warmup = 500, chains = 2, seed = 1"
STATE = re.compile(r"fit m with gibbs: (\d+)/9000 iterations")


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + (": " + repr(ctx)[:3000] if ctx else ""))


def collect(kc, mid, timeout=T):
    """iopub messages of request mid, up to its idle status."""
    msgs = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = kc.get_iopub_msg(timeout=timeout)
        if m["parent_header"].get("msg_id") != mid:
            continue
        msgs.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return msgs
    raise AssertionError("no idle status for " + mid)


def run(kc, code):
    mid = kc.execute(code)
    msgs = collect(kc, mid)
    reply = kc.get_shell_msg(timeout=T)
    check(reply["parent_header"]["msg_id"] == mid, "reply to another request")
    return reply["content"], msgs


def as_console(kc, code):
    """Ask whether code is complete, then run it, as jupyter console does on Enter."""
    kc.is_complete(code)
    r = kc.get_shell_msg(timeout=T)["content"]
    check(r["status"] == "complete", "is_complete " + code, r)
    return run(kc, code)


def of_type(msgs, t):
    return [m for m in msgs if m["msg_type"] == t]


def stdout(msgs):
    return "".join(m["content"]["text"] for m in of_type(msgs, "stream") if m["content"]["name"] == "stdout")


def console_client(km):
    """A second client, with a session (header.session) of its own."""
    kc = BlockingKernelClient(connection_file=km.connection_file)
    kc.load_connection_file()
    kc.start_channels()
    kc.wait_for_ready(timeout=T)
    return kc


def main():
    km, notebook = start_new_kernel(kernel_name="copulang", startup_timeout=T)
    console = None
    try:
        rep, _ = run(notebook, DECLARE)
        check(rep["status"] == "ok", "declare", rep)

        # A notebook: a display, then its updates; no progress on stdout.
        rep, msgs = run(notebook, FIT)
        check(rep["status"] == "ok", "notebook fit", rep)
        shown = of_type(msgs, "display_data")
        updates = of_type(msgs, "update_display_data")
        check(len(shown) == 1 and len(updates) >= 2, "notebook: one display and its updates",
              len(shown), len(updates))
        first = shown[0]["content"]["data"]["text/plain"]
        # The kernel sends every client it does not know for a console the
        # progress as text beside the display too (kernel/mirror.go), so the
        # first state carries no "no live progress here" note.
        check(first.startswith("fit m with gibbs: starting, 2 chains × 4500 iterations") and
              "the report follows" not in first, "notebook: the first state", first)
        check("\r" not in stdout(msgs) and not STATE.search(stdout(msgs)), "notebook: progress on stdout", stdout(msgs))
        last = updates[-1]["content"]["data"]["text/plain"]
        check("9000/9000 iterations (100%), done" in last, "notebook: the last state", last)
        print("PASS notebook client: display and updates (%d)" % len(updates))

        # A console: the progress as one stdout line rewritten in place.
        console = console_client(km)
        check(console.session.session != notebook.session.session, "the clients share a session")
        rep, msgs = as_console(console, FIT)
        check(rep["status"] == "ok", "console fit", rep)
        check(not of_type(msgs, "update_display_data"), "console: update_display_data", of_type(msgs, "update_display_data"))
        check(not any("fit m with gibbs" in m["content"]["data"].get("text/plain", "") for m in of_type(msgs, "display_data")),
              "console: a progress display", of_type(msgs, "display_data"))
        out = stdout(msgs)
        progress, nl, report = out.partition("\n")
        states = progress.split("\r")
        counts = [int(c) for c in STATE.findall(progress)]
        check(len(states) >= 3 and len(set(counts)) >= 2, "console: several states", states)
        check(counts == sorted(counts), "console: states in order", counts)
        check(states[0].startswith("fit m with gibbs: starting, 2 chains × 4500 iterations")
              and "no live progress" not in states[0], "console: the first state", states[0])
        check("9000/9000 iterations (100%), done" in states[-1], "console: the last state ends the line", states[-1], out[:300])
        check(all(len(s.rstrip()) <= 79 for s in states[:-1]), "console: a state longer than 79 columns", states)
        check(report.startswith("fit m with gibbs: 2 chains × 4500 iterations (500 warm-up) in "), "console: the report after the progress", report[:300])
        print("PASS console client: %d states on one line, then the report" % len(states))

        # The notebook's cells are still shown to it as before.
        rep, msgs = run(notebook, "fit m with gibbs, iter = 200, warmup = 50, chains = 2, seed = 4")
        check(len(of_type(msgs, "display_data")) == 1 and "\r" not in stdout(msgs), "notebook after the console", msgs)
        print("PASS notebook client unchanged beside a console")

        # An interrupt during a console's fit stops it, keeps its draws and
        # ends the progress line with the interrupted state.
        long_fit = "fit m with gibbs, iter = 1000000, warmup = 100, chains = 2, seed = 3"
        console.is_complete(long_fit)
        console.get_shell_msg(timeout=T)
        mid = console.execute(long_fit)
        seen = 0
        deadline = time.time() + T
        while seen < 3 and time.time() < deadline:
            m = console.get_iopub_msg(timeout=T)
            if m["parent_header"].get("msg_id") == mid and m["msg_type"] == "stream" and "fit m with gibbs:" in m["content"]["text"]:
                seen += 1
        check(seen == 3, "console: the long fit's progress", seen)
        km.interrupt_kernel()
        msgs = collect(console, mid)
        reply = console.get_shell_msg(timeout=T)
        check(reply["parent_header"]["msg_id"] == mid and reply["content"]["status"] == "error"
              and reply["content"]["ename"] == "KeyboardInterrupt", "console: interrupt reply", reply["content"])
        out = stdout(msgs)
        check("interrupted" in out and out.endswith("\n"), "console: the interrupted state ends the line", out[-300:])
        rep, msgs = run(console, "summary m.C")
        check(rep["status"] == "ok", "console: summary after the interrupt", rep)
        print("PASS console client: interrupt keeps the draws and ends the line")
    finally:
        if console is not None:
            console.stop_channels()
        notebook.stop_channels()
        km.shutdown_kernel(now=False)
    print("ALL PASSED")


if __name__ == "__main__":
    main()
