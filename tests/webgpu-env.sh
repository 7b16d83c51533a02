# SPDX-License-Identifier: Apache-2.0
# webgpu-env.sh -- sourced by ctest's webgpu runs (conformance.sh and
# on-webgpu.sh, which set $wnn to the wnn tool; $0 is theirs, in tests/):
# points the Vulkan loader at the private lavapipe of
# src/backends/webgpu/setup.sh when no driver was chosen, and exits 77
# (skipped) with the reason where $wnn lists no webgpu device.
lvp="$(cd "$(dirname "$0")/.." && pwd)/src/backends/webgpu/dawn/lvp25.json"
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$lvp" ]; then
    export VK_DRIVER_FILES="$lvp"
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
if ! "$wnn" devices 2>/dev/null | grep -q ' webgpu '; then
    echo "skip: no webgpu device (the pinned Dawn build and a real adapter: src/backends/webgpu/setup.sh, docs/webgpu.md)"
    exit 77
fi
