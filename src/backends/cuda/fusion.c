/* SPDX-License-Identifier: Apache-2.0 */
/*
** fusion.c -- runs of consecutive element-wise float nodes (binary
** operators that are flat or add a row along the last axis, such as a
** bias, and unary operators of the fusible set, one data type) become one
** kernel each: a small program over a few register temporaries, read and stored
** through pointer slots (kernels_fused.cu runs it). See
** wnn__cu_fuse in cuda_internal.h.
*/
#include <string.h>

#include "backends/cuda/cuda_ops.h"

/* ---- fusion of element-wise runs ---------------------------------------------------------------- */

#define FUSE_MAX_NODES 16

typedef struct fused_plan {
    wnn__cu_fused f;
    uint32_t n_slots;
    uint32_t slot_value[WNN__CU_FUSED_MAX_PTRS];
} fused_plan;


static wnn_status run_fused(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const fused_plan *p = n->plan;
    wnn__cu_fused f = p->f;
    for (uint32_t s = 0; s < p->n_slots; s++)
        f.ptr[s] = x->ptr[p->slot_value[s]];
    return wnn__cu_status(wnn__cu_fused_run(x->stream, &f));
}

/* The row length N when broadcast plan b is [M, N] with each input either
** walking it as the output does or repeating one row of N; 0 otherwise. */
static uint32_t row_period(const wnn__cu_bcast *b)
{
    if (b->rank != 2 || b->shape[1] % WNN__CU_FUSED_ROW_ALIGN)
        return 0;
    for (uint32_t k = 0; k < b->n_in; k++)
        if (b->stride[k][1] != 1 || (b->stride[k][0] != 0 && b->stride[k][0] != b->shape[1]))
            return 0;
    return b->shape[1];
}

/* A prepared node that may join a run: a flat or row-broadcast binary or a
** unary float operator of the fusible set; *t and *count describe its
** output, *period its rows (0: flat). */
static bool fusible_node(const wnn__ir *ir, const wnn__cu_node *cn, wnn_data_type *t, uint64_t *count,
                         uint32_t *period)
{
    *period = 0;
    const wnn__node *node = cn->node;
    if (!cn->run || node->n_out != 1 || !wnn__cu_fusible(node->op))
        return false;
    const wnn_operand_desc *od = out_desc(ir, node, 0);
    if (!is_float(od->data_type))
        return false;
    if (cn->run == wnn__cu_run_binary) {
        const wnn__cu_binary_plan *p = cn->plan;
        if (p->t != od->data_type || (!p->b.flat && !(*period = row_period(&p->b))))
            return false;
    } else if (cn->run == wnn__cu_run_unary) {
        if (((const wnn__cu_unary_plan *)cn->plan)->t != od->data_type)
            return false;
    } else {
        return false;
    }
    *t = od->data_type;
    *count = wnn__shape_count(od);
    return true;
}

typedef struct fuse_state {
    fused_plan *p;
    uint32_t temp_value[WNN__CU_FUSED_TEMPS]; /* UINT32_MAX: free */
} fuse_state;

static int temp_of(const fuse_state *st, uint32_t v)
{
    for (int t = 0; t < WNN__CU_FUSED_TEMPS; t++)
        if (st->temp_value[t] == v)
            return t;
    return -1;
}

/* The pointer slot of value v (made on first use). */
static uint32_t slot_of(fuse_state *st, const wnn__ir *ir, uint32_t v)
{
    for (uint32_t s = 0; s < st->p->n_slots; s++)
        if (st->p->slot_value[s] == v)
            return s;
    uint32_t s = st->p->n_slots++;
    st->p->slot_value[s] = v;
    uint64_t n = wnn__shape_count(&ir->values[v].desc);
    if (n == 1)
        st->p->f.scalar_slots |= (uint64_t)1 << s;
    else if (st->p->f.period && n == st->p->f.period && n != st->p->f.count)
        st->p->f.row_slots |= (uint64_t)1 << s;
    return s;
}

static void emit(fuse_state *st, uint8_t kind, uint8_t op, uint32_t dst, uint32_t a, uint32_t b)
{
    st->p->f.ops[st->p->f.n_ops++] = (wnn__cu_fused_op){kind, op, (uint8_t)dst, (uint8_t)a, (uint8_t)b};
}

/* The last node in (k, end] that reads v, or 0 when none does. */
static uint32_t last_use_in(const wnn__ir *ir, uint32_t v, uint32_t k, uint32_t end)
{
    uint32_t last = 0;
    for (uint32_t m = k + 1; m <= end; m++)
        for (uint32_t j = 0; j < ir->nodes[m].n_in; j++)
            if (ir->nodes[m].in[j] == v)
                last = m;
    return last;
}

/* Builds the program of nodes [start, end] into *out. Returns the first node
** that found no free temporary (the run must end before it), or end + 1. */
static uint32_t build_program(const wnn__ir *ir, uint32_t start, uint32_t end, uint64_t count, uint32_t period,
                              bool half, const uint32_t *max_use, const bool *is_output, fused_plan *out)
{
    memset(out, 0, sizeof *out);
    fuse_state st = {.p = out};
    for (int t = 0; t < WNN__CU_FUSED_TEMPS; t++)
        st.temp_value[t] = UINT32_MAX;
    out->f.count = count;
    out->f.period = period;
    out->f.half = half;
    for (uint32_t k = start; k <= end; k++) {
        const wnn__node *node = &ir->nodes[k];
        uint32_t operand[2] = {0, 0};
        for (uint32_t j = 0; j < node->n_in && j < 2; j++) {
            int t = temp_of(&st, node->in[j]);
            operand[j] = t >= 0 ? (uint32_t)t : WNN__CU_FUSED_TEMPS + slot_of(&st, ir, node->in[j]);
        }
        if (node->n_in < 2)
            operand[1] = operand[0];
        /* temporaries whose value this node reads for the last time are free
        ** for its result (the operands are read before it is written) */
        for (int t = 0; t < WNN__CU_FUSED_TEMPS; t++)
            if (st.temp_value[t] != UINT32_MAX && last_use_in(ir, st.temp_value[t], k, end) == 0)
                st.temp_value[t] = UINT32_MAX;
        uint32_t out_v = node->out[0];
        int dst = temp_of(&st, UINT32_MAX);
        if (dst < 0)
            return k;
        emit(&st, WNN__CU_FUSED_COMPUTE, (uint8_t)node->op, (uint32_t)dst, operand[0], operand[1]);
        st.temp_value[dst] = out_v;
        if (is_output[out_v] || max_use[out_v] > end)
            emit(&st, WNN__CU_FUSED_STORE, 0, (uint32_t)dst, slot_of(&st, ir, out_v),
                 wnn__shape_count(&ir->values[out_v].desc) == 1);
        if (last_use_in(ir, out_v, k, end) == 0)
            st.temp_value[dst] = UINT32_MAX;
    }
    return end + 1;
}

/* Rewrites the program's operands so that its first WNN__CU_FUSED_MAX_PRE
** distinct inputs of every element (single elements are left as they are)
** are read before it runs: read one after another as the program asks for
** them, a thread waited for each load in turn, and a bias-and-relu run
** moved float16 at a third of the memory's speed. float32 is left as it
** was: reading ahead cost it more in registers (spilled) than it gained
** (H200, relu(a + b) * 2 on [8192, 8192]: float16 0.252 -> 0.185 ms,
** float32 0.273 -> 0.360). */
_Static_assert(WNN__CU_FUSED_TEMPS + WNN__CU_FUSED_MAX_PTRS <= WNN__CU_FUSED_PRE &&
                   WNN__CU_FUSED_PRE + WNN__CU_FUSED_MAX_PRE <= 255,
               "fused operand codes overlap");

static void prefetch_inputs(wnn__cu_fused *f)
{
    f->n_pre = 0;
    if (!f->half)
        return;
    for (uint32_t k = 0; k < f->n_ops; k++) {
        wnn__cu_fused_op *o = &f->ops[k];
        if (o->kind != WNN__CU_FUSED_COMPUTE)
            continue;
        uint8_t *operand[2] = {&o->a, &o->b};
        for (int j = 0; j < 2; j++) {
            uint32_t v = *operand[j];
            if (v < WNN__CU_FUSED_TEMPS || v >= WNN__CU_FUSED_PRE)
                continue;
            uint32_t slot = v - WNN__CU_FUSED_TEMPS, at = 0;
            if ((f->scalar_slots >> slot) & 1u)
                continue;
            while (at < f->n_pre && f->pre_slot[at] != slot)
                at++;
            if (at == f->n_pre) {
                if (f->n_pre == WNN__CU_FUSED_MAX_PRE)
                    continue;
                f->pre_slot[f->n_pre++] = (uint8_t)slot;
            }
            *operand[j] = (uint8_t)(WNN__CU_FUSED_PRE + at);
        }
    }
}

/* Fuses nodes [start, end] (shortened while temporaries run out) and hands
** the program to the run's last node. Returns the run's last node. */
static uint32_t fuse_run(const wnn__ir *ir, wnn__cu_node *nodes, uint32_t start, uint32_t end, uint64_t count,
                         uint32_t period, bool half, const uint32_t *max_use, const bool *is_output, bool *internal,
                         uint32_t *pos, wnn_status *status)
{
    fused_plan *p = calloc(1, sizeof *p);
    if (!p) {
        *status = WNN_STATUS_OUT_OF_MEMORY;
        return end;
    }
    uint32_t stop;
    while ((stop = build_program(ir, start, end, count, period, half, max_use, is_output, p)) <= end)
        end = stop - 1; /* end before the node that found no temporary */
    if (end <= start) {
        free(p);
        return start;
    }
    prefetch_inputs(&p->f);
    for (uint32_t k = start; k <= end; k++) {
        pos[k] = end;
        uint32_t out = ir->nodes[k].out[0];
        if (!is_output[out] && max_use[out] <= end)
            internal[out] = true;
        if (k < end)
            nodes[k].run = NULL;
    }
    free(nodes[end].plan);
    nodes[end].plan = p;
    nodes[end].run = run_fused;
    return end;
}

wnn_status wnn__cu_fuse(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos)
{
    uint32_t nv = ir->n_values, nn = ir->n_nodes;
    uint32_t *max_use = calloc(nv ? nv : 1, sizeof *max_use);
    bool *is_output = calloc(nv ? nv : 1, sizeof *is_output);
    if (!max_use || !is_output) {
        free(max_use);
        free(is_output);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t n = 0; n < nn; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE && max_use[ir->nodes[n].in[j]] < n)
                max_use[ir->nodes[n].in[j]] = n;
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        is_output[ir->output_values[i]] = true;
    wnn_status s = WNN_OK;
    for (uint32_t n = 0; n < nn && s == WNN_OK;) {
        wnn_data_type t, tm;
        uint64_t count, cm;
        uint32_t period, pm;
        if (!fusible_node(ir, &nodes[n], &t, &count, &period)) {
            n++;
            continue;
        }
        /* extend while the next node is fusible, of the same type, its
        ** elements are the run's or a single one, and its rows (if any) the
        ** run's */
        uint32_t end = n;
        while (end + 1 < nn && end + 1 - n < FUSE_MAX_NODES && fusible_node(ir, &nodes[end + 1], &tm, &cm, &pm) &&
               tm == t && (cm == count || cm == 1 || count == 1) && (!pm || !period || pm == period) &&
               (!pm || cm >= count)) {
            if (cm > count)
                count = cm;
            period = period ? period : pm;
            end++;
        }
        if (end > n)
            end = fuse_run(ir, nodes, n, end, count, period, t == WNN_DATA_TYPE_FLOAT16, max_use, is_output,
                           internal, pos, &s);
        n = end + 1;
    }
    free(max_use);
    free(is_output);
    return s;
}
