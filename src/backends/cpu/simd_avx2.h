/* SPDX-License-Identifier: Apache-2.0 */
/*
** simd_avx2.h -- inline AVX2 helpers shared by the cpu's SIMD files (vec.c,
** vec_reduce.c): eight-wide exp, float16 loads through F16C, horizontal
** sums, and the processor check.
**
** Every function carries its own target attribute, so the files that
** include this one are compiled for baseline x86-64 and call the AVX2 code
** only after wnn__cpu_has_avx2() said yes. Off x86-64 (or without GCC/Clang
** extensions) the header defines nothing but WNN_CPU_X86 0, and the callers
** keep their portable loops.
**
** exp8 is Cephes' expf: the argument is reduced by n * ln 2 (ln 2 split in
** two so the reduction is exact), a degree-6 polynomial gives exp of the
** rest, and 2^n is applied as two powers of two built in the exponent bits,
** so results fall gradually into the subnormal range; about 1 ulp. Below
** ln(2^-150) the result is 0, above ln(FLT_MAX) infinity; NaN stays NaN.
** exp8_2 takes its argument as an unevaluated sum hi + lo (|lo| a few
** units), for callers whose argument is larger than a float holds exactly.
*/
#ifndef WNN_BACKENDS_CPU_SIMD_AVX2_H
#define WNN_BACKENDS_CPU_SIMD_AVX2_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define WNN_CPU_X86 1
#include <immintrin.h>

#define WNN_AVX2        __attribute__((target("avx2,fma,f16c")))
#define WNN_AVX2_INLINE __attribute__((target("avx2,fma,f16c"), always_inline)) static inline

/* Whether the processor (and the OS) run AVX2, FMA and F16C; asked once. */
bool wnn__cpu_has_avx2(void);

/* Whether it runs AVX-512F as well, and vec_avx512.c's rows (the same
** contracts as vec.h's exp, sigmoid, tanh, log, gelu and exp_sum), to call only after
** a yes. */
bool wnn__cpu_has_avx512(void);
void wnn__exp_avx512(float *y, const float *x, size_t n);
void wnn__sigmoid_avx512(float *y, const float *x, size_t n);
void wnn__tanh_avx512(float *y, const float *x, size_t n);
void wnn__log_avx512(float *y, const float *x, size_t n);
void wnn__gelu_avx512(float *y, const float *x, size_t n);
void wnn__gelu_half_avx512(uint16_t *y, const uint16_t *x, size_t n);
/* layerNormalization's rows: each does the whole vectors of a row and says
** (done, or the return) how far it got; the caller finishes the rest. */
double wnn__sum_avx512(const void *x, bool half, size_t n, size_t *done);
double wnn__sq_dev_avx512(const void *x, bool half, float mean, size_t n, size_t *done);
size_t wnn__norm_avx512(void *y, const void *x, bool half, size_t n, float mean, float inv, const float *scale,
                        const float *bias);
/* gelu's polynomial G(t) (vec.c), shared by both widths; and the float16
** kernel's shorter G and exp polynomials. */
extern const float wnn__gelu_g[9];
/* tanh's series and logf's polynomial (vec.c), shared the same way. */
extern const float wnn__tanh_t[8], wnn__log_p[9];
extern const float wnn__gelu_h[5], wnn__gelu_hq[3];
float wnn__exp_sum_avx512(float *y, const float *x, float sub, size_t n);

/* The rounding immediate of the float16 conversions (round to nearest
** even, no exceptions): a macro, since the intrinsics need a constant
** expression even in unoptimized builds. */
#define WNN_HALF_RN (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

#define WNN_EXP_LO -103.972077f
#define WNN_EXP_HI 88.7228391f

/* exp(hi + lo), |lo| at most a few units: n comes from the rounded sum,
** hi - n * ln2's first part is exact and lo joins the reduced argument
** before ln2's second part, so only the reduced argument is rounded. */
WNN_AVX2_INLINE __m256 wnn__exp8_2(__m256 hi, __m256 lo)
{
    __m256 s = _mm256_add_ps(hi, lo);
    __m256 under = _mm256_cmp_ps(s, _mm256_set1_ps(WNN_EXP_LO), _CMP_LT_OQ);
    __m256 over = _mm256_cmp_ps(s, _mm256_set1_ps(WNN_EXP_HI), _CMP_GT_OQ);
    /* max(lo, x) and min(hi, x) return x itself when it is NaN */
    s = _mm256_min_ps(_mm256_set1_ps(WNN_EXP_HI), _mm256_max_ps(_mm256_set1_ps(WNN_EXP_LO), s));
    __m256 fx = _mm256_round_ps(_mm256_mul_ps(s, _mm256_set1_ps(1.44269504088896341f)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_add_ps(_mm256_fnmadd_ps(fx, _mm256_set1_ps(0.693359375f), hi), lo);
    r = _mm256_fnmadd_ps(fx, _mm256_set1_ps(-2.12194440e-4f), r);
    __m256 p = _mm256_set1_ps(1.9875691500E-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507E-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073E-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894E-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459E-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201E-1f));
    __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
    /* 2^n as 2^(n/2) * 2^(n - n/2): fx is in [-150, 128], each half is normal */
    __m256i n = _mm256_cvtps_epi32(fx), n1 = _mm256_srai_epi32(n, 1), n2 = _mm256_sub_epi32(n, n1);
    __m256i bias = _mm256_set1_epi32(127);
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23)));
    y = _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23)));
    return _mm256_blendv_ps(_mm256_andnot_ps(under, y), _mm256_set1_ps(INFINITY), over);
}

WNN_AVX2_INLINE __m256 wnn__exp8(__m256 x) { return wnn__exp8_2(x, _mm256_setzero_ps()); }

/* Eight elements from x + i: float32, or float16 widened. */
WNN_AVX2_INLINE __m256 wnn__load8(const void *x, size_t i, bool half)
{
    if (half)
        return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)((const uint16_t *)x + i)));
    return _mm256_loadu_ps((const float *)x + i);
}

/* The sum of the eight lanes, in float. */
WNN_AVX2_INLINE float wnn__hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* The sum of the four lanes, in double. */
WNN_AVX2_INLINE double wnn__hsum4d(__m256d v)
{
    __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}
#else
#define WNN_CPU_X86 0
#endif

#endif
