#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the demo and the benchmark.
#   pg-cluster.sh start DIR   initdb (if needed) and start on a free loopback port; prints the port
#   pg-cluster.sh stop DIR    stop it
# Runs the server as the postgres user when called as root (PostgreSQL refuses root). TLS is on,
# as on a production server: a CA made at first start (DIR/tls/ca.crt, what a client's sslrootcert
# names) signs the server's certificate for 127.0.0.1 and localhost. Plain TCP is accepted too.
set -euo pipefail

action=$1
dir=$(realpath -m "$2")
bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "$action" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log"
      mkdir -p "$dir/tls"
      (
        cd "$dir/tls"
        ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
        openssl req -x509 -new "${ec[@]}" -days 30 -keyout ca.key -out ca.crt -subj "/CN=outbox-router test CA" \
          -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
        openssl req -new "${ec[@]}" -keyout server.key -out server.csr -subj /CN=127.0.0.1
        printf 'subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 30 -extfile server.ext \
          -out server.crt
        chmod 600 ca.key server.key
        chmod 644 ca.crt server.crt
      ) >"$dir/tls.log" 2>&1 || { cat "$dir/tls.log" >&2; exit 1; }
      install -m 600 "$dir/tls/server.key" "$dir/tls/server.crt" "$dir/data/"
      [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir/data/server.key" "$dir/data/server.crt"
      printf '%s\n' "ssl = on" >>"$dir/data/postgresql.auto.conf"
    fi
    port=$(free_port)
    cat >>"$dir/data/postgresql.auto.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
wal_level = logical
max_wal_senders = 20
max_replication_slots = 20
CONF
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null
    echo "$port"
    ;;
  stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
