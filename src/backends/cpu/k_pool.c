/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_pool.c -- averagePool2d, l2Pool2d (float32, float16) and maxPool2d (every
** data type), both layouts.
**
** A window reads only the input's real elements: padding adds nothing, the
** average divides by the number of real elements, and a window with none
** (possible with ceil rounding) gives 0. Average and L2 sums accumulate in
** double; float16 is widened to float32 first and rounded once at the end.
** maxPool2d compares in each type's own arithmetic (exact for 64-bit
** integers) and copies the winning element; float NaN wins.
**
** Each (batch, channel) plane is one task on the wnn pool; in nhwc, each
** row of output pixels, whose windows' channels are contiguous vectors.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "backends/cpu/k_spatial.h"
#include "backends/cpu/simd_avx2.h"
#include "platform/pool.h"

#define TASK_WORK ((size_t)1 << 14) /* window taps worth one task */

typedef struct pool_job {
    wnn__op op;
    wnn_data_type type;
    const void *x;
    void *y;
    wnn__spatial4 in, out;
    size_t wh, ww, sy, sx, dy, dx;
    ptrdiff_t pt, pl;
} pool_job;

/* The taps of one window that fall inside the input along one dimension:
** k in [*k0, *k1) reads index start + k * dilation. */
static void window_span(ptrdiff_t start, size_t taps, size_t dilation, size_t size, size_t *k0, size_t *k1)
{
    size_t lo = 0, hi = taps;
    while (lo < hi && start + (ptrdiff_t)(lo * dilation) < 0)
        lo++;
    while (hi > lo && start + (ptrdiff_t)((hi - 1) * dilation) >= (ptrdiff_t)size)
        hi--;
    *k0 = lo;
    *k1 = hi;
}

/* Visits every output element of planes [begin, end): BODY sees y (the
** output element's index), x (the index its window's tap (0, 0) would have,
** which may lie outside the input: read only through TAP) and the taps
** inside the input, [ky0, ky1) x [kx0, kx1). */
#define FOR_EACH_WINDOW(j, begin, end, BODY)                                                                           \
    for (size_t t_ = (begin); t_ < (end); t_++) {                                                                      \
        size_t n_ = t_ / (j)->in.c, c_ = t_ % (j)->in.c;                                                               \
        for (size_t oy = 0; oy < (j)->out.h; oy++) {                                                                   \
            ptrdiff_t y0_ = (ptrdiff_t)(oy * (j)->sy) - (j)->pt;                                                       \
            size_t ky0, ky1;                                                                                           \
            window_span(y0_, (j)->wh, (j)->dy, (j)->in.h, &ky0, &ky1);                                                 \
            for (size_t ox = 0; ox < (j)->out.w; ox++) {                                                               \
                ptrdiff_t x0_ = (ptrdiff_t)(ox * (j)->sx) - (j)->pl;                                                   \
                size_t kx0, kx1;                                                                                       \
                window_span(x0_, (j)->ww, (j)->dx, (j)->in.w, &kx0, &kx1);                                             \
                size_t y = n_ * (j)->out.sn + c_ * (j)->out.sc + oy * (j)->out.sh + ox * (j)->out.sw;                  \
                /* the window's (0, 0) tap, which may lie outside: use only taps in range */                           \
                ptrdiff_t x = (ptrdiff_t)(n_ * (j)->in.sn + c_ * (j)->in.sc) + y0_ * (ptrdiff_t)(j)->in.sh +           \
                              x0_ * (ptrdiff_t)(j)->in.sw;                                                             \
                BODY                                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
    }

/* The input index of tap (ky, kx) of the window at x. */
#define TAP(j, x, ky, kx) ((size_t)((x) + (ptrdiff_t)((ky) * (j)->dy * (j)->in.sh + (kx) * (j)->dx * (j)->in.sw)))

/* averagePool2d and l2Pool2d on float32 data (staged for float16). */
static void sum_planes(void *arg, size_t begin, size_t end)
{
    const pool_job *j = arg;
    const float *in = j->x;
    float *out = j->y;
    bool l2 = j->op == WNN__OP_L2_POOL2D;
    FOR_EACH_WINDOW(j, begin, end, {
        double sum = 0.0;
        for (size_t ky = ky0; ky < ky1; ky++)
            for (size_t kx = kx0; kx < kx1; kx++) {
                double v = in[TAP(j, x, ky, kx)];
                sum += l2 ? v * v : v;
            }
        size_t count = (ky1 - ky0) * (kx1 - kx0);
        if (count == 0)
            out[y] = 0.0f;
        else
            out[y] = (float)(l2 ? sqrt(sum) : sum / (double)count);
    })
}

/* maxPool2d for one C type: KEY maps an element to what is compared, IS_NAN
** tells a NaN (which wins and stays; never for integer types). */
#define DEFINE_MAX_PLANES(S, T, KEY, IS_NAN)                                                                           \
    static void max_planes_##S(void *arg, size_t begin, size_t end)                                                    \
    {                                                                                                                  \
        const pool_job *j = arg;                                                                                       \
        const T *in = j->x;                                                                                            \
        T *out = j->y;                                                                                                 \
        FOR_EACH_WINDOW(j, begin, end, {                                                                               \
            T best = 0;                                                                                                \
            bool any = false;                                                                                          \
            for (size_t ky = ky0; ky < ky1; ky++)                                                                      \
                for (size_t kx = kx0; kx < kx1; kx++) {                                                                \
                    T v = in[TAP(j, x, ky, kx)];                                                                       \
                    if (!any || (!IS_NAN(best) && (KEY(v) > KEY(best) || IS_NAN(v))))                                  \
                        best = v;                                                                                      \
                    any = true;                                                                                        \
                }                                                                                                      \
            out[y] = best;                                                                                             \
        })                                                                                                             \
    }

#define KEY_SELF(v) (v)
#define KEY_HALF(v) wnn__half_to_float(v)
#define NAN_NEVER(v) false
#define NAN_HALF(v) (((v) & 0x7fffu) > 0x7c00u)
DEFINE_MAX_PLANES(f16, uint16_t, KEY_HALF, NAN_HALF)
DEFINE_MAX_PLANES(i32, int32_t, KEY_SELF, NAN_NEVER)
DEFINE_MAX_PLANES(u32, uint32_t, KEY_SELF, NAN_NEVER)
DEFINE_MAX_PLANES(i64, int64_t, KEY_SELF, NAN_NEVER)
DEFINE_MAX_PLANES(u64, uint64_t, KEY_SELF, NAN_NEVER)
DEFINE_MAX_PLANES(i8, int8_t, KEY_SELF, NAN_NEVER)
DEFINE_MAX_PLANES(u8, uint8_t, KEY_SELF, NAN_NEVER)

/* maxPool2d on float32 with the taps' row pointers hoisted and a branch-free
** maximum; a window holding a NaN gives its first NaN, as the other types'
** loops do, so the result is the same element. */
static void max_planes_f32_fast(void *arg, size_t begin, size_t end)
{
    const pool_job *j = arg;
    const float *in = j->x;
    float *out = j->y;
    const size_t step_y = j->dy * j->in.sh, step_x = j->dx * j->in.sw;
    FOR_EACH_WINDOW(j, begin, end, {
        float best = -INFINITY;
        bool nan = false;
        for (size_t ky = ky0; ky < ky1; ky++) {
            /* x is negative in the padding: the row's offset stays signed
            ** and only taps inside the input (kx >= kx0) are indexed */
            const ptrdiff_t row = x + (ptrdiff_t)(ky * step_y);
            for (size_t kx = kx0; kx < kx1; kx++) {
                float v = in[row + (ptrdiff_t)(kx * step_x)];
                nan |= v != v;
                best = v > best ? v : best;
            }
        }
        if (ky1 == ky0 || kx1 == kx0)
            best = 0.0f;
        else if (nan)
            for (size_t ky = ky0; ky < ky1 && best == best; ky++)
                for (size_t kx = kx0; kx < kx1; kx++)
                    if (in[TAP(j, x, ky, kx)] != in[TAP(j, x, ky, kx)]) {
                        best = in[TAP(j, x, ky, kx)];
                        break;
                    }
        out[y] = best;
    })
}

/* One output element of max_planes_f32_fast, for the edges of the rows
** below and for rows that hold a NaN. */
static float max_one_f32(const pool_job *j, size_t n, size_t c, size_t oy, size_t ox)
{
    pool_job one = *j;
    one.in.n = one.in.c = 1;
    one.out.h = one.out.w = 1;
    ptrdiff_t y0 = (ptrdiff_t)(oy * j->sy), x0 = (ptrdiff_t)(ox * j->sx);
    /* the window of (oy, ox) as the only window of a 1 x 1 output over the
    ** same plane, its padding shifted so that the coordinates agree */
    one.pt = j->pt - y0;
    one.pl = j->pl - x0;
    one.x = (const float *)j->x + n * j->in.sn + c * j->in.sc;
    float best;
    one.y = &best;
    one.out.sn = one.out.sc = one.out.sh = one.out.sw = 0;
    one.in.sn = one.in.sc = 0;
    max_planes_f32_fast(&one, 0, 1);
    return best;
}

#if WNN_CPU_X86
/* acc[i] = max(acc[i], s[i * stride]) for stride 1 or 2; returns whether a
** NaN was read (its element is then recomputed by max_one_f32). */
WNN_AVX2 static bool max_into_avx2(float *acc, const float *s, size_t m, size_t stride)
{
    __m256 nan = _mm256_setzero_ps();
    size_t i = 0;
    /* stride 2 reads 16 floats for 8: stop before the last one's neighbour */
    for (; i + 8 + (stride == 2) <= m; i += 8) {
        __m256 v;
        if (stride == 1) {
            v = _mm256_loadu_ps(s + i);
        } else {
            __m256 a = _mm256_loadu_ps(s + 2 * i), b = _mm256_loadu_ps(s + 2 * i + 8);
            v = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
        }
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        _mm256_storeu_ps(acc + i, _mm256_max_ps(v, _mm256_loadu_ps(acc + i)));
    }
    bool any = _mm256_movemask_ps(nan) != 0;
    for (; i < m; i++) {
        float v = s[i * stride];
        any |= v != v;
        acc[i] = v > acc[i] ? v : acc[i];
    }
    return any;
}
#endif

/* acc[i] = max(acc[i], s[i * stride]); returns whether a NaN was read. */
static bool max_into(float *acc, const float *s, size_t m, size_t stride)
{
#if WNN_CPU_X86
    if ((stride == 1 || stride == 2) && wnn__cpu_has_avx2())
        return max_into_avx2(acc, s, m, stride);
#endif
    bool any = false;
    for (size_t i = 0; i < m; i++) {
        float v = s[i * stride];
        any |= v != v;
        acc[i] = v > acc[i] ? v : acc[i];
    }
    return any;
}

/* maxPool2d on float32 nchw: the outputs of a row whose windows lie inside
** the input across its width are computed together, tap by tap, over
** vectors of consecutive outputs; the row's ends (windows in the left or
** right padding) and rows that read a NaN go element by element. The
** elements are those max_planes_f32_fast gives. */
static void max_planes_f32_rows(void *arg, size_t begin, size_t end)
{
    const pool_job *j = arg;
    const float *in = j->x;
    float *out = j->y;
    /* [lo, hi): the outputs whose windows start at or right of column 0 and
    ** end left of column in.w */
    size_t lo = ((size_t)j->pl + j->sx - 1) / j->sx, hi = lo;
    ptrdiff_t last = (ptrdiff_t)j->in.w - 1 + j->pl - (ptrdiff_t)((j->ww - 1) * j->dx);
    if (last >= 0)
        hi = (size_t)last / j->sx + 1;
    if (hi > j->out.w)
        hi = j->out.w;
    if (hi < lo)
        hi = lo;
    for (size_t t = begin; t < end; t++) {
        size_t n = t / j->in.c, c = t % j->in.c;
        const float *plane = in + n * j->in.sn + c * j->in.sc;
        for (size_t oy = 0; oy < j->out.h; oy++) {
            float *row = out + n * j->out.sn + c * j->out.sc + oy * j->out.sh;
            ptrdiff_t y0 = (ptrdiff_t)(oy * j->sy) - j->pt;
            size_t ky0, ky1;
            window_span(y0, j->wh, j->dy, j->in.h, &ky0, &ky1);
            bool middle = false; /* [lo, hi) done */
            if (ky0 < ky1 && lo < hi) {
                bool nan = false;
                for (size_t ox = lo; ox < hi; ox++)
                    row[ox] = -INFINITY;
                for (size_t ky = ky0; ky < ky1; ky++) {
                    const float *src = plane + (size_t)(y0 + (ptrdiff_t)(ky * j->dy)) * j->in.sh;
                    for (size_t kx = 0; kx < j->ww; kx++)
                        nan |= max_into(row + lo, src + lo * j->sx - (size_t)j->pl + kx * j->dx, hi - lo, j->sx);
                }
                middle = !nan;
            }
            for (size_t ox = 0; ox < j->out.w; ox++)
                if (!middle || ox < lo || ox >= hi)
                    row[ox] = max_one_f32(j, n, c, oy, ox);
        }
    }
}

/* ---- nhwc, float32: a window's channels are contiguous ----------------- */

/* Calls BODY for every output pixel of rows [begin, end) (row = batch *
** out.h + oy): yp is the pixel's first channel in the output, xp the input
** index of its window's tap (0, 0) (may lie outside: read only the taps in
** [ky0, ky1) x [kx0, kx1)). */
#define FOR_EACH_PIXEL(j, begin, end, BODY)                                                                            \
    for (size_t r_ = (begin); r_ < (end); r_++) {                                                                      \
        size_t n_ = r_ / (j)->out.h, oy = r_ % (j)->out.h;                                                             \
        ptrdiff_t y0_ = (ptrdiff_t)(oy * (j)->sy) - (j)->pt;                                                           \
        size_t ky0, ky1;                                                                                               \
        window_span(y0_, (j)->wh, (j)->dy, (j)->in.h, &ky0, &ky1);                                                     \
        for (size_t ox = 0; ox < (j)->out.w; ox++) {                                                                   \
            ptrdiff_t x0_ = (ptrdiff_t)(ox * (j)->sx) - (j)->pl;                                                       \
            size_t kx0, kx1;                                                                                           \
            window_span(x0_, (j)->ww, (j)->dx, (j)->in.w, &kx0, &kx1);                                                 \
            size_t yp = n_ * (j)->out.sn + oy * (j)->out.sh + ox * (j)->out.sw;                                        \
            ptrdiff_t xp = (ptrdiff_t)(n_ * (j)->in.sn) + y0_ * (ptrdiff_t)(j)->in.sh + x0_ * (ptrdiff_t)(j)->in.sw;   \
            BODY                                                                                                       \
        }                                                                                                              \
    }

#define PIXEL_TAPS 64 /* taps of a window max_pixel_avx2 takes at once */

#if WNN_CPU_X86
/* out[i] = the max over taps t of in[tap[t] + i], i < c, 8 channels at a
** time in a register across all the taps (folding each tap into the output
** in memory loaded and stored it once a tap); returns whether a NaN was
** read. n_taps >= 1. */
WNN_AVX2 static bool max_pixel_avx2(float *out, const float *in, const size_t *tap, size_t n_taps, size_t c)
{
    __m256 nan = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= c; i += 8) {
        __m256 m = _mm256_set1_ps(-INFINITY);
        for (size_t t = 0; t < n_taps; t++) {
            __m256 v = _mm256_loadu_ps(in + tap[t] + i);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            m = _mm256_max_ps(v, m);
        }
        _mm256_storeu_ps(out + i, m);
    }
    bool any = _mm256_movemask_ps(nan) != 0;
    for (; i < c; i++) {
        float m = -INFINITY;
        for (size_t t = 0; t < n_taps; t++) {
            float v = in[tap[t] + i];
            any |= v != v;
            m = v > m ? v : m;
        }
        out[i] = m;
    }
    return any;
}
#endif

/* maxPool2d, float32 nhwc: each tap's channels folded into the output pixel
** as one vector; a pixel that read a NaN is redone channel by channel, so
** that each channel's result is the element max_planes_f32_fast gives. */
/* One output pixel's channels of max_rows_nhwc, at acc, from the taps in
** [ky0, ky1) x [kx0, kx1) of the window at xp (none: 0); returns whether a
** NaN was read. */
static bool max_pixel(const pool_job *j, float *acc, ptrdiff_t xp, size_t ky0, size_t ky1, size_t kx0, size_t kx1,
                      bool avx2)
{
    const float *in = j->x;
    size_t c = j->in.c, n_taps = (ky1 > ky0 ? ky1 - ky0 : 0) * (kx1 > kx0 ? kx1 - kx0 : 0);
#if WNN_CPU_X86
    if (avx2 && n_taps >= 1 && n_taps <= PIXEL_TAPS) {
        size_t tap[PIXEL_TAPS], t = 0;
        for (size_t ky = ky0; ky < ky1; ky++)
            for (size_t kx = kx0; kx < kx1; kx++)
                tap[t++] = TAP(j, xp, ky, kx);
        return max_pixel_avx2(acc, in, tap, n_taps, c);
    }
#endif
    (void)avx2;
    bool nan = false;
    for (size_t k = 0; k < c; k++)
        acc[k] = n_taps ? -INFINITY : 0.0f;
    for (size_t ky = ky0; ky < ky1; ky++)
        for (size_t kx = kx0; kx < kx1; kx++)
            nan |= max_into(acc, in + TAP(j, xp, ky, kx), c, 1);
    return nan;
}

static void max_rows_nhwc(void *arg, size_t begin, size_t end)
{
    const pool_job *j = arg;
    const float *in = j->x;
    float *out = j->y;
    size_t c = j->in.c;
#if WNN_CPU_X86
    const bool avx2 = wnn__cpu_has_avx2();
#else
    const bool avx2 = false;
#endif
    FOR_EACH_PIXEL(j, begin, end, {
        float *acc = out + yp;
        bool nan = max_pixel(j, acc, xp, ky0, ky1, kx0, kx1, avx2);
        for (size_t k = 0; nan && k < c; k++) {
            float best = -INFINITY;
            for (size_t ky = ky0; ky < ky1 && best == best; ky++)
                for (size_t kx = kx0; kx < kx1; kx++) {
                    float v = in[TAP(j, xp, ky, kx) + k];
                    if (v != v || v > best)
                        best = v;
                    if (v != v)
                        break;
                }
            acc[k] = best;
        }
    })
}

/* averagePool2d and l2Pool2d, float32 nhwc (staged for float16): sums in
** double per channel, the taps in the order sum_planes takes them. */
static void sum_rows_nhwc(void *arg, size_t begin, size_t end)
{
    const pool_job *j = arg;
    const float *in = j->x;
    float *out = j->y;
    bool l2 = j->op == WNN__OP_L2_POOL2D;
    double sum[256];
    FOR_EACH_PIXEL(j, begin, end, {
        for (size_t c0 = 0; c0 < j->in.c; c0 += 256) { /* channels a block at a time */
            size_t m = j->in.c - c0 < 256 ? j->in.c - c0 : 256;
            for (size_t k = 0; k < m; k++)
                sum[k] = 0.0;
            for (size_t ky = ky0; ky < ky1; ky++)
                for (size_t kx = kx0; kx < kx1; kx++) {
                    const float *s = in + TAP(j, xp, ky, kx) + c0;
                    if (l2)
                        for (size_t k = 0; k < m; k++)
                            sum[k] += (double)s[k] * s[k];
                    else
                        for (size_t k = 0; k < m; k++)
                            sum[k] += s[k];
                }
            size_t count = (ky1 - ky0) * (kx1 - kx0);
            for (size_t k = 0; k < m; k++)
                out[yp + c0 + k] = count == 0 ? 0.0f : (float)(l2 ? sqrt(sum[k]) : sum[k] / (double)count);
        }
    })
}

static wnn__range_fn max_planes_for(wnn_data_type t)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return max_planes_f32_fast;
    case WNN_DATA_TYPE_FLOAT16: return max_planes_f16;
    case WNN_DATA_TYPE_INT32: return max_planes_i32;
    case WNN_DATA_TYPE_UINT32: return max_planes_u32;
    case WNN_DATA_TYPE_INT64: return max_planes_i64;
    case WNN_DATA_TYPE_UINT64: return max_planes_u64;
    case WNN_DATA_TYPE_INT8: return max_planes_i8;
    case WNN_DATA_TYPE_UINT8: return max_planes_u8;
    default: return NULL;
    }
}

static wnn_status pool2d(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    uint32_t layout = node->attrs.pool2d.layout;
    pool_job j = {
        .op = node->op,
        .type = in[0].desc.data_type,
        .in = wnn__spatial4_of(&in[0].desc, layout),
        .out = wnn__spatial4_of(&out[0].desc, layout),
        .wh = node->attrs.pool2d.window[0],
        .ww = node->attrs.pool2d.window[1],
        .sy = node->attrs.pool2d.strides[0],
        .sx = node->attrs.pool2d.strides[1],
        .dy = node->attrs.pool2d.dilations[0],
        .dx = node->attrs.pool2d.dilations[1],
        .pt = node->attrs.pool2d.padding[0],
        .pl = node->attrs.pool2d.padding[2],
    };
    size_t planes = j.in.n * j.in.c;
    size_t per_plane = j.out.h * j.out.w * j.wh * j.ww;
    size_t grain = per_plane >= TASK_WORK ? 1 : TASK_WORK / (per_plane ? per_plane : 1);
    /* nhwc: rows of pixels, each window's channels as vectors */
    bool rows = layout == WNN_INPUT_LAYOUT_NHWC && j.in.c > 1;
    size_t per_row = j.out.w * j.wh * j.ww * j.in.c;
    if (rows) {
        planes = j.out.n * j.out.h;
        grain = per_row >= TASK_WORK ? 1 : TASK_WORK / (per_row ? per_row : 1);
    }

    if (node->op == WNN__OP_MAX_POOL2D) {
        wnn__range_fn fn = max_planes_for(j.type);
        if (!fn)
            return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
        if (j.type == WNN_DATA_TYPE_FLOAT32 && j.in.sw == 1 && j.out.sw == 1)
            fn = max_planes_f32_rows;
        if (rows && j.type == WNN_DATA_TYPE_FLOAT32)
            fn = max_rows_nhwc;
        else if (rows) { /* plane by plane */
            planes = j.in.n * j.in.c;
            grain = per_plane >= TASK_WORK ? 1 : TASK_WORK / (per_plane ? per_plane : 1);
        }
        j.x = in[0].data;
        j.y = out[0].data;
        wnn__parallel_for(planes, grain, fn, &j);
        return WNN_OK;
    }
    if (j.type != WNN_DATA_TYPE_FLOAT32 && j.type != WNN_DATA_TYPE_FLOAT16)
        return WNN_STATUS_UNSUPPORTED_DATA_TYPE;
    float *x_owned, *y_owned;
    j.x = wnn__stage_in(&in[0], &x_owned);
    j.y = wnn__stage_out(&out[0], &y_owned);
    if (!j.x || !j.y) {
        free(x_owned);
        free(y_owned);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__parallel_for(planes, grain, rows ? sum_rows_nhwc : sum_planes, &j);
    wnn__stage_out_finish(&out[0], y_owned);
    free(x_owned);
    return WNN_OK;
}

wnn_status wnn__k_pool2d(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return pool2d(node, in, out);
}
