"""Round trip of a trivial execute as jupyter_client sees it.

usage: roundtrip.py (--connection-file FILE | --ipykernel) [-n N] [--code CODE]

With --connection-file it drives a running kernel; with --ipykernel it starts
/usr/bin/python3 -m ipykernel_launcher on a fresh connection file and shuts
it down afterwards. After 20 warm-up executes it times N executes from
kc.execute() to the execute_reply and to the idle status on iopub, and
prints one JSON line with the medians and 10%/90% quantiles in ms.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def wait_ready(kc, timeout=30):
    """kernel_info until answered (the heartbeat-based wait_for_ready gives
    up on a kernel that is still starting)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        mid = kc.kernel_info()
        try:
            while True:
                r = kc.get_shell_msg(timeout=1)
                if r["parent_header"].get("msg_id") == mid:
                    break
        except Exception:
            continue
        try:  # ready once this request's idle status arrives on iopub
            while True:
                m = kc.get_iopub_msg(timeout=0.5)
                if (m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status"
                        and m["content"]["execution_state"] == "idle"):
                    return
        except Exception:
            continue
    raise SystemExit("kernel never answered kernel_info")


def run(path, n, code):
    kc = BlockingKernelClient()
    kc.load_connection_file(path)
    kc.start_channels(hb=False)
    wait_ready(kc)
    reply_ms, idle_ms = [], []
    for i in range(20 + n):
        t0 = time.perf_counter()
        mid = kc.execute(code)
        while True:
            r = kc.get_shell_msg(timeout=10)
            if r["parent_header"].get("msg_id") == mid:
                break
        t1 = time.perf_counter()
        if r["content"]["status"] != "ok":
            raise SystemExit("execute failed: %r" % r["content"])
        while True:
            m = kc.get_iopub_msg(timeout=10)
            if (m["parent_header"].get("msg_id") == mid and m["msg_type"] == "status"
                    and m["content"]["execution_state"] == "idle"):
                break
        t2 = time.perf_counter()
        if i >= 20:
            reply_ms.append((t1 - t0) * 1e3)
            idle_ms.append((t2 - t0) * 1e3)
    kc.stop_channels()
    return {
        "n": n,
        "reply_median_ms": round(statistics.median(reply_ms), 3),
        "reply_p10_ms": round(quantile(reply_ms, 0.1), 3),
        "reply_p90_ms": round(quantile(reply_ms, 0.9), 3),
        "idle_median_ms": round(statistics.median(idle_ms), 3),
    }


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--connection-file")
    g.add_argument("--ipykernel", action="store_true")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--code", default="1")
    a = ap.parse_args()
    if a.connection_file:
        res = run(a.connection_file, a.n, a.code)
        res["kernel"] = "copulang"
    else:
        d = tempfile.mkdtemp()
        path = os.path.join(d, "kernel-ipy.json")
        write_connection_file(path, ip="127.0.0.1", key=str(uuid.uuid4()).encode())
        proc = subprocess.Popen([sys.executable, "-m", "ipykernel_launcher", "-f", path],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            res = run(path, a.n, a.code)
        finally:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        res["kernel"] = "ipykernel"
    print(json.dumps(res))


if __name__ == "__main__":
    main()
