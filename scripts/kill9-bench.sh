#!/usr/bin/env bash
# Durability benchmark: `repel serve --data-dir` is killed with SIGKILL while 8 writers create
# pods, restarted, and checked — every acknowledged create present, the resourceVersion
# continuing — REPEL_KILL9_CYCLES times (default 100), on the release build.
#   scripts/kill9-bench.sh            # 100 cycles
#   REPEL_KILL9_CYCLES=500 scripts/kill9-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export REPEL_KILL9_CYCLES="${REPEL_KILL9_CYCLES:-100}"
cargo test --release -p repel-cli --test serve -- --ignored --exact kill_9_benchmark --nocapture 2>&1 \
  | grep -E "kill -9:|test result|panicked|lost"
