/* SPDX-License-Identifier: Apache-2.0 */
/*
** attention.h -- attention as exporters spell it, found in an IR so that a
** backend can run it as one kernel (WebNN has no attention operator).
**
** The chain recognised is
**
**     s = matmul(q, kt)            q [.., M, D], kt [.., D, N]
**     s = mul(s, c) / div(s, c)    scalar constants, none or more
**     s = add(s, mask)             optional, either order; mask broadcasts to s
**     p = softmax(s, last axis)
**     o = matmul(p, v)             v [.., N, E], o [.., M, E]
**
** where q and kt may each be multiplied (or q divided) by scalar constants
** first, q, kt and v may each be the result of a transpose, and o may be
** read by a transpose alone: those transposes become strides, the scalars
** one scale. Where the backend reads views (wnn__attention_find's views),
** an operand may also be a slice, or a reshape of a slice that a view can
** express (the q, k and v that nn.MultiheadAttention cuts from one
** projection): the operand is then read inside the slice's input, at an
** offset. Every intermediate is read by the next node of the chain alone
** and is no graph output; all values have one float type. Backends link
** this file themselves (the cuda module compiles it too).
*/
#ifndef WNN_BACKENDS_ATTENTION_H
#define WNN_BACKENDS_ATTENTION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ir.h"

#define WNN__ATTENTION_MAX_NODES 24

/* An operand read (or, for out, written) with strides: element
** [i0, .., ir-1] of the logical operand is element
** offset + sum(i_k * stride[k]) of value's bytes. A batch axis the operand
** broadcasts over has stride 0. offset is 0 but for views of a slice. */
typedef struct wnn__attention_operand {
    uint32_t value;
    size_t offset;
    size_t stride[WNN_MAX_RANK];
} wnn__attention_operand;

typedef struct wnn__attention {
    uint32_t rank;                   /* of the logical operands: batch axes + 2 */
    uint32_t batch[WNN_MAX_RANK];    /* the batch shape (rank - 2 entries) */
    size_t batches;                  /* their product */
    size_t m, n, d, e;               /* queries, keys, their width, the values' width */
    float scale;                     /* what multiplies q . kt */
    bool has_mask;
    wnn_data_type type;              /* float32 or float16 */
    wnn__attention_operand q;        /* [.., M, D] */
    wnn__attention_operand kt;       /* [.., D, N] */
    wnn__attention_operand v;        /* [.., N, E] */
    wnn__attention_operand mask;     /* [.., M, N], when has_mask */
    wnn__attention_operand out;      /* [.., M, E] */
    uint32_t last;                   /* the chain's last node: where it runs */
    uint32_t n_nodes;
    uint32_t nodes[WNN__ATTENTION_MAX_NODES]; /* every node of the chain, last included */
} wnn__attention;

/* Finds the attention chains of ir whose nodes no other pass has taken
** (taken[n]; NULL: none) and none of which is a graph output; views: the
** operands may be views of slices (offsets). *found is a malloc'd array of
** *count chains (NULL when none); their nodes are disjoint. Fails only with
** OUT_OF_MEMORY. WNN_ATTENTION=0 in the environment finds none (the
** config's attention switch). */
wnn_status wnn__attention_find(const wnn__ir *ir, const bool *taken, bool views, wnn__attention **found,
                               uint32_t *count);

/* The element offset of batch t (0 <= t < a->batches) of operand o, its
** offset included. */
static inline size_t wnn__attention_batch_offset(const wnn__attention *a, const wnn__attention_operand *o, size_t t)
{
    size_t off = o->offset;
    for (uint32_t i = a->rank - 2; i-- > 0;) {
        off += (t % a->batch[i]) * o->stride[i];
        t /= a->batch[i];
    }
    return off;
}

#endif
