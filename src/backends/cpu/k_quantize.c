/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_quantize.c -- quantizeLinear and dequantizeLinear.
**
**   quantize:   y = saturate(roundEven(x / scale) + zeroPoint)
**   dequantize: y = (x - zeroPoint) * scale
**
** scale and zeroPoint share one shape whose dimensions, aligned to the right,
** divide the input's: input dimension i reads scale coordinate c / block[i]
** with block[i] = shape[i] / scale dimension (a scale dimension of 1 is a
** block as long as the dimension: a broadcast). The input is walked in runs
** along its innermost dimension that share one scale element, an odometer
** carrying the scale offset from run to run, so the inner loops only
** convert.
**
** The quotient x / scale is taken in float32 (float16 inputs widened), as
** WebNN's reference does; the dequantized product is formed in double and
** rounded once. int4/uint4 are packed two per byte, element 2k in the low
** nibble; work is split on element pairs so that no two threads share a
** byte.
*/
#include <math.h>
#include <stdint.h>

#include "backends/cpu/kernels.h"
#include "platform/pool.h"
#include "core/half.h"

#define PARALLEL_MIN ((size_t)1 << 15)
#define PARALLEL_GRAIN ((size_t)1 << 13) /* element pairs */

typedef struct qjob {
    bool quantize;
    const void *x, *scale, *zero_point;
    void *out;
    wnn_data_type x_type, scale_type, int_type; /* int_type: zeroPoint's, the quantized side */
    uint32_t rank;
    size_t n;
    size_t shape[WNN_MAX_RANK];
    size_t block[WNN_MAX_RANK];   /* input elements per scale element along each dimension */
    size_t sstride[WNN_MAX_RANK]; /* scale offset per scale coordinate (0: broadcast) */
} qjob;

static int64_t load_int(wnn_data_type t, const void *p, size_t i)
{
    switch (t) {
    case WNN_DATA_TYPE_INT8: return ((const int8_t *)p)[i];
    case WNN_DATA_TYPE_UINT8: return ((const uint8_t *)p)[i];
    case WNN_DATA_TYPE_INT32: return ((const int32_t *)p)[i];
    case WNN_DATA_TYPE_UINT32: return ((const uint32_t *)p)[i];
    case WNN_DATA_TYPE_INT4: {
        unsigned nib = (((const uint8_t *)p)[i >> 1] >> ((i & 1u) * 4)) & 0xfu;
        return nib >= 8 ? (int64_t)nib - 16 : (int64_t)nib;
    }
    case WNN_DATA_TYPE_UINT4: return (((const uint8_t *)p)[i >> 1] >> ((i & 1u) * 4)) & 0xfu;
    default: return 0;
    }
}

/* v is already inside t's range. A packed element 2k clears its byte's high
** nibble, which element 2k + 1 (same range, later) then fills. */
static void store_int(wnn_data_type t, void *p, size_t i, int64_t v)
{
    switch (t) {
    case WNN_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case WNN_DATA_TYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case WNN_DATA_TYPE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case WNN_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4: {
        uint8_t *b = (uint8_t *)p + (i >> 1);
        uint8_t nib = (uint8_t)((uint64_t)v & 0xfu);
        *b = (i & 1u) ? (uint8_t)((*b & 0x0fu) | (nib << 4)) : nib;
        break;
    }
    default: break;
    }
}

static void int_range(wnn_data_type t, int64_t *lo, int64_t *hi)
{
    switch (t) {
    case WNN_DATA_TYPE_INT8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case WNN_DATA_TYPE_UINT8: *lo = 0; *hi = UINT8_MAX; break;
    case WNN_DATA_TYPE_INT32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case WNN_DATA_TYPE_UINT32: *lo = 0; *hi = UINT32_MAX; break;
    case WNN_DATA_TYPE_INT4: *lo = -8; *hi = 7; break;
    default: *lo = 0; *hi = 15; break; /* uint4 */
    }
}

static float load_float(wnn_data_type t, const void *p, size_t i)
{
    return t == WNN_DATA_TYPE_FLOAT16 ? wnn__half_to_float(((const uint16_t *)p)[i]) : ((const float *)p)[i];
}

static void store_float(wnn_data_type t, void *p, size_t i, double v)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        ((uint16_t *)p)[i] = wnn__float_to_half((float)v);
    else
        ((float *)p)[i] = (float)v;
}

/* Rounds half to even. Below 2^22 in magnitude, adding and subtracting
** 1.5 * 2^23 leaves the float32 unit in the last place at 1, so the
** addition itself rounds (to nearest even, the default mode); larger
** values are integers already, or NaN. */
static inline float round_even(float v)
{
    if (fabsf(v) < 0x1p22f)
        return (v + 0x1.8p23f) - 0x1.8p23f;
    return nearbyintf(v);
}

/* roundEven(x / scale) + zero point, saturated; NaN gives the zero point. */
static inline int64_t quantize_one(float x, float scale, int64_t zp, int64_t lo, int64_t hi)
{
    float q = round_even(x / scale);
    double v = q == q ? (double)q + (double)zp : (double)zp;
    return v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v;
}

/* n elements from index i sharing one scale and zero point: the inner loop
** for each byte-sized or wider output type, the generic stores for the
** packed ones. */
#define QUANTIZE_INTO(T)                                                       \
    do {                                                                       \
        T *o = (T *)j->out + i;                                                \
        if (j->x_type == WNN_DATA_TYPE_FLOAT32) {                              \
            const float *x = (const float *)j->x + i;                          \
            for (size_t k = 0; k < n; k++)                                     \
                o[k] = (T)quantize_one(x[k], scale, zp, lo, hi);               \
        } else {                                                               \
            const uint16_t *x = (const uint16_t *)j->x + i;                    \
            for (size_t k = 0; k < n; k++)                                     \
                o[k] = (T)quantize_one(wnn__half_to_float(x[k]), scale, zp, lo, hi); \
        }                                                                      \
    } while (0)

#define DEQUANTIZE_FROM(T)                                                     \
    do {                                                                       \
        const T *x = (const T *)j->x + i;                                      \
        if (j->scale_type == WNN_DATA_TYPE_FLOAT32) {                          \
            float *o = (float *)j->out + i;                                    \
            for (size_t k = 0; k < n; k++)                                     \
                o[k] = (float)((double)((int64_t)x[k] - zp) * scale);          \
        } else {                                                               \
            uint16_t *o = (uint16_t *)j->out + i;                              \
            for (size_t k = 0; k < n; k++)                                     \
                o[k] = wnn__float_to_half((float)((double)((int64_t)x[k] - zp) * scale)); \
        }                                                                      \
    } while (0)

static void run_block(const qjob *j, size_t i, size_t n, size_t soff)
{
    const int64_t zp = load_int(j->int_type, j->zero_point, soff);
    const float scale = load_float(j->scale_type, j->scale, soff);
    if (j->quantize) {
        int64_t lo = 0, hi = 0;
        int_range(j->int_type, &lo, &hi);
        switch (j->int_type) {
        case WNN_DATA_TYPE_INT8: QUANTIZE_INTO(int8_t); break;
        case WNN_DATA_TYPE_UINT8: QUANTIZE_INTO(uint8_t); break;
        case WNN_DATA_TYPE_INT32: QUANTIZE_INTO(int32_t); break;
        case WNN_DATA_TYPE_UINT32: QUANTIZE_INTO(uint32_t); break;
        default: /* int4, uint4 */
            for (size_t k = i; k < i + n; k++)
                store_int(j->int_type, j->out, k, quantize_one(load_float(j->x_type, j->x, k), scale, zp, lo, hi));
            break;
        }
        return;
    }
    switch (j->int_type) {
    case WNN_DATA_TYPE_INT8: DEQUANTIZE_FROM(int8_t); break;
    case WNN_DATA_TYPE_UINT8: DEQUANTIZE_FROM(uint8_t); break;
    case WNN_DATA_TYPE_INT32: DEQUANTIZE_FROM(int32_t); break;
    case WNN_DATA_TYPE_UINT32: DEQUANTIZE_FROM(uint32_t); break;
    default: /* int4, uint4 */
        for (size_t k = i; k < i + n; k++)
            store_float(j->scale_type, j->out, k, (double)(load_int(j->int_type, j->x, k) - zp) * scale);
        break;
    }
}

/* Element pairs [begin, end), in runs along the innermost dimension that
** share one scale element. */
static void q_range(void *arg, size_t begin, size_t end)
{
    const qjob *j = arg;
    size_t first = begin * 2, last = end * 2 < j->n ? end * 2 : j->n;
    if (j->rank == 0) {
        if (first < last)
            run_block(j, 0, 1, 0);
        return;
    }
    size_t c[WNN_MAX_RANK], soff = 0, rest = first;
    for (uint32_t d = j->rank; d-- > 0;) {
        c[d] = rest % j->shape[d];
        rest /= j->shape[d];
        soff += c[d] / j->block[d] * j->sstride[d];
    }
    const uint32_t in = j->rank - 1;
    const size_t block = j->block[in];
    for (size_t i = first; i < last;) {
        size_t n = block - c[in] % block; /* blocks divide the dimension */
        if (n > last - i)
            n = last - i;
        run_block(j, i, n, soff);
        i += n;
        c[in] += n;
        if (c[in] < j->shape[in]) {
            soff += j->sstride[in]; /* (unused past the range's end) */
            continue;
        }
        /* the innermost dimension wrapped: carry outwards */
        soff -= (j->shape[in] / block - 1) * j->sstride[in];
        c[in] = 0;
        for (uint32_t d = in; d-- > 0;) {
            if (++c[d] < j->shape[d]) {
                if (c[d] % j->block[d] == 0)
                    soff += j->sstride[d];
                break;
            }
            soff -= (j->shape[d] / j->block[d] - 1) * j->sstride[d];
            c[d] = 0;
        }
    }
}

/* in: input, scale, zeroPoint (validated: scale and zeroPoint one shape
** dividing the input's). */
wnn_status wnn__k_quantize(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    qjob j = {.quantize = node->op == WNN__OP_QUANTIZE_LINEAR,
              .x = in[0].data,
              .scale = in[1].data,
              .zero_point = in[2].data,
              .out = out[0].data,
              .x_type = in[0].desc.data_type,
              .scale_type = in[1].desc.data_type,
              .int_type = in[2].desc.data_type,
              .rank = in[0].desc.rank,
              .n = wnn__view_count(&in[0])};
    const wnn_operand_desc *ds = &in[1].desc;
    size_t step = 1;
    for (uint32_t i = j.rank; i-- > 0;) {
        j.shape[i] = in[0].desc.shape[i];
        uint32_t k = j.rank - 1 - i; /* position from the right */
        if (k < ds->rank) {
            size_t sd = ds->shape[ds->rank - 1 - k];
            j.block[i] = j.shape[i] / sd;
            j.sstride[i] = sd == 1 ? 0 : step;
            step *= sd;
        } else {
            j.block[i] = j.shape[i];
            j.sstride[i] = 0;
        }
    }
    size_t pairs = (j.n + 1) / 2;
    if (j.n > PARALLEL_MIN)
        wnn__parallel_for(pairs, PARALLEL_GRAIN, q_range, &j);
    else
        q_range(&j, 0, pairs);
    return WNN_OK;
}
