#!/usr/bin/env bash
# Replays a target's seed corpus, then fuzzes it for OUTBOX_FUZZ_SECONDS (default 5). New inputs
# go to FOUND_DIR (kept between runs); a crash leaves crash-* in the working directory and fails.
set -euo pipefail
target=$1 seeds=$2 found=$3 dict=$4
mkdir -p "$found"
exec "$target" -max_total_time="${OUTBOX_FUZZ_SECONDS:-5}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -dict="$dict" "$found" "$seeds"
