/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_movement.c -- data-movement kernels of the cpu backend: reshape,
** transpose, concat and slice.
**
** None of them looks at values, only at element sizes, so one code path
** serves every data type. Transpose and slice are both a strided gather: the
** output, walked in order, reads the input at base + sum(index[d] * stride[d]).
**
** A transpose that moves the input's innermost dimension away from the last
** place runs by square tiles instead: within a tile both the reads (along
** the input's rows) and the writes (along the output's) stay in cache.
** Whole tiles of 4-byte elements move as 8 x 8 blocks through AVX2
** registers (unpack, shuffle, lane permute) where the processor has it.
*/
#include <stdint.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "backends/cpu/simd_avx2.h"
#include "platform/pool.h"

#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 14)

static size_t element_size(const wnn__view *v)
{
    return wnn_data_type_size(v->desc.data_type);
}

/* Copies n elements of size bytes from src (every stride-th element) to the
** contiguous dst. Fixed-size memcpy compiles to one load and store. */
static void copy_strided(char *dst, const char *src, size_t stride, size_t n, size_t size)
{
    size_t step = stride * size;
    if (stride == 1) {
        memcpy(dst, src, n * size);
        return;
    }
#define COPY_FIXED(N)                                                          \
    for (size_t i = 0; i < n; i++)                                             \
        memcpy(dst + i * (N), src + i * step, (N));                            \
    return;
    switch (size) {
    case 1: COPY_FIXED(1)
    case 2: COPY_FIXED(2)
    case 4: COPY_FIXED(4)
    case 8: COPY_FIXED(8)
    default: COPY_FIXED(size)
    }
#undef COPY_FIXED
}

/* ------------------------------------------------------------------------ */
/* Strided gather                                                            */
/* ------------------------------------------------------------------------ */

typedef struct gather_plan {
    uint32_t rank;
    size_t shape[WNN_MAX_RANK];  /* output dimensions */
    size_t stride[WNN_MAX_RANK]; /* input elements per step of each */
    const char *in;              /* at the base offset */
    char *out;
    size_t size;                 /* element size in bytes */
} gather_plan;

/* Adds an output dimension, dropping size 1 and merging it into the previous
** one when the input walks both as one, so that contiguous runs become long
** inner rows. Dimensions must come outermost first. */
static void plan_push(gather_plan *p, size_t dim, size_t stride)
{
    if (dim == 1)
        return;
    if (p->rank > 0 && p->stride[p->rank - 1] == stride * dim) {
        p->shape[p->rank - 1] *= dim;
        p->stride[p->rank - 1] = stride;
        return;
    }
    p->shape[p->rank] = dim;
    p->stride[p->rank] = stride;
    p->rank++;
}

static void plan_finish(gather_plan *p)
{
    if (p->rank == 0) { /* a single element */
        p->shape[0] = 1;
        p->stride[0] = 1;
        p->rank = 1;
    }
}

/* Writes outputs [begin, end): rows of the innermost dimension, with an
** odometer over the outer ones carrying the input offset. */
static void gather_range(void *arg, size_t begin, size_t end)
{
    const gather_plan *p = arg;
    uint32_t last = p->rank - 1;
    size_t inner = p->shape[last];

    size_t idx[WNN_MAX_RANK];
    size_t row = 0; /* input offset of the current row's start */
    size_t rest = begin / inner;
    size_t col = begin % inner;
    for (uint32_t d = last; d-- > 0;) {
        idx[d] = rest % p->shape[d];
        rest /= p->shape[d];
        row += idx[d] * p->stride[d];
    }

    for (size_t pos = begin; pos < end;) {
        size_t len = inner - col < end - pos ? inner - col : end - pos;
        copy_strided(p->out + pos * p->size, p->in + (row + col * p->stride[last]) * p->size,
                     p->stride[last], len, p->size);
        pos += len;
        col = 0;
        for (uint32_t d = last; d-- > 0;) {
            row += p->stride[d];
            if (++idx[d] < p->shape[d])
                break;
            row -= p->shape[d] * p->stride[d];
            idx[d] = 0;
        }
    }
}

static void run_gather(gather_plan *p, size_t n)
{
    plan_finish(p);
    if (n > PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, gather_range, p);
    else
        gather_range(p, 0, n);
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */
/* ------------------------------------------------------------------------ */

wnn_status wnn__k_reshape(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    (void)node;
    if (out[0].data != in[0].data)
        memcpy(out[0].data, in[0].data, wnn__view_count(&out[0]) * element_size(&out[0]));
    return WNN_OK;
}

#define TILE 32

/* Output dimensions k (input stride 1) and last (output stride 1) cut into
** TILE x TILE tiles, for every index of the other dimensions. */
typedef struct tile_plan {
    const char *in;
    char *out;
    size_t size;
    uint32_t rank, k, last;
    size_t shape[WNN_MAX_RANK], in_stride[WNN_MAX_RANK], out_stride[WNN_MAX_RANK];
    size_t k_tiles, l_tiles;
} tile_plan;

static inline void move_tile(const tile_plan *p, size_t ib, size_t ob, size_t kn, size_t ln)
{
    size_t ls = p->in_stride[p->last], ks = p->out_stride[p->k];
#define MOVE(T)                                                                                                        for (size_t a = 0; a < kn; a++) {                                                                                      const T *src = (const T *)p->in + ib + a;                                                                          T *dst = (T *)p->out + ob + a * ks;                                                                                for (size_t b = 0; b < ln; b++)                                                                                        dst[b] = src[b * ls];                                                                                      }
    switch (p->size) {
    case 1: MOVE(uint8_t) break;
    case 2: MOVE(uint16_t) break;
    case 4: MOVE(uint32_t) break;
    default: MOVE(uint64_t) break;
    }
#undef MOVE
}

#if WNN_CPU_X86
/* A whole tile of 4-byte elements: dst[a * ks + b] = src[a + b * ls]. */
WNN_AVX2 static void move_tile_avx2(const float *src, float *dst, size_t ls, size_t ks)
{
    for (size_t b0 = 0; b0 < TILE; b0 += 8)
        for (size_t a0 = 0; a0 < TILE; a0 += 8) {
            const float *s = src + a0 + b0 * ls;
            __m256 r[8], t[8], u[8];
            for (int i = 0; i < 8; i++)
                r[i] = _mm256_loadu_ps(s + i * ls);
            for (int i = 0; i < 8; i += 2) {
                t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
                t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
            }
            for (int i = 0; i < 8; i += 4) {
                u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
                u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
                u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
                u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
            }
            float *d = dst + a0 * ks + b0;
            for (int i = 0; i < 4; i++) {
                _mm256_storeu_ps(d + i * ks, _mm256_permute2f128_ps(u[i], u[i + 4], 0x20));
                _mm256_storeu_ps(d + (i + 4) * ks, _mm256_permute2f128_ps(u[i], u[i + 4], 0x31));
            }
        }
}

/* A whole tile of 2-byte elements (float16), 8 x 8 at a time in SSE2, which
** every x86-64 has: dst[a * ks + b] = src[a + b * ls]. */
static void move_tile_16(const uint16_t *src, uint16_t *dst, size_t ls, size_t ks)
{
    for (size_t b0 = 0; b0 < TILE; b0 += 8)
        for (size_t a0 = 0; a0 < TILE; a0 += 8) {
            const uint16_t *s = src + a0 + b0 * ls;
            __m128i r[8], t[8], u[8];
            for (int i = 0; i < 8; i++)
                r[i] = _mm_loadu_si128((const __m128i *)(s + i * ls));
            for (int i = 0; i < 8; i += 2) {
                t[i / 2] = _mm_unpacklo_epi16(r[i], r[i + 1]);     /* columns 0-3 of rows i, i+1 */
                t[i / 2 + 4] = _mm_unpackhi_epi16(r[i], r[i + 1]); /* columns 4-7 */
            }
            for (int h = 0; h < 8; h += 4) /* h = 0: columns 0-3, 4: columns 4-7 */
                for (int i = 0; i < 4; i += 2) {
                    u[h + i] = _mm_unpacklo_epi32(t[h + i], t[h + i + 1]);
                    u[h + i + 1] = _mm_unpackhi_epi32(t[h + i], t[h + i + 1]);
                }
            /* u[h + 0/1]: rows 0-3, u[h + 2/3]: rows 4-7, two columns each */
            uint16_t *d = dst + a0 * ks + b0;
            for (int h = 0; h < 8; h += 4)
                for (int k = 0; k < 2; k++) {
                    __m128i lo = u[h + k], hi = u[h + k + 2];
                    _mm_storeu_si128((__m128i *)(d + (h + 2 * k) * ks), _mm_unpacklo_epi64(lo, hi));
                    _mm_storeu_si128((__m128i *)(d + (h + 2 * k + 1) * ks), _mm_unpackhi_epi64(lo, hi));
                }
        }
}
#endif

static void tile_range(void *arg, size_t begin, size_t end)
{
    const tile_plan *p = arg;
#if WNN_CPU_X86
    bool simd = p->size == 4 && wnn__cpu_has_avx2();
#endif
    for (size_t t = begin; t < end; t++) {
        size_t lt = t % p->l_tiles, kt = t / p->l_tiles % p->k_tiles, rest = t / p->l_tiles / p->k_tiles;
        size_t ib = kt * TILE + lt * TILE * p->in_stride[p->last];
        size_t ob = kt * TILE * p->out_stride[p->k] + lt * TILE;
        for (uint32_t d = p->rank; d-- > 0;) {
            if (d == p->k || d == p->last)
                continue;
            size_t i = rest % p->shape[d];
            rest /= p->shape[d];
            ib += i * p->in_stride[d];
            ob += i * p->out_stride[d];
        }
        size_t kn = p->shape[p->k] - kt * TILE, ln = p->shape[p->last] - lt * TILE;
#if WNN_CPU_X86
        if (simd && kn >= TILE && ln >= TILE) {
            move_tile_avx2((const float *)p->in + ib, (float *)p->out + ob, p->in_stride[p->last],
                           p->out_stride[p->k]);
            continue;
        }
        if (p->size == 2 && kn >= TILE && ln >= TILE) {
            move_tile_16((const uint16_t *)p->in + ib, (uint16_t *)p->out + ob, p->in_stride[p->last],
                         p->out_stride[p->k]);
            continue;
        }
#endif
        move_tile(p, ib, ob, kn < TILE ? kn : TILE, ln < TILE ? ln : TILE);
    }
}

#if WNN_CPU_X86
/* short_rows for 4-byte elements and L of 2, 3 or 4, four outputs of a run
** at a time in SSE (which every x86-64 has): the runs' vectors unpacked and
** shuffled into L vectors of the interleaved rows. An image's channels into
** nhwc (L = 3) took 60 us for [1,3,224,224] one element at a time, hot, on
** this project's 2-core machine. Returns how many of the K it did. */
static size_t short_rows_sse(const float *src, float *dst, size_t kn, size_t ln, size_t ls)
{
    size_t a = 0;
    if (ln == 2)
        for (; a + 4 <= kn; a += 4) {
            __m128 x = _mm_loadu_ps(src + a), y = _mm_loadu_ps(src + a + ls);
            _mm_storeu_ps(dst + 2 * a, _mm_unpacklo_ps(x, y));
            _mm_storeu_ps(dst + 2 * a + 4, _mm_unpackhi_ps(x, y));
        }
    else if (ln == 3)
        for (; a + 4 <= kn; a += 4) {
            __m128 x = _mm_loadu_ps(src + a), y = _mm_loadu_ps(src + a + ls), z = _mm_loadu_ps(src + a + 2 * ls);
            __m128 lo = _mm_unpacklo_ps(x, y), hi = _mm_unpackhi_ps(x, y); /* x0 y0 x1 y1, x2 y2 x3 y3 */
            __m128 v = _mm_shuffle_ps(z, lo, _MM_SHUFFLE(2, 2, 0, 0));       /* z0 z0 x1 x1 */
            __m128 w = _mm_shuffle_ps(lo, z, _MM_SHUFFLE(1, 1, 3, 3));       /* y1 y1 z1 z1 */
            __m128 u = _mm_shuffle_ps(z, hi, _MM_SHUFFLE(3, 2, 3, 2));       /* z2 z3 x3 y3 */
            _mm_storeu_ps(dst + 3 * a, _mm_shuffle_ps(lo, v, _MM_SHUFFLE(2, 0, 1, 0)));     /* x0 y0 z0 x1 */
            _mm_storeu_ps(dst + 3 * a + 4, _mm_shuffle_ps(w, hi, _MM_SHUFFLE(1, 0, 2, 0))); /* y1 z1 x2 y2 */
            _mm_storeu_ps(dst + 3 * a + 8, _mm_shuffle_ps(u, u, _MM_SHUFFLE(1, 3, 2, 0)));  /* z2 x3 y3 z3 */
        }
    else if (ln == 4)
        for (; a + 4 <= kn; a += 4) {
            __m128 r0 = _mm_loadu_ps(src + a), r1 = _mm_loadu_ps(src + a + ls);
            __m128 r2 = _mm_loadu_ps(src + a + 2 * ls), r3 = _mm_loadu_ps(src + a + 3 * ls);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(dst + 4 * a, r0);
            _mm_storeu_ps(dst + 4 * a + 4, r1);
            _mm_storeu_ps(dst + 4 * a + 8, r2);
            _mm_storeu_ps(dst + 4 * a + 12, r3);
        }
    return a;
}
#endif

/* Rows of [K, L] outputs, L short, read from L runs of K consecutive input
** elements ls apart: dst[a * L + b] = src[a + b * ls]. A channel shuffle in
** nhwc is one ([.., 2, C/2] -> [.., C/2, 2]); by tiles or by the gather
** each element would cost an index computation. */
static void short_rows(void *arg, size_t begin, size_t end)
{
    const tile_plan *p = arg;
    size_t kn = p->shape[p->k], ln = p->shape[p->last], ls = p->in_stride[p->last];
    for (size_t t = begin; t < end; t++) {
        size_t ib = 0, rest = t;
        for (uint32_t d = p->rank - 2; d-- > 0;) {
            ib += rest % p->shape[d] * p->in_stride[d];
            rest /= p->shape[d];
        }
        size_t ob = t * kn * ln, a0 = 0;
#if WNN_CPU_X86
        if (p->size == 4) /* the SSE rows (the element's bits moved as a float's, which SSE keeps) */
            a0 = short_rows_sse((const float *)p->in + ib, (float *)p->out + ob, kn, ln, ls);
#endif
#define ROWS(T)                                                                                                        \
    {                                                                                                                  \
        const T *src = (const T *)p->in + ib;                                                                          \
        T *dst = (T *)p->out + ob;                                                                                     \
        if (ln == 2)                                                                                                   \
            for (size_t a = a0; a < kn; a++) {                                                                         \
                dst[2 * a] = src[a];                                                                                   \
                dst[2 * a + 1] = src[a + ls];                                                                          \
            }                                                                                                          \
        else if (ln == 3) /* an image's channels into nhwc */                                                          \
            for (size_t a = a0; a < kn; a++) {                                                                         \
                dst[3 * a] = src[a];                                                                                   \
                dst[3 * a + 1] = src[a + ls];                                                                          \
                dst[3 * a + 2] = src[a + 2 * ls];                                                                      \
            }                                                                                                          \
        else if (ln == 4)                                                                                              \
            for (size_t a = a0; a < kn; a++) {                                                                         \
                dst[4 * a] = src[a];                                                                                   \
                dst[4 * a + 1] = src[a + ls];                                                                          \
                dst[4 * a + 2] = src[a + 2 * ls];                                                                      \
                dst[4 * a + 3] = src[a + 3 * ls];                                                                      \
            }                                                                                                          \
        else                                                                                                           \
            for (size_t a = 0; a < kn; a++)                                                                            \
                for (size_t b = 0; b < ln; b++)                                                                        \
                    dst[a * ln + b] = src[a + b * ls];                                                                 \
    }
        switch (p->size) {
        case 1: ROWS(uint8_t) break;
        case 2: ROWS(uint16_t) break;
        case 4: ROWS(uint32_t) break;
        default: ROWS(uint64_t) break;
        }
#undef ROWS
    }
}

/* Runs the transpose by tiles when it pays; false when it does not apply. */
static bool transpose_tiled(const wnn__view *in, const wnn__view *out, const size_t *in_stride, const uint32_t *perm)
{
    tile_plan p = {.in = in->data, .out = out->data, .size = element_size(out), .rank = out->desc.rank};
    size_t n = wnn__view_count(out), step = 1;
    if (p.rank < 2 || n < TILE * TILE || (p.size != 1 && p.size != 2 && p.size != 4 && p.size != 8))
        return false;
    p.last = p.rank - 1;
    p.k = UINT32_MAX;
    for (uint32_t i = p.rank; i-- > 0;) {
        p.shape[i] = out->desc.shape[i];
        p.in_stride[i] = in_stride[perm[i]];
        p.out_stride[i] = step;
        step *= p.shape[i];
        if (p.in_stride[i] == 1 && p.shape[i] > 1)
            p.k = i;
    }
    if (p.k != UINT32_MAX && p.k + 1 == p.last && p.shape[p.k] >= TILE && p.shape[p.last] < TILE / 2) {
        size_t rows = n / (p.shape[p.k] * p.shape[p.last]);
        if (n > PARALLEL_MIN)
            wnn__parallel_for(rows, PARALLEL_GRAIN / (p.shape[p.k] * p.shape[p.last]) + 1, short_rows, &p);
        else
            short_rows(&p, 0, rows);
        return true;
    }
    if (p.k == UINT32_MAX || p.k == p.last || p.shape[p.k] < TILE / 2 || p.shape[p.last] < TILE / 2)
        return false;
    p.k_tiles = (p.shape[p.k] + TILE - 1) / TILE;
    p.l_tiles = (p.shape[p.last] + TILE - 1) / TILE;
    size_t tiles = n / (p.shape[p.k] * p.shape[p.last]) * p.k_tiles * p.l_tiles;
    if (n > PARALLEL_MIN)
        wnn__parallel_for(tiles, PARALLEL_GRAIN / (TILE * TILE) + 1, tile_range, &p);
    else
        tile_range(&p, 0, tiles);
    return true;
}

wnn_status wnn__k_transpose(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    size_t in_stride[WNN_MAX_RANK];
    wnn__shape_strides(&in[0].desc, in_stride);
    if (transpose_tiled(&in[0], &out[0], in_stride, node->attrs.transpose.perm))
        return WNN_OK;

    gather_plan p = {.in = in[0].data, .out = out[0].data, .size = element_size(&out[0])};
    for (uint32_t i = 0; i < out[0].desc.rank; i++)
        plan_push(&p, out[0].desc.shape[i], in_stride[node->attrs.transpose.perm[i]]);
    run_gather(&p, wnn__view_count(&out[0]));
    return WNN_OK;
}

wnn_status wnn__k_slice(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    size_t in_stride[WNN_MAX_RANK];
    wnn__shape_strides(&in[0].desc, in_stride);

    size_t size = element_size(&out[0]);
    size_t base = 0;
    gather_plan p = {.out = out[0].data, .size = size};
    for (uint32_t i = 0; i < out[0].desc.rank; i++) {
        base += node->attrs.slice.starts[i] * in_stride[i];
        plan_push(&p, out[0].desc.shape[i], node->attrs.slice.strides[i] * in_stride[i]);
    }
    p.in = (const char *)in[0].data + base * size;
    run_gather(&p, wnn__view_count(&out[0]));
    return WNN_OK;
}

/* The output is [outer, axis, after]; input k fills a band of its own axis
** length in each of the outer blocks. Ranges of outer blocks go to the
** pool, each copying every input's bands into its blocks (an nhwc concat of
** channels is thousands of bands of a few hundred bytes: squeezenet's took
** 18% of the model's time on one thread). */
typedef struct concat_job {
    const wnn__node *node;
    const wnn__view *in;
    char *out;
    size_t after, size, out_block;
    uint32_t axis;
} concat_job;

static void concat_range(void *arg, size_t begin, size_t end)
{
    const concat_job *j = arg;
    size_t offset = 0; /* bytes from a block's start to input k's band */
    for (uint32_t k = 0; k < j->node->n_in; k++) {
        size_t band = j->in[k].desc.shape[j->axis] * j->after * j->size;
        const char *src = j->in[k].data;
        char *dst = j->out + offset;
        for (size_t o = begin; o < end; o++)
            memcpy(dst + o * j->out_block, src + o * band, band);
        offset += band;
    }
}

wnn_status wnn__k_concat(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    const wnn_operand_desc *od = &out[0].desc;
    uint32_t axis = node->attrs.axis.axis;
    size_t size = element_size(&out[0]);
    size_t outer = wnn__shape_product(od->shape, 0, axis);
    concat_job j = {node, in, out[0].data, wnn__shape_product(od->shape, axis + 1, od->rank), size, 0, axis};
    j.out_block = od->shape[axis] * j.after * size;
    size_t elements = outer * j.out_block / (size ? size : 1);
    if (outer > 1 && elements > PARALLEL_MIN)
        wnn__parallel_for(outer, PARALLEL_GRAIN * size / (j.out_block ? j.out_block : 1) + 1, concat_range, &j);
    else
        concat_range(&j, 0, outer);
    return WNN_OK;
}
