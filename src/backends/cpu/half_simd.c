/* SPDX-License-Identifier: Apache-2.0 */
/*
** half_simd.c -- array conversions between float16 and float32.
**
** The F16C loops are compiled for that extension alone (a target attribute)
** and picked once by a processor check, so the library still runs on x86-64
** processors without it and builds on other architectures.
*/
#include "backends/cpu/half_simd.h"

#include <stdbool.h>

#include "core/half.h"
#include "platform/pool.h"

/* Arrays at least this long are converted on the worker pool, in ranges of
** PARALLEL_GRAIN elements (whole tensors staged for oneDNN, a promoted
** graph's inputs and outputs); a call from inside a pool range runs inline. */
#define PARALLEL_MIN ((size_t)1 << 16)
#define PARALLEL_GRAIN ((size_t)1 << 15)

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

__attribute__((target("avx,f16c"))) static void widen_f16c(float *dst, const uint16_t *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++)
        dst[i] = wnn__half_to_float(src[i]);
}

__attribute__((target("avx,f16c"))) static void narrow_f16c(uint16_t *dst, const float *src, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < n; i++)
        dst[i] = wnn__float_to_half(src[i]);
}

__attribute__((target("avx,f16c"))) static void round_f16c(float *v, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(v + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(v + i),
                                                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    for (; i < n; i++)
        v[i] = wnn__half_to_float(wnn__float_to_half(v[i]));
}

static int has_f16c(void)
{
    static int known; /* 0: not asked yet, 1: no, 2: yes; races store the same value */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        /* CPUID leaf 1: ECX bit 27 OSXSAVE, 28 AVX, 29 F16C (clang 14 knows no
        ** "f16c" for __builtin_cpu_supports) */
        unsigned a, b, c, d;
        k = __get_cpuid(1, &a, &b, &c, &d) && (c >> 27 & 7) == 7 ? 2 : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}
#else
static int has_f16c(void) { return 0; }
#define widen_f16c(d, s, n) ((void)0)
#define narrow_f16c(d, s, n) ((void)0)
#define round_f16c(v, n) ((void)0)
#endif

static void widen(float *dst, const uint16_t *src, size_t n)
{
    if (has_f16c()) {
        widen_f16c(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = wnn__half_to_float(src[i]);
}

static void narrow(uint16_t *dst, const float *src, size_t n)
{
    if (has_f16c()) {
        narrow_f16c(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = wnn__float_to_half(src[i]);
}

typedef struct convert_job {
    void *dst;
    const void *src;
    bool to_float;
} convert_job;

static void convert_range(void *arg, size_t begin, size_t end)
{
    const convert_job *j = arg;
    if (j->to_float)
        widen((float *)j->dst + begin, (const uint16_t *)j->src + begin, end - begin);
    else
        narrow((uint16_t *)j->dst + begin, (const float *)j->src + begin, end - begin);
}

void wnn__half_to_float_n(float *dst, const uint16_t *src, size_t n)
{
    convert_job j = {dst, src, true};
    if (n >= PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, convert_range, &j);
    else
        widen(dst, src, n);
}

void wnn__float_to_half_n(uint16_t *dst, const float *src, size_t n)
{
    convert_job j = {dst, src, false};
    if (n >= PARALLEL_MIN)
        wnn__parallel_for(n, PARALLEL_GRAIN, convert_range, &j);
    else
        narrow(dst, src, n);
}

void wnn__round_to_half_n(float *v, size_t n)
{
    if (has_f16c()) {
        round_f16c(v, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = wnn__half_to_float(wnn__float_to_half(v[i]));
}
