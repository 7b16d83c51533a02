#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test-cli.sh -- the wnn program as a user meets it: help for every command
# (wnn help CMD, wnn CMD --help, -h), the documented exit codes (0 ok, 1
# failure, 2 usage), the messages for a directory, an unknown device or
# operator, run's closing count line, valid JSON from devices, user-facing
# skip reasons, the progress bar on a terminal, and the man page.
#
#   tests/test-cli.sh WNN_PROGRAM SOURCE_DIR
#
# Prints "N passed, N failed" and exits 1 on any failure.
set -u
WNN=$1
SRC=$2
PYTHON=${PYTHON:-python3}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

# expect CODE DESCRIPTION -- ARGS...: runs wnn ARGS, keeps stdout and stderr
# in $TMP/out and $TMP/err, and checks the exit code.
expect() {
    code=$1
    what=$2
    shift 3
    "$WNN" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq "$code" ]; then ok; else bad "$what: wnn $* exited $rc, want $code; stderr: $(head -c 400 "$TMP/err")"; fi
}

# contains FILE TEXT DESCRIPTION
contains() {
    if grep -qF -- "$2" "$1"; then ok; else bad "$3: no '$2' in: $(head -c 400 "$1")"; fi
}
lacks() {
    if grep -qF -- "$2" "$1"; then bad "$3: '$2' in: $(grep -F -- "$2" "$1" | head -3)"; else ok; fi
}

# --- help ---------------------------------------------------------------------
expect 0 "overview" -- --help
contains "$TMP/out" "usage: wnn <command>" "--help"
contains "$TMP/out" "exit status:" "--help names the exit codes"
contains "$TMP/out" "WNN_NUM_THREADS" "--help names the environment"
expect 0 "help with no topic" -- help
expect 0 "-h" -- -h
for c in devices run conformance check bench onnx-test help; do
    expect 0 "help $c" -- help "$c"
    head -n 1 "$TMP/out" | grep -q "^usage: wnn $c" && ok || bad "wnn help $c: first line is '$(head -n 1 "$TMP/out")'"
    cp "$TMP/out" "$TMP/page"
    expect 0 "$c --help" -- "$c" --help
    cmp -s "$TMP/out" "$TMP/page" && ok || bad "wnn $c --help differs from wnn help $c"
    expect 0 "$c -h" -- "$c" -h
    cmp -s "$TMP/out" "$TMP/page" && ok || bad "wnn $c -h differs from wnn help $c"
done
expect 0 "help environment" -- help environment
for v in WNN_NUM_THREADS WNN_WPT_DIR WNN_CUDA_MODULE WNN_CUDA_GRAPHS WNN_CUDA_FUSION WNN_CUDA_DIRECT_CONV \
    WNN_CPU_CONV WNN_CPU_DNNL WNN_NULL_COPY_DELAY_US WNN_TEST_DEVICE WNN_SOAK_SECONDS; do
    contains "$TMP/out" "$v" "help environment"
done
# Every option a page shows is one its command takes.
contains "$SRC/tools/cli_help.c" '"  --slowest' "conformance page names --slowest"
expect 0 "conformance options" -- conformance --filter relu/ --verbose --slowest --device cpu "$SRC/data/wpt/conformance"
expect 0 "devices options" -- devices --limits --json --device cpu --op relu
expect 0 "run options" -- run "$SRC/examples/mlp.json" --device cpu --case mlp --repeat 2

# --- usage errors: exit 2 ------------------------------------------------------
expect 2 "no command" --
expect 2 "unknown command" -- frobnicate
contains "$TMP/err" "unknown command 'frobnicate'" "unknown command"
expect 2 "unknown help topic" -- help frobnicate
contains "$TMP/err" "topics:" "unknown help topic lists the topics"
expect 2 "unknown option" -- devices --frobnicate
contains "$TMP/err" "(see wnn help devices)" "a usage error points at the command's help"
expect 2 "missing value" -- run "$SRC/examples/mlp.json" --device
expect 2 "flag with a value" -- devices --json=yes
expect 2 "bad --repeat" -- run "$SRC/examples/mlp.json" --repeat 0
expect 2 "no file" -- run
expect 2 "extra argument" -- run a.json b.json
expect 2 "directory for a file" -- run "$SRC/examples"
contains "$TMP/err" "is a directory" "run DIR"
expect 2 "file for a directory" -- conformance "$SRC/examples/mlp.json"
contains "$TMP/err" "not a directory" "conformance FILE"
expect 2 "unknown device (run)" -- run "$SRC/examples/mlp.json" --device gpu
contains "$TMP/err" "unknown device 'gpu'" "run --device gpu"
contains "$TMP/err" "cpu" "run --device gpu lists the devices"
contains "$TMP/err" "null" "run --device gpu lists the devices"
expect 2 "unknown device (conformance)" -- conformance --device nope --filter relu/
contains "$TMP/err" "unknown device 'nope'" "conformance --device nope"
contains "$TMP/err" "null" "conformance --device nope lists the devices"
lacks "$TMP/out" "passed" "conformance --device nope runs nothing"
expect 2 "unknown device (devices)" -- devices --device nope
contains "$TMP/err" "devices: cpu" "devices --device nope lists the devices"
expect 2 "unknown operator" -- devices --op conv2D
contains "$TMP/err" "did you mean 'conv2d'" "devices --op conv2D"

# --- failures: exit 1 ----------------------------------------------------------
expect 1 "missing file" -- run "$TMP/no-such.json"
contains "$TMP/err" "cannot open" "run of a missing file"
echo '{"tests": [' >"$TMP/cases.json"
for want in 1 5; do
    [ "$want" = 5 ] && echo ',' >>"$TMP/cases.json"
    cat >>"$TMP/cases.json" <<EOF
{"name": "relu wants $want", "tolerance": {"metricType": "ULP", "value": 0}, "graph": {"inputs": {"x": {"data": [1, -2], "descriptor": {"shape": [2], "dataType": "float32"}}},
 "operators": [{"name": "relu", "arguments": [{"input": "x"}], "outputs": "y"}],
 "expectedOutputs": {"y": {"data": [$want, 0], "descriptor": {"shape": [2], "dataType": "float32"}}}}}
EOF
done
echo ']}' >>"$TMP/cases.json"
expect 1 "a failing case" -- run "$TMP/cases.json"
tail -n 1 "$TMP/out" | grep -qx "1 passed, 1 failed, 0 skipped" && ok ||
    bad "run's last line is '$(tail -n 1 "$TMP/out")', want '1 passed, 1 failed, 0 skipped'"

# --- success: exit 0 and the summary line ----------------------------------------
expect 0 "run" -- run "$SRC/examples/mlp.json"
tail -n 1 "$TMP/out" | grep -qx "1 passed, 0 failed, 0 skipped" && ok ||
    bad "run's last line is '$(tail -n 1 "$TMP/out")'"
expect 0 "version" -- --version
grep -q "^wnn [0-9]" "$TMP/out" && ok || bad "--version prints '$(cat "$TMP/out")'"

# --- JSON --------------------------------------------------------------------------
check_json() { # check_json DESCRIPTION PYTHON-ASSERTION -- ARGS...
    what=$1
    assertion=$2
    shift 3
    expect 0 "$what" -- "$@"
    if "$PYTHON" -m json.tool "$TMP/out" >/dev/null 2>"$TMP/jerr"; then ok; else bad "$what: not JSON: $(cat "$TMP/jerr")"; fi
    "$PYTHON" -c "import json, sys; d = json.load(open(sys.argv[1])); assert $assertion, d" "$TMP/out" 2>"$TMP/jerr" &&
        ok || bad "$what: $(tail -n 1 "$TMP/jerr")"
}
check_json "devices --json" 'd["devices"][0]["name"] == "cpu" and "limits" not in d["devices"][0]' -- devices --json
check_json "devices --limits --json" \
    'all(len(x["limits"]) > 90 and x["limits"]["conv2d"]["input"]["rankRange"]["min"] == 4 for x in d["devices"])' \
    -- devices --limits --json
check_json "devices --json --device null --op conv2d" \
    '[x["name"] for x in d["devices"]] == ["null"] and list(d["devices"][0]["limits"]) == ["conv2d"]' \
    -- devices --json --device null --op conv2d
expect 0 "text filter" -- devices --device cpu --op conv2d
[ "$(wc -l <"$TMP/out")" -lt 10 ] && ok || bad "devices --device cpu --op conv2d printed $(wc -l <"$TMP/out") lines"
contains "$TMP/out" "conv2d" "devices --op conv2d"
lacks "$TMP/out" "matmul" "devices --op conv2d"

# --- what users read -------------------------------------------------------------
expect 0 "conformance of subgraph" -- conformance --verbose --filter subgraph/ "$SRC/data/wpt/conformance"
lacks "$TMP/out" "do not tune" "skip reasons are for users"
lacks "$TMP/out" "report it" "skip reasons are for users"

# --- the progress bar: on a terminal only --------------------------------------------
if command -v script >/dev/null 2>&1; then
    script -qec "'$WNN' run '$SRC/examples/mlp.json' --repeat 3000" /dev/null >"$TMP/tty" 2>&1
    contains "$TMP/tty" "##" "a progress bar on a terminal"
    expect 0 "no terminal" -- run "$SRC/examples/mlp.json" --repeat 300
    lacks "$TMP/err" "##" "no progress bar without a terminal"
fi

# --- the man page --------------------------------------------------------------------
if command -v groff >/dev/null 2>&1; then
    groff -man -Tutf8 -ww -z "$SRC/docs/wnn.1" 2>"$TMP/groff"
    [ -s "$TMP/groff" ] && bad "groff warns about docs/wnn.1: $(head -3 "$TMP/groff")" || ok
fi
for c in devices run conformance check bench onnx-test help; do
    grep -q "^\.SS $c\$" "$SRC/docs/wnn.1" && ok || bad "docs/wnn.1 has no section for $c"
done
for v in $(grep -o 'WNN_[A-Z_]*' "$SRC/tools/cli_help.c" | sort -u); do
    contains "$SRC/docs/wnn.1" "$v" "docs/wnn.1 names $v"
    contains "$SRC/docs/environment.md" "$v" "docs/environment.md names $v"
done

# Every variable the committed sources read is in docs/environment.md.
if git -C "$SRC" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    for v in $( (git -C "$SRC" grep -hoE 'getenv\("WNN_[A-Z0-9_]+"|environ\.get\("WNN_[A-Z0-9_]+"|"WNN_[A-Z0-9_]+_MODULE"' \
        HEAD -- src tools python tests; git -C "$SRC" grep -hoE '"WNN_[A-Z0-9_]+"' HEAD -- src/platform/config.c) |
        grep -oE 'WNN_[A-Z0-9_]+' | sort -u); do
        contains "$SRC/docs/environment.md" "\`$v\`" "docs/environment.md documents $v, which the sources read"
    done
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
