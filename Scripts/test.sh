#!/usr/bin/env bash
# Runs everything CI checks, in order: formatting, source rules; the builds (the test suite's, under
# AddressSanitizer and under ThreadSanitizer, in the foreground; the release builds of the server, the
# daemon and the stress tool in the background beside them; then di-bench's debug build and the perturbed
# stress tool's in the background beside the first test steps); the test suite under AddressSanitizer
# (warnings as errors, as every build here), the documentation (DocC, no warnings), the protocol models
# (spin; Scripts/model-check.sh), the test suite under ThreadSanitizer, the stress run (release, then
# random graphs under schedule perturbation for half as long, then under ThreadSanitizer), the example
# daemon's SIGTERM check, a di-bench smoke run (debug build), and the example server over PostgreSQL under
# load (Scripts/server-check.sh: both wirings compared, SIGTERM during load). Fails loudly on the first
# failure. Each step's line starts with the seconds since the start.
#
# Usage: Scripts/test.sh                    # everything
#        SKIP_TSAN=1 Scripts/test.sh          # skip the ThreadSanitizer passes (local iterations only)
#        SKIP_ASAN=1 Scripts/test.sh          # the first test run uninstrumented (local iterations only)
#        STRESS_SECONDS=10 Scripts/test.sh    # shorter stress runs (CI uses the default: 60 s, perturbed 30 s)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
started=$(date +%s)

# Each step is stamped with the seconds since the script started, so that a slow step shows in CI's log.
log() { printf '\n==> [%4d s] %s\n' "$(( $(date +%s) - started ))" "$*"; }
fatal() { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }
need_dir() { [ -d "$1" ] || fatal "missing directory: $1"; }

for dir in Sources/Provision Sources/ProvisionLogging Sources/ProvisionServiceLifecycle Sources/ProvisionHummingbird \
    Sources/ProvisionTesting Sources/ProvisionTracing Sources/ProvisionMetrics Sources/JobDaemon Sources/TodoServer \
    Tests/ProvisionTests Tests/ProvisionLoggingTests Tests/ProvisionServiceLifecycleTests \
    Tests/ProvisionHummingbirdTests Tests/ProvisionTestingTests Tests/ProvisionTracingTests Tests/ProvisionMetricsTests \
    Benchmarks/DIBench; do
    need_dir "$dir"
done

log "Formatting (swift format lint --strict)"
swift format lint --strict --recursive Sources Tests Benchmarks || fatal "formatting: run 'swift format format -i -r Sources Tests Benchmarks'"

log "Generated sources are current (Scripts/generate-arities.py --check)"
Scripts/generate-arities.py --check || fatal "the fixed-arity sources differ from Scripts/generate-arities.py's output: run it"

log "Source rules for the library"
# No crash on a path user input can reach: no try!, as!, fatalError in the library.
if grep -rEn 'try!|as! |fatalError\(' Sources/Provision --include='*.swift' | grep -vE '^\S+:\s*///'; then
    fatal "the library must not use try!, as! or fatalError: throw a ProvisionError instead"
fi
# The library depends on the toolchain only.
if grep -rEn '^\s*(public |internal |@testable )?import (Foundation|FoundationEssentials)' Sources/Provision --include='*.swift'; then
    fatal "the Provision library must not import Foundation"
fi

# Synchronization.Mutex hides its contended hand-off from ThreadSanitizer on Linux (the slow path is a
# futex in the kernel), so a correct program gets false race reports under the TSan pass. Every module
# and test uses Provision's `Locked` (pthread_mutex, which TSan intercepts) instead.
if grep -rEn '\bMutex(<|\()' Sources Tests Benchmarks --include='*.swift' | grep -vE '^\S+:\s*//'; then
    fatal "use Locked (Sources/Provision/Concurrency/Locked.swift), not Synchronization.Mutex: TSan cannot see a contended Mutex's hand-off"
fi

log "Graphviz (the graph-export tests render DOT text with it)"
# The rendering test is skipped, with its reason printed, when `dot` is missing; as root (CI) this step
# installs Graphviz so that the test always runs there.
if ! command -v dot >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null; } \
            || fatal "could not install graphviz"
        command -v dot >/dev/null 2>&1 || fatal "graphviz installed but dot is not on PATH"
    else
        log "graphviz is missing and this is not root: the DOT rendering test will be skipped"
    fi
fi

# ProvisionHummingbird's tests need swift-nio, async-http-client and BoringSSL: they are built and run once,
# under ThreadSanitizer (a debug build too, instrumented), and left out of the other test bundles
# (PROVISION_SKIP_HUMMINGBIRD_TESTS, which Package.swift reads). The ThreadSanitizer pass sets it to 0.
export PROVISION_SKIP_HUMMINGBIRD_TESTS=1

log "Resolving packages"
swift package resolve || fatal "package resolution"
mkdir -p "$root/.build"

# Builds a product with the flags the steps below use. Usage: build_product NAME [SWIFT BUILD OPTIONS...]
build_product() {
    local product="$1"
    shift
    swift build --product "$product" "$@" -Xswiftc -warnings-as-errors || fatal "build of $product ($*)"
}

# Builds in the background: each lane runs its builds in order, into a log of its own, and `finish_lane`
# waits for it where a step needs what it built (and fails with the end of its log when a build failed).
declare -A lane_pids=()
start_lane() {
    local name="$1"
    shift
    "$@" >"$root/.build/$name-builds.txt" 2>&1 &
    lane_pids[$name]=$!
}
finish_lane() {
    local name="$1" pid="${lane_pids[$1]:-}"
    [ -n "$pid" ] || return 0
    wait "$pid" || { tail -n 40 "$root/.build/$name-builds.txt" >&2; fatal "$name builds (log: .build/$name-builds.txt)"; }
    unset "lane_pids[$name]"
    log "Background $name builds done"
}
trap 'for pid in "${lane_pids[@]}"; do kill "$pid" 2>/dev/null || true; done' EXIT

log "Release builds in the background (scratch path .build-release): todo-server, provision-stress, job-daemon"
# They share no scratch path with the builds in the foreground, which they overlap: two builds keep both
# cores busy where one alone waits on a single long compile or a link. Scripts/stress.sh,
# Scripts/daemon-check.sh and Scripts/server-check.sh use these binaries (PROVISION_RELEASE_SCRATCH).
# di-bench is not among them: its module alone takes 11.5 minutes of CPU to optimize (about 2,500
# generated bindings, each in four implementations), a quarter of the run's CPU. CI builds it in debug
# instead (below), and its smoke run checks that every scenario runs to completion in every column. Its
# figures come from the release build of the README's `swift run -c release di-bench`, on a quiet machine.
export PROVISION_RELEASE_SCRATCH=.build-release
release_lane() {
    set -e
    for product in todo-server provision-stress job-daemon; do
        swift build -c release --product "$product" --scratch-path .build-release -Xswiftc -warnings-as-errors
    done
}
start_lane release release_lane

# The test suite runs twice, each time from a debug build with warnings as errors: under AddressSanitizer
# (the core and every integration but ProvisionHummingbird), then under ThreadSanitizer (all of it). A
# third, uninstrumented build would run the same code with the same assertions: the sanitizers only add
# checks. With SKIP_ASAN=1 (local iterations), the first run is an uninstrumented debug build instead.
if [ "${SKIP_ASAN:-0}" != "1" ]; then
    log "AddressSanitizer builds (scratch path .build-asan): the test bundle, the depth probe"
    build_product ProvisionPackageTests --sanitize=address --scratch-path .build-asan
    build_product DepthProbe --sanitize=address --scratch-path .build-asan
else
    log "Debug builds: the test bundle, the depth probe (SKIP_ASAN=1: without AddressSanitizer)"
    build_product ProvisionPackageTests
    build_product DepthProbe
fi
if [ "${SKIP_TSAN:-0}" != "1" ]; then
    log "ThreadSanitizer builds (scratch path .build-tsan): the whole test bundle, with ProvisionHummingbird's"
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product ProvisionPackageTests --sanitize=thread --scratch-path .build-tsan
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product DepthProbe --sanitize=thread --scratch-path .build-tsan
    # Scripts/stress.sh --tsan's build (the same flags).
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product provision-stress --sanitize=thread --scratch-path .build-tsan
fi

log "Late builds in the background: di-bench (debug, scratch path .build-bench), provision-stress perturbed"
# The test steps below run one test at a time and mostly keep one core busy: these builds, and the
# release builds if they are still running, take the other.
# They have scratch paths of their own, because SwiftPM locks a scratch path for one command at a time.
# The perturbed stress run and the di-bench smoke run wait for them.
late_lane() {
    set -e
    swift build --product di-bench --scratch-path .build-bench -Xswiftc -warnings-as-errors
    # Scripts/stress.sh --perturb uses this build (the same flags as its own).
    swift build --product provision-stress -c release --scratch-path .build-perturb -Xswiftc -DPROVISION_PERTURB \
        -Xswiftc -warnings-as-errors
}
start_lane late late_lane

# Runs the test suite built above and fails unless it reports passing tests (and, under a sanitizer, no
# report of it). Usage: run_tests NAME SCRATCH [SANITIZER REPORT_PATTERN] (a sanitizer's options in the
# environment)
run_tests() {
    local name="$1" scratch="$2" sanitizer="${3:-}" pattern="${4:-}" output="$root/.build/tests-${3:-uninstrumented}.txt"
    local flags=(--skip-build --no-parallel --scratch-path "$scratch")
    [ -n "$sanitizer" ] && flags+=(--sanitize="$sanitizer")
    log "Tests ($name, scratch path $scratch)"
    # One test at a time: a sanitizer slows every thread several times over, and tests that block a thread
    # of Swift's two-thread cooperative pool while they wait (joining threads, barriers) would starve the
    # async tests running beside them past their time limits.
    swift test "${flags[@]}" 2>&1 | tee "$output" || fatal "tests ($name)"
    if [ -n "$pattern" ] && grep -q "$pattern" "$output"; then fatal "$name reported a problem (see above)"; fi
    grep -qE 'Test run with [0-9]+ tests? .*passed' "$output" || fatal "the $name run did not report passing tests"
}

if [ "${SKIP_ASAN:-0}" != "1" ]; then
    # Leak detection is off: the Swift runtime's own caches (metadata, conformances) live until exit by
    # design. Object lifetimes are checked by the tests' deinit counters instead.
    # ProvisionHummingbird's tests are left out here: they would build swift-nio, async-http-client and
    # BoringSSL once more, with AddressSanitizer, for a library without unsafe code of its own.
    # AddressSanitizer is for the core's unsafe pointers, unmanaged references and atomics;
    # ProvisionHummingbird's tests run under ThreadSanitizer below.
    ASAN_OPTIONS="detect_leaks=0 halt_on_error=1" run_tests "debug, AddressSanitizer" .build-asan address "ERROR: AddressSanitizer"
else
    run_tests "debug" .build
fi

log "Documentation (DocC catalog and doc comments, no warnings)"
# Every symbol link must resolve and every parameter be documented. Skipped, saying so, where the
# toolchain has no docc.
if command -v docc >/dev/null 2>&1; then
    # The directory is kept between runs: the compiler writes the symbol graphs only when it compiles,
    # so after a build with nothing to do the previous graphs are the current ones. When they are
    # missing anyway (an interrupted run), the docs scratch path is cleaned so that the build compiles.
    mkdir -p "$root/.build-docs/symbol-graphs"
    symbol_graphs() {
        swift build --target Provision --scratch-path .build-docs -Xswiftc -emit-symbol-graph \
            -Xswiftc -emit-symbol-graph-dir -Xswiftc "$root/.build-docs/symbol-graphs" >/dev/null || fatal "symbol graph"
    }
    symbol_graphs
    if [ ! -s "$root/.build-docs/symbol-graphs/Provision.symbols.json" ]; then
        swift package --scratch-path .build-docs clean
        symbol_graphs
    fi
    [ -s "$root/.build-docs/symbol-graphs/Provision.symbols.json" ] || fatal "no symbol graph for Provision"
    docc convert Sources/Provision/Provision.docc --additional-symbol-graph-dir "$root/.build-docs/symbol-graphs" \
        --output-path "$root/.build-docs/Provision.doccarchive" --fallback-display-name Provision \
        --fallback-bundle-identifier provision 2>&1 | tee "$root/.build/docc-output.txt" >/dev/null
    if grep -qE '^(warning|error):' "$root/.build/docc-output.txt"; then
        grep -E -A6 '^(warning|error):' "$root/.build/docc-output.txt" >&2
        fatal "DocC reported problems (see above)"
    fi
else
    log "docc is not in the toolchain: documentation check skipped"
fi

log "Protocol models (Scripts/model-check.sh: spin, every interleaving; then every DEFECT switch must be found)"
Scripts/model-check.sh || fatal "model check"
Scripts/model-check.sh --defects || fatal "model check: a defect put back was not found"

if [ "${SKIP_TSAN:-0}" != "1" ]; then
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        run_tests "debug, ThreadSanitizer" .build-tsan thread "WARNING: ThreadSanitizer"
fi

# The tests above ran beside the release builds' end; the stress runs and the checks below need them.
finish_lane release
log "Stress run (release, ${STRESS_SECONDS:-60} s)"
Scripts/stress.sh --seconds "${STRESS_SECONDS:-60}" || fatal "stress run"

finish_lane late
log "Stress run of random graphs under schedule perturbation ($(( ${STRESS_SECONDS:-60} / 2 )) s)"
Scripts/stress.sh --perturb --seconds "$(( ${STRESS_SECONDS:-60} / 2 ))" || fatal "perturbed stress run"

if [ "${SKIP_TSAN:-0}" != "1" ]; then
    log "Stress run under ThreadSanitizer (10 s)"
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 Scripts/stress.sh --tsan --seconds 10 --threads 8 \
        || fatal "stress run under ThreadSanitizer"
fi

log "Example daemon: graceful shutdown on SIGTERM (Scripts/daemon-check.sh)"
Scripts/daemon-check.sh --no-build || fatal "daemon check"

log "di-bench smoke run (debug build, --quick)"
# Every scenario in every column, to completion (the debug build's figures mean nothing: see above).
bench_output=$("$root/.build-bench/debug/di-bench" --quick --allow-debug) || { printf '%s\n' "$bench_output"; fatal "di-bench --quick"; }
printf '%s\n' "$bench_output"
completion=$(printf '%s\n' "$bench_output" | grep -E '^scenarios: [0-9]+, completed: [0-9]+$' || true)
[ -n "$completion" ] || fatal "di-bench printed no completion line"
total=$(printf '%s' "$completion" | sed -E 's/^scenarios: ([0-9]+), completed: ([0-9]+)$/\1/')
done_count=$(printf '%s' "$completion" | sed -E 's/^scenarios: ([0-9]+), completed: ([0-9]+)$/\2/')
[ "$total" -gt 0 ] && [ "$total" = "$done_count" ] || fatal "di-bench completed $done_count of $total scenarios"

log "Example server over PostgreSQL under load (Scripts/server-check.sh)"
Scripts/server-check.sh --no-build || fatal "server check"

log "All checks passed in $(( $(date +%s) - started )) s"
