/*
** ops_gridsample.c -- GridSample (4-D) and RoiAlign on WebNN: the grid's normalized
** coordinates are unnormalized in the graph, the taps around each sampling
** point (1 nearest, 4 bilinear, 16 bicubic) become flat indices y * W + x,
** and gatherElements reads them from the input flattened to [N, C, H * W];
** each tap is weighted, masked to 0 outside the input for zeros padding,
** and summed. Coordinates follow PyTorch's grid_sample, which ONNX's
** operator mirrors: border clips, reflection folds about the edges (or the
** pixel centres with align_corners), nearest rounds half to even, bicubic
** bounds each tap alone with A = -0.75. RoiAlign samples each output bin
** on a fixed grid the same way (bilinear, ONNX Runtime's edge rules), its
** feature map picked per region by a gather on the batch index.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

typedef struct sampler {
    onx_importer *im;
    wnn_data_type t;
    uint32_t n, c, h, w, ho, wo;
    bool align, zeros, border, reflection;
    wnn_operand *flat; /* the input as [N, C, H * W] */
} sampler;

static wnn_operand *k(const sampler *s, double v) { return onx_scalar(s->im, s->t, v); }

static wnn_operand *clip(const sampler *s, wnn_operand *x, double hi)
{
    wnn_graph_builder *b = s->im->b;
    return wnn_min(b, wnn_max(b, x, k(s, 0.0)), k(s, hi));
}

/* PyTorch's reflect_coordinates: x folded into [lo, lo + span] (twice_low,
** twice_high as PyTorch passes them). */
static wnn_operand *reflect(const sampler *s, wnn_operand *x, double twice_low, double twice_high)
{
    wnn_graph_builder *b = s->im->b;
    if (twice_low == twice_high)
        return wnn_mul(b, x, k(s, 0.0));
    double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
    wnn_operand *a = wnn_abs(b, wnn_sub(b, x, k(s, lo)));
    wnn_operand *flips = wnn_floor(b, wnn_div(b, a, k(s, span)));
    wnn_operand *extra = wnn_sub(b, a, wnn_mul(b, flips, k(s, span)));
    wnn_operand *odd = wnn_sub(b, flips, wnn_mul(b, wnn_floor(b, wnn_div(b, flips, k(s, 2.0))), k(s, 2.0)));
    return wnn_where(b, wnn_equal(b, odd, k(s, 0.0)), wnn_add(b, extra, k(s, lo)),
                     wnn_add(b, wnn_sub(b, k(s, span), extra), k(s, lo)));
}

/* Border and reflection padding of a coordinate along an axis of size. */
static wnn_operand *pad_coord(const sampler *s, wnn_operand *x, uint32_t size)
{
    if (s->border)
        return clip(s, x, size - 1.0);
    if (!s->reflection)
        return x;
    x = s->align ? reflect(s, x, 0, 2.0 * (size - 1)) : reflect(s, x, -1, 2.0 * size - 1);
    return clip(s, x, size - 1.0);
}

static wnn_operand *unnormalize(const sampler *s, wnn_operand *g, uint32_t size)
{
    wnn_graph_builder *b = s->im->b;
    wnn_operand *p1 = wnn_add(b, g, k(s, 1.0));
    return s->align ? wnn_mul(b, p1, k(s, (size - 1) / 2.0))
                    : wnn_div(b, wnn_sub(b, wnn_mul(b, p1, k(s, size)), k(s, 1.0)), k(s, 2.0));
}

/* The input at integer-valued coordinates (x, y) [N, Ho, Wo], times weight
** (NULL: 1), 0 where the tap is outside the input. */
static wnn_operand *tap(const sampler *s, wnn_operand *x, wnn_operand *y, wnn_operand *weight)
{
    wnn_graph_builder *b = s->im->b;
    wnn_operand *inside = wnn_logical_and(
        b, wnn_logical_and(b, wnn_greater_or_equal(b, x, k(s, 0.0)), wnn_lesser_or_equal(b, x, k(s, s->w - 1.0))),
        wnn_logical_and(b, wnn_greater_or_equal(b, y, k(s, 0.0)), wnn_lesser_or_equal(b, y, k(s, s->h - 1.0))));
    wnn_operand *xi = wnn_cast(b, clip(s, x, s->w - 1.0), WNN_DATA_TYPE_INT64);
    wnn_operand *yi = wnn_cast(b, clip(s, y, s->h - 1.0), WNN_DATA_TYPE_INT64);
    wnn_operand *at = wnn_add(b, wnn_mul(b, yi, onx_scalar(s->im, WNN_DATA_TYPE_INT64, s->w)), xi);
    uint32_t flat[3] = {s->n, 1, s->ho * s->wo}, wide[3] = {s->n, s->c, s->ho * s->wo};
    at = wnn_expand(b, wnn_reshape(b, at, 3, flat), 3, wide);
    wnn_gather_options go = {.axis = 2};
    wnn_operand *v = wnn_gather_elements(b, s->flat, at, &go);
    wnn_operand *m = weight ? wnn_where(b, inside, weight, k(s, 0.0)) : wnn_where(b, inside, k(s, 1.0), k(s, 0.0));
    return wnn_mul(b, v, wnn_reshape(b, m, 3, flat));
}

static wnn_operand *accumulate(onx_importer *im, wnn_operand *sum, wnn_operand *v)
{
    return sum == NULL ? v : wnn_add(im->b, sum, v);
}

/* PyTorch's cubic convolution weights for offset t in [0, 1). */
static void cubic_weights(const sampler *s, wnn_operand *t, wnn_operand **w)
{
    wnn_graph_builder *b = s->im->b;
    const double a = -0.75;
    wnn_operand *one = k(s, 1.0);
    wnn_operand *x[4] = {wnn_add(b, t, one), t, wnn_sub(b, one, t), wnn_sub(b, k(s, 2.0), t)};
    for (int i = 0; i < 4; i++) {
        if (i == 1 || i == 2) { /* ((a + 2) x - (a + 3)) x x + 1 */
            wnn_operand *p = wnn_sub(b, wnn_mul(b, x[i], k(s, a + 2)), k(s, a + 3));
            w[i] = wnn_add(b, wnn_mul(b, wnn_mul(b, p, x[i]), x[i]), one);
        } else { /* ((a x - 5 a) x + 8 a) x - 4 a */
            wnn_operand *p = wnn_sub(b, wnn_mul(b, x[i], k(s, a)), k(s, 5 * a));
            p = wnn_add(b, wnn_mul(b, p, x[i]), k(s, 8 * a));
            w[i] = wnn_sub(b, wnn_mul(b, p, x[i]), k(s, 4 * a));
        }
    }
}

static wnn_status lower_grid_sample(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *grid = onx_in_op(im, n, 1);
    if (x == NULL || grid == NULL)
        return im->status;
    wnn_operand_desc xd = onx_desc_of(x), gd = onx_desc_of(grid);
    if (xd.rank != 4 || gd.rank != 4 || gd.shape[3] != 2 || gd.shape[0] != xd.shape[0])
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "an input of rank %u and a grid of rank %u: 4-D only "
                        "([N, C, H, W] and [N, Ho, Wo, 2])", xd.rank, gd.rank);
    if (!onx_type_is_float(xd.data_type) || gd.data_type != xd.data_type)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input and grid must share a float type");
    char mode[16], padding[16];
    onx_attr_string(n, "mode", "bilinear", mode, sizeof mode);
    onx_attr_string(n, "padding_mode", "zeros", padding, sizeof padding);
    sampler s = {im, xd.data_type, xd.shape[0], xd.shape[1], xd.shape[2], xd.shape[3], gd.shape[1], gd.shape[2],
                 onx_attr_int(n, "align_corners", 0) != 0, strcmp(padding, "zeros") == 0,
                 strcmp(padding, "border") == 0, strcmp(padding, "reflection") == 0, NULL};
    bool nearest = strcmp(mode, "nearest") == 0, bicubic = strcmp(mode, "bicubic") == 0;
    if (!s.zeros && !s.border && !s.reflection)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "padding_mode '%s' is unknown", padding);
    if (!nearest && !bicubic && strcmp(mode, "bilinear") != 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "mode '%s' (opset 16 has bilinear, nearest, bicubic)", mode);
    uint32_t flat[3] = {s.n, s.c, s.h * s.w}, starts[4] = {0}, sizes[4] = {s.n, s.ho, s.wo, 1}, plane[3] = {s.n, s.ho,
                                                                                                        s.wo};
    s.flat = wnn_reshape(b, x, 3, flat);
    wnn_operand *gx = wnn_reshape(b, wnn_slice(b, grid, starts, sizes, NULL), 3, plane);
    starts[3] = 1;
    wnn_operand *gy = wnn_reshape(b, wnn_slice(b, grid, starts, sizes, NULL), 3, plane);
    wnn_operand *ix = unnormalize(&s, gx, s.w), *iy = unnormalize(&s, gy, s.h), *sum = NULL;
    if (nearest) {
        ix = wnn_round_even(b, pad_coord(&s, ix, s.w));
        iy = wnn_round_even(b, pad_coord(&s, iy, s.h));
        sum = tap(&s, ix, iy, NULL);
    } else if (!bicubic) {
        ix = pad_coord(&s, ix, s.w);
        iy = pad_coord(&s, iy, s.h);
        wnn_operand *x0 = wnn_floor(b, ix), *y0 = wnn_floor(b, iy), *one = k(&s, 1.0);
        wnn_operand *x1 = wnn_add(b, x0, one), *y1 = wnn_add(b, y0, one);
        wnn_operand *wx1 = wnn_sub(b, ix, x0), *wy1 = wnn_sub(b, iy, y0);
        wnn_operand *wx0 = wnn_sub(b, one, wx1), *wy0 = wnn_sub(b, one, wy1);
        sum = accumulate(im, sum, tap(&s, x0, y0, wnn_mul(b, wx0, wy0)));
        sum = accumulate(im, sum, tap(&s, x1, y0, wnn_mul(b, wx1, wy0)));
        sum = accumulate(im, sum, tap(&s, x0, y1, wnn_mul(b, wx0, wy1)));
        sum = accumulate(im, sum, tap(&s, x1, y1, wnn_mul(b, wx1, wy1)));
    } else {
        wnn_operand *x0 = wnn_floor(b, ix), *y0 = wnn_floor(b, iy), *wx[4], *wy[4];
        cubic_weights(&s, wnn_sub(b, ix, x0), wx);
        cubic_weights(&s, wnn_sub(b, iy, y0), wy);
        for (int j = 0; j < 4; j++) {
            wnn_operand *yj = pad_coord(&s, wnn_add(b, y0, k(&s, j - 1.0)), s.h);
            for (int i = 0; i < 4; i++) {
                wnn_operand *xi = pad_coord(&s, wnn_add(b, x0, k(&s, i - 1.0)), s.w);
                sum = accumulate(im, sum, tap(&s, xi, yj, wnn_mul(b, wx[i], wy[j])));
            }
        }
    }
    uint32_t out[4] = {s.n, s.c, s.ho, s.wo};
    return onx_out(im, n, 0, sum ? wnn_reshape(b, sum, 4, out) : NULL);
}

/* RoiAlign: for region r, bin (ph, pw) and grid sample (iy, ix), y =
** y1 + ph * bin_h + (iy + 0.5) * bin_h / grid_h (x alike), bilinear with
** ONNX Runtime's rules (outside [-1, size]: 0; clamped at 0; the last row or
** column repeats), then the average or the maximum of the weighted taps
** over the grid. The grid is sampling_ratio, or with 0 the adaptive
** ceil(roi size / output size) when the regions are known at import and
** give every region the same grid. */
static wnn_status lower_roi_align(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0), *rois = onx_in_op(im, n, 1), *bidx = onx_in_op(im, n, 2);
    if (x == NULL || rois == NULL || bidx == NULL)
        return im->status;
    wnn_operand_desc xd = onx_desc_of(x), rd = onx_desc_of(rois);
    if (xd.rank != 4 || rd.rank != 2 || rd.shape[1] != 4 || !onx_type_is_float(xd.data_type) ||
        rd.data_type != xd.data_type)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "X [N, C, H, W] and rois [R, 4] of one float type");
    char coord[32], mode[8];
    onx_attr_string(n, "coordinate_transformation_mode", im->opset >= 16 ? "half_pixel" : "output_half_pixel", coord,
                    sizeof coord);
    onx_attr_string(n, "mode", "avg", mode, sizeof mode);
    bool half = strcmp(coord, "half_pixel") == 0, max = strcmp(mode, "max") == 0;
    if (!max && strcmp(mode, "avg") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "mode '%s' is not avg or max", mode);
    int64_t oh = onx_attr_int(n, "output_height", 1), ow = onx_attr_int(n, "output_width", 1);
    int64_t ratio = onx_attr_int(n, "sampling_ratio", 0);
    double scale = onx_attr_float(n, "spatial_scale", 1.0f), offset = half ? 0.5 : 0.0;
    if (oh < 1 || ow < 1 || oh > 4096 || ow > 4096 || ratio < 0 || ratio > 64)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "output %lld x %lld, sampling_ratio %lld", (long long)oh,
                        (long long)ow, (long long)ratio);
    uint32_t nr = rd.shape[0], gh = (uint32_t)ratio, gw = (uint32_t)ratio;
    if (ratio == 0) { /* adaptive: the regions must be known and agree */
        onx_value *rv = onx_in(im, n, 1);
        for (uint32_t r = 0; rv->c != NULL && r < nr; r++) {
            double h = (onx_get_f64(rv->c, r * 4 + 3) - onx_get_f64(rv->c, r * 4 + 1)) * scale;
            double w = (onx_get_f64(rv->c, r * 4 + 2) - onx_get_f64(rv->c, r * 4 + 0)) * scale;
            if (!half) {
                h = fmax(h, 1.0);
                w = fmax(w, 1.0);
            }
            uint32_t rh = (uint32_t)fmax(1, ceil(h / oh)), rw = (uint32_t)fmax(1, ceil(w / ow));
            if ((r > 0 && (rh != gh || rw != gw)) || rh > 64 || rw > 64) {
                gh = 0;
                break;
            }
            gh = rh, gw = rw;
        }
        if (gh == 0)
            return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "sampling_ratio 0 samples each region on a grid of its "
                            "own size: the regions must be known at import and give one grid");
    }
    sampler s = {im, xd.data_type, nr, xd.shape[1], xd.shape[2], xd.shape[3], (uint32_t)oh * gh,
                 (uint32_t)ow * gw, false, true, false, false, NULL};
    /* the regions' corners and bin sizes, [R, 1] each */
    wnn_operand *corner[4];
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t st[2] = {0, i}, sz[2] = {nr, 1};
        corner[i] = wnn_sub(b, wnn_mul(b, wnn_slice(b, rois, st, sz, NULL), k(&s, scale)), k(&s, offset));
    }
    wnn_operand *rh = wnn_sub(b, corner[3], corner[1]), *rw = wnn_sub(b, corner[2], corner[0]);
    if (!half) {
        rh = wnn_max(b, rh, k(&s, 1.0));
        rw = wnn_max(b, rw, k(&s, 1.0));
    }
    /* sample positions along each axis: start + (j + 0.5) * bin / grid for j over out * grid */
    double *fy = malloc(sizeof *fy * (s.ho > s.wo ? s.ho : s.wo));
    if (fy == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    wnn_operand *pos[2];
    for (int a = 0; a < 2; a++) {
        uint32_t count = a ? s.wo : s.ho, grid = a ? gw : gh, out = (uint32_t)(a ? ow : oh);
        for (uint32_t j = 0; j < count; j++) /* in units of the bin: bin index + (sample + 0.5) / grid */
            fy[j] = j / grid + ((j % grid) + 0.5) / grid;
        onx_const *c = onx_const_new(s.t, 2, (int64_t[]){1, count});
        for (uint32_t j = 0; c != NULL && j < count; j++)
            onx_set_f64(c, j, fy[j]);
        onx_value v;
        memset(&v, 0, sizeof v);
        v.name = (char *)"roi samples";
        v.c = c;
        wnn_operand *steps = c ? onx_operand(im, &v) : NULL;
        onx_const_free(c);
        wnn_operand *bin = wnn_div(b, a ? rw : rh, k(&s, out));
        pos[a] = wnn_add(b, a ? corner[0] : corner[1], wnn_mul(b, steps, bin)); /* [R, count] */
    }
    free(fy);
    /* ONNX Runtime's bilinear edge rules, per axis */
    wnn_operand *lo[2], *hi[2], *wl[2], *wh[2], *ok[2];
    for (int a = 0; a < 2; a++) {
        double size = a ? s.w : s.h;
        wnn_operand *p = pos[a];
        ok[a] = wnn_logical_and(b, wnn_greater_or_equal(b, p, k(&s, -1.0)), wnn_lesser_or_equal(b, p, k(&s, size)));
        p = wnn_max(b, p, k(&s, 0.0));
        wnn_operand *f = wnn_floor(b, p), *last = wnn_greater_or_equal(b, f, k(&s, size - 1));
        lo[a] = wnn_where(b, last, k(&s, size - 1), f);
        hi[a] = wnn_where(b, last, k(&s, size - 1), wnn_add(b, f, k(&s, 1.0)));
        wl[a] = wnn_where(b, last, k(&s, 0.0), wnn_sub(b, p, f)); /* the weight of hi */
        wh[a] = wnn_sub(b, k(&s, 1.0), wl[a]);
    }
    /* per region, its image: [R, C, H * W] */
    uint32_t flat[3] = {xd.shape[0], s.c, s.h * s.w};
    wnn_gather_options g0 = {.axis = 0};
    s.flat = wnn_gather(b, wnn_reshape(b, x, 3, flat), bidx, &g0);
    /* [R, ho] x [R, wo] -> [R, ho, wo] */
    uint32_t ys[3] = {nr, s.ho, 1}, xs[3] = {nr, 1, s.wo}, grid3[3] = {nr, s.ho, s.wo};
    wnn_operand *inside = wnn_logical_and(b, wnn_reshape(b, ok[0], 3, ys), wnn_reshape(b, ok[1], 3, xs));
    wnn_operand *acc = NULL;
    for (int i = 0; i < 4; i++) {
        wnn_operand *yy = wnn_expand(b, wnn_reshape(b, i < 2 ? lo[0] : hi[0], 3, ys), 3, grid3);
        wnn_operand *xx = wnn_expand(b, wnn_reshape(b, i % 2 ? hi[1] : lo[1], 3, xs), 3, grid3);
        wnn_operand *w = wnn_mul(b, wnn_reshape(b, i < 2 ? wh[0] : wl[0], 3, ys),
                                 wnn_reshape(b, i % 2 ? wl[1] : wh[1], 3, xs));
        wnn_operand *v = tap(&s, xx, yy, wnn_where(b, inside, w, k(&s, 0.0))); /* [R, C, ho * wo] */
        acc = acc == NULL ? v : max ? wnn_max(b, acc, v) : wnn_add(b, acc, v);
    }
    /* [R, C, oh, gh, ow, gw] reduced over the grid */
    uint32_t s6[6] = {nr, s.c, (uint32_t)oh, gh, (uint32_t)ow, gw}, axes[2] = {3, 5};
    wnn_reduce_options ro = {.axes = axes, .axes_count = 2};
    wnn_operand *y = wnn_reshape(b, acc, 6, s6);
    y = max ? wnn_reduce_max(b, y, &ro) : wnn_reduce_mean(b, y, &ro);
    return onx_out(im, n, 0, y);
}

const onx_op_entry onx_ops_gridsample[] = {
    {"GridSample", lower_grid_sample},
    {"RoiAlign", lower_roi_align},
    {NULL, NULL},
};
