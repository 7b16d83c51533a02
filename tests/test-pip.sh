#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# pip as a Python user runs it: a new virtual environment of Debian's Python
# (its numpy through --system-site-packages), no package index, no
# environment variable, pip's build isolation on. Checks that
#   pip install ./python          builds libwnn and the extension through
#                                 CMake and gives a working module, with the
#                                 cuda module beside the extension where the
#                                 build has the cuda backend;
#   examples/hello.py             runs on the installed module;
#   pip install .                 from the repository root builds the same;
#   --no-build-isolation          works too;
#   other CMake options           (the cmake-args config setting) build a new
#                                 extension, not the old one again.
# Skips (77) without python3-venv. The builds go to python/build/cmake-<key>.
set -e
src=$(cd "$1" && pwd)
python="${2:-/usr/bin/python3}"
cuda="${3:-OFF}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
pass() { passed=$((passed + 1)); echo "ok: $1"; }

if ! "$python" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1; then
    echo "skip: $python -m venv failed (Debian: apt-get install python3-venv):"; cat "$work/venv.log"; exit 77
fi
venv="$work/venv"
pip() { (cd "$work" && env -u WNN_CMAKE_ARGS -u WNN_BUILD_DIR -u WNN_LINK "$venv/bin/pip" -q \
    --disable-pip-version-check install --no-index "$@") >"$work/pip.log" 2>&1 || {
    echo "pip install $* failed:"; cat "$work/pip.log"; exit 1; }; }
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
# debug information tells a Debug build's extension from a Release one's
debug_info() { readelf -S "$site"/wnn/_wnn*.so | grep -q '\.debug_info'; }
check_cuda() {
    if [ "$cuda" = ON ]; then
        test -f "$site/wnn/libwnn_cuda.so" || { echo "the cuda module is not in the package"; ls "$site/wnn"; exit 1; }
    fi
}

pip "$src/python"
(cd "$work" && "$venv/bin/python" -c 'import wnn; wnn.Context("cpu"); print(wnn.__file__)') | grep -q "^$site/wnn/"
check_cuda
if debug_info; then echo "the default (Release) build gave an extension with debug information"; exit 1; fi
pass "pip install ./python: wnn.Context(\"cpu\") from the venv (cuda module packaged: $cuda)"

(cd "$work" && "$venv/bin/python" "$src/examples/hello.py") >"$work/hello.log"
grep -q "ArgumentError" "$work/hello.log" || { cat "$work/hello.log"; exit 1; }
pass "examples/hello.py"

pip --force-reinstall "$src"
(cd "$work" && "$venv/bin/python" -c 'import wnn; wnn.Context("cpu")')
pass "pip install . from the repository root"

pip --force-reinstall --no-build-isolation "$src/python"
(cd "$work" && "$venv/bin/python" -c 'import wnn; wnn.Context("cpu")')
pass "pip install --no-build-isolation ./python"

pip --force-reinstall --config-settings "cmake-args=-DCMAKE_BUILD_TYPE=Debug -DWNN_WITH_CUDA=OFF" "$src/python"
(cd "$work" && "$venv/bin/python" -c 'import wnn; wnn.Context("cpu")')
debug_info || { echo "-DCMAKE_BUILD_TYPE=Debug gave an extension without debug information"; exit 1; }
test ! -f "$site/wnn/libwnn_cuda.so"
pip --force-reinstall "$src/python"
! debug_info || { echo "the default options gave the Debug extension again"; exit 1; }
check_cuda
pass "other CMake options build anew (Debug without cuda, then the default again)"
echo "$passed passed, 0 failed"
