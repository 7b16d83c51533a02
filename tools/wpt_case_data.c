/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case_data.c -- a WPT case's descriptors and data: the descriptor
** rules, the values of "data" (the fill rule; numbers and their string
** spellings through wpt_json_number) and every data type's encoding
** (float16 through WPT's toHalf, integers wrapping, int4/uint4 two to a
** byte).
*/
#ifdef WNN_HAVE_JANSSON

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/shape.h"
#include "wpt_case_internal.h"

bool wpt__has_dynamic_dims(const json_t *operand)
{
    const json_t *desc = json_object_get(operand, "descriptor");
    const json_t *shape = json_object_get(desc, "shape");
    for (size_t i = 0; i < json_array_size(shape); i++)
        if (json_is_object(json_array_get(shape, i)))
            return true;
    return false;
}

bool wpt__parse_descriptor(run_state *s, const json_t *operand, const char *what, wnn_operand_desc *out)
{
    const json_t *desc = json_object_get(operand, "descriptor");
    if (!json_is_object(desc)) {
        wpt__stop(s, WPT_FAIL, "%s: missing \"descriptor\" object", what);
        return false;
    }
    const json_t *type = json_object_get(desc, "dataType");
    if (!json_is_string(type)) {
        wpt__stop(s, WPT_FAIL, "%s: descriptor.dataType is missing or not a string", what);
        return false;
    }
    out->data_type = wnn_data_type_from_name(json_string_value(type));
    if (out->data_type == WNN_DATA_TYPE_INVALID) {
        wpt__stop(s, WPT_FAIL, "%s: descriptor.dataType \"%s\" is not a WebNN data type", what,
             json_string_value(type));
        return false;
    }
    /* Old WPT files called the shape "dimensions". */
    const json_t *shape = json_object_get(desc, "shape");
    if (shape == NULL)
        shape = json_object_get(desc, "dimensions");
    if (!json_is_array(shape)) {
        wpt__stop(s, WPT_FAIL, "%s: descriptor.shape is missing or not an array", what);
        return false;
    }
    size_t rank = json_array_size(shape);
    if (rank > WNN_MAX_RANK) {
        wpt__stop(s, WPT_FAIL, "%s: descriptor.shape has rank %zu, wnn supports at most %d", what, rank,
             WNN_MAX_RANK);
        return false;
    }
    out->rank = (uint32_t)rank;
    for (size_t i = 0; i < WNN_MAX_RANK; i++)
        out->shape[i] = 0;
    for (size_t i = 0; i < rank; i++) {
        const json_t *d = json_array_get(shape, i);
        json_int_t v = json_is_integer(d) ? json_integer_value(d) : -1;
        if (v < 0 || v > (json_int_t)UINT32_MAX) {
            wpt__stop(s, WPT_FAIL, "%s: descriptor.shape[%zu] must be an integer in 0..4294967295", what, i);
            return false;
        }
        out->shape[i] = (uint32_t)v;
    }
    return true;
}

uint64_t wpt__packed_bytes(wnn_data_type t, uint64_t count)
{
    if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
        return (count + 1u) / 2u;
    return count * wnn_data_type_size(t);
}

bool wpt__read_values(run_state *s, const json_t *operand, const char *what, uint64_t count,
                        wpt_number **values, size_t *value_count, bool *fill)
{
    const json_t *data = json_object_get(operand, "data");
    *values = NULL;
    *fill = false;
    if (data == NULL) {
        wpt__stop(s, WPT_FAIL, "%s: missing \"data\"", what);
        return false;
    }
    if (!json_is_array(data)) {
        wpt_number *one = malloc(sizeof *one);
        if (one == NULL || !wpt_json_number(data, one)) {
            free(one);
            wpt__stop(s, WPT_FAIL, "%s: \"data\" must be an array or a number", what);
            return false;
        }
        *values = one;
        *value_count = 1;
        *fill = count > 1;
        return true;
    }
    size_t n = json_array_size(data);
    if (n != count) {
        wpt__stop(s, WPT_FAIL, "%s: \"data\" has %zu values, the descriptor has %" PRIu64 " elements", what, n,
             count);
        return false;
    }
    wpt_number *v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL) {
        wpt__stop(s, WPT_FAIL, "%s: out of memory for %zu values", what, n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!wpt_json_number(json_array_get(data, i), &v[i])) {
            free(v);
            wpt__stop(s, WPT_FAIL, "%s: data[%zu] is not a number (nor \"NaN\", \"Infinity\", \"123n\")", what, i);
            return false;
        }
    }
    *values = v;
    *value_count = n;
    return true;
}

/* Stores one value as element i of a buffer of type t. */
static void encode_element(wnn_data_type t, const wpt_number *n, uint8_t *out, uint64_t i)
{
    uint64_t w;
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: {
        float f = (float)n->d;
        memcpy(out + i * 4u, &f, 4);
        break;
    }
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h = wpt_half_from_double(n->d);
        memcpy(out + i * 2u, &h, 2);
        break;
    }
    case WNN_DATA_TYPE_INT32:
    case WNN_DATA_TYPE_UINT32: {
        uint32_t u = (uint32_t)wpt_number_wrap64(n);
        memcpy(out + i * 4u, &u, 4);
        break;
    }
    case WNN_DATA_TYPE_INT64:
    case WNN_DATA_TYPE_UINT64:
        w = wpt_number_wrap64(n);
        memcpy(out + i * 8u, &w, 8);
        break;
    case WNN_DATA_TYPE_INT8:
    case WNN_DATA_TYPE_UINT8:
        out[i] = (uint8_t)wpt_number_wrap64(n);
        break;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4: {
        /* value & 0xF, two per byte, element 2k in the low nibble. */
        uint8_t nib = (uint8_t)(wpt_number_wrap64(n) & 0x0fu);
        if (i % 2u == 0)
            out[i / 2u] = (uint8_t)((out[i / 2u] & 0xf0u) | nib);
        else
            out[i / 2u] = (uint8_t)((out[i / 2u] & 0x0fu) | (nib << 4));
        break;
    }
    default:
        break;
    }
}

bool wpt__decode_data(run_state *s, const json_t *operand, const char *what, const wnn_operand_desc *desc,
                        void **bytes, size_t *byte_length)
{
    uint64_t count = wnn__shape_count_within(desc, WNN_MAX_DIMENSION);
    if (count == UINT64_MAX) {
        wpt__stop(s, WPT_FAIL, "%s: more than 2^31-1 elements", what);
        return false;
    }
    wpt_number *values;
    size_t n;
    bool fill;
    if (!wpt__read_values(s, operand, what, count, &values, &n, &fill))
        return false;
    uint64_t len = wpt__packed_bytes(desc->data_type, count);
    uint8_t *buf = calloc(len ? (size_t)len : 1u, 1);
    if (buf == NULL) {
        free(values);
        wpt__stop(s, WPT_FAIL, "%s: out of memory for %" PRIu64 " bytes", what, len);
        return false;
    }
    for (uint64_t i = 0; i < count; i++)
        encode_element(desc->data_type, fill ? &values[0] : &values[i], buf, i);
    free(values);
    *bytes = buf;
    *byte_length = (size_t)len;
    return true;
}

#else
/* Without jansson there are no cases to read; keep the unit non-empty. */
typedef int wpt_case_data_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
