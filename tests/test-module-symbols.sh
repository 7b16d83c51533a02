#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test-module-symbols.sh MODULE... -- every backend module (libwnn_cuda.so,
# libwnn_webgpu.so) reaches libwnn only through the host table
# (src/backends/module.h): a wnn symbol it leaves undefined would make
# dlopen refuse the module where it is needed, and the device would simply
# not be listed (a build without a GPU cannot notice otherwise).
status=0
for m in "$@"; do
    undefined=$(nm -D --undefined-only "$m" | awk '{print $NF}' | grep -E '^wnn' || true)
    if [ -n "$undefined" ]; then
        echo "FAIL $m leaves wnn symbols undefined (add them to wnn__host): $undefined"
        status=1
    else
        echo "ok $m: no wnn symbol undefined"
    fi
done
exit $status
