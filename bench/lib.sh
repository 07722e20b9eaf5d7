# Shared by the benchmark scripts (sourced, not run). Every script starts its own throwaway
# PostgreSQL (scripts/pg-cluster.sh) and Kafka (librdkafka's mock cluster in
# outbox-bench-kafka, or with KAFKA=real a real Apache Kafka broker), stops only the processes it
# started, and prints its figures; nothing is asserted.
#
# Environment:
#   BUILD_DIR    build tree with outbox-router and the bench tools (default: build/)
#   ROUTER_BIN   the outbox-router to measure (default: $BUILD_DIR/outbox-router), e.g. to compare two builds
#   BENCH_OUT    scratch directory (default: bench/out/<script name>); wiped at start
#   REPEATS      runs per measurement; the median is reported (default 3)
#   KAFKA_PROPS  extra librdkafka properties for the router, "name=value name=value"
#                (any kafka.* key passes through to librdkafka), e.g. KAFKA_PROPS="linger.ms=1"
#   KAFKA        mock (default) or real: a one-node Apache Kafka broker (KRaft, the version the tests
#                pin, from $BUILD_DIR/kafka-runtime/libs), fresh for each run like the mock
#   KAFKA_HEAP   the real broker's Java heap (default 1g)
#   KAFKA_RTT_MS the mock brokers delay each response by this many ms (default 0: loopback only)
#   QUIET_CORES, QUIET_WAIT  see wait_quiet below (0.25 cores, 120 s)
#   PG_TRANSPORT tls (default) or plain: how every client (router, pg_recvlogical, Debezium, the
#                bench tools, psql) connects to PostgreSQL. The server always runs with ssl=on
#                (scripts/pg-cluster.sh); tls verifies it (sslmode=verify-full against the CA
#                made at set-up), plain is sslmode=disable. gss (bench/transport.sh with GSS=1)
#                is GSSAPI encryption (gssencmode=require) with a KDC started by kdc_start.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
scripts=$root/scripts
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
repeats=${REPEATS:-3}
router_bin=${ROUTER_BIN:-$build/outbox-router}

bench_init() {  # NAME
  out=${BENCH_OUT:-$root/bench/out/$1}
  local exe
  for exe in "$router_bin" "$build/bench/outbox-bench-kafka" "$build/bench/outbox-bench-drain" "$build/bench/outbox-bench-produce"; do
    [ -x "$exe" ] || { echo "missing $exe: build first (make build, or BUILD_DIR=...)" >&2; exit 1; }
  done
  # The pg cluster directory is owned by postgres: stop a leftover cluster before wiping it.
  [ -d "$out/pg/data" ] && "$scripts/pg-cluster.sh" stop "$out/pg"
  rm -rf "$out"
  mkdir -p "$out"
  trap bench_cleanup EXIT
}

# Sends SIGTERM to PID and reaps it, whatever its exit status: a real broker exits 143 on SIGTERM,
# and under set -e a failing status would end the EXIT trap before the steps after it.
stop_process() {  # PID (may be empty)
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || return 0
  wait "$1" 2>/dev/null || true
}

bench_cleanup() {
  stop_process "${router_pid:-}"
  stop_process "${relay_pid:-}"
  stop_process "${kafka_pid:-}"
  if [ -n "${port:-}" ]; then "$scripts/pg-cluster.sh" stop "$out/pg" || true; fi
  stop_process "${kdc_pid:-}"
}

now() { date +%s.%N; }

# The machine is shared: before each timed run, wait (up to QUIET_WAIT seconds, default 120) for a
# second in which everything else uses less than QUIET_CORES cores (default 0.25). Prints what it saw.
wait_quiet() {
  local deadline=$((SECONDS + ${QUIET_WAIT:-120})) busy
  while :; do
    busy=$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat)
    sleep 1
    busy=$(awk -v before="$busy" -v hz="$(getconf CLK_TCK)" '/^cpu / {printf "%.2f", ($2 + $3 + $4 + $7 + $8 + $9 - before) / hz}' /proc/stat)
    if [ "$(echo "$busy < ${QUIET_CORES:-0.25}" | bc -l)" = 1 ] || [ $SECONDS -ge $deadline ]; then
      echo "$busy"
      return
    fi
  done
}
calc() { echo "$*" | bc -l; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }  # field NAME < "a=1 b=2"

machine() {
  local model mem
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
  echo "machine: $(nproc) cores ($model), $mem, $(. /etc/os-release && echo "$PRETTY_NAME"), kernel $(uname -r)"
  echo "software: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}'), librdkafka $(pkg-config --modversion rdkafka), router $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?') + working tree, build $(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt")"
  echo "load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg)"
}

pg_start() {
  port=$("$scripts/pg-cluster.sh" start "$out/pg")
  conninfo="host=127.0.0.1 port=$port dbname=postgres user=postgres $(pg_tls_options)"
  echo "postgres connections: $(pg_transport)"
}
pg_tls_options() {
  case ${PG_TRANSPORT:-tls} in
    tls) echo "sslmode=verify-full sslrootcert=$out/pg/tls/ca.crt" ;;
    plain) echo "sslmode=disable" ;;
    # The service principal is postgres/localhost: libpq takes it from host, the address apart.
    gss) echo "host=localhost hostaddr=127.0.0.1 gssencmode=require sslmode=disable" ;;
    *) echo "PG_TRANSPORT must be tls, plain or gss" >&2; exit 2 ;;
  esac
}
# What the run's PostgreSQL connections ran over, for the report.
pg_transport() {
  case ${PG_TRANSPORT:-tls} in
    tls) echo "TLS ($(sql -c "SELECT version || ' ' || cipher FROM pg_stat_ssl WHERE pid = pg_backend_pid()"), sslmode=verify-full)" ;;
    *) echo "plain TCP (sslmode=disable; the server has ssl=on)" ;;
  esac
}
# An MIT Kerberos KDC for GSSAPI encryption (Debian's krb5-kdc, krb5-admin-server, krb5-user): a
# realm in $out/kdc, the server's keytab for postgres/localhost (krb_server_keyfile), and a ticket for
# the client principal postgres in this shell's credentials cache (KRB5CCNAME, exported with
# KRB5_CONFIG to every client). initdb's pg_hba.conf trusts loopback, GSSAPI-encrypted or not.
kdc_start() {
  local dir=$out/kdc kdc_port
  for exe in krb5kdc kdb5_util kadmin.local kinit; do
    command -v "$exe" >/dev/null || { echo "missing $exe: scripts/install-deps.sh installs Kerberos" >&2; exit 1; }
  done
  mkdir -p "$dir"
  chmod 755 "$dir"
  kdc_port=$(free_port)
  printf '%s\n' "[libdefaults]" "  default_realm = OUTBOX.BENCH" "  dns_lookup_kdc = false" "  rdns = false" \
    "  dns_canonicalize_hostname = false" "  udp_preference_limit = 1" "[realms]" \
    "  OUTBOX.BENCH = {" "    kdc = 127.0.0.1:$kdc_port" "  }" >"$dir/krb5.conf"
  printf '%s\n' "[kdcdefaults]" "  kdc_ports = $kdc_port" "  kdc_tcp_ports = $kdc_port" "[realms]" "  OUTBOX.BENCH = {" \
    "    database_name = $dir/principal" "    key_stash_file = $dir/stash" "  }" "[logging]" \
    "  kdc = FILE:$dir/kdc.log" >"$dir/kdc.conf"
  export KRB5_CONFIG=$dir/krb5.conf KRB5_KDC_PROFILE=$dir/kdc.conf KRB5CCNAME=FILE:$dir/ccache
  {
    kdb5_util create -s -r OUTBOX.BENCH -P bench-master-key
    kadmin.local -q "addprinc -randkey postgres/localhost"
    kadmin.local -q "addprinc -randkey postgres"
    kadmin.local -q "ktadd -k $dir/server.keytab postgres/localhost"
    kadmin.local -q "ktadd -k $dir/client.keytab postgres"
  } >"$dir/admin.log" 2>&1 || { cat "$dir/admin.log" >&2; exit 1; }
  chmod 644 "$dir/server.keytab"
  krb5kdc -n >>"$dir/kdc.log" 2>&1 &
  kdc_pid=$!
  until kinit -k -t "$dir/client.keytab" postgres 2>/dev/null; do
    kill -0 "$kdc_pid" 2>/dev/null || { cat "$dir/kdc.log" >&2; exit 1; }
    sleep 0.1
  done
  sql -c "ALTER SYSTEM SET krb_server_keyfile = '$dir/server.keytab'" -c "SELECT pg_reload_conf()" >/dev/null
}

sql() { psql -X -q -t -A -v ON_ERROR_STOP=1 -d "$conninfo" "$@"; }

# The outbox table, a publication for it and a procedure that writes the backlog: ~300-byte jsonb
# payloads, 10 aggregate types, 1,000 keys, ROWS_PER_TXN rows per transaction (COMMIT inside the
# procedure: each batch is a transaction of its own in the WAL).
outbox_setup() {
  sql -f "$root/sql/outbox.sql"
  sql <<'SQL'
CREATE PUBLICATION bench FOR TABLE outbox;
CREATE PROCEDURE bench_fill(first bigint, last bigint, per_txn int) LANGUAGE plpgsql AS $$
DECLARE
  i bigint := first;
BEGIN
  WHILE i <= last LOOP
    INSERT INTO outbox (id, aggregatetype, aggregateid, type, payload)
    SELECT md5(s::text)::uuid, 'Aggregate' || (s % 10), 'agg-' || (s % 1000), 'Created',
           jsonb_build_object('seq', s, 'customer', 'customer-' || (s % 1000), 'amount', s * 1.5,
                              'note', repeat('x', 200), 'tags', jsonb_build_array('a', 'b', 'c'))
    FROM generate_series(i, least(i + per_txn - 1, last)) s;
    COMMIT;
    i := i + per_txn;
  END LOOP;
END $$;
SQL
}

slot_create() { for s in "$@"; do sql -c "SELECT 1 FROM pg_create_logical_replication_slot('$s', 'pgoutput')" >/dev/null; done; }

# backlog ROWS PER_TXN: writes it (asynchronous commit: only the WAL matters), flushes it, sets end_lsn.
backlog() {
  sql -c "SET synchronous_commit = off" -c "CALL bench_fill(0, $1 - 1, $2)" -c "CHECKPOINT"
  end_lsn=$(sql -c "SELECT pg_current_wal_insert_lsn()")
  payload_bytes=$(sql -c "SELECT avg(octet_length(payload::text))::int FROM outbox")
}

kafka_start() {  # [TOPIC[:PARTITIONS]...]
  kafka_stop
  if [ "${KAFKA:-mock}" = real ]; then
    kafka_start_real "$@"
    return
  fi
  rm -f "$out/kafka.addr"
  "$build/bench/outbox-bench-kafka" 1 "$@" >"$out/kafka.addr.tmp" &
  kafka_pid=$!
  until [ -s "$out/kafka.addr.tmp" ]; do
    kill -0 "$kafka_pid" || { echo "outbox-bench-kafka failed" >&2; exit 1; }
    sleep 0.02
  done
  mv "$out/kafka.addr.tmp" "$out/kafka.addr"
  kafka_addr=$(head -n 1 "$out/kafka.addr")
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# A real broker whose auto-created topics get the partitions the first TOPIC:PARTITIONS names
# (default 4, as the mock's); ready when it has started and served a first producer id.
kafka_start_real() {
  local partitions=4 spec dir=$out/kafka libs=$build/kafka-runtime/libs port cport
  for spec in "$@"; do [[ $spec == *:* ]] && partitions=${spec##*:} && break; done
  [ -d "$libs" ] || { echo "missing $libs: build first (make build)" >&2; exit 1; }
  rm -rf "$dir"
  mkdir -p "$dir/data"
  port=$(free_port)
  cport=$(free_port)
  printf '%s\n' "process.roles=broker,controller" "node.id=1" "controller.quorum.voters=1@127.0.0.1:$cport" \
    "listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport" \
    "advertised.listeners=PLAINTEXT://127.0.0.1:$port" "controller.listener.names=CONTROLLER" \
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" "inter.broker.listener.name=PLAINTEXT" \
    "log.dirs=$dir/data" "num.partitions=$partitions" "offsets.topic.replication.factor=1" \
    "offsets.topic.num.partitions=1" "transaction.state.log.replication.factor=1" "transaction.state.log.min.isr=1" \
    "transaction.state.log.num.partitions=1" "share.coordinator.state.topic.replication.factor=1" \
    "share.coordinator.state.topic.min.isr=1" "group.initial.rebalance.delay.ms=0" >"$dir/server.properties"
  java -cp "$libs/*" kafka.tools.StorageTool format -t b3V0Ym94LXJvdXRlci10ZQ -c "$dir/server.properties" \
    >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; exit 1; }
  java -Xms"${KAFKA_HEAP:-1g}" -Xmx"${KAFKA_HEAP:-1g}" -Dkafka.logs.dir="$dir" -cp "$libs/*" kafka.Kafka \
    "$dir/server.properties" >"$dir/server.log" 2>&1 &
  kafka_pid=$!
  kafka_addr=127.0.0.1:$port
  until kcat -b "$kafka_addr" -L -m 1 >/dev/null 2>&1; do
    kill -0 "$kafka_pid" 2>/dev/null || { tail -n 40 "$dir/server.log" >&2; exit 1; }
    sleep 0.2
  done
  # The first transactional producer id waits for the broker to create and load its transaction
  # state log, once per cluster: not part of a timed run.
  echo warm-up | kcat -b "$kafka_addr" -P -t bench.warm-up -X transactional.id=bench-warm-up 2>/dev/null || true
  # The named topics exist before the run, as the mock creates them: a metadata request for a
  # topic makes the broker create it.
  for spec in "$@"; do
    until kcat -b "$kafka_addr" -L -t "${spec%%:*}" 2>/dev/null | grep -q "with $partitions partitions"; do sleep 0.2; done
  done
}

kafka_stop() {
  # A real broker exits 143 on SIGTERM; that is its clean stop, not a failure of the run.
  stop_process "${kafka_pid:-}"
  kafka_pid=
}

# router_config FILE SLOT [YAML lines for the top level]
router_config() {
  local file=$1 slot=$2
  shift 2
  {
    echo "postgres:"
    echo "  conninfo: \"$conninfo\""
    echo "  slot.name: $slot"
    echo "  publication.name: bench"
    echo "  publication.autocreate.mode: disabled"
    echo "  status.update.interval.ms: ${STATUS_INTERVAL_MS:-10}"
    echo "kafka:"
    echo "  bootstrap.servers: \"$kafka_addr\""
    for prop in ${KAFKA_PROPS:-}; do echo "  ${prop%%=*}: \"${prop#*=}\""; done
    for line in "$@"; do echo "$line"; done
    # ROUTER_YAML: extra top-level lines, e.g. ROUTER_YAML="delivery.guarantee: exactly-once"
    [ -z "${ROUTER_YAML:-}" ] || printf '%s\n' "$ROUTER_YAML"
  } >"$file"
}

# drain SLOT MODE LOG -- COMMAND...: prints outbox-bench-drain's key=value line
drain() {
  local slot=$1 until=$2 log=$3
  shift 4
  "$build/bench/outbox-bench-drain" --conninfo "$conninfo" --slot "$slot" --end-lsn "$end_lsn" --until "$until" \
    --kafka-pid "${kafka_pid:-0}" --log "$log" -- "$@"
}

floor_run() {  # SLOT LOG: pg_recvlogical streaming the backlog to /dev/null
  drain "$1" exit "$2" -- "$bindir/pg_recvlogical" -d "$conninfo" -S "$1" \
    --start -o proto_version=1 -o publication_names=bench -E "$end_lsn" -f /dev/null
}

router_run() {  # SLOT LOG CONFIG
  drain "$1" confirmed "$2" -- "$router_bin" --config "$3"
}

# A latency spec RATE[:ROWS_PER_TXN] into rate and per_txn (default 1 row per transaction).
parse_spec() {
  rate=${1%%:*}
  per_txn=1
  [[ $1 == *:* ]] && per_txn=${1#*:}
  true
}

# Debezium as bench/debezium.sh and bench/debezium-latency.sh run it: Kafka Connect standalone with
# the PostgreSQL connector and the EventRouter (the pinned tests/debezium-runtime jars),
# StringConverter, offsets in a file, INFO log on standard output.
debezium_files() {  # SLOT DIR: worker, connector and log configuration for a connector on SLOT
  local slot=$1 dir=$2
  [ -d "$build/debezium-runtime/libs" ] || { echo "missing $build/debezium-runtime/libs: build first" >&2; exit 1; }
  mkdir -p "$dir"
  printf '%s\n' "bootstrap.servers=$kafka_addr" \
    "key.converter=org.apache.kafka.connect.storage.StringConverter" \
    "value.converter=org.apache.kafka.connect.storage.StringConverter" \
    "offset.storage.file.filename=$dir/offsets" "offset.flush.interval.ms=1000" \
    "listeners=http://127.0.0.1:$(free_port)" >"$dir/worker.properties"
  printf '%s\n' "name=$slot" "connector.class=io.debezium.connector.postgresql.PostgresConnector" "tasks.max=1" \
    "plugin.name=pgoutput" "database.hostname=127.0.0.1" "database.port=$port" "database.user=postgres" \
    "database.sslmode=$(debezium_sslmode)" "database.sslrootcert=$out/pg/tls/ca.crt" \
    "database.dbname=postgres" "topic.prefix=$slot" "slot.name=$slot" "publication.name=bench" \
    "publication.autocreate.mode=disabled" "table.include.list=public.outbox" "snapshot.mode=no_data" \
    "transforms=outbox" "transforms.outbox.type=io.debezium.transforms.outbox.EventRouter" >"$dir/connector.properties"
  printf '%s\n' "appender.console.type = Console" "appender.console.name = STDOUT" \
    "appender.console.layout.type = PatternLayout" "appender.console.layout.pattern = [%d] %p %m (%c)%n" \
    "rootLogger.level = INFO" "rootLogger.appenderRef.stdout.ref = STDOUT" >"$dir/log4j2.properties"
}

debezium_sslmode() { [ "${PG_TRANSPORT:-tls}" = tls ] && echo verify-full || echo disable; }

# Sets debezium_cmd to the command that starts it, with the JVM options of Kafka's
# connect-standalone.sh.
debezium_command() {  # DIR
  debezium_cmd=(java -Xms256m -Xmx2g -XX:+UseG1GC -Djava.awt.headless=true "-Dlog4j2.configurationFile=$1/log4j2.properties"
    -cp "$build/debezium-runtime/libs/*" org.apache.kafka.connect.cli.ConnectStandalone "$1/worker.properties"
    "$1/connector.properties")
}
