#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the tests and the demo need, if any is missing.
set -euo pipefail

packages=(build-essential cmake pkg-config libpq-dev libssl-dev librdkafka-dev nlohmann-json3-dev libyaml-cpp-dev
          libboost-test-dev libpcre2-dev libmicrohttpd-dev postgresql postgresql-client kcat bc python3 python3-venv
          docker-compose openssl default-jdk-headless maven clang-14 libclang-rt-14-dev
          krb5-kdc krb5-admin-server krb5-user iptables libavro-dev
          libcurl4-openssl-dev libgnutls28-dev)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
