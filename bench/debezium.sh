#!/usr/bin/env bash
# Debezium and the router draining the same backlog, in one run on one machine, database and
# (fresh per run) real Kafka broker.
#   bench/debezium.sh [ROWS] [ROWS_PER_TXN]        (defaults 200000 1000; REPEATS=3)
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
for ((i = 1; i <= repeats; i++)); do slots+=("router_$i" "debezium_$i"); done
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

: >"$out/router.runs"
: >"$out/debezium.runs"
for slot in "${slots[@]}"; do
  quiet=$(wait_quiet)
  kafka_start "${topics[@]}"
  case $slot in
    router_*)
      router_config "$out/$slot.yaml" "$slot"
      marker="streaming from slot"
      result=$(drain "$slot" records "$out/$slot.log" -- "$router_bin" --config "$out/$slot.yaml")
      kind=router
      ;;
    debezium_*)
      debezium_files "$slot" "$out/$slot"
      marker="Processing messages"
      debezium_command "$out/$slot"
      result=$(drain "$slot" records "$out/$slot.log" -- "${debezium_cmd[@]}")
      kind=debezium
      ;;
  esac
  kafka_stop
  echo "$result" >>"$out/$kind.runs"
  echo "  $kind $slot: $result (background before: $quiet cores)"
done

med() { field "$1" <"$out/$2.runs" | median; }
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d partitions_per_topic=%d repeats=%d (medians; every run above)\n' \
  "$rows" "$per_txn" "$payload_bytes" "$partitions" "$repeats"
for kind in router debezium; do
  printf '%-9s %7.3f s %8.0f rows/s (%.3f s after its streaming line); CPU %.2f s = %.1f ms per 1,000 events; peak RSS %.1f MiB; walsender CPU %.2f s; Kafka CPU %.2f s\n' \
    "$kind" "$(med wall_s $kind)" "$(calc "$rows / $(med wall_s $kind)")" "$(med streaming_s $kind)" \
    "$(med cpu_s $kind)" "$(calc "1000000 * $(med cpu_s $kind) / $rows")" "$(calc "$(med peak_rss_kib $kind) / 1024")" \
    "$(med walsender_cpu_s $kind)" "$(med kafka_cpu_s $kind)"
done
printf 'router / Debezium: throughput %.2fx, events per CPU second %.2fx, peak RSS %.3f\n' \
  "$(calc "$(med wall_s debezium) / $(med wall_s router)")" "$(calc "$(med cpu_s debezium) / $(med cpu_s router)")" \
  "$(calc "$(med peak_rss_kib router) / $(med peak_rss_kib debezium)")"
