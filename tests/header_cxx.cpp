// SPDX-License-Identifier: Apache-2.0
// Proves the public header compiles as C++ and links from C++: every
// declaration must sit inside extern "C" and use only C++-compatible syntax.
#include "wnn/wnn.h"
#include "wnn/wnn_webgpu.h"

#include <cstdio>

int main()
{
    wnn_context_options options = WNN_CONTEXT_OPTIONS_INIT;
    wnn_tensor_desc desc = WNN_TENSOR_DESC_INIT;
    wnn_gemm_options gemm = WNN_GEMM_OPTIONS_INIT;
    wnn_clamp_options clamp = WNN_CLAMP_OPTIONS_INIT;
    (void)gemm;
    (void)clamp;
    options.device = "cpu";
    wnn_context *ctx = nullptr;
    int failed = 0;
    if (wnn_context_create(&options, &ctx) != WNN_OK) {
        std::printf("context: %s\n", wnn_last_error_message());
        failed++;
    }
    desc.rank = 1;
    desc.shape[0] = 4;
    desc.readable = true;
    wnn_tensor *t = nullptr;
    if (wnn_context_create_tensor(ctx, &desc, &t) != WNN_OK)
        failed++;
    float out[4] = {1, 1, 1, 1};
    if (wnn_context_read_tensor_sync(ctx, t, out, sizeof out) != WNN_OK || out[0] != 0.0f)
        failed++;
    wnn_tensor_release(t);
    /* wnn_webgpu.h: a cpu context has no WebGPU device */
    if (wnn_webgpu_context_get_device(ctx, nullptr, nullptr) != WNN_STATUS_NOT_SUPPORTED)
        failed++;
    wnn_context_release(ctx);
    std::printf("%d passed, %d failed\n", failed ? 0 : 1, failed ? 1 : 0);
    return failed ? 1 : 0;
}
