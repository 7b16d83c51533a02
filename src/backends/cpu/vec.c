/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec.c -- float32 row primitives for the cpu kernels (see vec.h): AVX2 with
** FMA where the processor has it, chosen once at run time, and portable
** loops otherwise; exp, sigmoid, gelu (float32 and float16), exp-and-sum and
** layerNormalization's rows on AVX-512 (vec_avx512.c) where the processor has
** that. exp is simd_avx2.h's (Cephes' expf, about 1 ulp).
*/
#include "backends/cpu/vec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "backends/cpu/half_simd.h"
#include "backends/cpu/simd_avx2.h"
#include "core/half.h"

#if WNN_CPU_X86
#include <cpuid.h>
#endif

/* ------------------------------------------------------------------------ */
/* Portable                                                                  */
/* ------------------------------------------------------------------------ */

static float max_c(const float *x, size_t n)
{
    float m = x[0];
    for (size_t i = 1; i < n; i++)
        m = x[i] > m || x[i] != x[i] ? x[i] : m;
    return m;
}

static float exp_sum_c(float *y, const float *x, float sub, size_t n)
{
    float s = 0.0f;
    for (size_t i = 0; i < n; i++)
        s += y[i] = expf(x[i] - sub);
    return s;
}

static void scale_c(float *y, float s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] *= s;
}

/* Element i onwards of a float32 or float16 row. */
static const void *from(const void *x, bool half, size_t i)
{
    return half ? (const void *)((const uint16_t *)x + i) : (const void *)((const float *)x + i);
}

/* Element i of a float32 or float16 row. */
static inline float at(const void *x, bool half, size_t i)
{
    return half ? wnn__half_to_float(((const uint16_t *)x)[i]) : ((const float *)x)[i];
}

static double sum_c(const void *x, bool half, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += at(x, half, i);
    return s;
}

static double sq_dev_c(const void *x, bool half, float mean, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) {
        float d = at(x, half, i) - mean;
        s += (double)d * d;
    }
    return s;
}

static void norm_c(void *y, const void *x, bool half, size_t n, float mean, float inv, const float *scale,
                   const float *bias)
{
    for (size_t i = 0; i < n; i++) {
        float v = (at(x, half, i) - mean) * inv * (scale ? scale[i] : 1.0f) + (bias ? bias[i] : 0.0f);
        if (half)
            ((uint16_t *)y)[i] = wnn__float_to_half(v);
        else
            ((float *)y)[i] = v;
    }
}

static void gelu_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) /* erfc keeps the negative side's relative precision */
        y[i] = (float)(0.5 * x[i] * erfc(-x[i] * 0.70710678118654752440));
}

static void exp_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = expf(x[i]);
}

static void erf_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (float)erf(x[i]);
}

static void log_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = logf(x[i]);
}

static void tanh_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = tanhf(x[i]);
}

static void elu_c(float *y, const float *x, size_t n, float alpha)
{
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] >= 0.0f || x[i] != x[i] ? x[i] : alpha * expm1f(x[i]);
}

static void sigmoid_c(float *y, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float e = expf(-fabsf(x[i])), s = 1.0f / (1.0f + e);
        y[i] = x[i] >= 0.0f ? s : e * s;
    }
}

/* ------------------------------------------------------------------------ */
/* AVX2 + FMA                                                                */
/* ------------------------------------------------------------------------ */

#if WNN_CPU_X86
#define AVX2 WNN_AVX2

AVX2 static inline double hsum8d(__m256 v)
{
    float f[8];
    _mm256_storeu_ps(f, v);
    double s = 0.0;
    for (int i = 0; i < 8; i++)
        s += f[i];
    return s;
}

/* gelu(x) = x * Phi(x), Phi(x) = erfc(-x / sqrt 2) / 2, with erfc(z) for
** z = |x| / sqrt 2 as t * G(t) * exp(-z^2), t = 1 / (1 + z / 2) (the
** variable of Numerical Recipes' erfcc) and G a degree-8 polynomial fitted
** here to erfc(z) exp(z^2) / t in relative error (Lawson's weighted least
** squares, 2.5e-7 at worst in float32 over |x| <= 26, where erfc is 0 to
** float precision). The exponential's argument -x^2 / 2 is split exactly
** (hi + lo) and its power of two taken as 2^n1 * 2^n2, the second factor
** applied last, so a subnormal result is rounded once. The division and G
** run beside the exponential instead of before it (the previous form put
** the polynomial inside the exponent), which shortens the longest chain of
** dependent operations from about 108 cycles to 60; both polynomials by
** Estrin's scheme. 8 ulp at worst over [-16, 16] (WebNN allows 18); on the
** project's 2-core machine (Zen 3) 1.3 ns an element against 2.0 for the
** previous form. */
const float wnn__gelu_g[9] = {2.820878029e-01f, 2.823298275e-01f, 2.436140627e-01f,
                                1.998682469e-01f, -1.790460758e-02f, 2.622295916e-01f,
                                -4.704593718e-01f, 2.750522792e-01f, -5.681774020e-02f};

AVX2 static inline __m256 gelu8(__m256 x)
{
    const float *g = wnn__gelu_g;
    __m256 one = _mm256_set1_ps(1.0f);
    /* |x| clamped to 26 keeps x^2 finite (NaN gives min's 26; the products keep it NaN) */
    __m256 ax = _mm256_min_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), x), _mm256_set1_ps(26.0f));
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.35355339059327376f), ax, one));
    __m256 t2 = _mm256_mul_ps(t, t), t4 = _mm256_mul_ps(t2, t2), t8 = _mm256_mul_ps(t4, t4);
    __m256 g01 = _mm256_fmadd_ps(_mm256_set1_ps(g[1]), t, _mm256_set1_ps(g[0]));
    __m256 g23 = _mm256_fmadd_ps(_mm256_set1_ps(g[3]), t, _mm256_set1_ps(g[2]));
    __m256 g45 = _mm256_fmadd_ps(_mm256_set1_ps(g[5]), t, _mm256_set1_ps(g[4]));
    __m256 g67 = _mm256_fmadd_ps(_mm256_set1_ps(g[7]), t, _mm256_set1_ps(g[6]));
    __m256 g03 = _mm256_fmadd_ps(g23, t2, g01), g47 = _mm256_fmadd_ps(g67, t2, g45);
    __m256 tg = _mm256_mul_ps(t, _mm256_fmadd_ps(_mm256_set1_ps(g[8]), t8, _mm256_fmadd_ps(g47, t4, g03)));
    /* exp(hi + lo) = exp(-ax^2 / 2): -ax / 2 is exact, so hi + lo is too */
    __m256 mx = _mm256_mul_ps(ax, _mm256_set1_ps(-0.5f));
    __m256 hi = _mm256_mul_ps(ax, mx), lo = _mm256_fmsub_ps(ax, mx, hi);
    __m256 fx = _mm256_round_ps(_mm256_mul_ps(_mm256_max_ps(hi, _mm256_set1_ps(-103.0f)),
                                              _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_add_ps(_mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), hi),
                             _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), lo));
    __m256 r2 = _mm256_mul_ps(r, r), r4 = _mm256_mul_ps(r2, r2);
    __m256 a01 = _mm256_fmadd_ps(_mm256_set1_ps(1.6666665459E-1f), r, _mm256_set1_ps(5.0000001201E-1f));
    __m256 a23 = _mm256_fmadd_ps(_mm256_set1_ps(8.3334519073E-3f), r, _mm256_set1_ps(4.1665795894E-2f));
    __m256 a45 = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500E-4f), r, _mm256_set1_ps(1.3981999507E-3f));
    __m256 q = _mm256_fmadd_ps(a45, r4, _mm256_fmadd_ps(a23, r2, a01));
    __m256 e = _mm256_fmadd_ps(q, r2, _mm256_add_ps(r, one));
    /* 2^n as 2^n1 * 2^n2, n1 = n / 2: fx is in [-149, 0], each factor is normal */
    __m256i n = _mm256_cvtps_epi32(fx), n1 = _mm256_srai_epi32(n, 1), n2 = _mm256_sub_epi32(n, n1);
    __m256i b = _mm256_set1_epi32(127);
    e = _mm256_mul_ps(e, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, b), 23)));
    /* below -103, exp is 0 to float precision */
    e = _mm256_andnot_ps(_mm256_cmp_ps(hi, _mm256_set1_ps(-103.0f), _CMP_LT_OQ), e);
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, b), 23));
    __m256 h = _mm256_mul_ps(tg, e); /* erfc(z) / 2^n2 */
    /* x < 0: x * erfc / 2, the power 2^n2 last; x >= 0: x * (1 - erfc / 2), which keeps inf */
    __m256 neg = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(0.5f)), h), s2);
    __m256 pos = _mm256_mul_ps(x, _mm256_fnmadd_ps(_mm256_mul_ps(h, s2), _mm256_set1_ps(0.5f), one));
    return _mm256_blendv_ps(neg, pos, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
}

AVX2 static void gelu_avx2(float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) { /* two independent chains in flight */
        __m256 a = gelu8(_mm256_loadu_ps(x + i)), b = gelu8(_mm256_loadu_ps(x + i + 8));
        _mm256_storeu_ps(y + i, a);
        _mm256_storeu_ps(y + i + 8, b);
    }
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, gelu8(_mm256_loadu_ps(x + i)));
    if (i < n) {
        float in[8] = {0}, out[8];
        memcpy(in, x + i, (n - i) * sizeof *in);
        _mm256_storeu_ps(out, gelu8(_mm256_loadu_ps(in)));
        memcpy(y + i, out, (n - i) * sizeof *out);
    }
}

/* gelu for float16 results (float16 in and out, computed in float32): a
** float16 result holds 11 bits, so erfc(z) = t G(t) exp(-z^2) needs less
** than gelu8's: G of degree 4 fitted here (Lawson-weighted least squares in
** relative error, 1.0e-5 at worst) over |x| <= 6, t from the approximate
** reciprocal and one Newton step, exp(-z^2) with a degree-4 polynomial
** (5.3e-6) and no split argument. Past |x| = 6, gelu(x) is x (x > 0) or
** rounds to -0 (x < 0: |gelu| < 6e-9, under half the smallest float16
** subnormal), so erfc is taken as 0 there (and gelu(-inf) is NaN, the
** product -inf * 0, as in the float32 rows and the portable loop). Against the float32 kernel
** rounded to float16: every one of the 65536 inputs within 1 ulp
** (test-cpu-kernels). */
const float wnn__gelu_h[5] = {2.772648633e-01f, 3.309631050e-01f, 5.548358336e-02f, 5.304092169e-01f,
                              -1.941105574e-01f};
const float wnn__gelu_hq[3] = {5.000511408e-01f, 1.675351560e-01f, 4.127771780e-02f};

AVX2 static inline __m256 gelu8_half(__m256 x)
{
    const float *g = wnn__gelu_h, *q = wnn__gelu_hq;
    __m256 one = _mm256_set1_ps(1.0f), six = _mm256_set1_ps(6.0f);
    __m256 abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
    __m256 far = _mm256_cmp_ps(abs, six, _CMP_GT_OQ);
    __m256 ax = _mm256_min_ps(abs, six); /* NaN gives 6; the products keep x's NaN */
    __m256 d = _mm256_fmadd_ps(_mm256_set1_ps(0.35355339059327376f), ax, one);
    __m256 t = _mm256_rcp_ps(d);
    t = _mm256_fmadd_ps(t, _mm256_fnmadd_ps(d, t, one), t); /* one Newton step: 2^-22 */
    __m256 t2 = _mm256_mul_ps(t, t);
    __m256 g01 = _mm256_fmadd_ps(_mm256_set1_ps(g[1]), t, _mm256_set1_ps(g[0]));
    __m256 g23 = _mm256_fmadd_ps(_mm256_set1_ps(g[3]), t, _mm256_set1_ps(g[2]));
    __m256 tg = _mm256_mul_ps(t, _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(g[4]), t2, g23), t2, g01));
    /* exp(-ax^2 / 2) in [e^-18, 1]: 2^n of n in [-26, 0] is normal */
    __m256 e2 = _mm256_mul_ps(_mm256_mul_ps(ax, ax), _mm256_set1_ps(-0.5f));
    __m256 fx = _mm256_round_ps(_mm256_mul_ps(e2, _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693147181f), e2);
    __m256 r2 = _mm256_mul_ps(r, r);
    __m256 p = _mm256_fmadd_ps(_mm256_fmadd_ps(_mm256_set1_ps(q[2]), r, _mm256_set1_ps(q[1])), r,
                               _mm256_set1_ps(q[0]));
    __m256 e = _mm256_fmadd_ps(p, r2, _mm256_add_ps(r, one));
    __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(fx), _mm256_set1_epi32(127)), 23);
    __m256 half_h = _mm256_mul_ps(_mm256_mul_ps(tg, _mm256_set1_ps(0.5f)), _mm256_mul_ps(e, _mm256_castsi256_ps(bits)));
    half_h = _mm256_andnot_ps(far, half_h); /* past 6: x, or -0 (-inf * 0: NaN, as the portable loop) */
    __m256 pos = _mm256_mul_ps(x, _mm256_sub_ps(one, half_h)), neg = _mm256_mul_ps(x, half_h);
    return _mm256_blendv_ps(neg, pos, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
}

AVX2 static void gelu_half_avx2(uint16_t *y, const uint16_t *x, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) { /* two independent chains in flight */
        __m256 a = gelu8_half(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i))));
        __m256 b = gelu8_half(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i + 8))));
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(a, WNN_HALF_RN));
        _mm_storeu_si128((__m128i *)(y + i + 8), _mm256_cvtps_ph(b, WNN_HALF_RN));
    }
    for (; i < n; i += 8) {
        uint16_t in[8] = {0}, out[8];
        size_t m = n - i < 8 ? n - i : 8;
        memcpy(in, x + i, m * sizeof *in);
        _mm_storeu_si128((__m128i *)out, _mm256_cvtps_ph(gelu8_half(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)in))), WNN_HALF_RN));
        memcpy(y + i, out, m * sizeof *out);
    }
}

AVX2 static inline __m256 sigmoid8(__m256 x)
{
    __m256 e = wnn__exp8(_mm256_or_ps(x, _mm256_set1_ps(-0.0f))); /* exp(-|x|) */
    __m256 s = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    return _mm256_blendv_ps(_mm256_mul_ps(e, s), s, _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GE_OQ));
}

/* erf(x): x * T(x^2) (Taylor to x^13, below 2e-9 relative) under
** |x| = 0.5; above, sign(x) * (1 - erfc(|x|)), erfc(z) = t * exp(-z^2 +
** P(t)) with P(t) as gelu8's and z^2 split exactly. Past 4, 1. */
AVX2 static inline __m256 erf8(__m256 x)
{
    static const float c[10] = {-1.26551223f, 1.00002368f, 0.37409196f, 0.09678418f, -0.18628806f,
                                0.27886807f,  -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f};
    __m256 one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
    __m256 z = _mm256_andnot_ps(sign, x), xx = _mm256_mul_ps(x, x);
    __m256 s = _mm256_set1_ps(1.0f / 75600.0f);
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(-1.0f / 9360.0f));
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(1.0f / 1320.0f));
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(-1.0f / 216.0f));
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(1.0f / 42.0f));
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(-1.0f / 10.0f));
    s = _mm256_fmadd_ps(s, xx, _mm256_set1_ps(1.0f / 3.0f));
    s = _mm256_fnmadd_ps(s, xx, one);
    __m256 small = _mm256_mul_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.12837916709551257f)), s);
    __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(_mm256_set1_ps(0.5f), z, one));
    __m256 t2 = _mm256_mul_ps(t, t), t4 = _mm256_mul_ps(t2, t2), t8 = _mm256_mul_ps(t4, t4);
    __m256 p01 = _mm256_fmadd_ps(_mm256_set1_ps(c[1]), t, _mm256_set1_ps(c[0]));
    __m256 p23 = _mm256_fmadd_ps(_mm256_set1_ps(c[3]), t, _mm256_set1_ps(c[2]));
    __m256 p45 = _mm256_fmadd_ps(_mm256_set1_ps(c[5]), t, _mm256_set1_ps(c[4]));
    __m256 p67 = _mm256_fmadd_ps(_mm256_set1_ps(c[7]), t, _mm256_set1_ps(c[6]));
    __m256 p89 = _mm256_fmadd_ps(_mm256_set1_ps(c[9]), t, _mm256_set1_ps(c[8]));
    __m256 p03 = _mm256_fmadd_ps(p23, t2, p01), p47 = _mm256_fmadd_ps(p67, t2, p45);
    __m256 p = _mm256_fmadd_ps(p89, t8, _mm256_fmadd_ps(p47, t4, p03));
    __m256 xe = _mm256_fmsub_ps(x, x, xx);
    __m256 erfc = _mm256_mul_ps(t, wnn__exp8_2(_mm256_sub_ps(_mm256_setzero_ps(), xx), _mm256_sub_ps(p, xe)));
    /* min(1, v) returns v itself when it is NaN; past 4 (and for inf), 1 */
    __m256 big = _mm256_min_ps(one, _mm256_sub_ps(one, erfc));
    big = _mm256_blendv_ps(big, one, _mm256_cmp_ps(z, _mm256_set1_ps(4.0f), _CMP_GT_OQ));
    big = _mm256_or_ps(big, _mm256_and_ps(sign, x));
    return _mm256_blendv_ps(big, small, _mm256_cmp_ps(z, _mm256_set1_ps(0.5f), _CMP_LT_OQ));
}

/* y = F(x) eight at a time, the tail through a zero-padded vector; and
** the same for float16 rows, each vector widened and narrowed in the
** registers (the bits of the float32 row rounded once, without a block's
** round trip through memory). */
#define DEFINE_MAP8(NAME, F)                                                   \
    AVX2 static void NAME##_avx2(float *y, const float *x, size_t n)          \
    {                                                                          \
        size_t i = 0;                                                          \
        for (; i + 8 <= n; i += 8)                                             \
            _mm256_storeu_ps(y + i, F(_mm256_loadu_ps(x + i)));                \
        if (i < n) {                                                           \
            float in[8] = {0}, out[8];                                         \
            memcpy(in, x + i, (n - i) * sizeof *in);                           \
            _mm256_storeu_ps(out, F(_mm256_loadu_ps(in)));                     \
            memcpy(y + i, out, (n - i) * sizeof *out);                         \
        }                                                                      \
    }                                                                          \
    AVX2 static void NAME##_half_avx2(uint16_t *y, const uint16_t *x, size_t n) \
    {                                                                          \
        size_t i = 0;                                                          \
        for (; i + 8 <= n; i += 8)                                             \
            _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(F(wnn__load8(x, i, true)), WNN_HALF_RN)); \
        if (i < n) {                                                           \
            uint16_t in[8] = {0}, out[8];                                      \
            memcpy(in, x + i, (n - i) * sizeof *in);                           \
            _mm_storeu_si128((__m128i *)out, _mm256_cvtps_ph(F(wnn__load8(in, 0, true)), WNN_HALF_RN)); \
            memcpy(y + i, out, (n - i) * sizeof *out);                         \
        }                                                                      \
    }
DEFINE_MAP8(exp, wnn__exp8)
DEFINE_MAP8(sigmoid, sigmoid8)
DEFINE_MAP8(erf, erf8)

/* tanh's Taylor series after x: the coefficients of x^3, x^5, ..., x^17. */
const float wnn__tanh_t[8] = {-1.0f / 3, 2.0f / 15, -17.0f / 315, 62.0f / 2835, -1382.0f / 155925,
                              21844.0f / 6081075, -929569.0f / 638512875, 6404582.0f / 10854718875};

/* tanh(x): x + x^3 T(x^2) (wnn__tanh_t) below |x| = 0.4, where the series'
** next term is under 1e-10; above, sign(x) (1 - 2 / (exp(2|x|) + 1)), whose
** result is over 0.37 there, so the subtraction cancels little: a few ulp.
** Past 44, exp overflows and the result is 1; NaN stays NaN. */
AVX2 static inline __m256 tanh8(__m256 x)
{
    __m256 sign = _mm256_set1_ps(-0.0f), one = _mm256_set1_ps(1.0f);
    __m256 a = _mm256_andnot_ps(sign, x), xx = _mm256_mul_ps(x, x);
    __m256 p = _mm256_set1_ps(wnn__tanh_t[7]);
    for (int k = 6; k >= 0; k--)
        p = _mm256_fmadd_ps(p, xx, _mm256_set1_ps(wnn__tanh_t[k]));
    __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(a, xx), p, a);
    __m256 e = wnn__exp8(_mm256_add_ps(a, a));
    __m256 big = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
    /* both from |x|, then x's sign: -0 stays -0 */
    __m256 r = _mm256_blendv_ps(big, small, _mm256_cmp_ps(a, _mm256_set1_ps(0.4f), _CMP_LT_OQ));
    return _mm256_or_ps(r, _mm256_and_ps(sign, x));
}
DEFINE_MAP8(tanh, tanh8)

/* Cephes' logf polynomial: log(1 + f) = f - f^2 / 2 + f^3 P(f) for f in
** [sqrt(1/2) - 1, sqrt(2) - 1]. */
const float wnn__log_p[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                             -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                             2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};

/* log(x): x = m 2^e with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by
** 2^23 first), log(m) by wnn__log_p, e ln 2 added in two parts (Cephes'
** logf, about 1 ulp). 0 gives -inf, inf inf, below 0 and NaN NaN. */
AVX2 static inline __m256 log8(__m256 x)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
    __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(8388608.0f)), tiny);
    __m256i bits = _mm256_castps_si256(xs);
    __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(127));
    ei = _mm256_sub_epi32(ei, _mm256_and_si256(_mm256_castps_si256(tiny), _mm256_set1_epi32(23)));
    __m256 m = _mm256_castsi256_ps(
        _mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f800000)));
    __m256 big = _mm256_cmp_ps(m, _mm256_set1_ps(1.41421356f), _CMP_GT_OQ);
    m = _mm256_blendv_ps(m, _mm256_mul_ps(m, _mm256_set1_ps(0.5f)), big);
    __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(ei), _mm256_and_ps(big, one));
    __m256 f = _mm256_sub_ps(m, one), z = _mm256_mul_ps(f, f);
    __m256 p = _mm256_set1_ps(wnn__log_p[0]);
    for (int k = 1; k < 9; k++)
        p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(wnn__log_p[k]));
    __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, f), z);
    y = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), y);
    y = _mm256_fnmadd_ps(z, _mm256_set1_ps(0.5f), y);
    __m256 r = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), _mm256_add_ps(f, y));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(-INFINITY), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
    r = _mm256_blendv_ps(r, x, _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
    return _mm256_blendv_ps(r, _mm256_set1_ps(NAN), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NGE_UQ));
}
DEFINE_MAP8(log, log8)

/* elu: x where x >= 0 or NaN, else alpha * expm1(x), with expm1 as
** exp(x) - 1 below -0.5 (the result is under -0.39 there, so the
** subtraction cancels little) and Taylor's polynomial of degree 8 above,
** whose remainder is under 2^-24 of the result for |x| <= 0.5. */
AVX2 static inline __m256 elu8(__m256 x, __m256 alpha)
{
    __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
    __m256 t = _mm256_min_ps(x, zero); /* NaN gives 0 */
    __m256 p = _mm256_set1_ps(1.0f / 40320);
    static const float c[7] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f};
    for (int k = 0; k < 7; k++)
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(c[k]));
    p = _mm256_mul_ps(p, t);
    __m256 e = _mm256_sub_ps(wnn__exp8(t), one);
    __m256 em1 = _mm256_blendv_ps(p, e, _mm256_cmp_ps(t, _mm256_set1_ps(-0.5f), _CMP_LT_OQ));
    return _mm256_blendv_ps(_mm256_mul_ps(alpha, em1), x, _mm256_cmp_ps(x, zero, _CMP_NLT_UQ));
}

AVX2 static void elu_avx2(float *y, const float *x, size_t n, float alpha)
{
    __m256 a = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, elu8(_mm256_loadu_ps(x + i), a));
    if (i < n) {
        float in[8] = {0}, out[8];
        memcpy(in, x + i, (n - i) * sizeof *in);
        _mm256_storeu_ps(out, elu8(_mm256_loadu_ps(in), a));
        memcpy(y + i, out, (n - i) * sizeof *out);
    }
}

AVX2 static void elu_half_avx2(uint16_t *y, const uint16_t *x, size_t n, float alpha)
{
    __m256 a = _mm256_set1_ps(alpha);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(elu8(wnn__load8(x, i, true), a), WNN_HALF_RN));
    if (i < n) {
        uint16_t in[8] = {0}, out[8];
        memcpy(in, x + i, (n - i) * sizeof *in);
        _mm_storeu_si128((__m128i *)out, _mm256_cvtps_ph(elu8(wnn__load8(in, 0, true), a), WNN_HALF_RN));
        memcpy(y + i, out, (n - i) * sizeof *out);
    }
}

AVX2 static float max_avx2(const float *x, size_t n)
{
    if (n < 8)
        return max_c(x, n);
    __m256 m = _mm256_loadu_ps(x), nan = _mm256_setzero_ps();
    size_t i = 8;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        m = _mm256_max_ps(m, v);
    }
    float f[8];
    _mm256_storeu_ps(f, m);
    float r = max_c(f, 8);
    if (_mm256_movemask_ps(nan))
        return NAN;
    for (; i < n; i++)
        r = x[i] > r || x[i] != x[i] ? x[i] : r;
    return r;
}

AVX2 static float exp_sum_avx2(float *y, const float *x, float sub, size_t n)
{
    __m256 s = _mm256_setzero_ps(), b = _mm256_set1_ps(sub);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 e = wnn__exp8(_mm256_sub_ps(_mm256_loadu_ps(x + i), b));
        _mm256_storeu_ps(y + i, e);
        s = _mm256_add_ps(s, e);
    }
    if (i < n) {
        float in[8] = {0}, out[8];
        for (size_t k = 0; k < n - i; k++)
            in[k] = x[i + k] - sub;
        _mm256_storeu_ps(out, wnn__exp8(_mm256_loadu_ps(in)));
        for (size_t k = 0; k < n - i; k++) {
            y[i + k] = out[k];
            s = _mm256_add_ps(s, _mm256_setr_ps(out[k], 0, 0, 0, 0, 0, 0, 0));
        }
    }
    return wnn__hsum8(s);
}

AVX2 static void scale_avx2(float *y, float s, size_t n)
{
    __m256 v = _mm256_set1_ps(s);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_loadu_ps(y + i), v));
    for (; i < n; i++)
        y[i] *= s;
}

/* Float lanes, four accumulators (an add's latency is four of its
** issues), summed in double every 256 elements so long rows keep their
** precision; float16 rows are widened in the registers. */
AVX2 static double sum_avx2(const void *x, bool half, size_t n)
{
    double total = 0.0;
    size_t i = 0;
    while (i + 8 <= n) {
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        size_t stop = i + 256 < n ? i + 256 : n;
        for (; i + 32 <= stop; i += 32) {
            s0 = _mm256_add_ps(s0, wnn__load8(x, i, half));
            s1 = _mm256_add_ps(s1, wnn__load8(x, i + 8, half));
            s2 = _mm256_add_ps(s2, wnn__load8(x, i + 16, half));
            s3 = _mm256_add_ps(s3, wnn__load8(x, i + 24, half));
        }
        for (; i + 8 <= stop; i += 8)
            s0 = _mm256_add_ps(s0, wnn__load8(x, i, half));
        total += hsum8d(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    }
    _mm256_zeroupper(); /* see norm_avx2 */
    return total + sum_c(from(x, half, i), half, n - i);
}

AVX2 static double sq_dev_avx2(const void *x, bool half, float mean, size_t n)
{
    __m256 m = _mm256_set1_ps(mean);
    double total = 0.0;
    size_t i = 0;
    while (i + 8 <= n) {
        __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        size_t stop = i + 256 < n ? i + 256 : n;
        for (; i + 32 <= stop; i += 32) {
            __m256 d0 = _mm256_sub_ps(wnn__load8(x, i, half), m), d1 = _mm256_sub_ps(wnn__load8(x, i + 8, half), m);
            __m256 d2 = _mm256_sub_ps(wnn__load8(x, i + 16, half), m);
            __m256 d3 = _mm256_sub_ps(wnn__load8(x, i + 24, half), m);
            s0 = _mm256_fmadd_ps(d0, d0, s0);
            s1 = _mm256_fmadd_ps(d1, d1, s1);
            s2 = _mm256_fmadd_ps(d2, d2, s2);
            s3 = _mm256_fmadd_ps(d3, d3, s3);
        }
        for (; i + 8 <= stop; i += 8) {
            __m256 d = _mm256_sub_ps(wnn__load8(x, i, half), m);
            s0 = _mm256_fmadd_ps(d, d, s0);
        }
        total += hsum8d(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)));
    }
    _mm256_zeroupper(); /* see norm_avx2 */
    return total + sq_dev_c(from(x, half, i), half, mean, n - i);
}

AVX2 static void norm_avx2(void *y, const void *x, bool half, size_t n, float mean, float inv, const float *scale,
                           const float *bias)
{
    __m256 m = _mm256_set1_ps(mean), v = _mm256_set1_ps(inv), one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 t = _mm256_mul_ps(_mm256_sub_ps(wnn__load8(x, i, half), m), v);
        __m256 s = scale ? _mm256_loadu_ps(scale + i) : one, b = bias ? _mm256_loadu_ps(bias + i) : zero;
        __m256 r = _mm256_fmadd_ps(t, s, b);
        if (half)
            _mm_storeu_si128((__m128i *)((uint16_t *)y + i), _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        else
            _mm256_storeu_ps((float *)y + i, r);
    }
    size_t e = half ? 2 : 4; /* bytes per element */
    /* The tail is SSE code: with the upper halves of the ymm registers left
    ** dirty (GCC 12 puts no vzeroupper before this call, nor before the
    ** two above), each call cost about 280 ns on the project's 2-core
    ** machine, more than a 1024-float row's whole work (layerNormalization
    ** [2048,1024] on one thread: 3.70 -> 2.14 ms, PyTorch 2.9). */
    _mm256_zeroupper();
    norm_c((char *)y + i * e, (const char *)x + i * e, half, n - i, mean, inv, scale ? scale + i : NULL,
           bias ? bias + i : NULL);
}

bool wnn__cpu_has_avx2(void)
{
    static int known; /* 0: not asked yet, 1: no, 2: yes; races store the same value */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        /* CPUID leaf 1, ECX: bit 27 OSXSAVE, 28 AVX, 29 F16C (clang 14 knows
        ** no "f16c" for __builtin_cpu_supports) */
        unsigned a, b, c, d;
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __get_cpuid(1, &a, &b, &c, &d) &&
                    (c >> 27 & 7) == 7
                ? 2
                : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}
#define PICK(name, ...) (wnn__cpu_has_avx2() ? name##_avx2(__VA_ARGS__) : name##_c(__VA_ARGS__))
#else
#define PICK(name, ...) name##_c(__VA_ARGS__)
#endif

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

float wnn__vec_max(const float *x, size_t n) { return PICK(max, x, n); }

float wnn__vec_exp_sum(float *y, const float *x, float sub, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512())
        return wnn__exp_sum_avx512(y, x, sub, n);
#endif
    return PICK(exp_sum, y, x, sub, n);
}

void wnn__vec_scale(float *y, float s, size_t n) { PICK(scale, y, s, n); }

double wnn__vec_sum(const void *x, bool half, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        size_t done;
        double s = wnn__sum_avx512(x, half, n, &done);
        return s + sum_c(from(x, half, done), half, n - done);
    }
#endif
    return PICK(sum, x, half, n);
}

double wnn__vec_sq_dev(const void *x, bool half, float mean, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        size_t done;
        double s = wnn__sq_dev_avx512(x, half, mean, n, &done);
        return s + sq_dev_c(from(x, half, done), half, mean, n - done);
    }
#endif
    return PICK(sq_dev, x, half, mean, n);
}

void wnn__vec_exp(float *y, const float *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__exp_avx512(y, x, n);
        return;
    }
#endif
    PICK(exp, y, x, n);
}

void wnn__vec_erf(float *y, const float *x, size_t n) { PICK(erf, y, x, n); }

void wnn__vec_elu(float *y, const float *x, size_t n, float alpha) { PICK(elu, y, x, n, alpha); }

void wnn__vec_log(float *y, const float *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__log_avx512(y, x, n);
        return;
    }
#endif
    PICK(log, y, x, n);
}

void wnn__vec_tanh(float *y, const float *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__tanh_avx512(y, x, n);
        return;
    }
#endif
    PICK(tanh, y, x, n);
}

void wnn__vec_sigmoid(float *y, const float *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__sigmoid_avx512(y, x, n);
        return;
    }
#endif
    PICK(sigmoid, y, x, n);
}

void wnn__vec_gelu(float *y, const float *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__gelu_avx512(y, x, n);
        return;
    }
#endif
    PICK(gelu, y, x, n);
}

/* float16 rows: in the registers on AVX2 (DEFINE_MAP8's float16 forms);
** where AVX-512 gives the float32 entry other rows, or without AVX2, a
** block at a time through that entry. Either way the float32 entry's
** result, rounded once. */
static void half_blocks(void (*f)(float *, const float *, size_t), uint16_t *y, const uint16_t *x, size_t n)
{
    float block[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        wnn__half_to_float_n(block, x + i, m);
        f(block, block, m);
        wnn__float_to_half_n(y + i, block, m);
    }
}

#if WNN_CPU_X86
#define HALF_ROW(NAME)                                                         \
    (wnn__cpu_has_avx2() && !wnn__cpu_has_avx512() ? NAME##_half_avx2(y, x, n) \
                                                   : half_blocks(wnn__vec_##NAME, y, x, n))
#else
#define HALF_ROW(NAME) half_blocks(wnn__vec_##NAME, y, x, n)
#endif
void wnn__vec_exp_half(uint16_t *y, const uint16_t *x, size_t n) { HALF_ROW(exp); }
void wnn__vec_sigmoid_half(uint16_t *y, const uint16_t *x, size_t n) { HALF_ROW(sigmoid); }
void wnn__vec_erf_half(uint16_t *y, const uint16_t *x, size_t n) { HALF_ROW(erf); }
void wnn__vec_tanh_half(uint16_t *y, const uint16_t *x, size_t n) { HALF_ROW(tanh); }
void wnn__vec_log_half(uint16_t *y, const uint16_t *x, size_t n) { HALF_ROW(log); }

void wnn__vec_elu_half(uint16_t *y, const uint16_t *x, size_t n, float alpha)
{
    float block[512];
#if WNN_CPU_X86
    if (wnn__cpu_has_avx2()) {
        elu_half_avx2(y, x, n, alpha);
        return;
    }
#endif
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        wnn__half_to_float_n(block, x + i, m);
        elu_c(block, block, m, alpha);
        wnn__float_to_half_n(y + i, block, m);
    }
}

/* Without AVX2: the float32 rows a block at a time. */
static void gelu_half_c(uint16_t *y, const uint16_t *x, size_t n) { half_blocks(wnn__vec_gelu, y, x, n); }

void wnn__vec_gelu_half(uint16_t *y, const uint16_t *x, size_t n)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        wnn__gelu_half_avx512(y, x, n);
        return;
    }
#endif
    PICK(gelu_half, y, x, n);
}

void wnn__vec_norm(void *y, const void *x, bool half, size_t n, float mean, float inv, const float *scale,
                   const float *bias)
{
#if WNN_CPU_X86
    if (wnn__cpu_has_avx512()) {
        size_t i = wnn__norm_avx512(y, x, half, n, mean, inv, scale, bias), e = half ? 2 : 4;
        norm_c((char *)y + i * e, from(x, half, i), half, n - i, mean, inv, scale ? scale + i : NULL,
               bias ? bias + i : NULL);
        return;
    }
#endif
    PICK(norm, y, x, half, n, mean, inv, scale, bias);
}
