#!/usr/bin/env bash
# Runs each fuzz target under libFuzzer for RUNS inputs (default 1,000,000), one target after
# another, and prints how many inputs each ran, in how long, and how it ended.
#
#   scripts/fuzz-bench.sh                 # every target
#   scripts/fuzz-bench.sh patch http      # some
#   RUNS=100000 scripts/fuzz-bench.sh     # fewer inputs
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`) and a C++ compiler; builds with
# `--sanitizer none`, so a stable toolchain will do. Every input must end in an error or a
# result: a panic, an abort, an input slower than 10 s (-timeout=10) or a process above 2 GiB
# (-rss_limit_mb=2048) stops the target, and libFuzzer writes the input to
# fuzz/artifacts/<target>/. The committed corpus (fuzz/corpus/<target>/) is read, never
# written: new inputs go to a temporary directory (kept when KEEP_NEW=1, to merge by hand with
# `cargo fuzz cmin`).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-1000000}
ALL=(manifest taint scenario patch selector http)
if [ "$#" -gt 0 ]; then targets=("$@"); else targets=("${ALL[@]}"); fi

cargo fuzz build --sanitizer none

logs=$(mktemp -d)
results=()
for t in "${targets[@]}"; do
  new=$(mktemp -d)
  echo "== $t: $RUNS inputs (log: $logs/$t.log)"
  start=$(date +%s)
  status=0
  cargo fuzz run --sanitizer none "$t" "$new" "fuzz/corpus/$t" -- \
    -runs="$RUNS" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    >"$logs/$t.log" 2>&1 || status=$?
  secs=$(( $(date +%s) - start ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t.log" | tail -1)
  rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$logs/$t.log" | tail -1)
  if [ "$status" -eq 0 ]; then outcome=ok; else
    outcome="FAILED ($(grep -m1 -oE 'deadly signal|panicked at [^:]*:[0-9]+|ERROR: libFuzzer: [a-z-]+' "$logs/$t.log" || echo "exit $status"))"
  fi
  results+=("$(printf '%-9s %10s runs %6ss  peak %5s MB  %s' "$t" "${runs:-?}" "$secs" "${rss:-?}" "$outcome")")
  echo "${results[-1]}"
  if [ "${KEEP_NEW:-0}" = 1 ]; then echo "   new inputs kept in $new"; else rm -rf "$new"; fi
done

echo
echo "target         inputs run   time   peak RSS  outcome"
printf '%s\n' "${results[@]}"
