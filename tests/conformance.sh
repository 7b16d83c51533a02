#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# conformance.sh WNN DEVICE DIR -- ctest's WPT conformance run: every case of
# DIR on DEVICE, 0 failures required. A missing DIR, or a webgpu device that
# is not there, is a skip (77) with its reason, not a failure.
wnn="$1"
device="$2"
dir="$3"
if [ ! -d "$dir" ]; then
    echo "skip: the WPT vectors folder '$dir' is missing (set WNN_WPT_DIR when configuring)"
    exit 77
fi
if [ "$device" = webgpu ]; then
    # the private lavapipe of src/backends/webgpu/setup.sh when no driver was chosen
    lvp="$(cd "$(dirname "$0")/.." && pwd)/src/backends/webgpu/dawn/lvp25.json"
    if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$lvp" ]; then
        export VK_DRIVER_FILES="$lvp"
    fi
    export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
    if ! "$wnn" devices 2>/dev/null | grep -q ' webgpu '; then
        echo "skip: no webgpu device (the pinned Dawn build and a real adapter: src/backends/webgpu/setup.sh, docs/webgpu.md)"
        exit 77
    fi
fi
exec "$wnn" conformance --device "$device" "$dir"
