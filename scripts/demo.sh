#!/usr/bin/env bash
# `make demo`: a throwaway PostgreSQL, the router with an embedded Kafka-protocol cluster,
# a few orders with their outbox rows, and the Kafka records they became.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
router=${OUTBOX_ROUTER:-$root/build/outbox-router}
work=$root/.demo
scripts=$root/scripts

cleanup() {
  [ -n "${router_pid:-}" ] && kill -TERM "$router_pid" 2>/dev/null && wait "$router_pid" 2>/dev/null || true
  "$scripts/pg-cluster.sh" stop "$work/pg"
}
trap cleanup EXIT

rm -rf "$work"
mkdir -p "$work"
echo "== starting a throwaway PostgreSQL (wal_level=logical)"
export OUTBOX_DEMO_PGPORT=$("$scripts/pg-cluster.sh" start "$work/pg")
psql_demo() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$OUTBOX_DEMO_PGPORT" -U postgres -d postgres "$@"; }
echo "   listening on 127.0.0.1:$OUTBOX_DEMO_PGPORT"
psql_demo -f "$root/sql/outbox.sql"

echo "== starting outbox-router --config config/demo.yaml"
"$router" --config "$root/config/demo.yaml" >"$work/router.log" 2>&1 &
router_pid=$!
for _ in $(seq 1 100); do
  grep -q "streaming from slot" "$work/router.log" && break
  kill -0 "$router_pid" 2>/dev/null || { cat "$work/router.log"; exit 1; }
  sleep 0.1
done
bootstrap=$(sed -n 's/.*listening at \([^ ]*\).*/\1/p' "$work/router.log" | head -n 1)
sed 's/^/   /' "$work/router.log"

echo "== writing orders and their outbox rows (sql/demo-orders.sql)"
psql_demo -f "$root/sql/demo-orders.sql"

echo "== Kafka records (read back over the Kafka protocol with kcat from $bootstrap)"
for topic in outbox.event.Order outbox.event.Customer; do
  kcat -C -b "$bootstrap" -t "$topic" -e -q -c 10 -m 15 \
    -f 'topic=%t partition=%p offset=%o key=%k headers=%h\n  value=%s\n'
done

echo "== stopping the router (SIGTERM)"
kill -TERM "$router_pid"
status=0
wait "$router_pid" || status=$?
router_pid=
tail -n 2 "$work/router.log" | sed 's/^/   /'
echo "   exit status $status"
psql_demo -c "SELECT slot_name, confirmed_flush_lsn, pg_current_wal_lsn() AS server_lsn FROM pg_replication_slots"
exit "$status"
