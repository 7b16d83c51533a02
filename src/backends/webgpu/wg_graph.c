/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_graph.c -- graphs on the webgpu device: compiled once into a list of
** steps (a pipeline and its bindings, or a buffer copy for reshape), run as
** one command buffer per dispatch.
**
** Pipelines are made at build time from the WGSL of wg_wgsl.c and cached on
** the GPU by their text, so nodes of the same shape share one. Constants are
** uploaded at build time; every intermediate value gets its own buffer from
** the caching allocator (kept for the graph's life). Each step keeps the
** bind group of its last run and makes a new one only when a dispatch binds
** other tensors (so a graph holds a reference to the buffers of the tensors
** it last ran on until it runs on others or is released). A node without a kernel, or a
** value over a binding or dispatch limit, fails the build with
** NOT_SUPPORTED and a message naming it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/webgpu/wg_internal.h"
#include "backends/webgpu/wg_wgsl.h"
#include "memory/allocator.h"
#include "platform/config.h"

#define MAX_KERNELS 16

typedef struct wg_pipeline cached;
struct wg_pipeline {
    cached *next;
    char *wgsl;
    WGPUComputePipeline pipe;
    WGPUBindGroupLayout layout;
};

typedef struct step {
    cached *p;     /* NULL: a copy of in[0] into out */
    uint32_t out;       /* value ids */
    uint32_t n_in;
    uint32_t in[WG_MAX_INPUTS];
    WGPUBuffer params;  /* or NULL */
    WGPUBuffer chunk;   /* a chunk's first and end output words, or NULL */
    uint32_t gx, gy, gz; /* workgroups */
    uint64_t bytes;     /* a copy's size in words * 4 */
    /* a chunk of a split dispatch: bindings 0..n_in from offset[b], size[b]
    ** bytes (size 0: the whole buffer) */
    uint64_t offset[WG_MAX_INPUTS + 1], size[WG_MAX_INPUTS + 1];
    /* the bind group of the last run and the buffers it binds (output,
    ** inputs): reused while a dispatch binds the same tensors */
    WGPUBindGroup group;
    WGPUBuffer bound[WG_MAX_INPUTS + 1];
} step;

typedef struct wg_graph {
    wnn__allocator *alloc;
    const wnn__ir *ir;
    step *steps;
    uint32_t n_steps, cap_steps;
    WGPUBuffer *bufs; /* per value: constants and intermediates */
    size_t *blocks;
    int32_t *slot;    /* per value: graph input i (i + 1), output i (-(i + 1)), or 0 */
} wg_graph;

/* ---- pipelines ----------------------------------------------------------------------- */

typedef struct pop_reply {
    uint32_t type;
    char message[600];
} pop_reply;

static void on_pop(uint32_t status, WGPUErrorType type, WGPUStringView msg, void *u1, void *u2)
{
    pop_reply *r = u1;
    r->type = status == WGPUPopErrorScopeStatus_Success ? type : WGPUErrorType_Validation;
    size_t len = msg.data ? (msg.length == WGPU_STRLEN ? strlen(msg.data) : msg.length) : 0;
    snprintf(r->message, sizeof r->message, "%.*s", (int)len, msg.data ? msg.data : "");
}

WGPUComputePipeline wg_pipeline(wg_gpu *g, const char *wgsl, char *err, size_t err_len)
{
    for (cached *p = g->pipelines; p; p = p->next)
        if (strcmp(p->wgsl, wgsl) == 0)
            return p->pipe;
    wg.wgpuDevicePushErrorScope(g->device, WGPUErrorFilter_Validation);
    WGPUShaderSourceWGSL src = {{NULL, WGPUSType_ShaderSourceWGSL}, {wgsl, WGPU_STRLEN}};
    WGPUShaderModuleDescriptor md = {&src.chain, {"wnn", WGPU_STRLEN}};
    WGPUShaderModule m = wg.wgpuDeviceCreateShaderModule(g->device, &md);
    WGPUComputePipelineDescriptor pd = {0};
    pd.compute.module = m;
    pd.compute.entryPoint = (WGPUStringView){"main", WGPU_STRLEN};
    WGPUComputePipeline pipe = wg.wgpuDeviceCreateComputePipeline(g->device, &pd);
    wg.wgpuShaderModuleRelease(m);
    pop_reply r = {WGPUErrorType_NoError, ""};
    WGPUPopErrorScopeCallbackInfo ci = {NULL, WGPUCallbackMode_WaitAnyOnly, on_pop, &r, NULL};
    if (!wg_wait(g, wg.wgpuDevicePopErrorScope(g->device, ci)) || r.type != WGPUErrorType_NoError || !pipe) {
        snprintf(err, err_len, "WGSL pipeline refused: %s", r.message);
        if (pipe)
            wg.wgpuComputePipelineRelease(pipe);
        return NULL;
    }
    cached *p = calloc(1, sizeof *p);
    char *copy = strdup(wgsl);
    if (!p || !copy) {
        free(p);
        free(copy);
        wg.wgpuComputePipelineRelease(pipe);
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    p->wgsl = copy;
    p->pipe = pipe;
    p->layout = wg.wgpuComputePipelineGetBindGroupLayout(pipe, 0);
    p->next = g->pipelines;
    g->pipelines = p;
    return pipe;
}

static cached *find_pipeline(wg_gpu *g, WGPUComputePipeline pipe)
{
    for (cached *p = g->pipelines; p; p = p->next)
        if (p->pipe == pipe)
            return p;
    return NULL;
}

void wg_pipelines_free(wg_gpu *g)
{
    while (g->pipelines) {
        cached *p = g->pipelines;
        g->pipelines = p->next;
        wg.wgpuBindGroupLayoutRelease(p->layout);
        wg.wgpuComputePipelineRelease(p->pipe);
        free(p->wgsl);
        free(p);
    }
}

/* ---- support ---------------------------------------------------------------------------- */

bool wg_supports_node(const wnn__ir *ir, const wnn__node *n, char *why, size_t why_len)
{
    for (uint32_t i = 0; i < n->n_in + n->n_out; i++) {
        uint32_t v = i < n->n_in ? n->in[i] : n->out[i - n->n_in];
        if (v == WNN__NONE)
            continue;
        wnn_data_type t = ir->values[v].desc.data_type;
        if (!wg_supports_data_type(NULL, t) || !wg_supports_op_type(NULL, n->op, t)) {
            snprintf(why, why_len, "%s: no %s kernels on webgpu", wnn__op_name(n->op), wnn_data_type_name(t));
            return false;
        }
    }
    if (n->op == WNN__OP_RESHAPE)
        return true;
    if (n->n_out != 1 && n->op != WNN__OP_SPLIT && n->op != WNN__OP_GRU && n->op != WNN__OP_LSTM &&
        n->op != WNN__OP_LSTM_CELL) {
        snprintf(why, why_len, "%s: no WGSL kernel", wnn__op_name(n->op));
        return false;
    }
    wg_kernel k[MAX_KERNELS];
    uint32_t nk = wg_wgsl_node(ir, n, NULL, k, MAX_KERNELS, why, why_len);
    for (uint32_t i = 0; i < nk; i++)
        free(k[i].text.s);
    return nk > 0;
}

/* ---- compile ------------------------------------------------------------------------------- */

static void drop_graph(wnn__device *d, wg_graph *g)
{
    for (uint32_t i = 0; i < g->n_steps; i++) {
        if (g->steps[i].params)
            wg.wgpuBufferRelease(g->steps[i].params);
        if (g->steps[i].chunk)
            wg.wgpuBufferRelease(g->steps[i].chunk);
        if (g->steps[i].group)
            wg.wgpuBindGroupRelease(g->steps[i].group);
    }
    for (uint32_t v = 0; g->bufs && v < g->ir->n_values; v++)
        if (g->bufs[v])
            wnn__allocator_free(g->alloc, g->bufs[v], g->blocks[v]);
    free(g->steps);
    free(g->bufs);
    free(g->blocks);
    free(g->slot);
    free(g);
}

/* A new zeroed step at the end of g's list; NULL when out of memory. */
static step *new_step(wg_graph *g)
{
    if (g->n_steps == g->cap_steps) {
        uint32_t cap = g->cap_steps ? 2 * g->cap_steps : 16;
        step *grown = realloc(g->steps, cap * sizeof *grown);
        if (!grown)
            return NULL;
        g->steps = grown;
        g->cap_steps = cap;
    }
    step *st = &g->steps[g->n_steps];
    memset(st, 0, sizeof *st);
    return st;
}

static uint64_t value_bytes(const wg_graph *g, uint32_t v)
{
    return (wnn_operand_desc_byte_length(&g->ir->values[v].desc) + 3) & ~(uint64_t)3;
}

/* Compiles kernel k into a new step: its pipeline, parameters, workgroups
** and, for a chunk, the windows of its bindings. */
static wnn_status add_step(wnn__device *d, wg_graph *g, const wnn__node *n, const wg_kernel *k, char *why,
                           size_t why_len)
{
    wg_gpu *gpu = d->gpu;
    uint64_t words = k->chunk_words ? k->chunk_words : k->words;
    if (k->lanes > 1)
        words = (words + k->lanes - 1) / k->lanes;
    uint64_t groups = (words + WG_WORKGROUP - 1) / WG_WORKGROUP;
    uint32_t maxd = gpu->limits.maxComputeWorkgroupsPerDimension;
    if (k->grid[0] ? k->grid[0] > maxd || k->grid[1] > maxd || k->grid[2] > maxd
                   : groups > (uint64_t)maxd * maxd) {
        snprintf(why, why_len, "%s: %llu workgroups exceed the dispatch limit", wnn__op_name(n->op),
                 k->grid[0] ? (unsigned long long)k->grid[0] * k->grid[1] * k->grid[2] : (unsigned long long)groups);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    step *st = new_step(g);
    if (!st)
        return WNN_STATUS_OUT_OF_MEMORY;
    pthread_mutex_lock(&gpu->lock);
    WGPUComputePipeline pipe = wg_pipeline(gpu, k->text.s, why, why_len);
    st->p = pipe ? find_pipeline(gpu, pipe) : NULL;
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst;
    if (pipe && k->uses_params) {
        bd.size = sizeof k->params;
        st->params = wg.wgpuDeviceCreateBuffer(gpu->device, &bd);
        if (st->params)
            wg.wgpuQueueWriteBuffer(gpu->queue, st->params, 0, k->params, sizeof k->params);
    }
    if (pipe && k->chunk_words) {
        uint32_t bounds[2] = {(uint32_t)k->chunk_word, (uint32_t)(k->chunk_word + k->chunk_words)};
        bd.size = sizeof bounds;
        st->chunk = wg.wgpuDeviceCreateBuffer(gpu->device, &bd);
        if (st->chunk)
            wg.wgpuQueueWriteBuffer(gpu->queue, st->chunk, 0, bounds, sizeof bounds);
    }
    pthread_mutex_unlock(&gpu->lock);
    if (!pipe)
        return WNN_STATUS_NOT_SUPPORTED;
    if ((k->uses_params && !st->params) || (k->chunk_words && !st->chunk)) {
        if (st->params)
            wg.wgpuBufferRelease(st->params);
        if (st->chunk)
            wg.wgpuBufferRelease(st->chunk);
        st->params = st->chunk = NULL;
        st->p = NULL;
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    st->out = k->out_value;
    st->n_in = k->n_in;
    memcpy(st->in, k->in_values, sizeof st->in);
    st->gx = (uint32_t)(groups < maxd ? groups : maxd);
    st->gy = (uint32_t)((groups + st->gx - 1) / (st->gx ? st->gx : 1));
    st->gz = 1;
    if (k->grid[0])
        st->gx = k->grid[0], st->gy = k->grid[1], st->gz = k->grid[2];
    if (k->chunk_words) {
        /* output words from chunk_word; windowed inputs from the same element */
        uint32_t per = wg_per_word(g->ir->values[k->out_value].desc.data_type);
        uint64_t first = k->chunk_word * per;
        st->offset[0] = k->chunk_word * 4;
        st->size[0] = k->chunk_words * 4;
        if (st->offset[0] + st->size[0] > value_bytes(g, k->out_value))
            st->size[0] = value_bytes(g, k->out_value) - st->offset[0];
        for (uint32_t i = 0; i < k->n_in; i++) {
            if (!(k->identity_mask >> i & 1))
                continue;
            const wnn_operand_desc *id = &g->ir->values[k->in_values[i]].desc;
            uint64_t es = wnn_data_type_size(id->data_type), total = value_bytes(g, k->in_values[i]);
            st->offset[i + 1] = first * es;
            st->size[i + 1] = (k->chunk_words * per * es + 3) & ~(uint64_t)3;
            if (st->offset[i + 1] + st->size[i + 1] > total)
                st->size[i + 1] = total - st->offset[i + 1];
        }
    }
    g->n_steps++;
    return WNN_OK;
}

/* The most chunks one kernel splits into (a real limit of 128 MiB makes a
** few; only WNN_WEBGPU_SPLIT_KIB's test limits come near). */
#define WG_MAX_CHUNKS 4096u

/* Whether kernel k binds a value over limit bytes. */
static bool over_limit(const wg_graph *g, const wg_kernel *k, uint64_t limit)
{
    bool over = value_bytes(g, k->out_value) > limit;
    for (uint32_t i = 0; i < k->n_in; i++)
        over |= value_bytes(g, k->in_values[i]) > limit;
    return over;
}

/* Node n's kernel in chunks whose bindings stay under limit: the output
** windowed, and the inputs read at the output's own index (element-wise
** kernels); any other input must fit whole. NOT_SUPPORTED, with nothing
** added, when the node has no chunk kernel or an input cannot fit. */
static wnn_status add_chunks(wnn__device *d, wg_graph *g, const wnn__node *n, const wg_caps *caps, uint64_t limit,
                             char *why, size_t why_len)
{
    wg_kernel probe = {.chunk_words = 256};
    if (!wg_wgsl_chunk(g->ir, n, caps, &probe)) {
        snprintf(why, why_len, "%s: a value over the storage binding limit (%llu bytes) in a kernel that cannot "
                 "split its output", wnn__op_name(n->op), (unsigned long long)limit);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    free(probe.text.s);
    /* chunks of whole 256-word blocks (binding offsets stay aligned to
    ** 256 bytes for every element size) whose windows all fit */
    wnn_data_type ot = g->ir->values[probe.out_value].desc.data_type;
    uint64_t widest = 4;
    for (uint32_t j = 0; j < probe.n_in; j++) {
        uint32_t v = probe.in_values[j];
        uint64_t es = wnn_data_type_size(g->ir->values[v].desc.data_type);
        if (probe.identity_mask >> j & 1) {
            if (es * wg_per_word(ot) > widest)
                widest = es * wg_per_word(ot);
        } else if (value_bytes(g, v) > limit) {
            snprintf(why, why_len, "%s: input %u (%llu bytes) is over the storage binding limit (%llu bytes) and "
                     "its kernel reads it whole", wnn__op_name(n->op), j,
                     (unsigned long long)value_bytes(g, v), (unsigned long long)limit);
            return WNN_STATUS_NOT_SUPPORTED;
        }
    }
    uint64_t count = wnn_operand_desc_element_count(&g->ir->values[probe.out_value].desc);
    uint64_t words = (count + wg_per_word(ot) - 1) / wg_per_word(ot);
    uint64_t chunk = limit / widest / 256 * 256;
    if (chunk == 0)
        chunk = 256;
    /* each chunk is a step with its own bind group; lavapipe's descriptor
    ** pools crashed under the 140,000 chunks of 1 KiB that a 144 MB add
    ** made under WNN_WEBGPU_SPLIT_KIB=1 */
    if ((words + chunk - 1) / chunk > WG_MAX_CHUNKS) {
        snprintf(why, why_len, "%s: %llu chunks of %llu words (at most %u)", wnn__op_name(n->op),
                 (unsigned long long)((words + chunk - 1) / chunk), (unsigned long long)chunk, WG_MAX_CHUNKS);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    wnn_status s = WNN_OK;
    for (uint64_t w = 0; s == WNN_OK && w < words; w += chunk) {
        wg_kernel c = {.chunk_word = w, .chunk_words = words - w < chunk ? words - w : chunk};
        if (!wg_wgsl_chunk(g->ir, n, caps, &c)) {
            snprintf(why, why_len, "%s: no kernel for a chunk", wnn__op_name(n->op));
            s = WNN_STATUS_NOT_SUPPORTED;
        } else {
            s = add_step(d, g, n, &c, why, why_len);
        }
        free(c.text.s);
    }
    return s;
}

static wnn_status add_kernel_steps(wnn__device *d, wg_graph *g, const wnn__node *n, char *why, size_t why_len)
{
    wg_gpu *gpu = d->gpu;
    wg_kernel k[MAX_KERNELS];
    wg_caps caps = {.f16 = gpu->shader_f16 && wnn__config_get()->webgpu_f16};
    uint32_t nk = wg_wgsl_node(g->ir, n, &caps, k, MAX_KERNELS, why, why_len);
    if (nk == 0)
        return WNN_STATUS_NOT_SUPPORTED;
    wnn_status s = WNN_OK;
    uint64_t real = gpu->limits.maxStorageBufferBindingSize;
    /* tests lower the limit (WNN_WEBGPU_SPLIT_KIB); a kernel that cannot
    ** split under it runs whole, as long as it fits the real one */
    uint64_t test = (uint64_t)wnn__config_get()->webgpu_split_kib << 10;
    for (uint32_t i = 0; i < nk; i++) {
        if (s != WNN_OK) {
            free(k[i].text.s);
            continue;
        }
        bool over = over_limit(g, &k[i], real);
        bool over_test = test && test < real && over_limit(g, &k[i], test);
        uint32_t before = g->n_steps;
        if (over && nk > 1) {
            snprintf(why, why_len, "%s: a value over the storage binding limit (%llu bytes) in a node of several "
                     "kernels, which do not split", wnn__op_name(n->op), (unsigned long long)real);
            s = WNN_STATUS_NOT_SUPPORTED;
        } else if (over_test && nk == 1) {
            /* under the test limit if it can, else as without it */
            s = add_chunks(d, g, n, &caps, test, why, why_len);
            if (s == WNN_STATUS_NOT_SUPPORTED && g->n_steps == before)
                s = over ? add_chunks(d, g, n, &caps, real, why, why_len) : add_step(d, g, n, &k[i], why, why_len);
        } else if (over) {
            s = add_chunks(d, g, n, &caps, real, why, why_len);
        } else {
            s = add_step(d, g, n, &k[i], why, why_len);
        }
        free(k[i].text.s);
    }
    return s;
}

wnn_status wg_graph_compile(wnn__device *d, wnn__allocator *alloc, const wnn__ir *ir, void **compiled)
{
    wg_graph *g = calloc(1, sizeof *g);
    if (!g)
        return WNN_STATUS_OUT_OF_MEMORY;
    g->alloc = alloc;
    g->ir = ir;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    g->bufs = calloc(nv, sizeof *g->bufs);
    g->blocks = calloc(nv, sizeof *g->blocks);
    g->slot = calloc(nv, sizeof *g->slot);
    if (!g->bufs || !g->blocks || !g->slot) {
        drop_graph(d, g);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < ir->n_inputs; i++)
        g->slot[ir->input_values[i]] = (int32_t)i + 1;
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        g->slot[ir->output_values[i]] = -(int32_t)i - 1;
    char why[400] = "";
    wnn_status s = WNN_OK;
    for (uint32_t i = 0; s == WNN_OK && i < ir->n_nodes; i++) {
        const wnn__node *n = &ir->nodes[i];
        if (!wg_supports_node(ir, n, why, sizeof why)) {
            s = WNN_STATUS_NOT_SUPPORTED;
            break;
        }
        if (n->op == WNN__OP_RESHAPE) {
            step *st = new_step(g);
            if (!st) {
                s = WNN_STATUS_OUT_OF_MEMORY;
                break;
            }
            g->n_steps++;
            st->out = n->out[0];
            st->in[0] = n->in[0];
            st->bytes = (wnn_operand_desc_byte_length(&ir->values[n->out[0]].desc) + 3) & ~(uint64_t)3;
            continue;
        }
        s = add_kernel_steps(d, g, n, why, sizeof why);
    }
    /* constants uploaded once; intermediates get a buffer each */
    for (uint32_t v = 0; s == WNN_OK && v < ir->n_values; v++) {
        const wnn__value *val = &ir->values[v];
        if (g->slot[v] || val->kind == WNN__VALUE_INPUT)
            continue;
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&val->desc);
        void *p = NULL;
        if (val->kind == WNN__VALUE_CONSTANT && bytes)
            s = wnn__memory_upload(alloc, val->data, bytes, &p, &g->blocks[v]);
        else
            s = wnn__allocator_alloc(alloc, bytes ? bytes : 4, &p, &g->blocks[v]);
        g->bufs[v] = s == WNN_OK ? p : NULL;
    }
    if (s != WNN_OK) {
        if (s == WNN_STATUS_NOT_SUPPORTED)
            wg_set_why(why);
        drop_graph(d, g);
        return s;
    }
    *compiled = g;
    return WNN_OK;
}

void wg_graph_release(wnn__device *d, void *compiled) { drop_graph(d, compiled); }

/* ---- execute ------------------------------------------------------------------------------------ */

static WGPUBuffer buffer_of(wg_graph *g, uint32_t v, void *const *inputs, void *const *outputs)
{
    int32_t s = g->slot[v];
    return s > 0 ? inputs[s - 1] : s < 0 ? outputs[-s - 1] : g->bufs[v];
}

/* The bind group of step st for these tensors: the cached one when it binds
** the same buffers (it holds them, so a handle seen again is the same
** buffer), else a new one that replaces it. Caller holds gpu->lock. */
static WGPUBindGroup bind_group(wg_gpu *gpu, wg_graph *g, step *st, void *const *inputs, void *const *outputs)
{
    WGPUBuffer now[WG_MAX_INPUTS + 1];
    now[0] = buffer_of(g, st->out, inputs, outputs);
    for (uint32_t k = 0; k < st->n_in; k++)
        now[k + 1] = buffer_of(g, st->in[k], inputs, outputs);
    if (st->group && memcmp(now, st->bound, (st->n_in + 1) * sizeof *now) == 0)
        return st->group;
    WGPUBindGroupEntry e[WG_MAX_INPUTS + 3];
    memset(e, 0, sizeof e);
    uint32_t ne = 0;
    for (; ne < st->n_in + 1; ne++) {
        e[ne].binding = ne;
        e[ne].buffer = now[ne];
        e[ne].offset = st->offset[ne];
        e[ne].size = st->size[ne] ? st->size[ne] : WGPU_WHOLE_SIZE;
    }
    if (st->params)
        e[ne].binding = ne, e[ne].buffer = st->params, e[ne].size = WGPU_WHOLE_SIZE, ne++;
    if (st->chunk)
        e[ne].binding = ne, e[ne].buffer = st->chunk, e[ne].size = WGPU_WHOLE_SIZE, ne++;
    WGPUBindGroupDescriptor bd = {0};
    bd.layout = st->p->layout;
    bd.entryCount = ne;
    bd.entries = e;
    WGPUBindGroup bg = wg.wgpuDeviceCreateBindGroup(gpu->device, &bd);
    if (st->group)
        wg.wgpuBindGroupRelease(st->group);
    st->group = bg;
    memcpy(st->bound, now, (st->n_in + 1) * sizeof *now);
    return bg;
}

wnn_status wg_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs)
{
    wg_graph *g = compiled;
    wg_gpu *gpu = d->gpu;
    pthread_mutex_lock(&gpu->lock);
    WGPUCommandEncoder enc = wg.wgpuDeviceCreateCommandEncoder(gpu->device, NULL);
    WGPUComputePassEncoder pass = NULL;
    for (uint32_t i = 0; i < g->n_steps; i++) {
        step *st = &g->steps[i];
        if (!st->p) {
            if (pass) {
                wg.wgpuComputePassEncoderEnd(pass);
                wg.wgpuComputePassEncoderRelease(pass);
                pass = NULL;
            }
            wg.wgpuCommandEncoderCopyBufferToBuffer(enc, buffer_of(g, st->in[0], inputs, outputs), 0,
                                                    buffer_of(g, st->out, inputs, outputs), 0, st->bytes);
            continue;
        }
        WGPUBindGroup bg = bind_group(gpu, g, st, inputs, outputs);
        if (!pass)
            pass = wg.wgpuCommandEncoderBeginComputePass(enc, NULL);
        wg.wgpuComputePassEncoderSetPipeline(pass, st->p->pipe);
        wg.wgpuComputePassEncoderSetBindGroup(pass, 0, bg, 0, NULL);
        wg.wgpuComputePassEncoderDispatchWorkgroups(pass, st->gx, st->gy, st->gz);
    }
    if (pass) {
        wg.wgpuComputePassEncoderEnd(pass);
        wg.wgpuComputePassEncoderRelease(pass);
    }
    wg_submit(gpu, enc);
    pthread_mutex_unlock(&gpu->lock);
    return WNN_OK;
}
