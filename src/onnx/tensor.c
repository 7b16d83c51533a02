/*
** tensor.c -- host arrays: ONNX data types, decoding TensorProto (inline,
** raw or external data), element access for folding, whole-file reads, and
** the public wnn_onnx_array functions (TensorProto and .npy files).
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_internal.h"

size_t onx_type_size(wnn_data_type t)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: case WNN_DATA_TYPE_INT32: case WNN_DATA_TYPE_UINT32: return 4;
    case WNN_DATA_TYPE_FLOAT16: return 2;
    case WNN_DATA_TYPE_INT64: case WNN_DATA_TYPE_UINT64: return 8;
    case WNN_DATA_TYPE_INT8: case WNN_DATA_TYPE_UINT8: return 1;
    default: return 0;
    }
}

bool onx_type_is_float(wnn_data_type t) { return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16; }

bool onx_type_from_onnx(int32_t onnx_type, wnn_data_type *out)
{
    switch (onnx_type) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: *out = WNN_DATA_TYPE_FLOAT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: *out = WNN_DATA_TYPE_FLOAT16; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: *out = WNN_DATA_TYPE_INT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: *out = WNN_DATA_TYPE_UINT32; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: *out = WNN_DATA_TYPE_INT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: *out = WNN_DATA_TYPE_UINT64; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: *out = WNN_DATA_TYPE_INT8; return true;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        *out = WNN_DATA_TYPE_UINT8;
        return true;
    default: return false;
    }
}

const char *onx_onnx_type_name(int32_t t)
{
    static const char *const names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32",
                                        "int64", "string", "bool", "float16", "double", "uint32", "uint64",
                                        "complex64", "complex128", "bfloat16"};
    return t >= 0 && (size_t)t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

onx_const *onx_const_new(wnn_data_type type, uint32_t rank, const int64_t *dims)
{
    size_t count = 1;
    if (rank > WNN_MAX_RANK)
        return NULL;
    for (uint32_t i = 0; i < rank; i++)
        if (dims[i] < 0 || __builtin_mul_overflow(count, (size_t)dims[i], &count))
            return NULL;
    onx_const *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->type = type;
    c->rank = rank;
    c->count = count;
    for (uint32_t i = 0; i < rank; i++)
        c->dims[i] = dims[i];
    c->data = calloc(c->count ? c->count : 1, onx_type_size(type) ? onx_type_size(type) : 1);
    if (c->data == NULL) {
        free(c);
        return NULL;
    }
    return c;
}

void onx_const_free(onx_const *c)
{
    if (c != NULL) {
        free(c->data);
        free(c);
    }
}

onx_const *onx_const_copy(const onx_const *c)
{
    onx_const *r = onx_const_new(c->type, c->rank, c->dims);
    if (r != NULL)
        memcpy(r->data, c->data, c->count * onx_type_size(c->type));
    return r;
}

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 31u, man = h & 0x3ffu, bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {
            exp = 113;
            while ((man & 0x400u) == 0) {
                man <<= 1;
                exp--;
            }
            bits = sign | (exp << 23) | ((man & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (man << 13);
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u, exp = (x >> 23) & 0xffu, man = x & 0x7fffffu;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e), half = man >> shift, rest = man & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rest > mid || (rest == mid && (half & 1u)))
            half++;
        return (uint16_t)(sign | half);
    }
    uint32_t h = sign | ((uint32_t)e << 10) | (man >> 13), rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        h++;
    return (uint16_t)h;
}

int64_t onx_get_i64(const onx_const *c, size_t i)
{
    const void *p = c->data;
    switch (c->type) {
    case WNN_DATA_TYPE_INT64: return ((const int64_t *)p)[i];
    case WNN_DATA_TYPE_UINT64: return (int64_t)((const uint64_t *)p)[i];
    case WNN_DATA_TYPE_INT32: return ((const int32_t *)p)[i];
    case WNN_DATA_TYPE_UINT32: return ((const uint32_t *)p)[i];
    case WNN_DATA_TYPE_INT8: return ((const int8_t *)p)[i];
    case WNN_DATA_TYPE_UINT8: return ((const uint8_t *)p)[i];
    default: {
        return onx_f64_to_i64(onx_get_f64(c, i));
    }
    }
}

double onx_get_f64(const onx_const *c, size_t i)
{
    switch (c->type) {
    case WNN_DATA_TYPE_FLOAT32: return ((const float *)c->data)[i];
    case WNN_DATA_TYPE_FLOAT16: return half_to_float(((const uint16_t *)c->data)[i]);
    case WNN_DATA_TYPE_UINT64: return (double)((const uint64_t *)c->data)[i];
    default: return (double)onx_get_i64(c, i);
    }
}

void onx_set_i64(onx_const *c, size_t i, int64_t v)
{
    void *p = c->data;
    switch (c->type) {
    case WNN_DATA_TYPE_INT64: ((int64_t *)p)[i] = v; break;
    case WNN_DATA_TYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case WNN_DATA_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case WNN_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case WNN_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case WNN_DATA_TYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    default: onx_set_f64(c, i, (double)v); break;
    }
}

int64_t onx_f64_to_i64(double v)
{
    return v != v ? 0 : v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : (int64_t)v;
}

void onx_set_f64(onx_const *c, size_t i, double v)
{
    switch (c->type) {
    case WNN_DATA_TYPE_FLOAT32: ((float *)c->data)[i] = (float)v; break;
    case WNN_DATA_TYPE_FLOAT16: ((uint16_t *)c->data)[i] = float_to_half((float)v); break;
    default:
        /* ONNX's Cast truncates toward zero; NaN becomes 0 */
        onx_set_i64(c, i, onx_f64_to_i64(v));
        break;
    }
}

wnn_status onx_read_file(const char *path, size_t max, void **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot open '%s': %s", path, strerror(errno));
        return WNN_STATUS_OPERATION_ERROR;
    }
    if (fseeko(f, 0, SEEK_END) != 0) {
        fclose(f);
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot seek '%s': %s", path, strerror(errno));
        return WNN_STATUS_OPERATION_ERROR;
    }
    off_t len = ftello(f);
    rewind(f);
    if (len < 0 || (uint64_t)len > max) {
        fclose(f);
        onx_set_error(WNN_STATUS_NOT_SUPPORTED, "'%s' is %lld bytes, more than the %zu a model may have", path,
                      (long long)len, max);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    void *buf = malloc(len ? (size_t)len : 1);
    if (buf == NULL) {
        fclose(f);
        onx_set_error(WNN_STATUS_OUT_OF_MEMORY, "reading '%s': out of memory", path);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        free(buf);
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot read '%s'", path);
        return WNN_STATUS_OPERATION_ERROR;
    }
    *data = buf;
    *size = (size_t)len;
    return WNN_OK;
}

wnn_status onx_map_file(const char *path, size_t max, void **data, size_t *size, bool *mapped)
{
    *data = NULL;
    *size = 0;
    *mapped = false;
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot open '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return WNN_STATUS_OPERATION_ERROR;
    }
    if (!S_ISREG(sb.st_mode) || sb.st_size == 0 || (uint64_t)sb.st_size > max) {
        close(fd); /* read it instead, which reports what is wrong */
        return onx_read_file(path, max, data, size);
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return onx_read_file(path, max, data, size);
    *data = p;
    *size = (size_t)sb.st_size;
    *mapped = true;
    return WNN_OK;
}

void onx_unmap_file(void *data, size_t size, bool mapped)
{
    if (mapped)
        munmap(data, size);
    else
        free(data);
}

/* Reads an external-data tensor's bytes: the file is relative to base_dir
** and may not climb out of it. With dst NULL it only checks that the file
** holds them, so that nothing is allocated for data that is not there. */
static wnn_status read_external(const Onnx__TensorProto *t, const char *base_dir, size_t want, void *dst)
{
    const char *location = NULL;
    int64_t offset = 0, length = -1;
    for (size_t i = 0; i < t->n_external_data; i++) {
        const Onnx__StringStringEntryProto *e = t->external_data[i];
        if (e->key == NULL || e->value == NULL)
            continue;
        if (strcmp(e->key, "location") == 0)
            location = e->value;
        else if (strcmp(e->key, "offset") == 0)
            offset = strtoll(e->value, NULL, 10);
        else if (strcmp(e->key, "length") == 0)
            length = strtoll(e->value, NULL, 10);
    }
    const char *tname = t->name ? t->name : "";
    if (location == NULL || location[0] == '\0') {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': external data without a location", tname);
        return WNN_STATUS_OPERATION_ERROR;
    }
    if (location[0] == '/' || strstr(location, "..") != NULL) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR,
                      "tensor '%s': external data location '%s' must stay inside the model's folder", tname,
                      location);
        return WNN_STATUS_OPERATION_ERROR;
    }
    if (offset < 0 || (length >= 0 && (uint64_t)length != want)) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR,
                      "tensor '%s': external data offset %lld length %lld, the tensor needs %zu bytes", tname,
                      (long long)offset, (long long)length, want);
        return WNN_STATUS_OPERATION_ERROR;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", base_dir && base_dir[0] ? base_dir : ".", location);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': cannot open external data '%s': %s", tname, path,
                      strerror(errno));
        return WNN_STATUS_OPERATION_ERROR;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': external data '%s' is not a file", tname, path);
        return WNN_STATUS_OPERATION_ERROR;
    }
    size_t got = want;
    if ((uint64_t)sb.st_size < (uint64_t)offset + want)
        got = (uint64_t)sb.st_size > (uint64_t)offset ? (size_t)(sb.st_size - offset) : 0;
    else if (dst != NULL)
        got = fseeko(f, (off_t)offset, SEEK_SET) == 0 ? fread(dst, 1, want, f) : 0;
    fclose(f);
    if (got != want) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR,
                      "tensor '%s': external data '%s' ends early (%zu of %zu bytes at offset %lld)", tname, path,
                      got, want, (long long)offset);
        return WNN_STATUS_OPERATION_ERROR;
    }
    return WNN_OK;
}

wnn_status onx_tensor_decode(const Onnx__TensorProto *t, const char *base_dir, onx_const **out)
{
    *out = NULL;
    const char *tname = t->name ? t->name : "";
    wnn_data_type type;
    if (!onx_type_from_onnx(t->data_type, &type)) {
        onx_set_error(WNN_STATUS_NOT_SUPPORTED, "tensor '%s': data type %s has no WebNN equivalent", tname,
                      onx_onnx_type_name(t->data_type));
        return WNN_STATUS_NOT_SUPPORTED;
    }
    if (t->n_dims > WNN_MAX_RANK) {
        onx_set_error(WNN_STATUS_NOT_SUPPORTED, "tensor '%s': rank %zu is over WebNN's %d", tname, t->n_dims,
                      WNN_MAX_RANK);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    uint64_t count = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0 || t->dims[i] > (int64_t)WNN_MAX_DIMENSION) {
            onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': dims[%zu] is %lld", tname, i,
                          (long long)t->dims[i]);
            return WNN_STATUS_OPERATION_ERROR;
        }
        count *= (uint64_t)t->dims[i];
        if (count > (1ull << 40)) {
            onx_set_error(WNN_STATUS_NOT_SUPPORTED, "tensor '%s' is too large", tname);
            return WNN_STATUS_NOT_SUPPORTED;
        }
    }
    /* the data must be there before its shape is allocated: a few bytes of
    ** dims must not cost gigabytes */
    size_t esize = onx_type_size(type), bytes = (size_t)count * esize;
    int32_t dt = t->data_type;
    bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    size_t n_typed = dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT   ? t->n_float_data
                     : dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? t->n_int64_data
                     : dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 || dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64
                         ? t->n_uint64_data
                         : t->n_int32_data; /* float16 bits and the small integers, one per int32 */
    wnn_status st = external ? read_external(t, base_dir, bytes, NULL) : WNN_OK;
    if (st != WNN_OK)
        return st;
    if (!external && t->has_raw_data && t->raw_data.len != bytes) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': raw_data has %zu bytes, its shape needs %zu", tname,
                      t->raw_data.len, bytes);
        return WNN_STATUS_OPERATION_ERROR;
    }
    if (!external && !t->has_raw_data && n_typed != count) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "tensor '%s': %zu values, its shape needs %llu", tname, n_typed,
                      (unsigned long long)count);
        return WNN_STATUS_OPERATION_ERROR;
    }
    onx_const *c = onx_const_new(type, (uint32_t)t->n_dims, t->dims);
    if (c == NULL) {
        onx_set_error(WNN_STATUS_OUT_OF_MEMORY, "tensor '%s': out of memory", tname);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    if (external) {
        if ((st = read_external(t, base_dir, bytes, c->data)) != WNN_OK) {
            onx_const_free(c);
            return st;
        }
        *out = c;
        return WNN_OK;
    }
    if (t->has_raw_data) {
        if (bytes >= 4096) { /* take protobuf-c's copy rather than copy it again */
            Onnx__TensorProto *owned = (Onnx__TensorProto *)t;
            free(c->data);
            c->data = owned->raw_data.data;
            owned->raw_data.data = NULL;
            owned->raw_data.len = 0;
            owned->has_raw_data = 0;
        } else if (bytes) {
            memcpy(c->data, t->raw_data.data, bytes);
        }
        *out = c;
        return WNN_OK;
    }
    if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64) {
        if (bytes)
            memcpy(c->data, dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT ? (void *)t->float_data : (void *)t->int64_data,
                   bytes);
    } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT32 || dt == ONNX__TENSOR_PROTO__DATA_TYPE__UINT64) {
        for (size_t i = 0; i < c->count; i++)
            onx_set_i64(c, i, (int64_t)t->uint64_data[i]);
    } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16) {
        for (size_t i = 0; i < c->count; i++)
            ((uint16_t *)c->data)[i] = (uint16_t)t->int32_data[i];
    } else {
        for (size_t i = 0; i < c->count; i++)
            onx_set_i64(c, i, t->int32_data[i]);
    }
    *out = c;
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Public host arrays                                                        */
/* ------------------------------------------------------------------------ */

void wnn_onnx_array_free(wnn_onnx_array *a)
{
    if (a == NULL)
        return;
    free(a->name);
    free(a->data);
    memset(a, 0, sizeof *a);
}

static wnn_status array_from_const(onx_const *c, const char *name, wnn_onnx_array *out)
{
    for (uint32_t i = 0; i < c->rank; i++)
        out->shape[i] = (uint32_t)c->dims[i];
    out->name = strdup(name);
    if (out->name == NULL)
        return WNN_STATUS_OUT_OF_MEMORY;
    out->data_type = c->type;
    out->rank = c->rank;
    out->byte_length = c->count * onx_type_size(c->type);
    out->data = c->data;
    c->data = NULL;
    return WNN_OK;
}

wnn_status wnn_onnx_array_read_tensor_proto(const char *path, wnn_onnx_array *out)
{
    if (path == NULL || out == NULL) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "wnn_onnx_array_read_tensor_proto: NULL %s",
                      path ? "out" : "path");
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    void *bytes;
    size_t size;
    wnn_status st = onx_read_file(path, (size_t)INT_MAX, &bytes, &size);
    if (st != WNN_OK)
        return st;
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, size, bytes);
    free(bytes);
    if (t == NULL) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "'%s' is not a valid TensorProto (truncated or corrupt)", path);
        return WNN_STATUS_OPERATION_ERROR;
    }
    char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    onx_const *c;
    st = onx_tensor_decode(t, dir, &c);
    if (st == WNN_OK) {
        st = array_from_const(c, t->name ? t->name : "", out);
        onx_const_free(c);
    }
    onnx__tensor_proto__free_unpacked(t, NULL);
    return st;
}

/* ---- .npy (NumPy's format: magic, version, header length, a Python dict
** literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }, data) ---- */

static const struct {
    const char *descr;
    wnn_data_type type;
} npy_types[] = {
    {"f4", WNN_DATA_TYPE_FLOAT32}, {"f2", WNN_DATA_TYPE_FLOAT16}, {"i4", WNN_DATA_TYPE_INT32},
    {"u4", WNN_DATA_TYPE_UINT32},  {"i8", WNN_DATA_TYPE_INT64},   {"u8", WNN_DATA_TYPE_UINT64},
    {"i1", WNN_DATA_TYPE_INT8},    {"u1", WNN_DATA_TYPE_UINT8},   {"b1", WNN_DATA_TYPE_UINT8},
};

wnn_status wnn_onnx_array_read_npy(const char *path, wnn_onnx_array *out)
{
    if (path == NULL || out == NULL) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "wnn_onnx_array_read_npy: NULL %s", path ? "out" : "path");
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    unsigned char *b;
    size_t size;
    wnn_status st = onx_read_file(path, (size_t)INT_MAX, (void **)&b, &size);
    if (st != WNN_OK)
        return st;
    st = WNN_STATUS_OPERATION_ERROR;
    const char *why = "not a .npy file";
    size_t hlen = 0, hstart = 0;
    if (size >= 10 && memcmp(b, "\x93NUMPY", 6) == 0) {
        if (b[6] == 1) {
            hlen = b[8] | (size_t)b[9] << 8;
            hstart = 10;
        } else if ((b[6] == 2 || b[6] == 3) && size >= 12) {
            hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
            hstart = 12;
        }
    }
    char header[1024] = "";
    if (hstart && hstart + hlen <= size && hlen < sizeof header) {
        memcpy(header, b + hstart, hlen);
        header[hlen] = '\0';
        why = NULL;
    }
    const char *d = why ? NULL : strstr(header, "'descr':");
    const char *fo = why ? NULL : strstr(header, "'fortran_order':");
    const char *sh = why ? NULL : strstr(header, "'shape':");
    if (why == NULL && (d == NULL || fo == NULL || sh == NULL))
        why = "header lacks descr, fortran_order or shape";
    if (why == NULL && strncmp(fo + 16, " False", 6) != 0)
        why = "Fortran order is not supported (save C-ordered arrays)";
    if (why == NULL) {
        const char *q = strchr(d + 8, '\'');
        char descr[16] = "";
        if (q != NULL)
            sscanf(q + 1, "%15[^']", descr);
        const char *code = descr[0] == '<' || descr[0] == '|' ? descr + 1 : NULL;
        why = "dtype is not one of f4 f2 i4 u4 i8 u8 i1 u1 b1 (little-endian)";
        for (size_t i = 0; code != NULL && i < sizeof npy_types / sizeof npy_types[0]; i++)
            if (strcmp(code, npy_types[i].descr) == 0) {
                out->data_type = npy_types[i].type;
                why = NULL;
            }
    }
    if (why == NULL) {
        const char *p = strchr(sh + 8, '(');
        why = p ? NULL : "bad shape";
        size_t count = 1;
        while (why == NULL) {
            p++;
            while (*p == ' ' || *p == ',')
                p++;
            if (*p == ')')
                break;
            char *end;
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p || out->rank == WNN_MAX_RANK || v == 0 || v > WNN_MAX_DIMENSION) {
                why = "shape has a rank over 8, a 0 or an unreadable dimension";
                break;
            }
            out->shape[out->rank++] = (uint32_t)v;
            count *= (size_t)v;
            p = end - 1;
        }
        if (why == NULL) {
            out->byte_length = count * onx_type_size(out->data_type);
            if (hstart + hlen + out->byte_length != size)
                why = "data length does not match the shape (truncated?)";
        }
    }
    if (why == NULL) {
        out->data = malloc(out->byte_length ? out->byte_length : 1);
        out->name = strdup("");
        if (out->data == NULL || out->name == NULL) {
            wnn_onnx_array_free(out);
            free(b);
            onx_set_error(WNN_STATUS_OUT_OF_MEMORY, "reading '%s': out of memory", path);
            return WNN_STATUS_OUT_OF_MEMORY;
        }
        memcpy(out->data, b + hstart + hlen, out->byte_length);
        st = WNN_OK;
    } else {
        memset(out, 0, sizeof *out);
        onx_set_error(st, "'%s': %s", path, why);
    }
    free(b);
    return st;
}

wnn_status wnn_onnx_array_write_npy(const char *path, const wnn_onnx_array *a)
{
    if (path == NULL || a == NULL || (a->data == NULL && a->byte_length)) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "wnn_onnx_array_write_npy: NULL argument");
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    const char *descr = NULL;
    for (size_t i = 0; i < sizeof npy_types / sizeof npy_types[0] && descr == NULL; i++)
        if (npy_types[i].type == a->data_type)
            descr = npy_types[i].descr;
    if (descr == NULL || a->rank > WNN_MAX_RANK) {
        onx_set_error(WNN_STATUS_NOT_SUPPORTED, "wnn_onnx_array_write_npy: data type or rank not supported");
        return WNN_STATUS_NOT_SUPPORTED;
    }
    char shape[160] = "";
    size_t at = 0;
    for (uint32_t i = 0; i < a->rank; i++)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%u,%s", a->shape[i],
                               i + 1 < a->rank ? " " : "");
    if (a->rank > 1)
        shape[at - 1] = '\0'; /* (2, 3) but (4,) */
    char header[256];
    int n = snprintf(header, sizeof header, "{'descr': '%c%s', 'fortran_order': False, 'shape': (%s), }",
                     descr[1] == '1' ? '|' : '<', descr, shape);
    size_t total = 10 + (size_t)n + 1, pad = (64 - total % 64) % 64;
    FILE *f = fopen(path, "wb");
    if (f == NULL) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot create '%s': %s", path, strerror(errno));
        return WNN_STATUS_OPERATION_ERROR;
    }
    size_t hlen = (size_t)n + pad + 1;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
    for (size_t i = 0; ok && i < pad; i++)
        ok = fputc(' ', f) != EOF;
    ok = ok && fputc('\n', f) != EOF && fwrite(a->data, 1, a->byte_length, f) == a->byte_length;
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        onx_set_error(WNN_STATUS_OPERATION_ERROR, "cannot write '%s'", path);
        return WNN_STATUS_OPERATION_ERROR;
    }
    return WNN_OK;
}
