/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec_libm.h -- float32 rows of the math functions whose scalar libm loops
** were the cpu kernels' slowest: sin, cos, tan and log1p
** through SLEEF's vector functions (1.0 ulp), sqrt and 1/x through the
** processor's own vector instructions (correctly rounded).
**
** SLEEF (Debian's libsleef3) is opened at run time, like oneDNN, so nothing
** links it. Where it is missing, wnn__libm_row() says no for its functions;
** where the processor lacks AVX2 and FMA, or WNN_CPU_SLEEF=0 is set, for
** every function; the caller then keeps its scalar loop. Eight lanes with
** AVX2, sixteen with AVX-512 (unless WNN_CPU_AVX512=0).
*/
#ifndef WNN_BACKENDS_CPU_VEC_LIBM_H
#define WNN_BACKENDS_CPU_VEC_LIBM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum wnn__libm_fn {
    WNN__LIBM_SIN,
    WNN__LIBM_COS,
    WNN__LIBM_TAN,
    WNN__LIBM_LOG1P,
    WNN__LIBM_SQRT,       /* no SLEEF needed, AVX2 only */
    WNN__LIBM_RECIPROCAL, /* the same */
    WNN__LIBM_COUNT
} wnn__libm_fn;

/* y[i] = fn(x[i]) for i < n (y may be x) and true, or false, touching
** nothing, where the vector row is not available. */
bool wnn__libm_row(wnn__libm_fn fn, float *y, const float *x, size_t n);

/* The same for float16 in and out, a block at a time through the float32
** row (the result rounded once more, to float16). */
bool wnn__libm_row_half(wnn__libm_fn fn, uint16_t *y, const uint16_t *x, size_t n);

#endif
