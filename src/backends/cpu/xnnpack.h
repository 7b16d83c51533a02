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
** Its operators run on a pthreadpool of the cpu device's thread count when it
** first loads, made once per process (wnn_set_num_threads does not resize it).
*/
#ifndef WNN_BACKENDS_CPU_XNNPACK_H
#define WNN_BACKENDS_CPU_XNNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wnn/wnn.h"

typedef struct wnn__xnn_conv wnn__xnn_conv;

/* What runs over the result last. */
typedef enum wnn__xnn_post {
    WNN__XNN_POST_NONE,
    WNN__XNN_POST_HARD_SWISH,
    WNN__XNN_POST_SIGMOID,
    WNN__XNN_POST_SWISH /* y * sigmoid(y) */
} wnn__xnn_post;

/* One convolution over nhwc float32 tensors: y = post(clamp(conv(x) + bias,
** lo, hi) [+ res, clamped to res_lo, res_hi]). */
typedef struct wnn__xnn_conv_desc {
    uint32_t n, h, w, c; /* input */
    uint32_t oh, ow, oc; /* output */
    uint32_t kh, kw, groups;
    uint32_t pad[4]; /* top, bottom, left, right (WebNN's order) */
    uint32_t stride[2], dilation[2];
    float lo, hi;         /* the convolution's own clamp (-inf, inf: none) */
    bool residual;        /* a tensor of y's shape is added after */
    float res_lo, res_hi; /* the clamp after that add */
    wnn__xnn_post post;   /* the activation after all that */
} wnn__xnn_conv_desc;

/* Whether XNNPACK is loaded (and WNN_CPU_XNNPACK is not 0). */
bool wnn__xnn_available(void);

/* Creates the convolution; filter is [oc][kh][kw][c / groups] (ohwi) and bias
** oc floats (both copied). WNN_STATUS_NOT_SUPPORTED where XNNPACK refuses. */
wnn_status wnn__xnn_conv_create(const wnn__xnn_conv_desc *d, const float *filter, const float *bias,
                                wnn__xnn_conv **out);

/* Runs it: x and y nhwc, res (y's shape) when the descriptor has a residual;
** res may be y itself. Not reentrant for one convolution. */
wnn_status wnn__xnn_conv_run(wnn__xnn_conv *c, const float *x, float *y, const float *res);

void wnn__xnn_conv_free(wnn__xnn_conv *c);

#endif
