#!/usr/bin/env python3
"""The whole path a user runs on a live cluster, timed: each read-only command through
`--kubeconfig`, and the same command on the cluster's snapshot (`-f DIR`).

A benchmark, not a test. It reads the cluster only (list and get, as `repel snapshot` does); it
never writes to it unless `--fill` asks it to start its own server.

    scripts/live-bench.py --kubeconfig K [--context C]   # your cluster, read-only
    scripts/live-bench.py --fill                           # repel serve --nodes 5000 + 50 x 3,000

With `--fill` it starts `repel serve --nodes NODES`, applies DEPLOYMENTS Deployments of REPLICAS
replicas with kubectl (the shape of scripts/serve-bench.py: 150,000 explicit, bound pods) and
waits until every pod is bound. Then, for the cluster:

1. `repel snapshot -o DIR` (once per run);
2. each command below, RUNS times through `--kubeconfig` and RUNS times on `-f DIR`,
   alternating: the median wall time and the largest peak memory (the child's ru_maxrss);
3. that the two answers are byte-identical (a live read and its snapshot are one cluster).

Usage: scripts/live-bench.py (--kubeconfig K [--context C] | --fill [--nodes 5000]
       [--deployments 50] [--replicas 3000]) [--runs 3] [--repel target/release/repel]
       [--only NAME,...] [--keep DIR]
Exit status 1 when a command failed or the two answers differ.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_deployments import deployments_yaml  # noqa: E402
import json

# (name, arguments after `repel`); `-o json` everywhere so that the answers can be compared.
COMMANDS = [
    ("schedule", ["schedule", "-o", "json"]),
    ("drain kubectl", ["drain", "--all", "--independent", "--ignore-daemonsets",
                       "--delete-emptydir-data", "--force", "-o", "json"]),
    ("drain cluster-autoscaler", ["drain", "--all", "--independent", "--as",
                                  "cluster-autoscaler", "-o", "json"]),
    ("drain karpenter", ["drain", "--all", "--independent", "--as", "karpenter", "-o", "json"]),
    ("consolidate cluster-autoscaler", ["consolidate", "-o", "json"]),
    ("consolidate karpenter", ["consolidate", "--as", "karpenter", "-o", "json"]),
]


def run(argv, out_path):
    """Runs argv with stdout to out_path; returns (wall seconds, peak RSS in bytes, exit code)."""
    with open(out_path, "wb") as out:
        t0 = time.monotonic()
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 1):
        sys.stderr.write(f"{' '.join(argv)}: exit {p.returncode}\n{err}")
    return wall, usage.ru_maxrss * 1024, p.returncode


def fill(a, tmp):
    """Starts `repel serve --nodes N` and applies the Deployments; returns (process, kubeconfig)."""
    kc = os.path.join(tmp, "kubeconfig")
    serve = subprocess.Popen(
        [a.repel, "serve", "--nodes", str(a.nodes), "--listen", "127.0.0.1:0",
         "--kubeconfig-out", kc], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first = serve.stdout.readline()
    url = first.split("listening on ")[1].split()[0]
    for _ in range(200):
        if os.path.exists(kc):
            break
        time.sleep(0.05)
    manifest = os.path.join(tmp, "deployments.yaml")
    with open(manifest, "w") as f:
        f.write(deployments_yaml(a.deployments, a.replicas))
    t0 = time.monotonic()
    subprocess.run(["kubectl", "--kubeconfig", kc, "apply", "-f", manifest], check=True,
                   stdout=subprocess.DEVNULL)
    want = a.deployments * a.replicas
    while True:
        # One page of everything is the cheapest count (the server's JSON, not a Table).
        page = json.load(urllib.request.urlopen(
            f"{url}/api/v1/pods?fieldSelector=spec.nodeName%21%3D", timeout=600))
        bound = len(page.get("items", []))
        if bound >= want:
            break
        if time.monotonic() - t0 > a.timeout:
            sys.exit(f"only {bound} of {want} pods bound after {a.timeout:.0f} s")
        time.sleep(2)
    print(f"filled: {want} pods bound {time.monotonic() - t0:.1f} s after the apply began",
          flush=True)
    return serve, kc


def main():
    ap = argparse.ArgumentParser()
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--kubeconfig")
    src.add_argument("--fill", action="store_true")
    ap.add_argument("--context")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--deployments", type=int, default=50)
    ap.add_argument("--replicas", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--repel", default="target/release/repel")
    ap.add_argument("--only", help="comma-separated command names (default: all)")
    ap.add_argument("--keep", help="write the snapshot here and keep it")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="repel-live-bench-")
    serve = None
    try:
        if a.fill:
            serve, kc = fill(a, tmp)
        else:
            kc = a.kubeconfig
        live = ["--kubeconfig", kc] + (["--context", a.context] if a.context else [])
        snap = a.keep or os.path.join(tmp, "snapshot")
        rows, failed = [], False

        walls, peaks = [], []
        for _ in range(a.runs):
            subprocess.run(["rm", "-rf", snap])
            w, p, code = run([a.repel, "snapshot", "-o", snap] + live, os.devnull)
            failed |= code != 0
            walls.append(w)
            peaks.append(p)
        rows.append(("snapshot", statistics.median(walls), max(peaks), None, None, None))

        only = set(a.only.split(",")) if a.only else None
        for name, args in COMMANDS:
            if only and name not in only:
                continue
            lw, lp, fw, fp = [], [], [], []
            same = True
            for i in range(a.runs):
                lo, fo = os.path.join(tmp, "live.out"), os.path.join(tmp, "files.out")
                w, p, c1 = run([a.repel] + args + live, lo)
                lw.append(w)
                lp.append(p)
                w, p, c2 = run([a.repel] + args + ["-f", snap], fo)
                fw.append(w)
                fp.append(p)
                failed |= c1 not in (0, 1) or c2 not in (0, 1)
                with open(lo, "rb") as x, open(fo, "rb") as y:
                    same &= x.read() == y.read()
            failed |= not same
            rows.append((name, statistics.median(lw), max(lp), statistics.median(fw), max(fp),
                         same))

        gib = 1024 ** 3
        print(f"{'command':34} {'--kubeconfig':>20} {'-f snapshot':>20}  same answer")
        for name, lw, lp, fw, fp, same in rows:
            live_s = f"{lw:6.2f} s {lp / gib:5.2f} GiB"
            files_s = f"{fw:6.2f} s {fp / gib:5.2f} GiB" if fw is not None else ""
            same_s = "" if same is None else ("yes" if same else "NO")
            print(f"{name:34} {live_s:>20} {files_s:>20}  {same_s}")
        print(f"(median wall of {a.runs} runs, the largest peak memory; repel {a.repel})")
        return 1 if failed else 0
    finally:
        if serve:
            serve.terminate()
            serve.wait()
        subprocess.run(["rm", "-rf", os.path.join(tmp, "snapshot"), os.path.join(tmp, "live.out"),
                        os.path.join(tmp, "files.out")])


if __name__ == "__main__":
    sys.exit(main())
