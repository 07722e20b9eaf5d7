#!/usr/bin/env bash
# Mutation testing of the deterministic simulation (make mutate). Each tests/mutation/*.patch
# plants one small, realistic bug in the code the simulation drives; the mutant is killed when a
# seed of the simulation fails. The patches go into a copy of the tree (tracked and new files),
# never the tree itself, and only the simulation target is built, in a build directory kept
# between runs. The copy's build lies at the same place relative to its sources as build/ does in
# the tree, so that ccache (when configured; it is told to leave the working directory out of its
# hashes) serves the copy's first build from the tree's.
#
#   MUTATE_SEEDS   seeds per mutant (default 2000, make test's budget)
#   MUTATE_ONLY    run only the patches whose name contains this
#   MUTATE_DIR     where the copy and its build live (default build/mutate)
#
# Prints one line per patch (killed, with the first failing seed and what broke; survived; does
# not apply; does not build) and the kill rate over the patches that applied and built. Exits 1 when a mutant
# survived or a patch no longer applies.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seeds=${MUTATE_SEEDS:-2000}
only=${MUTATE_ONLY:-}
work=${MUTATE_DIR:-$root/build/mutate}
jobs=${JOBS:-$(nproc)}
tree=$work/tree
build=$tree/build
mkdir -p "$tree" "$build"
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

# The copy: a file that differs from the tree's is copied again (its new mtime rebuilds it), and
# one the tree no longer has is removed (the simulation's sources are globbed).
(cd "$root" && git ls-files -co --exclude-standard | sort) >"$work/files"
(cd "$tree" && find . -path ./build -prune -o -type f -print | sed 's|^\./||' | sort) >"$work/copied"
comm -13 "$work/files" "$work/copied" | (cd "$tree" && xargs -r rm -f --)
while IFS= read -r file; do
    [ -f "$root/$file" ] || continue
    if ! cmp -s "$root/$file" "$tree/$file"; then
        mkdir -p "$(dirname "$tree/$file")"
        cp "$root/$file" "$tree/$file"
    fi
done <"$work/files"

cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build_simulation() { cmake --build "$build" -j "$jobs" --target simulation >"$work/build.log" 2>&1; }

# Runs the seeds; prints the first failing seed and what broke, or nothing when all pass.
first_failure() {
    local out
    out=$(timeout "${MUTATE_TIMEOUT:-3600}" "$build/tests/simulation" --seeds "$seeds" 2>&1) && return 0
    local failure
    failure=$(sed -n 's/^FAILED seed \([0-9]*\): \(.*\)/\1: \2/p' <<<"$out" | head -1)
    echo "${failure:-no seed: crashed or timed out}"
}

echo "mutate: the unmutated simulation, $seeds seeds"
build_simulation || { cat "$work/build.log"; echo "mutate: the tree does not build"; exit 1; }
started=$SECONDS
if failed=$(first_failure) && [ -n "$failed" ]; then
    echo "mutate: the unmutated simulation fails (seed $failed): fix that first"
    exit 1
fi
echo "mutate: clean in $((SECONDS - started)) s"

killed=0 survived=0 unapplied=0 unbuilt=0 total=0
survivors=()
for patch in "$root"/tests/mutation/*.patch; do
    name=$(basename "$patch" .patch)
    [[ -n "$only" && "$name" != *"$only"* ]] && continue
    total=$((total + 1))
    if ! patch -d "$tree" -p1 -s --dry-run <"$patch" >/dev/null 2>&1; then
        printf '%-34s does not apply\n' "$name"
        unapplied=$((unapplied + 1))
        continue
    fi
    patch -d "$tree" -p1 -s <"$patch"
    started=$SECONDS
    if ! build_simulation; then
        printf '%-34s does not build\n' "$name"
        unbuilt=$((unbuilt + 1))
    else
        failed=$(first_failure || true)
        if [ -n "$failed" ]; then
            printf '%-34s killed in %d s, seed %s\n' "$name" $((SECONDS - started)) "$failed"
            killed=$((killed + 1))
        else
            printf '%-34s SURVIVED %d seeds (%d s)\n' "$name" "$seeds" $((SECONDS - started))
            survived=$((survived + 1))
            survivors+=("$name")
        fi
    fi
    # Reverted by patch, so the file's mtime is new and the next build compiles it again.
    patch -d "$tree" -p1 -s -R <"$patch"
done

counted=$((killed + survived))
echo "mutate: killed $killed of $counted mutants ($((counted ? 100 * killed / counted : 0))%) with $seeds seeds each;" \
    "$unapplied do not apply, $unbuilt do not build"
[ ${#survivors[@]} -eq 0 ] || echo "mutate: survivors: ${survivors[*]}"
[ "$survived" -eq 0 ] && [ "$unapplied" -eq 0 ]
