#!/usr/bin/env bash
# Debezium and the router draining the same backlog, in one run on one machine, database and
# (fresh per run) real Kafka broker.
#   bench/debezium.sh [ROWS] [ROWS_PER_TXN]        (defaults 200000 1000; REPEATS=3)
#   env: TRANSPORTS="tls plain": the PostgreSQL connections of both relays, one row each (TLS:
#        libpq's sslmode=verify-full and Debezium's database.sslmode=verify-full against the CA made
#        at set-up; plain: sslmode=disable), each repeat running every transport
#
#  1. The throughput.sh backlog (10 topics of 4 partitions, ~300-byte jsonb payloads), with one
#     pgoutput slot per run created before any data, so every run streams the same WAL.
#  2. Alternating runs, each with a fresh one-node Kafka broker:
#     router:   outbox-router with its defaults;
#     debezium: Kafka Connect standalone (the pinned tests/debezium-runtime: Debezium 3.x's
#               PostgreSQL connector and EventRouter), StringConverter for keys and values, the
#               JVM options of Kafka's connect-standalone.sh (-Xms256m -Xmx2g, G1).
#     Each run is timed from fork until the outbox topics hold ROWS records (sum of high
#     watermarks, polled every 50 ms): the same rule for both, since Debezium confirms its slot
#     only at its offset flush. "streaming" is from the relay's log line that it streams (router:
#     "streaming from slot", Debezium: "Processing messages") to done.
#  3. Medians of: wall time, CPU (all threads, the JVM's included) per 1,000 events, peak RSS,
#     walsender CPU. Ratios router / Debezium.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export KAFKA=real

rows=${1:-200000}
per_txn=${2:-1000}
bench_init "debezium-$rows-$per_txn"
machine

pg_start
outbox_setup
slots=()
transports=(${TRANSPORTS:-tls plain})
for ((i = 1; i <= repeats; i++)); do
  for transport in "${transports[@]}"; do slots+=("router_${transport}_$i" "debezium_${transport}_$i"); done
done
slot_create "${slots[@]}"
echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"
echo "backlog: $rows rows, average payload $payload_bytes bytes, WAL end $end_lsn"

partitions=${PARTITIONS:-4}
topics=()
names=()
for ((t = 0; t < 10; t++)); do
  topics+=("outbox.event.Aggregate$t:$partitions")
  names+=("outbox.event.Aggregate$t")
done
topic_list=$(IFS=,; echo "${names[*]}")

# drain with the record-count rule (lib.sh's drain takes the slot rule)
drain() {
  local slot=$1 log=$3
  shift 4
  "$build/bench/outbox-bench-drain" --conninfo "$conninfo" --slot "$slot" --end-lsn "$end_lsn" --until records \
    --bootstrap "$kafka_addr" --topics "$topic_list" --records "$rows" --poll-ms 50 --marker "$marker" \
    --kafka-pid "${kafka_pid:-0}" --log "$log" -- "$@"
}

for slot in "${slots[@]}"; do : >"$out/${slot%_*}.runs"; done
for slot in "${slots[@]}"; do
  transport=${slot%_*}
  transport=${transport#*_}
  export PG_TRANSPORT=$transport
  conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres $(pg_tls_options)"
  quiet=$(wait_quiet)
  kafka_start "${topics[@]}"
  case $slot in
    router_*)
      router_config "$out/$slot.yaml" "$slot"
      marker="streaming from slot"
      result=$(drain "$slot" records "$out/$slot.log" -- "$router_bin" --config "$out/$slot.yaml")
      kind=router_$transport
      ;;
    debezium_*)
      debezium_files "$slot" "$out/$slot"
      marker="Processing messages"
      debezium_command "$out/$slot"
      result=$(drain "$slot" records "$out/$slot.log" -- "${debezium_cmd[@]}")
      kind=debezium_$transport
      ;;
  esac
  kafka_stop
  echo "$result" >>"$out/$kind.runs"
  echo "  $kind $slot: $result (background before: $quiet cores, load average $(cut -d ' ' -f 1 /proc/loadavg))"
done

med() { field "$1" <"$out/$2.runs" | median; }
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d partitions_per_topic=%d repeats=%d (medians; every run above)\n' \
  "$rows" "$per_txn" "$payload_bytes" "$partitions" "$repeats"
for transport in "${transports[@]}"; do
 for kind in router_$transport debezium_$transport; do
  printf '%-15s %7.3f s %8.0f rows/s (%.3f s after its streaming line); CPU %.2f s = %.1f ms per 1,000 events; peak RSS %.1f MiB; walsender CPU %.2f s; Kafka CPU %.2f s\n' \
    "$kind" "$(med wall_s $kind)" "$(calc "$rows / $(med wall_s $kind)")" "$(med streaming_s $kind)" \
    "$(med cpu_s $kind)" "$(calc "1000000 * $(med cpu_s $kind) / $rows")" "$(calc "$(med peak_rss_kib $kind) / 1024")" \
    "$(med walsender_cpu_s $kind)" "$(med kafka_cpu_s $kind)"
 done
 printf '%s: router / Debezium: throughput %.2fx, events per CPU second %.2fx, peak RSS %.3f\n' "$transport" \
   "$(calc "$(med wall_s debezium_$transport) / $(med wall_s router_$transport)")" \
   "$(calc "$(med cpu_s debezium_$transport) / $(med cpu_s router_$transport)")" \
   "$(calc "$(med peak_rss_kib router_$transport) / $(med peak_rss_kib debezium_$transport)")"
done
if [ ${#transports[@]} -gt 1 ]; then
  for kind in router debezium; do
    printf '%s: TLS / plain TCP throughput %.2f\n' "$kind" \
      "$(calc "$(med wall_s ${kind}_plain) / $(med wall_s ${kind}_tls)")"
  done
fi
echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
