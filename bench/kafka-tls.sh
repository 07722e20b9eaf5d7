#!/usr/bin/env bash
# What SASL_SSL costs against PLAINTEXT on the real broker, measured in the same run.
#   bench/kafka-tls.sh [ROWS] [ROWS_PER_TXN]        (defaults 200000 1000; REPEATS=3)
#
#  1. A throwaway PostgreSQL; the publication and 2*REPEATS pgoutput slots are created before any
#     data, so every run streams exactly the same WAL. ROWS outbox rows as bench/throughput.sh
#     writes them, flushed before anything is timed.
#  2. A CA and a broker certificate for "localhost" (openssl, at set-up).
#  3. Alternating runs, each on a fresh slot and a fresh one-node Apache Kafka broker (the pinned
#     4.x, KAFKA_HEAP, the router's topics created first) with two listeners: PLAINTEXT, and
#     SASL_SSL with PLAIN (TLS 1.3, the broker's certificate verified with
#     ssl.endpoint.identification.algorithm https). The same router binary and settings but for
#     the listener, timed as bench/throughput.sh times it: from fork until the slot's
#     confirmed_flush_lsn reaches the end of the backlog.
#  4. Medians: rate = ROWS / wall; CPU per event = router user+sys / ROWS; the broker's CPU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rows=${1:-200000}
per_txn=${2:-1000}
bench_init "kafka-tls-$rows-$per_txn"
machine

pg_start
outbox_setup
slots=()
for ((i = 1; i <= repeats; i++)); do slots+=("plain_$i" "sasl_ssl_$i"); done
slot_create "${slots[@]}"
echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"
echo "backlog: $rows rows, average payload $payload_bytes bytes, WAL end $end_lsn"

tls=$out/tls
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.pem" -days 2 -subj "/CN=bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$tls/broker.key" -out "$tls/broker.csr" -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=DNS:localhost\n' >"$tls/broker.ext"
openssl x509 -req -in "$tls/broker.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial -days 2 \
  -extfile "$tls/broker.ext" -out "$tls/broker.pem" 2>/dev/null
cat "$tls/broker.key" "$tls/broker.pem" >"$tls/broker-keystore.pem"
export BENCH_KAFKA_PASSWORD=bench-sasl-password

partitions=${PARTITIONS:-4}
topics=()
for ((t = 0; t < 10; t++)); do topics+=("outbox.event.Aggregate$t"); done

# One broker as kafka_start_real starts it, plus a SASL_SSL listener on localhost:$tls_port.
kafka_start_tls() {
  local dir=$out/kafka libs=$build/kafka-runtime/libs port cport topic
  kafka_stop
  rm -rf "$dir"
  mkdir -p "$dir/data"
  port=$(free_port)
  cport=$(free_port)
  tls_port=$(free_port)
  printf '%s\n' "process.roles=broker,controller" "node.id=1" "controller.quorum.voters=1@127.0.0.1:$cport" \
    "listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport,SASLSSL://127.0.0.1:$tls_port" \
    "advertised.listeners=PLAINTEXT://127.0.0.1:$port,SASLSSL://localhost:$tls_port" \
    "controller.listener.names=CONTROLLER" \
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASLSSL:SASL_SSL" \
    "inter.broker.listener.name=PLAINTEXT" "log.dirs=$dir/data" "num.partitions=$partitions" \
    "offsets.topic.replication.factor=1" "offsets.topic.num.partitions=1" "transaction.state.log.replication.factor=1" \
    "transaction.state.log.min.isr=1" "transaction.state.log.num.partitions=1" \
    "share.coordinator.state.topic.replication.factor=1" "share.coordinator.state.topic.min.isr=1" \
    "group.initial.rebalance.delay.ms=0" "sasl.enabled.mechanisms=PLAIN" \
    "listener.name.saslssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_bench=\"$BENCH_KAFKA_PASSWORD\";" \
    "listener.name.saslssl.ssl.keystore.type=PEM" "listener.name.saslssl.ssl.keystore.location=$tls/broker-keystore.pem" \
    >"$dir/server.properties"
  java -cp "$libs/*" kafka.tools.StorageTool format -t b3V0Ym94LXJvdXRlci10ZQ -c "$dir/server.properties" \
    >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; exit 1; }
  java -Xms"${KAFKA_HEAP:-1g}" -Xmx"${KAFKA_HEAP:-1g}" -Dkafka.logs.dir="$dir" -cp "$libs/*" kafka.Kafka \
    "$dir/server.properties" >"$dir/server.log" 2>&1 &
  kafka_pid=$!
  plain_addr=127.0.0.1:$port
  until kcat -b "$plain_addr" -L -m 1 >/dev/null 2>&1; do
    kill -0 "$kafka_pid" 2>/dev/null || { tail -n 40 "$dir/server.log" >&2; exit 1; }
    sleep 0.2
  done
  for topic in "${topics[@]}"; do
    until kcat -b "$plain_addr" -L -t "$topic" 2>/dev/null | grep -q "with $partitions partitions"; do sleep 0.2; done
  done
}

: >"$out/plain.runs"
: >"$out/sasl_ssl.runs"
for slot in "${slots[@]}"; do
  quiet=$(wait_quiet)
  kafka_start_tls
  case $slot in
    plain_*)
      kafka_addr=$plain_addr
      router_config "$out/$slot.yaml" "$slot"
      kind=plain
      ;;
    sasl_ssl_*)
      kafka_addr=localhost:$tls_port
      router_config "$out/$slot.yaml" "$slot" "  security.protocol: SASL_SSL" "  ssl.ca.location: \"$tls/ca.pem\"" \
        "  ssl.endpoint.identification.algorithm: https" "  sasl.mechanisms: PLAIN" "  sasl.username: bench" \
        "  sasl.password: \"\${env:BENCH_KAFKA_PASSWORD}\""
      kind=sasl_ssl
      ;;
  esac
  result=$(router_run "$slot" "$out/$slot.log" "$out/$slot.yaml")
  kafka_stop
  echo "$result" >>"$out/$kind.runs"
  echo "  $kind $slot: $result (background before: $quiet cores)"
done

med() { field "$1" <"$out/$2.runs" | median; }
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d partitions_per_topic=%d repeats=%d (medians; every run above)\n' \
  "$rows" "$per_txn" "$payload_bytes" "$partitions" "$repeats"
for kind in plain sasl_ssl; do
  printf '%-9s %7.3f s %8.0f rows/s   router CPU %.3f s = %.2f us/event (user %.3f s, sys %.3f s)   broker CPU %.2f s   peak RSS %.1f MiB\n' \
    "$kind" "$(med wall_s "$kind")" "$(calc "$rows / $(med wall_s "$kind")")" "$(med cpu_s "$kind")" \
    "$(calc "1000000 * $(med cpu_s "$kind") / $rows")" "$(med user_s "$kind")" "$(med sys_s "$kind")" \
    "$(med kafka_cpu_s "$kind")" "$(calc "$(med peak_rss_kib "$kind") / 1024")"
done
printf 'SASL_SSL against PLAINTEXT: rate %.1f %%, router CPU per event %.2fx, broker CPU %.2fx\n' \
  "$(calc "100 * $(med wall_s plain) / $(med wall_s sasl_ssl)")" "$(calc "$(med cpu_s sasl_ssl) / $(med cpu_s plain)")" \
  "$(calc "$(med kafka_cpu_s sasl_ssl) / $(med kafka_cpu_s plain)")"
printf 'machine: busy %.2f of %d cores during PLAINTEXT runs, %.2f during SASL_SSL runs; other work %.2f / %.2f cores\n' \
  "$(med machine_busy_cores plain)" "$(nproc)" "$(med machine_busy_cores sasl_ssl)" "$(med others_cores plain)" \
  "$(med others_cores sasl_ssl)"
