#!/usr/bin/env python3
"""repel serve at upstream's largest size (issue 14, point 5), the whole path a user runs.

Starts `repel serve --nodes NODES` (release build), opens a watch on every pod, applies
DEPLOYMENTS Deployments of REPLICAS replicas each with kubectl, and measures:

- the time from the apply until every pod is Running (as the watch saw it);
- whether the watch, started before the apply, saw every pod bound (`spec.nodeName`);
- the time `kubectl get pods -A` takes to list them all (kubectl pages with limit=500 and
  continue tokens, and its client-side rate limit — 5 requests/s after a burst of 10 — sets a
  floor of (pages - 10) / 5 seconds whatever the server), and the time the same pages take
  without that rate limit (the server's side);
- the server's peak memory (VmHWM);
- its CPU at rest (everything Running, 5 s);
- `kubectl delete deployment bench-0` (background deletion), and the time until the garbage
  collector has taken all its pods.

Usage: scripts/serve-bench.py [--nodes 5000] [--deployments 50] [--replicas 3000]
       [--repel target/release/repel] [--data-dir DIR]
`--data-dir` runs the server on a redb file there (a new directory: every write committed before
it is acknowledged) instead of in memory.
A benchmark, not a test: it prints what it measured and exits 1 only when something failed
(the server did not start, a pod never ran, the list or the watch missed pods).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_deployments import deployments_yaml  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--deployments", type=int, default=50)
    ap.add_argument("--replicas", type=int, default=3000)
    ap.add_argument("--repel", default="target/release/repel")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--data-dir", help="serve with --data-dir DIR (a new, empty directory)")
    ap.add_argument("--serve-log", help="write the server's stderr here (REPEL_TRACE_DRIVER=1 "
                    "makes it print each control-plane pass's times)")
    a = ap.parse_args()
    total = a.deployments * a.replicas
    tmp = tempfile.mkdtemp(prefix="repel-serve-bench-")
    kc = os.path.join(tmp, "kubeconfig")
    data = ["--data-dir", a.data_dir] if a.data_dir else []
    serve = subprocess.Popen(
        [a.repel, "serve", "--nodes", str(a.nodes), "--listen", "127.0.0.1:0",
         "--kubeconfig-out", kc] + data,
        stdout=subprocess.PIPE,
        stderr=open(a.serve_log, "w") if a.serve_log else subprocess.DEVNULL, text=True)
    try:
        first = serve.stdout.readline()
        # "repel serve: listening on http://127.0.0.1:PORT (N nodes, M pods)"
        url = first.split("listening on ")[1].split()[0]
        for _ in range(100):
            if os.path.exists(kc):
                break
            time.sleep(0.05)
        env = dict(os.environ, KUBECONFIG=kc)

        bound, running = set(), set()
        done = threading.Event()
        all_running_at = [None]
        last_running = [None]

        def watch():
            req = urllib.request.urlopen(f"{url}/api/v1/pods?watch=true", timeout=a.timeout)
            for line in req:
                ev = json.loads(line)
                obj = ev.get("object", {})
                meta = obj.get("metadata", {})
                key = (meta.get("namespace"), meta.get("name"))
                if ev.get("type") == "DELETED":
                    continue
                if obj.get("spec", {}).get("nodeName"):
                    bound.add(key)
                if obj.get("status", {}).get("phase") == "Running" and key not in running:
                    running.add(key)
                    last_running[0] = time.monotonic()
                    if len(running) >= total and all_running_at[0] is None:
                        all_running_at[0] = time.monotonic()
                        done.set()
                        return

        threading.Thread(target=watch, daemon=True).start()
        time.sleep(0.5)

        manifest = os.path.join(tmp, "deployments.yaml")
        with open(manifest, "w") as f:
            f.write(deployments_yaml(a.deployments, a.replicas))
        t0 = time.monotonic()
        subprocess.run(["kubectl", "apply", "-f", manifest], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        applied = time.monotonic() - t0
        ok = done.wait(a.timeout)
        t_running = (all_running_at[0] - t0) if ok else None

        t1 = time.monotonic()
        out = subprocess.run(["kubectl", "get", "pods", "-A", "--no-headers"], env=env,
                             check=True, capture_output=True, text=True).stdout
        t_list = time.monotonic() - t1
        listed = sum(1 for line in out.splitlines() if line.strip())

        # The server's side of the same list: every page of 500, as the Table kubectl asks
        # for, read by a client without kubectl's client-side rate limit (client-go's default
        # 5 requests/s after a burst of 10, which alone makes kubectl's 300 pages of 150,000
        # pods take at least (300 - 10) / 5 = 58 s on any server, upstream's included).
        accept = ("application/json;as=Table;v=v1;g=meta.k8s.io,"
                  "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json")
        t2 = time.monotonic()
        pages, rows, token = 0, 0, None
        while True:
            q = "limit=500" + (f"&continue={token}" if token else "")
            req = urllib.request.Request(f"{url}/api/v1/pods?{q}", headers={"Accept": accept})
            page = json.load(urllib.request.urlopen(req, timeout=a.timeout))
            pages += 1
            rows += len(page.get("rows", []))
            token = page.get("metadata", {}).get("continue")
            if not token:
                break
        t_pages = time.monotonic() - t2
        floor = max(0, pages - 10) / 5

        hwm_kb = 0
        with open(f"/proc/{serve.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm_kb = int(line.split()[1])

        # The server at rest (everything Running): its CPU over 5 s of wall time.
        def cpu_ticks():
            with open(f"/proc/{serve.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime
        c0, w0 = cpu_ticks(), time.monotonic()
        time.sleep(5)
        idle = (cpu_ticks() - c0) / os.sysconf("SC_CLK_TCK") / (time.monotonic() - w0)

        # kubectl delete of one Deployment (background): the command, then until the garbage
        # collector has taken every one of its pods.
        t3 = time.monotonic()
        subprocess.run(["kubectl", "delete", "deployment", "bench-0"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        t_delete = time.monotonic() - t3
        while True:
            q = "labelSelector=app%3Dbench-0&limit=1"
            page = json.load(urllib.request.urlopen(
                f"{url}/api/v1/namespaces/default/pods?{q}", timeout=a.timeout))
            if not page.get("items") or time.monotonic() - t3 > a.timeout:
                break
            time.sleep(0.05)
        t_gone = time.monotonic() - t3

        print(f"nodes {a.nodes}, deployments {a.deployments} x {a.replicas} = {total} pods"
              + (f", --data-dir {a.data_dir}" if a.data_dir else ", in memory"))
        print(f"kubectl apply: {applied:.1f} s")
        if t_running is None:
            last = (last_running[0] - t0) if last_running[0] else float("nan")
            print(f"NOT all Running within {a.timeout:.0f} s: {len(running)} Running (the last "
                  f"{last:.1f} s after the apply began), {len(bound)} bound")
        else:
            print(f"every pod Running {t_running:.1f} s after the apply began")
        print(f"the watch saw {len(bound)} of {total} pods bound")
        print(f"kubectl get pods -A: {listed} pods in {t_list:.1f} s (kubectl's own rate limit "
              f"alone takes {floor:.0f} s for {pages} pages)")
        print(f"the same {pages} pages (Table, limit 500) without a client rate limit: {rows} "
              f"pods in {t_pages:.1f} s")
        print(f"peak memory (VmHWM): {hwm_kb / 1024 / 1024:.2f} GiB")
        print(f"at rest: {idle * 100:.1f} % of a core")
        print(f"kubectl delete deployment bench-0: {t_delete:.1f} s; its {a.replicas} pods gone "
              f"{t_gone:.1f} s after the command began")
        failed = t_running is None or len(bound) < total or listed < total or rows < total
        return 1 if failed else 0
    finally:
        serve.terminate()
        serve.wait()


if __name__ == "__main__":
    sys.exit(main())
