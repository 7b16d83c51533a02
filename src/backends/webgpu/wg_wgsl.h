/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl.h -- WGSL generation for one graph node.
**
** Every buffer is an array<u32>: elements narrower than a word (float16,
** int8, uint8) are packed, so a kernel works in output words: invocation w
** computes the 4/size elements of word w and stores the word whole (no two
** invocations write one word). float16 is unpacked to f32 and packed back
** (unpack2x16float, with overflow to infinity done by hand), int8/uint8 are
** computed as i32/u32. Shapes and strides are baked into the text (a
** pipeline serves one node shape; identical texts share one pipeline); float
** attributes come from a small parameter buffer, because WGSL constant
** expressions may not hold infinities.
*/
#ifndef WNN_BACKENDS_WEBGPU_WG_WGSL_H
#define WNN_BACKENDS_WEBGPU_WG_WGSL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ir.h"

#define WG_WORKGROUP 256

typedef struct wg_text {
    char *s;
    size_t n, cap;
    bool failed; /* out of memory */
} wg_text;

void wg_text_printf(wg_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One kernel of a node: bindings are the output (0), inputs 1..n_in, and
** the parameters (n_in + 1) when uses_params. */
typedef struct wg_kernel {
    wg_text text;
    uint32_t n_in;
    uint32_t in_values[4]; /* value ids bound to 1..n_in */
    bool uses_params;
    float params[8];
    uint32_t n_params;
    uint64_t words; /* output words, one invocation each */
} wg_kernel;

/* Kernels for node n (concat makes one per input, others one); returns the
** count, 0 when the node has no kernel (why says which rule). kernels has
** room for max entries. */
uint32_t wg_wgsl_node(const wnn__ir *ir, const wnn__node *n, wg_kernel *kernels, uint32_t max, char *why,
                      size_t why_len);

#endif
