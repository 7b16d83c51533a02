/* SPDX-License-Identifier: Apache-2.0 */
/*
** ew_chain.h -- runs of element-wise operators computed in one pass.
**
** A chain is a run of float element-wise nodes (the binary arithmetic
** operators, the unary ones, clamp and the activations of k_math.c), each
** reading the one before as its only reader, every value of the run of one
** shape, and none of the values between them a graph output. The chain
** runs at its last node, a block of rows at a time: each node's own kernel
** runs over the block in place in the chain's output, so the values between
** never reach memory beyond the cache, and one parallel region replaces one
** per node. The result is the same, bit for bit, as running the nodes one
** after the other: each element goes through the same kernels. Every value
** of a chain has one type, float32 or float16 (a float16 graph computed in
** float32 has float32 chains). A float16 chain keeps its block in float32:
** the other operands widened, each node's float32 kernel, its result rounded
** to float16 in place (what the node's float16 kernel returns; gelu, whose
** float16 kernel is a form of its own, runs that one), the last narrowed
** into the output.
**
** The other operands of the chain's nodes (its inputs) broadcast to the
** output's shape; the output is split at the axis before which each of them
** is either the output's own dimensions or all 1s, so that a block of rows
** reads a block of rows of each, or the same one.
*/
#ifndef WNN_BACKENDS_CPU_EW_CHAIN_H
#define WNN_BACKENDS_CPU_EW_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/cpu/kernels.h"

#define WNN__CHAIN_MAX 16 /* nodes a chain */

typedef struct wnn__ew_chain {
    uint32_t nodes[WNN__CHAIN_MAX]; /* in order; the last writes out */
    uint32_t n_nodes;
    uint32_t out;  /* the value the chain computes */
    uint32_t axis; /* the output's dimensions before it are rows */
    size_t rows;   /* product of the dimensions before axis */
    size_t inner;  /* elements a row */
} wnn__ew_chain;

/* Finds the chains of ir among the nodes that are not fused[] yet, their
** values' types as views[] has them (a promoted graph's float16 values are
** float32 there).
** eligible[n] false keeps node n out (the caller's other fusions). For each
** chain, fused[] marks every node but the last, and at[last] is the chain's
** index in *out (an array of *count, which the caller frees; NULL when
** none). output_of[v] >= 0 marks graph outputs. WNN_STATUS_OUT_OF_MEMORY or
** WNN_OK. */
wnn_status wnn__ew_chain_find(const wnn__ir *ir, const wnn__view *views, const int32_t *output_of,
                              const bool *eligible, bool *fused, uint32_t *at, wnn__ew_chain **out,
                              uint32_t *count);

/* Whether node `to`, reading node `from`'s result, may follow it in a chain:
** both fit one (as views[] has their types) and their results have one
** shape. Whether it does depends also on the value's other readers and the
** chain's length and rows (wnn__ew_chain_find). */
bool wnn__ew_chain_may_link(const wnn__ir *ir, const wnn__view *views, uint32_t from, uint32_t to);

/* The values chain c reads (its nodes' operands from outside it), at most
** max of them, into v; returns how many. They must stay alive until the
** chain's last node. */
uint32_t wnn__ew_chain_reads(const wnn__ir *ir, const wnn__ew_chain *c, uint32_t *v, uint32_t max);

/* Runs chain c over views[] (indexed by value id). */
wnn_status wnn__k_ew_chain(const wnn__ir *ir, const wnn__ew_chain *c, const wnn__view *views);

#endif
