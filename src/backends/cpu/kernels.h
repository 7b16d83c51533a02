/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels.h -- the portable C kernels of the cpu backend.
**
** A kernel computes one node from views of its inputs into views of its
** outputs. Shapes and types were validated and inferred by the builder, so a
** kernel trusts its node; it only fails for conditions found at run time
** (out of memory). The null backend runs the same kernels on its own copies.
*/
#ifndef WNN_BACKENDS_CPU_KERNELS_H
#define WNN_BACKENDS_CPU_KERNELS_H

#include "core/ir.h"

typedef struct wnn__view {
    wnn_operand_desc desc;
    void *data; /* NULL for an absent optional input */
} wnn__view;

typedef wnn_status (*wnn__cpu_kernel)(const wnn__node *node, const wnn__view *in, const wnn__view *out);

/* The kernel of op, or NULL if the cpu backend has none. */
wnn__cpu_kernel wnn__cpu_kernel_for(wnn__op op);

/* Whether op's kernel reads and writes int4/uint4 as packed nibbles. Every
** other kernel sizes elements with wnn_data_type_size(), one byte or more,
** so a node with a 4-bit operand is refused at compile unless this holds:
** a builder rule that let one through can never become an overflow. */
bool wnn__cpu_kernel_packs_4bit(wnn__op op);

/* Element count of a view (1 for a scalar). */
size_t wnn__view_count(const wnn__view *v);

#endif
