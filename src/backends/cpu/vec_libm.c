/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec_libm.c -- vector rows of sin, cos, tan, log1p (SLEEF),
** sqrt and 1/x (see vec_libm.h).
**
** SLEEF's functions take and return a vector in registers (__m256 or
** __m512); they are called through pointers found with dlsym, from
** functions compiled for AVX2 (or AVX-512F), and only after the processor
** check said yes. A row's tail goes through the same function in a padded
** vector, so every element gets the same function.
*/
#include "backends/cpu/vec_libm.h"

#include "backends/cpu/half_simd.h"
#include "backends/cpu/simd_avx2.h"
#include "platform/config.h"

#if WNN_CPU_X86

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef __m256 (*sleef8)(__m256);
typedef __m512 (*sleef16)(__m512);

/* SLEEF's names, without the width and the variant. */
static const char *const names[WNN__LIBM_SQRT] = {
    [WNN__LIBM_SIN] = "sin",     [WNN__LIBM_COS] = "cos",
    [WNN__LIBM_TAN] = "tan",   [WNN__LIBM_LOG1P] = "log1p",
};

static struct {
    pthread_once_t once;
    bool avx2;                     /* AVX2 and FMA: sqrt and 1/x rows */
    sleef8 f8[WNN__LIBM_SQRT];     /* NULL where SLEEF is absent */
    sleef16 f16[WNN__LIBM_SQRT];   /* NULL without AVX-512 */
} L = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    if (!wnn__cpu_has_avx2() || !wnn__config_get()->cpu_sleef)
        return;
    L.avx2 = true;
    /* the handle stays open for the process */
    void *h = dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    bool wide = wnn__cpu_has_avx512();
    for (int f = 0; f < WNN__LIBM_SQRT; f++) {
        char sym[64];
        snprintf(sym, sizeof sym, "Sleef_%sf8_u10avx2", names[f]);
        *(void **)&L.f8[f] = dlsym(h, sym);
        snprintf(sym, sizeof sym, "Sleef_%sf16_u10avx512f", names[f]);
        if (wide)
            *(void **)&L.f16[f] = dlsym(h, sym);
    }
}

WNN_AVX2 static void row8(sleef8 f, float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, f(_mm256_loadu_ps(x + i)));
    if (i < n) {
        float t[8] = {0};
        memcpy(t, x + i, (n - i) * sizeof *t);
        _mm256_storeu_ps(t, f(_mm256_loadu_ps(t)));
        memcpy(y + i, t, (n - i) * sizeof *t);
    }
}

__attribute__((target("avx512f"))) static void row16(sleef16 f, float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(y + i, f(_mm512_loadu_ps(x + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        /* the lanes past the end hold 0, a value every function takes */
        _mm512_mask_storeu_ps(y + i, m, f(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

/* sqrt and 1/x are IEEE operations: the same bits as the scalar ones. */
WNN_AVX2 static void sqrt_row(float *y, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_sqrt_ps(_mm256_loadu_ps(x + i)));
    for (; i < n; i++)
        y[i] = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(x[i])));
}

WNN_AVX2 static void reciprocal_row(float *y, const float *x, size_t n)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_div_ps(one, _mm256_loadu_ps(x + i)));
    for (; i < n; i++)
        y[i] = 1.0f / x[i];
}

bool wnn__libm_row(wnn__libm_fn fn, float *y, const float *x, size_t n)
{
    pthread_once(&L.once, load);
    if (!L.avx2 || (unsigned)fn >= WNN__LIBM_COUNT)
        return false;
    if (fn == WNN__LIBM_SQRT) {
        sqrt_row(y, x, n);
        return true;
    }
    if (fn == WNN__LIBM_RECIPROCAL) {
        reciprocal_row(y, x, n);
        return true;
    }
    if (L.f16[fn]) {
        row16(L.f16[fn], y, x, n);
        return true;
    }
    if (L.f8[fn]) {
        row8(L.f8[fn], y, x, n);
        return true;
    }
    return false;
}

/* float16 sqrt and 1/x eight at a time in the registers (widen, the float32
** operation, narrow: the bits the block path gives), the tail by that path;
** the block's round trip through memory cost as much as the square roots. */
WNN_AVX2 static size_t ieee_row_half(wnn__libm_fn fn, uint16_t *y, const uint16_t *x, size_t n)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
        v = fn == WNN__LIBM_SQRT ? _mm256_sqrt_ps(v) : _mm256_div_ps(one, v);
        _mm_storeu_si128((__m128i *)(y + i), _mm256_cvtps_ph(v, WNN_HALF_RN));
    }
    _mm256_zeroupper(); /* the caller's tail is SSE code */
    return i;
}

bool wnn__libm_row_half(wnn__libm_fn fn, uint16_t *y, const uint16_t *x, size_t n)
{
    if (!wnn__libm_row(fn, NULL, NULL, 0))
        return false;
    if (fn == WNN__LIBM_SQRT || fn == WNN__LIBM_RECIPROCAL) {
        size_t done = ieee_row_half(fn, y, x, n);
        y += done, x += done, n -= done;
    }
    float block[512];
    for (size_t i = 0; i < n; i += 512) {
        size_t m = n - i < 512 ? n - i : 512;
        wnn__half_to_float_n(block, x + i, m);
        wnn__libm_row(fn, block, block, m);
        wnn__float_to_half_n(y + i, block, m);
    }
    return true;
}

#else /* not x86-64 with GCC or Clang: the scalar loops */

bool wnn__libm_row(wnn__libm_fn fn, float *y, const float *x, size_t n)
{
    (void)fn, (void)y, (void)x, (void)n;
    return false;
}

bool wnn__libm_row_half(wnn__libm_fn fn, uint16_t *y, const uint16_t *x, size_t n)
{
    (void)fn, (void)y, (void)x, (void)n;
    return false;
}

#endif
