/* SPDX-License-Identifier: Apache-2.0 */
/*
** xnnpack.h -- float32 nhwc convolutions through XNNPACK, for the cpu
** backend's oneDNN path (dnnl.c) to hand the convolutions XNNPACK runs
** faster: batch-1 ones on many threads, where oneDNN 2.6's kernels split
** their work poorly.
**
** XNNPACK (Debian's libxnnpack0) is loaded with dlopen the first time a graph
** asks for it, like oneDNN, so nothing links it. It is used only where
** WNN_CPU_XNNPACK=1 asks (docs/backends.md says why it is off by default);
** where it or its headers are missing, every convolution stays on oneDNN.
** A convolution is cut into pieces, each an XNNPACK operator run without
** XNNPACK's own threadpool, and the pieces run on the cpu device's pool
** (wnn__parallel_for): one set of threads for oneDNN, XNNPACK and wnn's own
** loops. The cut is made for the pool's thread count when the graph is built.
*/
#ifndef WNN_BACKENDS_CPU_XNNPACK_H
#define WNN_BACKENDS_CPU_XNNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wnn/wnn.h"

typedef struct wnn__xnn_conv wnn__xnn_conv;

/* A step of the chain after the convolution, in order: the residual add
** (SUM) or an activation of alpha and beta (oneDNN's eltwise meanings). */
typedef enum wnn__xnn_step_kind {
    WNN__XNN_SUM,        /* + res */
    WNN__XNN_RELU,       /* x >= 0 ? x : alpha x */
    WNN__XNN_LINEAR,     /* alpha x + beta */
    WNN__XNN_CLIP,       /* min(max(x, alpha), beta) */
    WNN__XNN_SIGMOID,    /* 1 / (1 + e^-x) */
    WNN__XNN_TANH,       /* tanh x */
    WNN__XNN_HARD_SWISH, /* x min(max(x + 3, 0), 6) / 6 */
    WNN__XNN_ELU,        /* x >= 0 ? x : alpha (e^x - 1) */
    WNN__XNN_SWISH       /* x sigmoid(alpha x) */
} wnn__xnn_step_kind;

typedef struct wnn__xnn_step {
    wnn__xnn_step_kind kind;
    float alpha, beta;
} wnn__xnn_step;

#define WNN__XNN_MAX_STEPS 8

/* One convolution over nhwc float32 tensors: y = steps(clamp(conv(x) + bias,
** lo, hi)). XNNPACK computes the clamp; the steps run over each piece of
** the result after it (xnnpack.c). */
typedef struct wnn__xnn_conv_desc {
    uint32_t n, h, w, c; /* input */
    uint32_t oh, ow, oc; /* output */
    uint32_t kh, kw, groups;
    uint32_t pad[4]; /* top, bottom, left, right (WebNN's order) */
    uint32_t stride[2], dilation[2];
    float lo, hi; /* the convolution's own clamp (-inf, inf: none) */
    wnn__xnn_step steps[WNN__XNN_MAX_STEPS];
    uint32_t n_steps; /* at most one of them SUM */
} wnn__xnn_conv_desc;

/* Whether XNNPACK is loaded (and WNN_CPU_XNNPACK is not 0). */
bool wnn__xnn_available(void);

/* Creates the convolution; filter is [oc][kh][kw][c / groups] (ohwi) and bias
** oc floats (both copied). WNN_STATUS_NOT_SUPPORTED where XNNPACK refuses. */
wnn_status wnn__xnn_conv_create(const wnn__xnn_conv_desc *d, const float *filter, const float *bias,
                                wnn__xnn_conv **out);

/* Runs it: x and y nhwc, res (y's shape) when the steps hold SUM;
** res may be y itself. Not reentrant for one convolution. */
wnn_status wnn__xnn_conv_run(wnn__xnn_conv *c, const float *x, float *y, const float *res);

void wnn__xnn_conv_free(wnn__xnn_conv *c);

#endif
