#!/usr/bin/env bash
# Runs the example job daemon (Sources/JobDaemon) for a few seconds, sends it SIGTERM, and checks from
# its log (swift-log's stream handler on standard output: the message of each line from the daemon's
# own code, after its `[JobDaemon]` source) that the graceful shutdown kept its promises: it exited 0 within the timeout, every
# accepted job finished (none failed) and had its scope disposed, several workers ran jobs, and every
# service that started stopped, after the last job, in exactly the reverse order of starting.
# Exits non-zero with the reason and the end of the daemon's output otherwise.
#
# Usage: Scripts/daemon-check.sh [--seconds S] [--timeout T] [--no-build]
#   --seconds   how long the daemon runs before SIGTERM (default 3)
#   --timeout   how long it may take to exit after SIGTERM before it counts as hung (default 30)
#   --no-build  use the release binary already built in PROVISION_RELEASE_SCRATCH (Scripts/test.sh's);
#               without it, the daemon is built in debug
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '==> %s\n' "$*"; }
output=""
fatal() {
    printf 'FAILED: %s\n' "$*" >&2
    if [ -n "$output" ] && [ -s "$output" ]; then
        printf -- '--- last lines of the daemon output ---\n' >&2
        tail -n 25 "$output" >&2
    fi
    exit 1
}

seconds=3
timeout=30
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --timeout) timeout="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        *) fatal "unknown option $1 (usage: Scripts/daemon-check.sh [--seconds S] [--timeout T] [--no-build])" ;;
    esac
done

if [ "$build" = "1" ]; then
    log "Building job-daemon (debug)"
    swift build --product job-daemon -Xswiftc -warnings-as-errors || fatal "build"
    binary="$(swift build --show-bin-path)/job-daemon"
else
    binary="${PROVISION_RELEASE_SCRATCH:-.build}/release/job-daemon"
fi
[ -x "$binary" ] || fatal "missing $binary"

output=$(mktemp)
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    rm -f "$output" "${log_output:-}"
}
trap cleanup EXIT

log "Running job-daemon for $seconds s"
"$binary" >"$output" 2>&1 &
pid=$!

# Bounded wait for the ready line: the services have started and jobs are being accepted.
for _ in $(seq 1 200); do
    grep -q '\[JobDaemon\] ready' "$output" && break
    kill -0 "$pid" 2>/dev/null || fatal "job-daemon exited before it was ready"
    sleep 0.05
done
grep -q '\[JobDaemon\] ready' "$output" || fatal "job-daemon printed no ready line within 10 s"

sleep "$seconds"
log "Sending SIGTERM"
kill -TERM "$pid"
terminated=$(date +%s%N)
deadline=$((SECONDS + timeout))
while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
        kill -KILL "$pid" 2>/dev/null || true
        fatal "job-daemon did not exit within $timeout s of SIGTERM (hung graceful shutdown)"
    fi
    sleep 0.02
done
status=0
wait "$pid" || status=$?
pid=""
shutdown_ms=$((($(date +%s%N) - terminated) / 1000000))
[ "$status" -eq 0 ] || fatal "job-daemon exited with status $status"

log "Checking the output"
# The messages of the daemon's own log lines, without the handler's timestamp, level, label, metadata
# and source: `job 5 accepted`, `started Database`.
log_output="$output"
output=$(mktemp)
sed -nE 's/^.* \[JobDaemon\] //p' "$log_output" >"$output"
[ -s "$output" ] || { output="$log_output"; fatal "no log line from the daemon's code"; }
grep -q '^stopped accepting jobs' "$output" || fatal "no 'stopped accepting jobs' line: SIGTERM did not reach the job runner"
if grep -E '^job [0-9]+ failed' "$output"; then fatal "some jobs failed"; fi
if grep -q '^JobQueue dropped' "$output"; then fatal "the queue was stopped with jobs still in it"; fi

# Every accepted job finished, exactly once, and none finished that was not accepted.
accepted=$(sed -nE 's/^job ([0-9]+) accepted$/\1/p' "$output" | sort -n)
finished=$(sed -nE 's/^job ([0-9]+) finished by worker [0-9]+, checksum [0-9]+$/\1/p' "$output" | sort -n)
accepted_count=$(printf '%s' "$accepted" | grep -c . || true)
finished_count=$(printf '%s' "$finished" | grep -c . || true)
[ "$accepted_count" -ge 10 ] || fatal "only $accepted_count jobs accepted in $seconds s"
[ "$accepted" = "$finished" ] || fatal "accepted and finished jobs differ: $(diff <(printf '%s\n' "$accepted") \
    <(printf '%s\n' "$finished") | grep -E '^[<>]' | head -5 | tr '\n' ' ')"
workers=$(sed -nE 's/^job [0-9]+ finished by worker ([0-9]+),.*/\1/p' "$output" | sort -u | grep -c . || true)
[ "$workers" -ge 2 ] || fatal "jobs ran on $workers worker(s): the pool did not work concurrently"

# Each finished job's scope was disposed before the job was reported finished: the transaction (created
# last) first, then the context.
scope_errors=$(awk '
    /^job [0-9]+ disposed Transaction/ { transaction[$2] = NR }
    /^job [0-9]+ disposed JobContext$/ { context[$2] = NR }
    /^job [0-9]+ finished by worker/ {
        if (!($2 in transaction) || !($2 in context)) { print "job " $2 " finished with its scope open"; next }
        if (transaction[$2] > context[$2]) print "job " $2 " disposed its context before its transaction"
    }' "$output" | head -5)
[ -z "$scope_errors" ] || fatal "$scope_errors"

# Services: each started one stopped, in exactly the reverse order, all after the last job finished.
started=$(sed -nE 's/^started ([A-Za-z]+)$/\1/p' "$output")
stopped=$(sed -nE 's/^stopped ([A-Za-z]+)$/\1/p' "$output")
[ -n "$started" ] || fatal "no service started"
reversed=$(printf '%s\n' "$started" | tac)
[ "$stopped" = "$reversed" ] || fatal "services stopped in the order [$(echo $stopped)], expected [$(echo $reversed)]"
last_job=$(grep -nE '^job [0-9]+ finished' "$output" | tail -n 1 | cut -d: -f1 || true)
first_stop=$(grep -nE '^stopped [A-Za-z]+$' "$output" | head -n 1 | cut -d: -f1 || true)
[ "$first_stop" -gt "$last_job" ] || fatal "a service stopped (line $first_stop) before the last job finished (line $last_job)"

service_count=$(printf '%s\n' "$started" | grep -c . || true)
summary="summary: accepted $accepted_count, finished $accepted_count, failed 0, services started $service_count, stopped $service_count"
grep -qx "$summary" "$output" || fatal "expected the line '$summary'; got '$(grep '^summary' "$output" || true)'"

log "job-daemon: $accepted_count jobs accepted and finished on $workers workers; started [$(echo $started)], stopped [$(echo $stopped)]; exited 0, ${shutdown_ms} ms after SIGTERM"
