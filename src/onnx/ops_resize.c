/*
** ops_resize.c -- the ONNX Resize samplings that WebNN's resample2d does not
** do (cubic, align_corners, asymmetric, tf_half_pixel_for_nn,
** tf_crop_and_resize, pytorch_half_pixel at size 1, nearest modes other
** than half_pixel/round_prefer_floor, fractional output sizes, any rank and
** any number of axes). Resize is separable: along each resized axis every
** output element is a weighted sum of at most four input elements at
** positions known at import, so the axis is one gather per tap (constant
** indices) times a constant weight vector, summed; nearest is one gather.
** The positions and weights follow ONNX's reference implementation
** (onnx/backend/test/case/node/resize.py): x_original from the coordinate
** transformation, the taps around it with edge padding, exclude_outside
** renormalizing, and tf_crop_and_resize's extrapolation value outside.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

#define MAX_TAPS 4
/* Output elements per axis at most (the tables are built on the host). */
#define RESIZE_MAX_TABLE ((uint32_t)1 << 24)

/* x_original of output element o, or NAN where tf_crop_and_resize samples
** outside the input (the extrapolation value goes there). */
static double source(const char *coord, double o, double scale, uint32_t in, uint32_t out, const double *roi)
{
    double x;
    if (strcmp(coord, "align_corners") == 0) {
        double width = scale * in;
        x = width == 1 ? 0 : o * (in - 1) / (width - 1);
    } else if (strcmp(coord, "asymmetric") == 0) {
        x = o / scale;
    } else if (strcmp(coord, "tf_crop_and_resize") == 0) {
        double width = scale * in;
        x = width == 1 ? (roi[1] - roi[0]) * (in - 1) / 2 : o * (roi[1] - roi[0]) * (in - 1) / (width - 1);
        x += roi[0] * (in - 1);
        if (x < 0 || x > in - 1)
            return NAN;
    } else if (strcmp(coord, "tf_half_pixel_for_nn") == 0) {
        x = (o + 0.5) / scale;
    } else if (strcmp(coord, "pytorch_half_pixel") == 0) {
        x = scale * in == 1 ? -0.5 : (o + 0.5) / scale - 0.5;
    } else if (strcmp(coord, "half_pixel_symmetric") == 0) {
        double adjust = out / (scale * in), offset = in / 2.0 * (1 - adjust);
        x = offset + (o + 0.5) / scale - 0.5;
    } else { /* half_pixel */
        x = (o + 0.5) / scale - 0.5;
    }
    return x;
}

static void cubic(double r, double a, double *w)
{
    double s = r + 1, t = 1 - r, u = t + 1;
    w[0] = ((a * s - 5 * a) * s + 8 * a) * s - 4 * a;
    w[1] = ((a + 2) * r - (a + 3)) * r * r + 1;
    w[2] = ((a + 2) * t - (a + 3)) * t * t + 1;
    w[3] = ((a * u - 5 * a) * u + 8 * a) * u - 4 * a;
}

typedef struct axis_plan {
    uint32_t taps;
    int64_t *idx;   /* [taps][out] */
    double *w;      /* [taps][out] */
    uint8_t *outside; /* [out], tf_crop_and_resize only */
    bool any_outside, identity;
} axis_plan;

typedef struct resize_mode {
    const char *mode, *coord, *nearest;
    double cubic_a, extrapolation;
    bool exclude_outside;
} resize_mode;

static bool plan_axis(const resize_mode *m, uint32_t in, uint32_t out, double scale, const double *roi, axis_plan *p)
{
    bool near = strcmp(m->mode, "nearest") == 0, lin = strcmp(m->mode, "cubic") != 0 && !near;
    p->taps = near ? 1 : lin ? 2 : 4;
    p->idx = malloc((size_t)p->taps * out * sizeof *p->idx);
    p->w = malloc((size_t)p->taps * out * sizeof *p->w);
    p->outside = calloc(out, 1);
    if (p->idx == NULL || p->w == NULL || p->outside == NULL)
        return false;
    p->any_outside = false;
    p->identity = in == out;
    for (uint32_t o = 0; o < out; o++) {
        double x = source(m->coord, o, scale, in, out, roi);
        if (isnan(x)) {
            p->outside[o] = 1;
            p->any_outside = true;
            x = 0;
        }
        x = x < -1e15 ? -1e15 : x > 1e15 ? 1e15 : x; /* a tiny scale: every tap clamps to an edge */
        /* the taps around x, preferring the left one: f = ceil(x) - 1, r in (0, 1] */
        double f = ceil(x) - 1, r = x - f, w[MAX_TAPS];
        int64_t first;
        if (near) {
            bool up = strcmp(m->nearest, "ceil") == 0 || r == 1 ||
                      (strcmp(m->nearest, "round_prefer_ceil") == 0 && r >= 0.5) ||
                      (strcmp(m->nearest, "round_prefer_floor") == 0 && r > 0.5);
            first = (int64_t)f + (up ? 1 : 0);
            w[0] = 1;
        } else if (lin) {
            first = (int64_t)f;
            w[0] = 1 - r;
            w[1] = r;
        } else {
            first = (int64_t)f - 1;
            cubic(r, m->cubic_a, w);
        }
        double sum = 0;
        for (uint32_t t = 0; t < p->taps; t++) {
            int64_t at = first + t;
            if (m->exclude_outside && (at < 0 || at >= in))
                w[t] = 0;
            sum += w[t];
        }
        for (uint32_t t = 0; t < p->taps; t++) {
            int64_t at = first + t;
            p->idx[(size_t)t * out + o] = at < 0 ? 0 : at >= in ? in - 1 : at;
            p->w[(size_t)t * out + o] = m->exclude_outside && sum != 0 ? w[t] / sum : w[t];
            if (p->w[(size_t)t * out + o] != (p->idx[(size_t)t * out + o] == o ? 1.0 : 0.0))
                p->identity = false;
        }
    }
    p->identity = p->identity && !p->any_outside;
    return true;
}

static void plan_free(axis_plan *p)
{
    free(p->idx);
    free(p->w);
    free(p->outside);
}

/* A constant of rank r holding v along axis (size len), 1 elsewhere. */
static wnn_operand *along(onx_importer *im, wnn_data_type t, uint32_t r, uint32_t axis, uint32_t len,
                          const int64_t *iv, const double *dv, const uint8_t *bv)
{
    int64_t dims[WNN_MAX_RANK];
    for (uint32_t i = 0; i < r; i++)
        dims[i] = i == axis ? len : 1;
    onx_value v;
    memset(&v, 0, sizeof v);
    v.name = (char *)"resize table";
    if ((v.c = onx_const_new(t, iv ? 1 : r, iv ? dims + axis : dims)) == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < len; i++) {
        if (iv)
            onx_set_i64(v.c, i, iv[i]);
        else
            onx_set_f64(v.c, i, dv ? dv[i] : bv[i]);
    }
    wnn_operand *op = onx_operand(im, &v);
    onx_const_free(v.c);
    return op;
}

wnn_status onx_resize_by_taps(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, const double *scales,
                              const uint32_t *out, const char *mode, const char *coord, const char *nearest)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc d = onx_desc_of(x);
    resize_mode m = {mode, coord, nearest, onx_attr_float(n, "cubic_coeff_a", -0.75f),
                     onx_attr_float(n, "extrapolation_value", 0.0f), onx_attr_int(n, "exclude_outside", 0) != 0};
    bool near = strcmp(mode, "nearest") == 0;
    if (!near && strcmp(mode, "linear") != 0 && strcmp(mode, "bilinear") != 0 && strcmp(mode, "cubic") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "mode '%s' is unknown", mode);
    if (!near && !onx_type_is_float(d.data_type))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%s resizing of %s: weighted sums need floats", mode,
                        wnn_data_type_name(d.data_type));
    double roi[2 * WNN_MAX_RANK];
    bool crop = strcmp(coord, "tf_crop_and_resize") == 0;
    if (crop) {
        const onx_const *rc = onx_in_const(im, n, 1, "roi");
        if (rc == NULL)
            return im->status;
        if (rc->count != 2 * (size_t)d.rank)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "roi has %zu values for rank %u", rc->count, d.rank);
        for (uint32_t i = 0; i < 2 * d.rank; i++)
            roi[i] = onx_get_f64(rc, i);
    }
    for (uint32_t a = 0; a < d.rank; a++)
        if (out[a] > RESIZE_MAX_TABLE)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an output axis of %u: its tables are limited to %u",
                            out[a], RESIZE_MAX_TABLE);
    wnn_operand *y = x, *masks[WNN_MAX_RANK];
    uint32_t nmask = 0;
    for (uint32_t a = 0; a < d.rank && y != NULL; a++) {
        axis_plan p;
        double ar[2] = {crop ? roi[a] : 0, crop ? roi[d.rank + a] : 1};
        if (!plan_axis(&m, d.shape[a], out[a], scales[a], ar, &p)) {
            plan_free(&p);
            return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        }
        if (!p.identity) {
            wnn_gather_options go = {.axis = a};
            wnn_operand *sum = NULL;
            for (uint32_t t = 0; t < p.taps && y != NULL; t++) {
                wnn_operand *g = wnn_gather(b, y, along(im, WNN_DATA_TYPE_INT64, 1, 0, out[a],
                                                        p.idx + (size_t)t * out[a], NULL, NULL), &go);
                if (!near)
                    g = wnn_mul(b, g, along(im, d.data_type, d.rank, a, out[a], NULL, p.w + (size_t)t * out[a],
                                            NULL));
                sum = sum == NULL ? g : wnn_add(b, sum, g);
            }
            y = sum;
        }
        if (p.any_outside)
            masks[nmask++] = along(im, WNN_DATA_TYPE_UINT8, d.rank, a, out[a], NULL, NULL, p.outside);
        plan_free(&p);
    }
    if (nmask > 0 && y != NULL) {
        wnn_operand *e = onx_scalar(im, d.data_type, m.extrapolation);
        for (uint32_t i = 0; i < nmask; i++)
            y = wnn_where(b, masks[i], e, y);
    }
    return onx_out(im, n, 0, y == x ? wnn_identity(b, x) : y);
}
