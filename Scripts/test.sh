#!/usr/bin/env bash
# Runs everything CI checks, in order: formatting, source rules; the builds (debug with di-bench,
# sanitized, then the perturbed stress tool in the foreground; the server's and the stress tool's
# release builds in the background beside them); the test suite with warnings as errors,
# the documentation (DocC, no warnings), the protocol models (spin; Scripts/model-check.sh),
# the test suite again under ThreadSanitizer and under AddressSanitizer, the stress run (release, then
# random graphs under schedule perturbation for half as long, then under ThreadSanitizer), the example
# daemon's SIGTERM check, a di-bench smoke run (debug build), and the example server over PostgreSQL
# under load (Scripts/server-check.sh: both wirings compared, SIGTERM during load). Fails loudly on the
# first failure.
#
# Usage: Scripts/test.sh                    # everything
#        SKIP_TSAN=1 Scripts/test.sh          # skip the ThreadSanitizer passes (local iterations only)
#        SKIP_ASAN=1 Scripts/test.sh          # skip the AddressSanitizer pass (local iterations only)
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

log "Release builds in the background (scratch path .build-release): todo-server, provision-stress"
# They share no scratch path with the builds in the foreground, which they overlap: two builds keep both
# cores busy where one alone waits on a single long compile or a link. The tests run once all of them
# are done. Scripts/stress.sh and Scripts/server-check.sh use these binaries (PROVISION_RELEASE_SCRATCH).
# di-bench is not among them: its module alone takes 11.5 minutes of CPU to optimize (about 2,500
# generated bindings, each in four implementations), a quarter of the run's CPU. CI builds it in debug
# instead, with the tests (2.5 minutes of CPU with its dependencies), and its smoke run checks that every
# scenario runs to completion in every column. Its figures come from the release build of the README's
# `swift run -c release di-bench`, on a quiet machine.
export PROVISION_RELEASE_SCRATCH=.build-release
release_log="$root/.build/release-builds.txt"
(
    set -e
    for product in todo-server provision-stress; do
        swift build -c release --product "$product" --scratch-path .build-release -Xswiftc -warnings-as-errors
    done
) >"$release_log" 2>&1 &
release_pid=$!
release_builds() {
    if [ -n "$release_pid" ]; then
        wait "$release_pid" || { tail -n 40 "$release_log" >&2; fatal "release builds (log: $release_log)"; }
        release_pid=""
        log "Release builds done"
    fi
}
trap '[ -n "${release_pid:-}" ] && kill "$release_pid" 2>/dev/null || true' EXIT

log "Debug builds (-warnings-as-errors): the test bundle, the depth probe, job-daemon, di-bench"
# Not every product: provision-stress and todo-server are built in release above, with the same flags.
for product in ProvisionPackageTests DepthProbe job-daemon di-bench; do
    build_product "$product"
done

# The sanitized test bundles, built now (the tests run after the release builds, on a quiet machine).
if [ "${SKIP_TSAN:-0}" != "1" ]; then
    log "ThreadSanitizer builds (scratch path .build-tsan): the whole test bundle, with ProvisionHummingbird's"
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product ProvisionPackageTests --sanitize=thread --scratch-path .build-tsan
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product DepthProbe --sanitize=thread --scratch-path .build-tsan
    # Scripts/stress.sh --tsan's build (the same flags).
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 build_product provision-stress --sanitize=thread --scratch-path .build-tsan
fi
if [ "${SKIP_ASAN:-0}" != "1" ]; then
    log "AddressSanitizer builds (scratch path .build-asan)"
    build_product ProvisionPackageTests --sanitize=address --scratch-path .build-asan
    build_product DepthProbe --sanitize=address --scratch-path .build-asan
fi

log "Release build beside the background ones: provision-stress perturbed (scratch path .build-perturb)"
# Scripts/stress.sh --perturb uses this build (the same flags as its own).
build_product provision-stress -c release --scratch-path .build-perturb -Xswiftc -DPROVISION_PERTURB

release_builds

log "Tests (debug)"
# One test at a time (see sanitized_tests below for why).
swift test --skip-build --no-parallel 2>&1 | tee "$root/.build/test-output.txt" || fatal "tests"
grep -qE 'Test run with [0-9]+ tests? .*passed' "$root/.build/test-output.txt" || fatal "the test run did not report passing tests"

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

log "Protocol models (Scripts/model-check.sh: spin, every interleaving; then DEFECT1..3 must be found)"
Scripts/model-check.sh || fatal "model check"
Scripts/model-check.sh --defects || fatal "model check: a defect put back was not found"

# Runs the test suite under one sanitizer (built above, in its own scratch path), and fails on any report.
# Usage: sanitized_tests NAME SANITIZER SCRATCH REPORT_PATTERN (the sanitizer's options in the environment)
sanitized_tests() {
    local name="$1" sanitizer="$2" scratch="$3" pattern="$4" output="$root/.build/$2-output.txt"
    log "Tests under $name (scratch path $scratch)"
    # One test at a time: a sanitizer slows every thread several times over, and tests that block a thread
    # of Swift's two-thread cooperative pool while they wait (joining threads, barriers) would starve the
    # async tests running beside them past their time limits.
    swift test --skip-build --no-parallel --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | tee "$output" \
        || fatal "tests under $name"
    if grep -q "$pattern" "$output"; then fatal "$name reported a problem (see above)"; fi
    grep -qE 'Test run with [0-9]+ tests? .*passed' "$output" || fatal "the $name run did not report passing tests"
}

if [ "${SKIP_TSAN:-0}" != "1" ]; then
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        sanitized_tests ThreadSanitizer thread .build-tsan "WARNING: ThreadSanitizer"
fi

if [ "${SKIP_ASAN:-0}" != "1" ]; then
    # Leak detection is off: the Swift runtime's own caches (metadata, conformances) live until exit by
    # design. Object lifetimes are checked by the tests' deinit counters instead.
    # The core, ProvisionLogging and ProvisionServiceLifecycle: not ProvisionHummingbird's tests, which
    # would build swift-nio, async-http-client and BoringSSL once more, with AddressSanitizer, for a library
    # without unsafe code of its own. AddressSanitizer is for the core's unsafe pointers, unmanaged
    # references and atomics; ProvisionHummingbird's tests run under ThreadSanitizer above.
    ASAN_OPTIONS="detect_leaks=0 halt_on_error=1" \
        sanitized_tests AddressSanitizer address .build-asan "ERROR: AddressSanitizer"
fi

log "Stress run (release, ${STRESS_SECONDS:-60} s)"
Scripts/stress.sh --seconds "${STRESS_SECONDS:-60}" || fatal "stress run"

log "Stress run of random graphs under schedule perturbation ($(( ${STRESS_SECONDS:-60} / 2 )) s)"
Scripts/stress.sh --perturb --seconds "$(( ${STRESS_SECONDS:-60} / 2 ))" || fatal "perturbed stress run"

if [ "${SKIP_TSAN:-0}" != "1" ]; then
    log "Stress run under ThreadSanitizer (10 s)"
    PROVISION_SKIP_HUMMINGBIRD_TESTS=0 Scripts/stress.sh --tsan --seconds 10 --threads 8 \
        || fatal "stress run under ThreadSanitizer"
fi

log "Example daemon: graceful shutdown on SIGTERM (Scripts/daemon-check.sh)"
Scripts/daemon-check.sh || fatal "daemon check"

log "di-bench smoke run (debug build, --quick)"
# Every scenario in every column, to completion (the debug build's figures mean nothing: see above).
bench_output=$("$root/.build/debug/di-bench" --quick --allow-debug) || { printf '%s\n' "$bench_output"; fatal "di-bench --quick"; }
printf '%s\n' "$bench_output"
completion=$(printf '%s\n' "$bench_output" | grep -E '^scenarios: [0-9]+, completed: [0-9]+$' || true)
[ -n "$completion" ] || fatal "di-bench printed no completion line"
total=$(printf '%s' "$completion" | sed -E 's/^scenarios: ([0-9]+), completed: ([0-9]+)$/\1/')
done_count=$(printf '%s' "$completion" | sed -E 's/^scenarios: ([0-9]+), completed: ([0-9]+)$/\2/')
[ "$total" -gt 0 ] && [ "$total" = "$done_count" ] || fatal "di-bench completed $done_count of $total scenarios"

log "Example server over PostgreSQL under load (Scripts/server-check.sh)"
Scripts/server-check.sh --no-build || fatal "server check"

log "All checks passed in $(( $(date +%s) - started )) s"
