#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# wnn as a program outside the tree sees it. Installs the build into a
# temporary prefix, then builds and runs examples/hello.c through the two
# consumer projects, each against the install and against the build tree:
#   examples/cmake-consumer      find_package(wnn): wnn::wnn, wnn::wnn_static
#   examples/pkgconfig-consumer  pkg-config: libwnn.so, and libwnn.a with
#                                `pkg-config --static`
# The static programs must not need libwnn.so. With a third argument of 1
# the installed `wnn conformance`, run from elsewhere with no DIR, must find
# the installed WPT vectors and pass a file of them.
set -e
src="$1"
build=$(cd "$2" && pwd)
conformance="${3:-0}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }

cmake --install "$build" --prefix "$work/prefix" >/dev/null
pcdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
test -f "$pcdir/../cmake/wnn/wnnConfig.cmake"

# run PROGRAM: it must print hello.c's result; a static one needs no libwnn.so
run() {
    out=$("$1")
    [ "$out" = "0 0 15 10" ] || { echo "$1 printed '$out', not '0 0 15 10'"; exit 1; }
    case "$1" in *static*)
        if readelf -d "$1" | grep -q 'libwnn\.so'; then echo "$1 needs libwnn.so"; exit 1; fi ;;
    esac
}

# CMake: an install (CMAKE_PREFIX_PATH), then the build tree (wnn_DIR)
for where in install build-tree; do
    if [ "$where" = install ]; then how="-DCMAKE_PREFIX_PATH=$work/prefix"; else how="-Dwnn_DIR=$build"; fi
    cmake -S "$src/examples/cmake-consumer" -B "$work/cmake-$where" "$how" \
          -DWNN_EXAMPLE_SOURCE="$src/examples/hello.c" >"$work/cmake-$where.log" 2>&1 || {
        cat "$work/cmake-$where.log"; exit 1; }
    cmake --build "$work/cmake-$where" >>"$work/cmake-$where.log" 2>&1 || {
        cat "$work/cmake-$where.log"; exit 1; }
    run "$work/cmake-$where/hello"
    run "$work/cmake-$where/hello-static"
    pass "find_package(wnn) from the $where: wnn::wnn and wnn::wnn_static"
done

# pkg-config: the installed wnn.pc, then the build tree's
for where in install build-tree; do
    if [ "$where" = install ]; then path="$pcdir"; else path="$build"; fi
    mkdir "$work/pc-$where"
    PKG_CONFIG_PATH="$path" make -s -C "$src/examples/pkgconfig-consumer" O="$work/pc-$where" \
        SRC="$src/examples/hello.c" >"$work/pc-$where.log" 2>&1 || { cat "$work/pc-$where.log"; exit 1; }
    run "$work/pc-$where/hello"
    run "$work/pc-$where/hello-static"
    pass "pkg-config from the $where: shared and --static"
done
# the build tree's wnn.pc names the build tree, not an install prefix
[ "$(PKG_CONFIG_PATH="$build" pkg-config --variable=libdir wnn)" = "$build" ]
[ "$(PKG_CONFIG_PATH="$build" pkg-config --variable=includedir wnn)" = "$(cd "$src" && pwd)/include" ]
pass "the build tree's wnn.pc points into the build and source trees"

if [ "$conformance" = 1 ]; then
    test -f "$work/prefix/share/wnn/wpt/LICENSE"
    (cd / && env -u WNN_WPT_DIR "$work/prefix/bin/wnn" conformance --verbose --filter abs/) >"$work/conformance.log"
    grep -q "prefix/bin/../share/wnn/wpt/conformance" "$work/conformance.log" || {
        echo "the installed wnn did not use the installed vectors:"; cat "$work/conformance.log"; exit 1; }
    pass "the installed wnn conformance finds the installed vectors"
fi
echo "$passed passed, 0 failed"
