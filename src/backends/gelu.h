/* SPDX-License-Identifier: Apache-2.0 */
/*
** gelu.h -- the erf spelling of gelu, found for a backend to run as one
** kernel (gelu.c, compiled into each backend that uses it).
*/
#ifndef WNN_BACKENDS_GELU_H
#define WNN_BACKENDS_GELU_H

#include <stdbool.h>
#include <stdint.h>

#include "core/ir.h"

/* Finds x * 0.5 * (1 + erf(x / sqrt(2))) chains among the nodes not fused
** yet: sets fused[] for the nodes a chain skips and gelu_of[n] = x for the
** node n that computes the chain's result (WNN__NONE elsewhere, as the
** caller set it), and, when at is not NULL, at[k] = n for each node k the
** chain skips. output_of[v] >= 0 marks graph outputs. x must stay alive
** until node n: the caller's memory plan extends its last use. */
void wnn__gelu_find(const wnn__ir *ir, const int32_t *output_of, bool *fused, uint32_t *gelu_of, uint32_t *at);

#endif
