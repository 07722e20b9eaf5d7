#!/usr/bin/env bash
# The whole benchmark suite (`make bench`); docs/benchmarks.md explains every figure.
#   bench/run.sh                      all of it (about 25 minutes on 2 cores)
#   bench/run.sh N [ROWS_PER_TXN]     only the backlog throughput for N rows (as before)
# Environment: BUILD_DIR, REPEATS (default 3), KAFKA_PROPS; see bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ $# -gt 0 ]; then
  exec "$here/throughput.sh" "$@"
fi

section() { printf '\n######## %s\n' "$*"; }
section "throughput: 200,000-row backlog, 1,000 rows per transaction"
"$here/throughput.sh" 200000 1000
section "TLS against plain TCP: 50,000-row backlog, 1,000 rows per transaction"
"$here/transport.sh" 50000 1000
section "throughput: 1,000,000-row backlog, 1,000 rows per transaction"
"$here/throughput.sh" 1000000 1000
section "throughput: 200,000-row backlog, 1 row per transaction"
"$here/throughput.sh" 200000 1
section "latency: steady rates"
"$here/latency.sh" 1000:1 5000:1 20000:10
section "latency at 5,000 events/s with the cross-checking consumer on the same cores"
TRANSPORTS=tls CONSUMER=1 "$here/latency.sh" 5000:1
section "AvroConverter beside JsonConverter with schemas: 100,000-row backlog, 1,000 rows per transaction"
"$here/avro.sh" 100000 1000
section "start-up"
"$here/startup.sh"
