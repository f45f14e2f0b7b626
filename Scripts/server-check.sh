#!/usr/bin/env bash
# Runs the example server (Sources/TodoServer) over a real PostgreSQL under load, both wirings of the
# same release binary in the same run, and checks what a production server must do:
#
#   1. PostgreSQL (Debian's package, installed here as root) runs on a loopback port, in a data
#      directory of its own, as the postgres user; the schema is created.
#   2. Both wirings of the release binary start (--wiring hand and --wiring provision, each on a port
#      of its own) and are warmed up, alternately, until each one's throughput is steady (two
#      consecutive warm-up loads within 5% of each other, at most six rounds). Then wrk drives one at
#      a time on 127.0.0.1 with a mix of reads and writes (64 connections, 8 s; a Lua script,
#      Scripts/server-check/mix.lua), in five pairs of back-to-back runs, hand first in the odd pairs
#      and provision first in the even ones, each run from an emptied table, and records each run's
#      requests per second, p99 latency and the server's CPU time per request.
#   3. For each wiring, a second load during which the server gets SIGTERM: it must exit 0; every
#      request it received must have been answered (requests = responses) and every request's unit
#      of work (and, with Provision, its scope) disposed; no response may be a 5xx; every write
#      answered with a 201 must be in the database; after the exit, a new connection is refused.
#   4. Provision beside hand-wired: each pair's ratios (throughput, p99, server CPU per request), and
#      their medians over the five pairs, with whether the targets hold (throughput within 3% of
#      hand-wired's, p99 within 5%). A pair's two runs are seconds apart, so a drift of the machine
#      (runs of one wiring here differ by up to 25% over a minute) weighs on both alike, and the
#      alternating order cancels what running first or second does. The check fails only on a gross
#      regression (throughput 15% below hand-wired's or p99 25% above): a lock or an allocation storm on
#      the request path, not the noise. Every run is printed, with each wiring's medians.
#
# Usage: Scripts/server-check.sh [--seconds S] [--connections C] [--no-build]
#   --seconds      length of each measured load (default 8)
#   --connections  wrk connections (default 64)
#   --no-build     use the release binary already built (Scripts/test.sh builds it first)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)

log() { printf '==> %s\n' "$*"; }
fatal() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

seconds=8
connections=64
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        *) fatal "unknown option $1 (usage: Scripts/server-check.sh [--seconds S] [--connections C] [--no-build])" ;;
    esac
done
[ -f "$root/Scripts/server-check/mix.lua" ] || fatal "missing Scripts/server-check/mix.lua"

# --- Tools -----------------------------------------------------------------------------------------
pg_bin=""
find_pg_bin() { pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true); }
find_pg_bin
if [ -z "$pg_bin" ] || ! command -v wrk >/dev/null 2>&1; then
    [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1 \
        || fatal "PostgreSQL and wrk are needed: run 'sudo apt-get install postgresql wrk' and try again"
    log "Installing PostgreSQL and wrk (apt-get)"
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql wrk >/dev/null; } \
        || fatal "could not install postgresql and wrk"
    find_pg_bin
fi
[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] && [ -x "$pg_bin/pg_ctl" ] || fatal "no PostgreSQL server binaries in /usr/lib/postgresql"
command -v wrk >/dev/null 2>&1 || fatal "wrk is not on PATH"
command -v psql >/dev/null 2>&1 || fatal "psql is not on PATH"

# PostgreSQL refuses to run as root: as root, its files belong to the postgres user, which runs it.
as_pg() { if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# The scratch path of the release build: .build, or PROVISION_RELEASE_SCRATCH (Scripts/test.sh's).
scratch="${PROVISION_RELEASE_SCRATCH:-.build}"
if [ "$build" = "1" ]; then
    log "Building todo-server (release, scratch path $scratch)"
    swift build -c release --product todo-server --scratch-path "$scratch" -Xswiftc -warnings-as-errors || fatal "build"
fi
binary="$root/$scratch/release/todo-server"
[ -x "$binary" ] || fatal "missing $binary (build it with swift build -c release --product todo-server)"

# --- PostgreSQL -------------------------------------------------------------------------------------
work=$(mktemp -d /tmp/server-check.XXXXXX)
chmod 755 "$work"
pgdata="$work/pgdata"
pgport=$((20000 + RANDOM % 20000))
wrk_pid=""
cleanup() {
    if [ -n "$wrk_pid" ]; then kill -KILL "$wrk_pid" 2>/dev/null || true; fi
    local pid
    for pid in "${server_pid[@]:-}"; do
        if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
    if [ -f "$pgdata/postmaster.pid" ]; then as_pg "$pg_bin/pg_ctl" -D "$pgdata" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

log "Starting PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pgport"
mkdir -p "$pgdata" "$work/socket" "$work/pglog"
if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$pgdata" "$work/socket" "$work/pglog"; fi
as_pg "$pg_bin/initdb" -D "$pgdata" -U postgres -A trust >"$work/initdb.log" 2>&1 || { cat "$work/initdb.log"; fatal "initdb"; }
# synchronous_commit=off: a commit returns before its WAL reaches the disk (the data is visible at once,
# and a crash could lose the last milliseconds). The server is measured here, not the disk.
# autovacuum=off: each measured run starts from an emptied, vacuumed table instead (see `measure`); a
# vacuum started by the rows of earlier runs took one of the 2 cores during whichever run it fell in.
as_pg "$pg_bin/pg_ctl" -D "$pgdata" -l "$work/pglog/postgres.log" -w -t 60 \
    -o "-p $pgport -c listen_addresses=127.0.0.1 -k $work/socket -c max_connections=100 -c synchronous_commit=off -c autovacuum=off" \
    start >/dev/null || { cat "$work/pglog/postgres.log"; fatal "PostgreSQL did not start"; }
psql_as() { psql -h 127.0.0.1 -p "$pgport" -v ON_ERROR_STOP=1 -qAt "$@"; }
psql_as -U postgres -d postgres -c "CREATE ROLE todo LOGIN PASSWORD 'todo'" -c "CREATE DATABASE todo OWNER todo" \
    || fatal "creating the database"
psql_as -U todo -d todo <<'SQL' || fatal "creating the schema"
CREATE TABLE todos (
    id uuid PRIMARY KEY,
    title text NOT NULL,
    done boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX todos_created_at ON todos (created_at DESC);
SQL

# --- The servers ------------------------------------------------------------------------------------
# Both wirings run at once, each on a port of its own; the load goes to one at a time (the idle one
# costs nothing), so that neither pays for the other's start.
declare -A server_pid server_log http_port
base_port=$((40000 + RANDOM % 20000))

start_server() {
    local wiring="$1" port="$2"
    http_port[$wiring]=$port
    server_log[$wiring]="$work/server-$wiring.log"
    "$binary" --wiring "$wiring" --host 127.0.0.1 --port "$port" --db-port "$pgport" >"${server_log[$wiring]}" 2>&1 &
    server_pid[$wiring]=$!
    for _ in $(seq 1 300); do
        grep -q 'Listening' "${server_log[$wiring]}" && return 0
        kill -0 "${server_pid[$wiring]}" 2>/dev/null \
            || { tail -n 20 "${server_log[$wiring]}" >&2; fatal "$wiring: the server exited before it listened"; }
        sleep 0.05
    done
    tail -n 20 "${server_log[$wiring]}" >&2
    fatal "$wiring: the server did not listen within 15 s"
}

# Runs wrk against a server; prints its output. Usage: load WIRING SECONDS [PREFIX]
load() {
    local wiring="$1" duration="$2" prefix="${3:-}"
    wrk -t 2 -c "$connections" -d "${duration}s" --latency -s "$root/Scripts/server-check/mix.lua" \
        "http://127.0.0.1:${http_port[$wiring]}" ${prefix:+-- "$prefix"}
}

# Converts wrk's latency (850.00us, 1.20ms, 2.00s) to microseconds.
to_us() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000; else if (v ~ /s$/) print n * 1000000; else print n
    }'
}

# The value of KEY in a server's summary line (its metadata, as swift-log prints it).
summary_value() {
    local wiring="$1" key="$2"
    sed -nE "/\\[TodoServer\\] Stopped/ s/.* $key=([0-9]+).*/\\1/p" "${server_log[$wiring]}" | tail -n 1
}

declare -A runs_rps runs_p99 runs_cpu

# The CPU time a process has used so far (user and system), in clock ticks.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# One measured run of one wiring; records its throughput, p99 and CPU per request. Every run starts from
# the same database: the table emptied and vacuumed (the first run would otherwise read and write a
# smaller table than the later ones).
measure() {
    local wiring="$1" run="$2"
    local output rps p99 p99_us errors before after requests cpu
    psql_as -U todo -d todo -c "TRUNCATE todos" -c "VACUUM ANALYZE todos" || fatal "emptying the table before run $run"
    before=$(cpu_ticks "${server_pid[$wiring]}")
    output=$(load "$wiring" "$seconds") || { printf '%s\n' "$output"; fatal "$wiring: wrk failed"; }
    after=$(cpu_ticks "${server_pid[$wiring]}")
    rps=$(printf '%s\n' "$output" | sed -nE 's/^Requests\/sec: *([0-9.]+).*/\1/p')
    p99=$(printf '%s\n' "$output" | sed -nE 's/^ *99% +([0-9.]+[a-z]+).*/\1/p')
    [ -n "$rps" ] && [ -n "$p99" ] || { printf '%s\n' "$output"; fatal "$wiring: no throughput or p99 in wrk's output"; }
    p99_us=$(to_us "$p99")
    errors=$(printf '%s\n' "$output" | sed -nE 's/^lua: .* 5xx ([0-9]+),.*/\1/p')
    [ "${errors:-x}" = "0" ] || { printf '%s\n' "$output"; fatal "$wiring: $errors responses were 5xx under load"; }
    if printf '%s\n' "$output" | grep -qE '^ +Socket errors'; then
        printf '%s\n' "$output"
        fatal "$wiring: socket errors under load, before any shutdown"
    fi
    # The server's CPU time per request: what the wiring costs, whatever else the machine is doing.
    requests=$(printf '%s\n' "$output" | sed -nE 's/^ *([0-9]+) requests in .*/\1/p')
    cpu=$(awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="${requests:-1}" 'BEGIN { printf "%.1f", t * 1000000 / hz / n }')
    printf '  run %d, %-9s %10.1f requests/s, p99 %8.0f us, server CPU %6.1f us/request  (%s)\n' "$run" "$wiring" \
        "$rps" "$p99_us" "$cpu" "$(printf '%s\n' "$output" | grep '^lua:' | sed 's/^lua: //')"
    runs_rps[$wiring]+="$rps "
    runs_p99[$wiring]+="$p99_us "
    runs_cpu[$wiring]+="$cpu "
    last_rps[$wiring]=$rps
    last_p99[$wiring]=$p99_us
    last_cpu[$wiring]=$cpu
}

# The difference of $1 from $2, in percent, signed: +1.2%.
percent() { awk -v p="$1" -v h="$2" 'BEGIN { if (h == 0) printf "n/a"; else printf "%+.1f%%", (p / h - 1) * 100 }'; }
# The ratio of $1 to $2.
ratio() { awk -v p="$1" -v h="$2" 'BEGIN { printf "%.4f", h == 0 ? 1 : p / h }'; }

# SIGTERM in the middle of a load, and every promise of a graceful shutdown checked.
shutdown_check() {
    local wiring="$1"
    local prefix="$work/created-$wiring" pid="${server_pid[$wiring]}"
    load "$wiring" 6 "$prefix" >"$work/wrk-$wiring.txt" 2>&1 &
    wrk_pid=$!
    sleep 3
    kill -TERM "$pid"
    local terminated deadline status=0
    terminated=$(date +%s%N)
    deadline=$((SECONDS + 30))
    while kill -0 "$pid" 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || { tail -n 20 "${server_log[$wiring]}" >&2; fatal "$wiring: no exit within 30 s of SIGTERM"; }
        sleep 0.02
    done
    wait "$pid" || status=$?
    server_pid[$wiring]=""
    local shutdown_ms=$((($(date +%s%N) - terminated) / 1000000))
    [ "$status" = "0" ] || { tail -n 20 "${server_log[$wiring]}" >&2; fatal "$wiring: exit status $status after SIGTERM"; }
    # The port is closed: a new connection is refused, not answered with an error.
    if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:${http_port[$wiring]}/health" 2>/dev/null; then
        fatal "$wiring: the server still answered after it exited"
    fi
    wait "$wrk_pid" || true
    wrk_pid=""
    local output
    output=$(cat "$work/wrk-$wiring.txt")

    local requests r2 r4 r5 opened disposed scopes_opened scopes_closed close_failures committed
    requests=$(summary_value "$wiring" requests)
    r2=$(summary_value "$wiring" responses_2xx)
    r4=$(summary_value "$wiring" responses_4xx)
    r5=$(summary_value "$wiring" responses_5xx)
    opened=$(summary_value "$wiring" units_opened)
    disposed=$(summary_value "$wiring" units_disposed)
    scopes_opened=$(summary_value "$wiring" scopes_opened)
    scopes_closed=$(summary_value "$wiring" scopes_closed)
    close_failures=$(summary_value "$wiring" scope_close_failures)
    committed=$(summary_value "$wiring" writes_committed)
    [ -n "$requests" ] && [ -n "$opened" ] || { tail -n 5 "${server_log[$wiring]}" >&2; fatal "$wiring: no summary line"; }
    [ "$requests" -gt 0 ] || fatal "$wiring: no request reached the server"
    [ "$r5" = "0" ] || fatal "$wiring: $r5 responses were 5xx"
    [ "$requests" = "$((r2 + r4 + r5))" ] || fatal "$wiring: $requests requests received, $((r2 + r4 + r5)) answered"
    [ "$opened" = "$disposed" ] || fatal "$wiring: $opened units of work made, $disposed disposed"
    [ "$opened" = "$requests" ] || fatal "$wiring: $requests requests, $opened units of work"
    if [ "$wiring" = "provision" ]; then
        [ "$scopes_opened" = "$requests" ] || fatal "$wiring: $requests requests, $scopes_opened scopes opened"
        [ "$scopes_closed" = "$scopes_opened" ] || fatal "$wiring: $scopes_opened scopes opened, $scopes_closed closed"
        [ "$close_failures" = "0" ] || fatal "$wiring: $close_failures scopes failed to close"
    fi
    local lua_5xx
    lua_5xx=$(printf '%s\n' "$output" | sed -nE 's/^lua: .* 5xx ([0-9]+),.*/\1/p')
    [ "${lua_5xx:-x}" = "0" ] || { printf '%s\n' "$output"; fatal "$wiring: the client saw ${lua_5xx:-no count of} 5xx responses"; }

    # Every write answered with a 201 is in the database.
    cat "$prefix"-*.txt 2>/dev/null | sort -u >"$work/created-$wiring.txt"
    local created present
    created=$(grep -c . "$work/created-$wiring.txt" || true)
    [ "$created" -gt 0 ] || fatal "$wiring: no write was answered with a 201"
    present=$( { printf 'CREATE TEMP TABLE answered (id uuid);\n\\copy answered FROM %s\n' "$work/created-$wiring.txt"
        printf 'SELECT count(*) FROM answered a JOIN todos t ON t.id = a.id;\n'; } | psql_as -U todo -d todo)
    [ "$present" = "$created" ] || fatal "$wiring: $created writes answered with 201, $present of them in the database"
    [ "$committed" -ge "$created" ] || fatal "$wiring: $committed writes committed, fewer than the $created answered"

    local socket
    socket=$(printf '%s\n' "$output" | sed -nE 's/^ +Socket errors: (.*)/\1/p')
    printf '  %s: exit 0, %d ms after SIGTERM; %s requests received, all answered (2xx %s, 4xx %s, 5xx %s); %s units of work made, %s disposed' \
        "$wiring" "$shutdown_ms" "$requests" "$r2" "$r4" "$r5" "$opened" "$disposed"
    if [ "$wiring" = "provision" ]; then
        printf '; %s scopes opened, %s closed, %s failed to close' "$scopes_opened" "$scopes_closed" "$close_failures"
    fi
    printf '; %s writes answered 201, %s of them in the database; the client afterwards: %s\n' "$created" "$present" \
        "${socket:-no socket errors}"
}

log "Servers: the release binary, --wiring hand and --wiring provision, each with its own database pool"
start_server hand "$base_port"
start_server provision "$((base_port + 1))"
# Warm-up: both wirings, alternately, until each one's throughput is steady (a fresh server, its pool's
# connections and PostgreSQL's caches take tens of seconds to settle on this machine).
log "Warm-up: 4 s loads, alternately, until each wiring's last two are within 5% (at most 6 rounds)"
declare -A warm_last warm_steady
for round in $(seq 1 6); do
    printf '  round %d:' "$round"
    for wiring in hand provision; do
        output=$(load "$wiring" 4) || { printf '%s\n' "$output"; fatal "$wiring: warm-up load failed"; }
        rps=$(printf '%s\n' "$output" | sed -nE 's/^Requests\/sec: *([0-9.]+).*/\1/p')
        [ -n "$rps" ] || { printf '%s\n' "$output"; fatal "$wiring: no throughput in a warm-up load"; }
        printf ' %s %.1f requests/s' "$wiring" "$rps"
        if [ -n "${warm_last[$wiring]:-}" ] \
            && awk -v a="$rps" -v b="${warm_last[$wiring]}" 'BEGIN { d = a / b - 1; exit !(d <= 0.05 && d >= -0.05) }'; then
            warm_steady[$wiring]=1
        else
            warm_steady[$wiring]=0
        fi
        warm_last[$wiring]=$rps
    done
    printf '\n'
    [ "${warm_steady[hand]}" = "1" ] && [ "${warm_steady[provision]}" = "1" ] && break
done

# The ratios of provision to hand-wired, one per pair.
pair_rps="" pair_p99="" pair_cpu=""
declare -A last_rps last_p99 last_cpu

log "Load: wrk, 2 threads, $connections connections, $seconds s per run, reads and writes 7:3; five pairs of runs"
run=0
for pair in 1 2 3 4 5; do
    if [ $((pair % 2)) = 1 ]; then order="hand provision"; else order="provision hand"; fi
    for wiring in $order; do
        run=$((run + 1))
        measure "$wiring" "$run"
    done
    pair_rps+="$(ratio "${last_rps[provision]}" "${last_rps[hand]}") "
    pair_p99+="$(ratio "${last_p99[provision]}" "${last_p99[hand]}") "
    pair_cpu+="$(ratio "${last_cpu[provision]}" "${last_cpu[hand]}") "
    printf '  pair %d (%s first): provision/hand throughput %s, p99 %s, server CPU per request %s\n' "$pair" \
        "${order%% *}" "$(percent "${last_rps[provision]}" "${last_rps[hand]}")" \
        "$(percent "${last_p99[provision]}" "${last_p99[hand]}")" "$(percent "${last_cpu[provision]}" "${last_cpu[hand]}")"
done

log "SIGTERM after 3 s of a 6 s load"
for wiring in hand provision; do
    shutdown_check "$wiring"
done

# The median of the numbers in $1 (space-separated).
median() {
    printf '%s\n' $1 | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
hand_rps=$(median "${runs_rps[hand]}")
prov_rps=$(median "${runs_rps[provision]}")
hand_p99=$(median "${runs_p99[hand]}")
prov_p99=$(median "${runs_p99[provision]}")
hand_cpu=$(median "${runs_cpu[hand]}")
prov_cpu=$(median "${runs_cpu[provision]}")
# The verdict is on the pairs' ratios (each pair's runs seconds apart), not on the ratio of the medians.
throughput=$(awk -v r="$(median "$pair_rps")" 'BEGIN { printf "%.1f", (r - 1) * 100 }')
latency=$(awk -v r="$(median "$pair_p99")" 'BEGIN { printf "%.1f", (r - 1) * 100 }')
cpu=$(awk -v r="$(median "$pair_cpu")" 'BEGIN { printf "%.1f", (r - 1) * 100 }')
verdict() { awk -v v="$1" -v limit="$2" -v sign="$3" 'BEGIN { print ((sign > 0 ? v <= limit : v >= limit) ? "met" : "not met") }'; }
log "Provision beside hand-wired"
printf '  medians of each wiring'"'"'s five runs:\n'
printf '    hand-wired: %10.1f requests/s, p99 %8.0f us, server CPU %6.1f us/request\n' "$hand_rps" "$hand_p99" "$hand_cpu"
printf '    provision:  %10.1f requests/s, p99 %8.0f us, server CPU %6.1f us/request\n' "$prov_rps" "$prov_p99" "$prov_cpu"
printf '  medians of the five pairs'"'"' ratios: throughput %+.1f%% (target >= -3%%: %s), p99 %+.1f%% (target <= +5%%: %s), server CPU per request %+.1f%%\n' \
    "$throughput" "$(verdict "$throughput" -3 -1)" "$latency" "$(verdict "$latency" 5 1)" "$cpu"
awk -v t="$throughput" 'BEGIN { exit !(t >= -15) }' \
    || fatal "Provision's throughput is $throughput% of hand-wired's: a regression beyond the noise (limit -15%)"
awk -v l="$latency" 'BEGIN { exit !(l <= 25) }' \
    || fatal "Provision's p99 latency is $latency% above hand-wired's: a regression beyond the noise (limit +25%)"
log "server check passed"
