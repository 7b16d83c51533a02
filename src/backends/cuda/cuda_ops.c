/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_ops.c -- the operators of the cuda backend: for each node, a plan
** computed once at compile time and a run that queues its kernels.
**
** This is the one place that says which operator has a CUDA kernel: an
** operator (or a data type of one) missing from prepare() makes the whole
** graph NOT_SUPPORTED at compile time, which core reports as a clean build
** error; nothing falls back to a wrong result. Matrix products go to cuBLAS
** (float32 in true float32, float16 with float32 accumulation); everything
** else to the kernels of kernels_*.cu.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_internal.h"
#include "backends/cuda/cuda_kernels.h"
#include "core/half.h"

/* ---- helpers ------------------------------------------------------------------ */

static const wnn_operand_desc *in_desc(const wnn__ir *ir, const wnn__node *node, uint32_t j)
{
    return &ir->values[node->in[j]].desc;
}

static const wnn_operand_desc *out_desc(const wnn__ir *ir, const wnn__node *node, uint32_t j)
{
    return &ir->values[node->out[j]].desc;
}

static bool has_in(const wnn__node *node, uint32_t j) { return j < node->n_in && node->in[j] != WNN__NONE; }

static const void *in_ptr(const wnn__cu_exec *x, const wnn__cu_node *n, uint32_t j)
{
    return has_in(n->node, j) ? x->ptr[n->node->in[j]] : NULL;
}

static void *out_ptr(const wnn__cu_exec *x, const wnn__cu_node *n, uint32_t j) { return x->ptr[n->node->out[j]]; }

static uint32_t elem_size(wnn_data_type t) { return (uint32_t)wnn_data_type_size(t); }

static uint64_t product(const uint32_t *shape, uint32_t from, uint32_t to)
{
    uint64_t n = 1;
    for (uint32_t i = from; i < to; i++)
        n *= shape[i];
    return n;
}

static void row_major_strides(const wnn_operand_desc *d, int64_t *stride)
{
    int64_t step = 1;
    for (uint32_t i = d->rank; i-- > 0;) {
        stride[i] = step;
        step *= d->shape[i];
    }
}

static bool is_float(wnn_data_type t) { return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16; }

static bool is_element_type(wnn_data_type t) { return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8; }

static bool is_index_type(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_INT64;
}

/* A zeroed plan of size bytes kept by n. */
static void *new_plan(wnn__cu_node *n, size_t size)
{
    n->plan = calloc(1, size);
    return n->plan;
}

#define PLAN(type, n) ((type *)(n)->plan)

/* ---- copies ------------------------------------------------------------------------ */

typedef struct copy_plan {
    size_t bytes;
} copy_plan;

static wnn_status run_copy(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const copy_plan *p = n->plan;
    return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), in_ptr(x, n, 0), p->bytes, cudaMemcpyDeviceToDevice,
                                          x->stream));
}

/* Output 0 is a bit-exact copy of input 0 (reshape, identity, same-type
** cast); the planner may let it share the input's memory instead. */
static wnn_status prep_copy(const wnn__ir *ir, wnn__cu_node *n)
{
    copy_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->bytes = (size_t)wnn_operand_desc_byte_length(out_desc(ir, n->node, 0));
    n->run = run_copy;
    n->alias = true;
    return WNN_OK;
}

/* ---- broadcasting element-wise --------------------------------------------------- */

/* The output shape with every input's strides (0 where broadcast), size-1
** dimensions dropped and neighbours merged where every input walks them
** contiguously. */
static void make_bcast(wnn__cu_bcast *p, const wnn_operand_desc *out, const wnn_operand_desc *const *in,
                       uint32_t n_in)
{
    uint32_t rank = out->rank;
    uint64_t stride[WNN__CU_MAX_IN][WNN_MAX_RANK];
    memset(p, 0, sizeof *p);
    p->n_in = n_in;
    p->count = wnn__cu_count(out);
    p->flat = 1;
    for (uint32_t k = 0; k < n_in; k++) {
        const wnn_operand_desc *d = in[k];
        uint64_t step = 1;
        for (uint32_t i = rank; i-- > 0;) {
            uint64_t dim = i + d->rank >= rank ? d->shape[i + d->rank - rank] : 1;
            stride[k][i] = dim == 1 ? 0 : step;
            step *= dim;
        }
        uint64_t c = wnn__cu_count(d);
        if (c == 1 && p->count != 1)
            p->scalar_mask |= 1u << k;
        else if (c != p->count)
            p->flat = 0;
    }
    for (uint32_t i = 0; i < rank; i++) {
        uint64_t dim = out->shape[i];
        if (dim == 1)
            continue;
        uint32_t r = p->rank;
        bool merge = r > 0;
        for (uint32_t k = 0; k < n_in && merge; k++)
            merge = p->stride[k][r - 1] == stride[k][i] * dim;
        if (merge) {
            p->shape[r - 1] *= (uint32_t)dim;
            for (uint32_t k = 0; k < n_in; k++)
                p->stride[k][r - 1] = (uint32_t)stride[k][i];
            continue;
        }
        p->shape[r] = (uint32_t)dim;
        for (uint32_t k = 0; k < n_in; k++)
            p->stride[k][r] = (uint32_t)stride[k][i];
        p->rank++;
    }
    if (p->rank == 0) {
        p->rank = 1;
        p->shape[0] = 1;
    }
}

typedef struct binary_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_bcast b;
} binary_plan;

static wnn_status run_binary(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const binary_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_binary(x->stream, p->op, p->t, &p->b, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                         out_ptr(x, n, 0)));
}

static wnn_status prep_binary(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (node->n_in != 2 || !has_in(node, 1) || !wnn__cu_binary_supported(node->op, t))
        return WNN_STATUS_NOT_SUPPORTED;
    binary_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    const wnn_operand_desc *in[2] = {in_desc(ir, node, 0), in_desc(ir, node, 1)};
    p->op = node->op;
    p->t = t;
    make_bcast(&p->b, out_desc(ir, node, 0), in, 2);
    n->run = run_binary;
    return WNN_OK;
}

typedef struct where_plan {
    uint32_t size;
    wnn__cu_bcast b;
} where_plan;

static wnn_status run_where(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const where_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_where(x->stream, p->size, &p->b, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                        in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

static wnn_status prep_where(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = out_desc(ir, node, 0)->data_type;
    if (node->n_in != 3 || !has_in(node, 1) || !has_in(node, 2) || !is_element_type(t) ||
        in_desc(ir, node, 0)->data_type != WNN_DATA_TYPE_UINT8)
        return WNN_STATUS_NOT_SUPPORTED;
    where_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    const wnn_operand_desc *in[3] = {in_desc(ir, node, 0), in_desc(ir, node, 1), in_desc(ir, node, 2)};
    p->size = elem_size(t);
    make_bcast(&p->b, out_desc(ir, node, 0), in, 3);
    n->run = run_where;
    return WNN_OK;
}

/* ---- unary, clamp, cast --------------------------------------------------------------- */

typedef struct unary_plan {
    wnn__op op;
    wnn_data_type t;
    uint64_t count;
    double alpha, beta;
} unary_plan;

static wnn_status run_unary(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const unary_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_unary(x->stream, p->op, p->t, p->count, p->alpha, p->beta, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_unary(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (!wnn__cu_unary_supported(node->op, t))
        return WNN_STATUS_NOT_SUPPORTED;
    unary_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = node->op;
    p->t = t;
    p->count = wnn__cu_count(out_desc(ir, node, 0));
    if (node->op == WNN__OP_ELU || node->op == WNN__OP_HARD_SIGMOID || node->op == WNN__OP_LEAKY_RELU ||
        node->op == WNN__OP_LINEAR) {
        p->alpha = node->attrs.activation.alpha;
        p->beta = node->attrs.activation.beta;
    }
    n->run = run_unary;
    return WNN_OK;
}

typedef struct clamp_plan {
    wnn_data_type t;
    uint64_t count;
    wnn__cu_clamp c;
} clamp_plan;

static wnn_status run_clamp(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const clamp_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_clamp_run(x->stream, p->t, p->count, p->c, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_clamp(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    if (!wnn__cu_clamp_supported(t))
        return WNN_STATUS_NOT_SUPPORTED;
    clamp_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = t;
    p->count = wnn__cu_count(out_desc(ir, node, 0));
    /* a NaN bound clamps nothing */
    p->c.lo = isnan(node->attrs.clamp.min_value) ? -INFINITY : node->attrs.clamp.min_value;
    p->c.hi = isnan(node->attrs.clamp.max_value) ? INFINITY : node->attrs.clamp.max_value;
    p->c.lo_bits = node->attrs.clamp.lo;
    p->c.hi_bits = node->attrs.clamp.hi;
    n->run = run_clamp;
    return WNN_OK;
}

typedef struct cast_plan {
    wnn_data_type from, to;
    uint64_t count;
} cast_plan;

static wnn_status run_cast(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const cast_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_cast(x->stream, p->from, p->to, p->count, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_cast(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn_data_type from = in_desc(ir, node, 0)->data_type, to = out_desc(ir, node, 0)->data_type;
    if (!wnn__cu_cast_supported(from, to))
        return WNN_STATUS_NOT_SUPPORTED;
    if (from == to) /* bit-exact, NaN payloads included */
        return prep_copy(ir, n);
    cast_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->from = from;
    p->to = to;
    p->count = wnn__cu_count(out_desc(ir, node, 0));
    n->run = run_cast;
    return WNN_OK;
}

/* reshape and identity copy bytes, so packed int4/uint4 pass too */
static wnn_status prep_identity(const wnn__ir *ir, wnn__cu_node *n) { return prep_copy(ir, n); }

/* ---- strided copies: transpose, slice, expand, reverse ----------------------------------- */

typedef struct strided_plan {
    uint32_t size;
    int64_t base;  /* input element offset of the first output element */
    bool memcpy_ok; /* one contiguous run: a plain copy */
    wnn__cu_strided s;
} strided_plan;

static wnn_status run_strided(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const strided_plan *p = n->plan;
    const char *src = (const char *)in_ptr(x, n, 0) + p->base * (int64_t)p->size;
    if (p->memcpy_ok)
        return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), src, p->s.count * p->size, cudaMemcpyDeviceToDevice,
                                              x->stream));
    return wnn__cu_status(wnn__cu_copy_strided(x->stream, p->size, &p->s, src, out_ptr(x, n, 0)));
}

/* Plans out (shape, walked in row-major order) reading the input at base +
** sum(index[d] * src_stride[d]). */
static wnn_status prep_strided(wnn__cu_node *n, const wnn_operand_desc *out, const int64_t *src_stride, int64_t base)
{
    if (!is_element_type(out->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    strided_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(out->data_type);
    p->base = base;
    int64_t dst_stride[WNN_MAX_RANK];
    row_major_strides(out, dst_stride);
    wnn__cu_strided *s = &p->s;
    s->count = wnn__cu_count(out);
    for (uint32_t i = 0; i < out->rank; i++) {
        uint32_t dim = out->shape[i];
        if (dim == 1)
            continue;
        if (s->rank > 0 && s->src_stride[s->rank - 1] == src_stride[i] * dim &&
            s->dst_stride[s->rank - 1] == dst_stride[i] * dim) {
            s->shape[s->rank - 1] *= dim;
            s->src_stride[s->rank - 1] = src_stride[i];
            s->dst_stride[s->rank - 1] = dst_stride[i];
            continue;
        }
        s->shape[s->rank] = dim;
        s->src_stride[s->rank] = src_stride[i];
        s->dst_stride[s->rank] = dst_stride[i];
        s->rank++;
    }
    if (s->rank == 0) {
        s->rank = 1;
        s->shape[0] = 1;
        s->src_stride[0] = s->dst_stride[0] = 1;
    }
    p->memcpy_ok = s->rank == 1 && s->src_stride[0] == 1;
    n->run = run_strided;
    return WNN_OK;
}

static wnn_status prep_transpose(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t in_stride[WNN_MAX_RANK], src[WNN_MAX_RANK];
    row_major_strides(in, in_stride);
    for (uint32_t i = 0; i < out->rank; i++)
        src[i] = in_stride[n->node->attrs.transpose.perm[i]];
    return prep_strided(n, out, src, 0);
}

static wnn_status prep_slice(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t in_stride[WNN_MAX_RANK], src[WNN_MAX_RANK], base = 0;
    row_major_strides(in, in_stride);
    for (uint32_t i = 0; i < out->rank; i++) {
        base += (int64_t)n->node->attrs.slice.starts[i] * in_stride[i];
        src[i] = (int64_t)n->node->attrs.slice.strides[i] * in_stride[i];
    }
    return prep_strided(n, out, src, base);
}

static wnn_status prep_expand(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t src[WNN_MAX_RANK], step = 1;
    for (uint32_t i = out->rank; i-- > 0;) {
        uint32_t dim = i + in->rank >= out->rank ? in->shape[i + in->rank - out->rank] : 1;
        src[i] = dim == 1 ? 0 : step;
        step *= dim;
    }
    return prep_strided(n, out, src, 0);
}

static wnn_status prep_reverse(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *out = out_desc(ir, n->node, 0);
    int64_t src[WNN_MAX_RANK], base = 0;
    row_major_strides(in, src);
    for (uint32_t i = 0; i < in->rank; i++)
        if (n->node->attrs.reverse.mask >> i & 1u) {
            base += (int64_t)(in->shape[i] - 1) * src[i];
            src[i] = -src[i];
        }
    return prep_strided(n, out, src, base);
}

/* ---- concat and split: rows of bytes ------------------------------------------------------ */

typedef struct rows_part {
    uint64_t row_bytes, offset; /* offset: bytes into each row of the whole */
} rows_part;

typedef struct rows_plan {
    uint64_t rows, whole_row; /* whole_row: bytes of a row of the unsplit tensor */
    uint32_t parts;
    rows_part part[];
} rows_plan;

static wnn_status run_concat(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rows_plan *p = n->plan;
    char *dst = out_ptr(x, n, 0);
    for (uint32_t k = 0; k < p->parts; k++) {
        const rows_part *q = &p->part[k];
        cudaError_t e = wnn__cu_copy_rows(x->stream, p->rows, q->row_bytes, q->row_bytes, p->whole_row,
                                          in_ptr(x, n, k), dst + q->offset);
        if (e != cudaSuccess)
            return wnn__cu_status(e);
    }
    return WNN_OK;
}

static wnn_status run_split(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rows_plan *p = n->plan;
    const char *src = in_ptr(x, n, 0);
    for (uint32_t k = 0; k < p->parts; k++) {
        const rows_part *q = &p->part[k];
        cudaError_t e = wnn__cu_copy_rows(x->stream, p->rows, q->row_bytes, p->whole_row, q->row_bytes,
                                          src + q->offset, out_ptr(x, n, k));
        if (e != cudaSuccess)
            return wnn__cu_status(e);
    }
    return WNN_OK;
}

static wnn_status prep_rows(const wnn__ir *ir, wnn__cu_node *n, bool concat)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *whole = concat ? out_desc(ir, node, 0) : in_desc(ir, node, 0);
    uint32_t parts = concat ? node->n_in : node->n_out, axis = node->attrs.axis.axis;
    if (!is_element_type(whole->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    rows_plan *p = new_plan(n, sizeof *p + parts * sizeof(rows_part));
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    uint64_t size = elem_size(whole->data_type), after = product(whole->shape, axis + 1, whole->rank);
    p->rows = product(whole->shape, 0, axis);
    p->whole_row = whole->shape[axis] * after * size;
    p->parts = parts;
    uint64_t offset = 0;
    for (uint32_t k = 0; k < parts; k++) {
        const wnn_operand_desc *d = concat ? in_desc(ir, node, k) : out_desc(ir, node, k);
        p->part[k].row_bytes = d->shape[axis] * after * size;
        p->part[k].offset = offset;
        offset += p->part[k].row_bytes;
    }
    n->run = concat ? run_concat : run_split;
    return WNN_OK;
}

static wnn_status prep_concat(const wnn__ir *ir, wnn__cu_node *n) { return prep_rows(ir, n, true); }
static wnn_status prep_split(const wnn__ir *ir, wnn__cu_node *n) { return prep_rows(ir, n, false); }

/* ---- index maps: tile, pad ------------------------------------------------------------------ */

typedef struct map_plan {
    uint32_t size;
    wnn__cu_index_map m;
} map_plan;

static wnn_status run_index_map(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const map_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_index_map_run(x->stream, p->size, &p->m, x->aux, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

/* WebNN's cast of an MLNumber to the type: floats round, integers truncate
** toward zero and saturate, NaN becomes 0 (the cpu's encode_number). */
static uint64_t encode_number(wnn_data_type t, double v)
{
    uint64_t bits = 0;
    double z = isnan(v) ? 0.0 : trunc(v);
#define STORE_INT(type, lo, hi)                                                                        \
    do {                                                                                               \
        type r = z <= (double)(lo) ? (type)(lo) : z >= (double)(hi) ? (type)(hi) : (type)z;            \
        memcpy(&bits, &r, sizeof r);                                                                   \
    } while (0)
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: {
        float f = (float)v;
        memcpy(&bits, &f, sizeof f);
        break;
    }
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h = wnn__float_to_half((float)v);
        memcpy(&bits, &h, sizeof h);
        break;
    }
    case WNN_DATA_TYPE_INT32: STORE_INT(int32_t, INT32_MIN, INT32_MAX); break;
    case WNN_DATA_TYPE_UINT32: STORE_INT(uint32_t, 0, UINT32_MAX); break;
    case WNN_DATA_TYPE_INT64: STORE_INT(int64_t, INT64_MIN, INT64_MAX); break;
    case WNN_DATA_TYPE_UINT64: STORE_INT(uint64_t, 0, UINT64_MAX); break;
    case WNN_DATA_TYPE_INT8: STORE_INT(int8_t, INT8_MIN, INT8_MAX); break;
    case WNN_DATA_TYPE_UINT8: STORE_INT(uint8_t, 0, UINT8_MAX); break;
    default: break;
    }
#undef STORE_INT
    return bits;
}

/* Input coordinate of padded coordinate p (-begin <= p < n + end) for edge
** and reflection padding. */
static int64_t pad_source(int64_t p, int64_t n, wnn_pad_mode mode)
{
    if (mode == WNN_PAD_MODE_EDGE)
        return p < 0 ? 0 : p >= n ? n - 1 : p;
    if (p < 0)
        p = -p;
    if (p >= n)
        p = 2 * (n - 1) - p;
    return p;
}

static wnn_status prep_index_map(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!is_element_type(out->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    map_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(out->data_type);
    wnn__cu_index_map *m = &p->m;
    m->rank = out->rank ? out->rank : 1;
    m->count = wnn__cu_count(out);
    uint64_t total = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        m->shape[d] = out->rank ? out->shape[d] : 1;
        m->table_at[d] = (uint32_t)total;
        total += m->shape[d];
    }
    int64_t *table = malloc(total * sizeof *table);
    if (!table)
        return WNN_STATUS_OUT_OF_MEMORY;
    int64_t in_stride[WNN_MAX_RANK];
    row_major_strides(in, in_stride);
    if (node->op == WNN__OP_PAD)
        m->fill = encode_number(out->data_type, node->attrs.pad.value);
    for (uint32_t d = 0; d < m->rank; d++) {
        int64_t dim = in->rank ? in->shape[d] : 1, stride = in->rank ? in_stride[d] : 0;
        for (uint32_t o = 0; o < m->shape[d]; o++) {
            int64_t *t = &table[m->table_at[d] + o];
            if (node->op == WNN__OP_TILE) {
                *t = (int64_t)(o % dim) * stride;
                continue;
            }
            int64_t q = (int64_t)o - node->attrs.pad.begin[d];
            if (q >= 0 && q < dim)
                *t = q * stride;
            else if (node->attrs.pad.mode == WNN_PAD_MODE_CONSTANT)
                *t = INT64_MIN / 16; /* any negative entry pads; the sum stays negative */
            else
                *t = pad_source(q, dim, node->attrs.pad.mode) * stride;
        }
    }
    n->aux_host = table;
    n->aux_bytes = total * sizeof *table;
    n->run = run_index_map;
    return WNN_OK;
}

/* ---- triangular -------------------------------------------------------------------------- */

typedef struct triangular_plan {
    uint32_t size, h, w;
    uint64_t count;
    bool upper;
    int32_t diagonal;
} triangular_plan;

static wnn_status run_triangular(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const triangular_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_triangular(x->stream, p->size, p->count, p->h, p->w, p->upper, p->diagonal,
                                             in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_triangular(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *d = out_desc(ir, n->node, 0);
    if (!is_element_type(d->data_type) || d->rank < 2)
        return WNN_STATUS_NOT_SUPPORTED;
    triangular_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(d->data_type);
    p->h = d->shape[d->rank - 2];
    p->w = d->shape[d->rank - 1];
    p->count = wnn__cu_count(d);
    p->upper = n->node->attrs.triangular.upper;
    p->diagonal = n->node->attrs.triangular.diagonal;
    n->run = run_triangular;
    return WNN_OK;
}

/* ---- gather and scatter ------------------------------------------------------------------- */

typedef struct gather_plan {
    uint32_t size;
    wnn_data_type index_type;
    uint64_t out_count;
    union {
        wnn__cu_gather g;
        wnn__cu_elements e;
        wnn__cu_nd nd;
    } u;
} gather_plan;

static wnn_status run_gather(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_run(x->stream, p->size, p->index_type, &p->u.g, in_ptr(x, n, 0),
                                             in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

static wnn_status run_gather_elements(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_elements(x->stream, p->size, p->index_type, &p->u.e, in_ptr(x, n, 0),
                                                  in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

static wnn_status run_gather_nd(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_gather_nd(x->stream, p->size, p->index_type, &p->u.nd, in_ptr(x, n, 0),
                                            in_ptr(x, n, 1), out_ptr(x, n, 0)));
}

/* Scatters start from a copy of the input. */
static wnn_status scatter_copy(const wnn__cu_exec *x, const wnn__cu_node *n, const gather_plan *p)
{
    return wnn__cu_status(cudaMemcpyAsync(out_ptr(x, n, 0), in_ptr(x, n, 0), p->out_count * p->size,
                                          cudaMemcpyDeviceToDevice, x->stream));
}

static wnn_status run_scatter_elements(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    wnn_status s = scatter_copy(x, n, p);
    if (s == WNN_OK)
        s = wnn__cu_status(wnn__cu_scatter_elements(x->stream, p->size, p->index_type, &p->u.e, in_ptr(x, n, 1),
                                                    in_ptr(x, n, 2), out_ptr(x, n, 0), x->scratch, p->out_count));
    return s;
}

static wnn_status run_scatter_nd(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gather_plan *p = n->plan;
    wnn_status s = scatter_copy(x, n, p);
    if (s == WNN_OK)
        s = wnn__cu_status(wnn__cu_scatter_nd(x->stream, p->size, p->index_type, &p->u.nd, in_ptr(x, n, 1),
                                              in_ptr(x, n, 2), out_ptr(x, n, 0), x->scratch, p->out_count));
    return s;
}

static wnn_status prep_gather_common(const wnn__ir *ir, wnn__cu_node *n, gather_plan **out)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0);
    if (!is_element_type(in->data_type) || !has_in(node, 1) || !is_index_type(in_desc(ir, node, 1)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    gather_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->size = elem_size(in->data_type);
    p->index_type = in_desc(ir, node, 1)->data_type;
    p->out_count = wnn__cu_count(out_desc(ir, node, 0));
    *out = p;
    return WNN_OK;
}

static wnn_status prep_gather(const wnn__ir *ir, wnn__cu_node *n)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0);
    uint32_t axis = n->node->attrs.axis.axis;
    p->u.g.outer = product(in->shape, 0, axis);
    p->u.g.axis_len = in->shape[axis];
    p->u.g.inner = product(in->shape, axis + 1, in->rank);
    p->u.g.n_idx = wnn__cu_count(in_desc(ir, n->node, 1));
    p->u.g.count = p->out_count;
    n->run = run_gather;
    return WNN_OK;
}

static wnn_status prep_elements(const wnn__ir *ir, wnn__cu_node *n, bool scatter)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *idx = in_desc(ir, n->node, 1);
    uint32_t axis = n->node->attrs.axis.axis;
    p->u.e.outer = product(idx->shape, 0, axis);
    p->u.e.inner = product(idx->shape, axis + 1, idx->rank);
    p->u.e.idx_axis = idx->shape[axis];
    p->u.e.in_axis = in->shape[axis];
    p->u.e.count = wnn__cu_count(idx);
    if (scatter) {
        if (!has_in(n->node, 2) || p->u.e.count > INT32_MAX)
            return WNN_STATUS_NOT_SUPPORTED;
        n->scratch_bytes = p->out_count * sizeof(int32_t);
        n->run = run_scatter_elements;
    } else {
        n->run = run_gather_elements;
    }
    return WNN_OK;
}

static wnn_status prep_gather_elements(const wnn__ir *ir, wnn__cu_node *n) { return prep_elements(ir, n, false); }
static wnn_status prep_scatter_elements(const wnn__ir *ir, wnn__cu_node *n) { return prep_elements(ir, n, true); }

static wnn_status prep_nd(const wnn__ir *ir, wnn__cu_node *n, bool scatter)
{
    gather_plan *p;
    wnn_status s = prep_gather_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *in = in_desc(ir, n->node, 0), *idx = in_desc(ir, n->node, 1);
    uint32_t k = idx->shape[idx->rank - 1];
    int64_t stride[WNN_MAX_RANK];
    row_major_strides(in, stride);
    p->u.nd.k = k;
    for (uint32_t j = 0; j < k; j++) {
        p->u.nd.dims[j] = in->shape[j];
        p->u.nd.strides[j] = (uint64_t)stride[j];
    }
    p->u.nd.slice = product(in->shape, k, in->rank);
    p->u.nd.n_slices = k ? wnn__cu_count(idx) / k : 0;
    if (scatter) {
        if (!has_in(n->node, 2) || p->u.nd.n_slices > INT32_MAX)
            return WNN_STATUS_NOT_SUPPORTED;
        n->scratch_bytes = p->out_count * sizeof(int32_t);
        n->run = run_scatter_nd;
    } else {
        n->run = run_gather_nd;
    }
    return WNN_OK;
}

static wnn_status prep_gather_nd(const wnn__ir *ir, wnn__cu_node *n) { return prep_nd(ir, n, false); }
static wnn_status prep_scatter_nd(const wnn__ir *ir, wnn__cu_node *n) { return prep_nd(ir, n, true); }

/* ---- along one axis: softmax, argMin/argMax, cumulativeSum ---------------------------------- */

typedef struct axis_plan {
    wnn_data_type t, out_type;
    uint64_t outer, inner;
    uint32_t len;
    bool flag_a, flag_b; /* argMax / (cumulativeSum) exclusive, reversed */
} axis_plan;

static wnn_status prep_axis(const wnn__ir *ir, wnn__cu_node *n, uint32_t axis, axis_plan **out)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (axis >= d->rank)
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = d->data_type;
    p->out_type = out_desc(ir, n->node, 0)->data_type;
    p->outer = product(d->shape, 0, axis);
    p->len = d->shape[axis];
    p->inner = product(d->shape, axis + 1, d->rank);
    *out = p;
    return WNN_OK;
}

static wnn_status run_softmax(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_softmax(x->stream, p->t, p->outer, p->len, p->inner, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_softmax(const wnn__ir *ir, wnn__cu_node *n)
{
    if (!is_float(in_desc(ir, n->node, 0)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.axis.axis, &p);
    if (s == WNN_OK)
        n->run = run_softmax;
    return s;
}

static wnn_status run_arg(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_arg_min_max(x->stream, p->flag_a, p->t, p->out_type, p->outer, p->len, p->inner,
                                              in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_arg(const wnn__ir *ir, wnn__cu_node *n)
{
    wnn_data_type t = in_desc(ir, n->node, 0)->data_type, o = out_desc(ir, n->node, 0)->data_type;
    if (!is_element_type(t) || (o != WNN_DATA_TYPE_INT32 && o != WNN_DATA_TYPE_INT64))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.arg_min_max.axis, &p);
    if (s != WNN_OK)
        return s;
    p->flag_a = n->node->op == WNN__OP_ARG_MAX;
    n->run = run_arg;
    return WNN_OK;
}

static wnn_status run_cumsum(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const axis_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_cumsum(x->stream, p->t, p->outer, p->len, p->inner, p->flag_a, p->flag_b,
                                         in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_cumsum(const wnn__ir *ir, wnn__cu_node *n)
{
    if (!wnn__cu_cumsum_supported(in_desc(ir, n->node, 0)->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    axis_plan *p;
    wnn_status s = prep_axis(ir, n, n->node->attrs.cumulative_sum.axis, &p);
    if (s != WNN_OK)
        return s;
    p->flag_a = n->node->attrs.cumulative_sum.exclusive;
    p->flag_b = n->node->attrs.cumulative_sum.reversed;
    n->run = run_cumsum;
    return WNN_OK;
}

/* ---- reductions and normalizations --------------------------------------------------------- */

/* Splits d's dimensions into kept and reduced ones (bit i of mask: axis i
** is reduced), dropping size-1 dimensions and merging neighbours of one
** kind. */
static void make_reduce(wnn__cu_reduce *p, const wnn_operand_desc *d, uint32_t mask)
{
    int64_t stride[WNN_MAX_RANK];
    row_major_strides(d, stride);
    memset(p, 0, sizeof *p);
    int last = -1;
    for (uint32_t i = 0; i < d->rank; i++) {
        if (d->shape[i] == 1)
            continue;
        int red = (mask >> i) & 1u;
        uint32_t *shape = red ? p->red_shape : p->kept_shape, *count = red ? &p->red_rank : &p->kept_rank;
        uint64_t *st = red ? p->red_stride : p->kept_stride;
        if (last == red) {
            shape[*count - 1] *= d->shape[i];
            st[*count - 1] = (uint64_t)stride[i];
        } else {
            shape[*count] = d->shape[i];
            st[*count] = (uint64_t)stride[i];
            (*count)++;
        }
        last = red;
    }
    p->n_out = p->n_red = 1;
    for (uint32_t i = 0; i < p->kept_rank; i++)
        p->n_out *= p->kept_shape[i];
    for (uint32_t i = 0; i < p->red_rank; i++)
        p->n_red *= p->red_shape[i];
}

typedef struct reduce_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_reduce r;
} reduce_plan;

static wnn_status run_reduce(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const reduce_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_reduce_run(x->stream, p->op, p->t, &p->r, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_reduce(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (!wnn__cu_reduce_supported(n->node->op, d->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    reduce_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = n->node->op;
    p->t = d->data_type;
    make_reduce(&p->r, d, n->node->attrs.reduction.axes_mask);
    n->run = run_reduce;
    return WNN_OK;
}

typedef struct norm_plan {
    wnn_data_type t;
    wnn__cu_norm p;
    /* batchNormalization */
    uint64_t count, inner, channels;
    double epsilon;
} norm_plan;

static wnn_status run_normalize(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const norm_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_normalize(x->stream, p->t, &p->p, in_ptr(x, n, 0), in_ptr(x, n, 1),
                                            in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

static wnn_status run_batch_norm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const norm_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_batch_norm(x->stream, p->t, p->count, p->inner, p->channels, p->epsilon,
                                             in_ptr(x, n, 0), in_ptr(x, n, 1), in_ptr(x, n, 2), in_ptr(x, n, 3),
                                             in_ptr(x, n, 4), out_ptr(x, n, 0)));
}

static wnn_status prep_norm_common(const wnn__ir *ir, wnn__cu_node *n, norm_plan **out)
{
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (!is_float(d->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    for (uint32_t j = 1; j < n->node->n_in; j++)
        if (has_in(n->node, j) && in_desc(ir, n->node, j)->data_type != d->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
    norm_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = d->data_type;
    *out = p;
    return WNN_OK;
}

static wnn_status prep_batch_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    if (!has_in(n->node, 1) || !has_in(n->node, 2))
        return WNN_STATUS_NOT_SUPPORTED;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    uint32_t axis = n->node->attrs.batch_norm.axis;
    p->count = wnn__cu_count(d);
    p->channels = d->shape[axis];
    p->inner = product(d->shape, axis + 1, d->rank);
    p->epsilon = n->node->attrs.batch_norm.epsilon;
    n->run = run_batch_norm;
    return WNN_OK;
}

static wnn_status prep_instance_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    if (d->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    bool nhwc = n->node->attrs.instance_norm.layout == WNN_INPUT_LAYOUT_NHWC;
    uint64_t b = d->shape[0], c = nhwc ? d->shape[3] : d->shape[1], h = nhwc ? d->shape[1] : d->shape[2],
             w = nhwc ? d->shape[2] : d->shape[3];
    wnn__cu_reduce *r = &p->p.r;
    r->kept_rank = 2;
    r->kept_shape[0] = (uint32_t)b;
    r->kept_shape[1] = (uint32_t)c;
    r->kept_stride[0] = c * h * w;
    r->kept_stride[1] = nhwc ? 1 : h * w;
    r->red_rank = 1;
    r->red_shape[0] = (uint32_t)(h * w);
    r->red_stride[0] = nhwc ? c : 1;
    r->n_out = b * c;
    r->n_red = h * w;
    p->p.epsilon = n->node->attrs.instance_norm.epsilon;
    p->p.by_channel = 1;
    p->p.chan_div = 1;
    p->p.channels = c;
    n->run = run_normalize;
    return WNN_OK;
}

/* layerNormalization: the reduced dimensions in the order of the axes, so
** that the reduced index is the index into scale and bias. */
static wnn_status prep_layer_norm(const wnn__ir *ir, wnn__cu_node *n)
{
    norm_plan *p;
    wnn_status s = prep_norm_common(ir, n, &p);
    if (s != WNN_OK)
        return s;
    const wnn_operand_desc *d = in_desc(ir, n->node, 0);
    const uint32_t *axes = n->node->attrs.layer_norm.axes;
    uint32_t n_axes = n->node->attrs.layer_norm.axes_count;
    int64_t stride[WNN_MAX_RANK];
    row_major_strides(d, stride);
    bool normalized[WNN_MAX_RANK] = {false};
    wnn__cu_reduce *r = &p->p.r;
    r->n_out = r->n_red = 1;
    for (uint32_t a = 0; a < n_axes; a++) {
        uint32_t ax = axes[a];
        normalized[ax] = true;
        r->n_red *= d->shape[ax];
        if (d->shape[ax] == 1)
            continue;
        if (r->red_rank > 0 && r->red_stride[r->red_rank - 1] == (uint64_t)stride[ax] * d->shape[ax]) {
            r->red_shape[r->red_rank - 1] *= d->shape[ax];
            r->red_stride[r->red_rank - 1] = (uint64_t)stride[ax];
            continue;
        }
        r->red_shape[r->red_rank] = d->shape[ax];
        r->red_stride[r->red_rank++] = (uint64_t)stride[ax];
    }
    for (uint32_t i = 0; i < d->rank; i++) {
        if (normalized[i] || d->shape[i] == 1)
            continue;
        r->n_out *= d->shape[i];
        if (r->kept_rank > 0 && r->kept_stride[r->kept_rank - 1] == (uint64_t)stride[i] * d->shape[i]) {
            r->kept_shape[r->kept_rank - 1] *= d->shape[i];
            r->kept_stride[r->kept_rank - 1] = (uint64_t)stride[i];
            continue;
        }
        r->kept_shape[r->kept_rank] = d->shape[i];
        r->kept_stride[r->kept_rank++] = (uint64_t)stride[i];
    }
    p->p.epsilon = n->node->attrs.layer_norm.epsilon;
    n->run = run_normalize;
    return WNN_OK;
}

/* ---- matmul and gemm through cuBLAS ---------------------------------------------------------- */

typedef struct matmul_plan {
    wnn_data_type t;
    int m, n, k;
    uint32_t batch_rank;              /* after merging; the last one goes to cuBLAS as its batch */
    uint32_t batch_shape[WNN_MAX_RANK];
    uint64_t a_stride[WNN_MAX_RANK], b_stride[WNN_MAX_RANK]; /* in matrices, 0 where broadcast */
    uint64_t batches;
} matmul_plan;

/* C[m x n] = A[m x k] * B[k x n], row-major, batch matrices of each apart:
** in column-major terms C^T = B^T * A^T, which is what cuBLAS computes. */
static cublasStatus_t gemm_batched(const wnn__cu_exec *x, wnn_data_type t, bool ta, bool tb, int m, int n, int k,
                                   float alpha, const void *a, int lda, long long sa, const void *b, int ldb,
                                   long long sb, float beta, void *c, long long sc, int batch)
{
    cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (t == WNN_DATA_TYPE_FLOAT32) {
        if (batch == 1)
            return cublasSgemm(x->blas, opb, opa, n, m, k, &alpha, b, ldb, a, lda, &beta, c, n);
        return cublasSgemmStridedBatched(x->blas, opb, opa, n, m, k, &alpha, b, ldb, sb, a, lda, sa, &beta, c, n,
                                         sc, batch);
    }
    if (batch == 1)
        return cublasGemmEx(x->blas, opb, opa, n, m, k, &alpha, b, CUDA_R_16F, ldb, a, CUDA_R_16F, lda, &beta, c,
                            CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    return cublasGemmStridedBatchedEx(x->blas, opb, opa, n, m, k, &alpha, b, CUDA_R_16F, ldb, sb, a, CUDA_R_16F,
                                      lda, sa, &beta, c, CUDA_R_16F, n, sc, batch, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT);
}

static wnn_status blas_status(cublasStatus_t s)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return WNN_OK;
    return s == CUBLAS_STATUS_ALLOC_FAILED ? WNN_STATUS_OUT_OF_MEMORY : WNN_STATUS_OPERATION_ERROR;
}

static wnn_status run_matmul(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const matmul_plan *p = n->plan;
    size_t esize = wnn_data_type_size(p->t);
    const char *a = in_ptr(x, n, 0), *b = in_ptr(x, n, 1);
    char *c = out_ptr(x, n, 0);
    uint64_t a_size = (uint64_t)p->m * p->k, b_size = (uint64_t)p->k * p->n, c_size = (uint64_t)p->m * p->n;
    if (p->batch_rank == 0)
        return blas_status(gemm_batched(x, p->t, false, false, p->m, p->n, p->k, 1.0f, a, p->k, 0, b, p->n, 0, 0.0f,
                                        c, 0, 1));
    /* the innermost batch dimension is cuBLAS's batch; the outer ones loop */
    uint32_t last = p->batch_rank - 1, inner = p->batch_shape[last];
    uint64_t outer = p->batches / inner;
    for (uint64_t o = 0; o < outer; o++) {
        uint64_t rest = o, ai = 0, bi = 0;
        for (uint32_t d = last; d-- > 0;) {
            uint64_t idx = rest % p->batch_shape[d];
            rest /= p->batch_shape[d];
            ai += idx * p->a_stride[d];
            bi += idx * p->b_stride[d];
        }
        cublasStatus_t s = gemm_batched(
            x, p->t, false, false, p->m, p->n, p->k, 1.0f, a + ai * a_size * esize, p->k,
            (long long)(p->a_stride[last] * a_size), b + bi * b_size * esize, p->n,
            (long long)(p->b_stride[last] * b_size), 0.0f, c + o * inner * c_size * esize, (long long)c_size, (int)inner);
        if (s != CUBLAS_STATUS_SUCCESS)
            return blas_status(s);
    }
    return WNN_OK;
}

static wnn_status prep_matmul(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn_operand_desc *ad = in_desc(ir, n->node, 0), *bd = in_desc(ir, n->node, 1), *od = out_desc(ir, n->node, 0);
    if (!is_float(od->data_type) || ad->data_type != od->data_type || bd->data_type != od->data_type ||
        ad->rank < 2 || bd->rank < 2)
        return WNN_STATUS_NOT_SUPPORTED;
    matmul_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = od->data_type;
    p->m = (int)ad->shape[ad->rank - 2];
    p->k = (int)ad->shape[ad->rank - 1];
    p->n = (int)bd->shape[bd->rank - 1];
    /* batch strides of a and b in matrices, aligned right, 0 where broadcast */
    uint32_t rank = od->rank - 2;
    uint64_t sa[WNN_MAX_RANK], sb[WNN_MAX_RANK], step_a = 1, step_b = 1;
    for (uint32_t i = rank; i-- > 0;) {
        uint32_t own_a = ad->rank - 2, own_b = bd->rank - 2;
        uint64_t da = i + own_a >= rank ? ad->shape[i + own_a - rank] : 1;
        uint64_t db = i + own_b >= rank ? bd->shape[i + own_b - rank] : 1;
        sa[i] = da == 1 ? 0 : step_a;
        sb[i] = db == 1 ? 0 : step_b;
        step_a *= da;
        step_b *= db;
    }
    p->batches = product(od->shape, 0, rank);
    if (step_b == 1 && step_a == p->batches && p->batches > 1) {
        /* one shared b: the stacked a matrices are one tall [batches * m, k] */
        p->m *= (int)p->batches;
        p->batches = 1;
        n->run = run_matmul;
        return WNN_OK;
    }
    for (uint32_t i = 0; i < rank; i++) {
        uint32_t dim = od->shape[i];
        if (dim == 1)
            continue;
        uint32_t r = p->batch_rank;
        if (r > 0 && p->a_stride[r - 1] == sa[i] * dim && p->b_stride[r - 1] == sb[i] * dim) {
            p->batch_shape[r - 1] *= dim;
            p->a_stride[r - 1] = sa[i];
            p->b_stride[r - 1] = sb[i];
            continue;
        }
        p->batch_shape[r] = dim;
        p->a_stride[r] = sa[i];
        p->b_stride[r] = sb[i];
        p->batch_rank++;
    }
    n->run = run_matmul;
    return WNN_OK;
}

typedef struct gemm_plan {
    wnn_data_type t;
    int m, n, k, lda, ldb;
    bool ta, tb, has_c;
    float alpha;
    double beta;
    wnn__cu_bcast c; /* c broadcast to [m, n] */
} gemm_plan;

static wnn_status run_gemm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const gemm_plan *p = n->plan;
    void *out = out_ptr(x, n, 0);
    if (p->has_c) {
        /* out = beta * c first, then out += alpha * a * b: beta 0 with an
        ** infinite c still gives NaN, as the formula says */
        cudaError_t e = wnn__cu_scaled_broadcast(x->stream, p->t, &p->c, p->beta, in_ptr(x, n, 2), out);
        if (e != cudaSuccess)
            return wnn__cu_status(e);
    }
    return blas_status(gemm_batched(x, p->t, p->ta, p->tb, p->m, p->n, p->k, p->alpha, in_ptr(x, n, 0), p->lda, 0,
                                    in_ptr(x, n, 1), p->ldb, 0, p->has_c ? 1.0f : 0.0f, out, 0, 1));
}

static wnn_status prep_gemm(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *ad = in_desc(ir, node, 0), *bd = in_desc(ir, node, 1), *od = out_desc(ir, node, 0);
    if (!is_float(od->data_type) || ad->data_type != od->data_type || bd->data_type != od->data_type ||
        ad->rank != 2 || bd->rank != 2)
        return WNN_STATUS_NOT_SUPPORTED;
    gemm_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = od->data_type;
    p->ta = node->attrs.gemm.a_transpose;
    p->tb = node->attrs.gemm.b_transpose;
    p->m = (int)(p->ta ? ad->shape[1] : ad->shape[0]);
    p->k = (int)(p->ta ? ad->shape[0] : ad->shape[1]);
    p->n = (int)(p->tb ? bd->shape[0] : bd->shape[1]);
    p->lda = (int)ad->shape[1];
    p->ldb = (int)bd->shape[1];
    p->alpha = (float)node->attrs.gemm.alpha;
    p->beta = node->attrs.gemm.beta;
    p->has_c = has_in(node, 2);
    if (p->has_c) {
        const wnn_operand_desc *cd = in_desc(ir, node, 2);
        if (cd->data_type != od->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
        make_bcast(&p->c, od, &cd, 1);
    }
    n->run = run_gemm;
    return WNN_OK;
}

/* ---- convolutions, pooling, resample ----------------------------------------------------------- */

/* conv2d with one group and enough work runs as im2col plus one matrix
** product per chunk of images (cuBLAS, float32 accumulation): the columns
** [images * P, K] times the filter as [C_out, K] give NHWC rows [P, C_out]
** directly, or NCHW planes [C_out, P] per image. The filter is repacked to
** OIHW order in scratch unless it is already; the bias (or zero) is
** broadcast into the output first and the products add to it. Other
** convolutions run the direct kernel. */
#define CONV_GEMM_MIN_WORK ((uint64_t)1 << 22) /* multiply-adds */
#define CONV_COLS_BUDGET ((uint64_t)64 << 20)  /* bytes of columns per chunk */

typedef struct conv_plan {
    wnn_data_type t;
    wnn__cu_conv c;
    bool gemm;
    uint32_t images;        /* per chunk */
    size_t cols_at, filter_at; /* scratch byte offsets; filter_at SIZE_MAX: use the filter as is */
    wnn__cu_strided repack; /* filter -> [C_out, C_in, kh, kw] */
    wnn__cu_bcast bias;     /* bias [C_out] broadcast to the output */
} conv_plan;

static wnn_status run_conv_gemm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const conv_plan *p = n->plan;
    const wnn__cu_conv *c = &p->c;
    cudaStream_t st = x->stream;
    size_t es = wnn_data_type_size(p->t);
    char *out = out_ptr(x, n, 0), *cols = (char *)x->scratch + p->cols_at;
    const void *filter = in_ptr(x, n, 1);
    cudaError_t e = cudaSuccess;
    if (p->filter_at != SIZE_MAX) {
        e = wnn__cu_copy_strided(st, (uint32_t)es, &p->repack, filter, (char *)x->scratch + p->filter_at);
        filter = (char *)x->scratch + p->filter_at;
    }
    const void *bias = in_ptr(x, n, 2);
    size_t out_bytes = (size_t)c->n * c->c_out * c->h_out * c->w_out * es;
    if (e == cudaSuccess)
        e = bias ? wnn__cu_scaled_broadcast(st, p->t, &p->bias, 1.0, bias, out) : cudaMemsetAsync(out, 0, out_bytes, st);
    if (e != cudaSuccess)
        return wnn__cu_status(e);
    const int P = (int)(c->h_out * c->w_out), K = (int)(c->c_in * c->kh * c->kw), O = (int)c->c_out;
    const float one = 1.0f;
    for (uint32_t n0 = 0; n0 < c->n; n0 += p->images) {
        uint32_t images = c->n - n0 < p->images ? c->n - n0 : p->images;
        if ((e = wnn__cu_im2col(st, p->t, c, n0, images, in_ptr(x, n, 0), cols)) != cudaSuccess)
            return wnn__cu_status(e);
        char *o = out + (size_t)n0 * O * P * es;
        cublasStatus_t bs;
        if (c->nhwc) /* out rows [images * P, O] = cols [images * P, K] * filter [O, K]^T */
            bs = p->t == WNN_DATA_TYPE_FLOAT32
                     ? cublasSgemm(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, O, (int)images * P, K, &one, filter, K,
                                   (const float *)cols, K, &one, (float *)o, O)
                     : cublasGemmEx(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, O, (int)images * P, K, &one, filter,
                                    CUDA_R_16F, K, cols, CUDA_R_16F, K, &one, o, CUDA_R_16F, O, CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT);
        else /* per image: out [O, P] = filter [O, K] * cols [P, K]^T */
            bs = p->t == WNN_DATA_TYPE_FLOAT32
                     ? cublasSgemmStridedBatched(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, P, O, K, &one,
                                                 (const float *)cols, K, (long long)P * K, filter, K, 0, &one,
                                                 (float *)o, P, (long long)O * P, (int)images)
                     : cublasGemmStridedBatchedEx(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, P, O, K, &one, cols, CUDA_R_16F,
                                                  K, (long long)P * K, filter, CUDA_R_16F, K, 0, &one, o, CUDA_R_16F,
                                                  P, (long long)O * P, (int)images, CUBLAS_COMPUTE_32F,
                                                  CUBLAS_GEMM_DEFAULT);
        if (bs != CUBLAS_STATUS_SUCCESS)
            return blas_status(bs);
    }
    return WNN_OK;
}

static wnn_status run_conv(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const conv_plan *p = n->plan;
    return wnn__cu_status(
        wnn__cu_conv2d(x->stream, p->t, &p->c, in_ptr(x, n, 0), in_ptr(x, n, 1), in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

/* Chooses the im2col path when it pays, and plans its scratch. */
static void plan_conv_gemm(const wnn__ir *ir, wnn__cu_node *n, conv_plan *p, uint32_t filter_layout)
{
    const wnn__cu_conv *c = &p->c;
    uint64_t P = (uint64_t)c->h_out * c->w_out, K = (uint64_t)c->c_in * c->kh * c->kw;
    uint64_t work = (uint64_t)c->n * P * K * c->c_out;
    size_t es = wnn_data_type_size(p->t);
    if (c->transpose || c->groups != 1 || work < CONV_GEMM_MIN_WORK || K > INT32_MAX / 2 || c->c_out < 4)
        return;
    uint64_t per_image = P * K * es;
    uint64_t images = per_image >= CONV_COLS_BUDGET ? 1 : CONV_COLS_BUDGET / per_image;
    if (images > c->n)
        images = c->n;
    if (images * P > INT32_MAX)
        return;
    p->gemm = true;
    p->images = (uint32_t)images;
    p->cols_at = 0;
    size_t top = (size_t)((images * per_image + 255) / 256 * 256);
    p->filter_at = SIZE_MAX;
    if (filter_layout != WNN_CONV2D_FILTER_LAYOUT_OIHW) {
        /* a strided copy into [C_out, C_in, kh, kw] */
        const wnn_operand_desc *f = in_desc(ir, n->node, 1);
        wnn_operand_desc packed = {f->data_type, 4, {c->c_out, c->c_in, c->kh, c->kw}};
        int64_t src[4] = {(int64_t)c->f_stride[0], (int64_t)c->f_stride[1], (int64_t)c->f_stride[2],
                          (int64_t)c->f_stride[3]};
        int64_t dst[4];
        row_major_strides(&packed, dst);
        wnn__cu_strided *r = &p->repack;
        memset(r, 0, sizeof *r);
        r->rank = 4;
        r->count = wnn__cu_count(&packed);
        for (int i = 0; i < 4; i++) {
            r->shape[i] = packed.shape[i];
            r->src_stride[i] = src[i];
            r->dst_stride[i] = dst[i];
        }
        p->filter_at = top;
        top += (size_t)((r->count * es + 255) / 256 * 256);
    }
    if (has_in(n->node, 2)) {
        const wnn_operand_desc *bd = in_desc(ir, n->node, 2), *od = out_desc(ir, n->node, 0);
        /* bias [C_out] against the output: a rank-4 view with the channels
        ** where the layout puts them */
        wnn_operand_desc b4 = {bd->data_type, 4, {1, 1, 1, 1}};
        b4.shape[c->nhwc ? 3 : 1] = c->c_out;
        const wnn_operand_desc *in1[1] = {&b4};
        make_bcast(&p->bias, od, in1, 1);
    }
    n->scratch_bytes = top;
    n->run = run_conv_gemm;
}

static wnn_status prep_conv(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *f = in_desc(ir, node, 1), *out = out_desc(ir, node, 0);
    if (!is_float(in->data_type) || f->data_type != in->data_type || in->rank != 4 || f->rank != 4 ||
        (has_in(node, 2) && in_desc(ir, node, 2)->data_type != in->data_type))
        return WNN_STATUS_NOT_SUPPORTED;
    conv_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = in->data_type;
    wnn__cu_conv *c = &p->c;
    bool nhwc = node->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    c->nhwc = nhwc;
    c->n = in->shape[0];
    c->c_in = nhwc ? in->shape[3] : in->shape[1];
    c->h_in = nhwc ? in->shape[1] : in->shape[2];
    c->w_in = nhwc ? in->shape[2] : in->shape[3];
    c->c_out = nhwc ? out->shape[3] : out->shape[1];
    c->h_out = nhwc ? out->shape[1] : out->shape[2];
    c->w_out = nhwc ? out->shape[2] : out->shape[3];
    c->groups = node->attrs.conv.groups ? node->attrs.conv.groups : 1;
    c->stride[0] = node->attrs.conv.strides[0];
    c->stride[1] = node->attrs.conv.strides[1];
    c->dilation[0] = node->attrs.conv.dilations[0];
    c->dilation[1] = node->attrs.conv.dilations[1];
    c->pad_top = node->attrs.conv.padding[0];
    c->pad_left = node->attrs.conv.padding[2];
    c->transpose = node->op == WNN__OP_CONV_TRANSPOSE2D;
    /* where (o, i, h, w) sit in the filter's shape, per layout */
    int ao = 0, ai = 1, ah = 2, aw = 3;
    uint32_t layout = node->attrs.conv.filter_layout;
    if (!c->transpose) {
        if (layout == WNN_CONV2D_FILTER_LAYOUT_HWIO) {
            ao = 3, ai = 2, ah = 0, aw = 1;
        } else if (layout == WNN_CONV2D_FILTER_LAYOUT_OHWI) {
            ao = 0, ai = 3, ah = 1, aw = 2;
        } else if (layout == WNN_CONV2D_FILTER_LAYOUT_IHWO) {
            ao = 3, ai = 0, ah = 1, aw = 2;
        }
    } else {
        if (layout == WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI) {
            ao = 2, ai = 3, ah = 0, aw = 1;
        } else if (layout == WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI) {
            ao = 0, ai = 3, ah = 1, aw = 2;
        } else {
            ao = 1, ai = 0, ah = 2, aw = 3;
        }
    }
    int64_t st[WNN_MAX_RANK];
    row_major_strides(f, st);
    c->f_stride[0] = (uint64_t)st[ao];
    c->f_stride[1] = (uint64_t)st[ai];
    c->f_stride[2] = (uint64_t)st[ah];
    c->f_stride[3] = (uint64_t)st[aw];
    c->kh = f->shape[ah];
    c->kw = f->shape[aw];
    if (!c->stride[0] || !c->stride[1] || !c->dilation[0] || !c->dilation[1] || c->c_in % c->groups ||
        c->c_out % c->groups)
        return WNN_STATUS_NOT_SUPPORTED;
    n->run = run_conv;
    if (!getenv("WNN_CUDA_DIRECT_CONV"))
        plan_conv_gemm(ir, n, p, layout);
    return WNN_OK;
}

typedef struct pool_plan {
    wnn__op op;
    wnn_data_type t;
    wnn__cu_pool p;
} pool_plan;

static wnn_status run_pool(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const pool_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_pool2d(x->stream, p->op, p->t, &p->p, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

static wnn_status prep_pool(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!wnn__cu_pool_supported(node->op, in->data_type) || in->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    pool_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->op = node->op;
    p->t = in->data_type;
    bool nhwc = node->attrs.pool2d.layout == WNN_INPUT_LAYOUT_NHWC;
    wnn__cu_pool *q = &p->p;
    q->nhwc = nhwc;
    q->n = in->shape[0];
    q->c = nhwc ? in->shape[3] : in->shape[1];
    q->h_in = nhwc ? in->shape[1] : in->shape[2];
    q->w_in = nhwc ? in->shape[2] : in->shape[3];
    q->h_out = nhwc ? out->shape[1] : out->shape[2];
    q->w_out = nhwc ? out->shape[2] : out->shape[3];
    for (int i = 0; i < 2; i++) {
        q->window[i] = node->attrs.pool2d.window[i];
        q->stride[i] = node->attrs.pool2d.strides[i];
        q->dilation[i] = node->attrs.pool2d.dilations[i];
    }
    q->pad_top = node->attrs.pool2d.padding[0];
    q->pad_left = node->attrs.pool2d.padding[2];
    n->run = run_pool;
    return WNN_OK;
}

typedef struct resample_plan {
    wnn_data_type t;
    wnn__cu_resample r;
} resample_plan;

static wnn_status run_resample(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const resample_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_resample2d(x->stream, p->t, &p->r, x->aux, in_ptr(x, n, 0), out_ptr(x, n, 0)));
}

/* The taps of the cpu's k_resample.c: half-pixel coordinates, nearest
** rounding ties to the smaller index (exactly, in integers), linear blending
** the neighbours floor(c) and the next one. */
static void resample_taps(wnn__cu_tap *t, uint32_t in, uint32_t out, bool linear)
{
    if (!linear) {
        for (uint32_t j = 0; j < out; j++) {
            int64_t num = (int64_t)(2 * (int64_t)j + 1) * (int64_t)in - 2 * (int64_t)out, den = 2 * (int64_t)out;
            int64_t q = num >= 0 ? (num + den - 1) / den : -((-num) / den);
            if (q < 0)
                q = 0;
            if (q > (int64_t)in - 1)
                q = (int64_t)in - 1;
            t[j] = (wnn__cu_tap){(uint32_t)q, (uint32_t)q, 0.0f};
        }
        return;
    }
    double scale = (double)in / (double)out;
    for (uint32_t j = 0; j < out; j++) {
        double c = ((double)j + 0.5) * scale - 0.5;
        if (c < 0.0)
            c = 0.0;
        if (c > (double)(in - 1))
            c = (double)(in - 1);
        uint32_t lo = (uint32_t)c;
        uint32_t hi = lo + 1 < in ? lo + 1 : lo;
        t[j] = (wnn__cu_tap){lo, hi, (float)(c - (double)lo)};
    }
}

static wnn_status prep_resample(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *out = out_desc(ir, node, 0);
    if (!wnn__cu_resample_supported(in->data_type) || in->rank != 4)
        return WNN_STATUS_NOT_SUPPORTED;
    resample_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->t = in->data_type;
    wnn__cu_resample *r = &p->r;
    r->linear = node->attrs.resample2d.mode == WNN_INTERPOLATION_MODE_LINEAR;
    r->axes[0] = node->attrs.resample2d.axes[0];
    r->axes[1] = node->attrs.resample2d.axes[1];
    r->count = wnn__cu_count(out);
    uint64_t total = 0;
    for (int d = 0; d < 4; d++) {
        r->shape_in[d] = in->shape[d];
        r->shape_out[d] = out->shape[d];
        r->table_at[d] = (uint32_t)total;
        total += out->shape[d];
    }
    wnn__cu_tap *taps = malloc(total * sizeof *taps);
    if (!taps)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t d = 0; d < 4; d++) {
        wnn__cu_tap *t = taps + r->table_at[d];
        if (d == r->axes[0] || d == r->axes[1]) {
            resample_taps(t, in->shape[d], out->shape[d], r->linear);
        } else {
            for (uint32_t k = 0; k < out->shape[d]; k++)
                t[k] = (wnn__cu_tap){k, k, 0.0f};
        }
    }
    n->aux_host = taps;
    n->aux_bytes = total * sizeof *taps;
    n->run = run_resample;
    return WNN_OK;
}

/* ---- quantizeLinear, dequantizeLinear ----------------------------------------------------- */

typedef struct quant_plan {
    bool quantize;
    wnn_data_type float_type, int_type;
    wnn__cu_quant q;
} quant_plan;

static wnn_status run_quant(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const quant_plan *p = n->plan;
    return wnn__cu_status(wnn__cu_quantize(x->stream, p->quantize, p->float_type, p->int_type, &p->q, in_ptr(x, n, 0),
                                           in_ptr(x, n, 1), in_ptr(x, n, 2), out_ptr(x, n, 0)));
}

/* in: input, scale, zeroPoint; scale's dimensions, aligned right, divide the
** input's (a dimension of 1 broadcasts, a larger one cuts blocks). */
static wnn_status prep_quant(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    if (node->n_in != 3 || !has_in(node, 1) || !has_in(node, 2))
        return WNN_STATUS_NOT_SUPPORTED;
    const wnn_operand_desc *x = in_desc(ir, node, 0), *sd = in_desc(ir, node, 1), *zd = in_desc(ir, node, 2);
    bool quantize = node->op == WNN__OP_QUANTIZE_LINEAR;
    wnn_data_type ft = quantize ? x->data_type : sd->data_type, it = zd->data_type;
    if (!wnn__cu_quantize_supported(ft, it) || sd->rank > x->rank)
        return WNN_STATUS_NOT_SUPPORTED;
    quant_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->quantize = quantize;
    p->float_type = ft;
    p->int_type = it;
    wnn__cu_quant *q = &p->q;
    q->rank = x->rank;
    q->count = wnn__cu_count(x);
    uint64_t step = 1;
    for (uint32_t i = x->rank; i-- > 0;) {
        q->shape[i] = x->shape[i];
        uint32_t k = x->rank - 1 - i; /* position from the right */
        if (k < sd->rank) {
            uint32_t s = sd->shape[sd->rank - 1 - k];
            q->block[i] = x->shape[i] / s;
            q->sstride[i] = s == 1 ? 0 : step;
            step *= s;
        } else {
            q->block[i] = x->shape[i];
            q->sstride[i] = 0;
        }
    }
    n->run = run_quant;
    return WNN_OK;
}

/* ---- gru, gruCell, lstm, lstmCell ------------------------------------------------------------ */

/* Everything runs in float32, like the cpu: float16 operands are widened
** into the node's scratch first and the outputs narrowed at the end, so
** the states between steps keep float32 precision. The input products of
** all steps are one matrix product per direction; each step then does the
** state product(s) and one gate kernel. */
typedef struct rnn_plan {
    bool lstm, half;
    wnn__cu_rnn g;
    uint32_t steps, input_size, dirs, gates;
    int direction;
    /* node input slots: x, weight, recurrent weight, bias, recurrent bias,
    ** peephole, initial hidden, initial cell (-1: none) */
    int slot[8];
    int out_h, out_c, out_seq;
    uint64_t in_count[8];
    /* scratch byte offsets */
    size_t conv[8];
    size_t gx, gh, rh, h[2], c[2], oh, oc, oseq;
} rnn_plan;

enum { RNN_X, RNN_W, RNN_R, RNN_B, RNN_RB, RNN_P, RNN_H, RNN_C };

/* c[m, n] (rows ldc apart) = a[m, k] * b[n, k]^T, all row-major float32. */
static wnn_status gemm_bt(const wnn__cu_exec *x, const float *a, const float *b, float *c, int m, int n, int k, int ldc)
{
    const float one = 1.0f, zero = 0.0f;
    return blas_status(cublasSgemm(x->blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, b, k, a, k, &zero, c, ldc));
}

static size_t take_scratch(size_t *top, uint64_t floats)
{
    size_t at = *top;
    *top += (size_t)((floats * sizeof(float) + 255) / 256 * 256);
    return at;
}

static wnn_status run_rnn(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const rnn_plan *p = n->plan;
    char *scr = x->scratch;
    cudaStream_t st = x->stream;
    const float *in[8] = {NULL};
    for (int k = 0; k < 8; k++) {
        if (p->slot[k] < 0 || !in_ptr(x, n, (uint32_t)p->slot[k]))
            continue;
        if (p->half) {
            float *f = (float *)(scr + p->conv[k]);
            cudaError_t e = wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT16, WNN_DATA_TYPE_FLOAT32, p->in_count[k],
                                         in_ptr(x, n, (uint32_t)p->slot[k]), f);
            if (e != cudaSuccess)
                return wnn__cu_status(e);
            in[k] = f;
        } else {
            in[k] = in_ptr(x, n, (uint32_t)p->slot[k]);
        }
    }
    const uint32_t B = p->g.batch, H = p->g.hidden, I = p->input_size, G = p->gates * H, nd = p->dirs;
    const uint64_t state = (uint64_t)B * H;
    float *out_h = p->half ? (float *)(scr + p->oh) : out_ptr(x, n, (uint32_t)p->out_h);
    float *out_c = p->out_c < 0 ? NULL : p->half ? (float *)(scr + p->oc) : out_ptr(x, n, (uint32_t)p->out_c);
    float *seq = p->out_seq < 0 ? NULL : p->half ? (float *)(scr + p->oseq) : out_ptr(x, n, (uint32_t)p->out_seq);
    float *gx = (float *)(scr + p->gx), *gh = (float *)(scr + p->gh), *rh = (float *)(scr + p->rh);
    float *hs[2] = {(float *)(scr + p->h[0]), (float *)(scr + p->h[1])};
    float *cs[2] = {(float *)(scr + p->c[0]), (float *)(scr + p->c[1])};
    wnn_status s = WNN_OK;
    for (uint32_t dir = 0; dir < nd && s == WNN_OK; dir++) {
        bool backward = dir == 1 || p->direction == WNN_RECURRENT_DIRECTION_BACKWARD;
        const float *w = in[RNN_W] + (uint64_t)dir * G * I, *r = in[RNN_R] + (uint64_t)dir * G * H;
        const float *b = in[RNN_B] ? in[RNN_B] + (uint64_t)dir * G : NULL;
        const float *rb = in[RNN_RB] ? in[RNN_RB] + (uint64_t)dir * G : NULL;
        const float *peep = in[RNN_P] ? in[RNN_P] + (uint64_t)dir * 3 * H : NULL;
        s = gemm_bt(x, in[RNN_X], w, gx, (int)(p->steps * B), (int)G, (int)I, (int)G);
        /* the initial states */
        cudaError_t e = in[RNN_H] ? cudaMemcpyAsync(hs[0], in[RNN_H] + dir * state, state * sizeof(float),
                                                    cudaMemcpyDeviceToDevice, st)
                                  : cudaMemsetAsync(hs[0], 0, state * sizeof(float), st);
        if (e == cudaSuccess && p->lstm)
            e = in[RNN_C] ? cudaMemcpyAsync(cs[0], in[RNN_C] + dir * state, state * sizeof(float),
                                            cudaMemcpyDeviceToDevice, st)
                          : cudaMemsetAsync(cs[0], 0, state * sizeof(float), st);
        if (s == WNN_OK)
            s = wnn__cu_status(e);
        int cur = 0;
        for (uint32_t step = 0; step < p->steps && s == WNN_OK; step++) {
            uint32_t t = backward ? p->steps - 1 - step : step;
            const float *gxt = gx + (uint64_t)t * B * G;
            float *seqp = seq ? seq + ((uint64_t)t * nd + dir) * state : NULL;
            if (p->lstm) {
                s = gemm_bt(x, hs[cur], r, gh, (int)B, (int)G, (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_lstm_step(st, &p->g, gxt, gh, b, rb, peep, cs[cur], hs[1 - cur],
                                                         cs[1 - cur], seqp));
            } else {
                /* with the reset first, the new gate's state product needs r */
                s = gemm_bt(x, hs[cur], r, gh, (int)B, p->g.reset_after ? (int)G : (int)(2 * H), (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_gru_reset(st, &p->g, gxt, gh, b, rb, hs[cur], rh));
                if (s == WNN_OK && !p->g.reset_after)
                    s = gemm_bt(x, rh, r + (uint64_t)2 * H * H, gh + 2 * H, (int)B, (int)H, (int)H, (int)G);
                if (s == WNN_OK)
                    s = wnn__cu_status(wnn__cu_gru_output(st, &p->g, gxt, gh, b, rb, hs[cur], hs[1 - cur], seqp));
            }
            cur = 1 - cur;
        }
        if (s == WNN_OK)
            s = wnn__cu_status(cudaMemcpyAsync(out_h + dir * state, hs[cur], state * sizeof(float),
                                               cudaMemcpyDeviceToDevice, st));
        if (s == WNN_OK && out_c)
            s = wnn__cu_status(cudaMemcpyAsync(out_c + dir * state, cs[cur], state * sizeof(float),
                                               cudaMemcpyDeviceToDevice, st));
    }
    if (s == WNN_OK && p->half) {
        s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, nd * state, out_h,
                                        out_ptr(x, n, (uint32_t)p->out_h)));
        if (s == WNN_OK && out_c)
            s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16, nd * state, out_c,
                                            out_ptr(x, n, (uint32_t)p->out_c)));
        if (s == WNN_OK && seq)
            s = wnn__cu_status(wnn__cu_cast(st, WNN_DATA_TYPE_FLOAT32, WNN_DATA_TYPE_FLOAT16,
                                            (uint64_t)p->steps * nd * state, seq, out_ptr(x, n, (uint32_t)p->out_seq)));
    }
    return s;
}

static wnn_status prep_rnn(const wnn__ir *ir, wnn__cu_node *n)
{
    const wnn__node *node = n->node;
    wnn__op op = node->op;
    bool lstm = op == WNN__OP_LSTM || op == WNN__OP_LSTM_CELL, cell = op == WNN__OP_GRU_CELL || op == WNN__OP_LSTM_CELL;
    const wnn_operand_desc *xd = in_desc(ir, node, 0);
    if (!is_float(xd->data_type) || node->n_in < 3)
        return WNN_STATUS_NOT_SUPPORTED;
    for (uint32_t j = 0; j < node->n_in; j++)
        if (has_in(node, j) && in_desc(ir, node, j)->data_type != xd->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
    rnn_plan *p = new_plan(n, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    p->lstm = lstm;
    p->half = xd->data_type == WNN_DATA_TYPE_FLOAT16;
    p->gates = lstm ? 4 : 3;
    /* slots of the node's inputs, in the cpu's order */
    static const int slots[4][8] = {
        /* gru */ {0, 1, 2, 3, 4, -1, 5, -1},
        /* lstm */ {0, 1, 2, 3, 4, 5, 6, 7},
        /* gruCell */ {0, 1, 2, 4, 5, -1, 3, -1},
        /* lstmCell */ {0, 1, 2, 5, 6, 7, 3, 4},
    };
    const int *sl = slots[(cell ? 2 : 0) + (lstm ? 1 : 0)];
    for (int k = 0; k < 8; k++)
        p->slot[k] = sl[k] >= 0 && (uint32_t)sl[k] < node->n_in && has_in(node, (uint32_t)sl[k]) ? sl[k] : -1;
    const wnn_operand_desc *wd = in_desc(ir, node, 1);
    if (cell) {
        p->steps = 1;
        p->dirs = 1;
        p->direction = WNN_RECURRENT_DIRECTION_FORWARD;
        p->g.batch = xd->shape[0];
        p->input_size = xd->shape[1];
        p->g.hidden = wd->shape[0] / p->gates;
    } else {
        p->steps = xd->shape[0];
        p->g.batch = xd->shape[1];
        p->input_size = xd->shape[2];
        p->dirs = wd->shape[0];
        p->g.hidden = wd->shape[1] / p->gates;
        p->direction = node->attrs.rnn.direction;
    }
    p->g.layout = (uint32_t)node->attrs.rnn.layout;
    p->g.reset_after = node->attrs.rnn.reset_after;
    for (int k = 0; k < 3; k++)
        p->g.act[k] = (uint32_t)node->attrs.rnn.activations[k];
    p->out_h = 0;
    p->out_c = lstm ? 1 : -1;
    p->out_seq = !cell && node->n_out > (lstm ? 2u : 1u) ? (lstm ? 2 : 1) : -1;

    const uint64_t B = p->g.batch, H = p->g.hidden, G = p->gates * H, nd = p->dirs, state = B * H;
    size_t top = 0;
    for (int k = 0; k < 8; k++) {
        if (p->slot[k] < 0)
            continue;
        p->in_count[k] = wnn__cu_count(in_desc(ir, node, (uint32_t)p->slot[k]));
        if (p->half)
            p->conv[k] = take_scratch(&top, p->in_count[k]);
    }
    p->gx = take_scratch(&top, (uint64_t)p->steps * B * G);
    p->gh = take_scratch(&top, B * G);
    p->rh = take_scratch(&top, state);
    for (int k = 0; k < 2; k++) {
        p->h[k] = take_scratch(&top, state);
        p->c[k] = take_scratch(&top, state);
    }
    if (p->half) {
        p->oh = take_scratch(&top, nd * state);
        p->oc = take_scratch(&top, nd * state);
        if (p->out_seq >= 0)
            p->oseq = take_scratch(&top, (uint64_t)p->steps * nd * state);
    }
    if ((uint64_t)p->steps * B > INT32_MAX || G > INT32_MAX)
        return WNN_STATUS_NOT_SUPPORTED;
    n->scratch_bytes = top;
    n->run = run_rnn;
    return WNN_OK;
}

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

/* A prepared node that may join a run: a flat binary or a unary float
** operator of the fusible set; *t and *count describe its output. */
static bool fusible_node(const wnn__ir *ir, const wnn__cu_node *cn, wnn_data_type *t, uint64_t *count)
{
    const wnn__node *node = cn->node;
    if (!cn->run || node->n_out != 1 || !wnn__cu_fusible(node->op))
        return false;
    const wnn_operand_desc *od = out_desc(ir, node, 0);
    if (!is_float(od->data_type))
        return false;
    if (cn->run == run_binary) {
        const binary_plan *p = cn->plan;
        if (!p->b.flat || p->t != od->data_type)
            return false;
    } else if (cn->run == run_unary) {
        if (((const unary_plan *)cn->plan)->t != od->data_type)
            return false;
    } else {
        return false;
    }
    *t = od->data_type;
    *count = wnn__cu_count(od);
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
    if (wnn__cu_count(&ir->values[v].desc) == 1)
        st->p->f.scalar_slots |= (uint64_t)1 << s;
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
static uint32_t build_program(const wnn__ir *ir, uint32_t start, uint32_t end, uint64_t count, bool half,
                              const uint32_t *max_use, const bool *is_output, fused_plan *out)
{
    memset(out, 0, sizeof *out);
    fuse_state st = {.p = out};
    for (int t = 0; t < WNN__CU_FUSED_TEMPS; t++)
        st.temp_value[t] = UINT32_MAX;
    out->f.count = count;
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
                 wnn__cu_count(&ir->values[out_v].desc) == 1);
        if (last_use_in(ir, out_v, k, end) == 0)
            st.temp_value[dst] = UINT32_MAX;
    }
    return end + 1;
}

/* Fuses nodes [start, end] (shortened while temporaries run out) and hands
** the program to the run's last node. Returns the run's last node. */
static uint32_t fuse_run(const wnn__ir *ir, wnn__cu_node *nodes, uint32_t start, uint32_t end, uint64_t count,
                         bool half, const uint32_t *max_use, const bool *is_output, bool *internal, uint32_t *pos,
                         wnn_status *status)
{
    fused_plan *p = calloc(1, sizeof *p);
    if (!p) {
        *status = WNN_STATUS_OUT_OF_MEMORY;
        return end;
    }
    uint32_t stop;
    while ((stop = build_program(ir, start, end, count, half, max_use, is_output, p)) <= end)
        end = stop - 1; /* end before the node that found no temporary */
    if (end <= start) {
        free(p);
        return start;
    }
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
        if (!fusible_node(ir, &nodes[n], &t, &count)) {
            n++;
            continue;
        }
        /* extend while the next node is fusible, of the same type, and its
        ** elements are the run's or a single one */
        uint32_t end = n;
        while (end + 1 < nn && end + 1 - n < FUSE_MAX_NODES && fusible_node(ir, &nodes[end + 1], &tm, &cm) &&
               tm == t && (cm == count || cm == 1 || count == 1)) {
            if (cm > count)
                count = cm;
            end++;
        }
        if (end > n)
            end = fuse_run(ir, nodes, n, end, count, t == WNN_DATA_TYPE_FLOAT16, max_use, is_output, internal, pos,
                           &s);
        n = end + 1;
    }
    free(max_use);
    free(is_output);
    return s;
}

/* ---- the table -------------------------------------------------------------------------------- */

typedef wnn_status (*prep_fn)(const wnn__ir *ir, wnn__cu_node *n);

static const prep_fn preps[WNN__OP_COUNT] = {
    [WNN__OP_ADD] = prep_binary,
    [WNN__OP_SUB] = prep_binary,
    [WNN__OP_MUL] = prep_binary,
    [WNN__OP_DIV] = prep_binary,
    [WNN__OP_MAX] = prep_binary,
    [WNN__OP_MIN] = prep_binary,
    [WNN__OP_POW] = prep_binary,
    [WNN__OP_ABS] = prep_unary,
    [WNN__OP_NEG] = prep_unary,
    [WNN__OP_EXP] = prep_unary,
    [WNN__OP_LOG] = prep_unary,
    [WNN__OP_SQRT] = prep_unary,
    [WNN__OP_RELU] = prep_unary,
    [WNN__OP_SIGMOID] = prep_unary,
    [WNN__OP_TANH] = prep_unary,
    [WNN__OP_CLAMP] = prep_clamp,
    [WNN__OP_CAST] = prep_cast,
    [WNN__OP_RESHAPE] = prep_identity,
    [WNN__OP_TRANSPOSE] = prep_transpose,
    [WNN__OP_CONCAT] = prep_concat,
    [WNN__OP_SLICE] = prep_slice,
    [WNN__OP_SOFTMAX] = prep_softmax,
    [WNN__OP_MATMUL] = prep_matmul,
    [WNN__OP_GEMM] = prep_gemm,
    /* family A */
    [WNN__OP_CEIL] = prep_unary,
    [WNN__OP_FLOOR] = prep_unary,
    [WNN__OP_COS] = prep_unary,
    [WNN__OP_SIN] = prep_unary,
    [WNN__OP_TAN] = prep_unary,
    [WNN__OP_ERF] = prep_unary,
    [WNN__OP_RECIPROCAL] = prep_unary,
    [WNN__OP_ROUND_EVEN] = prep_unary,
    [WNN__OP_SIGN] = prep_unary,
    [WNN__OP_IDENTITY] = prep_identity,
    [WNN__OP_IS_NAN] = prep_unary,
    [WNN__OP_IS_INFINITE] = prep_unary,
    [WNN__OP_LOGICAL_NOT] = prep_unary,
    [WNN__OP_LOGICAL_AND] = prep_binary,
    [WNN__OP_LOGICAL_OR] = prep_binary,
    [WNN__OP_LOGICAL_XOR] = prep_binary,
    [WNN__OP_EQUAL] = prep_binary,
    [WNN__OP_NOT_EQUAL] = prep_binary,
    [WNN__OP_GREATER] = prep_binary,
    [WNN__OP_GREATER_OR_EQUAL] = prep_binary,
    [WNN__OP_LESSER] = prep_binary,
    [WNN__OP_LESSER_OR_EQUAL] = prep_binary,
    [WNN__OP_WHERE] = prep_where,
    [WNN__OP_ELU] = prep_unary,
    [WNN__OP_GELU] = prep_unary,
    [WNN__OP_HARD_SIGMOID] = prep_unary,
    [WNN__OP_HARD_SWISH] = prep_unary,
    [WNN__OP_LEAKY_RELU] = prep_unary,
    [WNN__OP_LINEAR] = prep_unary,
    [WNN__OP_PRELU] = prep_binary,
    [WNN__OP_SOFTPLUS] = prep_unary,
    [WNN__OP_SOFTSIGN] = prep_unary,
    [WNN__OP_REDUCE_L1] = prep_reduce,
    [WNN__OP_REDUCE_L2] = prep_reduce,
    [WNN__OP_REDUCE_LOG_SUM] = prep_reduce,
    [WNN__OP_REDUCE_LOG_SUM_EXP] = prep_reduce,
    [WNN__OP_REDUCE_MAX] = prep_reduce,
    [WNN__OP_REDUCE_MEAN] = prep_reduce,
    [WNN__OP_REDUCE_MIN] = prep_reduce,
    [WNN__OP_REDUCE_PRODUCT] = prep_reduce,
    [WNN__OP_REDUCE_SUM] = prep_reduce,
    [WNN__OP_REDUCE_SUM_SQUARE] = prep_reduce,
    [WNN__OP_ARG_MIN] = prep_arg,
    [WNN__OP_ARG_MAX] = prep_arg,
    [WNN__OP_CUMULATIVE_SUM] = prep_cumsum,
    [WNN__OP_QUANTIZE_LINEAR] = prep_quant,
    [WNN__OP_DEQUANTIZE_LINEAR] = prep_quant,
    /* family B */
    [WNN__OP_CONV2D] = prep_conv,
    [WNN__OP_CONV_TRANSPOSE2D] = prep_conv,
    [WNN__OP_AVERAGE_POOL2D] = prep_pool,
    [WNN__OP_L2_POOL2D] = prep_pool,
    [WNN__OP_MAX_POOL2D] = prep_pool,
    [WNN__OP_RESAMPLE2D] = prep_resample,
    [WNN__OP_BATCH_NORMALIZATION] = prep_batch_norm,
    [WNN__OP_INSTANCE_NORMALIZATION] = prep_instance_norm,
    [WNN__OP_LAYER_NORMALIZATION] = prep_layer_norm,
    /* family C */
    [WNN__OP_EXPAND] = prep_expand,
    [WNN__OP_PAD] = prep_index_map,
    [WNN__OP_SPLIT] = prep_split,
    [WNN__OP_TILE] = prep_index_map,
    [WNN__OP_REVERSE] = prep_reverse,
    [WNN__OP_TRIANGULAR] = prep_triangular,
    [WNN__OP_GATHER] = prep_gather,
    [WNN__OP_GATHER_ELEMENTS] = prep_gather_elements,
    [WNN__OP_GATHER_ND] = prep_gather_nd,
    [WNN__OP_SCATTER_ELEMENTS] = prep_scatter_elements,
    [WNN__OP_SCATTER_ND] = prep_scatter_nd,
    [WNN__OP_GRU] = prep_rnn,
    [WNN__OP_GRU_CELL] = prep_rnn,
    [WNN__OP_LSTM] = prep_rnn,
    [WNN__OP_LSTM_CELL] = prep_rnn,
    /* int4/uint4 operands only in quantizeLinear, dequantizeLinear, reshape
    ** and identity (see wnn__cu_prepare) */
};

wnn_status wnn__cu_prepare(const wnn__ir *ir, wnn__cu_node *n)
{
    wnn__op op = n->node->op;
    if ((unsigned)op >= (unsigned)WNN__OP_COUNT || !preps[op])
        return WNN_STATUS_NOT_SUPPORTED;
    /* every operand must be a type the kernels know; packed int4/uint4 only
    ** where the operator handles them */
    bool packed_ok = op == WNN__OP_QUANTIZE_LINEAR || op == WNN__OP_DEQUANTIZE_LINEAR || op == WNN__OP_RESHAPE ||
                     op == WNN__OP_IDENTITY;
    for (uint32_t j = 0; j < n->node->n_in + n->node->n_out; j++) {
        if (j < n->node->n_in && !has_in(n->node, j))
            continue;
        wnn_data_type t = j < n->node->n_in ? in_desc(ir, n->node, j)->data_type
                                            : out_desc(ir, n->node, j - n->node->n_in)->data_type;
        bool packed = t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4;
        if (!is_element_type(t) && !(packed && packed_ok))
            return WNN_STATUS_NOT_SUPPORTED;
    }
    return preps[op](ir, n);
}
