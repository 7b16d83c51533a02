/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-dlpack.c -- DLPack interop through the public API: the ABI layout,
** export of every data type on the cpu and null devices, zero-copy round
** trips (same pointer, writes seen both ways, across contexts), strides and
** byte offsets on import, legacy and versioned structs, read-only constants,
** deleter lifetimes (exactly once, from another thread, after the tensor or
** its context is gone), copies to host with the copied flag, streams on the
** null device, and every refusal with its status and its deleter call.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "platform/config.h"
#include "test.h"
#include "wnn/dlpack.h"
#include "wnn/wnn.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const devices[] = {"cpu", "null"};

static wnn_context *new_context(const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_context *ctx = NULL;
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a %s context: %s\n", device, wnn_last_error_message());
        exit(1);
    }
    return ctx;
}

static wnn_tensor *make(wnn_context *ctx, wnn_data_type type, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = type;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    d.readable = d.writable = true;
    wnn_tensor *t = NULL;
    if (wnn_context_create_tensor(ctx, &d, &t) != WNN_OK) {
        fprintf(stderr, "create_tensor: %s\n", wnn_last_error_message());
        exit(1);
    }
    return t;
}

static wnn_tensor *make_f32(wnn_context *ctx, uint32_t rank, const uint32_t *shape, const float *values)
{
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, rank, shape);
    if (values)
        CHECK_OK(wnn_context_write_tensor(ctx, t, values, wnn_tensor_byte_length(t)));
    return t;
}

static DLManagedTensorVersioned *export_v(wnn_tensor *t, const wnn_dlpack_export_options *o)
{
    void *m = NULL;
    wnn_status s = wnn_tensor_export_dlpack(t, o, &m);
    CHECK_OK(s);
    return m;
}

static void drop(DLManagedTensorVersioned *m)
{
    if (m)
        m->deleter(m);
}

static uint64_t in_use(wnn_context *ctx)
{
    wnn_memory_stats st;
    wnn_context_get_memory_stats(ctx, &st);
    return st.in_use_bytes;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- foreign managed tensors (what another framework would hand over) ---- */

/* Deleter calls per foreign tensor (copies call theirs on the timeline, so
** a total could move while another import is checked). */
#define MAX_FOREIGN 4096
static atomic_int deleted_by_id[MAX_FOREIGN];
static int foreign_count;

typedef struct foreign {
    DLManagedTensorVersioned v;
    DLManagedTensor l;
    int64_t shape[16];
    int64_t strides[16];
    void *buffer;
    int id;
} foreign;

static void foreign_free(foreign *f)
{
    atomic_fetch_add(&deleted_by_id[f->id], 1);
    free(f->buffer);
    free(f);
}
static void foreign_delete_v(DLManagedTensorVersioned *m) { foreign_free(m->manager_ctx); }
static void foreign_delete_l(DLManagedTensor *m) { foreign_free(m->manager_ctx); }

/* A host tensor of dtype and shape over a zeroed buffer of buffer_bytes;
** strides NULL means none given. */
static foreign *make_foreign(DLDataType dtype, int32_t ndim, const int64_t *shape, const int64_t *strides,
                             size_t buffer_bytes)
{
    foreign *f = calloc(1, sizeof *f);
    f->buffer = calloc(1, buffer_bytes ? buffer_bytes : 1);
    if (foreign_count == MAX_FOREIGN)
        abort();
    f->id = foreign_count++;
    for (int32_t i = 0; i < ndim && i < 16; i++) {
        f->shape[i] = shape[i];
        f->strides[i] = strides ? strides[i] : 0;
    }
    DLTensor dl = {f->buffer, {kDLCPU, 0}, ndim, dtype, f->shape, strides ? f->strides : NULL, 0};
    f->v = (DLManagedTensorVersioned){{1, 0}, f, foreign_delete_v, 0, dl};
    f->l = (DLManagedTensor){dl, f, foreign_delete_l};
    return f;
}

static const DLDataType f32 = {kDLFloat, 32, 1};

static wnn_dlpack_import_options import_opts(bool legacy, wnn_dlpack_copy copy)
{
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    o.legacy = legacy;
    o.copy = copy;
    return o;
}

/* Imports f (versioned unless legacy), expecting want; checks that the
** deleter ran exactly once when the import failed. */
static wnn_tensor *import_foreign(wnn_context *ctx, foreign *f, const wnn_dlpack_import_options *o, wnn_status want)
{
    int id = f->id;
    wnn_tensor *t = (wnn_tensor *)1;
    bool legacy = o && o->legacy;
    wnn_status s = wnn_context_import_dlpack(ctx, legacy ? (void *)&f->l : (void *)&f->v, o, &t);
    CHECK_STATUS(s, want);
    if (s != WNN_OK) {
        CHECK(t == NULL);
        CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
        return NULL;
    }
    return t;
}

/* ---- 1. the ABI -------------------------------------------------------------- */

static void test_layout(void)
{
    CHECK_EQ_INT(sizeof(DLPackVersion), 8);
    CHECK_EQ_INT(sizeof(DLDevice), 8);
    CHECK_EQ_INT(sizeof(DLDataType), 4);
    CHECK_EQ_INT(sizeof(DLTensor), 48);
    CHECK_EQ_INT(offsetof(DLTensor, byte_offset), 40);
    CHECK_EQ_INT(sizeof(DLManagedTensor), 64);
    CHECK_EQ_INT(offsetof(DLManagedTensor, deleter), 56);
    CHECK_EQ_INT(sizeof(DLManagedTensorVersioned), 80);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, flags), 24);
    CHECK_EQ_INT(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    CHECK_EQ_INT(kDLCPU, 1);
    CHECK_EQ_INT(kDLCUDAHost, 3);
    CHECK_EQ_INT(kDLExtDev, 12);
    CHECK_EQ_INT(kDLCUDAManaged, 13);
    CHECK_EQ_INT(kDLTrn, 18);
    CHECK_EQ_INT(kDLBfloat, 4);
    CHECK_EQ_INT(kDLComplex, 5);
    CHECK_EQ_INT(kDLBool, 6);
    CHECK_EQ_INT(kDLFloat8_e5m2, 12);
    CHECK_EQ_INT(kDLFloat4_e2m1fn, 17);
    CHECK_EQ_INT(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
    CHECK_EQ_INT(DLPACK_FLAG_BITMASK_IS_COPIED, 2);
    CHECK_EQ_INT(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED, 4);
    CHECK_EQ_INT(DLPACK_MAJOR_VERSION, 1);
    CHECK_STATUS(wnn_status_class(WNN_STATUS_COPY_FORBIDDEN), WNN_STATUS_NOT_SUPPORTED);
    CHECK(strcmp(wnn_status_string(WNN_STATUS_UNSUPPORTED_DEVICE), "WNN_STATUS_UNSUPPORTED_DEVICE") == 0);
    CHECK(strcmp(wnn_status_string(WNN_STATUS_UNSUPPORTED_VERSION), "WNN_STATUS_UNSUPPORTED_VERSION") == 0);
}

/* ---- 2. export -------------------------------------------------------------- */

static void test_export_fields(const char *device)
{
    wnn_context *ctx = new_context(device);
    wnn_device_info info;
    wnn_context_get_device_info(ctx, &info);
    const float v[6] = {1, 2, 3, 4, 5, 6};
    wnn_tensor *t = make_f32(ctx, 2, (uint32_t[]){2, 3}, v);
    DLManagedTensorVersioned *m = export_v(t, NULL);
    if (m) {
        CHECK_EQ_INT(m->version.major, 1);
        CHECK_EQ_INT(m->version.minor, WNN_DLPACK_VERSION_MINOR);
        CHECK(m->manager_ctx != NULL);
        CHECK_EQ_INT(m->flags, 0);
        const DLTensor *dl = &m->dl_tensor;
        CHECK_EQ_INT(dl->device.device_type, info.dlpack_device_type);
        CHECK_EQ_INT(dl->device.device_id, info.dlpack_device_id);
        CHECK_EQ_INT(dl->ndim, 2);
        CHECK_EQ_INT(dl->dtype.code, kDLFloat);
        CHECK_EQ_INT(dl->dtype.bits, 32);
        CHECK_EQ_INT(dl->dtype.lanes, 1);
        CHECK_EQ_INT(dl->shape[0], 2);
        CHECK_EQ_INT(dl->shape[1], 3);
        CHECK(dl->strides != NULL);
        CHECK_EQ_INT(dl->strides[0], 3);
        CHECK_EQ_INT(dl->strides[1], 1);
        CHECK_EQ_INT(dl->byte_offset, 0);
        if (strcmp(device, "cpu") == 0) /* host memory, the tensor's own */
            CHECK(memcmp(dl->data, v, sizeof v) == 0);
        drop(m);
    }
    /* a scalar: ndim 0, one element */
    wnn_tensor *s = make_f32(ctx, 0, NULL, (float[]){7});
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCPU;
    if ((m = export_v(s, &o))) {
        CHECK_EQ_INT(m->dl_tensor.ndim, 0);
        CHECK_EQ_INT(*(const float *)m->dl_tensor.data, 7);
        drop(m);
    }
    wnn_tensor_release(s);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* Every WebNN data type: the triple it exports as, and back. */
static void test_data_types(const char *device)
{
    static const struct {
        wnn_data_type type;
        uint8_t code, bits;
    } types[] = {
        {WNN_DATA_TYPE_FLOAT32, kDLFloat, 32}, {WNN_DATA_TYPE_FLOAT16, kDLFloat, 16},
        {WNN_DATA_TYPE_INT32, kDLInt, 32},     {WNN_DATA_TYPE_UINT32, kDLUInt, 32},
        {WNN_DATA_TYPE_INT64, kDLInt, 64},     {WNN_DATA_TYPE_UINT64, kDLUInt, 64},
        {WNN_DATA_TYPE_INT8, kDLInt, 8},       {WNN_DATA_TYPE_UINT8, kDLUInt, 8},
    };
    wnn_context *ctx = new_context(device);
    for (size_t i = 0; i < COUNT_OF(types); i++) {
        wnn_tensor *t = make(ctx, types[i].type, 1, (uint32_t[]){5});
        size_t n = (size_t)wnn_tensor_byte_length(t);
        unsigned char bytes[40], back[40];
        for (size_t k = 0; k < n; k++)
            bytes[k] = (unsigned char)(k * 7 + i + 1);
        CHECK_OK(wnn_context_write_tensor(ctx, t, bytes, n));
        DLManagedTensorVersioned *m = export_v(t, NULL);
        if (!m)
            continue;
        CHECK_EQ_INT(m->dl_tensor.dtype.code, types[i].code);
        CHECK_EQ_INT(m->dl_tensor.dtype.bits, types[i].bits);
        CHECK_EQ_INT(m->dl_tensor.dtype.lanes, 1);
        wnn_tensor *u = NULL;
        CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &u));
        CHECK_EQ_INT(wnn_tensor_data_type(u), types[i].type);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, u, back, n));
        CHECK(memcmp(bytes, back, n) == 0);
        wnn_tensor_release(u);
        wnn_tensor_release(t);
    }
    wnn_context_release(ctx);
}

/* ---- 3. zero-copy round trips ---------------------------------------------------- */

static void test_round_trip(const char *device)
{
    wnn_context *ctx = new_context(device);
    const float v[4] = {1, 2, 3, 4};
    wnn_tensor *a = make_f32(ctx, 2, (uint32_t[]){2, 2}, v);
    DLManagedTensorVersioned *m = export_v(a, NULL);
    void *data = m ? m->dl_tensor.data : NULL;
    wnn_memory_stats before, after;
    wnn_context_get_memory_stats(ctx, &before);
    wnn_tensor *b = NULL;
    CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &b));
    wnn_context_get_memory_stats(ctx, &after);
    CHECK_EQ_INT(after.in_use_bytes, before.in_use_bytes); /* nothing allocated */
    CHECK_EQ_INT(after.device_allocations, before.device_allocations);
    /* the same memory: re-exporting the import gives the same pointer */
    DLManagedTensorVersioned *m2 = export_v(b, NULL);
    CHECK(m2 && m2->dl_tensor.data == data);
    drop(m2);
    /* writes through one are seen through the other */
    const float w[4] = {9, 8, 7, 6};
    float r[4] = {0};
    CHECK_OK(wnn_context_write_tensor(ctx, b, w, sizeof w));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, a, r, sizeof r));
    CHECK(memcmp(r, w, sizeof r) == 0);
    wnn_context_get_memory_stats(ctx, &after);
    if (strcmp(device, "null") == 0) /* one upload for the write, no copy for the exchange */
        CHECK_EQ_INT(after.copies_to_device, before.copies_to_device + 1);
    wnn_tensor_release(b);
    wnn_tensor_release(a);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);
    wnn_context_release(ctx);
}

/* Two contexts of one device: the memory crosses without a copy. */
static void test_cross_context(const char *device)
{
    wnn_context *p = new_context(device), *c = new_context(device);
    const float v[3] = {1.5f, -2, 4};
    wnn_tensor *a = make_f32(p, 1, (uint32_t[]){3}, v);
    DLManagedTensorVersioned *m = export_v(a, NULL);
    wnn_tensor *b = NULL;
    CHECK_OK(wnn_context_import_dlpack(c, m, NULL, &b));
    wnn_memory_stats st;
    wnn_context_get_memory_stats(c, &st);
    CHECK_EQ_INT(st.in_use_bytes, 0);
    CHECK_EQ_INT(st.copies_to_device, 0);
    float r[3] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(c, b, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    /* the producer goes first; the consumer's tensor keeps the memory */
    wnn_tensor_release(a);
    wnn_context_release(p);
    memset(r, 0, sizeof r);
    CHECK_OK(wnn_context_read_tensor_sync(c, b, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    wnn_tensor_release(b);
    wnn_context_release(c);
}

/* A fresh tensor reads as zeros: export materialises them. */
static void test_zero_tensor(const char *device)
{
    wnn_context *ctx = new_context(device);
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_INT32, 1, (uint32_t[]){64});
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCPU;
    DLManagedTensorVersioned *m = export_v(t, &o);
    if (m) {
        int32_t zeros[64] = {0};
        CHECK(memcmp(m->dl_tensor.data, zeros, sizeof zeros) == 0);
        drop(m);
    }
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* ---- 4. strides and byte offsets on import ------------------------------------------ */

static void test_strides(const char *device)
{
    wnn_context *ctx = new_context(device);
    bool cpu = strcmp(device, "cpu") == 0;
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;

    /* a transposed view: shape (3, 2) over a row-major (2, 3) buffer */
    foreign *f = make_foreign(f32, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 6 * sizeof(float));
    for (int i = 0; i < 6; i++)
        ((float *)f->buffer)[i] = (float)i;
    wnn_tensor *t = import_foreign(ctx, f, &o, WNN_OK);
    float r[6];
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof r));
    const float transposed[6] = {0, 3, 1, 4, 2, 5};
    CHECK(memcmp(r, transposed, sizeof r) == 0);
    CHECK_OK(wnn_context_finish(ctx)); /* the copy ran: the source went back */
    wnn_tensor_release(t);

    /* reversed: negative stride from the last element */
    f = make_foreign(f32, 1, (int64_t[]){4}, (int64_t[]){-1}, 4 * sizeof(float));
    for (int i = 0; i < 4; i++)
        ((float *)f->buffer)[i] = (float)(10 + i);
    f->v.dl_tensor.byte_offset = 3 * sizeof(float);
    t = import_foreign(ctx, f, &o, WNN_OK);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, 4 * sizeof(float)));
    CHECK(r[0] == 13 && r[1] == 12 && r[2] == 11 && r[3] == 10);
    wnn_tensor_release(t);

    /* broadcast: a zero stride */
    f = make_foreign(f32, 2, (int64_t[]){3, 2}, (int64_t[]){0, 1}, 2 * sizeof(float));
    ((float *)f->buffer)[0] = 5;
    ((float *)f->buffer)[1] = 6;
    t = import_foreign(ctx, f, &o, WNN_OK);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof r));
    CHECK(r[0] == 5 && r[1] == 6 && r[4] == 5 && r[5] == 6);
    wnn_tensor_release(t);

    /* a byte offset into a compact buffer */
    f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 4 * sizeof(float));
    for (int i = 0; i < 4; i++)
        ((float *)f->buffer)[i] = (float)(20 + i);
    f->v.dl_tensor.byte_offset = 2 * sizeof(float);
    t = import_foreign(ctx, f, &o, WNN_OK);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, 2 * sizeof(float)));
    CHECK(r[0] == 22 && r[1] == 23);
    wnn_tensor_release(t);

    /* compact with size-1 dimensions of any stride, no strides at all: wrapped
    ** on the cpu (same pointer), copied into the null device */
    for (int variant = 0; variant < 2; variant++) {
        f = variant ? make_foreign(f32, 3, (int64_t[]){2, 1, 3}, (int64_t[]){3, 99, 1}, 6 * sizeof(float))
                    : make_foreign(f32, 3, (int64_t[]){2, 1, 3}, NULL, 6 * sizeof(float));
        void *buffer = f->buffer;
        wnn_memory_stats before, after;
        wnn_context_get_memory_stats(ctx, &before);
        t = import_foreign(ctx, f, &o, WNN_OK);
        wnn_context_get_memory_stats(ctx, &after);
        DLManagedTensorVersioned *m = export_v(t, NULL);
        if (cpu) {
            CHECK(m && m->dl_tensor.data == buffer);
            CHECK_EQ_INT(after.in_use_bytes, before.in_use_bytes);
        } else {
            CHECK(m && m->dl_tensor.data != buffer);
        }
        drop(m);
        wnn_tensor_release(t);
    }

    /* copy forbidden where one is needed */
    wnn_dlpack_import_options never = import_opts(false, WNN_DLPACK_COPY_NEVER);
    f = make_foreign(f32, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 6 * sizeof(float));
    import_foreign(ctx, f, &never, WNN_STATUS_COPY_FORBIDDEN);
    f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 4 * sizeof(float));
    f->v.dl_tensor.byte_offset = 4;
    import_foreign(ctx, f, &never, WNN_STATUS_COPY_FORBIDDEN);
    f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 3 * sizeof(float));
    f->v.dl_tensor.data = (char *)f->buffer + 2; /* misaligned floats */
    import_foreign(ctx, f, &never, WNN_STATUS_COPY_FORBIDDEN);
    f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 2 * sizeof(float));
    t = import_foreign(ctx, f, &never, cpu ? WNN_OK : WNN_STATUS_COPY_FORBIDDEN);
    wnn_tensor_release(t);

    /* copy always: a private copy, the source goes back at once */
    wnn_dlpack_import_options always = import_opts(false, WNN_DLPACK_COPY_ALWAYS);
    f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 2 * sizeof(float));
    ((float *)f->buffer)[1] = 42;
    int id = f->id;
    t = import_foreign(ctx, f, &always, WNN_OK);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, 2 * sizeof(float)));
    CHECK(r[1] == 42);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* A null-device export viewed with other strides and offsets, copied on the
** device; views outside the exported memory are refused. */
static void test_device_views(void)
{
    wnn_context *ctx = new_context("null");
    const float v[6] = {0, 1, 2, 3, 4, 5};
    wnn_tensor *a = make_f32(ctx, 2, (uint32_t[]){2, 3}, v);
    float r[6];

    DLManagedTensorVersioned *m = export_v(a, NULL); /* transposed */
    m->dl_tensor.shape[0] = 3;
    m->dl_tensor.shape[1] = 2;
    m->dl_tensor.strides[0] = 1;
    m->dl_tensor.strides[1] = 3;
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &t));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof r));
    const float transposed[6] = {0, 3, 1, 4, 2, 5};
    CHECK(memcmp(r, transposed, sizeof r) == 0);
    wnn_tensor_release(t);

    m = export_v(a, NULL); /* the second row, by byte offset */
    m->dl_tensor.ndim = 1;
    m->dl_tensor.shape[0] = 3;
    m->dl_tensor.strides[0] = 1;
    m->dl_tensor.byte_offset = 3 * sizeof(float);
    CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &t));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, 3 * sizeof(float)));
    CHECK(r[0] == 3 && r[1] == 4 && r[2] == 5);
    wnn_tensor_release(t);

    m = export_v(a, NULL); /* one element past the end */
    m->dl_tensor.byte_offset = sizeof(float);
    CHECK_STATUS(wnn_context_import_dlpack(ctx, m, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    m = export_v(a, NULL); /* a pointer wnn did not export */
    m->dl_tensor.data = (char *)m->dl_tensor.data + 64;
    CHECK_STATUS(wnn_context_import_dlpack(ctx, m, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    m = export_v(a, NULL); /* device memory relabelled as host memory */
    m->dl_tensor.device = (DLDevice){kDLCPU, 0};
    CHECK_STATUS(wnn_context_import_dlpack(ctx, m, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    wnn_dlpack_export_options host = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    host.device_type = kDLCPU;
    m = export_v(a, &host); /* a host copy relabelled as device memory */
    m->dl_tensor.device = (DLDevice){kDLExtDev, 0};
    CHECK_STATUS(wnn_context_import_dlpack(ctx, m, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    wnn_tensor_release(a);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);
    wnn_context_release(ctx);
}

/* ---- 5. legacy and versioned ------------------------------------------------------- */

static void test_legacy(const char *device)
{
    wnn_context *ctx = new_context(device);
    const float v[2] = {3, 4};
    wnn_tensor *t = make_f32(ctx, 1, (uint32_t[]){2}, v);
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.legacy = true;
    void *p = NULL;
    CHECK_OK(wnn_tensor_export_dlpack(t, &o, &p));
    DLManagedTensor *l = p;
    if (l) {
        CHECK(l->deleter != NULL && l->manager_ctx != NULL);
        CHECK_EQ_INT(l->dl_tensor.ndim, 1);
        CHECK_EQ_INT(l->dl_tensor.strides[0], 1);
        wnn_tensor *u = NULL;
        wnn_dlpack_import_options io = import_opts(true, WNN_DLPACK_COPY_NEVER);
        CHECK_OK(wnn_context_import_dlpack(ctx, l, &io, &u));
        float r[2] = {0};
        CHECK_OK(wnn_context_read_tensor_sync(ctx, u, r, sizeof r));
        CHECK(r[0] == 3 && r[1] == 4);
        CHECK(!wnn_tensor_is_constant(u));
        wnn_tensor_release(u);
    }
    /* a foreign legacy tensor */
    foreign *f = make_foreign(f32, 1, (int64_t[]){2}, NULL, 2 * sizeof(float));
    ((float *)f->buffer)[0] = 8;
    wnn_dlpack_import_options lo = import_opts(true, WNN_DLPACK_COPY_IF_NEEDED);
    int id = f->id;
    wnn_tensor *u = import_foreign(ctx, f, &lo, WNN_OK);
    float r[2] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, u, r, sizeof r));
    CHECK(r[0] == 8);
    wnn_tensor_release(u);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* ---- 6. read-only constants ---------------------------------------------------------- */

static void test_read_only(const char *device)
{
    wnn_context *ctx = new_context(device);
    const float v[4] = {1, 2, 3, 4};
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {4}};
    wnn_tensor *c = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx, &d, v, sizeof v, &c));
    DLManagedTensorVersioned *m = export_v(c, NULL);
    CHECK(m && (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY));
    CHECK(m && !(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED));
    void *data = m ? m->dl_tensor.data : NULL;
    wnn_tensor *u = NULL;
    CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &u));
    CHECK(wnn_tensor_is_constant(u));
    CHECK(!wnn_tensor_is_writable(u));
    CHECK(wnn_tensor_is_readable(u));
    CHECK_STATUS(wnn_context_write_tensor(ctx, u, v, sizeof v), WNN_STATUS_NOT_WRITABLE);
    float r[4] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, u, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    m = export_v(u, NULL); /* still the constant's own memory */
    CHECK(m && m->dl_tensor.data == data && (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY));
    drop(m);

    /* the imported constant feeds a graph: y = x + c */
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *k = wnn_graph_builder_constant_tensor(b, u);
    wnn_named_operand out = {"y", wnn_add(b, x, k)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_tensor *xt = make_f32(ctx, 1, (uint32_t[]){4}, (float[]){10, 10, 10, 10});
    wnn_tensor *yt = make_f32(ctx, 1, (uint32_t[]){4}, NULL);
    wnn_named_tensor bi = {"x", xt}, bo = {"y", yt};
    CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, yt, r, sizeof r));
    CHECK(r[0] == 11 && r[3] == 14);
    /* a read-only import cannot be a dispatch's output */
    bo.tensor = u;
    CHECK_STATUS(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1), WNN_STATUS_CONSTANT_TENSOR);

    /* legacy cannot say read-only: a copy, or a refusal */
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.legacy = true;
    void *p = NULL;
    CHECK_OK(wnn_tensor_export_dlpack(c, &o, &p));
    DLManagedTensor *l = p;
    CHECK(l && l->dl_tensor.data != data);
    if (l)
        l->deleter(l);
    o.copy = WNN_DLPACK_COPY_NEVER;
    CHECK_STATUS(wnn_tensor_export_dlpack(c, &o, &p), WNN_STATUS_COPY_FORBIDDEN);
    CHECK(p == NULL);

    /* a copy of read-only memory is an ordinary tensor */
    m = export_v(c, NULL);
    wnn_dlpack_import_options always = import_opts(false, WNN_DLPACK_COPY_ALWAYS);
    wnn_tensor *w = NULL;
    CHECK_OK(wnn_context_import_dlpack(ctx, m, &always, &w));
    CHECK(!wnn_tensor_is_constant(w) && wnn_tensor_is_writable(w));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, w, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);

    wnn_tensor_release(w);
    wnn_tensor_release(xt);
    wnn_tensor_release(yt);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_tensor_release(u);
    wnn_tensor_release(c);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);
    wnn_context_release(ctx);
}

/* ---- 7. lifetimes ------------------------------------------------------------------------ */

static void *call_deleter(void *arg)
{
    drop(arg);
    return NULL;
}

static void test_lifetimes(const char *device)
{
    wnn_context *ctx = new_context(device);
    bool cpu = strcmp(device, "cpu") == 0;
    float v[256];
    for (int i = 0; i < 256; i++)
        v[i] = (float)i;

    /* the tensor is released first: the memory stays until the deleter */
    wnn_tensor *t = make_f32(ctx, 1, (uint32_t[]){256}, v);
    uint64_t held = in_use(ctx);
    DLManagedTensorVersioned *m = export_v(t, NULL);
    wnn_tensor_release(t);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), held);
    if (cpu && m)
        CHECK(memcmp(m->dl_tensor.data, v, sizeof v) == 0);
    drop(m);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);

    /* destroyed, not released: the storage goes when the last export does */
    t = make_f32(ctx, 1, (uint32_t[]){256}, v);
    DLManagedTensorVersioned *m1 = export_v(t, NULL), *m2 = export_v(t, NULL);
    wnn_tensor_destroy(t);
    drop(m1);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), held);
    drop(m2);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);
    wnn_tensor_release(t);

    /* the deleter runs on another thread */
    t = make_f32(ctx, 1, (uint32_t[]){256}, v);
    m = export_v(t, NULL);
    wnn_tensor_release(t);
    pthread_t th;
    pthread_create(&th, NULL, call_deleter, m);
    pthread_join(th, NULL);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);

    /* an imported tensor gives the memory back exactly once, at destroy */
    foreign *f = make_foreign(f32, 1, (int64_t[]){4}, NULL, 4 * sizeof(float));
    int id = f->id;
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    wnn_tensor *u = import_foreign(ctx, f, &o, WNN_OK);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), cpu ? 0 : 1); /* null: a copy */
    wnn_tensor_destroy(u);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
    wnn_tensor_release(u);
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);

    /* re-exported import: the foreign memory outlives both wnn tensors */
    f = make_foreign(f32, 1, (int64_t[]){4}, NULL, 4 * sizeof(float));
    ((float *)f->buffer)[2] = 5;
    id = f->id;
    u = import_foreign(ctx, f, &o, WNN_OK);
    m = export_v(u, NULL);
    wnn_tensor_release(u);
    CHECK_OK(wnn_context_finish(ctx));
    if (cpu) {
        CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 0);
        CHECK(m && ((float *)m->dl_tensor.data)[2] == 5);
    }
    drop(m);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);

    /* the context goes before the deleter */
    t = make_f32(ctx, 1, (uint32_t[]){256}, v);
    m = export_v(t, NULL);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
    if (cpu && m)
        CHECK(memcmp(m->dl_tensor.data, v, sizeof v) == 0);
    pthread_create(&th, NULL, call_deleter, m);
    pthread_join(th, NULL);
}

/* ---- 8. copies to host ------------------------------------------------------------------ */

static void test_copies(const char *device)
{
    wnn_context *ctx = new_context(device);
    bool cpu = strcmp(device, "cpu") == 0;
    const float v[5] = {1, 2, 3, 4, 5};
    wnn_tensor *t = make_f32(ctx, 1, (uint32_t[]){5}, v);
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCPU;
    o.device_id = 0;
    wnn_memory_stats before, after;
    wnn_context_get_memory_stats(ctx, &before);
    DLManagedTensorVersioned *m = export_v(t, &o);
    wnn_context_get_memory_stats(ctx, &after);
    if (m) {
        CHECK_EQ_INT(m->dl_tensor.device.device_type, kDLCPU);
        CHECK_EQ_INT(m->dl_tensor.device.device_id, 0);
        CHECK(memcmp(m->dl_tensor.data, v, sizeof v) == 0);
        if (!cpu) /* wnn's own copies are 256-byte aligned */
            CHECK_EQ_INT((uintptr_t)m->dl_tensor.data % 256, 0);
        CHECK_EQ_INT(!!(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED), !cpu); /* the cpu shares */
        CHECK_EQ_INT(after.copies_to_host, before.copies_to_host + (cpu ? 0 : 1));
        drop(m);
    }
    /* copy never: fine on the cpu, refused on the null device */
    o.copy = WNN_DLPACK_COPY_NEVER;
    void *p = NULL;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &p), cpu ? WNN_OK : WNN_STATUS_COPY_FORBIDDEN);
    drop(p);
    /* copy always, on the tensor's own device */
    wnn_dlpack_export_options a = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    a.copy = WNN_DLPACK_COPY_ALWAYS;
    DLManagedTensorVersioned *shared = export_v(t, NULL);
    m = export_v(t, &a);
    if (m && shared) {
        CHECK(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED);
        CHECK(m->dl_tensor.data != shared->dl_tensor.data);
        wnn_device_info info;
        wnn_context_get_device_info(ctx, &info);
        CHECK_EQ_INT(m->dl_tensor.device.device_type, info.dlpack_device_type);
        /* the copy is independent of later writes */
        const float w[5] = {0};
        CHECK_OK(wnn_context_write_tensor(ctx, t, w, sizeof w));
        wnn_tensor *u = NULL;
        CHECK_OK(wnn_context_import_dlpack(ctx, m, NULL, &u));
        float r[5] = {0};
        CHECK_OK(wnn_context_read_tensor_sync(ctx, u, r, sizeof r));
        CHECK(memcmp(r, v, sizeof r) == 0);
        wnn_tensor_release(u);
    }
    drop(shared);
    wnn_tensor_release(t);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(in_use(ctx), 0);
    wnn_context_release(ctx);
}

/* A dispatch's output, exported to host with no stream: the call waits for
** the graph. */
static void test_after_dispatch(const char *device)
{
    wnn_context *ctx = new_context(device);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {3}};
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand out = {"y", wnn_add(b, x, x)};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_tensor *xt = make_f32(ctx, 1, (uint32_t[]){3}, (float[]){1, 2, 3});
    wnn_tensor *yt = make_f32(ctx, 1, (uint32_t[]){3}, NULL);
    wnn_named_tensor bi = {"x", xt}, bo = {"y", yt};
    CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCPU;
    DLManagedTensorVersioned *m = export_v(yt, &o);
    if (m) {
        const float *y = m->dl_tensor.data;
        CHECK(y[0] == 2 && y[1] == 4 && y[2] == 6);
        drop(m);
    }
    wnn_tensor_release(xt);
    wnn_tensor_release(yt);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);
}

/* ---- 9. streams -------------------------------------------------------------------------- */

/* The producer's device is slow (every copy sleeps): a consumer on another
** queue still reads complete data, and only "no stream" makes the producer
** wait. */
static void test_streams(void)
{
    enum { DELAY_MS = 150 };
    setenv("WNN_NULL_COPY_DELAY_US", "150000", 1);
    wnn__config_reload(); /* switches are read once */
    wnn_context *p = new_context("null");
    unsetenv("WNN_NULL_COPY_DELAY_US");
    wnn__config_reload(); /* switches are read once */
    wnn_context *c = new_context("null");
    float v[64], r[64];
    for (int i = 0; i < 64; i++)
        v[i] = (float)(i * 3);

    /* a consumer stream: ordered by an event, nobody waits on the host */
    wnn_tensor *t = make_f32(p, 1, (uint32_t[]){64}, v);
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = 1;
    double t0 = now_ms();
    DLManagedTensorVersioned *m = export_v(t, &o);
    wnn_tensor *u = NULL;
    CHECK_OK(wnn_context_import_dlpack(c, m, NULL, &u));
    double dt = now_ms() - t0;
    CHECK(dt < DELAY_MS / 2);
    if (dt >= DELAY_MS / 2)
        fprintf(stderr, "export + import with a stream took %.1f ms\n", dt);
    memset(r, 0, sizeof r);
    CHECK_OK(wnn_context_read_tensor_sync(c, u, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    wnn_tensor_release(u);
    wnn_tensor_release(t);

    /* no stream: the producer waits for its device */
    t = make_f32(p, 1, (uint32_t[]){64}, v);
    t0 = now_ms();
    m = export_v(t, NULL);
    CHECK(now_ms() - t0 >= DELAY_MS * 0.9);
    CHECK_OK(wnn_context_import_dlpack(c, m, NULL, &u));
    CHECK_OK(wnn_context_read_tensor_sync(c, u, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    wnn_tensor_release(u);
    wnn_tensor_release(t);

    /* no synchronization: the consumer orders itself with finish */
    t = make_f32(p, 1, (uint32_t[]){64}, v);
    o.stream = WNN_DLPACK_STREAM_NO_SYNC;
    t0 = now_ms();
    m = export_v(t, &o);
    CHECK(now_ms() - t0 < DELAY_MS / 2);
    CHECK_OK(wnn_context_finish(p));
    CHECK_OK(wnn_context_import_dlpack(c, m, NULL, &u));
    CHECK_OK(wnn_context_read_tensor_sync(c, u, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    wnn_tensor_release(u);

    /* the same queue: FIFO order is the event */
    o.stream = 1;
    m = export_v(t, &o);
    CHECK_OK(wnn_context_import_dlpack(p, m, NULL, &u));
    CHECK_OK(wnn_context_read_tensor_sync(p, u, r, sizeof r));
    CHECK(memcmp(r, v, sizeof r) == 0);
    wnn_tensor_release(u);
    wnn_tensor_release(t);

    /* stream values the device cannot take */
    t = make_f32(p, 1, (uint32_t[]){4}, NULL);
    void *q = (void *)1;
    o.stream = 0;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &q), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(q == NULL);
    o.stream = -2;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &q), WNN_STATUS_INVALID_ARGUMENT);
    o.stream = 1;
    o.device_type = kDLCPU; /* host memory takes no stream */
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &q), WNN_STATUS_INVALID_ARGUMENT);
    o.stream = WNN_DLPACK_STREAM_NO_SYNC;
    CHECK_OK(wnn_tensor_export_dlpack(t, &o, &q));
    CHECK_OK(wnn_context_finish(p));
    drop(q);
    wnn_tensor_release(t);
    wnn_context_release(c);
    wnn_context_release(p);

    /* the cpu: only no stream or -1; -1 on fresh zeros after finish */
    wnn_context *ctx = new_context("cpu");
    t = make(ctx, WNN_DATA_TYPE_INT32, 1, (uint32_t[]){8});
    wnn_dlpack_export_options c1 = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    c1.has_stream = true;
    c1.stream = 1;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &c1, &q), WNN_STATUS_INVALID_ARGUMENT);
    c1.stream = WNN_DLPACK_STREAM_NO_SYNC;
    CHECK_OK(wnn_tensor_export_dlpack(t, &c1, &q));
    CHECK_OK(wnn_context_finish(ctx));
    int32_t zeros[8] = {0};
    CHECK(q && memcmp(((DLManagedTensorVersioned *)q)->dl_tensor.data, zeros, sizeof zeros) == 0);
    drop(q);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* ---- 10. refusals ---------------------------------------------------------------------------- */

static void test_import_refusals(const char *device)
{
    wnn_context *ctx = new_context(device);
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    const int64_t two[1] = {2};
    static const DLDataType refused[] = {
        {kDLComplex, 64, 1}, {kDLComplex, 128, 1}, {kDLBfloat, 16, 1}, {kDLFloat8_e4m3fn, 8, 1},
        {kDLFloat8_e5m2, 8, 1}, {kDLFloat4_e2m1fn, 4, 1}, {kDLInt, 4, 1}, {kDLFloat, 32, 4},
        {kDLFloat, 64, 1}, {kDLInt, 16, 1}, {kDLUInt, 16, 1}, {kDLOpaqueHandle, 64, 1},
        {kDLBool, 8, 1}, {kDLFloat, 32, 0},
    };
    for (size_t i = 0; i < COUNT_OF(refused); i++)
        import_foreign(ctx, make_foreign(refused[i], 1, two, NULL, 64), &o, WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    foreign *f = make_foreign(f32, 1, two, NULL, 64);
    f->v.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    import_foreign(ctx, f, &o, WNN_STATUS_UNSUPPORTED_DATA_TYPE);

    /* bool as uint8 when asked */
    wnn_dlpack_import_options bo = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    bo.bool_as_uint8 = true;
    f = make_foreign((DLDataType){kDLBool, 8, 1}, 1, two, NULL, 2);
    ((unsigned char *)f->buffer)[1] = 1;
    wnn_tensor *t = import_foreign(ctx, f, &bo, WNN_OK);
    CHECK_EQ_INT(wnn_tensor_data_type(t), WNN_DATA_TYPE_UINT8);
    unsigned char r[2] = {9, 9};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r, sizeof r));
    CHECK(r[0] == 0 && r[1] == 1);
    wnn_tensor_release(t);

    /* the producer's stream: 0 and values below -1 refused, the others
    ** taken (host memory waits for none) */
    const int64_t streams[] = {0, -2, INT64_MIN, WNN_DLPACK_STREAM_NO_SYNC, 1, 2, 12345};
    for (size_t i = 0; i < COUNT_OF(streams); i++) {
        wnn_dlpack_import_options so = WNN_DLPACK_IMPORT_OPTIONS_INIT;
        so.has_stream = true;
        so.stream = streams[i];
        bool bad = streams[i] == 0 || streams[i] < WNN_DLPACK_STREAM_NO_SYNC;
        wnn_tensor_release(
            import_foreign(ctx, make_foreign(f32, 1, two, NULL, 8), &so, bad ? WNN_STATUS_INVALID_ARGUMENT : WNN_OK));
    }

    /* versions: only the deleter is touched */
    for (uint32_t major = 0; major < 4; major += 2) {
        f = make_foreign(f32, 1, two, NULL, 8);
        f->v.version.major = major;
        f->v.dl_tensor.ndim = -77; /* never read */
        import_foreign(ctx, f, &o, WNN_STATUS_UNSUPPORTED_VERSION);
    }
    f = make_foreign(f32, 1, two, NULL, 8);
    f->v.version.minor = 99; /* a newer minor is fine */
    wnn_tensor_release(import_foreign(ctx, f, &o, WNN_OK));

    /* shapes */
    f = make_foreign(f32, 2, (int64_t[]){2, 2}, NULL, 16);
    f->v.dl_tensor.shape = NULL;
    import_foreign(ctx, f, &o, WNN_STATUS_INVALID_ARGUMENT);
    import_foreign(ctx, make_foreign(f32, 2, (int64_t[]){2, -3}, NULL, 16), &o, WNN_STATUS_INVALID_DIMENSION);
    import_foreign(ctx, make_foreign(f32, 1, (int64_t[]){0}, NULL, 16), &o, WNN_STATUS_INVALID_DIMENSION);
    import_foreign(ctx, make_foreign(f32, 1, (int64_t[]){(int64_t)1 << 31}, NULL, 16), &o,
                   WNN_STATUS_INVALID_DIMENSION);
    import_foreign(ctx, make_foreign(f32, 1, (int64_t[]){INT64_MIN}, NULL, 16), &o, WNN_STATUS_INVALID_DIMENSION);
    import_foreign(ctx, make_foreign(f32, 2, (int64_t[]){65536, 65536}, NULL, 16), &o,
                   WNN_STATUS_TOO_MANY_ELEMENTS);
    import_foreign(ctx, make_foreign(f32, 9, (int64_t[]){1, 1, 1, 1, 1, 1, 1, 1, 1}, NULL, 16), &o,
                   WNN_STATUS_INVALID_RANK);
    import_foreign(ctx, make_foreign(f32, -1, two, NULL, 16), &o, WNN_STATUS_INVALID_RANK);
    /* a scalar with no shape is fine */
    f = make_foreign(f32, 0, NULL, NULL, 4);
    *(float *)f->buffer = 2.5f;
    t = import_foreign(ctx, f, &o, WNN_OK);
    float s = 0;
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, &s, sizeof s));
    CHECK(s == 2.5f);
    CHECK_EQ_INT(wnn_tensor_rank(t), 0);
    wnn_tensor_release(t);

    /* memory and devices */
    f = make_foreign(f32, 1, two, NULL, 8);
    f->v.dl_tensor.data = NULL;
    import_foreign(ctx, f, &o, WNN_STATUS_INVALID_ARGUMENT);
    f = make_foreign(f32, 1, two, NULL, 8);
    f->v.dl_tensor.device = (DLDevice){kDLCUDA, 0};
    import_foreign(ctx, f, &o, WNN_STATUS_UNSUPPORTED_DEVICE);
    f = make_foreign(f32, 1, two, NULL, 8);
    f->v.dl_tensor.device = (DLDevice){kDLExtDev, 0}; /* not wnn's: an address nobody here can read */
    import_foreign(ctx, f, &o, WNN_STATUS_UNSUPPORTED_DEVICE);
    f = make_foreign(f32, 2, (int64_t[]){3, 2}, (int64_t[]){INT64_MAX, 1}, 8);
    import_foreign(ctx, f, &o, WNN_STATUS_INVALID_ARGUMENT);
    f = make_foreign(f32, 1, two, NULL, 8);
    f->v.dl_tensor.byte_offset = UINT64_MAX - 2;
    import_foreign(ctx, f, &o, WNN_STATUS_INVALID_ARGUMENT);
    f = make_foreign(f32, 1, two, (int64_t[]){-1}, 8); /* reaches below address 0 */
    f->v.dl_tensor.data = (void *)(uintptr_t)2;
    import_foreign(ctx, f, &o, WNN_STATUS_INVALID_ARGUMENT);

    /* arguments */
    wnn_dlpack_import_options bad = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    bad.copy = (wnn_dlpack_copy)7;
    import_foreign(ctx, make_foreign(f32, 1, two, NULL, 8), &bad, WNN_STATUS_INVALID_ARGUMENT);
    wnn_tensor *out = NULL;
    CHECK_STATUS(wnn_context_import_dlpack(ctx, NULL, NULL, &out), WNN_STATUS_INVALID_ARGUMENT);
    f = make_foreign(f32, 1, two, NULL, 8);
    int id = f->id;
    CHECK_STATUS(wnn_context_import_dlpack(ctx, &f->v, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
    f = make_foreign(f32, 1, two, NULL, 8);
    id = f->id;
    CHECK_STATUS(wnn_context_import_dlpack(NULL, &f->v, NULL, &out), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_EQ_INT(atomic_load(&deleted_by_id[id]), 1);
    /* a foreign tensor with no deleter */
    f = make_foreign(f32, 1, (int64_t[]){0}, NULL, 8);
    f->v.deleter = NULL;
    CHECK_STATUS(wnn_context_import_dlpack(ctx, &f->v, NULL, &out), WNN_STATUS_INVALID_DIMENSION);
    foreign_free(f);

    /* a lost context */
    wnn_context_destroy(ctx);
    import_foreign(ctx, make_foreign(f32, 1, two, NULL, 8), &o, WNN_STATUS_CONTEXT_LOST);
    wnn_context_release(ctx);
}

static void test_export_refusals(const char *device)
{
    wnn_context *ctx = new_context(device);
    wnn_tensor *t = make_f32(ctx, 1, (uint32_t[]){2}, NULL);
    void *m = (void *)1;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_tensor_export_dlpack(NULL, NULL, &m), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(m == NULL);
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCUDA;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &m), WNN_STATUS_UNSUPPORTED_DEVICE);
    o.device_type = kDLCPU;
    o.device_id = 3;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &m), WNN_STATUS_UNSUPPORTED_DEVICE);
    o = (wnn_dlpack_export_options)WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.copy = (wnn_dlpack_copy)-1;
    CHECK_STATUS(wnn_tensor_export_dlpack(t, &o, &m), WNN_STATUS_INVALID_ARGUMENT);
    wnn_tensor_destroy(t);
    CHECK_STATUS(wnn_tensor_export_dlpack(t, NULL, &m), WNN_STATUS_DESTROYED);
    wnn_tensor_release(t);
    t = make_f32(ctx, 1, (uint32_t[]){2}, NULL);
    wnn_context_destroy(ctx);
    CHECK_STATUS(wnn_tensor_export_dlpack(t, NULL, &m), WNN_STATUS_CONTEXT_LOST);
    CHECK(m == NULL);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

int main(void)
{
    test_layout();
    for (size_t i = 0; i < COUNT_OF(devices); i++) {
        const char *d = devices[i];
        test_export_fields(d);
        test_data_types(d);
        test_round_trip(d);
        test_cross_context(d);
        test_zero_tensor(d);
        test_strides(d);
        test_legacy(d);
        test_read_only(d);
        test_lifetimes(d);
        test_copies(d);
        test_after_dispatch(d);
        test_import_refusals(d);
        test_export_refusals(d);
    }
    test_device_views();
    test_streams();
    TEST_DONE();
}
