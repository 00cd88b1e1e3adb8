"""Drive the real copulang kernel (the built binary running the session)
with jupyter_client's KernelManager, through the kernelspec that
`copulang install --prefix` wrote.

usage: session_driver.py   (JUPYTER_PATH must point at the kernelspec)

Each check raises on failure; the script prints "PASS <name>" per check and
"ALL PASSED" at the end, and TestKernelRunsSession requires both.
"""
import sys
import time

from jupyter_client.manager import start_new_kernel

T = 60  # seconds to wait for any single message


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + (": " + repr(ctx)[:2000] if ctx else ""))


def run(kc, code, timeout=T):
    """Execute code; return (reply content, iopub messages up to idle)."""
    mid = kc.execute(code)
    msgs = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        m = kc.get_iopub_msg(timeout=timeout)
        if m["parent_header"].get("msg_id") != mid:
            continue
        msgs.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            break
    reply = kc.get_shell_msg(timeout=timeout)
    check(reply["parent_header"]["msg_id"] == mid, "reply to another request")
    return reply["content"], msgs


def of_type(msgs, t):
    return [m for m in msgs if m["msg_type"] == t]


def stdout(msgs):
    return "".join(m["content"]["text"] for m in of_type(msgs, "stream") if m["content"]["name"] == "stdout")


def main():
    km, kc = start_new_kernel(kernel_name="copulang", startup_timeout=T)
    try:
        kc.kernel_info()
        info = kc.get_shell_msg(timeout=T)["content"]
        check(info["language_info"]["name"] == "copulang", "language name", info)
        check(info["language_info"]["file_extension"] == ".cop", "file extension", info)
        print("PASS kernel_info")

        rep, msgs = run(kc, "data sim = simulate(FullCopula(p = 4), n = 300, levels = 3, seed = 2)\n"
                            "model m { Y = sim; Z ~ GaussianCopula(C); Y ordinal Z; C ~ InverseWishart(df = p + 2) }")
        check(rep["status"] == "ok", "declare", rep)
        check("model m" in stdout(msgs), "declare output", stdout(msgs))
        print("PASS execute declarations")

        c = kc.complete("summary m.", 10)
        c = kc.get_shell_msg(timeout=T)["content"]
        check("m.C" in c["matches"] or "C" in c["matches"], "member completion", c)
        c = kc.complete("model q { Y = sim[Y", 19)
        c = kc.get_shell_msg(timeout=T)["content"]
        check(any(x.endswith("Y2") for x in c["matches"]), "column completion", c)
        c = kc.complete("Z ~ Gauss", 9)
        c = kc.get_shell_msg(timeout=T)["content"]
        check("GaussianCopula" in c["matches"], "distribution completion", c)
        print("PASS complete")

        kc.inspect("C ~ InverseWishart(df = 3)", 6)
        r = kc.get_shell_msg(timeout=T)["content"]
        check(r["found"] and "text/plain" in r["data"], "inspect distribution", r)
        kc.inspect("fit m", 5)
        r = kc.get_shell_msg(timeout=T)["content"]
        check(r["found"], "inspect binding", r)
        print("PASS inspect")

        for code, want in [("model m {", "incomplete"), ("fit m with gibbs(", "incomplete"),
                           ("explain m", "complete"), ("model m { ) }", "invalid"),
                           # a string ends on its line: no next line closes the brackets
                           ('data d = load("x.csv", na = ["-9', "invalid")]:
            kc.is_complete(code)
            r = kc.get_shell_msg(timeout=T)["content"]
            check(r["status"] == want, "is_complete " + code, r)
        print("PASS is_complete")

        rep, msgs = run(kc, "fit m with gibbs, iter = 400, warmup = 100, chains = 2, seed = 1")
        check(rep["status"] == "ok", "fit", rep)
        check(of_type(msgs, "display_data"), "fit shows a progress display")
        check("fit m with gibbs" in stdout(msgs), "fit report", stdout(msgs))
        print("PASS fit")

        rep, msgs = run(kc, "summary m.C")
        d = of_type(msgs, "display_data") + of_type(msgs, "execute_result")
        check(d and "text/html" in d[0]["content"]["data"] and "text/plain" in d[0]["content"]["data"], "summary bundle", msgs)
        # the caption first (as the HTML's), then the table's header
        plain = d[0]["content"]["data"]["text/plain"].split("\n")
        check(plain[0].startswith("posterior of m.C: ") and "q5 and q95 bound the central 90% interval" in plain[0],
              "summary caption", plain[:2])
        check(plain[1].split()[:9] ==
              "param mean sd q5 q50 q95 ess_bulk ess_tail rhat".split(), "summary header", d)
        rep, msgs = run(kc, "plot heatmap m.C")
        d = of_type(msgs, "display_data") + of_type(msgs, "execute_result")
        check(d and set(d[0]["content"]["data"]) == {"image/png", "text/html", "text/plain"}, "plot bundle", msgs)
        # the SVG as an <img> in text/html, which nbconvert's HTML exporter keeps (it blanks image/svg+xml)
        check(d[0]["content"]["data"]["text/html"].startswith('<img src="data:image/svg+xml;base64,'), "plot's SVG", d)
        print("PASS rich output")

        rep, msgs = run(kc, "summary m.Q")
        check(rep["status"] == "error", "error status", rep)
        errs = of_type(msgs, "error")
        check(errs and errs[0]["content"]["traceback"][0].startswith(rep["ename"] + ": 1:"), "traceback names the error and position", errs)
        print("PASS error")

        # A long fit, interrupted: the reply must come within 1 s and the
        # draws so far must stay usable.
        mid = kc.execute("fit m with hmc, iter = 100000, warmup = 10, chains = 2, seed = 3")
        deadline = time.time() + T
        started = False
        while time.time() < deadline and not started:
            m = kc.get_iopub_msg(timeout=T)
            started = m["parent_header"].get("msg_id") == mid and m["msg_type"] == "update_display_data"
        check(started, "the long fit shows live progress")
        time.sleep(1.5)
        t0 = time.time()
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=T)
        took = time.time() - t0
        check(reply["parent_header"]["msg_id"] == mid, "interrupt reply")
        check(reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt", "interrupt status", reply["content"])
        check(took < 1.0, "interrupt answered in %.3f s" % took)
        print("PASS interrupt (%.0f ms)" % (took * 1000))
        rep, msgs = run(kc, "summary m.C")
        check(rep["status"] == "ok", "summary after interrupt", rep)
        print("PASS draws kept after interrupt")

        rep, msgs = run(kc, "")
        check(rep["status"] == "ok", "empty cell", rep)
        print("PASS empty cell")

        # A name bound in one cell and rebound as another kind in a later
        # one: the warning names the earlier cell by its execution count.
        first, _ = run(kc, "data other = simulate(FullCopula(p = 3), n = 50, levels = 3)")
        rep, msgs = run(kc, "model other { Y = other; Z ~ GaussianCopula(C); Y ordinal Z; C ~ LKJ() }")
        stderr = "".join(m["content"]["text"] for m in of_type(msgs, "stream") if m["content"]["name"] == "stderr")
        want = "(bound in cell [%d] at 1:1)" % first["execution_count"]
        check(rep["status"] == "ok" and want in stderr, "rebinding warning names the cell: " + want, stderr)
        print("PASS rebinding warning names the earlier cell")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    print("ALL PASSED")


if __name__ == "__main__":
    main()
