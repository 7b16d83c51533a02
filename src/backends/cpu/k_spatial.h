/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_spatial.h -- what the cpu kernels of the 2-D and normalization
** operators share (k_conv.c, k_pool.c, k_resample.c, k_norm.c): rank-4
** shapes read through a layout, float32 staging of float16 operands, and
** scalar loads and stores of the float types.
*/
#ifndef WNN_BACKENDS_CPU_K_SPATIAL_H
#define WNN_BACKENDS_CPU_K_SPATIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/kernels.h"
#include "core/half.h"

/* A rank-4 shape as batches, channels, height, width, with the element
** strides of each in memory. */
typedef struct wnn__spatial4 {
    size_t n, c, h, w;
    size_t sn, sc, sh, sw;
} wnn__spatial4;

/* Reads d (rank 4) in layout (a wnn_input_layout). */
wnn__spatial4 wnn__spatial4_of(const wnn_operand_desc *d, uint32_t layout);

/* float32 data of a float32 or float16 view: the view's own data, or a
** widened copy in *owned (free it) for float16. NULL when out of memory or
** the view is absent (data NULL, *owned NULL). */
const float *wnn__stage_in(const wnn__view *v, float **owned);

/* Where a kernel writes its float32 result for out: out's own data for
** float32, else a buffer in *owned. NULL when out of memory. */
float *wnn__stage_out(const wnn__view *out, float **owned);

/* Narrows a staged result into a float16 out (no-op for float32) and frees
** the staging buffer. */
void wnn__stage_out_finish(const wnn__view *out, float *owned);

/* One element of float32 (half false) or float16 data, as float. */
static inline float wnn__load_float(const void *data, size_t i, bool half)
{
    return half ? wnn__half_to_float(((const uint16_t *)data)[i]) : ((const float *)data)[i];
}

static inline void wnn__store_float(void *data, size_t i, bool half, float v)
{
    if (half)
        ((uint16_t *)data)[i] = wnn__float_to_half(v);
    else
        ((float *)data)[i] = v;
}

#endif
