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
    . "$(dirname "$0")/webgpu-env.sh"
fi
exec "$wnn" conformance --device "$device" "$dir"
