#!/usr/bin/env bash
# Commit-to-acknowledgement latency at steady event rates, in small transactions.
#   bench/latency.sh [RATE[:ROWS_PER_TXN]]...     (default: 1000:1 5000:1 20000:10)
#   (20,000 events/s as 2,000 transactions of 10 rows: on 2 cores shared with the router, the mock
#   cluster and the consumer, PostgreSQL tops out near 9,000 single-row commits per second)
#   env: TRANSPORTS="tls plain" (the PostgreSQL connections of each row, in this order, every
#        run of a rate once per transport: TLS is sslmode=verify-full, plain sslmode=disable),
#        RUN_SECONDS=15 (measured, per run), WARMUP=3 (seconds, not measured), CONNECTIONS=8
#        (writer connections, default 8), REPEATS=3 (runs per rate; medians reported), KAFKA_PROPS (router),
#        FETCH_WAIT_MS=1 (the cross-checking consumer's fetch.wait.max.ms: 1 makes commit->consume
#        exact to ~1 ms, but the consumer and the mock cluster then turn over ~1,000 fetches a second
#        per broker, CPU the router's commit->ack competes with on 2 cores)
#        CONSUMER=0 (1: run the cross-checking consumer, which notes when each record can be read;
#        it shares the 2 cores and the mock cluster's one thread with what is measured, and at
#        5,000/s more than doubles the commit->ack p99: docs/benchmarks-history.md, "Fourth round")
#
# For every run: a fresh slot (created before the router starts) and a fresh Kafka mock cluster
# (outbox-bench-kafka, topic outbox.event.Latency with 4 partitions); outbox-router with its
# default settings except the connection, slot and publication, with /metrics enabled and
# liboutbox-bench-ackhook.so preloaded (records when each delivery report reaches the router);
# then outbox-bench-latency writes at the rate for WARMUP + RUN_SECONDS (consuming every record
# when CONSUMER=1), stops the router and reports. PostgreSQL runs with its defaults (fsync and
# synchronous_commit on) plus track_commit_timestamp = on, so commit times are exact.
#
# After each router run, a floor run: the same database load with the router replaced by its Kafka
# side alone. pgbench writes the same rows at the same rate on as many connections while
# pg_recvlogical streams them from a slot to /dev/null, and outbox-bench-produce (the router's
# Producer class, its defaults plus KAFKA_PROPS) publishes as many records at the same rate, one
# transaction's worth at a time, to a fresh mock cluster, sending each at once as a caught-up router
# does (--flush 1; FLOOR_FLUSH=0 leaves them to linger.ms, like a router with caught.up.lag.ms: 0):
# its produce -> ack percentiles are what Kafka and librdkafka alone give on this machine under this
# load (no consumer runs in the floor).
# See docs/benchmarks.md.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

specs=("$@")
[ ${#specs[@]} -eq 0 ] && specs=(1000:1 5000:1 20000:10)
run_seconds=${RUN_SECONDS:-15}
warmup=${WARMUP:-3}
connections=${CONNECTIONS:-8}
fetch_wait_ms=${FETCH_WAIT_MS:-1}
consumer=${CONSUMER:-0}
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

# pgbench's transaction for the floor runs: the writer's rows, under another aggregate type.
cat >"$out/floor-insert.sql" <<'SQL'
INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
SELECT gen_random_uuid(), 'Floor', 'agg-' || (s % 1000), 'Created',
       jsonb_build_object('seq', s, 'customer', 'customer-' || (s % 1000), 'amount', s * 1.5,
                          'note', repeat('x', 200), 'tags', jsonb_build_array('a', 'b', 'c'))
FROM generate_series(1, :per_txn) s;
SQL

# floor_run RUN RATE PER_TXN: prints outbox-bench-produce's key=value line plus pgbench's rate.
floor_run() {
  local run=$1 rate=$2 per_txn=$3 slot="latency_floor_$1" recv_pid pgbench_pid
  slot_create "$slot"
  kafka_start
  "$bindir/pg_recvlogical" -d "$conninfo" -S "$slot" --start \
    -o proto_version=1 -o publication_names=bench -f /dev/null 2>"$out/$slot.recv.log" &
  recv_pid=$!
  "$bindir/pgbench" -n -c "$connections" -j 2 -R "$(calc "$rate / $per_txn")" \
    -T $((warmup + run_seconds + 1)) -D per_txn="$per_txn" -f "$out/floor-insert.sql" "$conninfo" >"$out/$slot.pgbench" 2>&1 &
  pgbench_pid=$!
  sleep "$warmup"
  "$build/bench/outbox-bench-produce" --bootstrap "$kafka_addr" --rows $((rate * run_seconds)) --rate "$rate" \
    --chunk "$per_txn" --topics 1 --props "${KAFKA_PROPS:-}" --flush "${FLOOR_FLUSH:-1}" >"$out/$slot.report"
  wait "$pgbench_pid" || { cat "$out/$slot.pgbench" >&2; exit 1; }
  kill -TERM "$recv_pid" 2>/dev/null; wait "$recv_pid" 2>/dev/null || true
  kafka_stop
  sql -c "SELECT pg_drop_replication_slot('$slot')" >/dev/null
  echo "$(cat "$out/$slot.report") pgbench_tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$out/$slot.pgbench" | head -n 1)"
}

transports=(${TRANSPORTS:-tls plain})
run=0
: >"$out/summary"
: >"$out/floor.summary"
for spec in "${specs[@]}"; do
  parse_spec "$spec"
  for ((rep = 1; rep <= repeats; rep++)); do
    for transport in "${transports[@]}"; do
      conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres $(PG_TRANSPORT=$transport pg_tls_options)"
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
      echo "== $transport: $rate events/s, $per_txn row(s) per transaction, run $rep of $repeats (background before: $quiet cores, load average $(cut -d ' ' -f 1 /proc/loadavg))"
      "$build/bench/outbox-bench-latency" --conninfo "$conninfo" --bootstrap "$kafka_addr" --rate "$rate" \
        --rows-per-txn "$per_txn" --seconds "$run_seconds" --warmup "$warmup" --connections "$connections" \
        --fetch-wait-ms "$fetch_wait_ms" --consume "$consumer" --base $((run * 100000000)) --router-pid "$router_pid" --ack-log "$out/$slot.acks" \
        --metrics-url "http://127.0.0.1:$metrics_port/metrics" | tee "$out/$slot.report"
      wait "$router_pid" || true
      router_pid=
      kafka_stop
      sql -c "SELECT pg_drop_replication_slot('$slot')" >/dev/null
      echo "transport=$transport rate=$rate per_txn=$per_txn $(sed -n 's/^summary: //p' "$out/$slot.report")" >>"$out/summary"
      wait_quiet >/dev/null
      floor=$(floor_run "$run" "$rate" "$per_txn")
      echo "floor (same database load; Kafka side alone): $floor"
      echo "transport=$transport rate=$rate per_txn=$per_txn $floor" >>"$out/floor.summary"
    done
  done
done

echo
echo "medians over $repeats runs per rate (RUN_SECONDS=$run_seconds after WARMUP=$warmup, $connections writer connections, consumer $consumer with fetch wait $fetch_wait_ms ms):"
printf '%-9s %-8s %-7s %-9s %-22s %-22s %-22s %-10s %-9s %-10s | %s\n' postgres rate rows/txn achieved "commit->ack p50/p99" \
  "produce->ack p50/p99" "commit->consume p50/p99" "CPU/event" "VmHWM" "busy cores" \
  "floor: Kafka side alone produce->ack p50/p99, CPU/event (pgbench tps)"
for spec in "${specs[@]}"; do
  parse_spec "$spec"
  for transport in "${transports[@]}"; do
    lines=$(grep "^transport=$transport rate=$rate per_txn=$per_txn " "$out/summary")
    floors=$(grep "^transport=$transport rate=$rate per_txn=$per_txn " "$out/floor.summary")
    m() { echo "$lines" | field "$1" | median; }
    f() { echo "$floors" | field "$1" | median; }
    printf '%-9s %-8s %-7s %-9.0f %-22s %-22s %-22s %-10s %-9s %-10s | %s\n' "$transport" "$rate" "$per_txn" "$(m achieved)" \
      "$(printf '%.2f / %.2f ms' "$(m ack_p50_ms)" "$(m ack_p99_ms)")" \
      "$(printf '%.2f / %.2f ms' "$(m produce_to_ack_p50_ms)" "$(m produce_to_ack_p99_ms)")" \
      "$(printf '%.2f / %.2f ms' "$(m consume_p50_ms)" "$(m consume_p99_ms)")" \
      "$(printf '%.2f us' "$(m cpu_us_per_event)")" "$(printf '%.1f MiB' "$(calc "$(m rss_kib) / 1024")")" "$(m busy_cores)" \
      "$(printf '%.2f / %.2f ms, %.2f us (%.0f)' "$(f produce_to_ack_p50_ms)" "$(f produce_to_ack_p99_ms)" \
        "$(calc "1000000 * $(f cpu_s) / ($rate * $run_seconds)")" "$(f pgbench_tps)")"
  done
done

