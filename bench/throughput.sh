#!/usr/bin/env bash
# End-to-end backlog delivery against the decode floor, measured in the same run.
#   bench/throughput.sh [ROWS] [ROWS_PER_TXN]        (defaults 200000 1000; REPEATS=3)
#
#  1. A throwaway PostgreSQL; the publication and 2*REPEATS+1 pgoutput slots are created before
#     any data, so every run streams exactly the same WAL.
#  2. ROWS outbox rows: ~300-byte jsonb payloads, 10 aggregate types, 1,000 keys, ROWS_PER_TXN per
#     transaction. The WAL is flushed (CHECKPOINT) before anything is timed.
#  3. Alternating runs, each on a fresh slot: floor, router, floor, router, ..., floor.
#     Floor: pg_recvlogical --start -E END -f /dev/null with the router's options (proto_version 1,
#       same publication): the walsender's decode rate plus a client that does nothing. Timed from
#       fork until it exits at END.
#     Router: outbox-router (from fork, so start-up is included) until the slot's
#       confirmed_flush_lsn reaches END, which it confirms only after Kafka acknowledged every
#       event (status.update.interval.ms 10, polled every 5 ms). Kafka: the librdkafka mock cluster
#       in its own process (outbox-bench-kafka), fresh for each run.
#  4. The Kafka side alone, REPEATS times each way, a fresh mock cluster per run: outbox-bench-produce
#     (the router's Producer class with its defaults plus KAFKA_PROPS) publishes ROWS records shaped
#     like the router's (same topics, keys, value size, id header), once handed over as fast as
#     librdkafka takes them (its largest batches: the least CPU per event this Kafka client needs
#     for these records) and once at the router's median streaming rate in chunks of 50 (about one
#     16 KiB socket read of rows, the way the router hands them over).
#  5. Medians: rate = ROWS / wall; ratio = router rate / floor rate; CPU per event = router
#     user+sys (all threads, /proc) / ROWS; peak RSS = VmHWM.
#
# PARTITIONS per topic (default 4, the mock cluster's default for auto-created topics; Kafka's own
# num.partitions default is 1). librdkafka 2.0.2 sends one produce request per partition, so its
# CPU per event grows with the partitions a linger interval's records are spread over
# (docs/benchmarks-history.md, "Fifth round").
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rows=${1:-200000}
per_txn=${2:-1000}
bench_init "throughput-$rows-$per_txn"
machine

pg_start
outbox_setup
slots=(floor_0)
for ((i = 1; i <= repeats; i++)); do slots+=("router_$i" "floor_$i"); done
slot_create "${slots[@]}"

echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"
echo "backlog: $rows rows in $(((rows + per_txn - 1) / per_txn)) transactions, average payload $payload_bytes bytes, WAL end $end_lsn"

partitions=${PARTITIONS:-4}
topics=()
for ((t = 0; t < 10; t++)); do topics+=("outbox.event.Aggregate$t:$partitions"); done
: >"$out/floor.runs"
: >"$out/router.runs"
for slot in "${slots[@]}"; do
  quiet=$(wait_quiet)
  case $slot in
    floor_*)
      result=$(floor_run "$slot" "$out/$slot.log")
      echo "$result" >>"$out/floor.runs"
      echo "  floor  $slot: $result (background before: $quiet cores)"
      ;;
    router_*)
      kafka_start "${topics[@]}"
      router_config "$out/$slot.yaml" "$slot"
      result=$(router_run "$slot" "$out/$slot.log" "$out/$slot.yaml")
      kafka_stop
      echo "$result" >>"$out/router.runs"
      echo "  router $slot: $result (background before: $quiet cores)"
      ;;
  esac
done

med() { field "$1" <"$out/$2.runs" | median; }
floor_s=$(med wall_s floor)
router_s=$(med wall_s router)

sink_rate=$(calc "$rows / $(med streaming_s router)" | xargs printf '%.0f')
: >"$out/sink_unpaced.runs"
: >"$out/sink_paced.runs"
for ((i = 1; i <= repeats; i++)); do
  for mode in unpaced paced; do
    quiet=$(wait_quiet)
    kafka_start "${topics[@]}"
    rate_arg=0
    [ "$mode" = paced ] && rate_arg=$sink_rate
    result=$("$build/bench/outbox-bench-produce" --bootstrap "$kafka_addr" --rows "$rows" --rate "$rate_arg" --chunk 50 \
      --value-bytes "$payload_bytes" --props "${KAFKA_PROPS:-}")
    kafka_stop
    echo "$result" >>"$out/sink_$mode.runs"
    echo "  Kafka side alone, $mode: $result (background before: $quiet cores)"
  done
done
sink_us() { calc "1000000 * $(med cpu_s "sink_$1") / $rows"; }
floor_rate=$(calc "$rows / $floor_s")
router_rate=$(calc "$rows / $router_s")
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d partitions_per_topic=%d repeats=%d (medians; every run above)\n' \
  "$rows" "$per_txn" "$payload_bytes" "$partitions" "$repeats"
printf 'pg_recvlogical (decode floor): %7.3f s %8.0f rows/s   walsender CPU %.2f s\n' "$floor_s" "$floor_rate" "$(med walsender_cpu_s floor)"
printf 'outbox-router (to Kafka ack):  %7.3f s %8.0f rows/s = %.1f%% of the floor   (%.3f s after "streaming from slot")\n' \
  "$router_s" "$router_rate" "$(calc "100 * $router_rate / $floor_rate")" "$(med streaming_s router)"
printf 'router CPU %.3f s = %.2f us/event (user %.3f s, sys %.3f s); peak RSS %.1f MiB; walsender CPU %.2f s; %s Kafka CPU %.2f s\n' \
  "$(med cpu_s router)" "$(calc "1000000 * $(med cpu_s router) / $rows")" "$(med user_s router)" "$(med sys_s router)" \
  "$(calc "$(med peak_rss_kib router) / 1024")" "$(med walsender_cpu_s router)" "${KAFKA:-mock}" "$(med kafka_cpu_s router)"
printf 'Kafka side alone (outbox-bench-produce, no PostgreSQL): %.2f us/event handed over at once (user %.3f s, sys %.3f s); %.2f us/event at %d events/s in chunks of 50 (user %.3f s, sys %.3f s)\n' \
  "$(sink_us unpaced)" "$(med user_s sink_unpaced)" "$(med sys_s sink_unpaced)" \
  "$(sink_us paced)" "$sink_rate" "$(med user_s sink_paced)" "$(med sys_s sink_paced)"
printf 'machine: busy %.2f of %d cores during router runs, %.2f during floor runs; other work on the machine %.2f / %.2f cores\n' \
  "$(med machine_busy_cores router)" "$(nproc)" "$(med machine_busy_cores floor)" "$(med others_cores router)" "$(med others_cores floor)"
