/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec_reduce.c -- the AVX2 folds of vec_reduce.h.
**
** Lanes (contiguous elements) run four or two vectors a step with separate
** accumulators, so that the additions do not wait on one another; rows
** (a block of adjacent columns walked down the reduced rows) keep up to 32
** columns in registers for the whole walk. Sums add at most 32 terms a
** vector lane in float, then widen to double and go on in double as the
** portable loops do (the short float sums lose less than the tolerances'
** one ulp a term); exp(x - sub) is simd_avx2.h's float exp.
** Maxima and minima compare in float (exact) and note NaN apart, since the
** vector max/min instructions drop a NaN in one operand. The arg folds keep
** per lane the best value and the index it came from, a later element
** winning only when strictly better, and leave NaN to the portable loop.
**
** Each fold is written once as an always-inline function of the fold and
** the element type and instantiated by the switches at the bottom, so that
** the loops see both as constants.
*/
#include "backends/cpu/vec_reduce.h"

#include <math.h>

#include "backends/cpu/simd_avx2.h"
#include "core/half.h"

#if WNN_CPU_X86

#define F WNN_AVX2_INLINE

/* Sums add in float for BLOCK elements of a lane (four vectors: 32 terms a
** vector lane) or BLOCK_ROWS rows, then into double. */
#define BLOCK      1024
#define BLOCK_ROWS 32

F float one(const void *x, size_t i, bool half)
{
    return half ? wnn__half_to_float(((const uint16_t *)x)[i]) : ((const float *)x)[i];
}

/* The term a sum adds for the eight elements v: v, |v|, v^2 or
** exp(v - sub). */
F __m256 term8(wnn__fold f, __m256 v, __m256 sub)
{
    switch (f) {
    case WNN__FOLD_L1: return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v);
    case WNN__FOLD_SUMSQ: return _mm256_mul_ps(v, v);
    case WNN__FOLD_EXP_SUM: return wnn__exp8(_mm256_sub_ps(v, sub));
    default: return v;
    }
}

/* lo, hi += the eight lanes of v, widened to double. */
F void widen_add(__m256 v, __m256d *lo, __m256d *hi)
{
    *lo = _mm256_add_pd(*lo, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
    *hi = _mm256_add_pd(*hi, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
}

F __m256 ext8(bool is_max, __m256 a, __m256 b) { return is_max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b); }

F __m256 unordered(__m256 a, __m256 b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }

/* ---- lanes --------------------------------------------------------------------------------- */

F void lane_sum(wnn__fold f, bool half, const void *x, size_t n, float sub, double *acc)
{
    __m256d lo = _mm256_setzero_pd(), hi = lo;
    __m256 s = _mm256_set1_ps(sub);
    size_t i = 0;
    while (i + 8 <= n) {
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        size_t stop = n - i > BLOCK ? i + BLOCK : n;
        for (; i + 32 <= stop; i += 32) {
            a0 = _mm256_add_ps(a0, term8(f, wnn__load8(x, i, half), s));
            a1 = _mm256_add_ps(a1, term8(f, wnn__load8(x, i + 8, half), s));
            a2 = _mm256_add_ps(a2, term8(f, wnn__load8(x, i + 16, half), s));
            a3 = _mm256_add_ps(a3, term8(f, wnn__load8(x, i + 24, half), s));
        }
        for (; i + 8 <= stop; i += 8)
            a0 = _mm256_add_ps(a0, term8(f, wnn__load8(x, i, half), s));
        widen_add(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)), &lo, &hi);
    }
    double t = wnn__hsum4d(_mm256_add_pd(lo, hi));
    for (; i < n; i++) {
        double v = one(x, i, half);
        switch (f) {
        case WNN__FOLD_L1: t += fabs(v); break;
        case WNN__FOLD_SUMSQ: t += v * v; break;
        case WNN__FOLD_EXP_SUM: t += expf((float)v - sub); break;
        default: t += v; break;
        }
    }
    *acc += t;
}

F void lane_ext(bool is_max, bool half, const void *x, size_t n, double *acc)
{
    float m = (float)*acc;
    if (m != m)
        return;
    size_t i = 0;
    if (n >= 8) {
        __m256 m0 = _mm256_set1_ps(m), m1 = m0, nan = _mm256_setzero_ps();
        for (; i + 16 <= n; i += 16) {
            __m256 u = wnn__load8(x, i, half), v = wnn__load8(x, i + 8, half);
            nan = _mm256_or_ps(nan, unordered(u, v));
            m0 = ext8(is_max, m0, u);
            m1 = ext8(is_max, m1, v);
        }
        for (; i + 8 <= n; i += 8) {
            __m256 u = wnn__load8(x, i, half);
            nan = _mm256_or_ps(nan, unordered(u, u));
            m0 = ext8(is_max, m0, u);
        }
        if (_mm256_movemask_ps(nan)) {
            *acc = NAN;
            return;
        }
        float lanes[8];
        _mm256_storeu_ps(lanes, ext8(is_max, m0, m1));
        for (int k = 0; k < 8; k++)
            m = is_max ? (lanes[k] > m ? lanes[k] : m) : (lanes[k] < m ? lanes[k] : m);
    }
    for (; i < n; i++) {
        float v = one(x, i, half);
        if (v != v) {
            *acc = NAN;
            return;
        }
        m = is_max ? (v > m ? v : m) : (v < m ? v : m);
    }
    *acc = m;
}

/* ---- rows: g groups of 8 columns from column c0 -------------------------------------------- */

F void rows_sum(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t c0, int g, const float *sub,
                double *acc)
{
    __m256d a[8];
    __m256 s[4], b[4];
#pragma GCC unroll 8
    for (int q = 0; q < 2 * g; q++)
        a[q] = _mm256_loadu_pd(acc + c0 + 4 * q);
#pragma GCC unroll 4
    for (int q = 0; q < g; q++)
        s[q] = f == WNN__FOLD_EXP_SUM ? _mm256_loadu_ps(sub + c0 + 8 * q) : _mm256_setzero_ps();
    for (size_t r = 0, at = c0; r < rows;) {
        size_t stop = rows - r > BLOCK_ROWS ? r + BLOCK_ROWS : rows;
#pragma GCC unroll 4
        for (int q = 0; q < g; q++)
            b[q] = _mm256_setzero_ps();
        for (; r < stop; r++, at += stride) {
#pragma GCC unroll 4
            for (int q = 0; q < g; q++)
                b[q] = _mm256_add_ps(b[q], term8(f, wnn__load8(x, at + 8 * q, half), s[q]));
        }
#pragma GCC unroll 4
        for (int q = 0; q < g; q++)
            widen_add(b[q], &a[2 * q], &a[2 * q + 1]);
    }
#pragma GCC unroll 8
    for (int q = 0; q < 2 * g; q++)
        _mm256_storeu_pd(acc + c0 + 4 * q, a[q]);
}

F void rows_ext(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t c0, int g, double *acc)
{
    __m256 m[4], nan[4];
#pragma GCC unroll 4
    for (int q = 0; q < g; q++) {
        const double *p = acc + c0 + 8 * q;
        m[q] = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(p + 4)), _mm256_cvtpd_ps(_mm256_loadu_pd(p)));
        nan[q] = unordered(m[q], m[q]);
    }
    for (size_t r = 0, at = c0; r < rows; r++, at += stride) {
#pragma GCC unroll 4
        for (int q = 0; q < g; q++) {
            __m256 v = wnn__load8(x, at + 8 * q, half);
            nan[q] = _mm256_or_ps(nan[q], unordered(v, v));
            m[q] = ext8(is_max, m[q], v);
        }
    }
#pragma GCC unroll 4
    for (int q = 0; q < g; q++) {
        __m256 v = _mm256_blendv_ps(m[q], _mm256_set1_ps(NAN), nan[q]);
        _mm256_storeu_pd(acc + c0 + 8 * q, _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
        _mm256_storeu_pd(acc + c0 + 8 * q + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
    }
}

F void rows_any(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t c0, int g, const float *sub,
                double *acc)
{
    if (f == WNN__FOLD_MAX || f == WNN__FOLD_MIN)
        rows_ext(f == WNN__FOLD_MAX, half, x, rows, stride, c0, g, acc);
    else
        rows_sum(f, half, x, rows, stride, c0, g, sub, acc);
}

F void rows_all(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t cols, const float *sub,
                double *acc)
{
    size_t c = 0;
    for (; c + 32 <= cols; c += 32)
        rows_any(f, half, x, rows, stride, c, 4, sub, acc);
    for (; c < cols; c += 8)
        rows_any(f, half, x, rows, stride, c, 1, sub, acc);
}

/* ---- arg ----------------------------------------------------------------------------------- */

F __m256 better8(bool is_max, __m256 v, __m256 best)
{
    return is_max ? _mm256_cmp_ps(v, best, _CMP_GT_OQ) : _mm256_cmp_ps(v, best, _CMP_LT_OQ);
}

F __m256i pick_index(__m256i idx, __m256i cur, __m256 take)
{
    return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(idx), _mm256_castsi256_ps(cur), take));
}

F bool arg_lane_impl(bool is_max, bool half, const void *x, size_t n, int64_t *index)
{
    if (n < 16 || n >= (size_t)1 << 31)
        return false;
    __m256 best = wnn__load8(x, 0, half), nan = unordered(best, best);
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), cur = idx, step = _mm256_set1_epi32(8);
    size_t i = 8;
    for (; i + 8 <= n; i += 8) {
        __m256 v = wnn__load8(x, i, half);
        cur = _mm256_add_epi32(cur, step);
        nan = _mm256_or_ps(nan, unordered(v, v));
        __m256 take = better8(is_max, v, best);
        best = _mm256_blendv_ps(best, v, take);
        idx = pick_index(idx, cur, take);
    }
    if (_mm256_movemask_ps(nan))
        return false;
    float b[8];
    int32_t at[8];
    _mm256_storeu_ps(b, best);
    _mm256_storeu_si256((__m256i *)at, idx);
    float bv = b[0];
    int64_t bi = at[0];
    for (int k = 1; k < 8; k++)
        if ((is_max ? b[k] > bv : b[k] < bv) || (b[k] == bv && at[k] < bi)) {
            bv = b[k];
            bi = at[k];
        }
    for (; i < n; i++) {
        float v = one(x, i, half);
        if (v != v)
            return false;
        if (is_max ? v > bv : v < bv) {
            bv = v;
            bi = (int64_t)i;
        }
    }
    *index = bi;
    return true;
}

F bool arg_rows_g(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t c0, int g, int64_t *index)
{
    __m256 best[4], nan[4];
    __m256i idx[4];
#pragma GCC unroll 4
    for (int q = 0; q < g; q++) {
        best[q] = wnn__load8(x, c0 + 8 * q, half);
        nan[q] = unordered(best[q], best[q]);
        idx[q] = _mm256_setzero_si256();
    }
    for (size_t r = 1, at = c0 + stride; r < rows; r++, at += stride) {
        __m256i cur = _mm256_set1_epi32((int32_t)r);
#pragma GCC unroll 4
        for (int q = 0; q < g; q++) {
            __m256 v = wnn__load8(x, at + 8 * q, half);
            nan[q] = _mm256_or_ps(nan[q], unordered(v, v));
            __m256 take = better8(is_max, v, best[q]);
            best[q] = _mm256_blendv_ps(best[q], v, take);
            idx[q] = pick_index(idx[q], cur, take);
        }
    }
    for (int q = 0; q < g; q++) {
        if (_mm256_movemask_ps(nan[q]))
            return false;
        int32_t at[8];
        _mm256_storeu_si256((__m256i *)at, idx[q]);
        for (int k = 0; k < 8; k++)
            index[c0 + 8 * q + k] = at[k];
    }
    return true;
}

F bool arg_rows_impl(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t cols, int64_t *index)
{
    if (rows == 0 || rows >= (size_t)1 << 31)
        return false;
    size_t c = 0;
    for (; c + 32 <= cols; c += 32)
        if (!arg_rows_g(is_max, half, x, rows, stride, c, 4, index))
            return false;
    for (; c < cols; c += 8)
        if (!arg_rows_g(is_max, half, x, rows, stride, c, 1, index))
            return false;
    return true;
}

/* ---- instantiations ------------------------------------------------------------------------ */

#define FOLD_CASES(CALL)                                                                                               \
    switch (f) {                                                                                                       \
    case WNN__FOLD_SUM: CALL(WNN__FOLD_SUM); break;                                                                    \
    case WNN__FOLD_L1: CALL(WNN__FOLD_L1); break;                                                                      \
    case WNN__FOLD_SUMSQ: CALL(WNN__FOLD_SUMSQ); break;                                                                \
    case WNN__FOLD_MAX: CALL(WNN__FOLD_MAX); break;                                                                    \
    case WNN__FOLD_MIN: CALL(WNN__FOLD_MIN); break;                                                                    \
    case WNN__FOLD_EXP_SUM: CALL(WNN__FOLD_EXP_SUM); break;                                                            \
    }

#define DEFINE_TYPE(S, HALF)                                                                                           \
    WNN_AVX2 static void lane_##S(wnn__fold f, const void *x, size_t n, float sub, double *acc)                        \
    {                                                                                                                  \
        if (f == WNN__FOLD_MAX || f == WNN__FOLD_MIN) {                                                                \
            if (f == WNN__FOLD_MAX)                                                                                    \
                lane_ext(true, HALF, x, n, acc);                                                                       \
            else                                                                                                       \
                lane_ext(false, HALF, x, n, acc);                                                                      \
            return;                                                                                                    \
        }                                                                                                              \
        FOLD_CASES(LANE_CALL_##S)                                                                                      \
    }                                                                                                                  \
    WNN_AVX2 static void rows_##S(wnn__fold f, const void *x, size_t rows, size_t stride, size_t cols,                 \
                                  const float *sub, double *acc){FOLD_CASES(                                           \
        ROWS_CALL_##S)} WNN_AVX2 static bool arg_lane_##S(bool is_max, const void *x, size_t n, int64_t *index)        \
    {                                                                                                                  \
        return is_max ? arg_lane_impl(true, HALF, x, n, index) : arg_lane_impl(false, HALF, x, n, index);              \
    }                                                                                                                  \
    WNN_AVX2 static bool arg_rows_##S(bool is_max, const void *x, size_t rows, size_t stride, size_t cols,             \
                                      int64_t *index)                                                                  \
    {                                                                                                                  \
        return is_max ? arg_rows_impl(true, HALF, x, rows, stride, cols, index)                                        \
                      : arg_rows_impl(false, HALF, x, rows, stride, cols, index);                                      \
    }
#define LANE_CALL_f32(K) lane_sum(K, false, x, n, sub, acc)
#define LANE_CALL_f16(K) lane_sum(K, true, x, n, sub, acc)
#define ROWS_CALL_f32(K) rows_all(K, false, x, rows, stride, cols, sub, acc)
#define ROWS_CALL_f16(K) rows_all(K, true, x, rows, stride, cols, sub, acc)
DEFINE_TYPE(f32, false)
DEFINE_TYPE(f16, true)

bool wnn__fold_lane(wnn__fold f, bool half, const void *x, size_t n, float sub, double *acc)
{
    if (!wnn__cpu_has_avx2())
        return false;
    if (half)
        lane_f16(f, x, n, sub, acc);
    else
        lane_f32(f, x, n, sub, acc);
    return true;
}

bool wnn__fold_lanes(wnn__fold f, bool half, const void *x, size_t lanes, size_t n, size_t stride, double *acc)
{
    if (!wnn__cpu_has_avx2() || f == WNN__FOLD_EXP_SUM)
        return false;
    size_t step = stride * (half ? 2 : 4);
    const char *p = x;
    if (half)
        for (size_t i = 0; i < lanes; i++)
            lane_f16(f, p + i * step, n, 0.0f, acc + i);
    else
        for (size_t i = 0; i < lanes; i++)
            lane_f32(f, p + i * step, n, 0.0f, acc + i);
    return true;
}

bool wnn__fold_rows(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t cols, const float *sub,
                    double *acc)
{
    if (!wnn__cpu_has_avx2() || cols % 8)
        return false;
    if (half)
        rows_f16(f, x, rows, stride, cols, sub, acc);
    else
        rows_f32(f, x, rows, stride, cols, sub, acc);
    return true;
}

bool wnn__arg_lane(bool is_max, bool half, const void *x, size_t n, int64_t *index)
{
    if (!wnn__cpu_has_avx2())
        return false;
    return half ? arg_lane_f16(is_max, x, n, index) : arg_lane_f32(is_max, x, n, index);
}

bool wnn__arg_rows(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t cols, int64_t *index)
{
    if (!wnn__cpu_has_avx2() || cols % 8)
        return false;
    return half ? arg_rows_f16(is_max, x, rows, stride, cols, index)
                : arg_rows_f32(is_max, x, rows, stride, cols, index);
}

#else

bool wnn__fold_lanes(wnn__fold f, bool half, const void *x, size_t lanes, size_t n, size_t stride, double *acc)
{
    (void)f, (void)half, (void)x, (void)lanes, (void)n, (void)stride, (void)acc;
    return false;
}

bool wnn__fold_lane(wnn__fold f, bool half, const void *x, size_t n, float sub, double *acc)
{
    (void)f, (void)half, (void)x, (void)n, (void)sub, (void)acc;
    return false;
}

bool wnn__fold_rows(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t cols, const float *sub,
                    double *acc)
{
    (void)f, (void)half, (void)x, (void)rows, (void)stride, (void)cols, (void)sub, (void)acc;
    return false;
}

bool wnn__arg_lane(bool is_max, bool half, const void *x, size_t n, int64_t *index)
{
    (void)is_max, (void)half, (void)x, (void)n, (void)index;
    return false;
}

bool wnn__arg_rows(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t cols, int64_t *index)
{
    (void)is_max, (void)half, (void)x, (void)rows, (void)stride, (void)cols, (void)index;
    return false;
}

#endif
