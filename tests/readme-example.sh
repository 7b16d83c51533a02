#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# README.md's C example is examples/hello.c, verbatim: the first ```c block
# of the README must equal the file (the example-hello test compiles and
# runs that file).
set -e
readme="$1"
example="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
awk '/^```c$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$readme" >"$work/readme.c"
if ! diff -u "$example" "$work/readme.c"; then
    echo "README.md's C example differs from $example (above); copy the file into the README"
    exit 1
fi
echo "1 passed, 0 failed"
