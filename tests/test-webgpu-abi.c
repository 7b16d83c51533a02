/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-webgpu-abi.c -- the webgpu.h ABI the webgpu backend was written
** against (src/backends/webgpu/wgpu.h), checked against the library it
** loads: the pinned build's version and SHA-256, every function present,
** and by running it the enum values and struct layouts that have no debug
** information: the Null backend's value comes back in WGPUAdapterInfo,
** limits read through WGPULimits are plausible, an error scope reports a
** validation error as 2, and shader-f16 (0xA in this build) is the feature
** that lets `enable f16;` compile. Fails loudly on any drift; exits 77
** only where no library is installed.
*/
#include <dlfcn.h>
#include <libgen.h>
#include <unistd.h>

#include "backends/webgpu/wgpu.h"
#include "test.h"
#include "test-webgpu.h"

static wg_api w;
static WGPUInstance inst;

static bool wait_for(WGPUFuture f)
{
    WGPUFutureWaitInfo i = {f, 0};
    return w.wgpuInstanceWaitAny(inst, 1, &i, UINT64_MAX) == WGPUWaitStatus_Success && i.completed;
}

static void on_adapter(uint32_t status, WGPUAdapter a, WGPUStringView m, void *u1, void *u2)
{
    *(WGPUAdapter *)u1 = status == WGPURequestAdapterStatus_Success ? a : NULL;
}

static void on_device(uint32_t status, WGPUDevice d, WGPUStringView m, void *u1, void *u2)
{
    *(WGPUDevice *)u1 = status == WGPURequestDeviceStatus_Success ? d : NULL;
}

static void on_pop(uint32_t status, WGPUErrorType type, WGPUStringView m, void *u1, void *u2)
{
    *(uint32_t *)u1 = status == WGPUPopErrorScopeStatus_Success ? type : 0;
}

static WGPUAdapter adapter(uint32_t backend)
{
    WGPUAdapter a = NULL;
    WGPURequestAdapterOptions o = {0};
    o.backendType = backend;
    WGPURequestAdapterCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, &a, NULL};
    CHECK(wait_for(w.wgpuInstanceRequestAdapter(inst, &o, ci)));
    return a;
}

/* The error type of compiling wgsl on a device made with the given features. */
static uint32_t compile_on(WGPUAdapter a, const WGPUFeatureName *features, size_t n, const char *wgsl)
{
    WGPUDevice d = NULL;
    WGPUDeviceDescriptor dd = {0};
    dd.requiredFeatureCount = n;
    dd.requiredFeatures = features;
    WGPURequestDeviceCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_device, &d, NULL};
    CHECK(wait_for(w.wgpuAdapterRequestDevice(a, &dd, ci)));
    if (!d)
        return 0;
    w.wgpuDevicePushErrorScope(d, WGPUErrorFilter_Validation);
    WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {&src.chain, {"abi", WGPU_STRLEN}};
    WGPUShaderModule m = w.wgpuDeviceCreateShaderModule(d, &md);
    uint32_t type = 0;
    WGPUPopErrorScopeCallbackInfo pi = {NULL, WGPUCallbackMode_WaitAnyOnly, on_pop, &type, NULL};
    CHECK(wait_for(w.wgpuDevicePopErrorScope(d, pi)));
    if (m)
        w.wgpuShaderModuleRelease(m);
    w.wgpuDeviceRelease(d);
    return type;
}

int main(void)
{
    char src[4096], dir[4096], cmd[9000];
    test_use_private_lavapipe();
    snprintf(src, sizeof src, "%s", __FILE__);
    snprintf(dir, sizeof dir, "%s/../src/backends/webgpu/dawn/node_modules/bun-webgpu-linux-x64", dirname(src));
    const char *env = getenv("WNN_WEBGPU_LIBRARY");
    char path[4200];
    snprintf(path, sizeof path, "%s/libwebgpu_wrapper.so", dir);
    if (env && env[0]) {
        snprintf(path, sizeof path, "%s", env);
    } else if (access(path, R_OK) != 0) {
        printf("skipped: no webgpu library (src/backends/webgpu/setup.sh installs the pinned one)\n");
        return 77;
    } else {
        snprintf(cmd, sizeof cmd, "grep -q '\"version\": \"0.1.7\"' '%s/package.json' && "
                 "echo '3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788  %s' | sha256sum -c --status",
                 dir, path);
        CHECK_EQ_INT(system(cmd), 0); /* the pinned version and bytes */
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h)
        TEST_DONE();
#define RESOLVE(ret, name, params)                                  \
    *(void **)&w.name = dlsym(h, #name);                            \
    if (!w.name)                                                    \
        fprintf(stderr, "%s: no function %s\n", path, #name);       \
    CHECK(w.name != NULL);
    WG_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (test_failed)
        TEST_DONE();
    WGPUInstanceDescriptor id = {0};
    id.capabilities.timedWaitAnyEnable = 1;
    id.capabilities.timedWaitAnyMaxCount = 1;
    inst = w.wgpuCreateInstance(&id);
    CHECK(inst != NULL);

    /* Dawn's Null backend exists everywhere: it checks the enum and layouts */
    WGPUAdapter a = adapter(WGPUBackendType_Null);
    CHECK(a != NULL);
    if (a) {
        WGPUAdapterInfo info = {0};
        CHECK_EQ_INT(w.wgpuAdapterGetInfo(a, &info), 1);
        CHECK_EQ_INT(info.backendType, WGPUBackendType_Null);
        CHECK(info.adapterType >= WGPUAdapterType_DiscreteGPU && info.adapterType <= 4);
        w.wgpuAdapterInfoFreeMembers(info);
        WGPULimits l = {0};
        CHECK_EQ_INT(w.wgpuAdapterGetLimits(a, &l), 1);
        CHECK(l.maxComputeWorkgroupSizeX >= 256 && l.maxComputeWorkgroupSizeX <= 4096);
        CHECK(l.maxComputeWorkgroupsPerDimension >= 65535);
        CHECK(l.maxStorageBufferBindingSize >= (128u << 20) && l.maxBufferSize >= l.maxStorageBufferBindingSize);
        CHECK(l.minStorageBufferOffsetAlignment >= 4 && l.minStorageBufferOffsetAlignment <= 256);
        /* invalid WGSL: an error scope says Validation (2) */
        CHECK_EQ_INT(compile_on(a, NULL, 0, "fn main() { let x: f32 = nope; }"), WGPUErrorType_Validation);
        CHECK_EQ_INT(compile_on(a, NULL, 0, "fn f() -> f32 { return 1.0; }"), WGPUErrorType_NoError);
        w.wgpuAdapterRelease(a);
    }
    /* shader-f16 on a real adapter that offers it */
    const char *F16 = "enable f16;\nfn f(x: f16) -> f16 { return x * 2.0h; }\n";
    WGPUAdapter real = adapter(WGPUBackendType_Vulkan);
    if (real && w.wgpuAdapterHasFeature(real, WGPUFeatureName_ShaderF16)) {
        WGPUFeatureName f16 = WGPUFeatureName_ShaderF16;
        CHECK_EQ_INT(compile_on(real, &f16, 1, F16), WGPUErrorType_NoError);
        CHECK_EQ_INT(compile_on(real, NULL, 0, F16), WGPUErrorType_Validation);
    } else {
        printf("note: no Vulkan adapter with shader-f16 here; its enum value is not checked\n");
    }
    if (real)
        w.wgpuAdapterRelease(real);
    w.wgpuInstanceRelease(inst);
    TEST_DONE();
}
