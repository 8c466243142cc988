#!/usr/bin/env bash
# Makes docs/report.png: the page `repel report` writes for the demo cluster, as headless
# Chromium (Debian's `chromium`) shows it. Usage: scripts/report-screenshot.sh [REPEL]
# (default: the debug build under $CARGO_TARGET_DIR or target/).
set -euo pipefail
cd "$(dirname "$0")/.."
repel=${1:-${CARGO_TARGET_DIR:-target}/debug/repel}
[ -x "$repel" ] || { echo "error: no repel at $repel (cargo build first, or pass its path)" >&2; exit 2; }
command -v chromium >/dev/null || { echo "error: chromium is not installed (apt-get install -y chromium)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$repel" report -f examples/demo/cluster.yaml -o "$tmp/report.html"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$tmp/profile" \
  --hide-scrollbars --window-size=1400,1500 --screenshot="$tmp/report.png" \
  "file://$tmp/report.html" 2>/dev/null
mkdir -p docs
cp "$tmp/report.png" docs/report.png
echo "wrote docs/report.png ($(stat -c %s docs/report.png) bytes)"
