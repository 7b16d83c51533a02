/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec_avx512.c -- rows of vec.c on AVX-512 (sixteen floats a vector): exp,
** sigmoid, tanh, log, gelu (float32, and float16 in and out), softmax's exp-and-sum,
** and layerNormalization's sum, squared deviations and normalize, for
** processors that have AVX-512F; vec.c picks them at run time before its
** AVX2 ones.
**
** They compute what vec.c's AVX2 versions compute, with the same
** constants: exp is Cephes' expf with a two-part argument (see
** simd_avx2.h), the power of two applied by scalef, which rounds once into
** the subnormal range; gelu is x * Phi(x) with erfc from Numerical Recipes'
** erfcc, z^2 split exactly. Tails are masked loads and stores (the float16
** gelu's through a copy, the layerNormalization rows' by vec.c's portable
** loops).
*/
#include <string.h>

#include "backends/cpu/simd_avx2.h"
#include "platform/config.h"

#if WNN_CPU_X86

#define AVX512        __attribute__((target("avx512f,fma")))
#define AVX512_INLINE __attribute__((target("avx512f,fma"), always_inline)) static inline

bool wnn__cpu_has_avx512(void)
{
    static int known; /* 0: not asked yet, 1: no, 2: yes; races store the same value */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        __builtin_cpu_init(); /* libgcc and compiler-rt check the OS saves the state too */
        k = __builtin_cpu_supports("avx512f") && wnn__cpu_has_avx2() && wnn__config_get()->cpu_avx512 ? 2 : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}

/* exp(hi + lo) for arguments where fx = round(s log2 e) needs no bounds
** (s is hi + lo, or a clamped copy of it): Cody-Waite reduction by ln 2 in
** two parts, Cephes' polynomial, and the power of two applied by scalef. */
AVX512_INLINE __m512 exp16_core(__m512 hi, __m512 lo, __m512 s)
{
    __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(s, _mm512_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_add_ps(_mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), hi), lo);
    r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), r);
    __m512 p = _mm512_set1_ps(1.9875691500E-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507E-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073E-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894E-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459E-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201E-1f));
    __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
    return _mm512_scalef_ps(y, fx);
}

AVX512_INLINE __m512 exp16_2(__m512 hi, __m512 lo)
{
    __m512 s = _mm512_add_ps(hi, lo);
    __mmask16 under = _mm512_cmp_ps_mask(s, _mm512_set1_ps(WNN_EXP_LO), _CMP_LT_OQ);
    __mmask16 over = _mm512_cmp_ps_mask(s, _mm512_set1_ps(WNN_EXP_HI), _CMP_GT_OQ);
    /* max(lo, x) and min(hi, x) return x itself when it is NaN */
    s = _mm512_min_ps(_mm512_set1_ps(WNN_EXP_HI), _mm512_max_ps(_mm512_set1_ps(WNN_EXP_LO), s));
    __m512 y = _mm512_maskz_mov_ps((__mmask16)~under, exp16_core(hi, lo, s));
    return _mm512_mask_blend_ps(over, y, _mm512_set1_ps(INFINITY));
}

/* gelu(x) = x Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2 as gelu8 in vec.c
** computes it: erfc(z) = t G(t) exp(-z^2) with G vec.c's polynomial
** (wnn__gelu_g), |x| clamped to 26, where erfc is 0 to float precision
** (and x^2 stays finite: NaN inputs give min's 26, and the products keep
** them NaN). -xa^2 / 2 is split exactly as hi + lo, since -xa / 2 is; its
** exponential needs no bounds (the argument lies in [-340, 0]), and its
** power of two is applied by scalef to the finished product, so a
** subnormal result is rounded once. G and the exponential do not depend on
** each other, so they run side by side. */
AVX512_INLINE __m512 gelu16(__m512 x)
{
    const float *g = wnn__gelu_g;
    __m512 one = _mm512_set1_ps(1.0f);
    __m512 xa = _mm512_min_ps(_mm512_abs_ps(x), _mm512_set1_ps(26.0f));
    /* t = 1 / (1 + z / 2), z = xa / sqrt 2 */
    __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(xa, _mm512_set1_ps(0.35355339059327376f), one));
    __m512 t2 = _mm512_mul_ps(t, t), t4 = _mm512_mul_ps(t2, t2), t8 = _mm512_mul_ps(t4, t4);
    __m512 g01 = _mm512_fmadd_ps(_mm512_set1_ps(g[1]), t, _mm512_set1_ps(g[0]));
    __m512 g23 = _mm512_fmadd_ps(_mm512_set1_ps(g[3]), t, _mm512_set1_ps(g[2]));
    __m512 g45 = _mm512_fmadd_ps(_mm512_set1_ps(g[5]), t, _mm512_set1_ps(g[4]));
    __m512 g67 = _mm512_fmadd_ps(_mm512_set1_ps(g[7]), t, _mm512_set1_ps(g[6]));
    __m512 g03 = _mm512_fmadd_ps(g23, t2, g01), g47 = _mm512_fmadd_ps(g67, t2, g45);
    __m512 tg = _mm512_mul_ps(t, _mm512_fmadd_ps(_mm512_set1_ps(g[8]), t8, _mm512_fmadd_ps(g47, t4, g03)));
    __m512 mx = _mm512_mul_ps(xa, _mm512_set1_ps(-0.5f));
    __m512 hi = _mm512_mul_ps(xa, mx), lo = _mm512_fmsub_ps(xa, mx, hi);
    __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(hi, _mm512_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_add_ps(_mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693359375f), hi),
                             _mm512_fnmadd_ps(fx, _mm512_set1_ps(-2.12194440e-4f), lo));
    __m512 r2 = _mm512_mul_ps(r, r), r4 = _mm512_mul_ps(r2, r2);
    __m512 a01 = _mm512_fmadd_ps(_mm512_set1_ps(1.6666665459E-1f), r, _mm512_set1_ps(5.0000001201E-1f));
    __m512 a23 = _mm512_fmadd_ps(_mm512_set1_ps(8.3334519073E-3f), r, _mm512_set1_ps(4.1665795894E-2f));
    __m512 a45 = _mm512_fmadd_ps(_mm512_set1_ps(1.9875691500E-4f), r, _mm512_set1_ps(1.3981999507E-3f));
    __m512 q = _mm512_fmadd_ps(a45, r4, _mm512_fmadd_ps(a23, r2, a01));
    __m512 h = _mm512_mul_ps(tg, _mm512_fmadd_ps(q, r2, _mm512_add_ps(r, one))); /* erfc(z) / 2^fx */
    /* x < 0: x erfc / 2, scaled last; x >= 0: x (1 - erfc / 2), which keeps inf */
    __m512 neg = _mm512_scalef_ps(_mm512_mul_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.5f)), h), fx);
    /* -inf: NaN (-inf * 0), as the AVX2 row and the portable loop give */
    neg = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(-INFINITY), _CMP_EQ_OQ), neg,
                               _mm512_set1_ps(NAN));
    __m512 phi = _mm512_fnmadd_ps(_mm512_scalef_ps(h, fx), _mm512_set1_ps(0.5f), one);
    __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
    return _mm512_mask_mul_ps(neg, pos, x, phi);
}

AVX512_INLINE __mmask16 tail_mask(size_t left) { return (__mmask16)((1u << left) - 1u); }

AVX512 void wnn__gelu_avx512(float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) { /* two independent chains in flight */
        __m512 a = gelu16(_mm512_loadu_ps(x + i)), b = gelu16(_mm512_loadu_ps(x + i + 16));
        _mm512_storeu_ps(y + i, a);
        _mm512_storeu_ps(y + i + 16, b);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : tail_mask(n - i);
        _mm512_mask_storeu_ps(y + i, m, gelu16(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

/* gelu of float16 in and out, as vec.c's gelu8_half (its constants, the
** same steps), sixteen a vector: rcp14 and one Newton step for t, the power
** of two by scalef. */
AVX512_INLINE __m512 gelu16_half(__m512 x)
{
    const float *g = wnn__gelu_h, *q = wnn__gelu_hq;
    __m512 one = _mm512_set1_ps(1.0f), six = _mm512_set1_ps(6.0f);
    __m512 abs = _mm512_abs_ps(x);
    __mmask16 far = _mm512_cmp_ps_mask(abs, six, _CMP_GT_OQ);
    __m512 ax = _mm512_min_ps(abs, six);
    __m512 d = _mm512_fmadd_ps(_mm512_set1_ps(0.35355339059327376f), ax, one);
    __m512 t = _mm512_rcp14_ps(d);
    t = _mm512_fmadd_ps(t, _mm512_fnmadd_ps(d, t, one), t);
    __m512 t2 = _mm512_mul_ps(t, t);
    __m512 g01 = _mm512_fmadd_ps(_mm512_set1_ps(g[1]), t, _mm512_set1_ps(g[0]));
    __m512 g23 = _mm512_fmadd_ps(_mm512_set1_ps(g[3]), t, _mm512_set1_ps(g[2]));
    __m512 tg = _mm512_mul_ps(t, _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(g[4]), t2, g23), t2, g01));
    __m512 e2 = _mm512_mul_ps(_mm512_mul_ps(ax, ax), _mm512_set1_ps(-0.5f));
    __m512 fx = _mm512_roundscale_ps(_mm512_mul_ps(e2, _mm512_set1_ps(1.44269504088896341f)),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(fx, _mm512_set1_ps(0.693147181f), e2);
    __m512 r2 = _mm512_mul_ps(r, r);
    __m512 p = _mm512_fmadd_ps(_mm512_fmadd_ps(_mm512_set1_ps(q[2]), r, _mm512_set1_ps(q[1])), r,
                               _mm512_set1_ps(q[0]));
    __m512 e = _mm512_scalef_ps(_mm512_fmadd_ps(p, r2, _mm512_add_ps(r, one)), fx);
    __m512 half_h = _mm512_maskz_mul_ps((__mmask16)~far, _mm512_mul_ps(tg, e), _mm512_set1_ps(0.5f));
    __mmask16 pos = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
    return _mm512_mask_mul_ps(_mm512_mul_ps(x, half_h), pos, x, _mm512_sub_ps(one, half_h));
}

AVX512 void wnn__gelu_half_avx512(uint16_t *y, const uint16_t *x, size_t n)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 a = gelu16_half(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i))));
        __m512 b = gelu16_half(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(x + i + 16))));
        _mm256_storeu_si256((__m256i *)(y + i), _mm512_cvtps_ph(a, WNN_HALF_RN));
        _mm256_storeu_si256((__m256i *)(y + i + 16), _mm512_cvtps_ph(b, WNN_HALF_RN));
    }
    for (; i < n; i += 16) { /* 16-bit masked moves need AVX512BW: a copy instead */
        uint16_t in[16] = {0}, out[16];
        size_t m = n - i < 16 ? n - i : 16;
        memcpy(in, x + i, m * sizeof *in);
        __m512 v = gelu16_half(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)in)));
        _mm256_storeu_si256((__m256i *)out, _mm512_cvtps_ph(v, WNN_HALF_RN));
        memcpy(y + i, out, m * sizeof *out);
    }
}

/* layerNormalization's rows (vec.h's sum, sq_dev and norm) sixteen a
** vector, float32 or float16 widened in the registers: the same blocks as
** vec.c's AVX2 rows (float sums of at most 32 terms a lane, then double),
** the rest of a row by the caller's portable loop. */
AVX512_INLINE __m512 load16(const void *x, size_t i, bool half)
{
    return half ? _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)((const uint16_t *)x + i)))
                : _mm512_loadu_ps((const float *)x + i);
}

AVX512_INLINE double hsum16d(__m512 v)
{
    float f[16];
    _mm512_storeu_ps(f, v);
    double s = 0.0;
    for (int i = 0; i < 16; i++)
        s += f[i];
    return s;
}

/* The term of a fold: v, or (v - mean)^2 added by one fma. */
AVX512_INLINE __m512 fold_step(bool squares, __m512 acc, __m512 v, __m512 mean)
{
    if (!squares)
        return _mm512_add_ps(acc, v);
    __m512 d = _mm512_sub_ps(v, mean);
    return _mm512_fmadd_ps(d, d, acc);
}

/* Sum (or squared deviations from mean) of the whole vectors of a row:
** four accumulators, blocks of 512 elements summed in float, then double. */
AVX512_INLINE double fold16(const void *x, bool half, float mean, bool squares, size_t n, size_t *done)
{
    __m512 m = _mm512_set1_ps(mean);
    double total = 0.0;
    size_t i = 0;
    while (i + 16 <= n) {
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        size_t stop = i + 512 < n ? i + 512 : n;
        for (; i + 64 <= stop; i += 64) {
            s0 = fold_step(squares, s0, load16(x, i, half), m);
            s1 = fold_step(squares, s1, load16(x, i + 16, half), m);
            s2 = fold_step(squares, s2, load16(x, i + 32, half), m);
            s3 = fold_step(squares, s3, load16(x, i + 48, half), m);
        }
        for (; i + 16 <= stop; i += 16)
            s0 = fold_step(squares, s0, load16(x, i, half), m);
        total += hsum16d(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)));
    }
    *done = i;
    return total;
}

AVX512 double wnn__sum_avx512(const void *x, bool half, size_t n, size_t *done)
{
    return fold16(x, half, 0.0f, false, n, done);
}

AVX512 double wnn__sq_dev_avx512(const void *x, bool half, float mean, size_t n, size_t *done)
{
    return fold16(x, half, mean, true, n, done);
}

AVX512 size_t wnn__norm_avx512(void *y, const void *x, bool half, size_t n, float mean, float inv,
                               const float *scale, const float *bias)
{
    __m512 m = _mm512_set1_ps(mean), v = _mm512_set1_ps(inv), one = _mm512_set1_ps(1.0f), zero = _mm512_setzero_ps();
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 t = _mm512_mul_ps(_mm512_sub_ps(load16(x, i, half), m), v);
        __m512 sc = scale ? _mm512_loadu_ps(scale + i) : one, b = bias ? _mm512_loadu_ps(bias + i) : zero;
        __m512 r = _mm512_fmadd_ps(t, sc, b);
        if (half)
            _mm256_storeu_si256((__m256i *)((uint16_t *)y + i), _mm512_cvtps_ph(r, WNN_HALF_RN));
        else
            _mm512_storeu_ps((float *)y + i, r);
    }
    return i;
}

AVX512_INLINE __m512 exp16(__m512 x) { return exp16_2(x, _mm512_setzero_ps()); }

AVX512_INLINE __m512 sigmoid16(__m512 x)
{
    __m512 nx = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
    __m512 e = exp16(nx); /* exp(-|x|) */
    __m512 s = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_add_ps(_mm512_set1_ps(1.0f), e));
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ), _mm512_mul_ps(e, s), s);
}

/* tanh as vec.c's tanh8: the series below |x| = 0.4, 1 - 2 / (exp(2|x|) + 1)
** above (exp's argument is at least 0.8, so scalef's rounding into the
** subnormals never comes in), then x's sign. */
AVX512_INLINE __m512 tanh16(__m512 x)
{
    __m512 one = _mm512_set1_ps(1.0f);
    __m512 a = _mm512_abs_ps(x), xx = _mm512_mul_ps(x, x);
    __m512 p = _mm512_set1_ps(wnn__tanh_t[7]);
    for (int k = 6; k >= 0; k--)
        p = _mm512_fmadd_ps(p, xx, _mm512_set1_ps(wnn__tanh_t[k]));
    __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(a, xx), p, a);
    __m512 e = exp16(_mm512_add_ps(a, a));
    __m512 big = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
    __m512 r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, _mm512_set1_ps(0.4f), _CMP_LT_OQ), big, small);
    __m512i sign = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r), sign));
}

/* log as vec.c's log8: x = m 2^e (subnormals scaled by 2^23 first),
** Cephes' polynomial for log(m), e ln 2 in two parts; 0 gives -inf, inf
** inf, below 0 and NaN NaN. */
AVX512_INLINE __m512 log16(__m512 x)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
    __m512 xs = _mm512_mask_mul_ps(x, tiny, x, _mm512_set1_ps(8388608.0f));
    __m512i bits = _mm512_castps_si512(xs);
    __m512i ei = _mm512_sub_epi32(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(127));
    ei = _mm512_mask_sub_epi32(ei, tiny, ei, _mm512_set1_epi32(23));
    __m512 m = _mm512_castsi512_ps(
        _mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(0x007fffff)), _mm512_set1_epi32(0x3f800000)));
    __mmask16 big = _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
    m = _mm512_mask_mul_ps(m, big, m, _mm512_set1_ps(0.5f));
    __m512 e = _mm512_mask_add_ps(_mm512_cvtepi32_ps(ei), big, _mm512_cvtepi32_ps(ei), one);
    __m512 f = _mm512_sub_ps(m, one), z = _mm512_mul_ps(f, f);
    __m512 p = _mm512_set1_ps(wnn__log_p[0]);
    for (int k = 1; k < 9; k++)
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(wnn__log_p[k]));
    __m512 y = _mm512_mul_ps(_mm512_mul_ps(p, f), z);
    y = _mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f), y);
    y = _mm512_fnmadd_ps(z, _mm512_set1_ps(0.5f), y);
    __m512 r = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), _mm512_add_ps(f, y));
    r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), r, _mm512_set1_ps(-INFINITY));
    r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), r, x);
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ), r, _mm512_set1_ps(NAN));
}

/* y = F(x) sixteen at a time, the tail masked. */
#define DEFINE_MAP16(NAME, F)                                                  \
    AVX512 void wnn__##NAME##_avx512(float *y, const float *x, size_t n)      \
    {                                                                          \
        for (size_t i = 0; i < n; i += 16) {                                   \
            __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : tail_mask(n - i);  \
            _mm512_mask_storeu_ps(y + i, m, F(_mm512_maskz_loadu_ps(m, x + i))); \
        }                                                                      \
    }
DEFINE_MAP16(exp, exp16)
DEFINE_MAP16(sigmoid, sigmoid16)
DEFINE_MAP16(tanh, tanh16)
DEFINE_MAP16(log, log16)

AVX512 float wnn__exp_sum_avx512(float *y, const float *x, float sub, size_t n)
{
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, b = _mm512_set1_ps(sub), zero = s0;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512 e0 = exp16_2(_mm512_sub_ps(_mm512_loadu_ps(x + i), b), zero);
        __m512 e1 = exp16_2(_mm512_sub_ps(_mm512_loadu_ps(x + i + 16), b), zero);
        _mm512_storeu_ps(y + i, e0);
        _mm512_storeu_ps(y + i + 16, e1);
        s0 = _mm512_add_ps(s0, e0);
        s1 = _mm512_add_ps(s1, e1);
    }
    for (; i < n; i += 16) {
        __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : tail_mask(n - i);
        __m512 e = exp16_2(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), b), zero);
        _mm512_mask_storeu_ps(y + i, m, e);
        s0 = _mm512_add_ps(s0, _mm512_maskz_mov_ps(m, e));
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

#endif
