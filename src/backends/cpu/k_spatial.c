/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_spatial.c -- layouts and float16 staging shared by the kernels of the
** 2-D and normalization operators (see k_spatial.h).
*/
#include "backends/cpu/k_spatial.h"
#include "backends/cpu/half_simd.h"

#include <stdlib.h>

wnn__spatial4 wnn__spatial4_of(const wnn_operand_desc *d, uint32_t layout)
{
    const uint32_t *x = d->shape;
    size_t per_batch = (size_t)x[1] * x[2] * x[3];
    if (layout == WNN_INPUT_LAYOUT_NHWC)
        return (wnn__spatial4){.n = x[0], .h = x[1], .w = x[2], .c = x[3],
                               .sn = per_batch, .sh = (size_t)x[2] * x[3], .sw = x[3], .sc = 1};
    return (wnn__spatial4){.n = x[0], .c = x[1], .h = x[2], .w = x[3],
                           .sn = per_batch, .sc = (size_t)x[2] * x[3], .sh = x[3], .sw = 1};
}

const float *wnn__stage_in(const wnn__view *v, float **owned)
{
    *owned = NULL;
    if (!v->data)
        return NULL;
    if (v->desc.data_type == WNN_DATA_TYPE_FLOAT32)
        return v->data;
    size_t n = wnn__view_count(v);
    float *f = malloc((n ? n : 1) * sizeof *f);
    if (!f)
        return NULL;
    wnn__half_to_float_n(f, v->data, n);
    *owned = f;
    return f;
}

float *wnn__stage_out(const wnn__view *out, float **owned)
{
    *owned = NULL;
    if (out->desc.data_type == WNN_DATA_TYPE_FLOAT32)
        return out->data;
    size_t n = wnn__view_count(out);
    *owned = malloc((n ? n : 1) * sizeof **owned);
    return *owned;
}

void wnn__stage_out_finish(const wnn__view *out, float *owned)
{
    if (!owned)
        return;
    wnn__float_to_half_n(out->data, owned, wnn__view_count(out));
    free(owned);
}
