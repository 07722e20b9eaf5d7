#!/usr/bin/env bash
# Two router builds (or two settings) on the same backlog, runs interleaved A, B, A, B, ...
#   bench/compare.sh ROUTER_A ROUTER_B [ROWS] [ROWS_PER_TXN]    (defaults 200000 1000; REPEATS=5)
# ROUTER_A and ROUTER_B are executables started like outbox-router (a wrapper script that sets
# environment or LD_PRELOAD works too). On a shared machine the run-to-run spread of CPU per event
# is larger than the difference a change makes; interleaving puts both sides under the same
# conditions, and the per-pair ratio B/A cancels what the pair had in common. KAFKA_PROPS and
# KAFKA_PROPS_B (defaults to KAFKA_PROPS) set librdkafka properties per side. No floor runs: see
# bench/throughput.sh for ratios against pg_recvlogical.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ROUTER_A ROUTER_B [ROWS] [ROWS_PER_TXN]" >&2; exit 2; }
export REPEATS=${REPEATS:-5}
. "$(dirname "$0")/lib.sh"

router_a=$(realpath "$1")
router_b=$(realpath "$2")
rows=${3:-200000}
per_txn=${4:-1000}
props_a=${KAFKA_PROPS:-}
props_b=${KAFKA_PROPS_B:-$props_a}
router_bin=$router_a
bench_init "compare-$rows-$per_txn"
machine
echo "A: $router_a ${props_a:+(KAFKA_PROPS=$props_a)}"
echo "B: $router_b ${props_b:+(KAFKA_PROPS=$props_b)}"

pg_start
outbox_setup
slots=()
for ((i = 1; i <= repeats; i++)); do slots+=("a_$i" "b_$i"); done
slot_create "${slots[@]}"
echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"

: >"$out/a.runs"
: >"$out/b.runs"
: >"$out/ratio.runs"
for ((i = 1; i <= repeats; i++)); do
  for side in a b; do
    if [ $side = a ]; then router_bin=$router_a KAFKA_PROPS=$props_a; else router_bin=$router_b KAFKA_PROPS=$props_b; fi
    quiet=$(wait_quiet)
    kafka_start
    router_config "$out/${side}_$i.yaml" "${side}_$i"
    result=$(router_run "${side}_$i" "$out/${side}_$i.log" "$out/${side}_$i.yaml")
    kafka_stop
    echo "$result" >>"$out/$side.runs"
    echo "  $side $i: $result (background before: $quiet cores)"
  done
  a_cpu=$(tail -n 1 "$out/a.runs" | field cpu_s)
  b_cpu=$(tail -n 1 "$out/b.runs" | field cpu_s)
  echo "cpu_ratio=$(calc "$b_cpu / $a_cpu")" >>"$out/ratio.runs"
done

med() { field "$1" <"$out/$2.runs" | median; }
echo
printf 'rows=%d rows_per_txn=%d repeats=%d (medians; every run above)\n' "$rows" "$per_txn" "$repeats"
for side in a b; do
  printf '%s: %.3f s wall, router CPU %.2f us/event (user %.3f s, sys %.3f s), peak RSS %.1f MiB, walsender CPU %.2f s\n' \
    "${side^^}" "$(med wall_s "$side")" "$(calc "1000000 * $(med cpu_s "$side") / $rows")" "$(med user_s "$side")" \
    "$(med sys_s "$side")" "$(calc "$(med peak_rss_kib "$side") / 1024")" "$(med walsender_cpu_s "$side")"
done
printf 'B/A router CPU, median of the %d pairs: %.3f (pairs: %s)\n' "$repeats" "$(med cpu_ratio ratio)" \
  "$(field cpu_ratio <"$out/ratio.runs" | xargs printf '%.3f ' | sed 's/ $//')"
