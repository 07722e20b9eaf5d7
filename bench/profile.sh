#!/usr/bin/env bash
# Where the router's time goes while it drains a backlog.
#   bench/profile.sh callgrind [ROWS] [ROWS_PER_TXN]   instructions per function (valgrind; deterministic,
#                                                      ~50x slower, all threads of the router)
#   bench/profile.sh syscalls [ROWS] [ROWS_PER_TXN]    system calls by type, all threads (strace -c -f)
#   bench/profile.sh counts [ROWS] [ROWS_PER_TXN]      context switches, system calls, page faults per
#                                                      thread (perf stat software events, no slow-down)
#   bench/profile.sh perf [ROWS] [ROWS_PER_TXN]        cpu-clock samples of the router, user and kernel
#                                                      (perf's hardware counters are not available in
#                                                      this VM; the software clock is)
# Defaults: 200000 rows, 1000 per transaction. Output in bench/out/profile-*/: callgrind.out
# (callgrind_annotate --inclusive=yes it) or perf.data (perf report -i it), plus a summary printed here.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tool=${1:-callgrind}
rows=${2:-200000}
per_txn=${3:-1000}
bench_init "profile-$tool-$rows-$per_txn"
machine

pg_start
outbox_setup
slot_create router
echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"
kafka_start
router_config "$out/router.yaml" router

wait_confirmed() {
  until [ "$(sql -c "SELECT confirmed_flush_lsn >= '$end_lsn' FROM pg_replication_slots WHERE slot_name = 'router'")" = t ]; do
    kill -0 "$router_pid" 2>/dev/null || { tail "$out/router.log"; exit 1; }
    sleep 0.2
  done
}

case $tool in
  callgrind)
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" "$router_bin" --config "$out/router.yaml" \
      >"$out/router.log" 2>&1 &
    router_pid=$!
    wait_confirmed
    kill -TERM "$router_pid"
    wait "$router_pid" || true
    router_pid=
    total=$(callgrind_annotate "$out/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    echo "instructions: $total total, $(calc "$total / $rows" | xargs printf '%.0f') per event (start-up and shutdown included)"
    callgrind_annotate --inclusive=yes "$out/callgrind.out" 2>/dev/null | sed -n '1,60p' | cut -c1-200 >"$out/inclusive.txt"
    callgrind_annotate "$out/callgrind.out" 2>/dev/null | sed -n '1,60p' | cut -c1-200 >"$out/self.txt"
    echo "--- self (exclusive) ---"
    grep -E '^ *[0-9,]+ \(' "$out/self.txt" | head -40
    echo "--- inclusive ---"
    grep -E '^ *[0-9,]+ \(' "$out/inclusive.txt" | head -40
    ;;
  perf)
    "$router_bin" --config "$out/router.yaml" >"$out/router.log" 2>&1 &
    router_pid=$!
    perf record -q -e cpu-clock -F 4999 -g -p "$router_pid" -o "$out/perf.data" 2>/dev/null &
    perf_pid=$!
    wait_confirmed
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
    kill -TERM "$router_pid"
    wait "$router_pid" || true
    router_pid=
    echo "--- by thread ---"
    perf report -i "$out/perf.data" --stdio --no-children --sort comm 2>/dev/null | grep -E '^ +[0-9]' | head
    echo "--- self, by symbol ---"
    perf report -i "$out/perf.data" --stdio --no-children --sort comm,dso,symbol -g none 2>/dev/null |
      grep -E "^ +[0-9]" | sed "s/ *-  *- *$//" | cut -c1-150 | head -50
    ;;
  counts)
    # Attach once every thread exists (librdkafka starts its threads after the pipeline starts).
    "$router_bin" --config "$out/router.yaml" >"$out/router.log" 2>&1 &
    router_pid=$!
    until grep -q "streaming from slot" "$out/router.log"; do sleep 0.001; done
    perf stat --per-thread -e "${EVENTS:-context-switches,raw_syscalls:sys_enter,page-faults}" -p "$router_pid" -o "$out/counts.txt" &
    perf_pid=$!
    trace_pid=
    if [ -n "${TRACE:-}" ]; then  # per-call statistics; slows system calls down, which changes the batching
      perf trace -s -p "$router_pid" -o "$out/trace.txt" 2>/dev/null &
      trace_pid=$!
    fi
    wait_confirmed
    kill -INT "$perf_pid" $trace_pid
    wait "$perf_pid" $trace_pid || true
    kill -TERM "$router_pid"
    wait "$router_pid" || true
    router_pid=
    if [ -n "$trace_pid" ]; then
      echo "--- system calls per thread (perf trace -s) ---"
      grep -E '^ (.*\([0-9]+\)|  +[a-z_0-9]+ +[0-9]+)' "$out/trace.txt" | head -60
    fi
    echo "--- per thread, whole run (start-up included), per event = / $rows ---"
    grep -E 'context-switches|sys_enter|page-faults|syscalls:' "$out/counts.txt" | awk -v rows="$rows" '
      {gsub(",", "", $2); printf "  %-28s %-26s %10d  %.3f/event\n", $1, $3, $2, $2 / rows}'
    ;;
  syscalls)
    "$router_bin" --config "$out/router.yaml" >"$out/router.log" 2>&1 &
    router_pid=$!
    strace -f -c -o "$out/strace.txt" -p "$router_pid" &
    strace_pid=$!
    wait_confirmed
    kill -INT "$strace_pid"
    wait "$strace_pid" || true
    kill -TERM "$router_pid"
    wait "$router_pid" || true
    router_pid=
    echo "--- system calls of all router threads while draining (strace -c -f; strace slows it down) ---"
    head -n 25 "$out/strace.txt"
    ;;
  *)
    echo "usage: $0 callgrind|perf|syscalls|counts [ROWS] [ROWS_PER_TXN]" >&2
    exit 2
    ;;
esac
