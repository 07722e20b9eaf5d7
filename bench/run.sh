#!/usr/bin/env bash
# End-to-end throughput of outbox-router against the decoding floor, in one run:
#   1. a throwaway PostgreSQL; two pgoutput slots created before any data;
#   2. N outbox rows pre-inserted (~300-byte jsonb payloads, 10 aggregate types, ROWS_PER_TXN per transaction);
#   3. pg_recvlogical streams the backlog from slot 1 to /dev/null (the walsender's decode rate: the floor);
#   4. outbox-router delivers the backlog from slot 2 to a Kafka-protocol endpoint (librdkafka's mock
#      cluster, in its own process); done when the slot's confirmed_flush_lsn reaches the end of the backlog,
#      which the router only confirms after Kafka acknowledged every event.
# Usage: bench/run.sh [N] [ROWS_PER_TXN]      (defaults 200000 1000)
set -euo pipefail

rows=${1:-200000}
per_txn=${2:-1000}
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$root/bench/out
scripts=$root/tests/scripts
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

cleanup() {
  [ -n "${router_pid:-}" ] && kill -TERM "$router_pid" 2>/dev/null || true
  [ -n "${kafka_pid:-}" ] && kill -TERM "$kafka_pid" 2>/dev/null || true
  "$scripts/pg-cluster.sh" stop "$out/pg"
}
trap cleanup EXIT
rm -rf "$out"
mkdir -p "$out"

port=$("$scripts/pg-cluster.sh" start "$out/pg")
sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }
now() { date +%s.%N; }

sql -f "$root/sql/outbox.sql"
sql -c "CREATE PUBLICATION bench FOR TABLE outbox" \
    -c "SELECT 1 FROM pg_create_logical_replication_slot('bench_floor', 'pgoutput')" \
    -c "SELECT 1 FROM pg_create_logical_replication_slot('bench_router', 'pgoutput')" \
    -c "SELECT 1 FROM pg_create_logical_replication_slot('bench_floor_after', 'pgoutput')" >/dev/null

echo "inserting $rows rows, $per_txn per transaction..."
filler=$(printf 'x%.0s' $(seq 1 200))
for ((first = 0; first < rows; first += per_txn)); do
  last=$((first + per_txn - 1 < rows - 1 ? first + per_txn - 1 : rows - 1))
  echo "INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
        SELECT md5(i::text)::uuid, 'Aggregate' || (i % 10), 'agg-' || (i % 1000), 'Created',
               jsonb_build_object('seq', i, 'customer', 'customer-' || (i % 1000), 'amount', i * 1.5,
                                  'note', '$filler', 'tags', jsonb_build_array('a', 'b', 'c'))
        FROM generate_series($first, $last) i;"
done | sql
end_lsn=$(sql -c "SELECT pg_current_wal_insert_lsn()")
payload_bytes=$(sql -c "SELECT avg(octet_length(payload::text))::int FROM outbox")
echo "backlog: $rows rows, average payload $payload_bytes bytes, WAL end $end_lsn"

# The floor: the walsender decoding the same WAL for pg_recvlogical, output discarded. Measured
# before and after the router (the first pass also warms caches); the faster one is the floor.
floor() {
  local start
  start=$(now)
  "$bindir/pg_recvlogical" -h 127.0.0.1 -p "$port" -U postgres -d postgres -S "$1" --start \
    -o proto_version=1 -o publication_names=bench -E "$end_lsn" -f /dev/null
  echo "$(now) - $start" | bc -l
}
floor_before=$(floor bench_floor)

"$build/bench/outbox-bench-kafka" 1 >"$out/kafka.addr" &
kafka_pid=$!
while [ ! -s "$out/kafka.addr" ]; do sleep 0.05; done
cat >"$out/router.yaml" <<YAML
postgres:
  conninfo: "host=127.0.0.1 port=$port dbname=postgres user=postgres"
  slot.name: bench_router
  publication.name: bench
  status.update.interval.ms: 20
kafka:
  bootstrap.servers: "$(cat "$out/kafka.addr")"
YAML

start=$(now)
"$build/outbox-router" --config "$out/router.yaml" >"$out/router.log" 2>&1 &
router_pid=$!
until [ "$(sql -c "SELECT confirmed_flush_lsn >= '$end_lsn' FROM pg_replication_slots WHERE slot_name = 'bench_router'")" = t ]; do
  kill -0 "$router_pid" 2>/dev/null || { cat "$out/router.log"; exit 1; }
  sleep 0.02
done
router_seconds=$(echo "$(now) - $start" | bc -l)
read -r utime stime < <(awk '{print $14, $15}' "/proc/$router_pid/stat")
ticks=$(getconf CLK_TCK)
cpu_seconds=$(echo "($utime + $stime) / $ticks" | bc -l)
peak_rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$router_pid/status")
kill -TERM "$router_pid"
wait "$router_pid"
router_pid=

floor_after=$(floor bench_floor_after)
floor_seconds=$(echo "if ($floor_before < $floor_after) $floor_before else $floor_after" | bc -l)
floor_rate=$(echo "$rows / $floor_seconds" | bc -l)
router_rate=$(echo "$rows / $router_seconds" | bc -l)
printf '\nrows=%d rows_per_txn=%d payload_bytes=%d cores=%d\n' "$rows" "$per_txn" "$payload_bytes" "$(nproc)"
printf 'pg_recvlogical (decode floor): %8.3f s  %9.0f rows/s   (runs: %.3f s before, %.3f s after the router)\n' \
  "$floor_seconds" "$floor_rate" "$floor_before" "$floor_after"
printf 'outbox-router (to Kafka ack):  %8.3f s  %9.0f rows/s  = %.1f%% of the floor\n' \
  "$router_seconds" "$router_rate" "$(echo "100 * $router_rate / $floor_rate" | bc -l)"
printf 'router CPU: %.2f s (%.2f us/event), peak RSS %.1f MiB\n' "$cpu_seconds" \
  "$(echo "1000000 * $cpu_seconds / $rows" | bc -l)" "$(echo "$peak_rss_kib / 1024" | bc -l)"
