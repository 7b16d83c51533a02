/* SPDX-License-Identifier: Apache-2.0 */
/*
** half_simd.h -- float16 <-> float32 conversion of whole arrays for the cpu
** kernels: F16C where the processor has it (chosen at run time), else the
** portable conversions of core/half.h. Both round to nearest, ties to even.
** Long arrays are converted on the worker pool.
*/
#ifndef WNN_BACKENDS_CPU_HALF_SIMD_H
#define WNN_BACKENDS_CPU_HALF_SIMD_H

#include <stddef.h>
#include <stdint.h>

void wnn__half_to_float_n(float *dst, const uint16_t *src, size_t n);
void wnn__float_to_half_n(uint16_t *dst, const float *src, size_t n);

/* v[i] = the float16 nearest v[i], as float32 (narrowed and widened), on
** the calling thread: for blocks already in the cache. */
void wnn__round_to_half_n(float *v, size_t n);

#endif
