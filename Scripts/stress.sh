#!/usr/bin/env bash
# Builds and runs provision-stress: many threads hammer one injector with a seeded random mix of
# operations, then the invariants are checked (singletons built once per injector, every object freed
# with its injector, no hang). Exits non-zero when an invariant fails.
#
# Usage: Scripts/stress.sh [--tsan] [--seconds S] [--threads N] [--seed X]
#   --tsan   build and run under ThreadSanitizer (debug build, scratch path .build-tsan)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '==> %s\n' "$*"; }
fatal() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

tsan=0
seconds=60
threads=8
seed=20261122
while [ $# -gt 0 ]; do
    case "$1" in
        --tsan) tsan=1; shift ;;
        --seconds) seconds="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        *) fatal "unknown option $1 (usage: Scripts/stress.sh [--tsan] [--seconds S] [--threads N] [--seed X])" ;;
    esac
done

if [ "$tsan" = 1 ]; then
    log "Building provision-stress under ThreadSanitizer"
    swift build --product provision-stress --sanitize=thread --scratch-path .build-tsan -Xswiftc -warnings-as-errors \
        || fatal "build"
    binary=.build-tsan/debug/provision-stress
    export TSAN_OPTIONS="halt_on_error=1"
else
    log "Building provision-stress (release)"
    swift build -c release --product provision-stress -Xswiftc -warnings-as-errors || fatal "build"
    binary=.build/release/provision-stress
fi
[ -x "$binary" ] || fatal "missing $binary"

log "Running $threads threads for $seconds s (seed $seed)"
output=$("$binary" --seconds "$seconds" --threads "$threads" --seed "$seed" 2>&1) || {
    printf '%s\n' "$output"
    fatal "provision-stress reported a violation, crashed or hung"
}
printf '%s\n' "$output"
if printf '%s' "$output" | grep -q "WARNING: ThreadSanitizer"; then fatal "ThreadSanitizer reported a race"; fi
printf '%s' "$output" | grep -q "^invariants: all held$" || fatal "no invariant summary"
