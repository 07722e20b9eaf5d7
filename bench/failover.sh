#!/usr/bin/env bash
# PostgreSQL failover takeover time: a PostgreSQL 17 primary (Maven Central's zonky binaries, TLS
# on) and its physical standby with the router's slot synchronized, a real one-node Kafka broker,
# rows written all along; the primary is crashed (SIGSTOP, then SIGKILL of every process) and the
# standby promoted at once. Runs the failover case of tests/faults/test_pg_failover.cpp RUNS times
# (default 3) and prints, per run, rows and events as that test counts them, and the times from the
# kill to the end of pg_promote() and to the router streaming from the promoted standby; then medians.
#   bench/failover.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
runs=${RUNS:-3}
program=$build/tests/faults_test_pg_failover
[ -x "$program" ] || { echo "missing $program: build first (make build)" >&2; exit 1; }
out=${BENCH_OUT:-$root/bench/out/failover}
rm -rf "$out" && mkdir -p "$out"
echo "machine: $(nproc) cores, load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
for run in $(seq "$runs"); do
  "$program" --log_level=message --color_output=no --run_test=a_crashed_primary_and_a_promoted_standby_lose_no_row_and_invent_no_event \
    >"$out/run-$run.log" 2>&1 || { echo "run $run failed: $out/run-$run.log" >&2; exit 1; }
  grep -o 'failover on PostgreSQL.*' "$out/run-$run.log" | tee -a "$out/summary.txt"
done
for what in "promoted" "router streaming from it"; do
  median=$(sed -n "s/.*$what \([0-9]*\) ms after the kill.*/\1/p" "$out/summary.txt" | sort -n |
    awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}')
  echo "$what: median $median ms after the kill over $runs runs"
done
