/* SPDX-License-Identifier: Apache-2.0 */
/*
** vec_reduce.h -- the float folds of the reductions and arg-reductions on
** AVX2 (float32, or float16 widened by F16C), for k_reduce.c and k_scan.c.
**
** A fold reads elements and updates accumulators the caller keeps between
** calls: sums in double (as the portable loops do), maxima and minima as
** values that stay NaN once a NaN is met. Every entry point returns false,
** having done nothing, where the processor lacks AVX2, FMA or F16C (or the
** build is not for x86-64): the caller then runs its portable loop, which
** stays the reference.
*/
#ifndef WNN_BACKENDS_CPU_VEC_REDUCE_H
#define WNN_BACKENDS_CPU_VEC_REDUCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum wnn__fold {
    WNN__FOLD_SUM,    /* acc += x */
    WNN__FOLD_L1,     /* acc += |x| */
    WNN__FOLD_SUMSQ,  /* acc += x * x */
    WNN__FOLD_MAX,    /* acc = max(acc, x) */
    WNN__FOLD_MIN,    /* acc = min(acc, x) */
    WNN__FOLD_EXP_SUM /* acc += exp(x - sub) */
} wnn__fold;

/* Folds n contiguous elements of x into *acc (sub: EXP_SUM's offset). */
bool wnn__fold_lane(wnn__fold f, bool half, const void *x, size_t n, float sub, double *acc);

/* The same for lanes lanes of n contiguous elements each, lane i starting
** i * stride elements into x and folding into acc[i]: one call for many short
** lanes (no sub: not for EXP_SUM). */
bool wnn__fold_lanes(wnn__fold f, bool half, const void *x, size_t lanes, size_t n, size_t stride, double *acc);

/* Folds rows of cols adjacent elements, the rows stride elements apart,
** column by column: acc[c] takes x[r * stride + c] for every r < rows
** (sub[c]: EXP_SUM's offset of column c, else unused). cols is a multiple
** of 8. */
bool wnn__fold_rows(wnn__fold f, bool half, const void *x, size_t rows, size_t stride, size_t cols, const float *sub,
                    double *acc);

/* argMax (is_max) or argMin of n contiguous elements into *index: the first
** best one. False also when an element is NaN (the portable loop decides
** those) or n is 2^31 or more. */
bool wnn__arg_lane(bool is_max, bool half, const void *x, size_t n, int64_t *index);

/* The same for cols adjacent columns (a multiple of 8) of rows rows, stride
** elements apart: index[c] is the row of column c's first best element. */
bool wnn__arg_rows(bool is_max, bool half, const void *x, size_t rows, size_t stride, size_t cols, int64_t *index);

#endif
