/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_dnn_graph.c -- the engines of cuDNN 9's graph API (the backend
** descriptors) for a convolution, and the timing at compile that chooses
** between them and the legacy algorithms cuda_dnn.c found.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_dnn.h"
#include "platform/config.h"

/* cuDNN's legacy algorithms are a fixed list; the graph API's heuristics
** offer the engines written since (on Hopper, the fastest float16 kernels
** for nchw are only there), as PyTorch's convolutions use them. Each conv
** is planned both ways at compile, the candidates are timed on scratch
** tensors of its shape, and the faster runs: the graph's plan for the
** convolution alone, then bias, residual and relu as one kernel of ours
** (wnn__cu_conv_epilogue), against the legacy call that fuses them. */

#define DNN_ENGINES 12 /* heuristics' candidates timed */

/* Keeps descriptor d in the plan's list (destroyed with it); false, with
** d destroyed, when there is no room or d is NULL. */
static bool graph_keep(dnn_plan *p, dnn_desc d)
{
    if (!d)
        return false;
    if (p->n_graph_descs == DNN_GRAPH_DESCS) {
        wnn__dnn.BackendDestroyDescriptor(d);
        return false;
    }
    p->graph_descs[p->n_graph_descs++] = d;
    return true;
}

static dnn_desc graph_make(int kind)
{
    dnn_desc d = NULL;
    return wnn__dnn.BackendCreateDescriptor(kind, &d) == DNN_STATUS_SUCCESS ? d : NULL;
}

static bool graph_set(dnn_desc d, int name, int type, int64_t count, const void *values)
{
    return wnn__dnn.BackendSetAttribute(d, name, type, count, values) == DNN_STATUS_SUCCESS;
}

/* dims {N, C, H, W} (or {O, I/g, kh, kw}) with the strides of nchw or nhwc. */
static dnn_desc graph_tensor(dnn_plan *p, int64_t uid, int type, const int64_t dims[4], bool nhwc)
{
    int64_t st[4], align = 16;
    if (nhwc) {
        st[1] = 1;
        st[3] = dims[1];
        st[2] = dims[3] * dims[1];
        st[0] = dims[2] * st[2];
    } else {
        st[3] = 1;
        st[2] = dims[3];
        st[1] = dims[2] * dims[3];
        st[0] = dims[1] * st[1];
    }
    dnn_desc d = graph_make(BK_TENSOR);
    if (!graph_keep(p, d))
        return NULL;
    if (!graph_set(d, A_TENSOR_DATA_TYPE, AT_DATA_TYPE, 1, &type) ||
        !graph_set(d, A_TENSOR_DIMENSIONS, AT_INT64, 4, dims) || !graph_set(d, A_TENSOR_STRIDES, AT_INT64, 4, st) ||
        !graph_set(d, A_TENSOR_UID, AT_INT64, 1, &uid) || !graph_set(d, A_TENSOR_ALIGNMENT, AT_INT64, 1, &align) ||
        wnn__dnn.BackendFinalize(d) != DNN_STATUS_SUCCESS)
        return NULL;
    return d;
}

/* The finalized operation graph of conv c (its descriptors kept in p);
** NULL when cuDNN refuses it. */
static dnn_desc graph_of(void *h, const wnn__cu_conv *c, wnn_data_type t, dnn_plan *p)
{
    int type = t == WNN_DATA_TYPE_FLOAT16 ? DNN_DATA_HALF : DNN_DATA_FLOAT;
    bool nhwc = c->nhwc != 0;
    int64_t xdims[4] = {c->n, c->c_in, c->h_in, c->w_in};
    int64_t wdims[4] = {c->c_out, c->c_in / c->groups, c->kh, c->kw};
    int64_t ydims[4] = {c->n, c->c_out, c->h_out, c->w_out};
    dnn_desc x = graph_tensor(p, UID_X, type, xdims, nhwc);
    dnn_desc w = x ? graph_tensor(p, UID_W, type, wdims, nhwc) : NULL;
    dnn_desc y = w ? graph_tensor(p, UID_Y, type, ydims, nhwc) : NULL;
    dnn_desc conv = y ? graph_make(BK_CONVOLUTION) : NULL;
    if (!graph_keep(p, conv))
        return NULL;
    int comp = DNN_DATA_FLOAT, mode = DNN_CROSS_CORRELATION;
    int64_t dims = 2, dil[2] = {c->dilation[0], c->dilation[1]}, str[2] = {c->stride[0], c->stride[1]};
    int64_t pad[2] = {c->pad_top, c->pad_left}; /* symmetric (conv_fits) */
    if (!graph_set(conv, A_CONV_COMP_TYPE, AT_DATA_TYPE, 1, &comp) ||
        !graph_set(conv, A_CONV_MODE, AT_CONVOLUTION_MODE, 1, &mode) ||
        !graph_set(conv, A_CONV_SPATIAL_DIMS, AT_INT64, 1, &dims) ||
        !graph_set(conv, A_CONV_DILATIONS, AT_INT64, 2, dil) ||
        !graph_set(conv, A_CONV_FILTER_STRIDES, AT_INT64, 2, str) ||
        !graph_set(conv, A_CONV_PRE_PADDINGS, AT_INT64, 2, pad) ||
        !graph_set(conv, A_CONV_POST_PADDINGS, AT_INT64, 2, pad) ||
        wnn__dnn.BackendFinalize(conv) != DNN_STATUS_SUCCESS)
        return NULL;
    dnn_desc op = graph_make(BK_OP_CONV_FORWARD);
    if (!graph_keep(p, op))
        return NULL;
    float alpha = 1.0f, beta = 0.0f;
    if (!graph_set(op, A_FWD_X, AT_DESCRIPTOR, 1, &x) || !graph_set(op, A_FWD_W, AT_DESCRIPTOR, 1, &w) ||
        !graph_set(op, A_FWD_Y, AT_DESCRIPTOR, 1, &y) || !graph_set(op, A_FWD_CONV, AT_DESCRIPTOR, 1, &conv) ||
        !graph_set(op, A_FWD_ALPHA, AT_FLOAT, 1, &alpha) || !graph_set(op, A_FWD_BETA, AT_FLOAT, 1, &beta) ||
        wnn__dnn.BackendFinalize(op) != DNN_STATUS_SUCCESS)
        return NULL;
    dnn_desc g = graph_make(BK_OPERATION_GRAPH);
    if (!graph_keep(p, g))
        return NULL;
    (void)graph_set(g, A_GRAPH_HANDLE, AT_HANDLE, 1, &h); /* deprecated in 9.x, needed before */
    if (!graph_set(g, A_GRAPH_OPS, AT_DESCRIPTOR, 1, &op) || wnn__dnn.BackendFinalize(g) != DNN_STATUS_SUCCESS)
        return NULL;
    return g;
}

/* Whether engine config cfg keeps to wnn's numerics: no TF32 (tensor
** cores) for float32, no inputs converted down, no reduced-precision
** accumulation, no FFT or large Winograd tiles (less accurate than
** WebNN's tolerances), and nothing compiled at run time (NVRTC may be
** absent, and compiling would stall a graph's build). */
static bool engine_fits(dnn_desc cfg, wnn_data_type t)
{
    dnn_desc engine = graph_make(BK_ENGINE);
    if (!engine)
        return false;
    int64_t got = 0, n_notes = 0, n_behaviour = 0;
    int notes[32], behaviour[32];
    bool ok = wnn__dnn.BackendGetAttribute(cfg, A_CFG_ENGINE, AT_DESCRIPTOR, 1, &got, &engine) == DNN_STATUS_SUCCESS &&
              got == 1 &&
              wnn__dnn.BackendGetAttribute(engine, A_ENGINE_NUMERICAL_NOTE, AT_NUMERICAL_NOTE, 32, &n_notes, notes) ==
                  DNN_STATUS_SUCCESS &&
              wnn__dnn.BackendGetAttribute(engine, A_ENGINE_BEHAVIOR_NOTE, AT_BEHAVIOR_NOTE, 32, &n_behaviour,
                                           behaviour) == DNN_STATUS_SUCCESS;
    for (int64_t i = 0; ok && i < n_notes && i < 32; i++)
        ok = !(notes[i] == NOTE_TENSOR_CORE && t == WNN_DATA_TYPE_FLOAT32) && notes[i] != NOTE_DOWN_CONVERT_INPUTS &&
             notes[i] != NOTE_REDUCED_PRECISION_REDUCTION && notes[i] != NOTE_FFT &&
             notes[i] != NOTE_WINOGRAD_TILE_6x6 && notes[i] != NOTE_WINOGRAD_TILE_13x13;
    for (int64_t i = 0; ok && i < n_behaviour && i < 32; i++)
        ok = behaviour[i] != BEHAVIOR_RUNTIME_COMPILATION;
    wnn__dnn.BackendDestroyDescriptor(engine);
    return ok;
}

/* The finalized execution plan of engine config cfg and its workspace;
** NULL when cuDNN refuses it or it needs too much. */
static dnn_desc plan_of(void *h, dnn_desc cfg, size_t *workspace)
{
    dnn_desc plan = graph_make(BK_EXECUTION_PLAN);
    int64_t got = 0, bytes = 0;
    if (!plan)
        return NULL;
    (void)graph_set(plan, A_PLAN_HANDLE, AT_HANDLE, 1, &h); /* deprecated in 9.x, needed before */
    if (graph_set(plan, A_PLAN_CONFIG, AT_DESCRIPTOR, 1, &cfg) &&
        wnn__dnn.BackendFinalize(plan) == DNN_STATUS_SUCCESS &&
        wnn__dnn.BackendGetAttribute(plan, A_PLAN_WORKSPACE, AT_INT64, 1, &got, &bytes) == DNN_STATUS_SUCCESS &&
        got == 1 && bytes >= 0 && (size_t)bytes <= DNN_WORKSPACE_MAX) {
        *workspace = (size_t)bytes;
        return plan;
    }
    wnn__dnn.BackendDestroyDescriptor(plan);
    return NULL;
}

/* Scratch tensors for timing a conv, freed by bench_free. */
typedef struct dnn_bench {
    void *x, *w, *y, *z, *b, *ws;
    size_t ws_bytes;
    cudaEvent_t start, stop;
    cudaStream_t stream;
} dnn_bench;

static void bench_free(dnn_bench *b)
{
    void *all[6] = {b->x, b->w, b->y, b->z, b->b, b->ws};
    for (int i = 0; i < 6; i++)
        if (all[i])
            cudaFree(all[i]);
    if (b->start)
        cudaEventDestroy(b->start);
    if (b->stop)
        cudaEventDestroy(b->stop);
    (void)cudaGetLastError();
}

static bool bench_zeroed(void **p, size_t bytes, cudaStream_t s)
{
    return cudaMalloc(p, bytes ? bytes : 16) == cudaSuccess &&
           cudaMemsetAsync(*p, 0, bytes ? bytes : 16, s) == cudaSuccess;
}

static bool bench_alloc(dnn_bench *b, const wnn__cu_conv *c, wnn_data_type t, bool residual, size_t ws, cudaStream_t s)
{
    size_t es = wnn_data_type_size(t);
    size_t xb = (size_t)c->n * c->c_in * c->h_in * c->w_in * es;
    size_t wb = (size_t)c->c_out * (c->c_in / c->groups) * c->kh * c->kw * es;
    size_t yb = (size_t)c->n * c->c_out * c->h_out * c->w_out * es;
    *b = (dnn_bench){.stream = s, .ws_bytes = ws};
    return bench_zeroed(&b->x, xb, s) && bench_zeroed(&b->w, wb, s) && bench_zeroed(&b->y, yb, s) &&
           (!residual || bench_zeroed(&b->z, yb, s)) && bench_zeroed(&b->b, (size_t)c->c_out * es, s) &&
           bench_zeroed(&b->ws, ws, s) && cudaEventCreate(&b->start) == cudaSuccess &&
           cudaEventCreate(&b->stop) == cudaSuccess;
}

/* Milliseconds a run of plan p (graph or legacy) takes on b's tensors, the
** best of a few; a negative number when it fails. */
static float bench_time(void *h, const dnn_plan *p, bool graph, const dnn_bench *b, bool bias)
{
    float best = -1.0f;
    if (wnn__dnn_exec(h, b->stream, p, graph, b->x, b->w, bias ? b->b : NULL, b->z, b->y, b->ws) !=
            DNN_STATUS_SUCCESS ||
        cudaStreamSynchronize(b->stream) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1.0f;
    }
    for (int round = 0; round < 3; round++) {
        float ms = 0.0f;
        bool ok = cudaEventRecord(b->start, b->stream) == cudaSuccess;
        for (int i = 0; i < 3 && ok; i++)
            ok = wnn__dnn_exec(h, b->stream, p, graph, b->x, b->w, bias ? b->b : NULL, b->z, b->y, b->ws) ==
                 DNN_STATUS_SUCCESS;
        ok = ok && cudaEventRecord(b->stop, b->stream) == cudaSuccess && cudaEventSynchronize(b->stop) == cudaSuccess &&
             cudaEventElapsedTime(&ms, b->start, b->stop) == cudaSuccess;
        if (!ok) {
            (void)cudaGetLastError();
            return -1.0f;
        }
        if (best < 0.0f || ms / 3 < best)
            best = ms / 3;
    }
    return best;
}

/* What was chosen for each geometry and epilogue, for the process: the
** rank of the heuristics' engine that won, or -1 for the legacy call.
** Under graph_choice_lock; full, the oldest entry goes. */
typedef struct graph_choice {
    wnn__cu_conv c;
    wnn_data_type t;
    int ordinal, epilogue, rank;
} graph_choice;

static pthread_mutex_t graph_choice_lock = PTHREAD_MUTEX_INITIALIZER;
static graph_choice graph_choices[DNN_CHOICES];
static unsigned n_graph_choices, next_graph_choice;

static bool graph_choice_find(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int epilogue, int *rank)
{
    wnn__cu_conv g = wnn__dnn_geometry(c);
    bool found = false;
    pthread_mutex_lock(&graph_choice_lock);
    for (unsigned i = 0; i < n_graph_choices && !found; i++) {
        const graph_choice *e = &graph_choices[i];
        if (e->ordinal == ordinal && e->t == t && e->epilogue == epilogue && memcmp(&e->c, &g, sizeof g) == 0) {
            *rank = e->rank;
            found = true;
        }
    }
    pthread_mutex_unlock(&graph_choice_lock);
    return found;
}

static void graph_choice_keep(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int epilogue, int rank)
{
    pthread_mutex_lock(&graph_choice_lock);
    unsigned i = n_graph_choices < DNN_CHOICES ? n_graph_choices++ : next_graph_choice++ % DNN_CHOICES;
    graph_choices[i] = (graph_choice){wnn__dnn_geometry(c), t, ordinal, epilogue, rank};
    pthread_mutex_unlock(&graph_choice_lock);
}

/* Chooses what runs conv c, timed on the device's stream with scratch
** tensors of its shape, once per geometry and epilogue for the process:
** the fastest of the legacy algorithms cuDNN measured (p's candidates),
** then one of the graph API's engines instead where it runs clearly faster,
** epilogue included. bias: the epilogue adds one. Leaves p on its first
** legacy algorithm when nothing can be timed. Called under the device's
** lock. WNN_CUDA_CUDNN_VERBOSE prints each choice on stderr. */
void wnn__dnn_choose(wnn__device *d, void *h, const wnn__cu_conv *c, wnn_data_type t, bool bias, dnn_plan *p)
{
    int epilogue = (p->fused ? 1 : 0) | (p->z != WNN__NONE ? 2 : 0) | (bias ? 4 : 0);
    int known = -2; /* the graph choice made before: a rank, -1 legacy, -2 none */
    bool graph_api = wnn__dnn.graph_ok && d->use_cudnn_graph;
    if (graph_api && !graph_choice_find(d->ordinal, c, t, epilogue, &known))
        known = -2;
    dnn_desc cfg[DNN_ENGINES] = {0}, plan[DNN_ENGINES] = {0};
    size_t ws[DNN_ENGINES] = {0}, most = 0;
    int64_t n_cfg = 0, got = 0;
    int made = 0;
    dnn_desc g = graph_api && known != -1 ? graph_of(h, c, t, p) : NULL;
    dnn_desc heur = g ? graph_make(BK_ENGINEHEUR) : NULL;
    int mode = HEUR_MODE_A;
    if (graph_keep(p, heur) && graph_set(heur, A_HEUR_GRAPH, AT_DESCRIPTOR, 1, &g) &&
        graph_set(heur, A_HEUR_MODE, AT_HEUR_MODE, 1, &mode) && wnn__dnn.BackendFinalize(heur) == DNN_STATUS_SUCCESS &&
        wnn__dnn.BackendGetAttribute(heur, A_HEUR_RESULTS, AT_DESCRIPTOR, 0, &n_cfg, NULL) == DNN_STATUS_SUCCESS &&
        n_cfg > 0) {
        if (n_cfg > DNN_ENGINES)
            n_cfg = DNN_ENGINES;
        for (int64_t i = 0; i < n_cfg; i++)
            if (!(cfg[i] = graph_make(BK_ENGINECFG)))
                n_cfg = i;
        if (n_cfg > 0 &&
            wnn__dnn.BackendGetAttribute(heur, A_HEUR_RESULTS, AT_DESCRIPTOR, n_cfg, &got, cfg) == DNN_STATUS_SUCCESS) {
            for (int64_t i = 0; i < got && i < n_cfg; i++) {
                if ((known >= 0 && i != known) || !engine_fits(cfg[i], t))
                    continue;
                if ((plan[i] = plan_of(h, cfg[i], &ws[i]))) {
                    made++;
                    most = ws[i] > most ? ws[i] : most;
                }
            }
        }
    }
    for (int i = 0; i < p->n_legacy; i++)
        most = p->legacy_workspace[i] > most ? p->legacy_workspace[i] : most;
    most = p->workspace > most ? p->workspace : most;

    int best = -1; /* the graph engine chosen, or -1 */
    float legacy_ms = -1.0f, graph_ms = -1.0f;
    bool timing = p->n_legacy > 1 || (made > 0 && known < 0);
    dnn_bench b = {0};
    if (known >= 0 && plan[known]) {
        best = known; /* measured before for this geometry */
    } else if (timing && bench_alloc(&b, c, t, p->z != WNN__NONE, most, d->stream)) {
        /* the legacy candidates, fastest first */
        int fastest_legacy = 0;
        for (int i = 0; i < (p->n_legacy ? p->n_legacy : 1); i++) {
            if (p->n_legacy)
                wnn__dnn_legacy_apply(h, t, p, i);
            float ms = bench_time(h, p, false, &b, bias || p->fused);
            if (ms >= 0.0f && (legacy_ms < 0.0f || ms < legacy_ms)) {
                legacy_ms = ms;
                fastest_legacy = i;
            }
        }
        if (p->n_legacy)
            wnn__dnn_legacy_apply(h, t, p, fastest_legacy);
        for (int i = 0; i < (int)n_cfg; i++) {
            if (!plan[i])
                continue;
            p->graph = plan[i];
            float ms = bench_time(h, p, true, &b, bias);
            p->graph = NULL;
            if (ms >= 0.0f && (graph_ms < 0.0f || ms < graph_ms)) {
                graph_ms = ms;
                best = i;
            }
        }
        /* the legacy call unless the graph's plan is clearly faster */
        if (best >= 0 && legacy_ms >= 0.0f && graph_ms >= legacy_ms * 0.95f)
            best = -1;
        if (graph_api && made > 0)
            graph_choice_keep(d->ordinal, c, t, epilogue, best);
    } else if (p->n_legacy > 1) {
        wnn__dnn_legacy_apply(h, t, p, 0);
    }
    bench_free(&b);
    if (p->n_legacy)
        wnn__dnn_choice_keep(d->ordinal, c, t, p->algo, p->math_type);
    if (wnn__config_get()->cuda_cudnn_verbose)
        fprintf(stderr,
                "wnn cuda: conv2d %s n%u c%u %ux%u -> c%u %ux%u k%ux%u s%u,%u d%u,%u g%u%s%s%s: legacy algo %d "
                "%.4f ms (%d candidates), graph API %d engines%s, fastest %.4f ms: %s\n",
                t == WNN_DATA_TYPE_FLOAT16 ? "float16" : "float32", c->n, c->c_in, c->h_in, c->w_in, c->c_out, c->h_out,
                c->w_out, c->kh, c->kw, c->stride[0], c->stride[1], c->dilation[0], c->dilation[1], c->groups,
                c->nhwc ? " nhwc" : "", bias ? " +bias" : "", p->fused ? " +relu" : "", p->algo, legacy_ms, p->n_legacy,
                made, known >= -1 ? " (chosen before)" : "", graph_ms, best >= 0 ? "graph API" : "legacy");
    for (int i = 0; i < (int)n_cfg; i++) {
        if (i == best) {
            p->graph = plan[i];
            p->workspace = ws[i] > p->workspace ? ws[i] : p->workspace;
            (void)graph_keep(p, cfg[i]); /* the plan was made from it (room is left for it) */
        } else {
            if (plan[i])
                wnn__dnn.BackendDestroyDescriptor(plan[i]);
            if (cfg[i])
                wnn__dnn.BackendDestroyDescriptor(cfg[i]);
        }
    }
    if (!p->graph)
        wnn__dnn_release_graph(p);
    (void)cudaGetLastError();
}
