#!/usr/bin/env bash
# Durability benchmark: `repel serve --data-dir` is killed with SIGKILL while 8 writers create
# pods, restarted, and checked — every acknowledged create present, the resourceVersion
# continuing — REPEL_KILL9_CYCLES times (default 100), on the release build.
#   scripts/kill9-bench.sh            # 100 cycles
#   REPEL_KILL9_CYCLES=500 scripts/kill9-bench.sh
# With `restart`, what one restart costs on a large data directory instead: 5,000 nodes,
# 50 Deployments of 3,000 replicas Running, kill -9 while 8 writers create pods, restart; it
# prints the time until /version answers, the peak memory, and that nothing acknowledged was
# lost (scripts/restart-bench.py; its flags follow `restart`).
#   scripts/kill9-bench.sh restart [--deployments 50 --replicas 3000 --data-dir DIR [--reuse]]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = restart ]; then
  shift
  cargo build --release -p repel-cli
  exec python3 scripts/restart-bench.py --repel "${CARGO_TARGET_DIR:-target}/release/repel" "$@"
fi
export REPEL_KILL9_CYCLES="${REPEL_KILL9_CYCLES:-100}"
cargo test --release -p repel-cli --test tests -- --ignored --exact serve::kill_9_benchmark --nocapture 2>&1 \
  | grep -E "kill -9:|test result|panicked|lost"
