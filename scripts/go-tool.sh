#!/usr/bin/env bash
# Builds a pinned Go command once into the user's cache and links it into the build tree:
#   scripts/go-tool.sh <package>@<version> <link> [build tags]
# The cache (OUTBOX_CACHE_DIR, default ~/.cache/outbox-router) outlives build trees and clean
# clones, as Maven's ~/.m2 does for the Java parts; Go's own module and build caches hold the
# sources and objects. A first build of helm or promtool takes minutes, later ones nothing.
set -euo pipefail

package_at_version=$1
link=$2
tags=${3:-}
cache=${OUTBOX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outbox-router}
name=$(basename "${package_at_version%@*}")
version=${package_at_version#*@}
bin_dir=$cache/tools/$name-$version${tags:+-${tags//,/-}}

mkdir -p "$cache/tools"
exec 9>"$bin_dir.lock"
flock 9  # another build tree may be building it now
if [ ! -x "$bin_dir/$name" ]; then
  echo "go-tool: building $package_at_version into $bin_dir (once; minutes on 2 cores)"
  mkdir -p "$bin_dir.tmp"
  GOBIN=$bin_dir.tmp GOFLAGS=-buildvcs=false go install ${tags:+-tags "$tags"} "$package_at_version"
  rm -rf "$bin_dir" && mv "$bin_dir.tmp" "$bin_dir"
fi
mkdir -p "$(dirname "$link")"
ln -sfn "$bin_dir/$name" "$link"
