/* SPDX-License-Identifier: Apache-2.0 */
/*
** status.c -- statuses, the per-thread last-error message, data type facts
** and WebNN's descriptor rules.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static _Thread_local char last_message[512];

const char *wnn_version(void) { return WNN_VERSION_STRING; }

wnn_status wnn_status_class(wnn_status s)
{
    if (s == WNN_OK)
        return WNN_OK;
    int c = ((int)s / 100) * 100;
    if (c < WNN_STATUS_TYPE_ERROR || c > WNN_STATUS_UNKNOWN)
        return WNN_STATUS_UNKNOWN;
    return (wnn_status)c;
}

const char *wnn_status_string(wnn_status s)
{
    switch (s) {
#define NAME(x) case x: return #x;
    NAME(WNN_OK)
    NAME(WNN_STATUS_TYPE_ERROR)
    NAME(WNN_STATUS_INVALID_ARGUMENT)
    NAME(WNN_STATUS_INVALID_DIMENSION)
    NAME(WNN_STATUS_INVALID_RANK)
    NAME(WNN_STATUS_TOO_MANY_ELEMENTS)
    NAME(WNN_STATUS_TENSOR_TOO_LARGE)
    NAME(WNN_STATUS_UNSUPPORTED_DATA_TYPE)
    NAME(WNN_STATUS_WRONG_CONTEXT)
    NAME(WNN_STATUS_NOT_READABLE)
    NAME(WNN_STATUS_NOT_WRITABLE)
    NAME(WNN_STATUS_BYTE_LENGTH_MISMATCH)
    NAME(WNN_STATUS_CONSTANT_TENSOR)
    NAME(WNN_STATUS_NAME_MISMATCH)
    NAME(WNN_STATUS_DESCRIPTOR_MISMATCH)
    NAME(WNN_STATUS_DUPLICATE_TENSOR)
    NAME(WNN_STATUS_DESTROYED_OBJECT)
    NAME(WNN_STATUS_SHAPE_MISMATCH)
    NAME(WNN_STATUS_INVALID_STATE)
    NAME(WNN_STATUS_DESTROYED)
    NAME(WNN_STATUS_CONTEXT_LOST)
    NAME(WNN_STATUS_ALREADY_BUILT)
    NAME(WNN_STATUS_NOT_SUPPORTED)
    NAME(WNN_STATUS_NO_SUCH_DEVICE)
    NAME(WNN_STATUS_UNSUPPORTED_DEVICE)
    NAME(WNN_STATUS_COPY_FORBIDDEN)
    NAME(WNN_STATUS_UNSUPPORTED_VERSION)
    NAME(WNN_STATUS_OPERATION_ERROR)
    NAME(WNN_STATUS_OUT_OF_MEMORY)
    NAME(WNN_STATUS_UNKNOWN)
#undef NAME
    }
    return "unknown status";
}

const char *wnn_last_error_message(void) { return last_message; }

wnn_status wnn__fail(wnn_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return s;
}

static const struct {
    const char *name;
    size_t size;
} type_facts[] = {
    [WNN_DATA_TYPE_FLOAT32] = {"float32", 4}, [WNN_DATA_TYPE_FLOAT16] = {"float16", 2},
    [WNN_DATA_TYPE_INT32] = {"int32", 4},     [WNN_DATA_TYPE_UINT32] = {"uint32", 4},
    [WNN_DATA_TYPE_INT64] = {"int64", 8},     [WNN_DATA_TYPE_UINT64] = {"uint64", 8},
    [WNN_DATA_TYPE_INT8] = {"int8", 1},       [WNN_DATA_TYPE_UINT8] = {"uint8", 1},
    [WNN_DATA_TYPE_INT4] = {"int4", 1},       [WNN_DATA_TYPE_UINT4] = {"uint4", 1},
};

#define TYPE_COUNT (sizeof type_facts / sizeof type_facts[0])

const char *wnn_data_type_name(wnn_data_type t)
{
    return (unsigned)t < TYPE_COUNT ? type_facts[t].name : NULL;
}

wnn_data_type wnn_data_type_from_name(const char *name)
{
    if (!name)
        return WNN_DATA_TYPE_INVALID;
    for (unsigned t = 1; t < TYPE_COUNT; t++)
        if (strcmp(type_facts[t].name, name) == 0)
            return (wnn_data_type)t;
    return WNN_DATA_TYPE_INVALID;
}

size_t wnn_data_type_size(wnn_data_type t)
{
    return (unsigned)t < TYPE_COUNT ? type_facts[t].size : 0;
}

uint64_t wnn_operand_desc_element_count(const wnn_operand_desc *desc)
{
    uint64_t n = 1;
    uint32_t rank = desc->rank < WNN_MAX_RANK ? desc->rank : WNN_MAX_RANK;
    for (uint32_t i = 0; i < rank; i++)
        if (desc->shape[i] == 0)
            return 0; /* even after dimensions whose product overflows */
    for (uint32_t i = 0; i < rank; i++) {
        /* saturate rather than wrap: counts past 2^63 are all "too many" */
        if (n > UINT64_MAX / desc->shape[i])
            return UINT64_MAX;
        n *= desc->shape[i];
    }
    return n;
}

uint64_t wnn_operand_desc_byte_length(const wnn_operand_desc *desc)
{
    uint64_t n = wnn_operand_desc_element_count(desc);
    if (desc->data_type == WNN_DATA_TYPE_INT4 || desc->data_type == WNN_DATA_TYPE_UINT4)
        return n == UINT64_MAX ? UINT64_MAX : n / 2 + n % 2; /* a saturated count stays saturated */
    size_t size = wnn_data_type_size(desc->data_type);
    if (n > UINT64_MAX / 8)
        return UINT64_MAX;
    return n * size;
}

wnn_status wnn__check_desc(const char *fn, const wnn_operand_desc *desc)
{
    if (!desc)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: descriptor is NULL", fn);
    if (!wnn_data_type_name(desc->data_type) || desc->data_type == WNN_DATA_TYPE_INVALID)
        return wnn__fail(WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: data type %d is not a WebNN data type",
                         fn, (int)desc->data_type);
    if (desc->rank > WNN_MAX_RANK)
        return wnn__fail(WNN_STATUS_INVALID_RANK, "%s: rank %u is over the maximum of %d", fn,
                         desc->rank, WNN_MAX_RANK);
    for (uint32_t i = 0; i < desc->rank; i++) {
        if (desc->shape[i] == 0)
            return wnn__fail(WNN_STATUS_INVALID_DIMENSION, "%s: shape[%u] is 0, dimensions must be > 0",
                             fn, i);
        if (desc->shape[i] > WNN_MAX_DIMENSION)
            return wnn__fail(WNN_STATUS_INVALID_DIMENSION, "%s: shape[%u] is %u, over 2^31-1", fn, i,
                             desc->shape[i]);
    }
    uint64_t n = wnn_operand_desc_element_count(desc);
    if (n > WNN_MAX_DIMENSION)
        return wnn__fail(WNN_STATUS_TOO_MANY_ELEMENTS, "%s: %llu elements, over 2^31-1", fn,
                         (unsigned long long)n);
    return WNN_OK;
}
