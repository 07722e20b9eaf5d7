#!/usr/bin/env bash
# bench/lib.sh's exit clean-up, as a bench script runs it (set -e, an EXIT trap): a broker that
# exits 143 on SIGTERM, as a real one does, must not end it before the PostgreSQL after it is
# stopped. PostgreSQL is stood in for by a pg-cluster.sh that records the call.
set -euo pipefail
root=${1:?usage: bench_cleanup.sh SOURCE_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/scripts"
printf '#!/bin/sh\necho "$@" > "%s/pg-stopped"\n' "$scratch" > "$scratch/scripts/pg-cluster.sh"
chmod +x "$scratch/scripts/pg-cluster.sh"

status=0
bash -c '
  set -euo pipefail
  source "$1/bench/lib.sh"
  scripts=$2/scripts out=$2/out port=5432
  bash -c "trap \"exit 143\" TERM; while :; do sleep 0.1; done" & kafka_pid=$!
  sleep 0.3
  trap bench_cleanup EXIT
  exit 0
' bench "$root" "$scratch" || status=$?

if [ ! -f "$scratch/pg-stopped" ]; then
  echo "bench_cleanup did not stop PostgreSQL after the broker exited 143 (exit status $status)"
  exit 1
fi
echo "bench_cleanup stopped PostgreSQL: $(cat "$scratch/pg-stopped")"
