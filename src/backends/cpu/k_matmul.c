/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_matmul.c -- matmul (batched, broadcasting) and gemm, float32 and float16.
**
** Both reduce to one row-major sgemm, C = alpha * op(A) * op(B) + beta * C:
** wnn__cpu_sgemm for real work (oneDNN's sgemm on the OpenMP team; else
** OpenBLAS's cblas_sgemm, cblas_sgemv when M or N is 1), a plain loop for
** tiny products where the BLAS call costs more than the arithmetic. float16
** is widened into float32 buffers, multiplied in float32 and rounded once
** per output.
**
** The libraries run their own threads, so a product stays on the calling
** thread; batches of tiny products, and on the team batches of medium ones,
** are spread over the wnn pool a product per thread.
*/
#include <cblas.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/dnnl.h"
#include "backends/cpu/half_simd.h"
#include "backends/cpu/kernels.h"
#include "platform/pool.h"

/* Below this many multiply-adds (M*N*K) the reference loop wins. */
#define SMALL_PRODUCT 4096
/* Up to this many multiply-adds a product is worth one thread, not the
** team: an OpenMP region over 16 threads costs tens of microseconds. */
#define MEDIUM_PRODUCT ((size_t)1 << 22)
/* Spread batches of tiny products once the batch holds this much work. */
#define PARALLEL_MIN_WORK ((size_t)1 << 18)

typedef struct sgemm_args {
    bool ta, tb;  /* A is stored [K, M], B is stored [N, K] */
    size_t m, n, k;
    float alpha, beta; /* beta 0: C is written, never read */
    const float *a;
    size_t lda;
    const float *b;
    size_t ldb;
    float *c;
    size_t ldc;
} sgemm_args;

/* The portable reference: one float accumulator per output, like sgemm. */
static void sgemm_reference(const sgemm_args *g)
{
    size_t as_row = g->ta ? 1 : g->lda, as_col = g->ta ? g->lda : 1;
    size_t bs_row = g->tb ? 1 : g->ldb, bs_col = g->tb ? g->ldb : 1;
    for (size_t i = 0; i < g->m; i++) {
        for (size_t j = 0; j < g->n; j++) {
            float acc = 0.0f;
            for (size_t p = 0; p < g->k; p++)
                acc += g->a[i * as_row + p * as_col] * g->b[p * bs_row + j * bs_col];
            float v = g->alpha * acc;
            if (g->beta != 0.0f)
                v += g->beta * g->c[i * g->ldc + j];
            g->c[i * g->ldc + j] = v;
        }
    }
}

void wnn__cpu_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                    const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    /* on the OpenMP team, oneDNN's sgemm (which has its own matrix-vector
    ** kernels): OpenBLAS's threads would spin beside the team's (they
    ** yield-wait long after each call, and a model calls every run) */
    if (wnn__dnnl_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
        return;
    /* a single row or column is a matrix-vector product: gemv reads the
    ** matrix once where gemm would first pack it into its own layout */
    if (m == 1) {
        cblas_sgemv(CblasRowMajor, tb ? CblasNoTrans : CblasTrans, (blasint)(tb ? n : k), (blasint)(tb ? k : n), alpha,
                    b, (blasint)ldb, a, (blasint)(ta ? lda : 1), beta, c, 1);
        return;
    }
    if (n == 1) {
        cblas_sgemv(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, (blasint)(ta ? k : m), (blasint)(ta ? m : k), alpha,
                    a, (blasint)lda, b, (blasint)(tb ? 1 : ldb), beta, c, (blasint)ldc);
        return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (blasint)m, (blasint)n,
                (blasint)k, alpha, a, (blasint)lda, b, (blasint)ldb, beta, c, (blasint)ldc);
}

static bool is_small(const sgemm_args *g)
{
    return g->m * g->n * g->k < SMALL_PRODUCT;
}

/* Dimensions fit blasint: every element count is at most 2^31 - 1. */
static void sgemm(const sgemm_args *g)
{
    if (is_small(g)) {
        sgemm_reference(g);
        return;
    }
    wnn__cpu_sgemm(g->ta, g->tb, g->m, g->n, g->k, g->alpha, g->a, g->lda, g->b, g->ldb, g->beta, g->c, g->ldc);
}

/* ------------------------------------------------------------------------ */
/* float16 staging                                                           */
/* ------------------------------------------------------------------------ */

/* A float32 copy of a float16 view, or NULL when out of memory. */
static float *widen(const wnn__view *v)
{
    size_t n = wnn__view_count(v);
    float *f = malloc(n * sizeof *f);
    if (!f)
        return NULL;
    wnn__half_to_float_n(f, v->data, n);
    return f;
}

static void narrow(const float *f, const wnn__view *v)
{
    wnn__float_to_half_n(v->data, f, wnn__view_count(v));
}

/* float32 pointers to every operand: the views' own data for float32, staged
** copies for float16 (absent operands stay NULL). */
typedef struct staged {
    const float *in[3];
    float *out;
    void *owned[4];
} staged;

static void staged_free(staged *s)
{
    for (int i = 0; i < 4; i++)
        free(s->owned[i]);
}

static wnn_status stage(staged *s, const wnn__view *in, uint32_t n_in, const wnn__view *out)
{
    *s = (staged){0};
    bool half = out[0].desc.data_type == WNN_DATA_TYPE_FLOAT16;
    for (uint32_t i = 0; i < n_in; i++) {
        if (!in[i].data)
            continue;
        if (!half) {
            s->in[i] = in[i].data;
            continue;
        }
        float *f = widen(&in[i]);
        if (!f)
            return WNN_STATUS_OUT_OF_MEMORY;
        s->in[i] = s->owned[i] = f;
    }
    if (!half) {
        s->out = out[0].data;
        return WNN_OK;
    }
    s->out = s->owned[3] = malloc(wnn__view_count(&out[0]) * sizeof(float));
    return s->out ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
}

static wnn_status check_type(const wnn__view *out)
{
    wnn_data_type t = out[0].desc.data_type;
    return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16 ? WNN_OK
                                                                      : WNN_STATUS_UNSUPPORTED_DATA_TYPE;
}

/* Writes the float32 result back when it was staged, and frees the staging. */
static wnn_status unstage(staged *s, const wnn__view *out)
{
    if (out[0].desc.data_type == WNN_DATA_TYPE_FLOAT16)
        narrow(s->out, &out[0]);
    staged_free(s);
    return WNN_OK;
}

/* ------------------------------------------------------------------------ */
/* matmul                                                                    */
/* ------------------------------------------------------------------------ */

/* Batch b of the output reads matrix a_index[b] of a and b_index[b] of b;
** batch dimensions of size 1 (or missing) broadcast. */
typedef struct matmul_job {
    sgemm_args g; /* the first batch; a, b, c move per batch */
    const float *a, *b;
    float *c;
    uint32_t batch_rank;
    size_t batch_shape[WNN_MAX_RANK];
    size_t a_stride[WNN_MAX_RANK], b_stride[WNN_MAX_RANK]; /* in matrices */
} matmul_job;

static void matmul_batches(void *arg, size_t begin, size_t end)
{
    const matmul_job *j = arg;
    size_t a_size = j->g.m * j->g.k, b_size = j->g.k * j->g.n, c_size = j->g.m * j->g.n;
    for (size_t t = begin; t < end; t++) {
        size_t rest = t, ai = 0, bi = 0;
        for (uint32_t d = j->batch_rank; d-- > 0;) {
            size_t idx = rest % j->batch_shape[d];
            rest /= j->batch_shape[d];
            ai += idx * j->a_stride[d];
            bi += idx * j->b_stride[d];
        }
        sgemm_args g = j->g;
        g.a = j->a + ai * a_size;
        g.b = j->b + bi * b_size;
        g.c = j->c + t * c_size;
        sgemm(&g);
    }
}

/* Matrix strides of one operand's batch dimensions, aligned right against
** the output's, 0 where it broadcasts. Returns its number of matrices. */
static size_t batch_strides(const wnn_operand_desc *d, uint32_t batch_rank, size_t *stride)
{
    uint32_t own = d->rank - 2;
    size_t step = 1;
    for (uint32_t i = batch_rank; i-- > 0;) {
        size_t dim = i + own >= batch_rank ? d->shape[i + own - batch_rank] : 1;
        stride[i] = dim == 1 ? 0 : step;
        step *= dim;
    }
    return step;
}

/* matmul, with bias (a float32 row of N, or NULL) added to every row of the
** result by starting C as the bias and multiplying with beta 1; B from pb
** where it is not NULL (a [K, N] B shared by every batch). */
static wnn_status matmul(const wnn__view *in, const wnn__view *out, const float *bias, const wnn__padded_b *pb)
{
    wnn_status st = check_type(out);
    if (st != WNN_OK)
        return st;
    const wnn_operand_desc *ad = &in[0].desc, *bd = &in[1].desc, *od = &out[0].desc;
    staged s;
    if ((st = stage(&s, in, 2, out)) != WNN_OK) {
        staged_free(&s);
        return st;
    }

    matmul_job j = {.a = s.in[0], .b = s.in[1], .c = s.out, .batch_rank = od->rank - 2};
    j.g.m = ad->shape[ad->rank - 2];
    j.g.k = ad->shape[ad->rank - 1];
    j.g.n = bd->shape[bd->rank - 1];
    j.g.alpha = 1.0f;
    j.g.lda = j.g.k;
    j.g.ldb = j.g.n;
    j.g.ldc = j.g.n;
    if (pb && pb->data && bd->rank == 2) {
        j.b = pb->data;
        j.g.ldb = pb->ld;
    }

    size_t batches = 1;
    for (uint32_t i = 0; i < j.batch_rank; i++)
        batches *= j.batch_shape[i] = od->shape[i];
    if (bias) {
        for (size_t r = 0; r < batches * j.g.m; r++)
            memcpy(j.c + r * j.g.n, bias, j.g.n * sizeof *bias);
        j.g.beta = 1.0f;
    }
    size_t a_count = batch_strides(ad, j.batch_rank, j.a_stride);
    size_t b_count = batch_strides(bd, j.batch_rank, j.b_stride);

    if (b_count == 1 && a_count == batches) {
        /* One shared b: the stacked a matrices are one tall [batches*M, K]. */
        j.g.m *= batches;
        matmul_batches(&j, 0, 1);
    } else if (is_small(&j.g) && batches * j.g.m * j.g.n * j.g.k > PARALLEL_MIN_WORK) {
        size_t grain = PARALLEL_MIN_WORK / (j.g.m * j.g.n * j.g.k) + 1;
        wnn__parallel_for(batches, grain, matmul_batches, &j);
    } else if (batches > 1 && j.g.m * j.g.n * j.g.k <= MEDIUM_PRODUCT && wnn__pool_on_team()) {
        /* many medium products (attention's heads): one per thread, each on
        ** one thread, rather than each spread over the team in turn */
        wnn__parallel_for(batches, 1, matmul_batches, &j);
    } else {
        matmul_batches(&j, 0, batches);
    }
    return unstage(&s, out);
}

wnn_status wnn__k_matmul(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    (void)node;
    return matmul(in, out, NULL, NULL);
}

wnn_status wnn__k_matmul_padded(const wnn__node *node, const wnn__view *in, const wnn__view *bias,
                                const wnn__padded_b *b, const wnn__view *out)
{
    (void)node;
    return matmul(in, out, bias ? bias->data : NULL, b);
}

/* ------------------------------------------------------------------------ */
/* gemm                                                                      */
/* ------------------------------------------------------------------------ */

/* Fills out [M, N] with beta * c, c broadcast from rank 0, 1 or 2. Scaling
** here rather than by sgemm's beta keeps beta = 0 with an infinite c NaN, as
** the formula says, where BLAS would skip reading C. */
static void fill_scaled_c(float *out, size_t m, size_t n, const float *c, const wnn_operand_desc *cd,
                          float beta)
{
    size_t rows = cd->rank == 2 ? cd->shape[0] : 1;
    size_t cols = cd->rank >= 1 ? cd->shape[cd->rank - 1] : 1;
    size_t row_step = rows == 1 ? 0 : cols;
    size_t col_step = cols == 1 ? 0 : 1;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float v = c[i * row_step + j * col_step];
            out[i * n + j] = beta == 1.0f ? v : beta * v;
        }
}

static wnn_status gemm(const wnn__node *node, const wnn__view *in, const wnn__view *out, const wnn__padded_b *pb)
{
    wnn_status st = check_type(out);
    if (st != WNN_OK)
        return st;
    bool has_c = node->n_in > 2 && in[2].data != NULL;
    staged s;
    if ((st = stage(&s, in, has_c ? 3 : 2, out)) != WNN_OK) {
        staged_free(&s);
        return st;
    }

    const wnn_operand_desc *ad = &in[0].desc, *bd = &in[1].desc;
    sgemm_args g = {
        .ta = node->attrs.gemm.a_transpose,
        .tb = node->attrs.gemm.b_transpose,
        .alpha = (float)node->attrs.gemm.alpha,
        .a = s.in[0],
        .lda = ad->shape[1],
        .b = s.in[1],
        .ldb = bd->shape[1],
        .c = s.out,
    };
    g.m = g.ta ? ad->shape[1] : ad->shape[0];
    g.k = g.ta ? ad->shape[0] : ad->shape[1];
    g.n = g.tb ? bd->shape[0] : bd->shape[1];
    g.ldc = g.n;
    if (pb && pb->data && !g.tb) {
        g.b = pb->data;
        g.ldb = pb->ld;
    }
    if (has_c) {
        fill_scaled_c(s.out, g.m, g.n, s.in[2], &in[2].desc, (float)node->attrs.gemm.beta);
        g.beta = 1.0f;
    }
    sgemm(&g);
    return unstage(&s, out);
}

wnn_status wnn__k_gemm(const wnn__node *node, const wnn__view *in, const wnn__view *out)
{
    return gemm(node, in, out, NULL);
}

wnn_status wnn__k_gemm_padded(const wnn__node *node, const wnn__view *in, const wnn__padded_b *b,
                              const wnn__view *out)
{
    return gemm(node, in, out, b);
}
