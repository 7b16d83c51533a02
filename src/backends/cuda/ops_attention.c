/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_attention.c -- attention chains (backends/attention.h) moved onto the
** fused kernel of kernels_attention.cu where it takes them (float16, head
** widths multiples of 16): the chain's last node runs it, the others
** nothing, and the scores and probabilities get no memory at all. The
** operands may be views of slices (the q, k and v that
** nn.MultiheadAttention cuts from one projection), read in place at their
** offsets instead of copied out first.
*/
#include "backends/attention.h"
#include "backends/cuda/cuda_ops.h"

typedef struct attention_plan {
    wnn__cu_attention k;
    uint32_t q, kt, v, mask, out; /* value ids; mask WNN__NONE when none */
    size_t q_at, kt_at, v_at, mask_at, out_at; /* byte offsets into them (views) */
} attention_plan;

static wnn_status run_attention(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const attention_plan *p = n->plan;
    const char *mask = p->mask != WNN__NONE ? (const char *)x->ptr[p->mask] + p->mask_at : NULL;
    return wnn__cu_status(wnn__cu_attention_run(x->stream, &p->k, (const char *)x->ptr[p->q] + p->q_at,
                                                (const char *)x->ptr[p->kt] + p->kt_at,
                                                (const char *)x->ptr[p->v] + p->v_at, mask,
                                                (char *)x->ptr[p->out] + p->out_at));
}

static void strides_of(int64_t *dst, const wnn__attention_operand *o, uint32_t rank)
{
    for (uint32_t i = 0; i < rank; i++)
        dst[i] = (int64_t)o->stride[i];
}

/* The node's plan and tables, let go. */
static void clear(wnn__cu_node *cn)
{
    if (cn->release && cn->plan)
        cn->release(cn->plan);
    free(cn->plan);
    free(cn->aux_host);
    cn->plan = cn->aux_host = NULL;
    cn->release = NULL;
    cn->run = NULL;
    cn->scratch_bytes = cn->aux_bytes = 0;
    cn->alias = false;
}

wnn_status wnn__cu_attention_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos)
{
    bool *taken = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *taken);
    if (!taken)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        taken[n] = pos[n] != n || !nodes[n].run;
    wnn__attention *found;
    uint32_t count;
    wnn_status s = wnn__attention_find(ir, taken, true, &found, &count);
    free(taken);
    for (uint32_t i = 0; s == WNN_OK && i < count; i++) {
        const wnn__attention *a = &found[i];
        const size_t es = wnn_data_type_size(a->type);
        attention_plan p = {.q = a->q.value,
                            .kt = a->kt.value,
                            .v = a->v.value,
                            .mask = a->has_mask ? a->mask.value : WNN__NONE,
                            .out = a->out.value,
                            .q_at = a->q.offset * es,
                            .kt_at = a->kt.offset * es,
                            .v_at = a->v.offset * es,
                            .mask_at = a->has_mask ? a->mask.offset * es : 0,
                            .out_at = a->out.offset * es};
        p.k.batch_rank = a->rank - 2;
        for (uint32_t j = 0; j + 2 < a->rank; j++)
            p.k.batch[j] = a->batch[j];
        if (a->batches > UINT32_MAX || a->m > UINT32_MAX || a->n > UINT32_MAX || a->d > UINT32_MAX || a->e > UINT32_MAX)
            continue;
        p.k.batches = (uint32_t)a->batches, p.k.m = (uint32_t)a->m, p.k.n = (uint32_t)a->n;
        p.k.d = (uint32_t)a->d, p.k.e = (uint32_t)a->e;
        p.k.scale = a->scale;
        strides_of(p.k.q, &a->q, a->rank);
        strides_of(p.k.kt, &a->kt, a->rank);
        strides_of(p.k.v, &a->v, a->rank);
        strides_of(p.k.out, &a->out, a->rank);
        if (a->has_mask)
            strides_of(p.k.mask, &a->mask, a->rank);
        if (!wnn__cu_attention_supported(&p.k, a->type))
            continue;
        attention_plan *plan = malloc(sizeof *plan);
        if (!plan) {
            s = WNN_STATUS_OUT_OF_MEMORY;
            break;
        }
        *plan = p;
        for (uint32_t k = 0; k < a->n_nodes; k++) {
            uint32_t n = a->nodes[k];
            clear(&nodes[n]);
            pos[n] = a->last;
            if (n != a->last)
                internal[ir->nodes[n].out[0]] = true;
        }
        nodes[a->last].plan = plan;
        nodes[a->last].run = run_attention;
    }
    free(found);
    return s;
}
