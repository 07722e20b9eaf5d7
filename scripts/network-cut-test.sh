#!/bin/sh
# Kernel-level detection of a network cut (tests/netns/test_network_cut.cpp). The test program,
# with its PostgreSQL server, broker and router, runs in a network namespace of its own, where
# iptables drops one connection's packets (a loopback proxy cannot). Needs root (CAP_SYS_ADMIN,
# CAP_NET_ADMIN) and Debian's iptables package; `make test` does not run it.
set -eu
BUILD_DIR=${BUILD_DIR:-build}
command -v iptables >/dev/null || { echo "network-cut-test: iptables is missing (apt-get install iptables)" >&2; exit 1; }
cmake --build "$BUILD_DIR" --target netns_test_network_cut -j "${JOBS:-$(nproc)}"
exec unshare --net sh -c 'ip link set lo up && exec "$0" --log_level=message' "$BUILD_DIR/tests/netns_test_network_cut"
