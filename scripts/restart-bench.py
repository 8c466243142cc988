#!/usr/bin/env python3
"""What a restart of `repel serve --data-dir` costs with a large store, after a kill -9.

Starts `repel serve --nodes NODES --data-dir DIR` (release build), applies DEPLOYMENTS
Deployments of REPLICAS replicas each, waits until every pod is Running, then kills the server
with SIGKILL while WRITERS clients are creating pods, restarts it on the same data directory
and measures:

- the time from the restart's exec until `/version` answers, and until the first page of pods
  (`/api/v1/pods?limit=500`) answers;
- the restarted server's peak memory (VmHWM, read after SETTLE seconds);
- that every acknowledged write is there: every pod listed before the kill and every pod a
  client created and got a 201 for, and the resourceVersion continuing past every one;
- how many Events the store holds (`/api/v1/events`, paged), and the data file's size.

Usage: scripts/restart-bench.py [--nodes 5000] [--deployments 50] [--replicas 3000]
       [--writers 8] [--settle 20] [--repel target/release/repel] [--data-dir DIR] [--reuse]
`--reuse` restarts on an existing data directory (made by an earlier run with --data-dir)
instead of filling a new one. A benchmark, not a test: it prints what it measured and exits 1
only when something failed (a pod lost, the server did not answer).
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(url, timeout=60):
    return json.load(urllib.request.urlopen(url, timeout=timeout))


def start(repel, nodes, data_dir, port, log):
    return subprocess.Popen(
        [repel, "serve", "--nodes", str(nodes), "--listen", f"127.0.0.1:{port}",
         "--data-dir", data_dir],
        stdout=subprocess.DEVNULL, stderr=log)


def wait_for(url, deadline):
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=5).read()
            return time.monotonic()
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.01)
    return None


def names(url, path):
    """Every object's namespace/name under path, paged by 500; and the list's rv."""
    got, token, rv = set(), None, 0
    while True:
        q = "limit=500" + (f"&continue={token}" if token else "")
        page = get(f"{url}{path}?{q}")
        for o in page.get("items", []):
            m = o["metadata"]
            got.add(f"{m.get('namespace', '')}/{m['name']}")
        rv = int(page["metadata"].get("resourceVersion") or rv)
        token = page["metadata"].get("continue")
        if not token:
            return got, rv


def hwm_gib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024 / 1024
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--deployments", type=int, default=50)
    ap.add_argument("--replicas", type=int, default=3000)
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--settle", type=float, default=20.0)
    ap.add_argument("--repel", default="target/release/repel")
    ap.add_argument("--data-dir")
    ap.add_argument("--reuse", action="store_true")
    ap.add_argument("--timeout", type=float, default=900.0)
    a = ap.parse_args()
    total = a.deployments * a.replicas
    data = a.data_dir or tempfile.mkdtemp(prefix="repel-restart-bench-")
    log = open(os.path.join(os.path.dirname(os.path.abspath(data)),
                            os.path.basename(data) + ".log"), "a")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    failed = False
    acked = []
    before = set()
    if not a.reuse:
        serve = start(a.repel, a.nodes, data, port, log)
        if wait_for(f"{url}/version", time.monotonic() + 60) is None:
            print("the server did not start")
            return 1
        t0 = time.monotonic()
        for i in range(a.deployments):
            d = {"apiVersion": "apps/v1", "kind": "Deployment",
                 "metadata": {"name": f"bench-{i}", "namespace": "default"},
                 "spec": {"replicas": a.replicas,
                          "selector": {"matchLabels": {"app": f"bench-{i}"}},
                          "template": {"metadata": {"labels": {"app": f"bench-{i}"}},
                                       "spec": {"containers": [{
                                           "name": "c", "image": "nginx",
                                           "resources": {"requests": {"cpu": "10m",
                                                                      "memory": "16Mi"}}}]}}}}
            req = urllib.request.Request(
                f"{url}/apis/apps/v1/namespaces/default/deployments",
                data=json.dumps(d).encode(), headers={"Content-Type": "application/json"})
            urllib.request.urlopen(req, timeout=60).read()
        while time.monotonic() - t0 < a.timeout:
            q = "fieldSelector=status.phase%21%3DRunning&limit=1"
            page = get(f"{url}/api/v1/pods?{q}")
            pods = get(f"{url}/api/v1/pods?limit=1")
            left = pods["metadata"].get("remainingItemCount", 0) + len(pods["items"])
            if not page["items"] and left >= total:
                break
            time.sleep(1)
        print(f"filled: {total} pods Running in {time.monotonic() - t0:.1f} s "
              f"(peak {hwm_gib(serve.pid):.2f} GiB)")
        before, _ = names(url, "/api/v1/pods")
        # kill -9 while writers are creating pods.
        lock, stop = threading.Lock(), threading.Event()

        def writer(w):
            i = 0
            while not stop.is_set():
                name = f"k-w{w}-p{i}"
                body = {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": name, "namespace": "default"},
                        "spec": {"containers": [{"name": "c", "image": "nginx"}]}}
                req = urllib.request.Request(
                    f"{url}/api/v1/namespaces/default/pods", data=json.dumps(body).encode(),
                    headers={"Content-Type": "application/json"})
                try:
                    obj = json.load(urllib.request.urlopen(req, timeout=10))
                except Exception:
                    return
                with lock:
                    acked.append((f"default/{name}", int(obj["metadata"]["resourceVersion"])))
                i += 1
        threads = [threading.Thread(target=writer, args=(w,)) for w in range(a.writers)]
        for t in threads:
            t.start()
        while True:
            with lock:
                if len(acked) >= 50:
                    break
            time.sleep(0.01)
        serve.send_signal(signal.SIGKILL)
        serve.wait()
        stop.set()
        for t in threads:
            t.join()
    size = os.path.getsize(os.path.join(data, "repel.redb"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    t0 = time.monotonic()
    serve = start(a.repel, a.nodes, data, port, log)
    try:
        t_version = wait_for(f"{url}/version", t0 + a.timeout)
        t_pods = wait_for(f"{url}/api/v1/pods?limit=500", t0 + a.timeout)
        if t_version is None or t_pods is None:
            print("the restarted server did not answer")
            return 1
        time.sleep(a.settle)
        hwm = hwm_gib(serve.pid)
        after, rv = names(url, "/api/v1/pods")
        events, _ = names(url, "/api/v1/events")
        lost = [n for n in before if n not in after] + [n for n, _ in acked if n not in after]
        max_acked = max((r for _, r in acked), default=0)
        print(f"data file: {size / 1e9:.2f} GB; {len(after)} pods, {len(events)} Events after "
              f"the restart")
        print(f"restart: /version answered {t_version - t0:.2f} s after exec, the first page of "
              f"pods {t_pods - t0:.2f} s; peak memory (VmHWM after {a.settle:.0f} s) "
              f"{hwm:.2f} GiB")
        print(f"kill -9 during {a.writers} writers: {len(acked)} acknowledged creates, "
              f"{len(before)} pods listed before; lost: {len(lost)}; resourceVersion {rv} "
              f"after {max_acked}")
        failed = bool(lost) or (acked and rv <= max_acked)
    finally:
        serve.send_signal(signal.SIGKILL)
        serve.wait()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
