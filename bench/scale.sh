#!/usr/bin/env bash
# Beyond one walsender: the same backlog through one slot, then split across two slots.
#   bench/scale.sh [ROWS] [ROWS_PER_TXN]     (defaults 200000 1000; REPEATS=3)
#
# Two outbox tables (outbox, outbox2) with the same shape; transactions alternate between them, each
# writing ROWS_PER_TXN rows to one table. Publications: bench (both tables), bench_a (outbox),
# bench_b (outbox2). Each repeat has a fresh cluster whose 6 slots are created before the data. Then:
#   one slot:  one pg_recvlogical / one outbox-router on publication bench;
#   two slots: two pg_recvlogical / two outbox-routers at once, on bench_a and bench_b, each
#              streaming half of the events; done when both are done.
# Reports wall time (rows / s) for each and the walsenders' CPU: each walsender still reads and
# decodes all of the WAL, and only its publication's rows are sent.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rows=${1:-200000}
per_txn=${2:-1000}
bench_init "scale-$rows-$per_txn"
machine
# One cluster per repeat: 6 slots, all created before the data (pg-cluster.sh allows 20 slots).
setup_round() {  # ROUND
  if [ -n "${port:-}" ]; then
    "$scripts/pg-cluster.sh" stop "$out/pg"
    rm -rf "$out/pg"
  fi
  pg_start
  sql -f "$root/sql/outbox.sql"
  sql <<'SQL'
CREATE TABLE outbox2 (LIKE outbox INCLUDING ALL);
CREATE PUBLICATION bench FOR TABLE outbox, outbox2;
CREATE PUBLICATION bench_a FOR TABLE outbox;
CREATE PUBLICATION bench_b FOR TABLE outbox2;
CREATE PROCEDURE bench_fill2(first bigint, last bigint, per_txn int) LANGUAGE plpgsql AS $$
DECLARE
  i bigint := first;
BEGIN
  WHILE i <= last LOOP
    IF (i / per_txn) % 2 = 0 THEN
      INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
      SELECT md5(s::text)::uuid, 'Aggregate' || (s % 10), 'agg-' || (s % 1000), 'Created',
             jsonb_build_object('seq', s, 'customer', 'customer-' || (s % 1000), 'amount', s * 1.5,
                                'note', repeat('x', 200), 'tags', jsonb_build_array('a', 'b', 'c'))
      FROM generate_series(i, least(i + per_txn - 1, last)) s;
    ELSE
      INSERT INTO outbox2 (id, aggregatetype, aggregateid, type, payload)
      SELECT md5(s::text)::uuid, 'Billing' || (s % 10), 'agg-' || (s % 1000), 'Created',
             jsonb_build_object('seq', s, 'customer', 'customer-' || (s % 1000), 'amount', s * 1.5,
                                'note', repeat('x', 200), 'tags', jsonb_build_array('a', 'b', 'c'))
      FROM generate_series(i, least(i + per_txn - 1, last)) s;
    END IF;
    COMMIT;
    i := i + per_txn;
  END LOOP;
END $$;
SQL
  slot_create "one_floor_$1" "one_router_$1" "a_floor_$1" "b_floor_$1" "a_router_$1" "b_router_$1"
  echo "round $1: writing $rows rows, $per_txn per transaction, alternating between outbox and outbox2..."
  sql -c "SET synchronous_commit = off" -c "CALL bench_fill2(0, $rows - 1, $per_txn)" -c "CHECKPOINT"
  end_lsn=$(sql -c "SELECT pg_current_wal_insert_lsn()")
}

floor_on() {  # SLOT PUBLICATION LOG
  drain "$1" exit "$3" -- "$bindir/pg_recvlogical" -d "$conninfo" -S "$1" \
    --start -o proto_version=1 -o "publication_names=$2" -E "$end_lsn" -f /dev/null
}
router_on() {  # SLOT PUBLICATION TABLES LOG
  router_config "$out/$1.yaml" "$1"
  sed -i "s/^  publication.name: .*/  publication.name: $2\n  table.include.list: \"$3\"/" "$out/$1.yaml"
  router_run "$1" "$4" "$out/$1.yaml"
}
f() { field "$1" <"$out/$2.res"; }

: >"$out/results"
for ((i = 1; i <= repeats; i++)); do
  setup_round "$i"
  wait_quiet >/dev/null
  floor_on "one_floor_$i" bench "$out/one_floor_$i.log" >"$out/one_floor_$i.res"
  wait_quiet >/dev/null
  floor_on "a_floor_$i" bench_a "$out/a_floor_$i.log" >"$out/a_floor_$i.res" &
  pa=$!
  floor_on "b_floor_$i" bench_b "$out/b_floor_$i.log" >"$out/b_floor_$i.res" &
  pb=$!
  wait "$pa" "$pb"
  kafka_start
  wait_quiet >/dev/null
  router_on "one_router_$i" bench "public.outbox, public.outbox2" "$out/one_router_$i.log" >"$out/one_router_$i.res"
  kafka_start
  wait_quiet >/dev/null
  router_on "a_router_$i" bench_a public.outbox "$out/a_router_$i.log" >"$out/a_router_$i.res" &
  pa=$!
  router_on "b_router_$i" bench_b public.outbox2 "$out/b_router_$i.log" >"$out/b_router_$i.res" &
  pb=$!
  wait "$pa" "$pb"
  kafka_stop
  two_floor=$(printf '%s\n%s\n' "$(f wall_s a_floor_$i)" "$(f wall_s b_floor_$i)" | sort -g | tail -n 1)
  two_router=$(printf '%s\n%s\n' "$(f wall_s a_router_$i)" "$(f wall_s b_router_$i)" | sort -g | tail -n 1)
  echo "one_floor=$(f wall_s one_floor_$i) one_router=$(f wall_s one_router_$i) two_floor=$two_floor two_router=$two_router" \
    "one_floor_ws=$(f walsender_cpu_s one_floor_$i) one_router_ws=$(f walsender_cpu_s one_router_$i)" \
    "two_floor_ws=$(calc "$(f walsender_cpu_s a_floor_$i) + $(f walsender_cpu_s b_floor_$i)")" \
    "two_router_ws=$(calc "$(f walsender_cpu_s a_router_$i) + $(f walsender_cpu_s b_router_$i)")" \
    "one_router_cpu=$(f cpu_s one_router_$i) two_router_cpu=$(calc "$(f cpu_s a_router_$i) + $(f cpu_s b_router_$i)")" | tee -a "$out/results"
done

m() { field "$1" <"$out/results" | median; }
echo
printf 'medians of %d; %d rows, %d per transaction, half in each table\n' "$repeats" "$rows" "$per_txn"
printf '%-10s %-34s %-34s\n' "" "pg_recvlogical (floor)" "outbox-router"
printf '%-10s %7.3f s %8.0f rows/s  ws %.2f s   %7.3f s %8.0f rows/s  ws %.2f s  router %.2f s\n' "one slot" \
  "$(m one_floor)" "$(calc "$rows / $(m one_floor)")" "$(m one_floor_ws)" "$(m one_router)" "$(calc "$rows / $(m one_router)")" \
  "$(m one_router_ws)" "$(m one_router_cpu)"
printf '%-10s %7.3f s %8.0f rows/s  ws %.2f s   %7.3f s %8.0f rows/s  ws %.2f s  router %.2f s\n' "two slots" \
  "$(m two_floor)" "$(calc "$rows / $(m two_floor)")" "$(m two_floor_ws)" "$(m two_router)" "$(calc "$rows / $(m two_router)")" \
  "$(m two_router_ws)" "$(m two_router_cpu)"
echo "(ws: walsender CPU, summed over both walsenders for two slots; router: router CPU, summed likewise)"
