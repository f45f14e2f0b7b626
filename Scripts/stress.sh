#!/usr/bin/env bash
# Builds and runs provision-stress, and fails when it reports a violated invariant, crashes or hangs.
#
# Scenarios (see Sources/ProvisionStress/main.swift):
#   mix    many threads hammer one injector with a seeded random mix of operations, then the invariants
#          are checked (singletons built once per injector, every object freed with its injector, no hang)
#   graph  round after round, a random acyclic service graph (initializers, closures, async closures,
#          injected properties, protocol keys, the three scopes, services, failing factories; sometimes
#          a cyclic pair) raced by threads, tasks, scopes, child injectors, installs, start() and
#          shutdown(); every outcome is checked against what the graph and the moment allow
#
# Usage: Scripts/stress.sh [--tsan | --perturb] [--scenario mix|graph] [--seconds S] [--threads N] [--seed X]
#                          [--round R] [--rounds N]
#   --tsan      build and run under ThreadSanitizer (debug build, scratch path .build-tsan)
#   --perturb   the graph scenario under schedule perturbation: the library built with
#               -DPROVISION_PERTURB (release, scratch path .build-perturb) and run with PROVISION_PERTURB=1,
#               so that every step of the concurrency protocol may yield or sleep a few microseconds
#   --round R --rounds N   replay rounds R..<R+N of a seed (a failing run prints the command)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '==> %s\n' "$*"; }
fatal() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

usage="usage: Scripts/stress.sh [--tsan | --perturb] [--scenario mix|graph] [--seconds S] [--threads N] [--seed X] [--round R] [--rounds N]"
tsan=0
perturb=0
scenario=""
seconds=60
threads=8
seed=20261122
replay=()
while [ $# -gt 0 ]; do
    case "$1" in
        --tsan) tsan=1; shift ;;
        --perturb) perturb=1; shift ;;
        --scenario) scenario="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --round | --rounds) replay+=("$1" "$2"); shift 2 ;;
        *) fatal "unknown option $1 ($usage)" ;;
    esac
done
[ "$tsan" = 1 ] && [ "$perturb" = 1 ] && fatal "--tsan and --perturb are separate runs ($usage)"
if [ -z "$scenario" ]; then
    if [ "$perturb" = 1 ]; then scenario=graph; else scenario=mix; fi
fi

if [ "$tsan" = 1 ]; then
    log "Building provision-stress under ThreadSanitizer"
    swift build --product provision-stress --sanitize=thread --scratch-path .build-tsan -Xswiftc -warnings-as-errors \
        || fatal "build"
    binary=.build-tsan/debug/provision-stress
    export TSAN_OPTIONS="halt_on_error=1"
elif [ "$perturb" = 1 ]; then
    # Release: the protocol's own steps are then fast, so the injected yields and sleeps decide the
    # interleavings, and a run covers several times the rounds of a debug build.
    log "Building provision-stress with schedule perturbation (release, -DPROVISION_PERTURB)"
    swift build -c release --product provision-stress --scratch-path .build-perturb -Xswiftc -DPROVISION_PERTURB \
        -Xswiftc -warnings-as-errors || fatal "build"
    binary=.build-perturb/release/provision-stress
    export PROVISION_PERTURB=1
else
    # The scratch path of the release build: .build, or PROVISION_RELEASE_SCRATCH (Scripts/test.sh's).
    scratch="${PROVISION_RELEASE_SCRATCH:-.build}"
    log "Building provision-stress (release, scratch path $scratch)"
    swift build -c release --product provision-stress --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
        || fatal "build"
    binary="$scratch/release/provision-stress"
fi
[ -x "$binary" ] || fatal "missing $binary"

log "Running the $scenario scenario: $threads threads for $seconds s (seed $seed)"
output=$("$binary" --scenario "$scenario" --seconds "$seconds" --threads "$threads" --seed "$seed" ${replay[@]+"${replay[@]}"} 2>&1) || {
    printf '%s\n' "$output"
    fatal "provision-stress reported a violation, crashed or hung"
}
printf '%s\n' "$output"
if printf '%s' "$output" | grep -q "WARNING: ThreadSanitizer"; then fatal "ThreadSanitizer reported a race"; fi
printf '%s' "$output" | grep -q "^invariants: all held$" || fatal "no invariant summary"
