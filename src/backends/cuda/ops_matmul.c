/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_matmul.c -- matmul and gemm through cuBLAS: float32 in true float32,
** float16 with float32 accumulation. Batch dimensions are merged where a
** and b walk them alike; gemm's c is broadcast into the output first. At
** compile, a transpose of an operand's last two axes becomes cuBLAS's
** transposed operand and a following scale by a constant its alpha
** (wnn__cu_matmul_fold), and a row added after it (a bias) cuBLASLt's bias
** epilogue, as is gemm's c when it is one row and beta 1.
*/
#include <cublasLt.h>
#include <math.h>
#include <string.h>

#include "backends/cuda/cuda_ops.h"
#include "core/half.h"

/* ---- matmul and gemm through cuBLAS ---------------------------------------------------------- */

/* A row of n values added to every row of a single matrix product, by
** cuBLASLt's bias epilogue (D = alpha A B + bias, rounded once): the
** separate add was a pass over the output, and one kernel more, for every
** linear layer. The algorithm is asked for on the first run, through the
** cuBLAS handle (which the cuBLASLt API takes cast) and the device's cuBLAS
** workspace, both on the same stream; where cuBLASLt offers none, or
** refuses the pointers, the row is written into the output first and the
** product added to it (beta 1), as gemm's c is. */
typedef struct lt_bias {
    uint32_t value;   /* the row's value id; WNN__NONE: no row */
    bool asked, have; /* the algorithm was asked for / found */
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    wnn__cu_bcast row; /* the row broadcast over the output, for the fallback */
} lt_bias;

static void lt_bias_release(lt_bias *L)
{
    if (L->op)
        cublasLtMatmulDescDestroy(L->op);
    if (L->la)
        cublasLtMatrixLayoutDestroy(L->la);
    if (L->lb)
        cublasLtMatrixLayoutDestroy(L->lb);
    if (L->lc)
        cublasLtMatrixLayoutDestroy(L->lc);
    L->op = NULL;
    L->la = L->lb = L->lc = NULL;
}

/* Describes C[m x n] = alpha A[m x k] B[k x n] + row (row-major; in
** cuBLAS's column-major terms C^T = B^T A^T, the row one value per row of
** C^T) and asks cuBLASLt for an algorithm; false when it has none. */
static bool lt_bias_ask(const wnn__cu_exec *x, lt_bias *L, wnn_data_type t, bool ta, bool tb, int m, int n, int k,
                        int lda, int ldb)
{
    L->asked = true;
    const cudaDataType dt = t == WNN_DATA_TYPE_FLOAT32 ? CUDA_R_32F : CUDA_R_16F;
    const cublasOperation_t opa = tb ? CUBLAS_OP_T : CUBLAS_OP_N, opb = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    const uint64_t workspace = x->blas_workspace ? WNN__CU_BLAS_WORKSPACE : 0;
    cublasLtMatmulPreference_t pref = NULL;
    cublasLtMatmulHeuristicResult_t found;
    int n_found = 0;
    bool ok = cublasLtMatmulDescCreate(&L->op, CUBLAS_COMPUTE_32F, CUDA_R_32F) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(L->op, CUBLASLT_MATMUL_DESC_TRANSA, &opa, sizeof opa) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(L->op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof opb) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(L->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(L->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &dt, sizeof dt) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&L->la, dt, opa == CUBLAS_OP_N ? n : k, opa == CUBLAS_OP_N ? k : n, ldb) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&L->lb, dt, opb == CUBLAS_OP_N ? k : m, opb == CUBLAS_OP_N ? m : k, lda) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&L->lc, dt, n, m, n) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                   sizeof workspace) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulAlgoGetHeuristic((cublasLtHandle_t)x->blas, L->op, L->la, L->lb, L->lc, L->lc, pref, 1,
                                             &found, &n_found) == CUBLAS_STATUS_SUCCESS &&
              n_found > 0 && found.workspaceSize <= workspace;
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    if (ok)
        L->algo = found.algo;
    else
        lt_bias_release(L);
    L->have = ok;
    return ok;
}

/* Queues C = alpha A B + row through the epilogue; NOT_SUPPORTED where it
** cannot (nothing queued then). */
static wnn_status lt_bias_run(const wnn__cu_exec *x, lt_bias *L, wnn_data_type t, bool ta, bool tb, int m, int n,
                              int k, float alpha, const void *a, int lda, const void *b, int ldb, const void *row,
                              void *c)
{
    if (!L->asked)
        lt_bias_ask(x, L, t, ta, tb, m, n, k, lda, ldb);
    if (!L->have || cublasLtMatmulDescSetAttribute(L->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &row, sizeof row) !=
                        CUBLAS_STATUS_SUCCESS)
        return WNN_STATUS_NOT_SUPPORTED;
    const float beta = 0.0f;
    cublasStatus_t s = cublasLtMatmul((cublasLtHandle_t)x->blas, L->op, &alpha, b, L->la, a, L->lb, &beta, c, L->lc,
                                      c, L->lc, &L->algo, x->blas_workspace,
                                      x->blas_workspace ? WNN__CU_BLAS_WORKSPACE : 0, x->stream);
    if (s == CUBLAS_STATUS_NOT_SUPPORTED || s == CUBLAS_STATUS_INVALID_VALUE)
        return WNN_STATUS_NOT_SUPPORTED;
    return blas_status(s);
}

typedef struct matmul_plan {
    wnn_data_type t;
    int m, n, k;
    bool tall;                        /* a's batches stacked into m rows */
    bool ta, tb;                      /* a or b read transposed (folded) */
    float alpha;
    uint32_t a, b, y;                 /* value ids */
    uint32_t batch_rank;              /* after merging; the last one goes to cuBLAS as its batch */
    uint32_t batch_shape[WNN_MAX_RANK];
    uint64_t a_stride[WNN_MAX_RANK], b_stride[WNN_MAX_RANK]; /* in matrices, 0 where broadcast */
    uint64_t batches;
    lt_bias bias; /* batch_rank 0 only */
} matmul_plan;

static void matmul_release(void *plan) { lt_bias_release(&((matmul_plan *)plan)->bias); }

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

/* One product with a row added: the epilogue, else the row written first
** and the product added to it. */
static wnn_status gemm_with_row(const wnn__cu_exec *x, lt_bias *L, wnn_data_type t, bool ta, bool tb, int m, int n,
                                int k, float alpha, const void *a, int lda, const void *b, int ldb, void *c)
{
    const void *row = x->ptr[L->value];
    wnn_status s = lt_bias_run(x, L, t, ta, tb, m, n, k, alpha, a, lda, b, ldb, row, c);
    if (s != WNN_STATUS_NOT_SUPPORTED)
        return s;
    cudaError_t e = wnn__cu_scaled_broadcast(x->stream, t, &L->row, 1.0, row, c);
    if (e != cudaSuccess)
        return wnn__cu_status(e);
    return blas_status(gemm_batched(x, t, ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, 1.0f, c, 0, 1));
}

static wnn_status run_matmul(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    matmul_plan *p = n->plan;
    size_t esize = wnn_data_type_size(p->t);
    const char *a = x->ptr[p->a], *b = x->ptr[p->b];
    char *c = x->ptr[p->y];
    uint64_t a_size = (uint64_t)p->m * p->k, b_size = (uint64_t)p->k * p->n, c_size = (uint64_t)p->m * p->n;
    const int lda = p->ta ? p->m : p->k, ldb = p->tb ? p->k : p->n;
    if (p->batch_rank == 0 && p->bias.value != WNN__NONE)
        return gemm_with_row(x, &p->bias, p->t, p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, lda, b, ldb, c);
    if (p->batch_rank == 0)
        return blas_status(gemm_batched(x, p->t, p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, lda, 0, b, ldb, 0,
                                        0.0f, c, 0, 1));
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
            x, p->t, p->ta, p->tb, p->m, p->n, p->k, p->alpha, a + ai * a_size * esize, lda,
            (long long)(p->a_stride[last] * a_size), b + bi * b_size * esize, ldb,
            (long long)(p->b_stride[last] * b_size), 0.0f, c + o * inner * c_size * esize, (long long)c_size, (int)inner);
        if (s != CUBLAS_STATUS_SUCCESS)
            return blas_status(s);
    }
    return WNN_OK;
}

wnn_status wnn__cu_prep_matmul(const wnn__ir *ir, wnn__cu_node *n)
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
    p->alpha = 1.0f;
    p->bias.value = WNN__NONE;
    n->release = matmul_release;
    p->a = n->node->in[0];
    p->b = n->node->in[1];
    p->y = n->node->out[0];
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
    p->batches = wnn__shape_product(od->shape, 0, rank);
    if (step_b == 1 && step_a == p->batches && p->batches > 1) {
        /* one shared b: the stacked a matrices are one tall [batches * m, k] */
        p->m *= (int)p->batches;
        p->batches = 1;
        p->tall = true;
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

/* Whether d is one row of n values: [n], or [1, ..., 1, n]. */
static bool is_row(const wnn_operand_desc *d, uint32_t n)
{
    return d->rank >= 1 && d->shape[d->rank - 1] == n && wnn__shape_count(d) == n;
}

typedef struct gemm_plan {
    wnn_data_type t;
    int m, n, k, lda, ldb;
    bool ta, tb, has_c;
    float alpha;
    double beta;
    wnn__cu_bcast c; /* c broadcast to [m, n] */
    lt_bias bias;    /* c when it is one row and beta 1 */
} gemm_plan;

static void gemm_release(void *plan) { lt_bias_release(&((gemm_plan *)plan)->bias); }

static wnn_status run_gemm(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    gemm_plan *p = n->plan;
    void *out = out_ptr(x, n, 0);
    if (p->bias.value != WNN__NONE)
        return gemm_with_row(x, &p->bias, p->t, p->ta, p->tb, p->m, p->n, p->k, p->alpha, in_ptr(x, n, 0), p->lda,
                             in_ptr(x, n, 1), p->ldb, out);
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

wnn_status wnn__cu_prep_gemm(const wnn__ir *ir, wnn__cu_node *n)
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
    p->bias.value = WNN__NONE;
    n->release = gemm_release;
    if (p->has_c) {
        const wnn_operand_desc *cd = in_desc(ir, node, 2);
        if (cd->data_type != od->data_type)
            return WNN_STATUS_NOT_SUPPORTED;
        wnn__cu_make_bcast(&p->c, od, &cd, 1);
        if (p->beta == 1.0 && is_row(cd, (uint32_t)p->n)) {
            p->bias.value = node->in[2];
            p->bias.row = p->c;
        }
    }
    n->run = run_gemm;
    return WNN_OK;
}

/* ---- folding neighbours into matmul ------------------------------------------------------------ */

/* The node that reads v, when exactly one node reads it once and v is not
** a graph output; UINT32_MAX otherwise. */
static uint32_t sole_reader(const wnn__ir *ir, const uint32_t *uses, const bool *is_output, uint32_t v)
{
    if (uses[v] != 1 || is_output[v])
        return UINT32_MAX;
    for (uint32_t m = 0; m < ir->n_nodes; m++)
        for (uint32_t j = 0; j < ir->nodes[m].n_in; j++)
            if (ir->nodes[m].in[j] == v)
                return m;
    return UINT32_MAX;
}

/* The transpose node that makes v by swapping its input's last two axes,
** still to run; UINT32_MAX otherwise. */
static uint32_t last_two_transpose(const wnn__ir *ir, const wnn__cu_node *nodes, uint32_t v)
{
    const wnn__value *val = &ir->values[v];
    if (val->kind != WNN__VALUE_NODE)
        return UINT32_MAX;
    const wnn__node *t = &ir->nodes[val->index];
    uint32_t r = val->desc.rank;
    if (t->op != WNN__OP_TRANSPOSE || !nodes[val->index].run || r < 2)
        return UINT32_MAX;
    for (uint32_t i = 0; i + 2 < r; i++)
        if (t->attrs.transpose.perm[i] != i)
            return UINT32_MAX;
    return t->attrs.transpose.perm[r - 2] == r - 1 && t->attrs.transpose.perm[r - 1] == r - 2 ? val->index
                                                                                              : UINT32_MAX;
}

/* The factor node r applies to v (mul by, or div of v by, a one-element
** constant of type t); 0 when it is none of these. */
static double scale_of(const wnn__ir *ir, const wnn__node *r, uint32_t v, wnn_data_type t)
{
    if ((r->op != WNN__OP_MUL && r->op != WNN__OP_DIV) || r->n_in != 2 || r->n_out != 1 ||
        (r->op == WNN__OP_DIV && r->in[0] != v))
        return 0.0;
    uint32_t other = r->in[0] == v ? r->in[1] : r->in[0];
    const wnn__value *c = &ir->values[other];
    if (other == v || c->kind != WNN__VALUE_CONSTANT || !c->data || c->desc.data_type != t ||
        wnn__shape_count(&c->desc) != 1)
        return 0.0;
    double f = t == WNN_DATA_TYPE_FLOAT16 ? wnn__half_to_float(*(const uint16_t *)c->data) : *(const float *)c->data;
    if (r->op == WNN__OP_DIV)
        f = 1.0 / f;
    return isfinite(f) && f != 0.0 ? f : 0.0;
}

/* The row r adds to v (add of v and a row of v's last dimension, of v's
** type, the sum v's shape); WNN__NONE when r is not that. */
static uint32_t row_added(const wnn__ir *ir, const wnn__node *r, uint32_t v)
{
    if (r->op != WNN__OP_ADD || r->n_in != 2 || r->n_out != 1 || r->in[0] == r->in[1])
        return WNN__NONE;
    uint32_t row = r->in[0] == v ? r->in[1] : r->in[0];
    const wnn_operand_desc *vd = &ir->values[v].desc, *rd = &ir->values[row].desc, *od = &ir->values[r->out[0]].desc;
    if (rd->data_type != vd->data_type || !is_row(rd, vd->shape[vd->rank - 1]) || od->rank != vd->rank ||
        memcmp(od->shape, vd->shape, vd->rank * sizeof *vd->shape) != 0)
        return WNN__NONE;
    return row;
}

/* Moves the product planned at node from, whose result is y, to node to,
** which reads y alone: y is no longer made, and what ran at from runs at
** to. */
static void move_product(wnn__cu_node *nodes, bool *internal, uint32_t *pos, uint32_t from, uint32_t to, uint32_t y)
{
    if (nodes[to].release && nodes[to].plan)
        nodes[to].release(nodes[to].plan);
    free(nodes[to].plan);
    nodes[to].plan = nodes[from].plan;
    nodes[to].run = run_matmul;
    nodes[to].release = nodes[from].release;
    nodes[from].plan = NULL;
    nodes[from].run = NULL;
    nodes[from].release = NULL;
    internal[y] = true;
    for (uint32_t m = 0; m < to; m++)
        if (pos[m] == from)
            pos[m] = to;
}

wnn_status wnn__cu_matmul_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos)
{
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    uint32_t *uses = calloc(nv, sizeof *uses);
    bool *is_output = calloc(nv, sizeof *is_output);
    if (!uses || !is_output) {
        free(uses);
        free(is_output);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__ir_count_uses(ir, uses, is_output);
    for (uint32_t k = 0; k < ir->n_nodes; k++) {
        if (nodes[k].run != run_matmul)
            continue;
        matmul_plan *p = nodes[k].plan;
        const wnn__node *node = &ir->nodes[k];
        /* a transposed operand read only here: cuBLAS reads it transposed
        ** (not a's when its batches are stacked into rows) */
        for (uint32_t j = 0; j < 2; j++) {
            uint32_t v = node->in[j], t = last_two_transpose(ir, nodes, v);
            if (t == UINT32_MAX || uses[v] != 1 || is_output[v] || (j == 0 && p->tall))
                continue;
            if (j == 0)
                p->ta = true, p->a = ir->nodes[t].in[0];
            else
                p->tb = true, p->b = ir->nodes[t].in[0];
            nodes[t].run = NULL;
            internal[v] = true;
            pos[t] = k;
        }
        /* a scale by a constant after it: cuBLAS's alpha, run where the
        ** scale was */
        uint32_t at = k, r = sole_reader(ir, uses, is_output, node->out[0]);
        double f = r != UINT32_MAX && r > k && nodes[r].run ? scale_of(ir, &ir->nodes[r], node->out[0], p->t) : 0.0;
        if (f != 0.0) {
            p->alpha = (float)(p->alpha * f);
            move_product(nodes, internal, pos, at, r, p->y);
            p->y = ir->nodes[r].out[0];
            at = r;
        }
        /* then a row added to a single product: the bias epilogue, run
        ** where the add was */
        r = p->batch_rank == 0 ? sole_reader(ir, uses, is_output, p->y) : UINT32_MAX;
        uint32_t row = r != UINT32_MAX && r > at && nodes[r].run && pos[r] == r ? row_added(ir, &ir->nodes[r], p->y)
                                                                                  : WNN__NONE;
        if (row == WNN__NONE)
            continue;
        const wnn_operand_desc *rd = &ir->values[row].desc;
        p->bias.value = row;
        wnn__cu_make_bcast(&p->bias.row, out_desc(ir, &ir->nodes[r], 0), &rd, 1);
        move_product(nodes, internal, pos, at, r, p->y);
        p->y = ir->nodes[r].out[0];
    }
    free(uses);
    free(is_output);
    return WNN_OK;
}
