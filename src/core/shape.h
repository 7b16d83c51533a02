/* SPDX-License-Identifier: Apache-2.0 */
/*
** shape.h -- the rules on shapes and numbers that the builder, the backends
** and the tools must apply identically: element counts, row-major strides,
** the broadcast of one shape to another, resample2d's source coordinates,
** and the cast of an MLNumber to the bytes of a data type.
**
** Header-only (static inline), on the public types alone, so every layer may
** include it without linking core: one copy of each rule, no call up.
*/
#ifndef WNN_CORE_SHAPE_H
#define WNN_CORE_SHAPE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/half.h"
#include "wnn/wnn.h"

/* Product of shape[from, to) (1 for an empty range). Unchecked: the builder
** has refused every operand of more than 2^31-1 elements. */
static inline size_t wnn__shape_product(const uint32_t *shape, uint32_t from, uint32_t to)
{
    size_t n = 1;
    for (uint32_t i = from; i < to; i++)
        n *= shape[i];
    return n;
}

/* Element count of d (1 for a scalar), unchecked like wnn__shape_product(). */
static inline size_t wnn__shape_count(const wnn_operand_desc *d)
{
    return wnn__shape_product(d->shape, 0, d->rank);
}

/* Element count of d for a descriptor nobody has checked yet: UINT64_MAX as
** soon as a leading product passes limit. */
static inline uint64_t wnn__shape_count_within(const wnn_operand_desc *d, uint64_t limit)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < d->rank; i++) {
        n *= d->shape[i];
        if (n > limit)
            return UINT64_MAX;
    }
    return n;
}

/* The row-major strides of d, in elements: stride[i] for i < d->rank. */
static inline void wnn__shape_strides(const wnn_operand_desc *d, size_t *stride)
{
    size_t step = 1;
    for (uint32_t i = d->rank; i-- > 0;) {
        stride[i] = step;
        step *= d->shape[i];
    }
}

/* The broadcast plan of one input: the strides (in elements) at which in is
** read along each of the out_rank dimensions of the output, 0 where in is
** broadcast. A lower-rank input aligns to the right (its missing leading
** dimensions, and its dimensions of size 1, are broadcast). */
static inline void wnn__broadcast_strides(const wnn_operand_desc *in, uint32_t out_rank, size_t *stride)
{
    size_t step = 1;
    for (uint32_t i = out_rank; i-- > 0;) {
        size_t dim = i + in->rank >= out_rank ? in->shape[i + in->rank - out_rank] : 1;
        stride[i] = dim == 1 ? 0 : step;
        step *= dim;
    }
}

/* The most inputs a broadcast plan walks (where's condition and values). */
#define WNN__BROADCAST_MAX_INPUTS 3

/* How an element-wise operator walks its broadcast inputs: the output shape
** with each input's strides (in elements, 0 where the input is broadcast),
** after dropping size-1 dimensions and merging neighbours that every input
** walks contiguously. Same-shape inputs collapse to one dimension, and the
** innermost stride of each input is always 0 or 1. */
typedef struct wnn__broadcast_plan {
    uint32_t rank, n_in;
    size_t shape[WNN_MAX_RANK];
    size_t stride[WNN__BROADCAST_MAX_INPUTS][WNN_MAX_RANK];
} wnn__broadcast_plan;

/* The plan of n_in (at most WNN__BROADCAST_MAX_INPUTS) inputs into out. */
static inline void wnn__broadcast_plan_make(wnn__broadcast_plan *p, const wnn_operand_desc *out,
                                            const wnn_operand_desc *const *in, uint32_t n_in)
{
    uint32_t rank = out->rank;
    size_t stride[WNN__BROADCAST_MAX_INPUTS][WNN_MAX_RANK];
    p->n_in = n_in;
    for (uint32_t k = 0; k < n_in; k++)
        wnn__broadcast_strides(in[k], rank, stride[k]);
    p->rank = 0;
    for (uint32_t i = 0; i < rank; i++) {
        size_t dim = out->shape[i];
        if (dim == 1)
            continue;
        uint32_t r = p->rank;
        bool merge = r > 0;
        for (uint32_t k = 0; k < n_in && merge; k++)
            merge = p->stride[k][r - 1] == stride[k][i] * dim;
        if (merge) {
            p->shape[r - 1] *= dim;
            for (uint32_t k = 0; k < n_in; k++)
                p->stride[k][r - 1] = stride[k][i];
            continue;
        }
        p->shape[r] = dim;
        for (uint32_t k = 0; k < n_in; k++)
            p->stride[k][r] = stride[k][i];
        p->rank++;
    }
    if (p->rank == 0) { /* a single element */
        p->rank = 1;
        p->shape[0] = 1;
        for (uint32_t k = 0; k < n_in; k++)
            p->stride[k][0] = 0;
    }
}

/* WebNN's bidirectional broadcast of a and b into *out (a's data type):
** false, *out untouched, when a dimension pair is neither equal nor has a 1. */
static inline bool wnn__broadcast_shapes(const wnn_operand_desc *a, const wnn_operand_desc *b, wnn_operand_desc *out)
{
    uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
    wnn_operand_desc r = {a->data_type, rank, {0}};
    for (uint32_t i = 0; i < rank; i++) {
        /* align from the right; a missing dimension acts as 1 */
        uint32_t da = i < rank - a->rank ? 1 : a->shape[i - (rank - a->rank)];
        uint32_t db = i < rank - b->rank ? 1 : b->shape[i - (rank - b->rank)];
        if (da != db && da != 1 && db != 1)
            return false;
        r.shape[i] = da == 1 ? db : da;
    }
    *out = r;
    return true;
}

/* Whether from broadcasts to the shape of to (unidirectionally). */
static inline bool wnn__broadcastable_to(const wnn_operand_desc *from, const wnn_operand_desc *to)
{
    if (from->rank > to->rank)
        return false;
    for (uint32_t i = 0; i < from->rank; i++) {
        uint32_t d = from->shape[from->rank - 1 - i];
        if (d != 1 && d != to->shape[to->rank - 1 - i])
            return false;
    }
    return true;
}

/* resample2d's source of output index j along a dimension resized from in
** to out elements, with half-pixel centres. Linear: the neighbours *lo and
** *hi (floor of the clamped coordinate and the next, within the input) and
** *hi's weight *w. Nearest: *lo == *hi, the nearest index with ties to the
** smaller one (computed exactly in integers), and *w 0. */
static inline void wnn__resample_source(size_t j, size_t in, size_t out, bool linear, size_t *lo, size_t *hi,
                                        float *w)
{
    if (!linear) {
        /* ceil(((2j + 1) * in - 2 * out) / (2 * out)), clamped to [0, in - 1] */
        int64_t num = (int64_t)(2 * j + 1) * (int64_t)in - 2 * (int64_t)out, den = 2 * (int64_t)out;
        int64_t q = num >= 0 ? (num + den - 1) / den : -((-num) / den);
        if (q < 0)
            q = 0;
        if (q > (int64_t)in - 1)
            q = (int64_t)in - 1;
        *lo = *hi = (size_t)q;
        *w = 0.0f;
        return;
    }
    double c = ((double)j + 0.5) * ((double)in / (double)out) - 0.5;
    if (c < 0.0)
        c = 0.0;
    if (c > (double)(in - 1))
        c = (double)(in - 1);
    *lo = (size_t)c;
    *hi = *lo + 1 < in ? *lo + 1 : *lo;
    *w = (float)(c - (double)*lo);
}

/* WebNN's cast of an MLNumber to one element of type t at out (8 bytes of
** room): the double v, or the exact integer iv when exact is true. Floats
** round to nearest; integers truncate toward zero and saturate at the type's
** bounds, and NaN becomes 0. Types without a scalar form (int4, uint4) give
** 8 zero bytes. */
static inline void wnn__number_encode(wnn_data_type t, double v, bool exact, int64_t iv, void *out)
{
    double d = exact ? (double)iv : v;
#define WNN__SATURATE(type, lo, hi)                                                                    \
    do {                                                                                               \
        type r_;                                                                                       \
        if (exact)                                                                                     \
            r_ = iv < (int64_t)(lo) ? (type)(lo) : (iv > 0 && (uint64_t)iv > (uint64_t)(hi)) ? (type)(hi) \
                                                                                           : (type)iv; \
        else if (isnan(d))                                                                             \
            r_ = 0;                                                                                    \
        else                                                                                           \
            r_ = d <= (double)(lo) ? (type)(lo) : d >= (double)(hi) ? (type)(hi) : (type)d;            \
        memcpy(out, &r_, sizeof r_);                                                                   \
    } while (0)
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: {
        float f = (float)d;
        memcpy(out, &f, sizeof f);
        break;
    }
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h = wnn__float_to_half((float)d);
        memcpy(out, &h, sizeof h);
        break;
    }
    case WNN_DATA_TYPE_INT32: WNN__SATURATE(int32_t, INT32_MIN, INT32_MAX); break;
    case WNN_DATA_TYPE_UINT32: WNN__SATURATE(uint32_t, 0, UINT32_MAX); break;
    case WNN_DATA_TYPE_INT64: WNN__SATURATE(int64_t, INT64_MIN, INT64_MAX); break;
    case WNN_DATA_TYPE_UINT64: WNN__SATURATE(uint64_t, 0, UINT64_MAX); break;
    case WNN_DATA_TYPE_INT8: WNN__SATURATE(int8_t, INT8_MIN, INT8_MAX); break;
    case WNN_DATA_TYPE_UINT8: WNN__SATURATE(uint8_t, 0, UINT8_MAX); break;
    default: memset(out, 0, 8); break;
    }
#undef WNN__SATURATE
}

#endif
