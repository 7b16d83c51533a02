#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# on-webgpu.sh WNN TEST -- ctest's run of a device-aware unit test with the
# webgpu device as its test device (WNN_TEST_DEVICE=webgpu), on the private
# lavapipe of src/backends/webgpu/setup.sh when no driver was chosen. A
# webgpu device that is not there is a skip (77) with its reason.
wnn="$1"
test="$2"
lvp="$(cd "$(dirname "$0")/.." && pwd)/src/backends/webgpu/dawn/lvp25.json"
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$lvp" ]; then
    export VK_DRIVER_FILES="$lvp"
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if ! "$wnn" devices 2>/dev/null | grep -q ' webgpu '; then
    echo "skip: no webgpu device (the pinned Dawn build and a real adapter: src/backends/webgpu/setup.sh, docs/webgpu.md)"
    exit 77
fi
WNN_TEST_DEVICE=webgpu exec "$test"
