/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_conv.c -- conv2d and convTranspose2d, float32 and float16, both input
** layouts and every filter layout.
**
** The filter is first repacked into float32 in one canonical order, so that
** layouts cost nothing further on: conv2d as [out][in/groups][kh][kw],
** convTranspose2d as [in][out/groups][kh][kw]. Then one of two paths runs:
**
**   gemm    conv2d: im2col (one row of taps per output pixel) times the
**           filter through wnn__cpu_sgemm, a tile of rows at a time
**           so the column buffer stays small; 1x1 convolutions with unit
**           strides and no padding multiply the input in place.
**           convTranspose2d: input pixels times the filter gives every
**           pixel's contribution, which col2im adds into the output.
**   direct  plain loops over taps, one output plane per task on the wnn
**           pool: the reference, and the faster path for tiny problems and
**           for thin groups (depthwise), where a BLAS call costs more than
**           its arithmetic.
**
** Both accumulate in float32, as sgemm does. float16 operands are widened to
** float32, computed, and rounded once per output. WNN_CPU_CONV=gemm or
** WNN_CPU_CONV=direct in the environment forces a path (tests compare them).
**
** OpenBLAS runs its own threads, so BLAS calls stay on the calling thread;
** the pool spreads im2col, col2im and the direct loops.
*/
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/k_spatial.h"
#include "platform/pool.h"
#include "platform/config.h"

/* The gemm path pays off from this many multiply-adds, with at least this
** many filter taps per output and outputs per group. */
#define GEMM_MIN_WORK ((size_t)1 << 16)
#define GEMM_MIN_SIDE 8
/* Floats in one column tile (8 MiB). */
#define COL_BUDGET ((size_t)1 << 21)
/* Multiply-adds worth one task of the pool. */
#define TASK_WORK ((size_t)1 << 15)

typedef struct conv_geom {
    wnn__spatial4 in, out;
    size_t groups, cg_in, cg_out; /* channels per group */
    size_t kh, kw;
    size_t sy, sx, dy, dx;
    ptrdiff_t pt, pl; /* padding at the top and the left */
    bool pad_free;    /* no padding on any side */
} conv_geom;

typedef struct conv_job {
    conv_geom g;
    const float *x;    /* input, float32 */
    const float *w;    /* filter, repacked */
    const float *bias; /* NULL: none */
    float *y;          /* output, float32 */
} conv_job;

/* ------------------------------------------------------------------------ */
/* Filters                                                                   */
/* ------------------------------------------------------------------------ */

/* Where each filter dimension sits in the filter's shape, per layout. */
typedef struct filter_axes {
    int o, i, h, w;
} filter_axes;

static filter_axes filter_axes_of(wnn__op op, uint32_t layout)
{
    if (op == WNN__OP_CONV2D) {
        switch (layout) {
        case WNN_CONV2D_FILTER_LAYOUT_HWIO: return (filter_axes){3, 2, 0, 1};
        case WNN_CONV2D_FILTER_LAYOUT_OHWI: return (filter_axes){0, 3, 1, 2};
        case WNN_CONV2D_FILTER_LAYOUT_IHWO: return (filter_axes){3, 0, 1, 2};
        default: return (filter_axes){0, 1, 2, 3};
        }
    }
    switch (layout) {
    case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI: return (filter_axes){2, 3, 0, 1};
    case WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI: return (filter_axes){0, 3, 1, 2};
    default: return (filter_axes){1, 0, 2, 3};
    }
}

/* Repacks the filter as float32 [first][second][kh][kw], where (first,
** second) is (o, i) for conv2d and (i, o) for convTranspose2d. */
static float *pack_filter(wnn__op op, uint32_t layout, const wnn__view *f)
{
    const uint32_t *s = f->desc.shape;
    size_t st[4] = {(size_t)s[1] * s[2] * s[3], (size_t)s[2] * s[3], s[3], 1};
    filter_axes a = filter_axes_of(op, layout);
    bool transpose = op == WNN__OP_CONV_TRANSPOSE2D;
    size_t n1 = transpose ? s[a.i] : s[a.o], n2 = transpose ? s[a.o] : s[a.i];
    size_t st1 = transpose ? st[a.i] : st[a.o], st2 = transpose ? st[a.o] : st[a.i];
    size_t kh = s[a.h], kw = s[a.w], sh = st[a.h], sw = st[a.w];
    bool half = f->desc.data_type == WNN_DATA_TYPE_FLOAT16;
    float *p = malloc(n1 * n2 * kh * kw * sizeof *p);
    if (!p)
        return NULL;
    float *q = p;
    for (size_t u = 0; u < n1; u++)
        for (size_t v = 0; v < n2; v++)
            for (size_t y = 0; y < kh; y++)
                for (size_t x = 0; x < kw; x++)
                    *q++ = wnn__load_float(f->data, u * st1 + v * st2 + y * sh + x * sw, half);
    return p;
}

/* Output channel values of bias, or NULL when absent. */
static float *load_bias(const wnn__view *b, bool *failed)
{
    *failed = false;
    if (!b->data)
        return NULL;
    size_t n = b->desc.shape[0];
    float *v = malloc(n * sizeof *v);
    if (!v) {
        *failed = true;
        return NULL;
    }
    bool half = b->desc.data_type == WNN_DATA_TYPE_FLOAT16;
    for (size_t i = 0; i < n; i++)
        v[i] = wnn__load_float(b->data, i, half);
    return v;
}

/* Sets every output element to its channel's bias (0 without one). */
static void fill_bias(const conv_job *j)
{
    const wnn__spatial4 *o = &j->g.out;
    size_t count = o->n * o->sn;
    if (!j->bias) {
        memset(j->y, 0, count * sizeof *j->y);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        size_t c = o->sc == 1 ? i % o->c : (i / o->sc) % o->c;
        j->y[i] = j->bias[c];
    }
}

/* ------------------------------------------------------------------------ */
/* Direct loops                                                              */
/* ------------------------------------------------------------------------ */

/* The taps k in [*k0, *k1) of a window whose tap 0 reads index start
** (start + k * dilation) that fall inside [0, size). */
static void tap_range(ptrdiff_t start, size_t taps, size_t dilation, size_t size, size_t *k0, size_t *k1)
{
    ptrdiff_t d = (ptrdiff_t)dilation, last = (ptrdiff_t)size - 1 - start;
    size_t lo = start < 0 ? (size_t)((-start + d - 1) / d) : 0;
    size_t hi = last < 0 ? 0 : (size_t)(last / d) + 1;
    *k1 = hi < taps ? hi : taps;
    *k0 = lo < *k1 ? lo : *k1;
}

/* conv2d: output planes (batch, channel) [begin, end). */
static void conv2d_direct(void *arg, size_t begin, size_t end)
{
    const conv_job *j = arg;
    const conv_geom *g = &j->g;
    size_t taps = g->cg_in * g->kh * g->kw;
    for (size_t t = begin; t < end; t++) {
        size_t n = t / g->out.c, o = t % g->out.c, grp = o / g->cg_out;
        const float *w = j->w + o * taps;
        const float *x = j->x + n * g->in.sn + grp * g->cg_in * g->in.sc;
        float *y = j->y + n * g->out.sn + o * g->out.sc;
        float b = j->bias ? j->bias[o] : 0.0f;
        for (size_t oy = 0; oy < g->out.h; oy++) {
            ptrdiff_t y0 = (ptrdiff_t)(oy * g->sy) - g->pt;
            size_t ky0, ky1;
            tap_range(y0, g->kh, g->dy, g->in.h, &ky0, &ky1);
            for (size_t ox = 0; ox < g->out.w; ox++) {
                ptrdiff_t x0 = (ptrdiff_t)(ox * g->sx) - g->pl;
                size_t kx0, kx1;
                tap_range(x0, g->kw, g->dx, g->in.w, &kx0, &kx1);
                float acc = b;
                for (size_t c = 0; c < g->cg_in; c++)
                    for (size_t ky = ky0; ky < ky1; ky++) {
                        const float *xr = x + c * g->in.sc + (size_t)(y0 + (ptrdiff_t)(ky * g->dy)) * g->in.sh;
                        const float *wr = w + (c * g->kh + ky) * g->kw;
                        for (size_t kx = kx0; kx < kx1; kx++)
                            acc += xr[(size_t)(x0 + (ptrdiff_t)(kx * g->dx)) * g->in.sw] * wr[kx];
                    }
                y[oy * g->out.sh + ox * g->out.sw] = acc;
            }
        }
    }
}

/* Depthwise conv2d in nhwc (one input and one output channel per group):
** output rows (batch, y) [begin, end), all channels of a pixel at once,
** which is contiguous in memory on both sides. j->w is [kh][kw][channels]. */
static void depthwise_nhwc_rows(void *arg, size_t begin, size_t end)
{
    const conv_job *j = arg;
    const conv_geom *g = &j->g;
    size_t channels = g->out.c;
    for (size_t t = begin; t < end; t++) {
        size_t n = t / g->out.h, oy = t % g->out.h;
        ptrdiff_t y0 = (ptrdiff_t)(oy * g->sy) - g->pt;
        size_t ky0, ky1;
        tap_range(y0, g->kh, g->dy, g->in.h, &ky0, &ky1);
        for (size_t ox = 0; ox < g->out.w; ox++) {
            ptrdiff_t x0 = (ptrdiff_t)(ox * g->sx) - g->pl;
            size_t kx0, kx1;
            tap_range(x0, g->kw, g->dx, g->in.w, &kx0, &kx1);
            float *restrict y = j->y + n * g->out.sn + oy * g->out.sh + ox * g->out.sw;
            for (size_t c = 0; c < channels; c++)
                y[c] = j->bias ? j->bias[c] : 0.0f;
            for (size_t ky = ky0; ky < ky1; ky++)
                for (size_t kx = kx0; kx < kx1; kx++) {
                    size_t iy = (size_t)(y0 + (ptrdiff_t)(ky * g->dy)), ix = (size_t)(x0 + (ptrdiff_t)(kx * g->dx));
                    const float *restrict x = j->x + n * g->in.sn + iy * g->in.sh + ix * g->in.sw;
                    const float *restrict w = j->w + (ky * g->kw + kx) * channels;
                    for (size_t c = 0; c < channels; c++)
                        y[c] += x[c] * w[c];
                }
        }
    }
}

/* [channels][kh][kw] -> [kh][kw][channels], for depthwise_nhwc_rows. */
static float *taps_major(const float *w, size_t channels, size_t taps)
{
    float *t = malloc(channels * taps * sizeof *t);
    if (!t)
        return NULL;
    for (size_t c = 0; c < channels; c++)
        for (size_t k = 0; k < taps; k++)
            t[k * channels + c] = w[c * taps + k];
    return t;
}

/* The input index that output index o receives tap k from, or -1. */
static ptrdiff_t transpose_source(size_t o, size_t k, ptrdiff_t pad, size_t stride, size_t dilation, size_t in)
{
    ptrdiff_t t = (ptrdiff_t)o + pad - (ptrdiff_t)(k * dilation);
    if (t < 0 || t % (ptrdiff_t)stride != 0 || (size_t)(t / (ptrdiff_t)stride) >= in)
        return -1;
    return t / (ptrdiff_t)stride;
}

/* convTranspose2d: output planes [begin, end), each gathering its taps. */
static void conv_transpose2d_direct(void *arg, size_t begin, size_t end)
{
    const conv_job *j = arg;
    const conv_geom *g = &j->g;
    size_t taps = g->kh * g->kw;
    for (size_t t = begin; t < end; t++) {
        size_t n = t / g->out.c, o = t % g->out.c, grp = o / g->cg_out, co = o % g->cg_out;
        float *y = j->y + n * g->out.sn + o * g->out.sc;
        float b = j->bias ? j->bias[o] : 0.0f;
        for (size_t oy = 0; oy < g->out.h; oy++)
            for (size_t ox = 0; ox < g->out.w; ox++) {
                float acc = b;
                for (size_t ky = 0; ky < g->kh; ky++) {
                    ptrdiff_t iy = transpose_source(oy, ky, g->pt, g->sy, g->dy, g->in.h);
                    if (iy < 0)
                        continue;
                    for (size_t kx = 0; kx < g->kw; kx++) {
                        ptrdiff_t ix = transpose_source(ox, kx, g->pl, g->sx, g->dx, g->in.w);
                        if (ix < 0)
                            continue;
                        const float *x = j->x + n * g->in.sn + (size_t)iy * g->in.sh + (size_t)ix * g->in.sw;
                        for (size_t c = 0; c < g->cg_in; c++) {
                            size_t ci = grp * g->cg_in + c;
                            acc += x[ci * g->in.sc] * j->w[(ci * g->cg_out + co) * taps + ky * g->kw + kx];
                        }
                    }
                }
                y[oy * g->out.sh + ox * g->out.sw] = acc;
            }
    }
}

/* ------------------------------------------------------------------------ */
/* gemm path                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct tile_job {
    const conv_job *j;
    const float *x; /* this batch and group's first input channel */
    float *col;
    float *y;       /* col2im: this batch and group's first output channel */
    size_t p0;      /* first pixel of the tile */
    size_t rows;
} tile_job;

/* im2col: rows [begin, end) of the tile, one output pixel each, holding its
** taps in the packed filter's order (channel, ky, kx). */
static void im2col_rows(void *arg, size_t begin, size_t end)
{
    const tile_job *t = arg;
    const conv_geom *g = &t->j->g;
    size_t taps = g->cg_in * g->kh * g->kw;
    for (size_t r = begin; r < end; r++) {
        size_t p = t->p0 + r, oy = p / g->out.w, ox = p % g->out.w;
        ptrdiff_t y0 = (ptrdiff_t)(oy * g->sy) - g->pt, x0 = (ptrdiff_t)(ox * g->sx) - g->pl;
        float *row = t->col + r * taps;
        for (size_t c = 0; c < g->cg_in; c++)
            for (size_t ky = 0; ky < g->kh; ky++, row += g->kw) {
                ptrdiff_t iy = y0 + (ptrdiff_t)(ky * g->dy);
                if (iy < 0 || iy >= (ptrdiff_t)g->in.h) {
                    memset(row, 0, g->kw * sizeof *row);
                    continue;
                }
                const float *xr = t->x + c * g->in.sc + (size_t)iy * g->in.sh;
                for (size_t kx = 0; kx < g->kw; kx++) {
                    ptrdiff_t ix = x0 + (ptrdiff_t)(kx * g->dx);
                    row[kx] = ix >= 0 && ix < (ptrdiff_t)g->in.w ? xr[(size_t)ix * g->in.sw] : 0.0f;
                }
            }
    }
}

static size_t grain_for(size_t work_per_item)
{
    return work_per_item >= TASK_WORK ? 1 : TASK_WORK / (work_per_item ? work_per_item : 1);
}

/* Adds the products of rows pixels (from p0) of batch n and group grp to
** the output, in its layout. a holds the pixels' taps: pixel-major, a[pixel
** * lda + tap], or channel-major (1x1 nchw input), a[tap * lda + pixel]. */
static void conv2d_multiply(const conv_job *j, size_t n, size_t grp, size_t p0, size_t rows, const float *a,
                            size_t lda, bool a_is_channel_major)
{
    const conv_geom *g = &j->g;
    size_t taps = g->cg_in * g->kh * g->kw, pixels = g->out.h * g->out.w;
    const float *w = j->w + grp * g->cg_out * taps;
    float *y = j->y + n * g->out.sn;
    if (g->out.sc == 1) /* nhwc: y[pixel][channel] += a * w^T */
        wnn__cpu_sgemm(a_is_channel_major, true, rows, g->cg_out, taps, 1.0f, a, lda, w, taps, 1.0f,
                       y + p0 * g->out.c + grp * g->cg_out, g->out.c);
    else /* nchw: y[channel][pixel] += w * a^T */
        wnn__cpu_sgemm(false, !a_is_channel_major, g->cg_out, rows, taps, 1.0f, w, taps, a, lda, 1.0f,
                       y + grp * g->cg_out * pixels + p0, pixels);
}

static wnn_status conv2d_gemm(const conv_job *j)
{
    const conv_geom *g = &j->g;
    size_t taps = g->cg_in * g->kh * g->kw, pixels = g->out.h * g->out.w;
    fill_bias(j);
    if (g->kh == 1 && g->kw == 1 && g->sy == 1 && g->sx == 1 && g->pad_free) {
        /* The input already is the column matrix: nhwc [pixel][channel]
        ** rows, nchw [channel][pixel] rows. */
        for (size_t n = 0; n < g->in.n; n++)
            for (size_t grp = 0; grp < g->groups; grp++) {
                const float *x = j->x + n * g->in.sn + grp * g->cg_in * g->in.sc;
                if (g->in.sc == 1)
                    conv2d_multiply(j, n, grp, 0, pixels, x, g->in.c, false);
                else
                    conv2d_multiply(j, n, grp, 0, pixels, x, pixels, true);
            }
        return WNN_OK;
    }
    size_t tile = COL_BUDGET / taps;
    tile = tile < 1 ? 1 : tile > pixels ? pixels : tile;
    float *col = malloc(tile * taps * sizeof *col);
    if (!col)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (size_t n = 0; n < g->in.n; n++)
        for (size_t grp = 0; grp < g->groups; grp++)
            for (size_t p0 = 0; p0 < pixels; p0 += tile) {
                tile_job t = {j, j->x + n * g->in.sn + grp * g->cg_in * g->in.sc, col, NULL, p0,
                              pixels - p0 < tile ? pixels - p0 : tile};
                wnn__parallel_for(t.rows, grain_for(taps), im2col_rows, &t);
                conv2d_multiply(j, n, grp, p0, t.rows, col, taps, false);
            }
    free(col);
    return WNN_OK;
}

/* col2im: output channels [begin, end) of the group add the tile's
** contributions (channels are disjoint, so tasks never share a store). */
static void col2im_channels(void *arg, size_t begin, size_t end)
{
    const tile_job *t = arg;
    const conv_geom *g = &t->j->g;
    size_t taps = g->kh * g->kw, width = g->cg_out * taps;
    for (size_t co = begin; co < end; co++) {
        float *y = t->y + co * g->out.sc;
        for (size_t r = 0; r < t->rows; r++) {
            size_t p = t->p0 + r, iy = p / g->in.w, ix = p % g->in.w;
            const float *src = t->col + r * width + co * taps;
            for (size_t ky = 0; ky < g->kh; ky++) {
                ptrdiff_t oy = (ptrdiff_t)(iy * g->sy + ky * g->dy) - g->pt;
                if (oy < 0 || oy >= (ptrdiff_t)g->out.h)
                    continue;
                for (size_t kx = 0; kx < g->kw; kx++) {
                    ptrdiff_t ox = (ptrdiff_t)(ix * g->sx + kx * g->dx) - g->pl;
                    if (ox >= 0 && ox < (ptrdiff_t)g->out.w)
                        y[(size_t)oy * g->out.sh + (size_t)ox * g->out.sw] += src[ky * g->kw + kx];
                }
            }
        }
    }
}

static wnn_status conv_transpose2d_gemm(const conv_job *j)
{
    const conv_geom *g = &j->g;
    size_t width = g->cg_out * g->kh * g->kw, pixels = g->in.h * g->in.w;
    fill_bias(j);
    size_t tile = COL_BUDGET / width;
    tile = tile < 1 ? 1 : tile > pixels ? pixels : tile;
    float *col = malloc(tile * width * sizeof *col);
    if (!col)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (size_t n = 0; n < g->in.n; n++)
        for (size_t grp = 0; grp < g->groups; grp++)
            for (size_t p0 = 0; p0 < pixels; p0 += tile) {
                size_t rows = pixels - p0 < tile ? pixels - p0 : tile;
                const float *x = j->x + n * g->in.sn + grp * g->cg_in * g->in.sc;
                const float *w = j->w + grp * g->cg_in * width;
                /* col[pixel][co, ky, kx] = x[pixel][ci] * w[ci][co, ky, kx] */
                if (g->in.sc == 1)
                    wnn__cpu_sgemm(false, false, rows, width, g->cg_in, 1.0f, x + p0 * g->in.c, g->in.c, w, width,
                                   0.0f, col, width);
                else
                    wnn__cpu_sgemm(true, false, rows, width, g->cg_in, 1.0f, x + p0, pixels, w, width, 0.0f, col,
                                   width);
                tile_job t = {j, NULL, col, j->y + n * g->out.sn + grp * g->cg_out * g->out.sc, p0, rows};
                wnn__parallel_for(g->cg_out, grain_for(rows * g->kh * g->kw), col2im_channels, &t);
            }
    free(col);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

typedef enum conv_path { PATH_AUTO, PATH_GEMM, PATH_DIRECT } conv_path;

static conv_path forced_path(void)
{
    switch (wnn__config_get()->cpu_conv) {
    case WNN__CONV_GEMM: return PATH_GEMM;
    case WNN__CONV_DIRECT: return PATH_DIRECT;
    default: return PATH_AUTO;
    }
}

static conv_geom geometry(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const uint32_t *s = in[1].desc.shape;
    filter_axes a = filter_axes_of(node->op, node->attrs.conv.filter_layout);
    conv_geom g = {
        .in = wnn__spatial4_of(&in[0].desc, node->attrs.conv.input_layout),
        .out = wnn__spatial4_of(&out[0].desc, node->attrs.conv.input_layout),
        .groups = node->attrs.conv.groups,
        .kh = s[a.h],
        .kw = s[a.w],
        .sy = node->attrs.conv.strides[0],
        .sx = node->attrs.conv.strides[1],
        .dy = node->attrs.conv.dilations[0],
        .dx = node->attrs.conv.dilations[1],
        .pt = node->attrs.conv.padding[0],
        .pl = node->attrs.conv.padding[2],
    };
    const uint32_t *p = node->attrs.conv.padding;
    g.pad_free = !(p[0] | p[1] | p[2] | p[3]);
    g.cg_in = g.in.c / g.groups;
    g.cg_out = g.out.c / g.groups;
    return g;
}

/* Picks the path by the problem's size (or WNN_CPU_CONV) and runs it. */
static wnn_status compute(const conv_job *j, bool transpose)
{
    const conv_geom *g = &j->g;
    size_t taps = g->cg_in * g->kh * g->kw;
    size_t work = transpose ? g->in.n * g->in.h * g->in.w * g->in.c * g->cg_out * g->kh * g->kw
                            : g->out.n * g->out.h * g->out.w * g->out.c * taps;
    /* the inner sides of the products the gemm path would make */
    size_t side_a = transpose ? g->cg_in : taps, side_b = transpose ? g->cg_out * g->kh * g->kw : g->cg_out;
    conv_path path = forced_path();
    /* a transposed convolution's direct loop tests every tap of every input
    ** channel for each output (a modulo by the stride), so its gemm path
    ** (product, then col2im) wins even when the product is narrow: PP-OCRv4's
    ** detector, [1,24,160,160] -> [1,1,320,320] with a 2x2 filter of stride 2
    ** (side_b 4), 2 cores: its two convTranspose2d 4.3 -> 1.1 ms a call, the
    ** model 24.2-26.9 -> 19.9-21.6 ms (wnn bench p50, four alternated runs) */
    if (path == PATH_AUTO)
        path = work >= GEMM_MIN_WORK && side_a >= GEMM_MIN_SIDE && (transpose || side_b >= GEMM_MIN_SIDE)
                   ? PATH_GEMM
                   : PATH_DIRECT;
    if (path == PATH_GEMM)
        return transpose ? conv_transpose2d_gemm(j) : conv2d_gemm(j);
    if (!transpose && g->in.sc == 1 && g->out.sc == 1 && g->cg_in == 1 && g->cg_out == 1) {
        conv_job d = *j;
        float *w = taps_major(j->w, g->out.c, g->kh * g->kw);
        if (!w)
            return WNN_STATUS_OUT_OF_MEMORY;
        d.w = w;
        wnn__parallel_for(g->out.n * g->out.h, grain_for(work / (g->out.n * g->out.h)), depthwise_nhwc_rows, &d);
        free(w);
        return WNN_OK;
    }
    size_t planes = g->out.n * g->out.c;
    wnn__parallel_for(planes, grain_for(planes ? work / planes : 0),
                      transpose ? conv_transpose2d_direct : conv2d_direct, (void *)j);
    return WNN_OK;
}

static wnn_status run(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    wnn_data_type t = out[0].desc.data_type;
    if (t != WNN_DATA_TYPE_FLOAT32 && t != WNN_DATA_TYPE_FLOAT16)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    conv_job j = {.g = geometry(node, in, out)};
    float *x_owned, *y_owned, *w = NULL, *bias;
    bool bias_failed;
    j.x = wnn__stage_in(&in[0], &x_owned);
    j.y = wnn__stage_out(&out[0], &y_owned);
    /* float32 oihw (conv2d) and iohw (convTranspose2d) are the packed order */
    uint32_t packed = node->op == WNN__OP_CONV2D ? (uint32_t)WNN_CONV2D_FILTER_LAYOUT_OIHW
                                                 : (uint32_t)WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW;
    if (in[1].desc.data_type == WNN_DATA_TYPE_FLOAT32 && node->attrs.conv.filter_layout == packed)
        j.w = in[1].data;
    else
        j.w = w = pack_filter(node->op, node->attrs.conv.filter_layout, &in[1]);
    j.bias = bias = load_bias(&in[2], &bias_failed);
    wnn_status st = WNN_STATUS_OUT_OF_MEMORY;
    if (j.x && j.y && j.w && !bias_failed)
        st = compute(&j, node->op == WNN__OP_CONV_TRANSPOSE2D);
    if (st == WNN_OK)
        wnn__stage_out_finish(&out[0], y_owned);
    else
        free(y_owned);
    free(x_owned);
    free(w);
    free(bias);
    return st;
}

wnn_status wnn__k_conv2d(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run(node, in, out);
}

wnn_status wnn__k_conv_transpose2d(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return run(node, in, out);
}
