#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench-startup.sh -- what it costs to start a program that uses wnn, before
# and after the cuda backend became a module loaded on first use of a GPU
# (issue 12 item 4), measured side by side in one run.
#
#   bench/bench-startup.sh [NEW_BUILD]        (default NEW_BUILD: build)
#
# For each of `wnn --version`, `python3 -c 'import wnn'` and a cpu-only C
# program (examples/hello.c), in the build NEW_BUILD of this tree and in a
# build of commit OLD_REV (9c38d97, the last with cuda linked into libwnn),
# it prints the median wall time of N runs, the peak resident memory
# (/usr/bin/time's %M, median of 3 runs), their ratios, and whether the CUDA
# libraries were mapped (LD_DEBUG=libs). Budget for NEW_BUILD: 20 ms and
# 30 MB each; `import wnn` is judged by what it adds to a bare python3 (the
# median difference of runs of both taken in turn).
#
# The old build lives in a git worktree, OLD_SRC (made if absent, with
# CUDA on when nvcc is found, so the old cost shows). Both Python modules
# are built out of tree under WORK, linked to their build's libwnn.so.
# Exit status: 0 within budget, 1 over it, 2 a setup step failed.
#
# Variables: N (runs, default 21), OLD_REV, OLD_SRC (/tmp/wnn-old), WORK
# (/tmp/wnn-startup), JOBS (build jobs, default 2), PYTHON (/usr/bin/python3).
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEW_BUILD=$(cd "${1:-$ROOT/build}" 2>/dev/null && pwd) || { echo "bench-startup: no build folder '${1:-build}'" >&2; exit 2; }
N=${N:-21}
OLD_REV=${OLD_REV:-9c38d97}
OLD_SRC=${OLD_SRC:-/tmp/wnn-old}
WORK=${WORK:-/tmp/wnn-startup}
JOBS=${JOBS:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
BUDGET_MS=20
BUDGET_MB=30

fail() { echo "bench-startup: $*" >&2; exit 2; }

# ---------------------------------------------------------------------------
# The two builds
# ---------------------------------------------------------------------------

build_old() {
    if [ ! -d "$OLD_SRC" ]; then
        git -C "$ROOT" worktree add --detach "$OLD_SRC" "$OLD_REV" >/dev/null 2>&1 ||
            fail "cannot make the worktree $OLD_SRC at $OLD_REV"
    fi
    if [ ! -x "$OLD_SRC/build/wnn" ] || [ ! -e "$OLD_SRC/build/libwnn.so" ]; then
        echo "building $OLD_REV in $OLD_SRC/build (once) ..." >&2
        cmake -S "$OLD_SRC" -B "$OLD_SRC/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWNN_BUILD_TESTS=OFF \
            -DWNN_BUILD_BENCH=OFF >"$WORK/old-cmake.log" 2>&1 || fail "configuring $OLD_REV failed ($WORK/old-cmake.log)"
        cmake --build "$OLD_SRC/build" -j "$JOBS" --target wnn wnn_tool >>"$WORK/old-cmake.log" 2>&1 ||
            fail "building $OLD_REV failed ($WORK/old-cmake.log)"
    fi
}

# prepare SIDE SRC BUILD: the C program and the Python module of one build.
prepare() {
    local side=$1 src=$2 build=$3
    [ -x "$build/wnn" ] || fail "$build has no wnn program"
    [ -e "$build/libwnn.so" ] || fail "$build has no libwnn.so"
    mkdir -p "$WORK/$side/py/wnn" "$WORK/$side/tmp"
    cc -O2 "$ROOT/examples/hello.c" -I"$src/include" -L"$build" -lwnn -Wl,-rpath,"$build" -o "$WORK/$side/hello" ||
        fail "cannot build examples/hello.c against $build"
    (cd "$src/python" && WNN_BUILD_DIR="$build" WNN_LINK=shared "$PYTHON" setup.py -q build_ext \
        -b "$WORK/$side/py" -t "$WORK/$side/tmp" >"$WORK/$side/setup.log" 2>&1) ||
        fail "cannot build the Python module against $build ($WORK/$side/setup.log)"
    cp "$src"/python/wnn/*.py "$WORK/$side/py/wnn/"
}

# ---------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------

# wall_ms CMD...: the median wall time of N runs, in ms (bash's clock, no
# extra process inside the measured span).
wall_ms() {
    local i t0 t1 times=()
    "$@" >/dev/null 2>&1 # warm the page cache
    for ((i = 0; i < N; i++)); do
        t0=$EPOCHREALTIME
        "$@" >/dev/null 2>&1
        t1=$EPOCHREALTIME
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) * 1000 }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# extra_ms "CMD" "BASE": what CMD costs over BASE, the median of N
# differences of runs taken in turn, so that a busy machine slows both alike.
extra_ms() {
    local i t0 t1 t2 diffs=()
    for ((i = 0; i < N; i++)); do
        t0=$EPOCHREALTIME
        eval "$1" >/dev/null 2>&1
        t1=$EPOCHREALTIME
        eval "$2" >/dev/null 2>&1
        t2=$EPOCHREALTIME
        diffs+=("$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.2f", ((b - a) - (c - b)) * 1000 }')")
    done
    printf '%s\n' "${diffs[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# rss_mb CMD...: the peak resident memory, median of 3 runs, in MB.
rss_mb() {
    local i out="$WORK/rss.txt"
    : >"$out"
    for i in 1 2 3; do
        /usr/bin/time -f %M -a -o "$out" "$@" >/dev/null 2>&1
    done
    sort -g "$out" | awk '{ v[NR] = $1 } END { printf "%.1f", v[2] / 1024 }'
}

# cuda_libs CMD...: how many CUDA libraries the program loads.
cuda_libs() {
    LD_DEBUG=libs "$@" 2>&1 >/dev/null | grep -o 'lib\(cudart\|cublas\|cublasLt\|cuda\)\.so[.0-9]*' |
        sort -u | wc -l
}

# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------

command -v /usr/bin/time >/dev/null || fail "needs /usr/bin/time (apt-get install time)"
[ -n "${EPOCHREALTIME:-}" ] || fail "needs bash 5 (EPOCHREALTIME)"
mkdir -p "$WORK"
build_old
prepare old "$OLD_SRC" "$OLD_SRC/build"
prepare new "$ROOT" "$NEW_BUILD"

ROWS=(version import hello)
label() {
    case $1 in
    version) echo "wnn --version" ;;
    import) echo "python3 -c 'import wnn'" ;;
    bare) echo "  bare python3 (reference)" ;;
    hello) echo "examples/hello (cpu, C)" ;;
    esac
}
cmd_of() { # cmd_of ROW SIDE
    case $1 in
    version) echo "$(side_build "$2")/wnn --version" ;;
    import) echo "env PYTHONPATH=$WORK/$2/py $PYTHON -c 'import wnn'" ;;
    bare) echo "$PYTHON -c pass" ;;
    hello) echo "$WORK/$2/hello" ;;
    esac
}
side_build() { if [ "$1" = old ]; then echo "$OLD_SRC/build"; else echo "$NEW_BUILD"; fi; }

declare -A MS MB CU
for row in version import bare hello; do
    for side in old new; do
        cmd=$(cmd_of "$row" "$side")
        MS[$row.$side]=$(eval "wall_ms $cmd")
        MB[$row.$side]=$(eval "rss_mb $cmd")
        CU[$row.$side]=$(eval "cuda_libs $cmd")
    done
done

IMPORT_EXTRA=$(extra_ms "$(cmd_of import new)" "$(cmd_of bare new)")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }

new_rev=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo "?")
echo "wnn start-up, old = $OLD_REV (cuda linked into libwnn), new = $new_rev in $NEW_BUILD (cuda module on first use)"
echo "wall: median of $N runs; RSS: peak resident (median of 3); cuda libs: CUDA libraries loaded; $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
printf '%-28s %9s %9s %8s %8s %8s %8s %11s  %s\n' program "old ms" "new ms" ratio "old MB" "new MB" ratio \
    "cuda libs" "budget (new)"
status=0
for row in version import bare hello; do
    o=${MS[$row.old]} n=${MS[$row.new]} om=${MB[$row.old]} nm=${MB[$row.new]}
    verdict=""
    if [ "$row" != bare ]; then
        judged=$n
        [ "$row" != import ] || judged=$IMPORT_EXTRA
        if awk -v t="$judged" -v m="$nm" -v bt=$BUDGET_MS -v bm=$BUDGET_MB 'BEGIN { exit !(t <= bt && m <= bm) }'; then
            verdict="ok"
        else
            verdict="OVER"
            status=1
        fi
        what="${judged} ms"
        [ "$row" != import ] || what="$what over bare python3"
        verdict="$verdict ($what, ${nm} MB)"
    fi
    printf '%-28s %9s %9s %8s %8s %8s %8s %11s  %s\n' "$(label "$row")" "$o" "$n" "$(ratio "$o" "$n")" "$om" "$nm" \
        "$(ratio "$om" "$nm")" "${CU[$row.old]}/${CU[$row.new]}" "$verdict"
done
echo "budget: <= $BUDGET_MS ms and <= $BUDGET_MB MB for the new build; $([ $status = 0 ] && echo met || echo NOT met)"
exit $status
