"""Drive a copulang kernel (serving the Go test's fake engine) with jupyter_client.

usage: driver.py CONNECTION_FILE

Every check raises on failure; the script prints "PASS <name>" per check and
"ALL PASSED" at the end, and the Go test (TestJupyterClient) requires both.
"""
import json
import sys
import time

import zmq
from jupyter_client import BlockingKernelClient
from jupyter_client.session import Session

T = 10  # seconds to wait for any single message


def check(cond, what, *ctx):
    if not cond:
        raise AssertionError(what + (": " + repr(ctx) if ctx else ""))


def collect(kc, msg_id):
    """iopub messages of one request, up to and including its idle status."""
    out = []
    deadline = time.time() + T
    while time.time() < deadline:
        m = kc.get_iopub_msg(timeout=T)
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        out.append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            return out
    raise AssertionError("no idle status for " + msg_id)


def collect_many(kc, ids):
    """iopub messages of several requests, until each has its idle status."""
    out = {i: [] for i in ids}
    pending = set(ids)
    deadline = time.time() + T
    while pending and time.time() < deadline:
        m = kc.get_iopub_msg(timeout=T)
        i = m["parent_header"].get("msg_id")
        if i not in out:
            continue
        out[i].append(m)
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
            pending.discard(i)
    check(not pending, "no idle status for", pending)
    return out


def ensure_iopub(kc):
    """kernel_info until its idle status arrives on iopub: the subscription
    is then in place (wait_for_ready does not guarantee it)."""
    deadline = time.time() + T
    while time.time() < deadline:
        mid = kc.kernel_info()
        reply(kc, mid)
        try:
            while True:
                m = kc.get_iopub_msg(timeout=0.5)
                if (m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status"
                        and m["content"]["execution_state"] == "idle"):
                    return
        except Exception:
            pass
    raise AssertionError("iopub never delivered")


def reply(kc, msg_id, channel="shell"):
    get = kc.get_shell_msg if channel == "shell" else kc.get_control_msg
    while True:
        m = get(timeout=T)
        if m["parent_header"].get("msg_id") == msg_id:
            return m


def types(msgs):
    return [m["msg_type"] for m in msgs]


def execute(kc, code, **kw):
    mid = kc.execute(code, **kw)
    r = reply(kc, mid)
    return r, collect(kc, mid)


def main(path):
    kc = BlockingKernelClient()
    kc.load_connection_file(path)
    kc.start_channels()
    kc.wait_for_ready(timeout=T)
    ensure_iopub(kc)

    # kernel_info
    mid = kc.kernel_info()
    r = reply(kc, mid)
    c = r["content"]
    check(r["msg_type"] == "kernel_info_reply", "kernel_info reply type", r["msg_type"])
    check(c["protocol_version"] == "5.3", "protocol_version", c)
    check(c["language_info"]["name"] == "copulang", "language name", c)
    check(c["language_info"]["mimetype"] == "text/x-copulang", "mimetype", c)
    check(c["language_info"]["file_extension"] == ".cop", "file_extension", c)
    check(r["header"]["version"] == "5.3", "header version", r["header"])
    io = collect(kc, mid)
    check(types(io) == ["status", "status"], "kernel_info busy/idle", types(io))
    check(io[0]["content"]["execution_state"] == "busy", "busy first", io)
    print("PASS kernel_info")

    # execute: echo
    r, io = execute(kc, "hello")
    c = r["content"]
    check(c["status"] == "ok", "execute status", c)
    n = c["execution_count"]
    check(n >= 1, "execution_count", c)
    check(types(io) == ["status", "execute_input", "execute_result", "status"], "echo iopub", types(io))
    check(io[1]["content"] == {"code": "hello", "execution_count": n}, "execute_input", io[1]["content"])
    check(io[2]["content"]["data"] == {"text/plain": "hello"}, "execute_result data", io[2]["content"])
    check(io[2]["content"]["execution_count"] == n, "execute_result count", io[2]["content"])
    r, io = execute(kc, "hello again")
    check(r["content"]["execution_count"] == n + 1, "count increments", r["content"])
    n += 1
    print("PASS execute")

    # streams, displays, unicode
    r, io = execute(kc, "stream héllo ✓")
    s = [m["content"] for m in io if m["msg_type"] == "stream"]
    check(s == [{"name": "stdout", "text": "héllo ✓\n"}, {"name": "stderr", "text": "warning\n"}], "streams", s)
    r, io = execute(kc, "display")
    d = [m for m in io if m["msg_type"] in ("display_data", "update_display_data")]
    check(types(d) == ["display_data", "update_display_data"], "display types", types(io))
    check(d[0]["content"]["data"] == {"text/plain": "first"}, "display data", d[0]["content"])
    check(d[0]["content"]["transient"] == {"display_id": "d1"}, "display id", d[0]["content"])
    check(d[1]["content"]["data"] == {"text/plain": "second"}, "update data", d[1]["content"])
    check(d[1]["content"]["transient"] == {"display_id": "d1"}, "update id", d[1]["content"])
    n += 2
    print("PASS outputs")

    # errors and panics
    r, io = execute(kc, "error bad thing")
    c = r["content"]
    check(c["status"] == "error" and c["ename"] == "ValueError" and c["evalue"] == "bad thing", "error reply", c)
    check(c["traceback"] == ["ValueError: bad thing\n  at line 1"], "traceback", c)
    e = [m["content"] for m in io if m["msg_type"] == "error"]
    check(len(e) == 1 and e[0]["ename"] == "ValueError", "iopub error", io)
    r, io = execute(kc, "panic")
    c = r["content"]
    check(c["status"] == "error" and c["ename"] == "InternalError" and "boom" in c["evalue"], "panic reply", c)
    r, io = execute(kc, "alive")
    check(r["content"]["status"] == "ok", "kernel alive after panic", r["content"])
    n += 3
    check(r["content"]["execution_count"] == n, "count after errors", r["content"], n)
    print("PASS errors")

    # silent and store_history
    r, io = execute(kc, "quiet", silent=True)
    check(r["content"]["status"] == "ok", "silent ok", r["content"])
    check(r["content"]["execution_count"] == n, "silent does not count", r["content"], n)
    check(types(io) == ["status", "status"], "silent publishes only status", types(io))
    r, io = execute(kc, "unstored", store_history=False)
    check(r["content"]["execution_count"] == n, "store_history=False does not count", r["content"])
    check("execute_result" in types(io), "store_history=False still shows", types(io))
    print("PASS silent")

    # stop_on_error: executes queued behind an error are aborted
    ids = [kc.execute("slowerror"), kc.execute("queued one"), kc.execute("queued two")]
    st = [reply(kc, i)["content"]["status"] for i in ids]
    check(st == ["error", "aborted", "aborted"], "abort queue", st)
    io = collect_many(kc, ids)
    check(types(io[ids[1]]) == ["status", "status"], "aborted request publishes only status", types(io[ids[1]]))
    ids = [kc.execute("slowerror", stop_on_error=False), kc.execute("runs anyway")]
    st = [reply(kc, i)["content"]["status"] for i in ids]
    check(st == ["error", "ok"], "stop_on_error=False", st)
    collect_many(kc, ids)
    r, io = execute(kc, "after abort")
    check(r["content"]["status"] == "ok", "runs after the queue drained", r["content"])
    n = r["content"]["execution_count"]
    print("PASS stop_on_error")

    # complete, with code points before the cursor that are several bytes long
    for code, pos, start in [("x = fi", 6, 4), ("é ✓ = fi", 8, 6), ("fi + 1", 2, 0)]:
        mid = kc.complete(code, pos)
        c = reply(kc, mid)["content"]
        check(c["status"] == "ok" and c["matches"] == ["fit", "fitted"], "complete matches", code, c)
        check((c["cursor_start"], c["cursor_end"]) == (start, pos), "complete range", code, c)
        collect(kc, mid)
    print("PASS complete")

    # inspect
    mid = kc.inspect("ü summary m", 4, 1)
    c = reply(kc, mid)["content"]
    check(c["status"] == "ok" and c["found"] is True, "inspect found", c)
    check(c["data"] == {"text/plain": "summary: documentation (detail 1)"}, "inspect data", c)
    collect(kc, mid)
    mid = kc.inspect("nothing", 2, 0)
    c = reply(kc, mid)["content"]
    check(c["status"] == "ok" and c["found"] is False, "inspect not found", c)
    collect(kc, mid)
    print("PASS inspect")

    # is_complete
    for code, want in [("model m {", "incomplete"), ("fit m", "complete"), ("}", "invalid")]:
        mid = kc.is_complete(code)
        c = reply(kc, mid)["content"]
        check(c["status"] == want, "is_complete", code, c)
        if want == "incomplete":
            check(c["indent"] == "  ", "indent", c)
        collect(kc, mid)
    print("PASS is_complete")

    # history
    mid = kc.history(hist_access_type="tail", n=2, raw=True, output=False)
    h = reply(kc, mid)["content"]["history"]
    check([x[2] for x in h] == ["runs anyway", "after abort"], "history tail", h)
    check(h[-1][1] == n, "history line numbers", h, n)
    mid = kc.history(hist_access_type="search", pattern="stream*", raw=True, output=False, n=10)
    h = reply(kc, mid)["content"]["history"]
    check([x[2] for x in h] == ["stream héllo ✓"], "history search", h)
    mid = kc.history(hist_access_type="range", session=0, start=1, stop=3, raw=True, output=False)
    h = reply(kc, mid)["content"]["history"]
    check([(x[1], x[2]) for x in h] == [(1, "hello"), (2, "hello again")], "history range", h)
    print("PASS history")

    # comms
    mid = kc.comm_info()
    c = reply(kc, mid)["content"]
    check(c["status"] == "ok" and c["comms"] == {}, "comm_info", c)
    msg = kc.session.msg("comm_open", {"comm_id": "c-1", "target_name": "nothing", "data": {}})
    kc.shell_channel.send(msg)
    io = collect(kc, msg["header"]["msg_id"])
    cl = [m["content"] for m in io if m["msg_type"] == "comm_close"]
    check(cl and cl[0]["comm_id"] == "c-1", "comm_open answered by comm_close", types(io))
    print("PASS comms")

    # unknown message types are ignored
    msg = kc.session.msg("no_such_request", {})
    kc.shell_channel.send(msg)
    collect(kc, msg["header"]["msg_id"])
    r, io = execute(kc, "still here")
    check(r["content"]["status"] == "ok", "after unknown type", r["content"])
    print("PASS unknown")

    # interrupt through the control channel, answered within 1 s
    mid = kc.execute("sleep")
    while True:
        m = kc.get_iopub_msg(timeout=T)
        if m["parent_header"].get("msg_id") == mid and m["msg_type"] == "execute_input":
            break
    t0 = time.time()
    imsg = kc.session.msg("interrupt_request", {})
    kc.control_channel.send(imsg)
    ir = reply(kc, imsg["header"]["msg_id"], "control")
    check(ir["msg_type"] == "interrupt_reply" and ir["content"]["status"] == "ok", "interrupt_reply", ir)
    r = reply(kc, mid)
    dt = time.time() - t0
    check(r["content"]["status"] == "error" and r["content"]["ename"] == "KeyboardInterrupt", "interrupted", r["content"])
    check(dt < 1.0, "interrupt latency %.3f s" % dt)
    collect(kc, mid)
    print("PASS interrupt %.1f ms" % (dt * 1e3))

    # messages signed with the wrong key, and unsigned ones, are ignored
    with open(path) as f:
        info = json.load(f)
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.linger = 0
    if info["transport"] == "ipc":
        sock.connect("ipc://%s-%d" % (info["ip"], info["shell_port"]))
    else:
        sock.connect("tcp://%s:%d" % (info["ip"], info["shell_port"]))
    if info["key"]:
        for bad in (Session(key=b"wrong key"), Session(key=b"")):
            bad.send(sock, "kernel_info_request", {})
        check(sock.poll(500) == 0, "a badly signed request got an answer")
    good = Session(key=info["key"].encode())
    good.send(sock, "kernel_info_request", {})
    check(sock.poll(T * 1000) != 0, "no answer to a well signed request")
    idents, msg = good.feed_identities(sock.recv_multipart())
    check(good.deserialize(msg)["msg_type"] == "kernel_info_reply", "raw kernel_info")
    sock.close()
    print("PASS signatures")

    # heartbeat echoes
    hb = ctx.socket(zmq.REQ)
    hb.linger = 0
    if info["transport"] == "ipc":
        hb.connect("ipc://%s-%d" % (info["ip"], info["hb_port"]))
    else:
        hb.connect("tcp://%s:%d" % (info["ip"], info["hb_port"]))
    hb.send(b"ping")
    check(hb.poll(T * 1000) != 0, "heartbeat silent")
    check(hb.recv() == b"ping", "heartbeat echo")
    hb.close()
    print("PASS heartbeat")

    # shutdown on control; restart flag echoed
    mid = kc.shutdown(restart=True)
    r = reply(kc, mid, "control")
    check(r["msg_type"] == "shutdown_reply" and r["content"] == {"status": "ok", "restart": True}, "shutdown_reply", r)
    print("PASS shutdown")
    kc.stop_channels()
    print("ALL PASSED")


if __name__ == "__main__":
    main(sys.argv[1])
