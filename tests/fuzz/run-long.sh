#!/bin/sh
# run-long.sh [SECONDS] [WORKERS] -- runs every libFuzzer harness of
# tests/fuzz for SECONDS each (default 3600), one after the other, each with
# WORKERS processes (default 1). docs/fuzzing.md explains the fuzzers.
#
# Environment:
#   FUZZ_BUILD_DIR  the build with -DWNN_FUZZ=ON (default build-fuzz; `make
#                   test-fuzz` configures it)
#   FUZZ_WORK_DIR   where each fuzzer's growing corpus and crash files go
#                   (default $FUZZ_BUILD_DIR/fuzz-work); the checked-in seed
#                   corpus is copied in, never written
#   FUZZERS         which to run (default: fuzz_builder fuzz_dlpack fuzz_wpt_case
#                   fuzz_onnx; one the build left out, for want of jansson or
#                   the ONNX importer, is skipped with a note)
#
# With one worker a fuzzer stops at its first crash; with more (libFuzzer's
# fork mode) it records each crash and goes on until the time is up. Either
# way the script ends with status 1 if any fuzzer crashed, and names the
# reproducers (crash-*, leak-*, timeout-* past 120 s, oom-* past 4 GiB under
# FUZZ_WORK_DIR); slow-unit-* files (a unit over 10 s) are listed apart,
# without failing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-3600}
workers=${2:-1}
build=${FUZZ_BUILD_DIR:-build-fuzz}
work=${FUZZ_WORK_DIR:-$build/fuzz-work}
fuzzers=${FUZZERS:-fuzz_builder fuzz_dlpack fuzz_wpt_case fuzz_onnx}
named=${FUZZERS:+yes} # fuzzers named by the caller must all be there

mkdir -p "$work" && work=$(cd "$work" && pwd) || exit 2
failed=""
for name in $fuzzers; do
    if [ ! -x "$build/tests/fuzz/$name" ] && [ -z "$named" ] &&
        { [ "$name" = fuzz_wpt_case ] || [ "$name" = fuzz_onnx ]; }; then
        echo "run-long: $name was not built (its CMake warning says why); skipped"
        continue
    fi
    if [ ! -x "$build/tests/fuzz/$name" ]; then
        echo "run-long: $build/tests/fuzz/$name is missing (build with -DWNN_FUZZ=ON, see docs/fuzzing.md)" >&2
        exit 2
    fi
    bin=$(cd "$build/tests/fuzz" && pwd)/$name
    mkdir -p "$work/$name/corpus" "$work/$name/artifacts"
    cp -R "$here/corpus/$name/." "$work/$name/corpus/"
    # inputs up to 4 KiB from the start: a builder program needs room
    set -- -max_total_time="$seconds" -timeout=120 -rss_limit_mb=4096 -max_len=4096 -len_control=0 \
        -print_final_stats=1 -artifact_prefix="$work/$name/artifacts/"
    if [ "$workers" -gt 1 ]; then
        set -- "$@" -fork="$workers" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1
    fi
    echo "run-long: $name for ${seconds}s with $workers worker(s), log $work/$name/log.txt"
    (cd "$work/$name" && exec "$bin" "$@" corpus) >"$work/$name/log.txt" 2>&1
    status=$?
    grep -E "^(#[0-9]+ +DONE|Done|stat::)|SUMMARY" "$work/$name/log.txt" | tail -8
    found=$(ls "$work/$name/artifacts" 2>/dev/null | grep -v '^slow-unit-' | head -20)
    slow=$(ls "$work/$name/artifacts" 2>/dev/null | grep '^slow-unit-' | head -20)
    if [ $status -ne 0 ] || [ -n "$found" ]; then
        echo "run-long: $name FAILED (status $status); reproducers in $work/$name/artifacts:"
        for f in $found; do echo "  $f"; done
        failed="$failed $name"
    fi
    # libFuzzer keeps any unit over 10 s as slow-unit-*: listed to look at
    # (replay one alone to tell real slowness from a loaded machine), not a
    # failure; a unit over -timeout is one (timeout-*)
    if [ -n "$slow" ]; then
        echo "run-long: $name: slow units (over 10 s, not failures) in $work/$name/artifacts:"
        for f in $slow; do echo "  $f"; done
    fi
done
if [ -n "$failed" ]; then
    echo "run-long: crashes in:$failed"
    exit 1
fi
echo "run-long: no crash in $fuzzers"
