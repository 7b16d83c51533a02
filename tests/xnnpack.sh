#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# xnnpack.sh TEST [ARGS...] -- runs a cpu test with its float32 nhwc
# convolutions on XNNPACK (WNN_CPU_XNNPACK=1, src/backends/cpu/xnnpack.c).
# WNN_CPU_PROFILE's table must show XNNPACK ran some ("conv2d (xnnpack)"),
# so a build or machine where it did not load cannot pass as one where it
# did: without libXNNPACK.so.0 the run is a skip (77) with its reason.
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libXNNPACK\.so\.0' &&
    ! (IFS=:; for d in ${LD_LIBRARY_PATH:-}; do [ -f "$d/libXNNPACK.so.0" ] && exit 0; done; exit 1); then
    echo "skip: libXNNPACK.so.0 is not installed (Debian's libxnnpack0)"
    exit 77
fi
log=$(mktemp)
WNN_CPU_XNNPACK=1 WNN_CPU_PROFILE=1 "$@" >"$log" 2>&1
rc=$?
grep -E "passed|failed|skip|conv2d \(xnnpack\)" "$log" | tail -4
if [ $rc -eq 0 ] && ! grep -q 'conv2d (xnnpack)' "$log"; then
    echo "FAIL: no convolution ran on XNNPACK (the WNN_CPU_PROFILE table has no 'conv2d (xnnpack)' row)"
    rc=1
fi
rm -f "$log"
exit $rc
