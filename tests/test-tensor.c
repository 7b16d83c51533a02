/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-tensor.c -- MLTensor and MLContext through the public API: creation of
** every data type, attributes, every descriptor rule with its exact status,
** constant tensors, write/read validation and semantics (copy at call time,
** async/BYOB/sync reads), destroy and policies, statuses and their names,
** devices, and what a destroyed (lost) context answers.
*/
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "wnn/wnn.h"

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const wnn_data_type all_types[] = {
    WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_INT32, WNN_DATA_TYPE_UINT32,
    WNN_DATA_TYPE_INT64,   WNN_DATA_TYPE_UINT64,  WNN_DATA_TYPE_INT8,  WNN_DATA_TYPE_UINT8,
};
static const size_t all_sizes[] = {4, 2, 4, 4, 8, 8, 1, 1};
static const char *const all_names[] = {"float32", "float16", "int32", "uint32",
                                        "int64",   "uint64",  "int8",  "uint8"};

static wnn_context *new_context(wnn_policy policy)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    o.policy = policy;
    wnn_context *ctx = NULL;
    wnn_status s = wnn_context_create(&o, &ctx);
    if (s != WNN_OK || !ctx) {
        fprintf(stderr, "cannot create a cpu context: %s (%s)\n", wnn_status_string(s), wnn_last_error_message());
        exit(1);
    }
    return ctx;
}

static wnn_tensor_desc tdesc(wnn_data_type t, bool readable, bool writable, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = t;
    d.rank = rank;
    for (uint32_t i = 0; i < rank && i < WNN_MAX_RANK; i++)
        d.shape[i] = shape[i];
    d.readable = readable;
    d.writable = writable;
    return d;
}

/* Creates a tensor that must succeed. */
static wnn_tensor *make(wnn_context *ctx, wnn_data_type t, bool readable, bool writable, uint32_t rank,
                        const uint32_t *shape)
{
    wnn_tensor_desc d = tdesc(t, readable, writable, rank, shape);
    wnn_tensor *x = NULL;
    wnn_status s = wnn_context_create_tensor(ctx, &d, &x);
    if (s != WNN_OK || !x) {
        fprintf(stderr, "create_tensor failed: %s (%s)\n", wnn_status_string(s), wnn_last_error_message());
        exit(1);
    }
    return x;
}

static wnn_status try_create(wnn_context *ctx, wnn_data_type t, uint32_t rank, const uint32_t *shape)
{
    wnn_tensor_desc d = tdesc(t, true, true, rank, shape);
    wnn_tensor *x = NULL;
    wnn_status s = wnn_context_create_tensor(ctx, &d, &x);
    if (s == WNN_OK)
        wnn_tensor_release(x);
    else
        CHECK(x == NULL);
    return s;
}

static bool all_bytes(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return false;
    return true;
}

static bool message_has(const char *needle)
{
    const char *m = wnn_last_error_message();
    return m && m[0] && strstr(m, needle) != NULL;
}

/* ---- an async read collector ---------------------------------------------- */

typedef struct reader {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int calls;
    wnn_status status;
    char message[256];
    const void *data_ptr;
    size_t byte_length;
    unsigned char bytes[256];
} reader;

static void reader_init(reader *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->status = (wnn_status)-1;
}

static void reader_fini(reader *r)
{
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cv);
}

static void on_read(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    reader *r = user;
    pthread_mutex_lock(&r->lock);
    r->calls++;
    r->status = status;
    snprintf(r->message, sizeof r->message, "%s", message ? message : "(null)");
    r->data_ptr = data;
    r->byte_length = n;
    if (data && n <= sizeof r->bytes)
        memcpy(r->bytes, data, n);
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->lock);
}

static void reader_wait(reader *r)
{
    pthread_mutex_lock(&r->lock);
    while (r->calls == 0)
        pthread_cond_wait(&r->cv, &r->lock);
    pthread_mutex_unlock(&r->lock);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_version_and_types(void)
{
    CHECK(strcmp(wnn_version(), WNN_VERSION_STRING) == 0);
    CHECK(strcmp(wnn_version(), "0.1.0") == 0);
    for (size_t i = 0; i < COUNT_OF(all_types); i++) {
        CHECK(wnn_data_type_name(all_types[i]) && strcmp(wnn_data_type_name(all_types[i]), all_names[i]) == 0);
        CHECK_EQ_INT(wnn_data_type_from_name(all_names[i]), all_types[i]);
        CHECK_EQ_INT(wnn_data_type_size(all_types[i]), all_sizes[i]);
    }
    CHECK(wnn_data_type_name(WNN_DATA_TYPE_INT4) && strcmp(wnn_data_type_name(WNN_DATA_TYPE_INT4), "int4") == 0);
    CHECK(wnn_data_type_name(WNN_DATA_TYPE_UINT4) && strcmp(wnn_data_type_name(WNN_DATA_TYPE_UINT4), "uint4") == 0);
    CHECK_EQ_INT(wnn_data_type_size(WNN_DATA_TYPE_INT4), 1);
    CHECK(wnn_data_type_name((wnn_data_type)99) == NULL);
    CHECK_EQ_INT(wnn_data_type_from_name("float64"), WNN_DATA_TYPE_INVALID);
    CHECK_EQ_INT(wnn_data_type_from_name(""), WNN_DATA_TYPE_INVALID);
    CHECK_EQ_INT(wnn_data_type_from_name(NULL), WNN_DATA_TYPE_INVALID);
    CHECK_EQ_INT(wnn_data_type_size((wnn_data_type)99), 0);
    CHECK_EQ_INT(wnn_data_type_size(WNN_DATA_TYPE_INVALID), 0);

    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 3, {2, 3, 4}};
    CHECK_EQ_INT(wnn_operand_desc_element_count(&d), 24);
    CHECK_EQ_INT(wnn_operand_desc_byte_length(&d), 96);
    d.data_type = WNN_DATA_TYPE_INT4;
    d.rank = 1;
    d.shape[0] = 5;
    CHECK_EQ_INT(wnn_operand_desc_byte_length(&d), 3); /* ceil(5/2) */
    wnn_operand_desc scalar = {WNN_DATA_TYPE_INT64, 0, {0}};
    CHECK_EQ_INT(wnn_operand_desc_element_count(&scalar), 1);
    CHECK_EQ_INT(wnn_operand_desc_byte_length(&scalar), 8);
    wnn_operand_desc zero = {WNN_DATA_TYPE_FLOAT32, 2, {3, 0}};
    CHECK_EQ_INT(wnn_operand_desc_element_count(&zero), 0);
    /* a 0 after dimensions whose product overflows is still 0 elements (fuzz_builder) */
    wnn_operand_desc late_zero = {WNN_DATA_TYPE_INT4, 4, {2147483647u, 2147483647u, 2147483647u, 0}};
    CHECK_EQ_INT(wnn_operand_desc_element_count(&late_zero), 0);
    CHECK_EQ_INT(wnn_operand_desc_byte_length(&late_zero), 0);
    /* a saturated count stays saturated in a 4-bit byte length */
    wnn_operand_desc huge = {WNN_DATA_TYPE_INT4, 3, {2147483647u, 2147483647u, 2147483647u}};
    CHECK(wnn_operand_desc_element_count(&huge) == UINT64_MAX);
    CHECK(wnn_operand_desc_byte_length(&huge) == UINT64_MAX);
}

static void test_statuses(void)
{
    static const struct {
        wnn_status s;
        wnn_status cls;
        const char *name;
    } table[] = {
        {WNN_OK, WNN_OK, "WNN_OK"},
        {WNN_STATUS_TYPE_ERROR, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_TYPE_ERROR"},
        {WNN_STATUS_INVALID_ARGUMENT, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_INVALID_ARGUMENT"},
        {WNN_STATUS_INVALID_DIMENSION, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_INVALID_DIMENSION"},
        {WNN_STATUS_INVALID_RANK, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_INVALID_RANK"},
        {WNN_STATUS_TOO_MANY_ELEMENTS, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_TOO_MANY_ELEMENTS"},
        {WNN_STATUS_TENSOR_TOO_LARGE, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_TENSOR_TOO_LARGE"},
        {WNN_STATUS_UNSUPPORTED_DATA_TYPE, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_UNSUPPORTED_DATA_TYPE"},
        {WNN_STATUS_WRONG_CONTEXT, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_WRONG_CONTEXT"},
        {WNN_STATUS_NOT_READABLE, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_NOT_READABLE"},
        {WNN_STATUS_NOT_WRITABLE, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_NOT_WRITABLE"},
        {WNN_STATUS_BYTE_LENGTH_MISMATCH, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_BYTE_LENGTH_MISMATCH"},
        {WNN_STATUS_CONSTANT_TENSOR, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_CONSTANT_TENSOR"},
        {WNN_STATUS_NAME_MISMATCH, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_NAME_MISMATCH"},
        {WNN_STATUS_DESCRIPTOR_MISMATCH, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_DESCRIPTOR_MISMATCH"},
        {WNN_STATUS_DUPLICATE_TENSOR, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_DUPLICATE_TENSOR"},
        {WNN_STATUS_DESTROYED_OBJECT, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_DESTROYED_OBJECT"},
        {WNN_STATUS_SHAPE_MISMATCH, WNN_STATUS_TYPE_ERROR, "WNN_STATUS_SHAPE_MISMATCH"},
        {WNN_STATUS_INVALID_STATE, WNN_STATUS_INVALID_STATE, "WNN_STATUS_INVALID_STATE"},
        {WNN_STATUS_DESTROYED, WNN_STATUS_INVALID_STATE, "WNN_STATUS_DESTROYED"},
        {WNN_STATUS_CONTEXT_LOST, WNN_STATUS_INVALID_STATE, "WNN_STATUS_CONTEXT_LOST"},
        {WNN_STATUS_ALREADY_BUILT, WNN_STATUS_INVALID_STATE, "WNN_STATUS_ALREADY_BUILT"},
        {WNN_STATUS_NOT_SUPPORTED, WNN_STATUS_NOT_SUPPORTED, "WNN_STATUS_NOT_SUPPORTED"},
        {WNN_STATUS_NO_SUCH_DEVICE, WNN_STATUS_NOT_SUPPORTED, "WNN_STATUS_NO_SUCH_DEVICE"},
        {WNN_STATUS_OPERATION_ERROR, WNN_STATUS_OPERATION_ERROR, "WNN_STATUS_OPERATION_ERROR"},
        {WNN_STATUS_OUT_OF_MEMORY, WNN_STATUS_OUT_OF_MEMORY, "WNN_STATUS_OUT_OF_MEMORY"},
        {WNN_STATUS_UNKNOWN, WNN_STATUS_UNKNOWN, "WNN_STATUS_UNKNOWN"},
    };
    for (size_t i = 0; i < COUNT_OF(table); i++) {
        CHECK_STATUS(wnn_status_class(table[i].s), table[i].cls);
        const char *name = wnn_status_string(table[i].s);
        if (!name || strcmp(name, table[i].name) != 0) {
            test_failed++;
            fprintf(stderr, "%s:%d: wnn_status_string(%d) is \"%s\", want \"%s\"\n", __FILE__, __LINE__,
                    (int)table[i].s, name ? name : "(null)", table[i].name);
        } else {
            test_passed++;
        }
    }
    const char *u = wnn_status_string((wnn_status)12345);
    CHECK(u && strcmp(u, "unknown status") == 0);
    u = wnn_status_string((wnn_status)117);
    CHECK(u && strcmp(u, "unknown status") == 0);
}

static void test_devices_and_contexts(void)
{
    CHECK(wnn_device_count() >= 1);
    wnn_device_info info;
    memset(&info, 0, sizeof info);
    CHECK_OK(wnn_device_get_info(0, &info));
    CHECK(info.name && strcmp(info.name, "cpu") == 0);
    CHECK(info.description != NULL);
    CHECK_EQ_INT(info.kind, WNN_DEVICE_KIND_CPU);
    CHECK_EQ_INT(info.dlpack_device_type, 1);
    CHECK(info.max_tensor_byte_length > 0);
    CHECK_STATUS(wnn_device_get_info(wnn_device_count(), &info), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_device_get_info(0, NULL), WNN_STATUS_INVALID_ARGUMENT);

    /* named device */
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = "cpu";
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    CHECK(ctx != NULL);
    if (ctx) {
        CHECK(!wnn_context_is_lost(ctx));
        wnn_device_info ci;
        CHECK_OK(wnn_context_get_device_info(ctx, &ci));
        CHECK(ci.name && strcmp(ci.name, "cpu") == 0);
        CHECK_EQ_INT(ci.max_tensor_byte_length, info.max_tensor_byte_length);
        CHECK_STATUS(wnn_context_get_device_info(ctx, NULL), WNN_STATUS_INVALID_ARGUMENT);
        CHECK_OK(wnn_context_finish(ctx));
        wnn_context_release(ctx);
    }

    /* defaults: NULL options and a default preference choose "cpu" */
    ctx = NULL;
    CHECK_OK(wnn_context_create(NULL, &ctx));
    if (ctx) {
        wnn_device_info ci;
        CHECK_OK(wnn_context_get_device_info(ctx, &ci));
        CHECK(ci.name && strcmp(ci.name, "cpu") == 0);
        wnn_context_release(ctx);
    }
    o.device = NULL;
    o.power_preference = WNN_POWER_PREFERENCE_LOW_POWER;
    ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (ctx) {
        wnn_device_info ci;
        CHECK_OK(wnn_context_get_device_info(ctx, &ci));
        CHECK(ci.name && strcmp(ci.name, "cpu") == 0);
        wnn_context_release(ctx);
    }

    /* unknown device */
    o = (wnn_context_options)WNN_CONTEXT_OPTIONS_INIT;
    o.device = "no-such-device";
    ctx = NULL;
    wnn_status s = wnn_context_create(&o, &ctx);
    CHECK_STATUS(s, WNN_STATUS_NO_SUCH_DEVICE);
    CHECK(ctx == NULL);
    CHECK(message_has("no-such-device"));
    CHECK(message_has("wnn_context_create"));
    o.device = "";
    ctx = NULL;
    CHECK_STATUS(wnn_context_create(&o, &ctx), WNN_STATUS_NO_SUCH_DEVICE);
    CHECK_STATUS(wnn_context_create(NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);

    /* releasing or destroying NULL is a no-op */
    wnn_context_release(NULL);
    wnn_context_destroy(NULL);
    wnn_tensor_release(NULL);
    wnn_tensor_destroy(NULL);
    wnn_graph_release(NULL);
    wnn_graph_destroy(NULL);
    wnn_graph_builder_release(NULL);
    test_passed++;
}

static void test_create_all_types(wnn_context *ctx)
{
    static const uint32_t shape[] = {2, 3};
    for (size_t i = 0; i < COUNT_OF(all_types); i++) {
        wnn_tensor_desc d = tdesc(all_types[i], true, true, 2, shape);
        wnn_tensor *t = NULL;
        CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
        if (!t)
            continue;
        CHECK_EQ_INT(wnn_tensor_data_type(t), all_types[i]);
        CHECK_EQ_INT(wnn_tensor_rank(t), 2);
        CHECK_EQ_INT(wnn_tensor_byte_length(t), 6 * all_sizes[i]);
        CHECK(wnn_tensor_is_readable(t));
        CHECK(wnn_tensor_is_writable(t));
        CHECK(!wnn_tensor_is_constant(t));
        CHECK(!wnn_tensor_is_destroyed(t));
        CHECK(wnn_tensor_context(t) == ctx);
        wnn_tensor_desc got;
        memset(&got, 0x5a, sizeof got);
        wnn_tensor_get_desc(t, &got);
        CHECK_EQ_INT(got.data_type, all_types[i]);
        CHECK_EQ_INT(got.rank, 2);
        CHECK_EQ_INT(got.shape[0], 2);
        CHECK_EQ_INT(got.shape[1], 3);
        CHECK(got.readable && got.writable);

        /* a new tensor reads as zeros */
        unsigned char buf[64];
        memset(buf, 0xcd, sizeof buf);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t, buf, 6 * all_sizes[i]));
        CHECK(all_bytes(buf, 6 * all_sizes[i], 0));
        wnn_tensor_release(t);
    }

    /* the usage flags are kept as given */
    static const uint32_t one[] = {4};
    for (int f = 0; f < 4; f++) {
        bool r = f & 1, w = (f >> 1) & 1;
        wnn_tensor *t = make(ctx, WNN_DATA_TYPE_INT32, r, w, 1, one);
        CHECK_EQ_INT(wnn_tensor_is_readable(t), r);
        CHECK_EQ_INT(wnn_tensor_is_writable(t), w);
        CHECK(!wnn_tensor_is_constant(t));
        wnn_tensor_desc got;
        wnn_tensor_get_desc(t, &got);
        CHECK_EQ_INT(got.readable, r);
        CHECK_EQ_INT(got.writable, w);
        wnn_tensor_release(t);
    }

    /* rank 8 (the maximum) is fine */
    static const uint32_t r8[] = {1, 2, 1, 2, 1, 2, 1, 2};
    CHECK_OK(try_create(ctx, WNN_DATA_TYPE_UINT8, 8, r8));
}

/* A byte length over the device's max_tensor_byte_length. */
static void check_byte_limit(wnn_context *ctx)
{
    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(ctx, &info));
    uint64_t limit = info.max_tensor_byte_length;
    uint64_t need = limit / 4 + 1; /* float32 elements just over the limit */
    if (need <= WNN_MAX_DIMENSION) {
        uint32_t shape[2] = {1, (uint32_t)need};
        CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 2, shape), WNN_STATUS_TENSOR_TOO_LARGE);
        CHECK(message_has("wnn_context_create_tensor"));
        /* just at the limit is not too large (it may not fit in memory, though) */
        if (limit % 4 == 0 && limit <= (64u << 20)) {
            shape[1] = (uint32_t)(limit / 4);
            CHECK_OK(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 2, shape));
        }
    } else {
        /* No float32 (nor any 8-byte type) shape the element rules allow can
        ** exceed the limit: a count just over it is refused earlier, by the
        ** element-count rule, which comes first. Check both facts. */
        CHECK(limit >= (uint64_t)WNN_MAX_DIMENSION * 4);
        uint64_t need8 = limit / 8 + 1;
        if (need8 <= WNN_MAX_DIMENSION) {
            uint32_t shape[1] = {(uint32_t)need8};
            CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_INT64, 1, shape), WNN_STATUS_TENSOR_TOO_LARGE);
        } else {
            uint32_t shape[2] = {(uint32_t)((need + 65535) / 65536), 65536};
            CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 2, shape), WNN_STATUS_TOO_MANY_ELEMENTS);
        }
    }
}

/* check_byte_limit() on every device there is. */
static void test_byte_limits(void)
{
    uint32_t n = wnn_device_count();
    for (uint32_t i = 0; i < n; i++) {
        wnn_device_info info;
        CHECK_OK(wnn_device_get_info(i, &info));
        wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
        o.device = info.name;
        wnn_context *ctx = NULL;
        CHECK_OK(wnn_context_create(&o, &ctx));
        if (!ctx)
            continue;
        wnn_device_info ci;
        CHECK_OK(wnn_context_get_device_info(ctx, &ci));
        CHECK(ci.name && strcmp(ci.name, info.name) == 0);
        check_byte_limit(ctx);
        wnn_context_release(ctx);
    }
}

static void test_descriptor_rules(wnn_context *ctx)
{
    static const uint32_t r9[] = {1, 1, 1, 1, 1, 1, 1, 1};
    wnn_tensor_desc d = tdesc(WNN_DATA_TYPE_FLOAT32, true, true, 8, r9);
    d.rank = 9; /* the shape array holds 8; the rank rule must reject it first */
    wnn_tensor *t = NULL;
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t), WNN_STATUS_INVALID_RANK);
    CHECK(message_has("wnn_context_create_tensor"));
    d.rank = 1000;
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t), WNN_STATUS_INVALID_RANK);

    static const uint32_t zero_dim[] = {2, 0, 3};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 3, zero_dim), WNN_STATUS_INVALID_DIMENSION);
    CHECK(message_has("wnn_context_create_tensor"));
    static const uint32_t zero_first[] = {0};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_UINT8, 1, zero_first), WNN_STATUS_INVALID_DIMENSION);
    static const uint32_t big_dim[] = {2, 2147483648u};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_UINT8, 2, big_dim), WNN_STATUS_INVALID_DIMENSION);
    static const uint32_t huge3[] = {4294967295u, 4294967295u, 4294967295u};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 3, huge3), WNN_STATUS_INVALID_DIMENSION);

    static const uint32_t too_many[] = {65536, 65536};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_UINT8, 2, too_many), WNN_STATUS_TOO_MANY_ELEMENTS);
    CHECK(message_has("wnn_context_create_tensor"));
    static const uint32_t just_over[] = {2, 1073741824u}; /* 2^31 elements */
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_UINT8, 2, just_over), WNN_STATUS_TOO_MANY_ELEMENTS);

    wnn_device_info info;
    CHECK_OK(wnn_context_get_device_info(ctx, &info));

    /* data types */
    static const uint32_t s2[] = {2, 2};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_INVALID, 2, s2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_STATUS(try_create(ctx, (wnn_data_type)99, 2, s2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    CHECK_STATUS(try_create(ctx, (wnn_data_type)-1, 2, s2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    /* INT4/UINT4 tensors exist only where the device's limits list them */
    wnn_context_limits limits = WNN_CONTEXT_LIMITS_INIT;
    CHECK_OK(wnn_context_get_limits(ctx, &limits));
    for (size_t i = 0; i < COUNT_OF(all_types); i++)
        CHECK(limits.input.data_types & WNN_DATA_TYPE_BIT(all_types[i]));
    CHECK_EQ_INT(limits.max_tensor_byte_length, info.max_tensor_byte_length);
    static const wnn_data_type packed[] = {WNN_DATA_TYPE_INT4, WNN_DATA_TYPE_UINT4};
    bool int4_supported = false;
    for (size_t i = 0; i < COUNT_OF(packed); i++) {
        static const uint32_t s3[] = {3};
        if (limits.input.data_types & WNN_DATA_TYPE_BIT(packed[i])) {
            int4_supported = true;
            wnn_tensor *p = NULL;
            wnn_tensor_desc pd = tdesc(packed[i], true, true, 1, s3);
            CHECK_OK(wnn_context_create_tensor(ctx, &pd, &p));
            if (p) {
                CHECK_EQ_INT(wnn_tensor_byte_length(p), 2); /* ceil(3/2) */
                unsigned char z[2] = {9, 9}, v[2] = {0x21, 0x03};
                CHECK_OK(wnn_context_read_tensor_sync(ctx, p, z, 2));
                CHECK(z[0] == 0 && z[1] == 0);
                CHECK_STATUS(wnn_context_write_tensor(ctx, p, v, 3), WNN_STATUS_BYTE_LENGTH_MISMATCH);
                CHECK_OK(wnn_context_write_tensor(ctx, p, v, 2));
                CHECK_OK(wnn_context_read_tensor_sync(ctx, p, z, 2));
                CHECK(z[0] == 0x21 && z[1] == 0x03);
                wnn_tensor_release(p);
            }
        } else {
            CHECK_STATUS(try_create(ctx, packed[i], 2, s2), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
        }
    }

    /* first failing rule wins: data type, rank, dimension, count */
    d = tdesc(WNN_DATA_TYPE_INVALID, true, true, 8, r9);
    d.rank = 9;
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t), WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    d.data_type = WNN_DATA_TYPE_INT4; /* unsupported by the device, or the rank rule */
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &t),
                 int4_supported ? WNN_STATUS_INVALID_RANK : WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    static const uint32_t zero_and_many[] = {65536, 65536, 0};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 3, zero_and_many), WNN_STATUS_INVALID_DIMENSION);
    CHECK_STATUS(try_create(ctx, (wnn_data_type)99, 3, zero_and_many), WNN_STATUS_UNSUPPORTED_DATA_TYPE);

    /* NULL arguments */
    d = tdesc(WNN_DATA_TYPE_FLOAT32, true, true, 2, s2);
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_create_tensor(ctx, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_create_tensor(NULL, &d, &t), WNN_STATUS_INVALID_ARGUMENT);
}

static void test_constant_tensors(wnn_context *ctx)
{
    float data[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 2, {2, 2}};
    wnn_tensor *c = NULL;
    CHECK_OK(wnn_context_create_constant_tensor(ctx, &od, data, sizeof data, &c));
    if (!c)
        return;
    CHECK(wnn_tensor_is_constant(c));
    CHECK(!wnn_tensor_is_readable(c));
    CHECK(!wnn_tensor_is_writable(c));
    CHECK(!wnn_tensor_is_destroyed(c));
    CHECK_EQ_INT(wnn_tensor_data_type(c), WNN_DATA_TYPE_FLOAT32);
    CHECK_EQ_INT(wnn_tensor_rank(c), 2);
    CHECK_EQ_INT(wnn_tensor_byte_length(c), 16);
    wnn_tensor_desc got;
    wnn_tensor_get_desc(c, &got);
    CHECK(!got.readable && !got.writable);
    CHECK_EQ_INT(got.shape[0], 2);
    CHECK_EQ_INT(got.shape[1], 2);

    /* cannot be written or read */
    CHECK_STATUS(wnn_context_write_tensor(ctx, c, data, sizeof data), WNN_STATUS_NOT_WRITABLE);
    CHECK(message_has("wnn_context_write_tensor"));
    reader r;
    reader_init(&r);
    CHECK_STATUS(wnn_context_read_tensor(ctx, c, on_read, &r), WNN_STATUS_NOT_READABLE);
    CHECK(message_has("wnn_context_read_tensor"));
    float buf[4];
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, c, buf, sizeof buf, on_read, &r), WNN_STATUS_NOT_READABLE);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, c, buf, sizeof buf), WNN_STATUS_NOT_READABLE);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(r.calls, 0); /* a failed call never runs its callback */
    reader_fini(&r);
    wnn_tensor_destroy(c);
    CHECK(wnn_tensor_is_destroyed(c));
    CHECK(wnn_tensor_is_constant(c)); /* attributes stay after destroy */
    wnn_tensor_release(c);

    /* byte length must match exactly */
    wnn_tensor *bad = NULL;
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &od, data, sizeof data - 1, &bad),
                 WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK(message_has("wnn_context_create_constant_tensor"));
    float five[5] = {0};
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &od, five, sizeof data + 1, &bad),
                 WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &od, five, sizeof five, &bad),
                 WNN_STATUS_BYTE_LENGTH_MISMATCH);

    /* descriptor rules apply */
    wnn_operand_desc zd = {WNN_DATA_TYPE_FLOAT32, 2, {2, 0}};
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &zd, data, 0, &bad), WNN_STATUS_INVALID_DIMENSION);
    wnn_operand_desc td = {(wnn_data_type)99, 1, {4}};
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &td, data, sizeof data, &bad),
                 WNN_STATUS_UNSUPPORTED_DATA_TYPE);
    wnn_operand_desc rd = {WNN_DATA_TYPE_FLOAT32, 9, {1, 1, 1, 1, 1, 1, 1, 1}};
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &rd, data, 4, &bad), WNN_STATUS_INVALID_RANK);
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, NULL, data, 4, &bad), WNN_STATUS_INVALID_ARGUMENT);

    /* a scalar constant of each type */
    for (size_t i = 0; i < COUNT_OF(all_types); i++) {
        wnn_operand_desc sd = {all_types[i], 0, {0}};
        unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        wnn_tensor *s = NULL;
        CHECK_OK(wnn_context_create_constant_tensor(ctx, &sd, bytes, all_sizes[i], &s));
        CHECK_EQ_INT(wnn_tensor_byte_length(s), all_sizes[i]);
        wnn_tensor_release(s);
    }
}

static void test_write_read_validation(wnn_context *ctx, wnn_context *other)
{
    static const uint32_t shape[] = {2, 2};
    wnn_tensor *rw = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 2, shape);
    wnn_tensor *ro = make(ctx, WNN_DATA_TYPE_FLOAT32, true, false, 2, shape);
    wnn_tensor *wo = make(ctx, WNN_DATA_TYPE_FLOAT32, false, true, 2, shape);
    float data[5] = {1, 2, 3, 4, 5};
    float buf[8];
    reader r;
    reader_init(&r);

    /* write: byte length exactly the tensor's */
    CHECK_STATUS(wnn_context_write_tensor(ctx, rw, data, 15), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK(message_has("wnn_context_write_tensor"));
    CHECK_STATUS(wnn_context_write_tensor(ctx, rw, data, 17), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_write_tensor(ctx, rw, data, 0), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_write_tensor(ctx, rw, NULL, 16), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_OK(wnn_context_write_tensor(ctx, rw, data, 16));
    memset(buf, 0, sizeof buf);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, rw, buf, 16));
    CHECK(memcmp(buf, data, 16) == 0);

    /* usage flags */
    CHECK_STATUS(wnn_context_write_tensor(ctx, ro, data, 16), WNN_STATUS_NOT_WRITABLE);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, ro, buf, 16));
    CHECK_OK(wnn_context_write_tensor(ctx, wo, data, 16));
    CHECK_STATUS(wnn_context_read_tensor(ctx, wo, on_read, &r), WNN_STATUS_NOT_READABLE);
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, wo, buf, 16, on_read, &r), WNN_STATUS_NOT_READABLE);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, wo, buf, 16), WNN_STATUS_NOT_READABLE);
    CHECK(message_has("wnn_context_read_tensor_sync"));

    /* NOT_WRITABLE is checked before the size */
    CHECK_STATUS(wnn_context_write_tensor(ctx, ro, data, 3), WNN_STATUS_NOT_WRITABLE);

    /* argument checks */
    CHECK_STATUS(wnn_context_read_tensor(ctx, rw, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, rw, NULL, 16, NULL, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, rw, NULL, 16), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_write_tensor(ctx, NULL, data, 16), WNN_STATUS_INVALID_ARGUMENT);

    /* a tensor of another context */
    CHECK_STATUS(wnn_context_write_tensor(other, rw, data, 16), WNN_STATUS_WRONG_CONTEXT);
    CHECK(message_has("wnn_context_write_tensor"));
    CHECK_STATUS(wnn_context_read_tensor(other, rw, on_read, &r), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(wnn_context_read_tensor_into(other, rw, buf, 16, on_read, &r), WNN_STATUS_WRONG_CONTEXT);
    CHECK_STATUS(wnn_context_read_tensor_sync(other, rw, buf, 16), WNN_STATUS_WRONG_CONTEXT);
    /* WRONG_CONTEXT comes before usage and size */
    CHECK_STATUS(wnn_context_write_tensor(other, ro, data, 3), WNN_STATUS_WRONG_CONTEXT);

    CHECK_OK(wnn_context_finish(ctx));
    CHECK_OK(wnn_context_finish(other));
    CHECK_EQ_INT(r.calls, 0);
    reader_fini(&r);
    wnn_tensor_release(rw);
    wnn_tensor_release(ro);
    wnn_tensor_release(wo);
}

static void test_destroyed(wnn_policy policy, wnn_status want)
{
    wnn_context *ctx = new_context(policy);
    static const uint32_t shape[] = {3};
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_INT32, true, true, 1, shape);
    int32_t v[3] = {7, 8, 9}, buf[3];
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    wnn_tensor_destroy(t);
    CHECK(wnn_tensor_is_destroyed(t));
    wnn_tensor_destroy(t); /* twice is fine */
    CHECK(wnn_tensor_is_destroyed(t));
    /* attributes stay readable */
    CHECK_EQ_INT(wnn_tensor_data_type(t), WNN_DATA_TYPE_INT32);
    CHECK_EQ_INT(wnn_tensor_byte_length(t), 12);
    CHECK_EQ_INT(wnn_tensor_rank(t), 1);
    CHECK(wnn_tensor_is_readable(t) && wnn_tensor_is_writable(t));
    CHECK(wnn_tensor_context(t) == ctx);

    reader r;
    reader_init(&r);
    CHECK_STATUS(wnn_context_write_tensor(ctx, t, v, sizeof v), want);
    CHECK(message_has("wnn_context_write_tensor"));
    CHECK_STATUS(wnn_context_read_tensor(ctx, t, on_read, &r), want);
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, t, buf, sizeof buf, on_read, &r), want);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, t, buf, sizeof buf), want);
    CHECK(message_has("wnn_context_read_tensor_sync"));
    /* destroyed is checked before size */
    CHECK_STATUS(wnn_context_write_tensor(ctx, t, v, 1), want);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(r.calls, 0);
    reader_fini(&r);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
}

/* Keeps the context's worker busy with large writes, so that whatever is
** recorded next runs later than the call that recorded it. */
static wnn_tensor *queue_busy_work(wnn_context *ctx, void **scratch)
{
    static const uint32_t big[] = {8 << 20}; /* 32 MiB of float32 */
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, false, true, 1, big);
    size_t n = (size_t)big[0] * 4;
    *scratch = calloc(1, n);
    for (int i = 0; i < 4 && *scratch; i++)
        CHECK_OK(wnn_context_write_tensor(ctx, t, *scratch, n));
    return t;
}

static void test_write_copies_at_call_time(wnn_context *ctx)
{
    static const uint32_t shape[] = {4};
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 1, shape);
    void *scratch;
    wnn_tensor *busy = queue_busy_work(ctx, &scratch);
    float src[4] = {1.5f, -2.5f, 3.5f, -4.5f};
    const float want[4] = {1.5f, -2.5f, 3.5f, -4.5f};
    CHECK_OK(wnn_context_write_tensor(ctx, t, src, sizeof src));
    for (int i = 0; i < 4; i++) /* the caller reuses its buffer at once */
        src[i] = 100.0f + (float)i;
    memset(src, 0xff, sizeof src);
    float got[4] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, got, sizeof got));
    CHECK(memcmp(got, want, sizeof want) == 0);
    wnn_tensor_release(busy);
    free(scratch);
    wnn_tensor_release(t);
}

static void test_read_variants(wnn_context *ctx)
{
    static const uint32_t shape[] = {2, 2};
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 2, shape);
    const float v[4] = {0.25f, -1.0f, 1e30f, -0.0f};
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));

    /* async read with a copy: wait on a condition variable */
    reader r;
    reader_init(&r);
    CHECK_OK(wnn_context_read_tensor(ctx, t, on_read, &r));
    reader_wait(&r);
    CHECK_STATUS(r.status, WNN_OK);
    CHECK(strcmp(r.message, "") == 0);
    CHECK(r.data_ptr != NULL);
    CHECK_EQ_INT(r.byte_length, 16);
    CHECK(memcmp(r.bytes, v, 16) == 0);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(r.calls, 1); /* exactly once */
    reader_fini(&r);

    /* async read, then wait with finish */
    reader_init(&r);
    CHECK_OK(wnn_context_read_tensor(ctx, t, on_read, &r));
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(r.calls, 1);
    CHECK_STATUS(r.status, WNN_OK);
    CHECK(memcmp(r.bytes, v, 16) == 0);
    reader_fini(&r);

    /* BYOB: exact size, the callback sees the caller's buffer */
    float into[4] = {9, 9, 9, 9};
    reader_init(&r);
    CHECK_OK(wnn_context_read_tensor_into(ctx, t, into, sizeof into, on_read, &r));
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(r.calls, 1);
    CHECK_STATUS(r.status, WNN_OK);
    CHECK(r.data_ptr == (const void *)into);
    CHECK_EQ_INT(r.byte_length, 16);
    CHECK(memcmp(into, v, 16) == 0);
    reader_fini(&r);

    /* BYOB larger than the tensor (default policy): tail untouched; NULL callback */
    unsigned char large[24];
    memset(large, 0xab, sizeof large);
    CHECK_OK(wnn_context_read_tensor_into(ctx, t, large, sizeof large, NULL, NULL));
    CHECK_OK(wnn_context_finish(ctx));
    CHECK(memcmp(large, v, 16) == 0);
    CHECK(all_bytes(large + 16, 8, 0xab));

    /* BYOB smaller */
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, t, large, 15, NULL, NULL), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK(message_has("wnn_context_read_tensor_into"));
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, t, large, 0, NULL, NULL), WNN_STATUS_BYTE_LENGTH_MISMATCH);

    /* sync: exact, larger (tail untouched), smaller */
    float s[4] = {0};
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, s, sizeof s));
    CHECK(memcmp(s, v, 16) == 0);
    memset(large, 0x11, sizeof large);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, large, sizeof large));
    CHECK(memcmp(large, v, 16) == 0);
    CHECK(all_bytes(large + 16, 8, 0x11));
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, t, s, 12), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    wnn_tensor_release(t);

    /* WNN_POLICY_SPEC: BYOB buffers must match exactly */
    wnn_context *spec = new_context(WNN_POLICY_SPEC);
    wnn_tensor *u = make(spec, WNN_DATA_TYPE_FLOAT32, true, true, 2, shape);
    CHECK_OK(wnn_context_write_tensor(spec, u, v, sizeof v));
    CHECK_STATUS(wnn_context_read_tensor_into(spec, u, large, sizeof large, NULL, NULL),
                 WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_read_tensor_into(spec, u, large, 17, NULL, NULL), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_read_tensor_into(spec, u, large, 15, NULL, NULL), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_context_read_tensor_sync(spec, u, large, sizeof large), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    memset(s, 0, sizeof s);
    CHECK_OK(wnn_context_read_tensor_into(spec, u, s, sizeof s, NULL, NULL));
    CHECK_OK(wnn_context_finish(spec));
    CHECK(memcmp(s, v, 16) == 0);
    memset(s, 0, sizeof s);
    CHECK_OK(wnn_context_read_tensor_sync(spec, u, s, sizeof s));
    CHECK(memcmp(s, v, 16) == 0);
    /* the other rules are the same under SPEC */
    wnn_tensor *wo = make(spec, WNN_DATA_TYPE_FLOAT32, false, true, 2, shape);
    CHECK_STATUS(wnn_context_read_tensor_sync(spec, wo, s, sizeof s), WNN_STATUS_NOT_READABLE);
    CHECK_STATUS(wnn_context_write_tensor(spec, u, v, 15), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    wnn_tensor_release(wo);
    wnn_tensor_release(u);
    wnn_context_release(spec);
}

static void test_scalars(wnn_context *ctx)
{
    wnn_tensor *f = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 0, NULL);
    CHECK_EQ_INT(wnn_tensor_rank(f), 0);
    CHECK_EQ_INT(wnn_tensor_byte_length(f), 4);
    float z = 1.0f;
    CHECK_OK(wnn_context_read_tensor_sync(ctx, f, &z, sizeof z));
    CHECK(z == 0.0f);
    float v = 3.5f, got = 0;
    CHECK_OK(wnn_context_write_tensor(ctx, f, &v, sizeof v));
    CHECK_STATUS(wnn_context_write_tensor(ctx, f, &v, 3), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, f, &got, sizeof got));
    CHECK(got == 3.5f);
    wnn_tensor_release(f);

    wnn_tensor *i = make(ctx, WNN_DATA_TYPE_INT64, true, true, 0, NULL);
    CHECK_EQ_INT(wnn_tensor_byte_length(i), 8);
    int64_t iv = INT64_MIN + 12345, ig = 0;
    CHECK_OK(wnn_context_write_tensor(ctx, i, &iv, sizeof iv));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, i, &ig, sizeof ig));
    CHECK(ig == iv);
    wnn_tensor_desc d;
    wnn_tensor_get_desc(i, &d);
    CHECK_EQ_INT(d.rank, 0);
    wnn_tensor_release(i);
}

static void test_roundtrip_all_types(wnn_context *ctx)
{
    static const uint32_t shape[] = {3, 5};
    for (size_t k = 0; k < COUNT_OF(all_types); k++) {
        wnn_tensor *t = make(ctx, all_types[k], true, true, 2, shape);
        size_t n = 15 * all_sizes[k];
        unsigned char src[120], dst[120];
        for (size_t i = 0; i < n; i++)
            src[i] = (unsigned char)(i * 37 + k);
        CHECK_OK(wnn_context_write_tensor(ctx, t, src, n));
        memset(dst, 0, sizeof dst);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t, dst, n));
        CHECK(memcmp(src, dst, n) == 0);
        wnn_tensor_release(t);
    }
}

static void test_last_error(wnn_context *ctx)
{
    static const uint32_t zero[] = {1, 0};
    CHECK_STATUS(try_create(ctx, WNN_DATA_TYPE_FLOAT32, 2, zero), WNN_STATUS_INVALID_DIMENSION);
    const char *m = wnn_last_error_message();
    CHECK(m != NULL && m[0] != '\0');
    CHECK(message_has("wnn_context_create_tensor"));
    CHECK(message_has("shape[1]"));
    /* the message stays until the next failing call */
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 1, zero);
    CHECK(message_has("wnn_context_create_tensor"));
    CHECK_STATUS(wnn_context_write_tensor(ctx, t, &t, 3), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK(message_has("wnn_context_write_tensor"));
    wnn_tensor_release(t);
}

static void *fail_in_thread(void *arg)
{
    wnn_context *ctx = arg;
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.data_type = (wnn_data_type)77;
    wnn_tensor *t = NULL;
    wnn_status s = wnn_context_create_tensor(ctx, &d, &t);
    static char copy[512];
    snprintf(copy, sizeof copy, "%d %s", (int)s, wnn_last_error_message());
    return copy;
}

static void test_last_error_is_per_thread(wnn_context *ctx)
{
    wnn_tensor *t = NULL;
    CHECK_STATUS(wnn_context_create_tensor(ctx, NULL, &t), WNN_STATUS_INVALID_ARGUMENT);
    char before[512];
    snprintf(before, sizeof before, "%s", wnn_last_error_message());
    CHECK(before[0] != '\0');
    pthread_t th;
    void *ret = NULL;
    CHECK(pthread_create(&th, NULL, fail_in_thread, ctx) == 0);
    pthread_join(th, &ret);
    /* the other thread saw its own failure ... */
    CHECK(ret && strncmp((const char *)ret, "106 ", 4) == 0);
    CHECK(ret && strstr((const char *)ret, "wnn_context_create_tensor") != NULL);
    /* ... and this thread's message did not change */
    CHECK(strcmp(wnn_last_error_message(), before) == 0);
}

static void test_context_lost(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM);
    static const uint32_t shape[] = {2};
    wnn_tensor *t = make(ctx, WNN_DATA_TYPE_FLOAT32, true, true, 1, shape);
    float v[2] = {1, 2}, buf[2];
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    CHECK(!wnn_context_is_lost(ctx));
    wnn_context_destroy(ctx);
    CHECK(wnn_context_is_lost(ctx));
    wnn_context_destroy(ctx); /* idempotent */
    CHECK(wnn_context_is_lost(ctx));
    /* its tensors are destroyed */
    CHECK(wnn_tensor_is_destroyed(t));

    wnn_tensor_desc d = tdesc(WNN_DATA_TYPE_FLOAT32, true, true, 1, shape);
    wnn_tensor *u = NULL;
    CHECK_STATUS(wnn_context_create_tensor(ctx, &d, &u), WNN_STATUS_CONTEXT_LOST);
    CHECK(message_has("wnn_context_create_tensor"));
    /* context lost is the first rule */
    wnn_tensor_desc bad = tdesc((wnn_data_type)99, true, true, 1, shape);
    CHECK_STATUS(wnn_context_create_tensor(ctx, &bad, &u), WNN_STATUS_CONTEXT_LOST);
    wnn_operand_desc od = {WNN_DATA_TYPE_FLOAT32, 1, {2}};
    CHECK_STATUS(wnn_context_create_constant_tensor(ctx, &od, v, sizeof v, &u), WNN_STATUS_CONTEXT_LOST);
    CHECK_STATUS(wnn_context_write_tensor(ctx, t, v, sizeof v), WNN_STATUS_CONTEXT_LOST);
    reader r;
    reader_init(&r);
    CHECK_STATUS(wnn_context_read_tensor(ctx, t, on_read, &r), WNN_STATUS_CONTEXT_LOST);
    CHECK_STATUS(wnn_context_read_tensor_into(ctx, t, buf, sizeof buf, on_read, &r), WNN_STATUS_CONTEXT_LOST);
    CHECK_STATUS(wnn_context_read_tensor_sync(ctx, t, buf, sizeof buf), WNN_STATUS_CONTEXT_LOST);
    wnn_graph_builder *b = NULL;
    CHECK_STATUS(wnn_graph_builder_create(ctx, &b), WNN_STATUS_CONTEXT_LOST);
    CHECK(message_has("wnn_graph_builder_create"));
    CHECK_STATUS(wnn_context_finish(ctx), WNN_STATUS_CONTEXT_LOST);
    CHECK_EQ_INT(r.calls, 0);
    reader_fini(&r);
    wnn_tensor_release(t);
    wnn_context_release(ctx);

    /* a tensor released after its context */
    ctx = new_context(WNN_POLICY_CHROMIUM);
    t = make(ctx, WNN_DATA_TYPE_UINT8, true, true, 1, shape);
    wnn_context_release(ctx);
    CHECK(wnn_tensor_is_destroyed(t));
    CHECK_EQ_INT(wnn_tensor_byte_length(t), 2);
    wnn_tensor_release(t);
}

int main(void)
{
    test_version_and_types();
    test_statuses();
    test_devices_and_contexts();

    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM);
    wnn_context *other = new_context(WNN_POLICY_CHROMIUM);
    test_create_all_types(ctx);
    test_descriptor_rules(ctx);
    test_byte_limits();
    test_constant_tensors(ctx);
    test_write_read_validation(ctx, other);
    test_destroyed(WNN_POLICY_CHROMIUM, WNN_STATUS_DESTROYED);
    test_destroyed(WNN_POLICY_SPEC, WNN_STATUS_DESTROYED_OBJECT);
    test_write_copies_at_call_time(ctx);
    test_read_variants(ctx);
    test_scalars(ctx);
    test_roundtrip_all_types(ctx);
    test_last_error(ctx);
    test_last_error_is_per_thread(ctx);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_context_release(other);
    wnn_context_release(ctx);
    test_context_lost();
    TEST_DONE();
}
