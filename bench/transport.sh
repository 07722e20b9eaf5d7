#!/usr/bin/env bash
# The router and the decode floor over TLS and over plain TCP: one backlog, one run.
#   bench/transport.sh [ROWS] [ROWS_PER_TXN]        (defaults 50000 1000; REPEATS=3)
#
# One PostgreSQL with ssl=on (scripts/pg-cluster.sh); the publication and 4*REPEATS pgoutput
# slots are created before any data, so every run streams exactly the same WAL. Then REPEATS
# rounds of four runs, each on a fresh slot:
#   floor over TLS, router over TLS, floor over plain TCP, router over plain TCP,
# and with GSS=1 two more, floor and router over GSSAPI encryption (gssencmode=require; a KDC of
# its own, lib.sh's kdc_start).
# Floor and router as in bench/throughput.sh: pg_recvlogical to /dev/null until END; the router
# until the slot's confirmed_flush_lsn reaches END (Kafka: the mock cluster, fresh for each run).
# TLS is sslmode=verify-full against the CA made at set-up; plain TCP is sslmode=disable. Every
# client of the run uses the transport of its row (the drain tool's watching connection too).
# Medians: rate = ROWS / wall, from fork; CPU per event = router user+sys / ROWS.
# Where the time goes (outbox-bench-drain's samples, every 5 ms while the walsender streams): the
# walsender's share of the time on a CPU and waiting for one (schedstat), how often it waited for
# its reader (wait event WalSenderWriteData), and how often the reader's main thread was blocked in
# poll/select (nothing to read) or in the router's read pacer's sleep.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rows=${1:-50000}
per_txn=${2:-1000}
bench_init "transport-$rows-$per_txn"
machine

pg_start
outbox_setup
kinds=(floor_tls router_tls floor_plain router_plain)
if [ "${GSS:-0}" = 1 ]; then
  kdc_start
  kinds+=(floor_gss router_gss)
fi
slots=()
for ((i = 1; i <= repeats; i++)); do
  for kind in "${kinds[@]}"; do slots+=("${kind}_$i"); done
done
slot_create "${slots[@]}"

echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"
echo "backlog: $rows rows in $(((rows + per_txn - 1) / per_txn)) transactions, average payload $payload_bytes bytes, WAL end $end_lsn"

topics=()
for ((t = 0; t < 10; t++)); do topics+=("outbox.event.Aggregate$t:4"); done
for kind in "${kinds[@]}"; do : >"$out/$kind.runs"; done
for slot in "${slots[@]}"; do
  kind=${slot%_*}
  conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres $(PG_TRANSPORT=${kind#*_} pg_tls_options)"
  quiet=$(wait_quiet)
  case $kind in
    floor_*)
      result=$(floor_run "$slot" "$out/$slot.log")
      ;;
    router_*)
      kafka_start "${topics[@]}"
      router_config "$out/$slot.yaml" "$slot"
      result=$(router_run "$slot" "$out/$slot.log" "$out/$slot.yaml")
      kafka_stop
      ;;
  esac
  echo "$result" >>"$out/$kind.runs"
  echo "  $slot: $result (background before: $quiet cores)"
done

med() { field "$1" <"$out/$2.runs" | median; }
label_of() {
  local reader=pg_recvlogical transport
  [[ $1 == router_* ]] && reader=outbox-router
  case ${1#*_} in
    tls) transport=TLS ;;
    plain) transport="plain TCP" ;;
    gss) transport=GSSAPI ;;
  esac
  echo "$reader, $transport"
}
rate() { calc "$rows / $(med wall_s "$1")"; }
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d repeats=%d (medians; every run above)\n' "$rows" "$per_txn" "$payload_bytes" "$repeats"
printf '%-32s %9s %12s %16s %14s\n' "" "wall s" "rows/s" "router us/event" "walsender CPU"
for kind in "${kinds[@]}"; do
  label=$(label_of "$kind")
  us=-
  [[ $kind == router_* ]] && us=$(calc "1000000 * $(med cpu_s "$kind") / $rows" | xargs printf '%.2f')
  printf '%-32s %9.3f %12.0f %16s %13.2fs\n' "$label" "$(med wall_s "$kind")" "$(rate "$kind")" "$us" "$(med walsender_cpu_s "$kind")"
done
echo
printf '%-32s %14s %14s %16s %18s %15s %15s\n' "" "walsender CPU" "of which" "walsender waits" "walsender waits" "reader waits" "reader sleeps"
printf '%-32s %14s %14s %16s %18s %15s %15s\n' "" "per event" "kernel" "for a CPU" "for its reader" "in poll" "(pacer)"
for kind in "${kinds[@]}"; do
  label=$(label_of "$kind")
  printf '%-32s %11.2f us %11.2f us %15.0f%% %17.0f%% %14.0f%% %14.0f%%\n' "$label" "$(calc "1000000 * $(med walsender_cpu_s "$kind") / $rows")" \
    "$(calc "1000000 * $(med walsender_sys_s "$kind") / $rows")" \
    "$(calc "100 * $(med walsender_window_runqueue_s "$kind") / $(med walsender_window_s "$kind")")" \
    "$(calc "100 * $(med walsender_blocked_on_client "$kind")")" "$(calc "100 * $(med reader_waiting "$kind")")" \
    "$(calc "100 * $(med reader_sleeping "$kind")")"
done
printf 'router TLS / pg_recvlogical TLS: %.2f; router TLS / router plain TCP: %.2f; pg_recvlogical TLS / plain: %.2f\n' \
  "$(calc "$(rate router_tls) / $(rate floor_tls)")" "$(calc "$(rate router_tls) / $(rate router_plain)")" \
  "$(calc "$(rate floor_tls) / $(rate floor_plain)")"
printf 'walsender CPU per event, plain TCP / TLS (the rate the walsender alone allows over TLS, against plain TCP): %.2f\n' \
  "$(calc "$(med walsender_cpu_s floor_plain) / $(med walsender_cpu_s floor_tls)")"
if [ "${GSS:-0}" = 1 ]; then
  printf 'router GSSAPI / pg_recvlogical GSSAPI: %.2f; router GSSAPI / router plain TCP: %.2f; pg_recvlogical GSSAPI / plain: %.2f\n' \
    "$(calc "$(rate router_gss) / $(rate floor_gss)")" "$(calc "$(rate router_gss) / $(rate router_plain)")" \
    "$(calc "$(rate floor_gss) / $(rate floor_plain)")"
fi
echo "load average at the end: $(cut -d ' ' -f 1-3 /proc/loadavg)"
