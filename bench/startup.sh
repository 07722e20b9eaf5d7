#!/usr/bin/env bash
# Start-up time: process start (fork) to the "streaming from slot" log line, with an existing slot
# and publication, PostgreSQL and the Kafka mock cluster already running. RUNS runs (default 10)
# with the minimal configuration, then RUNS with /metrics enabled (HTTP server and slot monitor).
#   bench/startup.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"

runs=${RUNS:-10}
bench_init startup
machine
[ -x "$build/bench/outbox-bench-startup" ] || { echo "missing outbox-bench-startup: build first" >&2; exit 1; }

pg_start
outbox_setup
slot_create startup
kafka_start
router_config "$out/minimal.yaml" startup
metrics_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
router_config "$out/metrics.yaml" startup "metrics:" "  listen: \"127.0.0.1:$metrics_port\""
sed -i '/status.update.interval.ms/d' "$out/minimal.yaml" "$out/metrics.yaml"

for variant in minimal metrics; do
  echo "== $variant configuration ($out/$variant.yaml), $runs runs"
  "$build/bench/outbox-bench-startup" --runs "$runs" --log "$out/$variant.log" -- "$router_bin" --config "$out/$variant.yaml" |
    tee "$out/$variant.txt" | tail -n 1
done
