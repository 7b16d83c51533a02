#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# on-webgpu.sh WNN TEST -- ctest's run of a device-aware unit test with the
# webgpu device as its test device (WNN_TEST_DEVICE=webgpu), on the private
# lavapipe of src/backends/webgpu/setup.sh when no driver was chosen. A
# webgpu device that is not there is a skip (77) with its reason.
wnn="$1"
test="$2"
. "$(dirname "$0")/webgpu-env.sh"
WNN_TEST_DEVICE=webgpu exec "$test"
