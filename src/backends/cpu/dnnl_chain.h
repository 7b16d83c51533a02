/* SPDX-License-Identifier: Apache-2.0 */
/*
** dnnl_chain.h -- which nodes after a conv2d fold into it on the cpu
** backend's oneDNN path (dnnl.c), read from the IR: the chain of
** batchNormalization, residual add and activations, as oneDNN post-ops,
** and the filter with what folds into it. XNNPACK's path (xnnpack.h) reads
** the same chain. Only where oneDNN's headers are (WNN_HAVE_DNNL, dnnl.h).
*/
#ifndef WNN_BACKENDS_CPU_DNNL_CHAIN_H
#define WNN_BACKENDS_CPU_DNNL_CHAIN_H

#include "backends/cpu/dnnl.h"

#ifdef WNN_HAVE_DNNL

#include <oneapi/dnnl/dnnl.h>

/* At most this many nodes fold into one convolution, and this many post-ops
** (a sum and the activations) follow it. */
#define MAX_FUSED 8
#define MAX_POST  6

typedef struct wnn__dnnl_post_op {
    bool sum;            /* oneDNN's sum post-op, else an eltwise one */
    dnnl_alg_kind_t alg; /* eltwise */
    float alpha, beta;
} wnn__dnnl_post_op;

typedef struct wnn__dnnl_chain {
    uint32_t bn_node;          /* UINT32_MAX: none */
    uint32_t res;              /* the add's other operand, or WNN__NONE */
    uint32_t out;              /* the value the chain ends with */
    uint32_t nodes[MAX_FUSED]; /* the nodes it computes, the convolution's own aside */
    uint32_t n_nodes;
    wnn__dnnl_post_op ops[MAX_POST];
    uint32_t n_ops;
    double pre_alpha, pre_beta; /* a linear step folded into the filter and bias */
} wnn__dnnl_chain;

/* The nodes after convolution n of ir that fold into it: one
** batchNormalization first, one residual add before any activation, then
** activations, while each is the only reader of the one before and none is a
** graph output (uses[v]: the node inputs that read value v). */
wnn__dnnl_chain wnn__dnnl_follow(const wnn__ir *ir, uint32_t n, const uint32_t *uses, const bool *is_output);

/* Whether value v is a constant of the graph. */
bool wnn__dnnl_is_constant(const wnn__ir *ir, uint32_t v);

/* Where o, i, h, w sit in the filter's shape of conv (a conv2d or a
** convTranspose2d), per its WebNN layout. A conv2d filter's o axis holds all
** output channels and its i axis a group's input channels; a convTranspose2d
** filter's i axis holds all input channels and its o axis a group's outputs. */
void wnn__dnnl_filter_axes(const wnn__node *conv, int ax[4]);

/* The filter as float32 with the batchNormalization scale and the chain's
** leading linear step folded in, [o][i][kh][kw] (or, ohwi, [o][kh][kw][i])
** over all o output channels and a group's i input channels (what oneDNN
** calls goihw: a convTranspose2d's filter is regrouped into it), and its
** bias into bias (o floats); NULL when out of memory. */
float *wnn__dnnl_folded_filter(const wnn__ir *ir, const wnn__node *conv, const wnn__dnnl_chain *c, bool ohwi,
                               float *bias);

#endif
#endif
