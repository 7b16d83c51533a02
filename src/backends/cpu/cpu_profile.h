/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_profile.h -- WNN_CPU_PROFILE: each operator's calls and time over the
** process, as the cpu graphs run them (a oneDNN convolution counts as
** conv2d with what it folded in), printed to stderr at exit, the costliest
** first.
*/
#ifndef WNN_BACKENDS_CPU_CPU_PROFILE_H
#define WNN_BACKENDS_CPU_CPU_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ir.h"

/* Rows beyond the operators' own (a row is a wnn__op or one of these). */
#define WNN__CPU_PROFILE_ATTENTION WNN__OP_COUNT     /* fused attention chains */
#define WNN__CPU_PROFILE_XNNPACK (WNN__OP_COUNT + 1) /* convolutions XNNPACK runs */
#define WNN__CPU_PROFILE_CHAIN (WNN__OP_COUNT + 2)   /* element-wise chains (ew_chain.h) */

/* Whether WNN_CPU_PROFILE is set; the first yes arranges the print at exit. */
bool wnn__cpu_profile_on(void);

/* A monotonic clock in nanoseconds, for wnn__cpu_profile_add's since. */
uint64_t wnn__cpu_profile_now(void);

/* One call of row, which started at since. Any thread. */
void wnn__cpu_profile_add(int row, uint64_t since);

#endif
