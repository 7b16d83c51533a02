/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-attention.c -- attention as exporters spell it (matmul, scalings,
** the add of a mask, softmax, matmul), which backends run as one kernel
** (backends/attention.h): in five layouts (plain; BERT's, with transposes
** around the chain; a key transposed on its last two axes; keys and values
** broadcast over a batch axis; q, k and v sliced from one projection and
** reshaped into heads, as nn.MultiheadAttention exports them at batch 1), five placements of the scale, three of the
** mask, both float types, on random sizes, against the formula in double.
** Each graph's IR is searched too: the chain must be found once (none for
** the spellings that must not fuse: a softmax also read as a graph output,
** a scale applied after the mask, which scales the mask as well), and the
** cpu device's plan of it must have run no transpose (they become strides).
** With WNN_ATTENTION=0 (ctest's test-attention-unfused) nothing is found
** and the same values come node by node.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/attention.h"
#include "backends/cpu/cpu_graph.h"
#include "core/half.h"
#include "core/internal.h"
#include "platform/config.h"
#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;
static uint32_t seed = 3;

static uint32_t rnd(uint32_t n)
{
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
}

enum { L_PLAIN, L_BERT, L_KEY_T, L_BROADCAST, L_PACKED, L_COUNT };
enum { S_NONE, S_DIV_Q, S_MUL_QK, S_DIV_S, S_MUL_S_DIV_Q, S_COUNT };
enum { M_NONE, M_ROW, M_INPUT, M_COUNT };
enum { NEG_NONE, NEG_SOFTMAX_OUT, NEG_SCALE_AFTER_MASK };

typedef struct problem {
    int layout, scale, mask, neg;
    bool half;
    uint32_t batch, m, n, d, e; /* batch: 6 = [2, 3] or [6] */
    float *q, *k, *v, *mk;      /* logical: [batch][m][d], [batch][n][d], [batch][n][e], mask [batch][m][n] */
} problem;

static float value(bool half, float x) { return half ? wnn__half_to_float(wnn__float_to_half(x)) : x; }

static void fill(float *x, size_t n, bool half, float scale)
{
    for (size_t i = 0; i < n; i++)
        x[i] = value(half, ((float)rnd(2001) / 1000.0f - 1.0f) * scale);
}

static wnn_data_type type_of(const problem *p) { return p->half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32; }

static wnn_operand *scalar(wnn_graph_builder *b, const problem *p, double v)
{
    return wnn_graph_builder_constant_scalar(b, type_of(p), v);
}

/* The n elements of tensor t (float16 when half) as floats, malloc'd. */
static float *read_floats(wnn_tensor *t, size_t n, bool half)
{
    float *got = malloc(n * 4);
    if (half) {
        uint16_t *h = malloc(n * 2);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t, h, n * 2));
        for (size_t i = 0; i < n; i++)
            got[i] = wnn__half_to_float(h[i]);
        free(h);
    } else {
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t, got, n * 4));
    }
    return got;
}

/* A tensor holding floats (as float16 when p->half). */
static wnn_tensor *tensor_of(const problem *p, uint32_t rank, const uint32_t *shape, const float *x, bool out)
{
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = type_of(p);
    td.rank = rank;
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= td.shape[i] = shape[i];
    td.readable = out;
    td.writable = true;
    wnn_tensor *t;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t));
    if (x) {
        if (p->half) {
            uint16_t *h = malloc(n * 2);
            for (size_t i = 0; i < n; i++)
                h[i] = wnn__float_to_half(x[i]);
            CHECK_OK(wnn_context_write_tensor(ctx, t, h, n * 2));
            free(h);
        } else {
            CHECK_OK(wnn_context_write_tensor(ctx, t, x, n * 4));
        }
    }
    return t;
}

/* The raw bytes of an operand in its layout: element (bt, r, c) of the
** logical [batch][rows][cols] at raw[(r * batch + bt) * cols + c] when
** interleaved (BERT's [rows, batch, cols]), else [bt][r][c]; transposed
** swaps rows and cols in the raw layout. */
static float *raw_of(const float *x, uint32_t batch, uint32_t rows, uint32_t cols, bool interleaved, bool transposed)
{
    float *r = malloc((size_t)batch * rows * cols * sizeof *r);
    for (uint32_t bt = 0; bt < batch; bt++)
        for (uint32_t i = 0; i < rows; i++)
            for (uint32_t j = 0; j < cols; j++) {
                float v = x[((size_t)bt * rows + i) * cols + j];
                size_t at = interleaved  ? ((size_t)i * batch + bt) * cols + j
                            : transposed ? ((size_t)bt * cols + j) * rows + i
                                         : ((size_t)bt * rows + i) * cols + j;
                r[at] = v;
            }
    return r;
}

static void run(problem *p)
{
    if (p->layout == L_PACKED)
        p->n = p->m, p->e = p->d;
    const uint32_t B = p->batch, M = p->m, N = p->n, D = p->d, E = p->e;
    bool packed = p->layout == L_PACKED, bert = p->layout == L_BERT || packed;
    uint32_t rank = bert ? 3 : 4;
    if (packed) /* self-attention: one projection gives q, k and v */
        p->n = p->m, p->e = p->d;
    /* logical values */
    size_t nq = (size_t)B * M * D, nk = (size_t)B * N * D, nv = (size_t)B * N * E, nm = (size_t)B * M * N;
    p->q = malloc(nq * 4), p->k = malloc(nk * 4), p->v = malloc(nv * 4), p->mk = calloc(nm, 4);
    fill(p->q, nq, p->half, 2.0f);
    fill(p->k, nk, p->half, 2.0f);
    fill(p->v, nv, p->half, 1.0f);
    if (p->layout == L_BROADCAST) /* keys and values shared by the 2 outer batches */
        for (uint32_t bt = 3; bt < 6; bt++) {
            memcpy(p->k + (size_t)bt * N * D, p->k + (size_t)(bt - 3) * N * D, (size_t)N * D * 4);
            memcpy(p->v + (size_t)bt * N * E, p->v + (size_t)(bt - 3) * N * E, (size_t)N * E * 4);
        }
    float *row = malloc(N * 4), *mask_in = malloc((size_t)2 * M * N * 4);
    fill(row, N, p->half, 3.0f);
    fill(mask_in, (size_t)2 * M * N, p->half, 3.0f);
    for (uint32_t i = 0; i < 2 * M * N; i += 7)
        mask_in[i] = -10000.0f; /* masked out */
    for (uint32_t bt = 0; bt < B; bt++)
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++)
                p->mk[((size_t)bt * M + i) * N + j] = p->mask == M_ROW     ? row[j]
                                                      : p->mask == M_INPUT ? mask_in[((size_t)(bt / 3) * M + i) * N + j]
                                                                           : 0.0f;

    /* the graph */
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    uint32_t qs[4] = {2, 3, M, D}, ks[4] = {2, 3, D, N}, vs[4] = {2, 3, N, E};
    if (bert) {
        qs[0] = M, qs[1] = B, qs[2] = D;
        ks[0] = N, ks[1] = B, ks[2] = D;
        vs[0] = N, vs[1] = B, vs[2] = E;
    } else if (p->layout == L_KEY_T) {
        ks[2] = N, ks[3] = D;
    } else if (p->layout == L_BROADCAST) {
        ks[0] = 3, ks[1] = D, ks[2] = N; /* rank 3: [3, D, N] */
        vs[0] = 1;
    }
    uint32_t k_rank = p->layout == L_BROADCAST ? 3 : rank;
    wnn_operand_desc qd = {type_of(p), rank, {0}}, kd = {type_of(p), k_rank, {0}}, vd = {type_of(p), rank, {0}};
    memcpy(qd.shape, qs, sizeof qs), memcpy(kd.shape, ks, sizeof ks), memcpy(vd.shape, vs, sizeof vs);
    wnn_operand *q, *kt, *v;
    const uint32_t W = B * D; /* a projection's width: the 6 heads of batch 1 */
    if (packed) {
        wnn_operand_desc xd = {type_of(p), 3, {M, 1, 3 * W}};
        wnn_operand *x = wnn_graph_builder_input(b, "x", &xd);
        const uint32_t heads[3] = {M, B, D}, size[3] = {M, 1, W};
        wnn_operand *part[3];
        for (uint32_t k = 0; k < 3; k++) {
            const uint32_t start[3] = {0, 0, k * W};
            part[k] = wnn_reshape(b, wnn_slice(b, x, start, size, NULL), 3, heads);
        }
        q = part[0], kt = part[1], v = part[2];
    } else {
        q = wnn_graph_builder_input(b, "q", &qd);
        kt = wnn_graph_builder_input(b, "k", &kd);
        v = wnn_graph_builder_input(b, "v", &vd);
    }
    static const uint32_t p102[3] = {1, 0, 2}, p120[3] = {1, 2, 0}, p0132[4] = {0, 1, 3, 2};
    if (bert) {
        q = wnn_transpose(b, q, p102);
        kt = wnn_transpose(b, kt, p120);
        v = wnn_transpose(b, v, p102);
    } else if (p->layout == L_KEY_T) {
        kt = wnn_transpose(b, kt, p0132);
    }
    double scale = 1.0;
    if (p->scale == S_DIV_Q)
        q = wnn_div(b, q, scalar(b, p, 8.0)), scale = 0.125;
    if (p->scale == S_MUL_QK) {
        q = wnn_mul(b, scalar(b, p, 0.5), q);
        kt = wnn_mul(b, kt, scalar(b, p, 0.25));
        scale = 0.125;
    }
    if (p->scale == S_MUL_S_DIV_Q)
        q = wnn_div(b, q, scalar(b, p, 2.0));
    wnn_operand *s = wnn_matmul(b, q, kt);
    if (p->scale == S_DIV_S)
        s = wnn_div(b, s, scalar(b, p, 4.0)), scale = 0.25;
    if (p->scale == S_MUL_S_DIV_Q)
        s = wnn_mul(b, s, scalar(b, p, 0.3)), scale = 0.5 * value(p->half, 0.3f);
    wnn_operand *mask_op = NULL;
    if (p->mask == M_ROW) {
        wnn_operand_desc md = {type_of(p), 2, {1, N}};
        uint16_t *h = malloc(N * 2);
        for (uint32_t j = 0; j < N; j++)
            h[j] = wnn__float_to_half(row[j]);
        s = wnn_add(b, s, wnn_graph_builder_constant(b, &md, p->half ? (void *)h : (void *)row, N * (p->half ? 2 : 4)));
        free(h);
    } else if (p->mask == M_INPUT) {
        wnn_operand_desc md = {type_of(p), rank, {2, 1, M, N}};
        if (bert)
            md.shape[0] = B, md.shape[1] = M, md.shape[2] = N;
        mask_op = wnn_graph_builder_input(b, "mask", &md);
        s = wnn_add(b, mask_op, s);
    }
    double after = 1.0;
    if (p->neg == NEG_SCALE_AFTER_MASK)
        s = wnn_mul(b, s, scalar(b, p, 0.5)), after = 0.5;
    wnn_operand *sm = wnn_softmax(b, s, rank - 1);
    wnn_operand *o = wnn_matmul(b, sm, v);
    if (bert)
        o = wnn_transpose(b, o, p102);
    wnn_named_operand outs[2] = {{"o", o}, {"p", sm}};
    uint32_t n_out = p->neg == NEG_SOFTMAX_OUT ? 2 : 1;
    CHECK(o != NULL);

    wnn__ir ir;
    CHECK_OK(wnn__ir_extract(b, outs, n_out, &ir));
    wnn__attention *found;
    uint32_t count;
    CHECK_OK(wnn__attention_find(&ir, NULL, true, &found, &count));
    uint32_t want_chains = p->neg == NEG_NONE && wnn__config_get()->attention ? 1 : 0;
    if (count != want_chains)
        fprintf(stderr, "attention layout %d scale %d mask %d neg %d: %u chains found, want %u\n", p->layout, p->scale,
                p->mask, p->neg, count, want_chains);
    CHECK(count == want_chains);
    if (count == 1) {
        CHECK(fabs(found[0].scale - scale) <= 1e-6 * scale);
        CHECK(found[0].has_mask == (p->mask != M_NONE));
        CHECK(found[0].out.value == ir.output_values[0]);
        if (found[0].n_nodes != ir.n_nodes)
            fprintf(stderr, "layout %d scale %d mask %d: chain of %u nodes, graph %u\n", p->layout, p->scale, p->mask,
                    found[0].n_nodes, ir.n_nodes);
        CHECK(found[0].n_nodes == ir.n_nodes); /* every node of these graphs is the chain's */
    }
    free(found);
    /* the cpu plan runs the chain: none of its transposes is left */
    wnn__cpu_graph *cg = NULL;
    CHECK_OK(wnn__cpu_graph_plan(&ir, &cg));
    uint32_t transposes = UINT32_MAX, reorders;
    if (cg)
        wnn__cpu_graph_census(cg, &transposes, &reorders);
    /* unfused, at most the graph's (one that only moves 1s is a view) */
    uint32_t written = bert ? 4 : p->layout == L_KEY_T ? 1 : 0;
    if (count ? transposes != 0 : transposes > written)
        fprintf(stderr, "layout %d scale %d mask %d half %d: %u transposes planned\n", p->layout, p->scale, p->mask,
                p->half, transposes);
    CHECK(count ? transposes == 0 : transposes <= written);
    wnn__cpu_graph_free(cg);
    wnn__ir_free(&ir);

    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, outs, n_out, &g));
    wnn_graph_builder_release(b);

    /* the inputs in their layouts */
    float *rq = raw_of(p->q, B, M, D, bert, false);
    float *rk = p->layout == L_KEY_T || bert ? raw_of(p->k, B, N, D, bert, false) : raw_of(p->k, B, N, D, false, true);
    float *rv = raw_of(p->v, B, N, E, bert, false);
    wnn_tensor *tq, *tk, *tv;
    if (packed) { /* x[m][0][part * W + h * D + d] for head h */
        const uint32_t xs[3] = {M, 1, 3 * W};
        float *x = malloc((size_t)M * 3 * W * 4);
        const float *parts[3] = {p->q, p->k, p->v};
        for (uint32_t m = 0; m < M; m++)
            for (uint32_t bt = 0; bt < B; bt++)
                for (uint32_t k = 0; k < 3; k++)
                    for (uint32_t c = 0; c < D; c++)
                        x[(size_t)m * 3 * W + k * W + bt * D + c] = parts[k][((size_t)bt * M + m) * D + c];
        tq = tensor_of(p, 3, xs, x, false);
        tk = tv = NULL;
        free(x);
    } else {
        tq = tensor_of(p, rank, qs, rq, false);
        tk = tensor_of(p, k_rank, ks, rk, false);
        tv = tensor_of(p, rank, vs, rv, false);
    }
    uint32_t os[4] = {2, 3, M, E}, ps[4] = {2, 3, M, N};
    if (bert)
        os[0] = M, os[1] = B, os[2] = E, ps[0] = B, ps[1] = M, ps[2] = N;
    wnn_tensor *to = tensor_of(p, rank, os, NULL, true), *tp = tensor_of(p, rank, ps, NULL, true), *tm = NULL;
    wnn_named_tensor ins[4] = {{"q", tq}, {"k", tk}, {"v", tv}, {"mask", NULL}};
    uint32_t n_in = 3;
    if (packed) {
        ins[0].name = "x";
        ins[1] = ins[3]; /* the mask, if any, goes second */
        n_in = 1;
    }
    if (mask_op) {
        uint32_t ms[4] = {2, 1, M, N};
        if (bert) /* [6, M, N]: its own mask per batch, from the two halves */
            ms[0] = B, ms[1] = M, ms[2] = N;
        float *m6 = NULL;
        if (bert) {
            m6 = malloc(nm * 4);
            memcpy(m6, p->mk, nm * 4);
        }
        tm = tensor_of(p, rank, ms, bert ? m6 : mask_in, false);
        free(m6);
        ins[n_in].name = "mask";
        ins[n_in++].tensor = tm;
    }
    wnn_named_tensor named_out[2] = {{"o", to}, {"p", tp}};
    CHECK_OK(wnn_context_dispatch(ctx, g, ins, n_in, named_out, n_out));
    size_t no = (size_t)B * M * E;
    float *got = read_floats(to, no, p->half);

    /* the formula in double, compared in the output's layout */
    int bad = 0;
    double tol = p->half ? 8e-3 : 2e-5;
    double *sc = malloc(N * sizeof *sc);
    for (uint32_t bt = 0; bt < B; bt++)
        for (uint32_t i = 0; i < M; i++) {
            double mx = -INFINITY, sum = 0, big = 0;
            for (uint32_t j = 0; j < N; j++) {
                double dot = 0;
                for (uint32_t c = 0; c < D; c++)
                    dot += (double)p->q[((size_t)bt * M + i) * D + c] * p->k[((size_t)bt * N + j) * D + c];
                sc[j] = (dot * scale + p->mk[((size_t)bt * M + i) * N + j]) * after;
                mx = fmax(mx, sc[j]);
                big = fmax(big, fabs(sc[j]));
            }
            /* float16 run operator by operator (WNN_ATTENTION=0 on cuda) rounds
            ** the scores: a score of magnitude s moves its probability by up to
            ** s * 2^-11 relative */
            const double row_tol = p->half ? tol + big * 0x1p-11 : tol;
            for (uint32_t j = 0; j < N; j++)
                sum += sc[j] = exp(sc[j] - mx);
            for (uint32_t c = 0; c < E; c++) {
                double want = 0;
                for (uint32_t j = 0; j < N; j++)
                    want += sc[j] / sum * p->v[((size_t)bt * N + j) * E + c];
                size_t at = bert ? ((size_t)i * B + bt) * E + c : ((size_t)bt * M + i) * E + c;
                if (!(fabs(got[at] - want) <= row_tol * (1 + fabs(want))) && bad++ < 3)
                    fprintf(stderr,
                            "attention layout %d scale %d mask %d neg %d%s [%u,%u,%u,%u,%u]: o[%u][%u][%u] = %.7g, "
                            "want %.7g\n",
                            p->layout, p->scale, p->mask, p->neg, p->half ? " f16" : "", B, M, N, D, E, bt, i, c,
                            got[at], want);
            }
        }
    CHECK(bad == 0);
    free(sc);
    free(got);
    free(rq), free(rk), free(rv), free(row), free(mask_in);
    free(p->q), free(p->k), free(p->v), free(p->mk);
    wnn_tensor_release(tq), wnn_tensor_release(to);
    if (tk)
        wnn_tensor_release(tk), wnn_tensor_release(tv);
    wnn_tensor_release(tp);
    if (tm)
        wnn_tensor_release(tm);
    wnn_graph_release(g);
}

/* Self-attention as PyTorch 2's multi-head attention exports it: each of
** q, k and v is [S, b, H*D], cut into heads by reshape [S, b*H, D],
** transpose (1, 0, 2) and reshape [b, H, S, D]; k then transposed on its
** last two axes; q and kt each scaled by 1/D^(1/4); the result transposed
** (2, 0, 1, 3) and reshaped back to [S, b, H*D]. The chain takes every node
** but that last reshape (the heads become strides: no copies), and the
** result matches the formula in double. */
static void torch2_heads(bool half, uint32_t S, uint32_t D)
{
    enum { b = 2, H = 3 };
    const uint32_t E = H * D;
    const size_t n = (size_t)S * b * E;
    wnn_data_type t = half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32;
    problem sp = {0};
    sp.half = half;
    wnn_graph_builder *g;
    CHECK_OK(wnn_graph_builder_create(ctx, &g));
    wnn_operand_desc xd = {t, 3, {S, b, E}};
    const uint32_t flat[3] = {S, b * H, D}, heads[4] = {b, H, S, D}, back[3] = {S, b, E};
    static const uint32_t p102[3] = {1, 0, 2}, p0132[4] = {0, 1, 3, 2}, p2013[4] = {2, 0, 1, 3};
    const char *names[3] = {"q", "k", "v"};
    wnn_operand *op[3];
    for (int i = 0; i < 3; i++)
        op[i] = wnn_reshape(
            g, wnn_transpose(g, wnn_reshape(g, wnn_graph_builder_input(g, names[i], &xd), 3, flat), p102), 4, heads);
    double c = 1.0 / sqrt(sqrt((double)D));
    wnn_operand *q = wnn_mul(g, op[0], scalar(g, &sp, c));
    wnn_operand *kt = wnn_mul(g, wnn_transpose(g, op[1], p0132), scalar(g, &sp, c));
    wnn_operand *o = wnn_matmul(g, wnn_softmax(g, wnn_matmul(g, q, kt), 3), op[2]);
    o = wnn_reshape(g, wnn_transpose(g, o, p2013), 3, back);
    wnn_named_operand outs[1] = {{"o", o}};
    wnn__ir ir;
    CHECK_OK(wnn__ir_extract(g, outs, 1, &ir));
    wnn__attention *found;
    uint32_t count;
    CHECK_OK(wnn__attention_find(&ir, NULL, true, &found, &count));
    uint32_t want = wnn__config_get()->attention ? 1 : 0;
    CHECK(count == want);
    /* all but the last reshape, which views the result */
    if (count == 1 && found[0].n_nodes + 1 != ir.n_nodes)
        fprintf(stderr, "torch2 heads: chain of %u nodes, graph %u\n", found[0].n_nodes, ir.n_nodes);
    CHECK(count == 0 || found[0].n_nodes + 1 == ir.n_nodes);
    free(found);
    wnn__ir_free(&ir);
    wnn_graph *gr;
    CHECK_OK(wnn_graph_builder_build(g, outs, 1, &gr));
    wnn_graph_builder_release(g);

    float *x[3];
    wnn_tensor *tx[3];
    const uint32_t xs[3] = {S, b, E};
    for (int i = 0; i < 3; i++) {
        x[i] = malloc(n * 4);
        fill(x[i], n, half, i == 2 ? 1.0f : 2.0f);
        tx[i] = tensor_of(&sp, 3, xs, x[i], false);
    }
    wnn_tensor *to = tensor_of(&sp, 3, xs, NULL, true);
    wnn_named_tensor ins[3] = {{"q", tx[0]}, {"k", tx[1]}, {"v", tx[2]}}, named_out[1] = {{"o", to}};
    CHECK_OK(wnn_context_dispatch(ctx, gr, ins, 3, named_out, 1));
    float *got = read_floats(to, n, half);
    /* element (s, bb, h*D + d) of q, k and v is head (bb, h)'s row s */
    int bad = 0;
    double tol = half ? 8e-3 : 2e-5, *sc = malloc(S * sizeof *sc);
    for (uint32_t bb = 0; bb < b; bb++)
        for (uint32_t h = 0; h < H; h++)
            for (uint32_t i = 0; i < S; i++) {
                double mx = -INFINITY, sum = 0;
                for (uint32_t j = 0; j < S; j++) {
                    double dot = 0;
                    for (uint32_t d = 0; d < D; d++)
                        dot += (double)x[0][((size_t)i * b + bb) * E + h * D + d] *
                               x[1][((size_t)j * b + bb) * E + h * D + d];
                    sc[j] = dot / sqrt((double)D);
                    mx = sc[j] > mx ? sc[j] : mx;
                }
                for (uint32_t j = 0; j < S; j++)
                    sum += sc[j] = exp(sc[j] - mx);
                for (uint32_t d = 0; d < D; d++) {
                    double w = 0;
                    for (uint32_t j = 0; j < S; j++)
                        w += sc[j] / sum * x[2][((size_t)j * b + bb) * E + h * D + d];
                    size_t at = ((size_t)i * b + bb) * E + h * D + d;
                    if (!(fabs(got[at] - w) <= tol * (1.0 + fabs(w))) && bad++ < 3)
                        fprintf(stderr, "torch2 heads%s S %u D %u: o[%zu] = %.6g, want %.6g\n", half ? " f16" : "", S,
                                D, at, got[at], w);
                }
            }
    CHECK(bad == 0);
    free(sc), free(got);
    for (int i = 0; i < 3; i++) {
        free(x[i]);
        wnn_tensor_release(tx[i]);
    }
    wnn_tensor_release(to);
    wnn_graph_release(gr);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "no %s device: %s\n", o.device, wnn_last_error_message());
        return 77;
    }
    /* widths: mostly equal, as the cuda kernel's are (16 to 128, odd multiples of 16 too), some not */
    static const uint32_t ms[] = {1, 5, 37, 128}, ns[] = {1, 7, 64, 200}, ds[] = {8, 16, 32, 48, 64, 80, 96, 128},
                          es[] = {8, 12, 64};
    for (int layout = 0; layout < L_COUNT; layout++)
        for (int scale = 0; scale < S_COUNT; scale++)
            for (int mask = 0; mask < M_COUNT; mask++)
                for (int half = 0; half < 2; half++) {
                    uint32_t d = ds[rnd(8)], e = rnd(3) ? d : es[rnd(3)];
                    problem p = {layout,     scale, mask, NEG_NONE, half, 6,    ms[rnd(4)],
                                 ns[rnd(4)], d,     e,    NULL,     NULL, NULL, NULL};
                    run(&p);
                }
    for (int half = 0; half < 2; half++) {
        problem a = {L_BERT, S_DIV_Q, M_NONE, NEG_SOFTMAX_OUT, half, 6, 5, 7, 8, 12, NULL, NULL, NULL, NULL};
        run(&a);
        problem c = {L_PLAIN, S_NONE, M_ROW, NEG_SCALE_AFTER_MASK, half, 6, 37, 64, 16, 8, NULL, NULL, NULL, NULL};
        run(&c);
    }
    static const uint32_t heads_s[] = {1, 9, 64}, heads_d[] = {16, 48, 64};
    for (int half = 0; half < 2; half++)
        for (int i = 0; i < 3; i++)
            torch2_heads(half, heads_s[i], heads_d[rnd(3)]);
    wnn_context_release(ctx);
    TEST_DONE();
}
