/*
** fuzz_dlpack.c -- libFuzzer harness for DLPack import and export
** (docs/dlpack.md, docs/fuzzing.md).
**
** The bytes describe a foreign managed tensor, versioned or legacy: its
** version, rank, shape, strides (NULL, negative, zero, overflowing), byte
** offset, data type, device, flags and data pointer over a buffer of this
** harness, plus the import options. wnn_context_import_dlpack on the cpu or
** the null device must then:
**   - call the deleter exactly once, with the tensor it was given: before
**     returning on failure, by the time the tensor is released and the
**     context finished on success;
**   - refuse what the rules of wnn.h refuse (a bad version, rank, dimension,
**     element count, data type, device, NULL data, overflowing strides),
**     with a known status and a NULL tensor;
**   - on success make a tensor of the right descriptor whose bytes are the
**     elements the view selects (gathered here from the buffer).
** A successful import is exported again (options from the bytes); the export
** is checked, read when it is host memory, then either released through its
** deleter or rewritten (rank, shape, strides, offset, data, type, version,
** device) and imported again, which must refuse any view outside the memory
** wnn exported. At the end no device memory may be in use.
**
** A well-formed foreign tensor that points outside the harness's buffer is
** not run: no importer can tell it from a valid one, so it would only test
** the harness (the rules below decide which that is).
*/
#include <stdatomic.h>

#define FUZZ_NAME "fuzz_dlpack"
#include "fuzz_common.h"
#include "wnn/dlpack.h"

#define BUFFER_BYTES 4096
#define MAX_COPY (1u << 20) /* larger (zero-stride) views are legitimate but slow */
#define MAX_DIMS 16

#define PICK(r, table) ((table)[take(r) % COUNT(table)])

/* ---- the foreign tensor ------------------------------------------------------ */

typedef struct foreign {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    int64_t shape[MAX_DIMS];
    int64_t strides[MAX_DIMS];
    atomic_int deleted;
    atomic_int wrong;       /* deleter called with another pointer */
} foreign;

static foreign g_tensor;
static unsigned char *g_buffer;

static void delete_versioned(DLManagedTensorVersioned *m)
{
    foreign *f = m->manager_ctx;
    atomic_fetch_add(&f->deleted, 1);
    if (m != &f->v)
        atomic_fetch_add(&f->wrong, 1);
}

static void delete_legacy(DLManagedTensor *m)
{
    foreign *f = m->manager_ctx;
    atomic_fetch_add(&f->deleted, 1);
    if (m != &f->l)
        atomic_fetch_add(&f->wrong, 1);
}

/* ---- the rules ---------------------------------------------------------------- */

/* Bytes per element of a DLPack type wnn takes, and the wnn type; 0 otherwise. */
static unsigned element_bytes(DLDataType t, bool bool_as_uint8, wnn_data_type *type)
{
    if (t.lanes != 1)
        return 0;
    static const wnn_data_type ints[4] = {WNN_DATA_TYPE_INT8, WNN_DATA_TYPE_INVALID, WNN_DATA_TYPE_INT32,
                                          WNN_DATA_TYPE_INT64};
    static const wnn_data_type uints[4] = {WNN_DATA_TYPE_UINT8, WNN_DATA_TYPE_INVALID, WNN_DATA_TYPE_UINT32,
                                           WNN_DATA_TYPE_UINT64};
    int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
    if (k < 0)
        return 0;
    switch (t.code) {
    case kDLInt: *type = ints[k]; break;
    case kDLUInt: *type = uints[k]; break;
    case kDLFloat:
        *type = k == 1 ? WNN_DATA_TYPE_FLOAT16 : k == 2 ? WNN_DATA_TYPE_FLOAT32 : WNN_DATA_TYPE_INVALID;
        break;
    case kDLBool: *type = bool_as_uint8 && k == 0 ? WNN_DATA_TYPE_UINT8 : WNN_DATA_TYPE_INVALID; break;
    default: return 0;
    }
    return *type == WNN_DATA_TYPE_INVALID ? 0 : t.bits / 8u;
}

typedef enum verdict { MUST_FAIL, MAY_PASS, NOT_RUN } verdict;

typedef struct view {
    uint64_t count;         /* elements */
    unsigned es;            /* bytes per element */
    wnn_data_type type;
    __int128 first;         /* byte offsets from data of the lowest and past the highest element */
    __int128 last;
} view;

static bool in_int64(__int128 v) { return v >= INT64_MIN && v <= INT64_MAX; }

/* What the rules of wnn.h say of a foreign tensor, judged on its own. */
static verdict judge(const DLTensor *dl, bool versioned, uint32_t major, uint64_t flags,
                     const wnn_dlpack_import_options *o, view *w)
{
    if (versioned && major != 1)
        return MUST_FAIL;
    if ((unsigned)o->copy > WNN_DLPACK_COPY_NEVER)
        return MUST_FAIL;
    if (dl->ndim < 0 || dl->ndim > WNN_MAX_RANK || (dl->ndim > 0 && dl->shape == NULL))
        return MUST_FAIL;
    w->count = 1;
    for (int i = 0; i < dl->ndim; i++) {
        if (dl->shape[i] < 1 || dl->shape[i] > (int64_t)WNN_MAX_DIMENSION)
            return MUST_FAIL;
        w->count *= (uint64_t)dl->shape[i];
        if (w->count > WNN_MAX_DIMENSION)
            return MUST_FAIL;
    }
    w->es = element_bytes(dl->dtype, o->bool_as_uint8, &w->type);
    if (w->es == 0 || (versioned && (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)))
        return MUST_FAIL;
    int32_t dev = (int32_t)dl->device.device_type;
    if (dev != kDLCPU && dev != kDLCUDAHost && dev != kDLROCMHost)
        return MUST_FAIL; /* device memory wnn did not export */
    if (dl->data == NULL)
        return MUST_FAIL;
    /* element offsets of the lowest and highest element selected */
    __int128 lo = 0, hi = 0, compact = 1;
    for (int i = dl->ndim - 1; i >= 0; i--) {
        __int128 stride = dl->strides ? dl->strides[i] : compact;
        __int128 reach = stride * (dl->shape[i] - 1);
        if (!in_int64(reach))
            return MUST_FAIL;
        if (reach < 0)
            lo += reach;
        else
            hi += reach;
        if (!in_int64(lo) || !in_int64(hi))
            return MUST_FAIL;
        compact *= dl->shape[i];
    }
    if (dl->byte_offset > INT64_MAX || !in_int64(lo * w->es))
        return MUST_FAIL;
    w->first = (__int128)dl->byte_offset + lo * w->es;
    w->last = (__int128)dl->byte_offset + (hi + 1) * w->es;
    if (!in_int64(w->first) || !in_int64(w->last))
        return MUST_FAIL;
    __int128 base = (__int128)(uintptr_t)dl->data;
    if (base + w->first < 0 || base + w->last > (__int128)UINTPTR_MAX)
        return MUST_FAIL;
    if (base + w->first < (__int128)(uintptr_t)g_buffer ||
        base + w->last > (__int128)(uintptr_t)(g_buffer + BUFFER_BYTES) || w->count * w->es > MAX_COPY)
        return NOT_RUN;
    return MAY_PASS;
}

/* The bytes of the elements dl selects, in row-major order. */
static void gather(const DLTensor *dl, const view *w, unsigned char *out)
{
    int64_t index[WNN_MAX_RANK] = {0};
    const unsigned char *base = (const unsigned char *)dl->data + dl->byte_offset;
    for (uint64_t e = 0; e < w->count; e++) {
        int64_t off = 0, compact = 1;
        for (int i = dl->ndim - 1; i >= 0; i--) {
            off += index[i] * (dl->strides ? dl->strides[i] : compact);
            compact *= dl->shape[i];
        }
        memcpy(out + e * w->es, base + off * (int64_t)w->es, w->es);
        for (int i = dl->ndim - 1; i >= 0; i--) {
            if (++index[i] < dl->shape[i])
                break;
            index[i] = 0;
        }
    }
}

static bool known_refusal(wnn_status s)
{
    return wnn_status_class(s) == WNN_STATUS_TYPE_ERROR || wnn_status_class(s) == WNN_STATUS_NOT_SUPPORTED;
}

/* ---- drawing the tensor ------------------------------------------------------------ */

static const int64_t dims[16] = {0, -1, -7, 5, 8, 65536, INT32_MAX, (int64_t)INT32_MAX + 1,
                                 (int64_t)1 << 32, INT64_MAX, INT64_MIN, 3037000500, 46341, 1 << 20, 9, 2};
static const int64_t wild_strides[16] = {0, -1, 1, INT32_MAX, INT64_MAX, INT64_MIN, (int64_t)1 << 40,
                                         -((int64_t)1 << 40), 1000, -1000, 64, (int64_t)1 << 62,
                                         -((int64_t)1 << 62), 4096, -4096, 3};
static const uint64_t offsets[16] = {0, 0, 0, 0, 1, 2, 3, 4, 8, 64, 4095, BUFFER_BYTES,
                                     INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX, UINT64_MAX - 7};
static const int32_t ndims[8] = {-1, INT32_MIN, 9, 16, 8, 5, INT32_MAX, 6};
static const uint32_t majors[8] = {1, 1, 1, 1, 1, 0, 2, UINT32_MAX};
static const DLDataType webnn_types[8] = {{kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLInt, 32, 1},
                                          {kDLUInt, 32, 1},  {kDLInt, 64, 1},   {kDLUInt, 64, 1},
                                          {kDLInt, 8, 1},    {kDLUInt, 8, 1}};
static const uint8_t bits[8] = {0, 1, 4, 8, 16, 32, 64, 128};
static const uint16_t lanes[4] = {1, 0, 2, 65535};
static const DLDevice devices[16] = {{kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0},
                                     {kDLCPU, 0}, {kDLCPU, 0}, {kDLCPU, 0}, {kDLCUDAHost, 0}, {kDLROCMHost, 2},
                                     {kDLCPU, 3}, {kDLCUDA, 0}, {kDLExtDev, 0}, {kDLOpenCL, 1},
                                     {(DLDeviceType)0, 0}, {(DLDeviceType)-5, -1}};

static DLTensor draw(reader *r, foreign *f)
{
    DLTensor dl;
    memset(&dl, 0, sizeof dl);
    uint8_t b = take(r);
    dl.ndim = b < 0xf0 ? b % 5 : ndims[b & 7];
    for (int i = 0; i < MAX_DIMS; i++) {
        b = take(r);
        f->shape[i] = b < 0xf0 ? 1 + b % 4 : dims[b & 15];
        b = take(r);
        f->strides[i] = b < 0xe0 ? (int64_t)(b % 17) - 8 : wild_strides[b & 15];
        if (i >= 3 && r->n == 0)
            break;
    }
    b = take(r);
    dl.shape = b == 0xff ? NULL : f->shape;
    dl.strides = b & 1 ? NULL : f->strides;
    if ((b & 6) == 6) /* compact strides, so that wrapping (no copy) happens often */
        for (int64_t i = dl.ndim < MAX_DIMS ? dl.ndim : MAX_DIMS, step = 1; i-- > 0;) {
            f->strides[i] = step;
            step *= f->shape[i] > 0 && f->shape[i] < 1000 ? f->shape[i] : 1;
        }
    b = take(r);
    dl.dtype = b < 0xc0 ? webnn_types[b & 7]
               : b < 0xe0 ? (DLDataType){kDLBool, 8, 1}
                          : (DLDataType){(uint8_t)(take(r) % 20), PICK(r, bits), PICK(r, lanes)};
    dl.device = PICK(r, devices);
    b = take(r);
    dl.byte_offset = b < 0xc0 ? 0 : offsets[b & 15];
    b = take(r);
    dl.data = b == 0xff ? NULL : g_buffer + (b < 0xc0 ? 0 : b & 63);
    return dl;
}

/* ---- after a successful import -------------------------------------------------------- */

static wnn_context *g_ctx[2];

/* The export of t, checked; rewritten and imported again, or released. */
static void export_again(reader *r, wnn_context *ctx, wnn_tensor *t, const unsigned char *want, size_t bytes)
{
    wnn_dlpack_export_options eo = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    uint8_t b = take(r);
    eo.legacy = b & 1;
    eo.copy = (wnn_dlpack_copy)((b >> 1) % 3);
    eo.device_type = b & 8 ? kDLCPU : 0;
    eo.has_stream = b & 16;
    eo.stream = WNN_DLPACK_STREAM_NO_SYNC;
    void *m = NULL;
    wnn_status s = wnn_tensor_export_dlpack(t, &eo, &m);
    if (s != WNN_OK) {
        if (m != NULL || !known_refusal(s))
            fail("export: %s with %p (%s)", wnn_status_string(s), m, wnn_last_error_message());
        return;
    }
    DLManagedTensorVersioned *mv = eo.legacy ? NULL : m;
    DLManagedTensor *ml = eo.legacy ? m : NULL;
    DLTensor *dl = eo.legacy ? &ml->dl_tensor : &mv->dl_tensor;
    wnn_tensor_desc d;
    wnn_tensor_get_desc(t, &d);
    if (dl->ndim != (int32_t)d.rank || dl->byte_offset != 0 || dl->dtype.lanes != 1 || !dl->strides)
        fail("export: ndim %d, byte_offset %llu for a tensor of rank %u", dl->ndim,
             (unsigned long long)dl->byte_offset, d.rank);
    int64_t step = 1;
    for (int i = (int)d.rank - 1; i >= 0; i--) {
        if (dl->shape[i] != d.shape[i] || dl->strides[i] != step)
            fail("export: dimension %d is %lld (stride %lld), want %u", i, (long long)dl->shape[i],
                 (long long)dl->strides[i], d.shape[i]);
        step *= dl->shape[i];
    }
    bool host = dl->device.device_type == kDLCPU;
    if (eo.has_stream && wnn_context_finish(ctx) != WNN_OK) /* no sync: the consumer waits */
        fail("finish after an export: %s", wnn_last_error_message());
    if (host && want != NULL && memcmp(dl->data, want, bytes) != 0)
        fail("export: the exported bytes differ from the imported ones");
    if (take(r) & 1) {
        if (eo.legacy)
            ml->deleter(ml);
        else
            mv->deleter(mv);
        return;
    }
    /* rewrite some fields and import the export again */
    static int64_t shape[MAX_DIMS], strides[MAX_DIMS];
    for (int i = 0; i < MAX_DIMS; i++) {
        shape[i] = i < dl->ndim ? dl->shape[i] : 1;
        strides[i] = i < dl->ndim ? dl->strides[i] : 1;
    }
    dl->shape = shape;
    dl->strides = strides;
    for (int edits = 1 + take(r) % 3; edits > 0; edits--) {
        uint8_t e = take(r), v = take(r);
        switch (e % 8) {
        case 0: dl->ndim = v < 0xf0 ? v % 5 : ndims[v & 7]; break;
        case 1: shape[e / 8 % 4] = v < 0xf0 ? 1 + v % 4 : dims[v & 15]; break;
        case 2: strides[e / 8 % 4] = v < 0xe0 ? (int64_t)(v % 13) - 6 : wild_strides[v & 15]; break;
        case 3: dl->byte_offset = v < 0xf0 ? (uint64_t)(v % 32) * 4 : offsets[v & 15]; break;
        case 4: dl->data = (char *)dl->data + ((int)(v % 9) - 4) * 4; break;
        case 5: dl->dtype = v < 0xc0 ? webnn_types[v & 7] : (DLDataType){(uint8_t)(v % 3), bits[v & 7], 1}; break;
        case 6:
            if (mv)
                mv->version.major = majors[v & 7];
            break;
        default: dl->device = devices[v & 15]; break;
        }
    }
    wnn_dlpack_import_options io = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    io.legacy = eo.legacy;
    io.copy = (wnn_dlpack_copy)(take(r) % 3);
    wnn_context *to = take(r) & 1 ? g_ctx[0] : ctx;
    wnn_tensor *t2 = (wnn_tensor *)&io; /* must come back NULL on failure */
    s = wnn_context_import_dlpack(to, m, &io, &t2);
    if (s != WNN_OK) {
        if (t2 != NULL || !known_refusal(s))
            fail("import of a rewritten export: %s, tensor %p", wnn_status_string(s), (void *)t2);
        return;
    }
    uint64_t n = wnn_tensor_byte_length(t2);
    if (n > MAX_COPY) {
        /* a zero-stride view of a small export may describe a large tensor
        ** legitimately (the import read only the export's bytes: ASan
        ** watches that); it is only not read back here, to keep runs fast */
        wnn_tensor_release(t2);
        return;
    }
    unsigned char *sink = malloc(n ? n : 1);
    s = wnn_context_read_tensor_sync(to, t2, sink, n);
    if (s != WNN_OK && s != WNN_STATUS_NOT_READABLE)
        fail("read of a rewritten export's import: %s (%s)", wnn_status_string(s), wnn_last_error_message());
    free(sink);
    wnn_tensor_release(t2);
}

/* ---- the entry points ---------------------------------------------------------------------- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_one_thread();
    static const char *const names[2] = {"cpu", "null"};
    for (int i = 0; i < 2; i++)
        g_ctx[i] = fuzz_context(names[i], 0);
    g_buffer = aligned_alloc(64, BUFFER_BYTES);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    foreign *f = &g_tensor;
    uint8_t mode = take(&r);
    wnn_context *ctx = g_ctx[mode & 1];
    bool legacy = mode & 2;
    for (size_t i = 0; i < BUFFER_BYTES; i++)
        g_buffer[i] = (unsigned char)(i * 37u + mode);
    DLTensor dl = draw(&r, f);
    uint8_t b = take(&r);
    f->v = (DLManagedTensorVersioned){{PICK(&r, majors), take(&r)}, f, delete_versioned, 0, dl};
    if (b & 1)
        f->v.flags = take(&r) & 7;
    f->l = (DLManagedTensor){dl, f, delete_legacy};
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    o.legacy = legacy;
    b = take(&r);
    o.copy = (wnn_dlpack_copy)(b < 0xf0 ? b % 3 : 3 + b % 5);
    o.readable = !(b & 0x40) || (b & 0x10);
    o.writable = b & 0x20;
    o.bool_as_uint8 = b & 0x80;
    view w = {0};
    verdict v = judge(&dl, !legacy, f->v.version.major, f->v.flags, &o, &w);
    if (v == NOT_RUN)
        return 0;
    atomic_store(&f->deleted, 0);
    atomic_store(&f->wrong, 0);
    void *managed = legacy ? (void *)&f->l : (void *)&f->v;
    bool null_options = (mode & 0x1c) == 0x1c;
    if (null_options) /* NULL options: versioned, copy if needed, readable and writable */
        o = (wnn_dlpack_import_options)WNN_DLPACK_IMPORT_OPTIONS_INIT;
    if (null_options && legacy)
        return 0; /* a legacy struct read as a versioned one: the caller's bug */
    if (null_options)
        v = judge(&dl, true, f->v.version.major, f->v.flags, &o, &w);
    if (v == NOT_RUN)
        return 0;
    wnn_tensor *t = (wnn_tensor *)f; /* must come back NULL on failure */
    wnn_status s = wnn_context_import_dlpack(ctx, managed, null_options ? NULL : &o, &t);
    if (s != WNN_OK) {
        if (t != NULL || !known_refusal(s))
            fail("import refused with %s and tensor %p (%s)", wnn_status_string(s), (void *)t,
                 wnn_last_error_message());
        if (v == MAY_PASS && s != WNN_STATUS_COPY_FORBIDDEN)
            fail("import refused a valid tensor: %s (%s)", wnn_status_string(s), wnn_last_error_message());
        if (atomic_load(&f->deleted) != 1 || atomic_load(&f->wrong) != 0)
            fail("failed import: the deleter ran %d times (%d with another tensor)", atomic_load(&f->deleted),
                 atomic_load(&f->wrong));
        return 0;
    }
    if (v != MAY_PASS)
        fail("import accepted what the rules refuse (%s)", wnn_last_error_message());
    wnn_tensor_desc d;
    wnn_tensor_get_desc(t, &d);
    if (d.data_type != w.type || d.rank != (uint32_t)dl.ndim)
        fail("import made a %s tensor of rank %u from a rank-%d view", wnn_data_type_name(d.data_type), d.rank,
             dl.ndim);
    for (int i = 0; i < dl.ndim; i++)
        if (d.shape[i] != (uint64_t)dl.shape[i])
            fail("import: dimension %d is %u, the view has %lld", i, d.shape[i], (long long)dl.shape[i]);
    size_t bytes = (size_t)(w.count * w.es);
    unsigned char *want = malloc(bytes), *got = malloc(bytes);
    gather(&dl, &w, want);
    bool read = false;
    if (d.readable) {
        s = wnn_context_read_tensor_sync(ctx, t, got, bytes);
        if (s != WNN_OK)
            fail("read of an import: %s (%s)", wnn_status_string(s), wnn_last_error_message());
        read = true;
    }
    if (read && memcmp(got, want, bytes) != 0)
        fail("the imported tensor's bytes differ from the view's elements");
    export_again(&r, ctx, t, want, bytes);
    wnn_tensor_release(t);
    free(want);
    free(got);
    for (int i = 0; i < 2; i++)
        fuzz_check_memory(g_ctx[i], i == 0 ? "cpu" : "null", true);
    if (atomic_load(&f->deleted) != 1 || atomic_load(&f->wrong) != 0)
        fail("import: the deleter ran %d times (%d with another tensor)", atomic_load(&f->deleted),
             atomic_load(&f->wrong));
    return 0;
}
