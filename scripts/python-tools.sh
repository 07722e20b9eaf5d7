#!/usr/bin/env bash
# Creates a Python virtual environment with the pinned packages of a requirements file once, in
# the user's cache (keyed by the file's contents), and links it into the build tree:
#   scripts/python-tools.sh <requirements.txt> <link>
set -euo pipefail

requirements=$1
link=$2
cache=${OUTBOX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outbox-router}
digest=$(sha256sum "$requirements" | cut -c1-16)
venv=$cache/venv-$digest

mkdir -p "$cache"
exec 9>"$venv.lock"
flock 9  # another build tree may be making it now
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
  echo "python-tools: creating $venv from $requirements"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  touch "$venv/.complete"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$venv" "$link"
