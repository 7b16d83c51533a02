/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec.h -- vectorized float32 row primitives shared by the cpu kernels
** (softmax, layerNormalization, gelu): SIMD where the processor has it, chosen at
** run time (vec.c).
*/
#ifndef WNN_BACKENDS_CPU_VEC_H
#define WNN_BACKENDS_CPU_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest of x[0..n) (n >= 1); NaN if any is NaN. */
float wnn__vec_max(const float *x, size_t n);

/* y[i] = exp(x[i] - sub) (about 1 ulp); returns the sum of the y[i]. y may
** be x. */
float wnn__vec_exp_sum(float *y, const float *x, float sub, size_t n);

/* y[i] = gelu(x[i]) = x[i] * Phi(x[i]), a few ulp (the portable path in
** double). y may be x. */
void wnn__vec_gelu(float *y, const float *x, size_t n);

/* The same for float16 in and out (computed in float32 to what a float16
** result holds: within 1 ulp of the float32 row rounded; y may be x). */
void wnn__vec_gelu_half(uint16_t *y, const uint16_t *x, size_t n);

/* y[i] = exp(x[i]) and y[i] = 1 / (1 + exp(-x[i])), about 1 and 2 ulp
** (sigmoid from exp(-|x|), so the negative side falls gradually to 0). y may
** be x. */
void wnn__vec_exp(float *y, const float *x, size_t n);
/* y[i] = erf(x[i]): a degree-13 Taylor polynomial below |x| = 0.5, else
** 1 - erfc(|x|) with erfc as in gelu; a few ulp. y may be x. */
void wnn__vec_erf(float *y, const float *x, size_t n);
void wnn__vec_sigmoid(float *y, const float *x, size_t n);
/* y[i] = x[i] where x[i] >= 0 (or NaN), else alpha * expm1(x[i]); a few
** ulp. y may be x. */
void wnn__vec_elu(float *y, const float *x, size_t n, float alpha);
/* y[i] = tanh(x[i]): Taylor's series below |x| = 0.4, 1 - 2 / (exp(2|x|) +
** 1) above; a few ulp (WebNN allows 16). y may be x. */
void wnn__vec_tanh(float *y, const float *x, size_t n);
/* y[i] = log(x[i]): Cephes' logf on vectors, about 1 ulp; subnormals, 0,
** inf, negatives and NaN as logf has them. y may be x. */
void wnn__vec_log(float *y, const float *x, size_t n);

/* The same maps on float16 rows (computed in float32: the float32 entry's
** result rounded once). y may be x. */
void wnn__vec_exp_half(uint16_t *y, const uint16_t *x, size_t n);
void wnn__vec_sigmoid_half(uint16_t *y, const uint16_t *x, size_t n);
void wnn__vec_erf_half(uint16_t *y, const uint16_t *x, size_t n);
void wnn__vec_tanh_half(uint16_t *y, const uint16_t *x, size_t n);
void wnn__vec_log_half(uint16_t *y, const uint16_t *x, size_t n);
void wnn__vec_elu_half(uint16_t *y, const uint16_t *x, size_t n, float alpha);

/* y[i] *= s. */
void wnn__vec_scale(float *y, float s, size_t n);

/* The sum of x[i], and of (x[i] - mean)^2, over a row of float32 or (half)
** float16, computed in float32 lanes summed in double. */
double wnn__vec_sum(const void *x, bool half, size_t n);
double wnn__vec_sq_dev(const void *x, bool half, float mean, size_t n);

/* y[i] = (x[i] - mean) * inv * scale[i] + bias[i], x and y both float32 or
** both float16 (computed in float32, rounded once); scale or bias NULL: 1
** or 0. y may be x. */
void wnn__vec_norm(void *y, const void *x, bool half, size_t n, float mean, float inv, const float *scale,
                   const float *bias);

#endif
