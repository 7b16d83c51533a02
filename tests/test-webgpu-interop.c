/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-webgpu-interop.c -- wnn_webgpu.h, as an application uses it: the
** test opens the webgpu.h library wnn loads, makes its own instance (without
** timed waits, so wnn must poll it) and device, creates a wnn context on
** that device, and passes tensors between wnn's graphs and its own WGSL
** compute pass and wgpuQueueWriteBuffer through export and return. Then the
** misuse: every wnn call on a rented tensor, export of a tensor not marked
** exportable, exporting twice, returning twice or never exported, and
** destroying a tensor or the context while rented (the application's
** buffer stays usable). Exits 77 where no webgpu device is listed.
*/
#include <dlfcn.h>
#include <libgen.h>
#include <unistd.h>

#include "backends/webgpu/wgpu.h"
#include "test.h"
#include "test-webgpu.h"
#include "wnn/dlpack.h"
#include "wnn/wnn_webgpu.h"

static wg_api w;
static WGPUInstance inst;
static WGPUDevice dev;
static WGPUQueue queue;
static int device_errors; /* the application's uncaptured errors */

static bool listed(void)
{
    for (uint32_t i = 0; i < wnn_device_count(); i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, "webgpu") == 0)
            return true;
    }
    return false;
}

/* The library wnn opened: the same path gives the same copy. */
static bool open_library(void)
{
    char src[4096], path[4200];
    snprintf(src, sizeof src, "%s", __FILE__);
    snprintf(path, sizeof path, "%s/../src/backends/webgpu/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so",
             dirname(src));
    const char *env = getenv("WNN_WEBGPU_LIBRARY");
    void *h = dlopen(env && env[0] ? env : path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h)
        return false;
#define RESOLVE(ret, name, params) *(void **)&w.name = dlsym(h, #name);
    WG_FUNCTIONS(RESOLVE)
#undef RESOLVE
    return w.wgpuCreateInstance && w.wgpuQueueSubmit;
}

/* The instance has no timed waits: poll it. */
static bool wait_for(WGPUFuture f)
{
    WGPUFutureWaitInfo i = {f, 0};
    for (int n = 0; n < 1000000 && !i.completed; n++) {
        WGPUWaitStatus s = w.wgpuInstanceWaitAny(inst, 1, &i, 0);
        if (s != WGPUWaitStatus_Success && s != WGPUWaitStatus_TimedOut)
            return false;
        if (!i.completed)
            usleep(100);
    }
    return i.completed;
}

static void on_adapter(uint32_t status, WGPUAdapter a, WGPUStringView m, void *u1, void *u2)
{
    *(WGPUAdapter *)u1 = status == WGPURequestAdapterStatus_Success ? a : NULL;
}

static void on_device(uint32_t status, WGPUDevice d, WGPUStringView m, void *u1, void *u2)
{
    *(WGPUDevice *)u1 = status == WGPURequestDeviceStatus_Success ? d : NULL;
}

static void on_error(const WGPUDevice *d, WGPUErrorType type, WGPUStringView m, void *u1, void *u2)
{
    device_errors++;
    fprintf(stderr, "application's device error %u: %.*s\n", type,
            (int)(m.length == WGPU_STRLEN ? strlen(m.data) : m.length), m.data ? m.data : "");
}

static bool make_device(void)
{
    WGPUInstanceDescriptor id = {0};
    inst = w.wgpuCreateInstance(&id);
    CHECK(inst != NULL);
    WGPUAdapter a = NULL;
    WGPURequestAdapterOptions o = {0};
    o.backendType = WGPUBackendType_Vulkan;
    WGPURequestAdapterCallbackInfo ai = {NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, &a, NULL};
    CHECK(wait_for(w.wgpuInstanceRequestAdapter(inst, &o, ai)));
    CHECK(a != NULL);
    if (!a)
        return false;
    WGPUDeviceDescriptor dd = {0};
    dd.uncapturedErrorCallbackInfo = (WGPUUncapturedErrorCallbackInfo){NULL, on_error, NULL, NULL};
    WGPURequestDeviceCallbackInfo di = {NULL, WGPUCallbackMode_WaitAnyOnly, on_device, &dev, NULL};
    CHECK(wait_for(w.wgpuAdapterRequestDevice(a, &dd, di)));
    w.wgpuAdapterRelease(a);
    CHECK(dev != NULL);
    if (dev)
        queue = w.wgpuDeviceGetQueue(dev);
    return dev != NULL;
}

static void on_map(uint32_t status, WGPUStringView m, void *u1, void *u2) { *(uint32_t *)u1 = status; }

/* The application reads a buffer itself: copy to a MapRead buffer, map. */
static void app_read(WGPUBuffer b, void *out, size_t n)
{
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    bd.size = (n + 3) & ~(size_t)3;
    WGPUBuffer staging = w.wgpuDeviceCreateBuffer(dev, &bd);
    WGPUCommandEncoder enc = w.wgpuDeviceCreateCommandEncoder(dev, NULL);
    w.wgpuCommandEncoderCopyBufferToBuffer(enc, b, 0, staging, 0, bd.size);
    WGPUCommandBuffer cb = w.wgpuCommandEncoderFinish(enc, NULL);
    w.wgpuQueueSubmit(queue, 1, &cb);
    w.wgpuCommandBufferRelease(cb);
    w.wgpuCommandEncoderRelease(enc);
    uint32_t status = 0;
    WGPUBufferMapCallbackInfo mi = {NULL, WGPUCallbackMode_WaitAnyOnly, on_map, &status, NULL};
    CHECK(wait_for(w.wgpuBufferMapAsync(staging, WGPUMapMode_Read, 0, bd.size, mi)));
    CHECK_EQ_INT(status, WGPUMapAsyncStatus_Success);
    const void *p = w.wgpuBufferGetConstMappedRange(staging, 0, bd.size);
    CHECK(p != NULL);
    if (p)
        memcpy(out, p, n);
    w.wgpuBufferUnmap(staging);
    w.wgpuBufferRelease(staging);
}

/* A buffer of the application's, for a shader to write. */
static WGPUBuffer app_buffer(size_t n)
{
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;
    bd.size = (n + 3) & ~(size_t)3;
    return w.wgpuDeviceCreateBuffer(dev, &bd);
}

/* Runs the application's WGSL over n buffers (bindings 0..n-1 of group 0),
** one invocation per word of the first. */
static void app_run(const char *wgsl, WGPUBuffer *b, size_t n)
{
    WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {&src.chain, {"app", WGPU_STRLEN}};
    WGPUShaderModule m = w.wgpuDeviceCreateShaderModule(dev, &md);
    WGPUComputePipelineDescriptor pd = {0};
    pd.compute.module = m;
    pd.compute.entryPoint = (WGPUStringView){"main", WGPU_STRLEN};
    WGPUComputePipeline pipe = w.wgpuDeviceCreateComputePipeline(dev, &pd);
    WGPUBindGroupLayout layout = w.wgpuComputePipelineGetBindGroupLayout(pipe, 0);
    WGPUBindGroupEntry e[4] = {{0}};
    for (size_t i = 0; i < n && i < 4; i++) {
        e[i].binding = (uint32_t)i;
        e[i].buffer = b[i];
        e[i].size = WGPU_WHOLE_SIZE;
    }
    WGPUBindGroupDescriptor bd = {NULL, {NULL, 0}, layout, n, e};
    WGPUBindGroup bg = w.wgpuDeviceCreateBindGroup(dev, &bd);
    WGPUCommandEncoder enc = w.wgpuDeviceCreateCommandEncoder(dev, NULL);
    WGPUComputePassEncoder pass = w.wgpuCommandEncoderBeginComputePass(enc, NULL);
    w.wgpuComputePassEncoderSetPipeline(pass, pipe);
    w.wgpuComputePassEncoderSetBindGroup(pass, 0, bg, 0, NULL);
    w.wgpuComputePassEncoderDispatchWorkgroups(pass, (uint32_t)((w.wgpuBufferGetSize(b[0]) / 4 + 63) / 64), 1, 1);
    w.wgpuComputePassEncoderEnd(pass);
    w.wgpuComputePassEncoderRelease(pass);
    WGPUCommandBuffer cb = w.wgpuCommandEncoderFinish(enc, NULL);
    w.wgpuQueueSubmit(queue, 1, &cb);
    w.wgpuCommandBufferRelease(cb);
    w.wgpuCommandEncoderRelease(enc);
    w.wgpuBindGroupRelease(bg);
    w.wgpuBindGroupLayoutRelease(layout);
    w.wgpuComputePipelineRelease(pipe);
    w.wgpuShaderModuleRelease(m);
}

/* The application's own WGSL: y = y * 2 + 1 over the whole buffer. */
static void app_double_plus_one(WGPUBuffer b)
{
    app_run("@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n"
            "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n"
            "    if (id.x < arrayLength(&y)) { y[id.x] = y[id.x] * 2.0 + 1.0; }\n"
            "}\n",
            &b, 1);
}

/* Another: y = x * 2 + 1, reading one buffer and writing another. */
static void app_double_plus_one_into(WGPUBuffer x, WGPUBuffer y)
{
    WGPUBuffer b[2] = {y, x};
    app_run("@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n"
            "@group(0) @binding(1) var<storage, read> x: array<f32>;\n"
            "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n"
            "    if (id.x < arrayLength(&y)) { y[id.x] = x[id.x] * 2.0 + 1.0; }\n"
            "}\n",
            b, 2);
}

static wnn_context *ctx;

static wnn_tensor *tensor(uint32_t n, bool exportable)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = n;
    d.readable = d.writable = true;
    d.exportable_to_gpu = exportable;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
    return t;
}

/* y = a + b on c, for [n] float32. */
static wnn_graph *add_graph_on(wnn_context *c, uint32_t n)
{
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(c, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {n}};
    wnn_operand *x = wnn_graph_builder_input(b, "a", &d);
    wnn_operand *y = wnn_graph_builder_input(b, "b", &d);
    wnn_named_operand o = {"y", wnn_add(b, x, y)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &o, 1, &g));
    wnn_graph_builder_release(b);
    return g;
}

static wnn_graph *add_graph(uint32_t n) { return add_graph_on(ctx, n); }

static wnn_status add_on(wnn_context *c, wnn_graph *g, wnn_tensor *a, wnn_tensor *b, wnn_tensor *y)
{
    wnn_named_tensor in[2] = {{"a", a}, {"b", b}}, out[1] = {{"y", y}};
    return wnn_context_dispatch(c, g, in, 2, out, 1);
}

static wnn_status add(wnn_graph *g, wnn_tensor *a, wnn_tensor *b, wnn_tensor *y) { return add_on(ctx, g, a, b, y); }

/* wnn's result goes to the application's shader and back. */
static void test_round_trip(void)
{
    enum { N = 100 };
    wnn_graph *g = add_graph(N);
    wnn_tensor *a = tensor(N, false), *b = tensor(N, false), *y = tensor(N, true);
    float va[N], vb[N], out[N];
    for (int i = 0; i < N; i++) {
        va[i] = (float)i;
        vb[i] = 0.5f;
    }
    CHECK_OK(wnn_context_write_tensor(ctx, a, va, sizeof va));
    CHECK_OK(wnn_context_write_tensor(ctx, b, vb, sizeof vb));
    CHECK_OK(add(g, a, b, y));

    WGPUBuffer buf = NULL;
    CHECK_OK(wnn_webgpu_tensor_export(ctx, y, &buf));
    CHECK(buf != NULL);
    CHECK(wnn_webgpu_tensor_is_rented(y));
    CHECK_EQ_INT(w.wgpuBufferGetSize(buf), sizeof(float) * N);
    CHECK_EQ_INT(w.wgpuBufferGetUsage(buf), WNN_WEBGPU_BUFFER_USAGE);
    app_read(buf, out, sizeof out); /* the dispatch came first on the queue */
    CHECK(out[0] == 0.5f && out[99] == 99.5f);
    app_double_plus_one(buf);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, y));
    CHECK(!wnn_webgpu_tensor_is_rented(y));
    w.wgpuBufferRelease(buf);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, y, out, sizeof out));
    CHECK(out[0] == 2.0f && out[10] == 22.0f && out[99] == 200.0f);

    /* an input written by wgpuQueueWriteBuffer feeds a dispatch */
    wnn_tensor *x = tensor(N, true);
    CHECK_OK(wnn_webgpu_tensor_export(ctx, x, &buf));
    for (int i = 0; i < N; i++)
        va[i] = (float)(3 * i);
    w.wgpuQueueWriteBuffer(queue, buf, 0, va, sizeof va);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, x));
    w.wgpuBufferRelease(buf);
    CHECK_OK(add(g, x, x, y));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, y, out, sizeof out));
    CHECK(out[1] == 6.0f && out[99] == 594.0f);

    /* never written: the application sees zeros; a host write: its value */
    wnn_tensor *z = tensor(3, true);
    CHECK_OK(wnn_webgpu_tensor_export(ctx, z, &buf));
    float three[3] = {1, 1, 1};
    app_read(buf, three, sizeof three);
    CHECK(three[0] == 0 && three[2] == 0);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, z));
    w.wgpuBufferRelease(buf);
    float v3[3] = {7, 8, 9};
    CHECK_OK(wnn_context_write_tensor(ctx, z, v3, sizeof v3));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, z, three, sizeof three)); /* mirror current, then... */
    CHECK_OK(wnn_webgpu_tensor_export(ctx, z, &buf));
    app_double_plus_one(buf);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, z));
    w.wgpuBufferRelease(buf);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, z, three, sizeof three)); /* ...stale after the return */
    CHECK(three[0] == 15 && three[1] == 17 && three[2] == 19);

    wnn_tensor_release(a);
    wnn_tensor_release(b);
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_tensor_release(z);
    wnn_graph_release(g);
    CHECK_OK(wnn_context_finish(ctx));
}

static void noop_read(wnn_status s, const char *m, const void *d, size_t n, void *u) {}

static void test_misuse(void)
{
    enum { N = 8 };
    wnn_graph *g = add_graph(N);
    wnn_tensor *a = tensor(N, false), *o = tensor(N, false), *t = tensor(N, true);
    float v[N] = {0};
    WGPUBuffer buf = NULL, again = NULL;

    /* not marked exportable; never exported; NULLs */
    CHECK_STATUS(wnn_webgpu_tensor_export(ctx, a, &buf), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(buf == NULL);
    CHECK_STATUS(wnn_webgpu_tensor_return(ctx, t), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(wnn_webgpu_tensor_export(ctx, t, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_webgpu_tensor_export(NULL, t, &buf), WNN_STATUS_INVALID_ARGUMENT);

    /* rented: every use fails, exporting again gives the same buffer */
    CHECK_OK(wnn_webgpu_tensor_export(ctx, t, &buf));
    CHECK_OK(wnn_webgpu_tensor_export(ctx, t, &again));
    CHECK(again == buf);
    w.wgpuBufferRelease(again);
    CHECK_STATUS(wnn_context_write_tensor(ctx, t, v, sizeof v), WNN_STATUS_INVALID_STATE);
    CHECK(strstr(wnn_last_error_message(), "rented") != NULL);
    CHECK_STATUS(wnn_context_read_tensor(ctx, t, noop_read, NULL), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, t, v, sizeof v), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(add(g, t, a, a), WNN_STATUS_INVALID_STATE);
    CHECK(strstr(wnn_last_error_message(), "rented") != NULL);
    CHECK_STATUS(add(g, a, a, t), WNN_STATUS_INVALID_STATE);
    void *dl = NULL;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, NULL, &dl), WNN_STATUS_INVALID_STATE);
    CHECK_OK(add(g, a, a, o)); /* other tensors are not held up */
    CHECK_OK(wnn_webgpu_tensor_return(ctx, t));
    CHECK_STATUS(wnn_webgpu_tensor_return(ctx, t), WNN_STATUS_INVALID_STATE); /* twice */
    CHECK_OK(wnn_context_finish(ctx)); /* the dispatch's device calls done: Dawn's are not thread-safe */
    w.wgpuBufferRelease(buf);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, v, sizeof v));

    /* destroyed while rented: wnn lets go, the application's buffer stays */
    CHECK_OK(wnn_webgpu_tensor_export(ctx, t, &buf));
    wnn_tensor_destroy(t);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, t, v, sizeof v), WNN_STATUS_DESTROYED);
    CHECK_STATUS(wnn_webgpu_tensor_export(ctx, t, &again), WNN_STATUS_DESTROYED);
    v[0] = 4;
    w.wgpuQueueWriteBuffer(queue, buf, 0, v, sizeof v);
    app_double_plus_one(buf);
    float back[N];
    app_read(buf, back, sizeof back);
    CHECK(back[0] == 9);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, t)); /* ends the rental */
    CHECK_STATUS(wnn_webgpu_tensor_return(ctx, t), WNN_STATUS_INVALID_STATE);
    wnn_tensor_release(t);
    w.wgpuBufferRelease(buf);

    /* exportable only on webgpu; export needs a webgpu context */
    wnn_context *cpu = NULL;
    CHECK_OK(wnn_context_create(NULL, &cpu));
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = 4;
    d.exportable_to_gpu = true;
    wnn_tensor *c = NULL;
    CHECK_STATUS(wnn_context_create_tensor(cpu, &d, &c), WNN_STATUS_NOT_SUPPORTED);
    d.exportable_to_gpu = false;
    CHECK_OK(wnn_context_create_tensor(cpu, &d, &c));
    CHECK_STATUS(wnn_webgpu_tensor_export(cpu, c, &buf), WNN_STATUS_NOT_SUPPORTED);
    CHECK_STATUS(wnn_webgpu_tensor_export(ctx, c, &buf), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(wnn_webgpu_context_get_device(cpu, NULL, NULL), WNN_STATUS_NOT_SUPPORTED);
    wnn_tensor_release(c);
    wnn_context_release(cpu);

    wnn_tensor_release(a);
    wnn_tensor_release(o);
    wnn_graph_release(g);
    CHECK_OK(wnn_context_finish(ctx));
}

/* The context destroyed and released while a tensor is rented. */
static void test_context_gone(void)
{
    wnn_context *c = NULL;
    CHECK_OK(wnn_webgpu_context_create(inst, dev, NULL, &c));
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = 16;
    d.readable = d.writable = d.exportable_to_gpu = true;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(c, &d, &t));
    float v[16] = {1};
    CHECK_OK(wnn_context_write_tensor(c, t, v, sizeof v));
    WGPUBuffer buf = NULL;
    CHECK_OK(wnn_webgpu_tensor_export(c, t, &buf));
    wnn_context_destroy(c);
    CHECK_STATUS(wnn_context_write_tensor(c, t, v, sizeof v), WNN_STATUS_CONTEXT_LOST);
    CHECK_OK(wnn_webgpu_tensor_return(c, t));
    wnn_tensor_release(t);
    wnn_context_release(c);
    app_double_plus_one(buf);
    float back[16];
    app_read(buf, back, sizeof back);
    CHECK(back[0] == 3 && back[1] == 1);
    w.wgpuBufferRelease(buf);
}

/* ---- exports by copy: a context on another device ------------------------------ */

static wnn_tensor *exportable_on(wnn_context *c, uint32_t n, bool writable)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = n;
    d.readable = true;
    d.writable = writable;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_webgpu_context_create_exportable_tensor(c, &d, inst, dev, &t));
    return t;
}

/* The rental's rules on c, whose tensors export copies to the test's device. */
static void test_copies_on(wnn_context *c, const char *name)
{
    enum { N = 50 };
    printf("copies from \"%s\"\n", name);
    wnn_graph *g = add_graph_on(c, N);
    wnn_tensor *a = NULL, *y = exportable_on(c, N, true);
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = N;
    d.writable = true;
    CHECK_OK(wnn_context_create_tensor(c, &d, &a));
    if (!y || !a)
        return;
    wnn_tensor_get_desc(y, &d);
    CHECK(d.exportable_to_gpu);
    float v[N], out[N];
    for (int i = 0; i < N; i++)
        v[i] = (float)i;
    CHECK_OK(wnn_context_write_tensor(c, a, v, sizeof v));
    CHECK_OK(add_on(c, g, a, a, y)); /* wnn's result on c: 2i */

    /* export: a copy, on the test's queue before its own work */
    WGPUBuffer buf = NULL, again = NULL;
    bool copied = false;
    CHECK_OK(wnn_webgpu_tensor_export_v2(c, y, &buf, &copied));
    CHECK(copied);
    CHECK(buf != NULL);
    if (!buf)
        return;
    CHECK(wnn_webgpu_tensor_is_rented(y));
    CHECK_EQ_INT(w.wgpuBufferGetSize(buf), sizeof(float) * N);
    CHECK_EQ_INT(w.wgpuBufferGetUsage(buf), WNN_WEBGPU_BUFFER_USAGE);
    app_read(buf, out, sizeof out);
    CHECK(out[0] == 0 && out[1] == 2 && out[49] == 98);

    /* rented: every wnn use fails; exporting again: the same buffer, no new copy */
    app_double_plus_one(buf); /* submitted before the second export */
    copied = false;
    CHECK_OK(wnn_webgpu_tensor_export_v2(c, y, &again, &copied));
    CHECK(again == buf && copied);
    w.wgpuBufferRelease(again);
    CHECK_OK(wnn_webgpu_tensor_export(c, y, &again)); /* the older call, too */
    CHECK(again == buf);
    w.wgpuBufferRelease(again);
    CHECK_STATUS(wnn_context_write_tensor(c, y, v, sizeof v), WNN_STATUS_INVALID_STATE);
    CHECK(strstr(wnn_last_error_message(), "rented") != NULL);
    CHECK_STATUS(wnn_context_read_tensor_sync(c, y, out, sizeof out), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(wnn_context_read_tensor(c, y, noop_read, NULL), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(add_on(c, g, a, a, y), WNN_STATUS_INVALID_STATE);
    CHECK_STATUS(add_on(c, g, y, a, a), WNN_STATUS_INVALID_STATE);
    void *dl = NULL;
    CHECK_STATUS(wnn_tensor_export_dlpack(y, NULL, &dl), WNN_STATUS_INVALID_STATE);

    /* return: the application's writes come back */
    CHECK_OK(wnn_webgpu_tensor_return(c, y));
    CHECK(!wnn_webgpu_tensor_is_rented(y));
    CHECK_STATUS(wnn_webgpu_tensor_return(c, y), WNN_STATUS_INVALID_STATE);
    w.wgpuBufferRelease(buf);
    CHECK_OK(wnn_context_read_tensor_sync(c, y, out, sizeof out));
    CHECK(out[0] == 1 && out[1] == 5 && out[49] == 197);
    float back[N];
    wnn_tensor *r = exportable_on(c, N, false);
    CHECK_OK(add_on(c, g, y, a, r)); /* the returned value feeds wnn: 4i + 1 + i */
    CHECK_OK(wnn_webgpu_tensor_export(c, r, &buf));
    app_read(buf, back, sizeof back);
    CHECK(back[1] == 6 && back[49] == 246);

    /* a tensor made without writable takes the application's writes too */
    for (int i = 0; i < N; i++)
        v[i] = (float)(-i);
    w.wgpuQueueWriteBuffer(queue, buf, 0, v, sizeof v);
    CHECK_OK(wnn_webgpu_tensor_return(c, r));
    w.wgpuBufferRelease(buf);
    CHECK_OK(wnn_context_read_tensor_sync(c, r, back, sizeof back));
    CHECK(back[0] == 0 && back[1] == -1 && back[49] == -49);

    /* a second rental copies the value of then */
    CHECK_OK(wnn_webgpu_tensor_export_v2(c, y, &buf, &copied));
    app_read(buf, back, sizeof back);
    CHECK(back[1] == 5 && back[49] == 197);
    CHECK_OK(wnn_webgpu_tensor_return(c, y));
    w.wgpuBufferRelease(buf);

    /* destroyed while rented: wnn lets go, the application's buffer stays */
    CHECK_OK(wnn_webgpu_tensor_export(c, y, &buf));
    wnn_tensor_destroy(y);
    CHECK_STATUS(wnn_webgpu_tensor_export(c, y, &again), WNN_STATUS_DESTROYED);
    app_double_plus_one(buf);
    app_read(buf, back, sizeof back);
    CHECK(back[1] == 11);
    CHECK_OK(wnn_webgpu_tensor_return(c, y)); /* ends the rental, copies nothing */
    CHECK_STATUS(wnn_webgpu_tensor_return(c, y), WNN_STATUS_INVALID_STATE);
    wnn_tensor_release(y);
    app_read(buf, back, sizeof back); /* still the application's */
    CHECK(back[1] == 11);
    w.wgpuBufferRelease(buf);

    wnn_tensor_release(a);
    wnn_tensor_release(r);
    wnn_graph_release(g);
    CHECK_OK(wnn_context_finish(c));
}

static void test_copies(void)
{
    static const char *const devices[] = {"cpu", "null", "webgpu"}; /* webgpu: wnn's own WGPUDevice */
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
        o.device = devices[i];
        wnn_context *c = NULL;
        CHECK_OK(wnn_context_create(&o, &c));
        if (c)
            test_copies_on(c, devices[i]);
        wnn_context_release(c);
    }

    /* on the context of the application's device it is the tensor's own buffer */
    wnn_tensor *t = exportable_on(ctx, 4, true);
    WGPUBuffer buf = NULL;
    bool copied = true;
    CHECK_OK(wnn_webgpu_tensor_export_v2(ctx, t, &buf, &copied));
    CHECK(!copied && buf != NULL);
    CHECK_OK(wnn_webgpu_tensor_return(ctx, t));
    w.wgpuBufferRelease(buf);
    wnn_tensor_release(t);

    /* the misuse of creation */
    wnn_context *cpu = NULL;
    CHECK_OK(wnn_context_create(NULL, &cpu));
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = 4;
    t = (wnn_tensor *)&d;
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(cpu, &d, NULL, dev, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(t == NULL);
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(cpu, &d, inst, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(cpu, NULL, inst, dev, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(NULL, &d, inst, dev, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(cpu, &d, inst, dev, NULL), WNN_STATUS_INVALID_ARGUMENT);
    d.shape[0] = 0;
    CHECK_STATUS(wnn_webgpu_context_create_exportable_tensor(cpu, &d, inst, dev, &t), WNN_STATUS_INVALID_DIMENSION);
    d.shape[0] = 4;
    /* a plain tensor of the cpu still does not export; nor does one of another context */
    wnn_tensor *plain = NULL;
    CHECK_OK(wnn_context_create_tensor(cpu, &d, &plain));
    CHECK_STATUS(wnn_webgpu_tensor_export_v2(cpu, plain, &buf, &copied), WNN_STATUS_NOT_SUPPORTED);
    CHECK(!copied && buf == NULL);
    CHECK_OK(wnn_webgpu_context_create_exportable_tensor(cpu, &d, inst, dev, &t));
    CHECK_STATUS(wnn_webgpu_tensor_export(ctx, t, &buf), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(wnn_webgpu_tensor_return(ctx, t), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(wnn_webgpu_tensor_return(cpu, t), WNN_STATUS_INVALID_STATE);

    /* the context destroyed while a copy is rented: the buffer stays the application's */
    float v[4] = {1, 2, 3, 4}, back[4];
    d.writable = true;
    wnn_tensor *u = NULL;
    CHECK_OK(wnn_webgpu_context_create_exportable_tensor(cpu, &d, inst, dev, &u));
    CHECK_OK(wnn_context_write_tensor(cpu, u, v, sizeof v));
    CHECK_OK(wnn_webgpu_tensor_export(cpu, u, &buf));
    wnn_context_destroy(cpu);
    CHECK_STATUS(wnn_context_write_tensor(cpu, u, v, sizeof v), WNN_STATUS_CONTEXT_LOST);
    CHECK_OK(wnn_webgpu_tensor_return(cpu, u));
    wnn_tensor_release(u);
    wnn_tensor_release(t);
    wnn_tensor_release(plain);
    wnn_context_release(cpu);
    app_double_plus_one(buf);
    app_read(buf, back, sizeof back);
    CHECK(back[0] == 3 && back[3] == 9);
    w.wgpuBufferRelease(buf);
}

/* ---- DLPack: (kDLWebGPU, 0), data a WGPUBuffer ----------------------------------- */

static int foreign_deleted;
static void delete_foreign(DLManagedTensorVersioned *m) { foreign_deleted++; }

static void test_dlpack(void)
{
    enum { N = 64 };
    wnn_graph *g = add_graph(N);
    wnn_tensor *a = tensor(N, false), *y = tensor(N, false);
    float v[N], out[N];
    for (int i = 0; i < N; i++)
        v[i] = (float)i;
    CHECK_OK(wnn_context_write_tensor(ctx, a, v, sizeof v));
    CHECK_OK(add(g, a, a, y)); /* 2i */

    /* the consumer: the application's shader reads the lent buffer, writes its own */
    void *p = NULL;
    CHECK_OK(wnn_tensor_export_dlpack(y, NULL, &p));
    DLManagedTensorVersioned *m = p;
    if (!m)
        return;
    CHECK_EQ_INT(m->dl_tensor.device.device_type, kDLWebGPU);
    CHECK_EQ_INT(m->dl_tensor.device.device_id, 0);
    CHECK_EQ_INT(m->dl_tensor.byte_offset, 0);
    CHECK_EQ_INT(m->dl_tensor.dtype.code, kDLFloat);
    CHECK_EQ_INT(m->flags, 0);
    WGPUBuffer lent = m->dl_tensor.data;
    CHECK(w.wgpuBufferGetSize(lent) >= sizeof(float) * N);
    CHECK((w.wgpuBufferGetUsage(lent) & WNN_WEBGPU_BUFFER_USAGE) == WNN_WEBGPU_BUFFER_USAGE);
    WGPUBuffer mine = app_buffer(sizeof(float) * N);
    app_double_plus_one_into(lent, mine);
    app_read(mine, out, sizeof out);
    CHECK(out[0] == 1 && out[1] == 5 && out[63] == 253);

    /* imported by a context on the same WGPUDevice: the same buffer, no copy */
    wnn_context *same = NULL;
    CHECK_OK(wnn_webgpu_context_create(inst, dev, NULL, &same));
    wnn_dlpack_import_options io = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    io.readable = true;
    io.copy = WNN_DLPACK_COPY_NEVER;
    wnn_tensor *wrapped = NULL;
    CHECK_OK(wnn_context_import_dlpack(same, m, &io, &wrapped));
    CHECK_OK(wnn_context_read_tensor_sync(same, wrapped, out, sizeof out));
    CHECK(out[1] == 2 && out[63] == 126);
    void *q = NULL;
    CHECK_OK(wnn_tensor_export_dlpack(wrapped, NULL, &q));
    if (q) {
        CHECK(((DLManagedTensorVersioned *)q)->dl_tensor.data == (void *)lent);
        ((DLManagedTensorVersioned *)q)->deleter(q);
    }
    wnn_tensor_release(wrapped);

    /* a copy on the device: another buffer, flagged */
    wnn_dlpack_export_options eo = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    eo.copy = WNN_DLPACK_COPY_ALWAYS;
    CHECK_OK(wnn_tensor_export_dlpack(y, &eo, &p));
    m = p;
    if (m) {
        CHECK(m->dl_tensor.device.device_type == kDLWebGPU && m->dl_tensor.data != (void *)lent);
        CHECK(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
        app_double_plus_one_into(m->dl_tensor.data, mine);
        app_read(mine, out, sizeof out);
        CHECK(out[2] == 9 && out[63] == 253);
        m->deleter(m);
    }
    /* to host memory: a copy */
    eo = (wnn_dlpack_export_options)WNN_DLPACK_EXPORT_OPTIONS_INIT;
    eo.device_type = kDLCPU;
    CHECK_OK(wnn_tensor_export_dlpack(y, &eo, &p));
    m = p;
    if (m) {
        CHECK(m->dl_tensor.device.device_type == kDLCPU && (m->flags & DLPACK_FLAG_BITMASK_IS_COPIED));
        CHECK(((float *)m->dl_tensor.data)[63] == 126);
        m->deleter(m);
    }
    eo.device_type = kDLWebGPU;
    eo.device_id = 1;
    CHECK_STATUS(wnn_tensor_export_dlpack(y, &eo, &p), WNN_STATUS_UNSUPPORTED_DEVICE);
    /* one queue, no streams: any stream >= 1 waits as none does; 0 is ambiguous */
    eo = (wnn_dlpack_export_options)WNN_DLPACK_EXPORT_OPTIONS_INIT;
    eo.has_stream = true;
    eo.stream = 3;
    CHECK_OK(wnn_tensor_export_dlpack(y, &eo, &p));
    m = p;
    if (m) {
        app_double_plus_one_into(m->dl_tensor.data, mine);
        app_read(mine, out, sizeof out);
        CHECK(out[3] == 13);
        m->deleter(m);
    }
    eo.stream = 0;
    CHECK_STATUS(wnn_tensor_export_dlpack(y, &eo, &p), WNN_STATUS_INVALID_ARGUMENT);

    /* refused: a buffer of another WGPUDevice (wnn's own), a view, a buffer wnn did not lend */
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "webgpu";
    wnn_context *other = NULL;
    CHECK_OK(wnn_context_create(&o, &other));
    CHECK_OK(wnn_tensor_export_dlpack(y, NULL, &p));
    CHECK_STATUS(wnn_context_import_dlpack(other, p, NULL, &wrapped), WNN_STATUS_UNSUPPORTED_DEVICE);
    CHECK(strstr(wnn_last_error_message(), "another WGPUDevice") != NULL);
    CHECK(wrapped == NULL);
    CHECK_OK(wnn_tensor_export_dlpack(y, NULL, &p));
    m = p;
    m->dl_tensor.byte_offset = 4;
    m->dl_tensor.shape[0] = N - 1;
    CHECK_STATUS(wnn_context_import_dlpack(same, m, NULL, &wrapped), WNN_STATUS_UNSUPPORTED_DEVICE);
    CHECK(strstr(wnn_last_error_message(), "view") != NULL);
    int64_t shape[1] = {N};
    DLManagedTensorVersioned foreign = {{1, 3}, NULL, delete_foreign, 0,
                                        {mine, {kDLWebGPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0}};
    CHECK_STATUS(wnn_context_import_dlpack(ctx, &foreign, NULL, &wrapped), WNN_STATUS_UNSUPPORTED_DEVICE);
    CHECK_EQ_INT(foreign_deleted, 1);

    /* with no webgpu context, no taker: cpu refuses WebGPU memory */
    wnn_context *cpu = NULL;
    CHECK_OK(wnn_context_create(NULL, &cpu));
    CHECK_OK(wnn_tensor_export_dlpack(y, NULL, &p));
    CHECK_STATUS(wnn_context_import_dlpack(cpu, p, NULL, &wrapped), WNN_STATUS_UNSUPPORTED_DEVICE);

    wnn_context_release(cpu);
    wnn_context_release(other);
    wnn_context_release(same);
    w.wgpuBufferRelease(mine);
    wnn_tensor_release(a);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    CHECK_OK(wnn_context_finish(ctx));
}

int main(void)
{
    test_use_private_lavapipe();
    if (!listed()) {
        printf("skipped: no webgpu device (needs the pinned Dawn build and a real adapter: "
               "src/backends/webgpu/setup.sh, docs/webgpu.md)\n");
        return 77;
    }
    if (!open_library() || !make_device())
        TEST_DONE();
    CHECK_STATUS(wnn_webgpu_context_create(NULL, dev, NULL, &ctx), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_OK(wnn_webgpu_context_create(inst, dev, NULL, &ctx));
    if (ctx) {
        WGPUInstance i = NULL;
        WGPUDevice d = NULL;
        CHECK_OK(wnn_webgpu_context_get_device(ctx, &i, &d));
        CHECK(i == inst && d == dev);
        wnn_device_info info;
        CHECK_OK(wnn_context_get_device_info(ctx, &info));
        CHECK(strcmp(info.name, "webgpu") == 0);
        test_round_trip();
        test_misuse();
        test_context_gone();
        test_copies();
        test_dlpack();
    }
    wnn_context_release(ctx);
    CHECK_EQ_INT(device_errors, 0);
    w.wgpuQueueRelease(queue);
    w.wgpuDeviceRelease(dev);
    w.wgpuInstanceRelease(inst);
    TEST_DONE();
}
