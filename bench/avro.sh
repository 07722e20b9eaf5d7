#!/usr/bin/env bash
# AvroConverter beside JsonConverter with schemas, in the same run, on the same backlog.
#   bench/avro.sh [ROWS] [ROWS_PER_TXN]        (defaults 100000 1000; REPEATS=3)
#
# The throughput backlog (bench/lib.sh: ~300-byte jsonb payloads, 10 aggregate types, 1,000
# keys), expanded (table.expand.json.payload, the usual Avro case: the payload a record of its
# own), keys and values through the converter. Alternating runs, each on a fresh slot and a fresh
# mock Kafka cluster: JSON with schemas, Avro, JSON, Avro, ... Avro registers with a real Apicurio
# Registry (build/apicurio-registry, started once; its first registrations happen in the first
# Avro run, the later runs find the schemas registered). Medians: rate (ROWS / wall, from fork
# until the slot confirms the end), router CPU per event, and the registry requests each Avro run
# made (counted in the registry's access log), per 100,000 records.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

rows=${1:-100000}
per_txn=${2:-1000}
bench_init "avro-$rows-$per_txn"
machine

registry_dir="$build/apicurio-registry"
java=${APICURIO_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
[ -f "$registry_dir/quarkus-run.jar" ] || { echo "missing $registry_dir: make build first" >&2; exit 1; }
registry_port=$(free_port)
registry_log="$out/registry.log"
"$java" -Xmx512m -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$registry_port" \
  -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$(free_port)" \
  -jar "$registry_dir/quarkus-run.jar" >"$registry_log" 2>&1 &
registry_pid=$!
trap 'kill $registry_pid 2>/dev/null; bench_cleanup' EXIT
registry_url="http://127.0.0.1:$registry_port/apis/ccompat/v7"
for ((i = 0; i < 360; i++)); do
  curl -sf "$registry_url/subjects" >/dev/null && break
  sleep 0.5
done
curl -sf "$registry_url/subjects" >/dev/null || { tail -20 "$registry_log"; exit 1; }
registry_requests() { grep -c 'path="/apis/ccompat/v7/subjects/' "$registry_log" || true; }

pg_start
outbox_setup
slots=()
for ((i = 1; i <= repeats; i++)); do slots+=("json_$i" "avro_$i"); done
slot_create "${slots[@]}"
echo "writing $rows rows, $per_txn per transaction..."
backlog "$rows" "$per_txn"

topics=()
for ((t = 0; t < 10; t++)); do topics+=("outbox.event.Aggregate$t:4"); done
: >"$out/json.runs"
: >"$out/avro.runs"
for slot in "${slots[@]}"; do
  quiet=$(wait_quiet)
  kafka_start "${topics[@]}"
  common=("topic.prefix: bench" "outbox:" "  table.expand.json.payload: true")
  case $slot in
    json_*)
      router_config "$out/$slot.yaml" "$slot" "${common[@]}" \
        "key.converter: org.apache.kafka.connect.json.JsonConverter" \
        "value.converter: org.apache.kafka.connect.json.JsonConverter"
      result=$(router_run "$slot" "$out/$slot.log" "$out/$slot.yaml")
      echo "$result" >>"$out/json.runs"
      ;;
    avro_*)
      router_config "$out/$slot.yaml" "$slot" "${common[@]}" \
        "key.converter: io.confluent.connect.avro.AvroConverter" \
        "key.converter.schema.registry.url: \"$registry_url\"" \
        "value.converter: io.confluent.connect.avro.AvroConverter" \
        "value.converter.schema.registry.url: \"$registry_url\""
      before=$(registry_requests)
      result=$(router_run "$slot" "$out/$slot.log" "$out/$slot.yaml")
      result="$result registry_requests=$(($(registry_requests) - before))"
      echo "$result" >>"$out/avro.runs"
      ;;
  esac
  kafka_stop
  echo "  $slot: $result (background before: $quiet cores)"
done

med() { field "$1" <"$out/$2.runs" | median; }
echo
printf 'rows=%d rows_per_txn=%d payload_bytes=%d repeats=%d, expanded payloads, keys and values through the converter (medians)\n' \
  "$rows" "$per_txn" "$payload_bytes" "$repeats"
for kind in json avro; do
  printf '%-28s %8.0f rows/s   CPU %.2f us/event\n' \
    "$([ $kind = json ] && echo 'JsonConverter with schemas:' || echo 'AvroConverter (registry):')" \
    "$(calc "$rows / $(med wall_s $kind)")" "$(calc "1000000 * $(med cpu_s $kind) / $rows")"
done
printf 'Avro / JSON: rate %.2f, CPU per event %.2f; registry requests per 100,000 records: %.1f (median per run; the first run registers)\n' \
  "$(calc "$(med wall_s json) / $(med wall_s avro)")" "$(calc "$(med cpu_s avro) / $(med cpu_s json)")" \
  "$(calc "100000 * $(med registry_requests avro) / $rows")"
