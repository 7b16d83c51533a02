/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_graph.c -- plans the memory of a graph's intermediates and runs its
** nodes in order with the cpu kernels.
**
** Intermediates share one arena: each gets an offset chosen first-fit among
** the blocks alive at its producing node, and its block is free again after
** its last consumer, so a long chain needs about two intermediates of memory.
**
** First, an nchw graph whose convolutions oneDNN computes is planned in
** its nhwc form (layout.c), oneDNN's layout, so that the operators between
** convolutions need no reorders; the device's IR stays as it was, and the
** graph owns the form it plans.
**
** Before planning, nodes that oneDNN computes faster (dnnl.h) are compiled
** into primitives, and the nodes they fold in are skipped: their
** intermediates get no memory, and the chain's last value is placed where
** its first node runs, since that node writes it. A value passed only
** between primitives stays in oneDNN's blocked layout (wnn__dnnl_link) and
** gets that layout's size.
**
** Runs of element-wise nodes that no other fusion took run in one pass at
** their last node (ew_chain.h); the values between them get no memory.
**
** float16 graphs of more than one step (or of one operator that would
** stage whole float16 operands: matmul, gemm, convolutions, average and L2
** pools) compute in float32 (promote()): every float16 value is viewed as
** float32, graph inputs are widened into float32 copies in the arena as a
** run starts, constants once (at the first run after they are bound), and
** outputs are computed into the arena and narrowed as the run ends. So
** consecutive operators pass float32 along, each rounds nothing, and the
** kernels run their float32 paths (no staging copies). Only graphs whose
** every operator's float32 kernel computes the same function are promoted:
** no casts, comparisons, arg-reductions, rounding or oneDNN nodes.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_graph.h"
#include "backends/cpu/cpu_profile.h"
#include "backends/cpu/dnnl.h"
#include "backends/cpu/ew_chain.h"
#include "backends/gelu.h"
#include "backends/cpu/half_simd.h"
#include "backends/cpu/kernels.h"
#include "backends/cpu/layout.h"
#include "backends/cpu/products.h"
#include "memory/arena.h"
#include "platform/config.h"
#include "platform/pool.h"

#define ALIGN 64

struct wnn__cpu_graph {
    const wnn__ir *ir;   /* the IR planned: the device's, or its nhwc form */
    wnn__ir *layout;     /* that nhwc form (layout.c), owned, or NULL */
    size_t *offset;      /* per value: arena offset, or SIZE_MAX if bound elsewhere */
    int32_t *output_of;  /* per value: the first graph output it is, or -1 */
    void *arena;         /* bound by the device, which owns it */
    size_t arena_size;
    wnn__view *views;    /* per value, refreshed by each run */
    wnn__view *scratch;  /* kernel argument arrays */
    uint32_t max_args;
    wnn__dnnl_node **dnnl; /* per node: its oneDNN primitive, or NULL */
    bool *fused;           /* per node: computed by an earlier node's primitive */
    size_t *bytes;         /* per value: its size in oneDNN's layout (wnn__dnnl_link), or 0 */
    uint32_t *alias;       /* per value: the constant whose bytes it views (alias_constants()), or WNN__NONE */
    uint32_t *same_as;     /* per value: the value whose bytes it is, for a reshape (alias_reshapes()), or WNN__NONE */
    uint32_t *gelu_of;     /* per node: x, where it computes gelu(x) for a fused chain (backends/gelu.h), or WNN__NONE */
    wnn__attention *attn;  /* the attention chains run as one kernel (backends/attention.h) */
    uint32_t n_attn;
    uint32_t *attn_at;     /* per node: the chain it runs, or UINT32_MAX */
    wnn__ew_chain *chains; /* element-wise runs computed in one pass (ew_chain.h) */
    uint32_t n_chains;
    uint32_t *chain_at;    /* per node: the element-wise chain it ends, or WNN__NONE */
    uint32_t *bias_of;     /* per node: a matmul's folded bias constant (fuse_matmul_bias()), or WNN__NONE */
    uint32_t *bias_out;    /* per node: the value the matmul with its bias writes */
    bool promoted;         /* float16 values are computed as float32 (promote()) */
    float **const32;       /* promoted: per value, the float32 copy of a float16 constant */
    void *const *widen_from; /* promoted: constants bound but not widened yet, or NULL */
    bool on_team;          /* runs through wnn__pool_call: large enough to use threads */
    uint64_t work;         /* elements the nodes read and write a run, and multiply-adds / 8 */
    wnn__padded_b *padded; /* per node: its constant B's copy with padded rows (kernels.h) */
    bool pad_pending;      /* some copy is still to make (at the first run, as constants are widened) */
};

/* Below this many elements computed a run, no kernel splits its work over
** threads (their grains are 2^14 elements and more), so the graph runs on
** the caller's thread without handing it to the pool's master. */
#define TEAM_MIN_ELEMENTS ((uint64_t)1 << 15)

/* Where handing work to the team's master sleeps (wnn__pool_handoff_sleeps:
** no core spare beside the threads and the caller), a graph whose work
** (the elements its nodes read and write, and an eighth of the
** multiply-adds of its products and convolutions: on one AVX2 core a
** multiply-add costs about that share of an element's pass through a
** kernel) is below this, divided by the threads beyond the first, runs on
** the caller's thread alone, and the libraries it calls with it. The
** hand-off's two wake-ups cost 35-50 us on this project's 2-core machine,
** about what the second thread saves on an operator that reads and writes
** 2^19 elements each (bench_dispatch.py, 2 threads: relu [65536] 49.5 us,
** PyTorch 10.1; relu [2^20] alone 165-189 us, on the team 107-165); with
** more threads the others save more, so the bound falls with their count
** (2^16 or so at 16, where the hand-off was 15 us on the GPU machine's
** host). A model called now and then gains most: after 50 ms of idle the
** first run on the team took 3-7 ms there, the caller alone 0.5-0.7
** (silero_vad_v5 from Python, work 2^19.5: back to back 0.19-0.27 ms on
** the team, 0.13-0.19 alone), as libgomp's threads sleep 10-40 ms after
** their last region and the virtual machine's idle cores are slow to come
** back. */
#define ALONE_MAX_WORK ((uint64_t)1 << 20)

/* Marks the nodes that multiply from a padded copy of their B (products.h),
** among those no other path takes. */
static void plan_padding(wnn__cpu_graph *g)
{
    for (uint32_t n = 0; n < g->ir->n_nodes; n++) {
        if (g->fused[n] || g->dnnl[n] || g->attn_at[n] != WNN__NONE || g->chain_at[n] != WNN__NONE ||
            g->gelu_of[n] != WNN__NONE)
            continue;
        g->padded[n].ld = wnn__cpu_pad_ld(g->ir, &g->ir->nodes[n]);
        g->pad_pending |= g->padded[n].ld != 0;
    }
}

/* Makes the padded copies from the constants' bytes, at the first run. */
static void pad_constants(wnn__cpu_graph *g)
{
    for (uint32_t n = 0; n < g->ir->n_nodes; n++)
        if (g->padded[n].ld && !g->padded[n].data)
            wnn__cpu_pad_make(&g->padded[n], &g->views[g->ir->nodes[n].in[1]]);
    g->pad_pending = false;
}

static bool is_half(const wnn__ir *ir, uint32_t v)
{
    return ir->values[v].desc.data_type == WNN_DATA_TYPE_FLOAT16;
}

/* Operators whose float32 kernel, given float16 values widened, computes the
** float16 operator with more precision and nothing else changed. */
static const bool keeps_meaning_in_float32[WNN__OP_COUNT] = {
    [WNN__OP_ADD] = true, [WNN__OP_SUB] = true, [WNN__OP_MUL] = true,
    [WNN__OP_DIV] = true, [WNN__OP_MAX] = true, [WNN__OP_MIN] = true,
    [WNN__OP_POW] = true, [WNN__OP_ABS] = true, [WNN__OP_NEG] = true,
    [WNN__OP_EXP] = true, [WNN__OP_LOG] = true, [WNN__OP_SQRT] = true,
    [WNN__OP_RELU] = true, [WNN__OP_SIGMOID] = true, [WNN__OP_TANH] = true,
    [WNN__OP_CLAMP] = true, [WNN__OP_RESHAPE] = true, [WNN__OP_TRANSPOSE] = true,
    [WNN__OP_CONCAT] = true, [WNN__OP_SLICE] = true, [WNN__OP_SOFTMAX] = true,
    [WNN__OP_MATMUL] = true, [WNN__OP_GEMM] = true, [WNN__OP_COS] = true,
    [WNN__OP_SIN] = true, [WNN__OP_TAN] = true, [WNN__OP_ERF] = true,
    [WNN__OP_RECIPROCAL] = true, [WNN__OP_IDENTITY] = true, [WNN__OP_ELU] = true,
    [WNN__OP_GELU] = true, [WNN__OP_HARD_SIGMOID] = true, [WNN__OP_HARD_SWISH] = true,
    [WNN__OP_LEAKY_RELU] = true, [WNN__OP_LINEAR] = true, [WNN__OP_SOFTPLUS] = true,
    [WNN__OP_SOFTSIGN] = true, [WNN__OP_PRELU] = true, [WNN__OP_WHERE] = true,
    [WNN__OP_REDUCE_L1] = true, [WNN__OP_REDUCE_L2] = true, [WNN__OP_REDUCE_LOG_SUM] = true,
    [WNN__OP_REDUCE_LOG_SUM_EXP] = true, [WNN__OP_REDUCE_MAX] = true, [WNN__OP_REDUCE_MEAN] = true,
    [WNN__OP_REDUCE_MIN] = true, [WNN__OP_REDUCE_PRODUCT] = true, [WNN__OP_REDUCE_SUM] = true,
    [WNN__OP_REDUCE_SUM_SQUARE] = true, [WNN__OP_CUMULATIVE_SUM] = true, [WNN__OP_CONV2D] = true,
    [WNN__OP_CONV_TRANSPOSE2D] = true, [WNN__OP_AVERAGE_POOL2D] = true, [WNN__OP_L2_POOL2D] = true,
    [WNN__OP_MAX_POOL2D] = true, [WNN__OP_RESAMPLE2D] = true, [WNN__OP_BATCH_NORMALIZATION] = true,
    [WNN__OP_INSTANCE_NORMALIZATION] = true, [WNN__OP_LAYER_NORMALIZATION] = true, [WNN__OP_EXPAND] = true,
    [WNN__OP_PAD] = true, [WNN__OP_SPLIT] = true, [WNN__OP_TILE] = true,
    [WNN__OP_REVERSE] = true, [WNN__OP_TRIANGULAR] = true, [WNN__OP_GATHER] = true,
    [WNN__OP_GATHER_ELEMENTS] = true, [WNN__OP_GATHER_ND] = true,
};

/* Operators whose float16 kernel widens whole operands into buffers it
** allocates each run: promoting them alone computes the same values without
** those allocations (their pages fault in again on every run). */
static const bool stages_float16[WNN__OP_COUNT] = {
    [WNN__OP_MATMUL] = true,           [WNN__OP_GEMM] = true,           [WNN__OP_CONV2D] = true,
    [WNN__OP_CONV_TRANSPOSE2D] = true, [WNN__OP_AVERAGE_POOL2D] = true, [WNN__OP_L2_POOL2D] = true,
};

/* Decides whether g computes its float16 values in float32: worth it when a
** float16 value passes between two nodes (not from one element-wise node to
** the next: a float16 chain keeps its block in float32, ew_chain.h), or
** comes from a constant as large as the node's result (a small one, a scale
** or a bias, costs its kernel little each run, where promoting costs a pass
** over each float16 input and output: layerNormalization's ran 2x its
** float32 time), or a node would stage its float16 operands
** (stages_float16); allowed when every node with a float16 operand keeps its
** meaning in float32 and runs its own kernel, and no output is an input or a
** constant. */
static bool promote(const wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    bool worth = false, allowed = true;
    uint32_t *readers = calloc(ir->n_values ? ir->n_values : 1, sizeof *readers); /* NULL: every value counts */
    for (uint32_t n = 0; readers && n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                readers[ir->nodes[n].in[j]]++;
    for (uint32_t n = 0; allowed && n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        bool half = false;
        for (uint32_t j = 0; j < node->n_in + node->n_out; j++) {
            uint32_t v = j < node->n_in ? node->in[j] : node->out[j - node->n_in];
            if (v == WNN__NONE || !is_half(ir, v))
                continue;
            half = true;
            if (j < node->n_in && ir->values[v].kind == WNN__VALUE_NODE &&
                !(readers && readers[v] == 1 && g->output_of[v] < 0 &&
                  wnn__ew_chain_may_link(ir, g->views, ir->values[v].index, n)))
                worth = true;
            if (j < node->n_in && ir->values[v].kind == WNN__VALUE_CONSTANT && node->n_out &&
                wnn__shape_count(&ir->values[v].desc) >= wnn__shape_count(&ir->values[node->out[0]].desc))
                worth = true;
        }
        worth |= half && stages_float16[node->op];
        allowed = !(half && (!keeps_meaning_in_float32[node->op] || g->dnnl[n] || g->fused[n]));
    }
    free(readers);
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        allowed &= ir->values[ir->output_values[i]].kind == WNN__VALUE_NODE;
    return allowed && worth;
}

/* Widens the float16 constants into g->const32 (from the IR's bytes, or
** constants[v] when given). */
static void widen_constants(wnn__cpu_graph *g, void *const *constants)
{
    for (uint32_t v = 0; v < g->ir->n_values; v++) {
        if (!g->const32[v])
            continue;
        /* constants[] covers the device's IR, whose values come first */
        const void *src = constants ? constants[v] : g->ir->values[v].data;
        if (src)
            wnn__half_to_float_n(g->const32[v], src, wnn__shape_count(&g->ir->values[v].desc));
        g->views[v].data = g->const32[v];
    }
}

/* Views every float16 value as float32 and makes the constants' copies. */
static wnn_status promote_values(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    g->const32 = calloc(ir->n_values ? ir->n_values : 1, sizeof *g->const32);
    if (!g->const32)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t v = 0; v < ir->n_values; v++) {
        if (!is_half(ir, v))
            continue;
        g->views[v].desc.data_type = WNN_DATA_TYPE_FLOAT32;
        if (ir->values[v].kind == WNN__VALUE_CONSTANT &&
            !(g->const32[v] = malloc(wnn__shape_count(&ir->values[v].desc) * sizeof(float) + 1)))
            return WNN_STATUS_OUT_OF_MEMORY;
    }
    widen_constants(g, NULL);
    g->promoted = true;
    return WNN_OK;
}

/* In the arena: intermediates, and in a promoted graph the float32 copies
** of float16 inputs and outputs. */
/* A reshape of a constant is that constant's bytes under another shape:
** the node is skipped and its result views the constant (refreshed when
** constants are bound), so a 1-D convolution's filter, reshaped to 2-D by
** the ONNX importer, is a constant for oneDNN (dnnl.c looks through the
** same reshape) and is not copied on every run. Not for float16 values
** (promote() would widen them) or graph outputs. */
static void alias_constants(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if (node->op != WNN__OP_RESHAPE || node->in[0] == WNN__NONE)
            continue;
        uint32_t x = node->in[0], y = node->out[0];
        if (ir->values[x].kind != WNN__VALUE_CONSTANT || is_half(ir, x) || g->output_of[y] >= 0)
            continue;
        g->alias[y] = x;
        g->fused[n] = true;
        g->views[y].data = g->views[x].data;
    }
}

/* A float32 matmul whose result only an add of a constant row [N] (any
** leading 1s) reads computes both: its result starts as the bias and sgemm
** adds into it (wnn__k_matmul_padded), so the add's pass and sgemm's zeroing
** of C go away. The add is skipped; the matmul writes the add's result. */
static void fuse_matmul_bias(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        uint32_t v = node->out[0];
        if (node->op != WNN__OP_MATMUL || g->fused[n] || ir->values[v].desc.data_type != WNN_DATA_TYPE_FLOAT32 ||
            g->output_of[v] >= 0)
            continue;
        uint32_t reader = UINT32_MAX, reads = 0;
        for (uint32_t r = n + 1; r < ir->n_nodes; r++)
            for (uint32_t j = 0; j < ir->nodes[r].n_in; j++)
                if (ir->nodes[r].in[j] == v && reads++ == 0)
                    reader = r;
        if (reads != 1 || ir->nodes[reader].op != WNN__OP_ADD || g->fused[reader])
            continue;
        const wnn__node *add = &ir->nodes[reader];
        uint32_t c = add->in[0] == v ? add->in[1] : add->in[0];
        const wnn_operand_desc *cd = &ir->values[c].desc, *vd = &ir->values[v].desc,
                               *yd = &ir->values[add->out[0]].desc;
        if (c == v || ir->values[c].kind != WNN__VALUE_CONSTANT || cd->data_type != WNN_DATA_TYPE_FLOAT32 ||
            cd->rank < 1 || cd->rank > vd->rank || cd->shape[cd->rank - 1] != vd->shape[vd->rank - 1] ||
            yd->rank != vd->rank || memcmp(yd->shape, vd->shape, vd->rank * sizeof *vd->shape) != 0)
            continue;
        bool row = true;
        for (uint32_t i = 0; i + 1 < cd->rank; i++)
            row = row && cd->shape[i] == 1;
        if (!row)
            continue;
        g->bias_of[n] = c;
        g->bias_out[n] = add->out[0];
        g->fused[reader] = true;
    }
}

/* Whether transpose node keeps the order of its input's dimensions larger
** than 1 (it only moves 1s: [1, S, D] -> [S, 1, D]), so that its result is
** its input's bytes, as a reshape's is. */
static bool moves_only_ones(const wnn__ir *ir, const wnn__node *node)
{
    const wnn_operand_desc *in = &ir->values[node->in[0]].desc;
    int last = -1;
    for (uint32_t i = 0; i < in->rank; i++) {
        uint32_t from = node->attrs.transpose.perm[i];
        if (in->shape[from] == 1)
            continue;
        if ((int)from < last)
            return false;
        last = (int)from;
    }
    return true;
}

/* A reshape of a value computed in the arena, in its plain layout, that no
** graph output is on either side: the result is the same bytes, so the
** reshape is skipped and its result views its source's block, which lives
** until both have been read (bert_encoder: 22 reshapes a run, 9 us each
** on 2 threads). A transpose that only moves dimensions of 1 is such a
** reshape too (nn.MultiheadAttention's batch-first transposes at batch 1).
** Runs last of the fusions: a source another pass keeps from being
** computed has a reader in that pass alone. */
static void alias_reshapes(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if ((node->op != WNN__OP_RESHAPE && node->op != WNN__OP_TRANSPOSE) || g->fused[n] ||
            g->attn_at[n] != WNN__NONE || node->in[0] == WNN__NONE ||
            (node->op == WNN__OP_TRANSPOSE && !moves_only_ones(ir, node)))
            continue;
        uint32_t x = node->in[0], y = node->out[0];
        uint32_t root = g->same_as[x] != WNN__NONE ? g->same_as[x] : x;
        if (ir->values[root].kind != WNN__VALUE_NODE || g->output_of[root] >= 0 || g->output_of[y] >= 0 ||
            g->alias[root] != WNN__NONE || g->bytes[root] != 0)
            continue;
        g->same_as[y] = root;
        g->fused[n] = true;
    }
}

/* Attention chains whose operands are float32 here (float16 ones once the
** graph is promoted) run as one kernel at the chain's last node
** (k_attention.c); the other nodes are skipped. Called before
** fuse_matmul_bias (which would take the first matmul and the mask) and
** again after promote(). */
static wnn_status fuse_attention(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    bool *taken = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *taken);
    if (!taken)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        taken[n] = g->fused[n] || g->dnnl[n] || g->bias_of[n] != WNN__NONE || g->gelu_of[n] != WNN__NONE ||
                   g->attn_at[n] != WNN__NONE;
    wnn__attention *found;
    uint32_t count;
    wnn_status s = wnn__attention_find(ir, taken, true, &found, &count);
    free(taken);
    wnn__attention *grown = s == WNN_OK && count ? realloc(g->attn, (g->n_attn + count) * sizeof *grown) : g->attn;
    if (s != WNN_OK || (count && !grown)) {
        free(found);
        return s != WNN_OK ? s : WNN_STATUS_OUT_OF_MEMORY;
    }
    g->attn = grown;
    for (uint32_t i = 0; i < count; i++) {
        const wnn__attention *a = &found[i];
        uint32_t vals[5] = {a->q.value, a->kt.value, a->v.value, a->out.value, a->has_mask ? a->mask.value : a->q.value};
        bool f32 = true;
        for (int k = 0; k < 5; k++)
            f32 = f32 && g->views[vals[k]].desc.data_type == WNN_DATA_TYPE_FLOAT32;
        if (!f32)
            continue;
        for (uint32_t k = 0; k < a->n_nodes; k++)
            g->fused[a->nodes[k]] = a->nodes[k] != a->last;
        g->attn[g->n_attn] = *a;
        g->attn_at[a->last] = g->n_attn++;
    }
    free(found);
    return WNN_OK;
}

/* Runs of element-wise nodes among those no other fusion took, each computed
** in one pass at its last node (ew_chain.h), unless WNN_CPU_FUSE=0. After
** promote(), so that float16 graphs computed in float32 have them too, and
** after the attention chains, which hold such nodes (the scale, the mask). */
static wnn_status fuse_elementwise(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    if (!wnn__config_get()->cpu_fuse)
        return WNN_OK;
    bool *eligible = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *eligible);
    if (!eligible)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        eligible[n] = !g->dnnl[n] && g->bias_of[n] == WNN__NONE && g->gelu_of[n] == WNN__NONE &&
                      g->attn_at[n] == WNN__NONE;
    wnn_status s = wnn__ew_chain_find(ir, g->views, g->output_of, eligible, g->fused, g->chain_at, &g->chains,
                                      &g->n_chains);
    free(eligible);
    return s;
}

/* The most values a node reads besides its inputs (reads_beside). */
#define MAX_BESIDE (2 * WNN__CHAIN_MAX + 5)

/* The values node n reads besides its inputs: x of a fused gelu, the
** operands of an attention chain, those of the element-wise chain it ends.
** Returns how many (at most MAX_BESIDE). */
static uint32_t reads_beside(const wnn__cpu_graph *g, uint32_t n, uint32_t *v)
{
    uint32_t k = 0;
    if (g->chain_at[n] != WNN__NONE)
        k = wnn__ew_chain_reads(g->ir, &g->chains[g->chain_at[n]], v, 2 * WNN__CHAIN_MAX);
    if (g->gelu_of[n] != WNN__NONE)
        v[k++] = g->gelu_of[n];
    if (g->attn_at[n] != UINT32_MAX) {
        const wnn__attention *a = &g->attn[g->attn_at[n]];
        v[k++] = a->q.value;
        v[k++] = a->kt.value;
        v[k++] = a->v.value;
        if (a->has_mask)
            v[k++] = a->mask.value;
    }
    return k;
}

static bool in_arena(const wnn__cpu_graph *g, uint32_t v)
{
    if (g->alias[v] != WNN__NONE)
        return false;
    if (g->output_of[v] >= 0 || g->ir->values[v].kind == WNN__VALUE_INPUT)
        return g->promoted && is_half(g->ir, v);
    return g->ir->values[v].kind == WNN__VALUE_NODE;
}

static wnn_status plan(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    uint32_t *last_use = malloc(sizeof *last_use * (ir->n_values ? ir->n_values : 1));
    wnn__arena_block *live = malloc(sizeof *live * (ir->n_values ? ir->n_values : 1));
    if (!last_use || !live) {
        free(last_use);
        free(live);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__ir_last_use(ir, last_use);
    for (uint32_t n = 0; n < ir->n_nodes; n++) { /* a fused chain reads its operands where it ends */
        uint32_t extra[MAX_BESIDE], k = reads_beside(g, n, extra);
        while (k-- > 0)
            if (last_use[extra[k]] < n)
                last_use[extra[k]] = n;
    }
    for (uint32_t v = 0; v < ir->n_values; v++) /* a reshape's block is its source's, alive for both */
        if (g->same_as[v] != WNN__NONE && last_use[g->same_as[v]] < last_use[v])
            last_use[g->same_as[v]] = last_use[v];

    uint32_t n_live = 0;
    size_t top = 0;
    for (uint32_t v = 0; v < ir->n_values; v++) /* promoted inputs: copies alive from the start */
        if (ir->values[v].kind == WNN__VALUE_INPUT && in_arena(g, v)) {
            size_t size = (size_t)wnn_operand_desc_byte_length(&g->views[v].desc);
            size = (size + ALIGN - 1) / ALIGN * ALIGN;
            g->offset[v] = wnn__arena_place(live, &n_live, size ? size : ALIGN, v);
            if (g->offset[v] + size > top)
                top = g->offset[v] + size;
        }
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        for (uint32_t j = 0; j < node->n_out && !g->fused[n]; j++) {
            uint32_t v = g->dnnl[n]                  ? wnn__dnnl_node_output(g->dnnl[n])
                         : g->bias_of[n] != WNN__NONE ? g->bias_out[n]
                                                      : node->out[j];
            if (!in_arena(g, v))
                continue;
            size_t size = g->bytes[v] ? g->bytes[v] : (size_t)wnn_operand_desc_byte_length(&g->views[v].desc);
            size = (size + ALIGN - 1) / ALIGN * ALIGN;
            g->offset[v] = wnn__arena_place(live, &n_live, size ? size : ALIGN, v);
            if (g->offset[v] + size > top)
                top = g->offset[v] + size;
        }
        /* blocks whose last reader is this node are free for the next one;
        ** outputs' stay until the run narrows them */
        uint32_t extra[MAX_BESIDE], n_extra = reads_beside(g, n, extra);
        for (uint32_t j = 0; j < node->n_in + n_extra; j++) {
            uint32_t v = j < node->n_in ? node->in[j] : extra[j - node->n_in];
            if (v != WNN__NONE && g->same_as[v] != WNN__NONE)
                v = g->same_as[v];
            if (v != WNN__NONE && last_use[v] == n && g->offset[v] != SIZE_MAX && g->output_of[v] < 0)
                wnn__arena_unplace(live, &n_live, v);
        }
        for (uint32_t j = 0; j < node->n_out; j++) {
            uint32_t v = node->out[j];
            if (last_use[v] == n && g->offset[v] != SIZE_MAX && g->output_of[v] < 0)
                wnn__arena_unplace(live, &n_live, v);
        }
    }
    for (uint32_t v = 0; v < ir->n_values; v++)
        if (g->same_as[v] != WNN__NONE)
            g->offset[v] = g->offset[g->same_as[v]];
    g->arena_size = top;
    free(last_use);
    free(live);
    return WNN_OK;
}

/* Compiles the nodes oneDNN takes (see dnnl.h); the others keep their
** portable kernels. */
static wnn_status compile_dnnl(wnn__cpu_graph *g)
{
    const wnn__ir *ir = g->ir;
    uint32_t *uses = calloc(ir->n_values ? ir->n_values : 1, sizeof *uses);
    bool *is_output = calloc(ir->n_values ? ir->n_values : 1, sizeof *is_output);
    wnn_status s = uses && is_output ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    if (s == WNN_OK)
        wnn__ir_count_uses(ir, uses, is_output);
    for (uint32_t n = 0; s == WNN_OK && n < ir->n_nodes; n++)
        if (!g->fused[n])
            s = wnn__dnnl_compile(ir, n, uses, is_output, g->fused, g->dnnl, &g->dnnl[n]);
    if (s == WNN_OK)
        wnn__dnnl_link(ir, g->dnnl, g->bytes);
    free(uses);
    free(is_output);
    return s;
}

wnn_status wnn__cpu_graph_plan(const wnn__ir *ir, wnn__cpu_graph **out)
{
    *out = NULL;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if (!wnn__cpu_kernel_for(node->op))
            return WNN_STATUS_NOT_SUPPORTED;
        if (!wnn__cpu_kernel_packs_4bit(node->op))
            for (uint32_t j = 0; j < node->n_in + node->n_out; j++) {
                uint32_t v = j < node->n_in ? node->in[j] : node->out[j - node->n_in];
                wnn_data_type t = v == WNN__NONE ? WNN_DATA_TYPE_FLOAT32 : ir->values[v].desc.data_type;
                if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
                    return WNN_STATUS_NOT_SUPPORTED;
            }
    }
    wnn__cpu_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    if (wnn__cpu_layout_nhwc(ir, &g->layout) != WNN_OK) {
        free(g);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    if (g->layout)
        ir = g->layout;
    g->ir = ir;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        uint32_t args = ir->nodes[n].n_in + ir->nodes[n].n_out;
        if (args > g->max_args)
            g->max_args = args;
    }
    g->offset = malloc(sizeof *g->offset * nv);
    g->output_of = malloc(sizeof *g->output_of * nv);
    g->views = calloc(nv, sizeof *g->views);
    g->scratch = calloc(g->max_args ? g->max_args : 1, sizeof *g->scratch);
    g->dnnl = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->dnnl);
    g->fused = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->fused);
    g->bytes = calloc(nv, sizeof *g->bytes);
    g->alias = malloc(nv * sizeof *g->alias);
    g->bias_of = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *g->bias_of);
    g->bias_out = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *g->bias_out);
    g->gelu_of = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *g->gelu_of);
    g->same_as = malloc(nv * sizeof *g->same_as);
    g->attn_at = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *g->attn_at);
    g->padded = calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *g->padded);
    g->chain_at = malloc((ir->n_nodes ? ir->n_nodes : 1) * sizeof *g->chain_at);
    if (!g->attn_at || !g->padded || !g->chain_at || !g->offset || !g->output_of || !g->views || !g->scratch || !g->dnnl || !g->fused || !g->bytes || !g->alias ||
        !g->bias_of || !g->bias_out || !g->gelu_of || !g->same_as) {
        wnn__cpu_graph_free(g);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t v = 0; v < ir->n_values; v++) {
        g->offset[v] = SIZE_MAX;
        g->output_of[v] = -1;
        g->alias[v] = g->same_as[v] = WNN__NONE;
        g->views[v].desc = ir->values[v].desc;
        if (ir->values[v].kind == WNN__VALUE_CONSTANT)
            g->views[v].data = ir->values[v].data;
    }
    for (uint32_t i = ir->n_outputs; i-- > 0;)
        g->output_of[ir->output_values[i]] = (int32_t)i;
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        g->bias_of[n] = g->bias_out[n] = g->gelu_of[n] = g->attn_at[n] = g->chain_at[n] = WNN__NONE;
    alias_constants(g);
    wnn_status s = compile_dnnl(g);
    if (s == WNN_OK)
        s = fuse_attention(g);
    if (s == WNN_OK)
        fuse_matmul_bias(g);
    if (s == WNN_OK && promote(g))
        s = promote_values(g);
    if (s == WNN_OK) /* after promote(): the chain's nodes keep their meaning in float32 */
        wnn__gelu_find(ir, g->output_of, g->fused, g->gelu_of, NULL);
    if (s == WNN_OK)
        s = fuse_attention(g);
    if (s == WNN_OK)
        s = fuse_elementwise(g);
    if (s == WNN_OK)
        alias_reshapes(g);
    if (s == WNN_OK)
        s = plan(g);
    if (s == WNN_OK)
        plan_padding(g);
    if (s != WNN_OK) {
        wnn__cpu_graph_free(g);
        return s;
    }
    uint64_t computed = 0;
    bool has_dnnl = false;
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        has_dnnl |= g->dnnl[n] != NULL;
        for (uint32_t j = 0; j < node->n_out; j++)
            computed += wnn__shape_count(&ir->values[node->out[j]].desc);
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE)
                g->work += wnn__shape_count(&ir->values[node->in[j]].desc);
        g->work += wnn__cpu_node_macs(ir, node) / 8;
    }
    g->work += computed;
    g->on_team = has_dnnl || computed >= TEAM_MIN_ELEMENTS;
    *out = g;
    return WNN_OK;
}

size_t wnn__cpu_graph_arena_size(const wnn__cpu_graph *g) { return g->arena_size; }

void wnn__cpu_graph_census(const wnn__cpu_graph *g, uint32_t *transposes, uint32_t *reorders)
{
    *transposes = *reorders = 0;
    for (uint32_t n = 0; n < g->ir->n_nodes; n++) {
        *transposes += !g->fused[n] && !g->dnnl[n] && g->attn_at[n] == WNN__NONE &&
                       g->ir->nodes[n].op == WNN__OP_TRANSPOSE;
        *reorders += g->dnnl[n] ? wnn__dnnl_node_reorders(g->dnnl[n]) : 0;
    }
}

void wnn__cpu_graph_chains(const wnn__cpu_graph *g, uint32_t *chains, uint32_t *nodes)
{
    *chains = g->n_chains;
    *nodes = 0;
    for (uint32_t i = 0; i < g->n_chains; i++)
        *nodes += g->chains[i].n_nodes;
}

void wnn__cpu_graph_counts(const wnn__cpu_graph *g, uint32_t *n_inputs, uint32_t *n_outputs)
{
    *n_inputs = g->ir->n_inputs;
    *n_outputs = g->ir->n_outputs;
}

void wnn__cpu_graph_bind(wnn__cpu_graph *g, void *arena, void *const *constants)
{
    g->arena = arena;
    for (uint32_t v = 0; constants && v < g->ir->n_values; v++)
        if (g->ir->values[v].kind == WNN__VALUE_CONSTANT)
            g->views[v].data = constants[v];
    for (uint32_t v = 0; constants && v < g->ir->n_values; v++)
        if (g->alias[v] != WNN__NONE)
            g->views[v].data = g->views[g->alias[v]].data;
    if (g->promoted && constants) /* their bytes may still be on their way (null's queue) */
        g->widen_from = constants;
}

void wnn__cpu_graph_free(wnn__cpu_graph *g)
{
    if (!g)
        return;
    free(g->offset);
    free(g->output_of);
    free(g->views);
    free(g->scratch);
    for (uint32_t n = 0; g->dnnl && n < g->ir->n_nodes; n++)
        wnn__dnnl_free(g->dnnl[n]);
    free(g->dnnl);
    free(g->fused);
    free(g->bytes);
    free(g->alias);
    free(g->bias_of);
    free(g->gelu_of);
    free(g->same_as);
    free(g->attn);
    free(g->attn_at);
    for (uint32_t n = 0; g->padded && n < g->ir->n_nodes; n++)
        free((void *)g->padded[n].data);
    free(g->padded);
    free(g->chains);
    free(g->chain_at);
    free(g->bias_out);
    wnn__cpu_layout_free(g->layout);
    for (uint32_t v = 0; g->const32 && v < g->ir->n_values; v++)
        free(g->const32[v]);
    free(g->const32);
    free(g);
}

static wnn_status run_here(wnn__cpu_graph *g, void *const *inputs, void *const *outputs)
{
    const wnn__ir *ir = g->ir;
    if (g->widen_from) {
        widen_constants(g, g->widen_from);
        g->widen_from = NULL;
    }
    if (g->pad_pending)
        pad_constants(g);
    for (uint32_t v = 0; v < ir->n_values; v++) {
        if (g->offset[v] != SIZE_MAX)
            g->views[v].data = (char *)g->arena + g->offset[v];
        else if (g->output_of[v] >= 0)
            g->views[v].data = outputs[g->output_of[v]];
    }
    for (uint32_t i = 0; i < ir->n_inputs; i++) {
        uint32_t v = ir->input_values[i];
        if (g->offset[v] == SIZE_MAX)
            g->views[v].data = inputs[i];
        else /* promoted */
            wnn__half_to_float_n(g->views[v].data, inputs[i], wnn__shape_count(&ir->values[v].desc));
    }
    bool profile = wnn__cpu_profile_on();
    for (uint32_t n = 0; n < ir->n_nodes; n++) {
        const wnn__node *node = &ir->nodes[n];
        if (g->fused[n])
            continue;
        uint64_t t0 = profile ? wnn__cpu_profile_now() : 0;
        if (g->dnnl[n]) {
            wnn_status s = wnn__dnnl_run(g->dnnl[n], g->views);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(wnn__dnnl_node_xnnpack(g->dnnl[n]) ? WNN__CPU_PROFILE_XNNPACK : (int)node->op, t0);
            continue;
        }
        wnn__view *in = g->scratch, *out = g->scratch + node->n_in;
        for (uint32_t j = 0; j < node->n_in; j++) {
            if (node->in[j] == WNN__NONE)
                in[j] = (wnn__view){{WNN_DATA_TYPE_INVALID, 0, {0}}, NULL};
            else
                in[j] = g->views[node->in[j]];
        }
        for (uint32_t j = 0; j < node->n_out; j++)
            out[j] = g->views[node->out[j]];
        if (g->padded[n].data && g->bias_of[n] == WNN__NONE) {
            wnn_status s = node->op == WNN__OP_GEMM ? wnn__k_gemm_padded(node, in, &g->padded[n], out)
                                                    : wnn__k_matmul_padded(node, in, NULL, &g->padded[n], out);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(node->op, t0);
            continue;
        }
        if (g->bias_of[n] != WNN__NONE) {
            out[0] = g->views[g->bias_out[n]];
            wnn_status s = wnn__k_matmul_padded(node, in, &g->views[g->bias_of[n]], &g->padded[n], out);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(node->op, t0); /* the product's row, with its bias */
            continue;
        }
        if (g->chain_at[n] != WNN__NONE) {
            wnn_status s = wnn__k_ew_chain(ir, &g->chains[g->chain_at[n]], g->views);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(WNN__CPU_PROFILE_CHAIN, t0);
            continue;
        }
        if (g->attn_at[n] != WNN__NONE) {
            wnn_status s = wnn__k_attention(&g->attn[g->attn_at[n]], g->views);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(WNN__CPU_PROFILE_ATTENTION, t0);
            continue;
        }
        if (g->gelu_of[n] != WNN__NONE) {
            static const wnn__node gelu = {.op = WNN__OP_GELU, .n_in = 1, .n_out = 1};
            in[0] = g->views[g->gelu_of[n]];
            wnn_status s = wnn__cpu_kernel_for(WNN__OP_GELU)(&gelu, in, out);
            if (s != WNN_OK)
                return s;
            if (profile)
                wnn__cpu_profile_add(WNN__OP_GELU, t0);
            continue;
        }
        wnn_status s = wnn__cpu_kernel_for(node->op)(node, in, out);
        if (s != WNN_OK)
            return s;
        if (profile)
            wnn__cpu_profile_add(node->op, t0);
    }
    for (uint32_t i = 0; i < ir->n_outputs; i++) {
        uint32_t v = ir->output_values[i];
        if (g->output_of[v] == (int32_t)i && g->offset[v] != SIZE_MAX) /* promoted */
            wnn__float_to_half_n(outputs[i], g->views[v].data, wnn__shape_count(&ir->values[v].desc));
    }
    /* one operand under several output names: copy to the later ones */
    for (uint32_t i = 0; i < ir->n_outputs; i++) {
        uint32_t v = ir->output_values[i];
        if (g->output_of[v] != (int32_t)i)
            memcpy(outputs[i], outputs[g->output_of[v]], (size_t)wnn_operand_desc_byte_length(&ir->values[v].desc));
    }
    return WNN_OK;
}

typedef struct graph_call {
    wnn__cpu_graph *g;
    void *const *inputs, *const *outputs;
    wnn_status status;
} graph_call;

static void graph_call_run(void *p)
{
    graph_call *c = p;
    c->status = run_here(c->g, c->inputs, c->outputs);
}

wnn_status wnn__cpu_graph_run(wnn__cpu_graph *g, void *const *inputs, void *const *outputs)
{
    graph_call c = {g, inputs, outputs, WNN_OK};
    if (g->work * (wnn__pool_size() - 1) < ALONE_MAX_WORK && wnn__pool_handoff_sleeps()) {
        wnn__pool_run_alone(graph_call_run, &c);
        return c.status;
    }
    if (!g->on_team)
        return run_here(g, inputs, outputs);
    /* every parallel region of the run (wnn's and oneDNN's) from one thread,
    ** so that they share one team of threads (platform/pool.c) */
    wnn__pool_call(graph_call_run, &c);
    return c.status;
}
