/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpu-chains.c -- runs of element-wise operators that the cpu device
** computes in one pass (backends/cpu/ew_chain.h): random runs of the
** binary, unary and activation operators over random shapes, their other
** operands broadcast every way (same shape, scalars, rows, columns, any
** dimensions of 1), float32 and float16 (a graph computed in float32, or
** chains that keep each block in float32 and round each node's result: a
** graph that is only chains), with values
** between them that are also graph outputs or read twice (where a run must
** break), are computed once fused and once with WNN_CPU_FUSE=0, node by
** node: the results must be the same bits (sin, cos and tan, whose SLEEF
** rows may differ by an ulp with an element's neighbours, in a run of their
** own, within 2 ulps). The planner must find the runs
** it should (wnn__cpu_graph_chains), and none under WNN_CPU_FUSE=0.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/cpu_graph.h"
#include "core/half.h"
#include "core/internal.h"
#include "platform/config.h"
#include "test.h"
#include "wnn/wnn.h"

static wnn_context *ctx;
static uint32_t seed = 21;

static uint32_t rnd(uint32_t n)
{
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
}

static float frand(float lo, float hi) { return lo + (hi - lo) * (float)rnd(100001) / 100000.0f; }

enum {
    STEP_ADD, STEP_SUB, STEP_MUL, STEP_DIV, STEP_MAX, STEP_MIN, STEP_POW, /* binary */
    STEP_ABS, STEP_NEG, STEP_EXP, STEP_LOG, STEP_SQRT, STEP_RELU, STEP_SIGMOID, STEP_TANH, STEP_ERF,
    STEP_CEIL, STEP_FLOOR, STEP_SIN, STEP_COS, STEP_TAN, STEP_RECIPROCAL, STEP_SIGN, STEP_GELU, STEP_ELU,
    STEP_LEAKY, STEP_HARD_SIGMOID, STEP_HARD_SWISH, STEP_LINEAR, STEP_SOFTPLUS, STEP_SOFTSIGN, STEP_CLAMP,
    STEP_SQUARE, /* mul(h, h): h read twice, which ends a run */
    STEP_COUNT
};

#define MAX_STEPS 24

typedef struct step {
    int kind;
    bool left;           /* binary: the run's value is the left operand */
    bool output;         /* the step's result is also a graph output */
    uint32_t rank;       /* binary: the other operand's shape */
    uint32_t shape[4];
    float *data;
} step;

typedef struct plan {
    bool half;
    uint32_t rank, shape[4];
    uint32_t n_steps;
    step steps[MAX_STEPS];
    float *x;
} plan;

static size_t count_of(uint32_t rank, const uint32_t *shape)
{
    size_t n = 1;
    for (uint32_t i = 0; i < rank; i++)
        n *= shape[i];
    return n;
}

static wnn_operand *constant(wnn_graph_builder *b, bool half, uint32_t rank, const uint32_t *shape, const float *v)
{
    wnn_operand_desc d = {half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, rank, {0}};
    memcpy(d.shape, shape, rank * sizeof *shape);
    size_t n = count_of(rank, shape);
    if (!half)
        return wnn_graph_builder_constant(b, &d, v, n * 4);
    uint16_t *h = malloc(n * 2 + 2);
    for (size_t i = 0; i < n; i++)
        h[i] = wnn__float_to_half(v[i]);
    wnn_operand *c = wnn_graph_builder_constant(b, &d, h, n * 2);
    free(h);
    return c;
}

static wnn_operand *unary(wnn_graph_builder *b, int kind, wnn_operand *h)
{
    static const double alpha = 0.3, beta = 0.4;
    switch (kind) {
    case STEP_ABS: return wnn_abs(b, h);
    case STEP_NEG: return wnn_neg(b, h);
    case STEP_EXP: return wnn_exp(b, h);
    case STEP_LOG: return wnn_log(b, h);
    case STEP_SQRT: return wnn_sqrt(b, h);
    case STEP_RELU: return wnn_relu(b, h);
    case STEP_SIGMOID: return wnn_sigmoid(b, h);
    case STEP_TANH: return wnn_tanh(b, h);
    case STEP_ERF: return wnn_erf(b, h);
    case STEP_CEIL: return wnn_ceil(b, h);
    case STEP_FLOOR: return wnn_floor(b, h);
    case STEP_SIN: return wnn_sin(b, h);
    case STEP_COS: return wnn_cos(b, h);
    case STEP_TAN: return wnn_tan(b, h);
    case STEP_RECIPROCAL: return wnn_reciprocal(b, h);
    case STEP_SIGN: return wnn_sign(b, h);
    case STEP_GELU: return wnn_gelu(b, h);
    case STEP_ELU: {
        wnn_elu_options o = WNN_ELU_OPTIONS_INIT;
        o.alpha = &alpha;
        return wnn_elu(b, h, &o);
    }
    case STEP_LEAKY: {
        wnn_leaky_relu_options o = WNN_LEAKY_RELU_OPTIONS_INIT;
        o.alpha = &alpha;
        return wnn_leaky_relu(b, h, &o);
    }
    case STEP_HARD_SIGMOID: {
        wnn_hard_sigmoid_options o = WNN_HARD_SIGMOID_OPTIONS_INIT;
        o.alpha = &alpha, o.beta = &beta;
        return wnn_hard_sigmoid(b, h, &o);
    }
    case STEP_HARD_SWISH: return wnn_hard_swish(b, h);
    case STEP_LINEAR: {
        wnn_linear_options o = WNN_LINEAR_OPTIONS_INIT;
        o.alpha = &alpha, o.beta = beta;
        return wnn_linear(b, h, &o);
    }
    case STEP_SOFTPLUS: return wnn_softplus(b, h);
    case STEP_SOFTSIGN: return wnn_softsign(b, h);
    case STEP_CLAMP: {
        const wnn_number lo = {.value = -0.75}, hi = {.value = 1.5};
        wnn_clamp_options o = {.min_value = &lo, .max_value = &hi};
        return wnn_clamp(b, h, &o);
    }
    case STEP_SQUARE: return wnn_mul(b, h, h);
    default: return NULL;
    }
}

static wnn_operand *binary(wnn_graph_builder *b, int kind, wnn_operand *l, wnn_operand *r)
{
    switch (kind) {
    case STEP_ADD: return wnn_add(b, l, r);
    case STEP_SUB: return wnn_sub(b, l, r);
    case STEP_MUL: return wnn_mul(b, l, r);
    case STEP_DIV: return wnn_div(b, l, r);
    case STEP_MAX: return wnn_max(b, l, r);
    case STEP_MIN: return wnn_min(b, l, r);
    default: return wnn_pow(b, l, r);
    }
}

/* A random plan: an output shape (large enough, now and then, to run on the
** pool), its steps, and their operands. */
static void make_plan(plan *p)
{
    memset(p, 0, sizeof *p);
    p->half = rnd(4) == 0;
    p->rank = 1 + rnd(4);
    for (uint32_t i = 0; i < p->rank; i++)
        p->shape[i] = 1 + rnd(rnd(3) ? 9 : 40);
    if (rnd(4) == 0) { /* over 2^16 elements: the pool's threads share the rows */
        p->rank = 3;
        p->shape[0] = 3 + rnd(5), p->shape[1] = 64 + rnd(64), p->shape[2] = 200 + rnd(300);
    }
    p->n_steps = 2 + rnd(rnd(5) ? 7 : MAX_STEPS - 1);
    size_t n = count_of(p->rank, p->shape);
    p->x = malloc(n * sizeof *p->x);
    for (size_t i = 0; i < n; i++)
        p->x[i] = frand(-3, 3);
    for (uint32_t k = 0; k < p->n_steps; k++) {
        step *s = &p->steps[k];
        s->kind = (int)rnd(STEP_COUNT);
        if (s->kind == STEP_SQUARE && rnd(2))
            s->kind = STEP_ADD;
        /* SLEEF's sin, cos and tan may round an element 1 ulp apart with
        ** other elements beside it in the vector (trig_chain() below) */
        if (s->kind == STEP_SIN || s->kind == STEP_COS || s->kind == STEP_TAN)
            s->kind = STEP_TANH;
        s->left = rnd(2);
        s->output = rnd(8) == 0;
        if (s->kind > STEP_POW)
            continue;
        /* the other operand: the output's trailing dimensions, each kept or 1 */
        s->rank = rnd(p->rank + 1);
        uint32_t mode = rnd(4); /* same, any 1s, trailing row, leading column */
        for (uint32_t i = 0; i < s->rank; i++) {
            uint32_t d = p->shape[p->rank - s->rank + i];
            s->shape[i] = mode == 0 ? d : mode == 1 ? (rnd(2) ? d : 1) : mode == 2 ? (i == s->rank - 1 ? d : 1)
                                                                            : (i == 0 ? d : 1);
        }
        size_t m = count_of(s->rank, s->shape);
        s->data = malloc((m ? m : 1) * sizeof *s->data);
        for (size_t i = 0; i < m; i++)
            s->data[i] = s->kind == STEP_POW ? (float)(int)frand(-2, 3) : frand(-2, 2);
        if (s->kind == STEP_DIV)
            for (size_t i = 0; i < m; i++)
                s->data[i] = s->data[i] < 0 ? s->data[i] - 0.5f : s->data[i] + 0.5f;
    }
}

static void free_plan(plan *p)
{
    free(p->x);
    for (uint32_t k = 0; k < p->n_steps; k++)
        free(p->steps[k].data);
}

/* The plan's graph; names[] gets its outputs' names ("y" last), *n_out
** their count. */
static wnn_operand *build(wnn_graph_builder *b, const plan *p, wnn_named_operand *outs, uint32_t *n_out)
{
    static char names[MAX_STEPS][8];
    wnn_operand_desc d = {p->half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32, p->rank, {0}};
    memcpy(d.shape, p->shape, sizeof p->shape);
    wnn_operand *h = wnn_graph_builder_input(b, "x", &d);
    *n_out = 0;
    for (uint32_t k = 0; k < p->n_steps; k++) {
        const step *s = &p->steps[k];
        if (s->kind > STEP_POW) {
            h = unary(b, s->kind, h);
        } else {
            wnn_operand *e = constant(b, p->half, s->rank, s->shape, s->data);
            h = s->left ? binary(b, s->kind, h, e) : binary(b, s->kind, e, h);
        }
        if (s->output && k + 1 < p->n_steps) {
            snprintf(names[k], sizeof names[k], "o%u", k);
            outs[(*n_out)++] = (wnn_named_operand){names[k], h};
        }
    }
    outs[(*n_out)++] = (wnn_named_operand){"y", h};
    return h;
}

/* Whether a and b hold the same values: the same bits, or both NaN. */
static bool same_values(const void *a, const void *b, size_t n, bool half)
{
    for (size_t i = 0; i < n; i++) {
        float x = half ? wnn__half_to_float(((const uint16_t *)a)[i]) : ((const float *)a)[i];
        float y = half ? wnn__half_to_float(((const uint16_t *)b)[i]) : ((const float *)b)[i];
        bool same = half ? ((const uint16_t *)a)[i] == ((const uint16_t *)b)[i]
                         : memcmp(&((const float *)a)[i], &((const float *)b)[i], 4) == 0;
        if (!same && !(isnan(x) && isnan(y))) {
            fprintf(stderr, "  element %zu: %.9g, node by node %.9g\n", i, x, y);
            return false;
        }
    }
    return true;
}

/* Runs the plan's graph, built under the environment as it is: every
** output into outputs[k] (malloc'd). */
static void run(const plan *p, void **outputs, uint32_t *n_out)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_named_operand outs[MAX_STEPS + 1];
    CHECK(build(b, p, outs, n_out) != NULL);
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, outs, *n_out, &g));
    wnn_graph_builder_release(b);
    size_t n = count_of(p->rank, p->shape), es = p->half ? 2 : 4;
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = p->half ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_FLOAT32;
    td.rank = p->rank, td.readable = td.writable = true;
    memcpy(td.shape, p->shape, sizeof p->shape);
    wnn_tensor *x, *t[MAX_STEPS + 1];
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &x));
    void *xs = malloc(n * es);
    for (size_t i = 0; i < n; i++) {
        if (p->half)
            ((uint16_t *)xs)[i] = wnn__float_to_half(p->x[i]);
        else
            ((float *)xs)[i] = p->x[i];
    }
    CHECK_OK(wnn_context_write_tensor(ctx, x, xs, n * es));
    wnn_named_tensor in = {"x", x}, bound[MAX_STEPS + 1];
    for (uint32_t k = 0; k < *n_out; k++) {
        CHECK_OK(wnn_context_create_tensor(ctx, &td, &t[k]));
        bound[k] = (wnn_named_tensor){outs[k].name, t[k]};
    }
    CHECK_OK(wnn_context_dispatch(ctx, g, &in, 1, bound, *n_out));
    for (uint32_t k = 0; k < *n_out; k++) {
        outputs[k] = malloc(n * es);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, t[k], outputs[k], n * es));
        wnn_tensor_release(t[k]);
    }
    wnn_tensor_release(x);
    wnn_graph_release(g);
    free(xs);
}

/* The chains the cpu planner finds in the plan's graph. */
static void chains_of(const plan *p, uint32_t *chains, uint32_t *nodes)
{
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_named_operand outs[MAX_STEPS + 1];
    uint32_t n_out;
    build(b, p, outs, &n_out);
    wnn__ir ir;
    CHECK_OK(wnn__ir_extract(b, outs, n_out, &ir));
    wnn__cpu_graph *g = NULL;
    CHECK_OK(wnn__cpu_graph_plan(&ir, &g));
    *chains = *nodes = 0;
    if (g)
        wnn__cpu_graph_chains(g, chains, nodes);
    wnn__cpu_graph_free(g);
    wnn__ir_free(&ir);
    wnn_graph_builder_release(b);
}

static void set_fuse(const char *v)
{
    if (v)
        setenv("WNN_CPU_FUSE", v, 1);
    else
        unsetenv("WNN_CPU_FUSE");
    wnn__config_reload();
}

/* The longest run of the plan's steps a chain may take (steps read twice
** or that are graph outputs end one; a chain holds 16 at most). */
static uint32_t longest_run(const plan *p)
{
    uint32_t best = 0, cur = 0;
    for (uint32_t k = 0; k < p->n_steps; k++) {
        if (p->steps[k].kind == STEP_SQUARE)
            cur = 0; /* its operand has two reads: the run before ends, this one starts */
        cur++;
        if (cur > best)
            best = cur;
        if (p->steps[k].output)
            cur = 0;
    }
    return best;
}

static void random_case(int k)
{
    plan p;
    make_plan(&p);
    uint32_t n_fused = 0, n_plain = 0;
    void *fused[MAX_STEPS + 1], *plain[MAX_STEPS + 1];
    set_fuse(NULL);
    run(&p, fused, &n_fused);
    uint32_t chains, nodes;
    chains_of(&p, &chains, &nodes);
    /* a run of two steps or more whose other operands split the output
    ** into rows short enough becomes a chain; steps of a shape that stays
    ** with the whole output (rows of more than 2^16) may not, so only the
    ** small shapes are held to it */
    if (longest_run(&p) >= 2 && count_of(p.rank, p.shape) <= 65536) {
        CHECK(chains >= 1);
        if (chains == 0)
        {
            fprintf(stderr, "case %d: no chain found in %u steps (half %d, rank %u):", k, p.n_steps, p.half, p.rank);
            for (uint32_t j = 0; j < p.n_steps; j++)
                fprintf(stderr, " %d%s", p.steps[j].kind, p.steps[j].output ? "*" : "");
            fprintf(stderr, "\n");
        }
    }
    set_fuse("0");
    run(&p, plain, &n_plain);
    uint32_t chains_off, nodes_off;
    chains_of(&p, &chains_off, &nodes_off);
    CHECK(chains_off == 0);
    set_fuse(NULL);
    CHECK(n_fused == n_plain);
    size_t n = count_of(p.rank, p.shape);
    for (uint32_t j = 0; j < n_fused && j < n_plain; j++) {
        bool same = same_values(fused[j], plain[j], n, p.half);
        CHECK(same);
        if (!same)
        {
            fprintf(stderr, "case %d output %u: %u steps, rank %u, half %d, %u chains of %u nodes; steps", k, j,
                    p.n_steps, p.rank, p.half, chains, nodes);
            for (uint32_t q = 0; q < p.n_steps; q++)
                fprintf(stderr, " %d%s", p.steps[q].kind, p.steps[q].output ? "*" : "");
            fprintf(stderr, "\n");
        }
    }
    for (uint32_t j = 0; j < n_fused; j++)
        free(fused[j]);
    for (uint32_t j = 0; j < n_plain; j++)
        free(plain[j]);
    free_plan(&p);
}

/* A bias row added to [64, 768], then gelu, a scale and tanh: one chain
** of the four. */
static void bias_then_activation(void)
{
    plan p = {.rank = 2, .shape = {64, 768}, .n_steps = 4};
    size_t n = 64 * 768;
    p.x = malloc(n * sizeof *p.x);
    for (size_t i = 0; i < n; i++)
        p.x[i] = frand(-3, 3);
    int kinds[4] = {STEP_ADD, STEP_GELU, STEP_MUL, STEP_TANH};
    uint32_t shapes[4] = {768, 0, 1, 0};
    for (int k = 0; k < 4; k++) {
        step *s = &p.steps[k];
        s->kind = kinds[k];
        s->left = true;
        if (kinds[k] <= STEP_POW) {
            s->rank = 1;
            s->shape[0] = shapes[k];
            s->data = malloc(shapes[k] * sizeof *s->data);
            for (uint32_t i = 0; i < shapes[k]; i++)
                s->data[i] = frand(-1, 1);
        }
    }
    uint32_t chains, nodes;
    chains_of(&p, &chains, &nodes);
    CHECK(chains == 1 && nodes == 4);
    void *fused[2], *plain[2];
    uint32_t n1, n2;
    run(&p, fused, &n1);
    set_fuse("0");
    run(&p, plain, &n2);
    set_fuse(NULL);
    CHECK(same_values(fused[0], plain[0], n, false));
    free(fused[0]);
    free(plain[0]);
    free_plan(&p);
}

/* Whether a and b are within ulps units in the last place of each other. */
static bool close_ulps(float a, float b, int ulps)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    return (ia > ib ? (int64_t)ia - ib : (int64_t)ib - ia) <= ulps;
}

/* A run through sin, cos and tan, [3,50,700]: fused and node by node within
** 2 ulps. SLEEF's trigonometric functions pick a slower, exact reduction for
** a whole vector when one of its elements is large, so an element may come
** out 1 ulp apart when its neighbours differ; the rest of the run (an add
** that keeps the values away from 0) keeps that at an ulp or so. */
static void trig_chain(void)
{
    int kinds[6] = {STEP_MUL, STEP_SIN, STEP_ADD, STEP_COS, STEP_TAN, STEP_ADD};
    plan p = {.rank = 3, .shape = {3, 50, 700}, .n_steps = 6};
    size_t n = 3 * 50 * 700;
    p.x = malloc(n * sizeof *p.x);
    for (size_t i = 0; i < n; i++)
        p.x[i] = frand(-3, 3);
    for (int k = 0; k < 6; k++) {
        step *s = &p.steps[k];
        s->kind = kinds[k];
        s->left = true;
        if (kinds[k] <= STEP_POW) {
            s->rank = 0;
            s->data = malloc(sizeof *s->data);
            s->data[0] = k == 0 ? 40.0f : 3.0f;
        }
    }
    void *fused[1], *plain[1];
    uint32_t n1, n2;
    run(&p, fused, &n1);
    set_fuse("0");
    run(&p, plain, &n2);
    set_fuse(NULL);
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        if (!close_ulps(((float *)fused[0])[i], ((float *)plain[0])[i], 2) && bad++ < 3)
            fprintf(stderr, "trig chain: element %zu: %.9g, node by node %.9g\n", i, ((float *)fused[0])[i],
                    ((float *)plain[0])[i]);
    CHECK(bad == 0);
    free(fused[0]);
    free(plain[0]);
    free_plan(&p);
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "no %s device: %s\n", o.device, wnn_last_error_message());
        return 77;
    }
    bias_then_activation();
    trig_chain();
    for (int k = 0; k < 150; k++)
        random_case(k);
    wnn_context_release(ctx);
    TEST_DONE();
}
