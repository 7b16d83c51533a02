/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_library.c -- finding and loading a webgpu.h implementation at run time,
** and finding its adapter.
**
** The library is never linked: it is opened with dlopen(RTLD_LOCAL), because
** Dawn exports some 15,000 C++ symbols (Tint, SPIRV-Tools, abseil) that must
** not clash with other copies in the process. It comes from
** $WNN_WEBGPU_LIBRARY (any implementation of the same webgpu.h, taken as it
** is), else from the pinned npm build installed in the source tree
** (src/backends/webgpu/dawn), whose version and SHA-256 are checked before it
** is opened: that build has no SONAME and no version string, and its
** struct layouts changed between releases.
**
** The adapter must be a real one: when no usable driver exists Dawn returns
** its Null adapter (which validates and executes nothing) without an error,
** so the backend type is checked. All this runs once, on the first look at
** the webgpu devices; the WGPUDevice itself is made by the first context.
*/
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/webgpu/wg_internal.h"
#include "platform/config.h"

wg_api wg;

static wg_library_state state;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* ---- SHA-256 (FIPS 180-4), for the pinned build's check ---------------------- */

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64], a[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(a, h, sizeof a);
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = a[7] + (ROR(a[4], 6) ^ ROR(a[4], 11) ^ ROR(a[4], 25)) + ((a[4] & a[5]) ^ (~a[4] & a[6])) + K[i] + w[i];
        uint32_t t2 = (ROR(a[0], 2) ^ ROR(a[0], 13) ^ ROR(a[0], 22)) + ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
        memmove(a + 1, a, 7 * sizeof *a);
        a[4] += t1;
        a[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        h[i] += a[i];
}

/* The file's SHA-256 as 64 hex digits into hex[65]; false if unreadable. */
static bool sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    static unsigned char buf[1 << 16];
    uint64_t total = 0;
    size_t n;
    unsigned char tail[128];
    size_t tail_n = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        size_t whole = n / 64 * 64;
        for (size_t i = 0; i < whole; i += 64)
            sha_block(h, buf + i);
        total += n;
        tail_n = n - whole;
        memcpy(tail, buf + whole, tail_n);
        if (tail_n)
            break; /* a short read is the end of the file */
    }
    bool ok = !ferror(f) && fread(buf, 1, 1, f) == 0;
    fclose(f);
    if (!ok)
        return false;
    tail[tail_n++] = 0x80;
    size_t pad = tail_n <= 56 ? 64 : 128;
    memset(tail + tail_n, 0, pad - tail_n);
    for (int i = 0; i < 8; i++)
        tail[pad - 1 - i] = (unsigned char)((total * 8) >> (8 * i));
    for (size_t i = 0; i < pad; i += 64)
        sha_block(h, tail + i);
    for (int i = 0; i < 8; i++)
        snprintf(hex + 8 * i, 9, "%08x", h[i]);
    return true;
}

/* ---- finding and opening --------------------------------------------------------- */

/* The pinned build's folder: version from its package.json, then the hash. */
static void *open_pinned(const char *dir)
{
    char pkg[600], text[4096];
    snprintf(pkg, sizeof pkg, "%s/package.json", dir);
    snprintf(state.path, sizeof state.path, "%s/libwebgpu_wrapper.so", dir);
    FILE *f = fopen(pkg, "r");
    if (!f) {
        snprintf(state.why, sizeof state.why, "no webgpu library: set WNN_WEBGPU_LIBRARY or install the pinned "
                 "build (src/backends/webgpu/setup.sh)");
        return NULL;
    }
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    if (!strstr(text, "\"version\": \"" WG_PINNED_VERSION "\"")) {
        snprintf(state.why, sizeof state.why, "%s: not version " WG_PINNED_VERSION " of " WG_PINNED_PACKAGE, pkg);
        return NULL;
    }
    char hex[65];
    if (!sha256_file(state.path, hex) || strcmp(hex, WG_PINNED_SHA256) != 0) {
        snprintf(state.why, sizeof state.why, "%s: SHA-256 is not the pinned one (" WG_PINNED_PACKAGE "@"
                 WG_PINNED_VERSION ")", state.path);
        return NULL;
    }
    void *h = dlopen(state.path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(state.why, sizeof state.why, "%s", dlerror());
    return h;
}

static void *open_library(void)
{
    const char *env = wnn__config_get()->webgpu_library;
    if (env) {
        snprintf(state.path, sizeof state.path, "%s", env);
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(state.why, sizeof state.why, "$WNN_WEBGPU_LIBRARY: %s", dlerror());
        return h;
    }
#ifdef WNN_WEBGPU_DAWN_DIR
    return open_pinned(WNN_WEBGPU_DAWN_DIR);
#else
    snprintf(state.why, sizeof state.why, "no webgpu library: set WNN_WEBGPU_LIBRARY");
    return NULL;
#endif
}

static bool resolve(void *h)
{
#define WG_RESOLVE(ret, name, params)                                                      \
    if (!(*(void **)&wg.name = dlsym(h, #name))) {                                         \
        snprintf(state.why, sizeof state.why, "%s: no function %s", state.path, #name);    \
        return false;                                                                      \
    }
    WG_FUNCTIONS(WG_RESOLVE)
#undef WG_RESOLVE
    return true;
}

/* ---- the adapter --------------------------------------------------------------------- */

typedef struct adapter_reply {
    uint32_t status;
    WGPUAdapter adapter;
    char message[200];
} adapter_reply;

static void on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView msg, void *u1, void *u2)
{
    adapter_reply *r = u1;
    r->status = status;
    r->adapter = adapter;
    size_t len = msg.data ? (msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
    snprintf(r->message, sizeof r->message, "%.*s", (int)len, msg.data ? msg.data : "");
}

static const char *backend_name(WGPUBackendType b)
{
    static const char *names[] = {"undefined", "null", "webgpu", "d3d11", "d3d12", "metal", "vulkan", "opengl", "opengles"};
    return b < sizeof names / sizeof names[0] ? names[b] : "?";
}

static void find_adapter(void)
{
    WGPUInstanceDescriptor idesc = {0};
    idesc.capabilities.timedWaitAnyEnable = 1;
    idesc.capabilities.timedWaitAnyMaxCount = 1;
    state.instance = wg.wgpuCreateInstance(&idesc);
    if (!state.instance) {
        snprintf(state.why, sizeof state.why, "%s: wgpuCreateInstance failed", state.path);
        return;
    }
    adapter_reply r = {0};
    WGPURequestAdapterOptions opt = {0};
    opt.powerPreference = WGPUPowerPreference_HighPerformance;
    WGPURequestAdapterCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_adapter, &r, NULL};
    WGPUFutureWaitInfo w = {wg.wgpuInstanceRequestAdapter(state.instance, &opt, ci), 0};
    if (wg.wgpuInstanceWaitAny(state.instance, 1, &w, UINT64_MAX) != WGPUWaitStatus_Success || !w.completed ||
        r.status != WGPURequestAdapterStatus_Success || !r.adapter) {
        snprintf(state.why, sizeof state.why, "no webgpu adapter: %s", r.message[0] ? r.message : "none offered");
        return;
    }
    state.adapter = r.adapter;
    WGPUAdapterInfo info = {0};
    wg.wgpuAdapterGetInfo(r.adapter, &info);
    if (info.backendType == WGPUBackendType_Null) {
        snprintf(state.why, sizeof state.why, "only Dawn's Null adapter (no usable Vulkan driver; lavapipe needs "
                 "Mesa >= 25, see docs/webgpu.md)");
        wg.wgpuAdapterInfoFreeMembers(info);
        return;
    }
    state.cpu_adapter = info.adapterType == WGPUAdapterType_CPU;
    WGPUStringView dv = info.device.length ? info.device : info.description;
    size_t len = dv.data ? (dv.length == WGPU_STRLEN ? strlen(dv.data) : dv.length) : 0;
    snprintf(state.description, sizeof state.description, "WebGPU (%s) on %.*s", backend_name(info.backendType),
             (int)(len > 120 ? 120 : len), dv.data ? dv.data : "?");
    wg.wgpuAdapterInfoFreeMembers(info);
    wg.wgpuAdapterGetLimits(r.adapter, &state.limits);
    state.shader_f16 = wg.wgpuAdapterHasFeature(r.adapter, WGPUFeatureName_ShaderF16);
    state.adapter_ok = true;
}

static void load(void)
{
    void *h = open_library();
    if (!h)
        return;
    if (!resolve(h)) {
        dlclose(h);
        return;
    }
    state.loaded = true;
    state.pid = getpid();
    find_adapter();
}

const wg_library_state *wg_library(void)
{
    pthread_once(&once, load);
    return &state;
}
