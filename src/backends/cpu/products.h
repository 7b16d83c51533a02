/* SPDX-License-Identifier: Apache-2.0 */
/*
** products.h -- what the cpu graph (cpu_graph.c) knows of its products.
*/
#ifndef WNN_BACKENDS_CPU_PRODUCTS_H
#define WNN_BACKENDS_CPU_PRODUCTS_H

#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/kernels.h"
#include "core/ir.h"

/* The multiply-adds of a matmul, gemm, conv2d or convTranspose2d node, 0 for
** other nodes (the work estimate of cpu_graph.c's caller-alone rule). */
uint64_t wnn__cpu_node_macs(const wnn__ir *ir, const wnn__node *node);

/* The row length in floats of the padded copy of node's B (kernels.h,
** wnn__padded_b) where node should multiply from one: a matmul or gemm (B
** not transposed) whose B is a constant float32 [K, N] with N a multiple of
** 512, times two rows of A or more, and WNN_CPU_PAD_B not 0; else 0. */
size_t wnn__cpu_pad_ld(const wnn__ir *ir, const wnn__node *node);

/* Makes p's copy (p->ld set) from B's view b; where it cannot be allocated,
** sets p->ld to 0 instead, and the node reads B as it is. */
void wnn__cpu_pad_make(wnn__padded_b *p, const wnn__view *b);

#endif
