#!/usr/bin/env bash
# Commit-to-visible latency at steady rates, Debezium and the router side by side, on one machine,
# database and (fresh per run) real Kafka broker.
#   bench/debezium-latency.sh [RATE[:ROWS_PER_TXN]]...     (default: 1000:1 5000:1; REPEATS=3)
#   env: RUN_SECONDS=15, WARMUP=3, CONNECTIONS=8 (as bench/latency.sh), TRANSPORTS="tls plain" (the
#        PostgreSQL connections of relays and writers, a row each; as bench/debezium.sh)
#
# Each run: a fresh slot and broker (topic outbox.event.Latency, 4 partitions); the relay (the
# router with its defaults, or Debezium as bench/debezium.sh runs it) started and streaming; then
# outbox-bench-latency writes at the rate and a consumer notes when each record can be read:
# commit -> consume is the latency a downstream service sees (the consumer's fetch wait is 1 ms).
# The relay's CPU over the measured window and its VmHWM come from /proc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export KAFKA=real

specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=(1000:1 5000:1)
run_seconds=${RUN_SECONDS:-15}
warmup=${WARMUP:-3}
connections=${CONNECTIONS:-8}
bench_init debezium-latency
machine
pg_start
sql -c "ALTER SYSTEM SET track_commit_timestamp = on"
"$scripts/pg-cluster.sh" stop "$out/pg"
pg_start
outbox_setup

start_relay() {  # KIND SLOT: starts it in the background (relay_pid) and waits until it streams
  local kind=$1 slot=$2 marker
  if [ "$kind" = router ]; then
    router_config "$out/$slot.yaml" "$slot"
    sed -i '/status.update.interval.ms/d' "$out/$slot.yaml"
    "$router_bin" --config "$out/$slot.yaml" >"$out/$slot.log" 2>&1 &
    marker="streaming from slot"
  else
    debezium_files "$slot" "$out/$slot"
    debezium_command "$out/$slot"
    "${debezium_cmd[@]}" >"$out/$slot.log" 2>&1 &
    marker="Processing messages"
  fi
  relay_pid=$!
  until grep -q "$marker" "$out/$slot.log"; do
    kill -0 "$relay_pid" 2>/dev/null || { tail -n 40 "$out/$slot.log"; exit 1; }
    sleep 0.05
  done
}

transports=(${TRANSPORTS:-tls plain})
run=0
: >"$out/summary"
for spec in "${specs[@]}"; do
  parse_spec "$spec"
  for ((rep = 1; rep <= repeats; rep++)); do
    for relay in "${transports[@]/#/router_}" "${transports[@]/#/debezium_}"; do
      kind=${relay%%_*}
      transport=${relay#*_}
      export PG_TRANSPORT=$transport
      conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres $(pg_tls_options)"
      run=$((run + 1))
      slot="${kind}_$run"
      quiet=$(wait_quiet)
      slot_create "$slot"
      kafka_start outbox.event.Latency:4
      start_relay "$kind" "$slot"
      echo "== $kind over $transport: $rate events/s, $per_txn row(s) per transaction, run $rep of $repeats (background before: $quiet cores)"
      "$build/bench/outbox-bench-latency" --conninfo "$conninfo" --bootstrap "$kafka_addr" --rate "$rate" \
        --rows-per-txn "$per_txn" --seconds "$run_seconds" --warmup "$warmup" --connections "$connections" \
        --fetch-wait-ms 1 --consume 1 --base $((run * 100000000)) --router-pid "$relay_pid" --ack-log /dev/null \
        >"$out/$slot.report"
      grep -E "commit -> consume|^router:|WARNING" "$out/$slot.report" | sed "s/^router:/$kind:/"
      # outbox-bench-latency sent SIGTERM; a relay still busy with a backlog gets 60 s, then SIGKILL.
      for ((i = 0; i < 600; i++)); do kill -0 "$relay_pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$relay_pid" 2>/dev/null || true
      wait "$relay_pid" 2>/dev/null || true
      relay_pid=
      kafka_stop
      sql -c "SELECT pg_drop_replication_slot('$slot')" >/dev/null
      echo "kind=$kind transport=$transport rate=$rate per_txn=$per_txn $(sed -n 's/^summary: //p' "$out/$slot.report")" >>"$out/summary"
    done
  done
done

echo
echo "medians over $repeats runs (RUN_SECONDS=$run_seconds after WARMUP=$warmup, $connections writer connections):"
printf '%-9s %-9s %-8s %-7s %-9s %-26s %-12s %-10s\n' relay postgres rate rows/txn achieved "commit->consume p50/p99" CPU/event VmHWM
for spec in "${specs[@]}"; do
  parse_spec "$spec"
  for relay in "${transports[@]/#/router_}" "${transports[@]/#/debezium_}"; do
    kind=${relay%%_*}
    transport=${relay#*_}
    lines=$(grep "^kind=$kind transport=$transport rate=$rate per_txn=$per_txn " "$out/summary")
    m() { echo "$lines" | field "$1" | median; }
    printf '%-9s %-9s %-8s %-7s %-9.0f %-26s %-12s %-10s\n' "$kind" "$transport" "$rate" "$per_txn" "$(m achieved)" \
      "$(printf '%.2f / %.2f ms' "$(m consume_p50_ms)" "$(m consume_p99_ms)")" \
      "$(printf '%.1f us' "$(m cpu_us_per_event)")" "$(printf '%.1f MiB' "$(calc "$(m rss_kib) / 1024")")"
  done
done
