#!/usr/bin/env bash
# Commit-to-acknowledgement latency at steady event rates, in small transactions.
#   bench/latency.sh [RATE[:ROWS_PER_TXN]]...     (default: 1000:1 5000:1 20000:10)
#   (20,000 events/s as 2,000 transactions of 10 rows: on 2 cores shared with the router, the mock
#   cluster and the consumer, PostgreSQL tops out near 9,000 single-row commits per second)
#   env: RUN_SECONDS=15 (measured, per run), WARMUP=3 (seconds, not measured), CONNECTIONS=8
#        (writer connections, default 8), REPEATS=3 (runs per rate; medians reported), KAFKA_PROPS (router),
#        FETCH_WAIT_MS=1 (the cross-checking consumer's fetch.wait.max.ms: 1 makes commit->consume
#        exact to ~1 ms, but the consumer and the mock cluster then turn over ~1,000 fetches a second
#        per broker, CPU the router's commit->ack competes with on 2 cores)
#
# For every run: a fresh slot (created before the router starts) and a fresh Kafka mock cluster
# (outbox-bench-kafka, topic outbox.event.Latency with 4 partitions); outbox-router with its
# default settings except the connection, slot and publication, with /metrics enabled and
# liboutbox-bench-ackhook.so preloaded (records when each delivery report reaches the router);
# then outbox-bench-latency writes at the rate for WARMUP + RUN_SECONDS, consumes every record,
# stops the router and reports. PostgreSQL runs with its defaults (fsync and synchronous_commit on)
# plus track_commit_timestamp = on, so commit times are exact. See docs/benchmarks.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=(1000:1 5000:1 20000:10)
run_seconds=${RUN_SECONDS:-15}
warmup=${WARMUP:-3}
connections=${CONNECTIONS:-8}
fetch_wait_ms=${FETCH_WAIT_MS:-1}
bench_init latency
machine
for exe in "$build/bench/outbox-bench-latency" "$build/bench/liboutbox-bench-ackhook.so"; do
  [ -e "$exe" ] || { echo "missing $exe: build first" >&2; exit 1; }
done

pg_start
sql -c "ALTER SYSTEM SET track_commit_timestamp = on"
"$scripts/pg-cluster.sh" stop "$out/pg"
pg_start
outbox_setup

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

run=0
: >"$out/summary"
for spec in "${specs[@]}"; do
  rate=${spec%%:*}
  per_txn=1
  [[ $spec == *:* ]] && per_txn=${spec#*:}
  for ((rep = 1; rep <= repeats; rep++)); do
    run=$((run + 1))
    slot="latency_$run"
    quiet=$(wait_quiet)
    slot_create "$slot"
    kafka_start outbox.event.Latency:4
    metrics_port=$(free_port)
    router_config "$out/$slot.yaml" "$slot" "metrics:" "  listen: \"127.0.0.1:$metrics_port\""
    # The latency runs use the router's default status interval, not the throughput script's 10 ms.
    sed -i '/status.update.interval.ms/d' "$out/$slot.yaml"
    LD_PRELOAD=$build/bench/liboutbox-bench-ackhook.so OUTBOX_BENCH_ACK_LOG=$out/$slot.acks \
      "$router_bin" --config "$out/$slot.yaml" >"$out/$slot.log" 2>&1 &
    router_pid=$!
    until grep -q "streaming from slot" "$out/$slot.log"; do
      kill -0 "$router_pid" 2>/dev/null || { cat "$out/$slot.log"; exit 1; }
      sleep 0.02
    done
    echo "== $rate events/s, $per_txn row(s) per transaction, run $rep of $repeats (background before: $quiet cores)"
    "$build/bench/outbox-bench-latency" --conninfo "$conninfo" --bootstrap "$kafka_addr" --rate "$rate" \
      --rows-per-txn "$per_txn" --seconds "$run_seconds" --warmup "$warmup" --connections "$connections" \
      --fetch-wait-ms "$fetch_wait_ms" --base $((run * 100000000)) --router-pid "$router_pid" --ack-log "$out/$slot.acks" \
      --metrics-url "http://127.0.0.1:$metrics_port/metrics" | tee "$out/$slot.report"
    wait "$router_pid" || true
    router_pid=
    kafka_stop
    sql -c "SELECT pg_drop_replication_slot('$slot')" >/dev/null
    echo "rate=$rate per_txn=$per_txn $(sed -n 's/^summary: //p' "$out/$slot.report")" >>"$out/summary"
  done
done

echo
echo "medians over $repeats runs per rate (RUN_SECONDS=$run_seconds after WARMUP=$warmup, $connections writer connections, consumer fetch wait $fetch_wait_ms ms):"
printf '%-8s %-7s %-9s %-22s %-22s %-10s %-9s %s\n' rate rows/txn achieved "commit->ack p50/p99" "commit->consume p50/p99" "CPU/event" "VmHWM" "busy cores"
for spec in "${specs[@]}"; do
  rate=${spec%%:*}
  per_txn=1
  [[ $spec == *:* ]] && per_txn=${spec#*:}
  lines=$(grep "^rate=$rate per_txn=$per_txn " "$out/summary")
  m() { echo "$lines" | field "$1" | median; }
  printf '%-8s %-7s %-9.0f %-22s %-22s %-10s %-9s %s\n' "$rate" "$per_txn" "$(m achieved)" \
    "$(printf '%.2f / %.2f ms' "$(m ack_p50_ms)" "$(m ack_p99_ms)")" \
    "$(printf '%.2f / %.2f ms' "$(m consume_p50_ms)" "$(m consume_p99_ms)")" \
    "$(printf '%.2f us' "$(m cpu_us_per_event)")" "$(printf '%.1f MiB' "$(calc "$(m rss_kib) / 1024")")" "$(m busy_cores)"
done
