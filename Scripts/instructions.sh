#!/usr/bin/env bash
# Counts the machine instructions one resolve costs, with valgrind's callgrind: exact and repeatable on
# a noisy machine, where timings are not.
#
# For each scenario and implementation it runs `di-bench --run SCENARIO` twice under callgrind, with
# LOW and HIGH operations, and reports (instructions(HIGH) - instructions(LOW)) / (HIGH - LOW): the
# cost of one operation, with start-up, set-up and the first (linking) request cancelled out. It counts
# Provision's heap allocations per operation the same way, with valgrind's DHAT.
#
# Usage: Scripts/instructions.sh [--scenario NAME]... [--low N] [--high N]
#   default scenarios: "singleton hit", "transient leaf", "deep chain of 10", "wide, 10 leaves (initializer)"
#   implementations: provision, hand-wired, swinject
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf '==> %s\n' "$*" >&2; }
fatal() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }

scenarios=()
low=1000
high=11000
while [ $# -gt 0 ]; do
    case "$1" in
        --scenario) scenarios+=("$2"); shift 2 ;;
        --low) low="$2"; shift 2 ;;
        --high) high="$2"; shift 2 ;;
        *) fatal "unknown option $1 (usage: Scripts/instructions.sh [--scenario NAME]... [--low N] [--high N])" ;;
    esac
done
[ "${#scenarios[@]}" -gt 0 ] || scenarios=("singleton hit" "transient leaf" "deep chain of 10" "wide, 10 leaves (initializer)")
[ "$high" -gt "$low" ] || fatal "--high must be greater than --low"
command -v valgrind >/dev/null || fatal "valgrind is not installed (apt-get install valgrind)"

log "Building di-bench (release)"
swift build -c release --product di-bench -Xswiftc -warnings-as-errors >&2 || fatal "build"
binary=.build/release/di-bench
[ -x "$binary" ] || fatal "missing $binary"

workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT

# valgrind 3.19 can't read the DWARF 5 debug information of the C target (it gives up on the whole
# binary): measure a copy without it. The symbol table stays, so callgrind still names functions.
strip --strip-debug -o "$workdir/di-bench" "$binary" || fatal "strip"
binary="$workdir/di-bench"

# Total instructions of one run: callgrind's summary line "Collected : N" (or "summary: N").
count() {
    local scenario="$1" implementation="$2" iterations="$3" out="$workdir/callgrind.out"
    valgrind --tool=callgrind --callgrind-out-file="$out" \
        "$binary" --run "$scenario" --implementation "$implementation" --iterations "$iterations" \
        >/dev/null 2>"$workdir/valgrind.log" || { cat "$workdir/valgrind.log" >&2; fatal "valgrind run of $scenario"; }
    local total
    total=$(grep -E '^(summary|totals):' "$out" | head -n 1 | awk '{print $2}')
    [ -n "$total" ] || fatal "no instruction total in callgrind's output"
    rm -f "$out"
    printf '%s' "$total"
}

# Heap blocks allocated by one run: valgrind's DHAT summary line "Total: N bytes in M blocks".
blocks() {
    local scenario="$1" implementation="$2" iterations="$3" total
    total=$(valgrind --tool=dhat --dhat-out-file=/dev/null \
        "$binary" --run "$scenario" --implementation "$implementation" --iterations "$iterations" 2>&1 >/dev/null |
        sed -n 's/.*Total: .* in \([0-9,]*\) blocks.*/\1/p' | tr -d ,)
    [ -n "$total" ] || fatal "no allocation total in DHAT's output for $scenario"
    printf '%s' "$total"
}

printf '%-22s %12s %12s %12s %10s %18s\n' \
    "instructions per op" "Provision" "hand-wired" "Swinject" "P ÷ hand" "P allocations/op"
for scenario in "${scenarios[@]}"; do
    row=()
    for implementation in provision hand-wired swinject; do
        log "$scenario / $implementation"
        a=$(count "$scenario" "$implementation" "$low")
        b=$(count "$scenario" "$implementation" "$high")
        row+=("$(( (b - a) / (high - low) ))")
    done
    ratio=$(awk -v p="${row[0]}" -v h="${row[1]}" 'BEGIN { if (h > 0) printf "%.2fx", p / h; else print "-" }')
    # Heap allocations per operation, the same way: the difference between two runs, so the set-up's
    # allocations cancel out. A singleton hit must allocate nothing.
    log "$scenario / provision allocations"
    a=$(blocks "$scenario" provision "$low")
    b=$(blocks "$scenario" provision "$high")
    allocations=$(awk -v a="$a" -v b="$b" -v n="$((high - low))" 'BEGIN { printf "%.2f", (b - a) / n }')
    printf '%-22s %12s %12s %12s %10s %18s\n' "$scenario" "${row[0]}" "${row[1]}" "${row[2]}" "$ratio" "$allocations"
done
