/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-dlpack-fuzz.c -- malformed DLPack managed tensors fed to
** wnn_context_import_dlpack on the cpu and null devices: every field drawn
** from a pool of edge values (versions, ndim, NULL and negative shapes,
** overflowing counts and strides, odd data types and devices, byte offsets,
** NULL and misaligned data, flags, options), plus real wnn exports with
** fields rewritten. Every case must end in WNN_OK or a status, never a
** crash (run it under the address sanitizer), with the deleter called
** exactly once.
**
** An oracle decides what the structure allows. It refuses to run a case
** that is well-formed but describes memory outside the test's buffer: no
** importer can tell such a tensor from a valid one, so it would only test
** the fuzzer. WNN_FUZZ_CASES and WNN_FUZZ_SEED override the defaults.
*/
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/dlpack.h"
#include "wnn/wnn.h"

#define BUFFER_BYTES 4096
#define MAX_COPY_BYTES (1u << 20)

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

static uint64_t below(uint64_t n) { return rnd() % n; }
static bool chance(unsigned percent) { return below(100) < percent; }
#define PICK(pool) (pool)[below(sizeof(pool) / sizeof((pool)[0]))]

/* ---- a foreign tensor that counts its deleter calls ------------------------- */

typedef struct fuzz_tensor {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    int64_t shape[16];
    int64_t strides[16];
    unsigned char *buffer;
    atomic_int deleted;
} fuzz_tensor;

static void on_delete_v(DLManagedTensorVersioned *m) { atomic_fetch_add(&((fuzz_tensor *)m->manager_ctx)->deleted, 1); }
static void on_delete_l(DLManagedTensor *m) { atomic_fetch_add(&((fuzz_tensor *)m->manager_ctx)->deleted, 1); }

/* ---- the oracle --------------------------------------------------------------- */

/* Bytes per element of a (code, bits, lanes) wnn accepts, 0 otherwise. */
static unsigned element_size(DLDataType t, bool bool_as_uint8)
{
    if (t.lanes != 1)
        return 0;
    switch (t.code) {
    case kDLInt:
    case kDLUInt:
        return t.bits == 8 || t.bits == 32 || t.bits == 64 ? t.bits / 8 : 0;
    case kDLFloat:
        return t.bits == 16 || t.bits == 32 ? t.bits / 8 : 0;
    case kDLBool:
        return bool_as_uint8 && t.bits == 8 ? 1 : 0;
    default:
        return 0;
    }
}

typedef enum verdict { MUST_FAIL, MAY_PASS, UNSAFE } verdict;

static bool fits(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

/* What the structure allows, judged on its own. */
static verdict judge(const DLTensor *dl, uint64_t flags, bool versioned, uint32_t major,
                     const wnn_dlpack_import_options *o, bool null_device, const unsigned char *buffer)
{
    if ((versioned && major != 1) || (unsigned)o->copy > WNN_DLPACK_COPY_NEVER)
        return MUST_FAIL;
    if (dl->ndim < 0 || dl->ndim > WNN_MAX_RANK || (dl->ndim > 0 && !dl->shape))
        return MUST_FAIL;
    __int128 count = 1;
    for (int i = 0; i < dl->ndim; i++) {
        if (dl->shape[i] < 1 || dl->shape[i] > INT32_MAX)
            return MUST_FAIL;
        count *= dl->shape[i];
        if (count > INT32_MAX)
            return MUST_FAIL;
    }
    unsigned es = element_size(dl->dtype, o->bool_as_uint8);
    if (!es || (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED))
        return MUST_FAIL;
    int32_t type = (int32_t)dl->device.device_type;
    if (type != kDLCPU && type != kDLCUDAHost && type != kDLROCMHost)
        return MUST_FAIL; /* foreign device memory: no wnn export here */
    if (!dl->data)
        return MUST_FAIL;
    __int128 lo = 0, hi = 0;
    int64_t step = 1;
    for (int i = dl->ndim; i-- > 0;) {
        __int128 s = dl->strides ? dl->strides[i] : step, reach = (__int128)(dl->shape[i] - 1) * s;
        if (!fits(reach))
            return MUST_FAIL;
        if (reach < 0)
            lo += reach;
        else
            hi += reach;
        if (!fits(lo) || !fits(hi))
            return MUST_FAIL;
        step *= dl->shape[i];
    }
    __int128 first = (__int128)dl->byte_offset + lo * es, last = (__int128)dl->byte_offset + (hi + 1) * es;
    if (dl->byte_offset > INT64_MAX || !fits(lo * es) || !fits(first) || !fits(last))
        return MUST_FAIL;
    __int128 data = (__int128)(uintptr_t)dl->data;
    if (data + first < 0 || data + last > (__int128)UINTPTR_MAX)
        return MUST_FAIL;
    /* well-formed: it will be read, so it must be the test's own memory */
    if (data + first < (__int128)(uintptr_t)buffer || data + last > (__int128)(uintptr_t)(buffer + BUFFER_BYTES) ||
        count * es > MAX_COPY_BYTES)
        return UNSAFE;
    (void)null_device;
    return MAY_PASS;
}

/* ---- drawing a case ------------------------------------------------------------- */

static const int64_t dims[] = {1, 1, 2, 2, 3, 4, 5, 0, -1, -7, INT32_MAX, (int64_t)INT32_MAX + 1,
                               (int64_t)1 << 32, INT64_MAX, INT64_MIN, 65536};
static const int64_t strides[] = {1, 1, 2, 3, 0, -1, -2, -3, 7, 64, 1000, INT32_MAX, INT64_MAX, INT64_MIN,
                                  (int64_t)1 << 40, -((int64_t)1 << 40)};
static const uint64_t offsets[] = {0, 0, 0, 0, 1, 2, 4, 8, 16, 64, 1024, BUFFER_BYTES, INT64_MAX,
                                   (uint64_t)INT64_MAX + 1, UINT64_MAX, UINT64_MAX - 3};
/* dimensions that are either small or invalid: a valid huge one over a zero
** stride would be a legitimate multi-gigabyte copy */
static const int64_t bad_dims[] = {0, -1, -7, (int64_t)INT32_MAX + 1, (int64_t)1 << 32, INT64_MAX, INT64_MIN};
static const int32_t ndims[] = {0, 1, 1, 2, 2, 3, 4, 8, 9, 16, -1, INT32_MIN, INT32_MAX};
static const uint8_t bits[] = {8, 16, 32, 64, 0, 1, 4, 6, 128, 255};
static const uint16_t lanes[] = {1, 1, 1, 1, 0, 2, 4, 65535};
static const DLDevice devices[] = {{kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0},
                                   {kDLCPU, 0}, {kDLCPU, 0}, {kDLCUDAHost, 0}, {kDLROCMHost, 1},
                                   {kDLCPU, 7},  {kDLCUDA, 0}, {kDLExtDev, 0}, {kDLOpenCL, 0},
                                   {(DLDeviceType)0, 0}, {(DLDeviceType)-1, 5}, {(DLDeviceType)99, 1}};
static const uint32_t majors[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 2, UINT32_MAX};

static void draw(fuzz_tensor *f, bool *legacy, wnn_dlpack_import_options *o)
{
    memset(f->buffer, 0x5a, BUFFER_BYTES);
    DLTensor dl = {0};
    dl.ndim = chance(80) ? (int32_t)below(4) : PICK(ndims);
    for (int i = 0; i < 16; i++) {
        f->shape[i] = chance(75) ? (int64_t)(1 + below(4)) : PICK(dims);
        f->strides[i] = chance(60) ? (int64_t)(1 + below(8)) : PICK(strides);
    }
    dl.shape = chance(95) ? f->shape : NULL;
    dl.strides = chance(40) ? NULL : f->strides;
    static const DLDataType webnn[] = {{kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLInt, 32, 1}, {kDLUInt, 32, 1},
                                       {kDLInt, 64, 1},   {kDLUInt, 64, 1},  {kDLInt, 8, 1},  {kDLUInt, 8, 1}};
    dl.dtype = chance(60)   ? PICK(webnn)
               : chance(60) ? (DLDataType){(uint8_t)below(3), PICK(bits), 1}
                            : (DLDataType){(uint8_t)below(20), PICK(bits), PICK(lanes)};
    if (chance(10))
        dl.dtype = (DLDataType){kDLBool, 8, 1};
    dl.device = PICK(devices);
    dl.byte_offset = PICK(offsets);
    dl.data = chance(5) ? NULL : f->buffer + (chance(85) ? 0 : below(64));
    f->v = (DLManagedTensorVersioned){{PICK(majors), (uint32_t)below(5)}, f, on_delete_v, 0, dl};
    if (chance(20))
        f->v.flags = rnd() & 7;
    f->l = (DLManagedTensor){dl, f, on_delete_l};
    *legacy = chance(25);
    *o = (wnn_dlpack_import_options)WNN_DLPACK_IMPORT_OPTIONS_INIT;
    o->legacy = *legacy;
    o->copy = chance(90) ? (wnn_dlpack_copy)below(3) : (wnn_dlpack_copy)(3 + below(5));
    o->bool_as_uint8 = chance(50);
    o->readable = true;
}

static void use(wnn_context *ctx, wnn_tensor *t)
{
    static unsigned char sink[MAX_COPY_BYTES];
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, sink, sizeof sink));
    wnn_tensor_release(t);
}

static bool known_refusal(wnn_status s)
{
    switch (s) {
    case WNN_STATUS_INVALID_ARGUMENT:
    case WNN_STATUS_INVALID_DIMENSION:
    case WNN_STATUS_INVALID_RANK:
    case WNN_STATUS_TOO_MANY_ELEMENTS:
    case WNN_STATUS_UNSUPPORTED_DATA_TYPE:
    case WNN_STATUS_UNSUPPORTED_DEVICE:
    case WNN_STATUS_UNSUPPORTED_VERSION:
    case WNN_STATUS_COPY_FORBIDDEN:
        return true;
    default:
        return false;
    }
}

static void fuzz_foreign(wnn_context *ctx, bool null_device, int cases, int *ran, int *passed)
{
    fuzz_tensor *f = calloc(1, sizeof *f);
    f->buffer = aligned_alloc(64, BUFFER_BYTES);
    for (int i = 0; i < cases; i++) {
        bool legacy;
        wnn_dlpack_import_options o;
        draw(f, &legacy, &o);
        atomic_store(&f->deleted, 0);
        const DLTensor *dl = legacy ? &f->l.dl_tensor : &f->v.dl_tensor;
        verdict v = judge(dl, legacy ? 0 : f->v.flags, !legacy, f->v.version.major, &o, null_device, f->buffer);
        if (v == UNSAFE)
            continue;
        (*ran)++;
        wnn_tensor *t = (wnn_tensor *)1;
        wnn_status s = wnn_context_import_dlpack(ctx, legacy ? (void *)&f->l : (void *)&f->v, &o, &t);
        if (s == WNN_OK) {
            (*passed)++;
            CHECK(v == MAY_PASS);
            if (v != MAY_PASS)
                fprintf(stderr, "case %d: accepted what the oracle refuses\n", i);
            use(ctx, t);
        } else {
            CHECK(t == NULL);
            CHECK(known_refusal(s));
            if (v == MAY_PASS)
                CHECK_STATUS(s, WNN_STATUS_COPY_FORBIDDEN);
        }
        CHECK_OK(wnn_context_finish(ctx));
        CHECK_EQ_INT(atomic_load(&f->deleted), 1);
    }
    free(f->buffer);
    free(f);
}

/* Real exports with fields rewritten: the import must check the view
** against the memory wnn exported. Shape and strides move to arrays as long
** as any ndim drawn. */
static void fuzz_exports(wnn_context *ctx, int cases)
{
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 3, {2, 3, 4}, true, true, false};
    wnn_tensor *src = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &src));
    int64_t sh[16], st[16];
    for (int i = 0; i < cases; i++) {
        wnn_dlpack_export_options eo = WNN_DLPACK_EXPORT_OPTIONS_INIT;
        eo.legacy = chance(25);
        eo.copy = chance(20) ? WNN_DLPACK_COPY_ALWAYS : WNN_DLPACK_COPY_IF_NEEDED;
        eo.device_type = chance(20) ? kDLCPU : 0;
        eo.has_stream = chance(20);
        eo.stream = WNN_DLPACK_STREAM_NO_SYNC;
        void *m = NULL;
        CHECK_OK(wnn_tensor_export_dlpack(src, &eo, &m));
        if (!m)
            continue;
        DLTensor *dl = eo.legacy ? &((DLManagedTensor *)m)->dl_tensor : &((DLManagedTensorVersioned *)m)->dl_tensor;
        for (int k = 0; k < 16; k++) {
            sh[k] = k < dl->ndim ? dl->shape[k] : 1;
            st[k] = k < dl->ndim ? dl->strides[k] : 1;
        }
        dl->shape = sh;
        dl->strides = st;
        int edits = 1 + (int)below(3);
        while (edits--) {
            switch (below(8)) {
            case 0: dl->ndim = chance(70) ? (int32_t)below(5) : PICK(ndims); break;
            case 1: sh[below(4)] = chance(70) ? (int64_t)(1 + below(4)) : PICK(bad_dims); break;
            case 2: st[below(4)] = chance(70) ? (int64_t)below(13) - 6 : PICK(strides); break;
            case 3: dl->byte_offset = chance(70) ? 4 * below(30) : PICK(offsets); break;
            case 4: dl->data = (char *)dl->data + (chance(50) ? 4 : -4) * (int64_t)below(3); break;
            case 5: dl->dtype = (DLDataType){(uint8_t)below(3), PICK(bits), 1}; break;
            case 6: if (!eo.legacy) ((DLManagedTensorVersioned *)m)->version.major = PICK(majors); break;
            case 7: dl->device = PICK(devices); break;
            }
        }
        wnn_dlpack_import_options io = WNN_DLPACK_IMPORT_OPTIONS_INIT;
        io.legacy = eo.legacy;
        io.copy = (wnn_dlpack_copy)below(3);
        wnn_tensor *t = NULL;
        wnn_status s = wnn_context_import_dlpack(ctx, m, &io, &t);
        if (s == WNN_OK) {
            uint64_t n = wnn_tensor_byte_length(t);
            CHECK(n <= MAX_COPY_BYTES);
            use(ctx, t);
        } else {
            CHECK(known_refusal(s));
        }
    }
    wnn_tensor_release(src);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_memory_stats stats;
    wnn_context_get_memory_stats(ctx, &stats);
    CHECK_EQ_INT(stats.in_use_bytes, 0); /* every export came back */
}

int main(void)
{
    const char *env = getenv("WNN_FUZZ_CASES");
    int cases = env ? atoi(env) : 3000;
    env = getenv("WNN_FUZZ_SEED");
    rng_state = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ull;
    if (!rng_state)
        rng_state = 1;
    static const char *const names[] = {"cpu", "null"};
    for (int i = 0; i < 2; i++) {
        wnn_context_options co = WNN_CONTEXT_OPTIONS_INIT;
        co.device = names[i];
        wnn_context *ctx = NULL;
        CHECK_OK(wnn_context_create(&co, &ctx));
        if (!ctx)
            continue;
        int ran = 0, passed = 0;
        fuzz_foreign(ctx, i == 1, cases, &ran, &passed);
        fuzz_exports(ctx, cases / 3);
        printf("%s: %d foreign cases run (%d imported), %d skipped as unsafe, %d rewritten exports\n", names[i],
               ran, passed, cases - ran, cases / 3);
        CHECK(passed > 0 && ran - passed > 0); /* both outcomes were exercised */
        wnn_context_release(ctx);
    }
    TEST_DONE();
}
