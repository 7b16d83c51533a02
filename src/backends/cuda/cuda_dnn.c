/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_dnn.c -- conv2d through cuDNN 9's convolution API, loaded with
** dlopen on first use (never linked): the process-wide function table, the
** device's handle, and the compile-time pass that moves conv2d nodes onto
** cuDNN (see wnn__cu_dnn_convs in cuda_internal.h).
**
** Only the handful of types and constants used here are declared, with
** cuDNN 9's values, so that the module builds without cuDNN's headers; the
** library is used only when cudnnGetVersion says 9.x (the declarations are
** in cuda_dnn.h). Everything is chosen at compile: descriptors, the
** algorithm (the legacy ones cuDNN measures fastest, timed again, and the
** graph API's engines beside them: cuda_dnn_graph.c; remembered for the
** process per geometry; the heuristics' first where nothing can be
** measured; no TF32 for float32, tensor cores for float16, no FFT), the
** workspace
** (the node's scratch in the graph's arena, so runs are capturable), and
** the filter in the layout cuDNN reads (OIHW for NCHW input, OHWI for NHWC;
** constant filters in other layouts are transposed once, on the host). A
** batchNormalization of constants after a conv with a constant filter is
** folded into the filter and bias then, on the host too. What cuDNN
** refuses at compile keeps ops_conv.c's plan.
*/
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cuda/cuda_dnn.h"
#include "core/half.h"
#include "platform/config.h"

wnn__dnn_api wnn__dnn = {.once = PTHREAD_ONCE_INIT};

/* Resolves cudnn<name> into wnn__dnn.name; false when it is missing. */
#define DNN_SYM(lib, name)                                                                                             \
    do {                                                                                                               \
        void *f_ = dlsym((lib), "cudnn" #name);                                                                        \
        if (!f_)                                                                                                       \
            return false;                                                                                              \
        memcpy(&wnn__dnn.name, &f_, sizeof f_);                                                                        \
    } while (0)

static bool resolve_all(void *lib)
{
    DNN_SYM(lib, GetVersion);
    DNN_SYM(lib, Create);
    DNN_SYM(lib, Destroy);
    DNN_SYM(lib, SetStream);
    DNN_SYM(lib, CreateTensorDescriptor);
    DNN_SYM(lib, SetTensor4dDescriptor);
    DNN_SYM(lib, DestroyTensorDescriptor);
    DNN_SYM(lib, CreateFilterDescriptor);
    DNN_SYM(lib, SetFilter4dDescriptor);
    DNN_SYM(lib, DestroyFilterDescriptor);
    DNN_SYM(lib, CreateConvolutionDescriptor);
    DNN_SYM(lib, SetConvolution2dDescriptor);
    DNN_SYM(lib, SetConvolutionGroupCount);
    DNN_SYM(lib, SetConvolutionMathType);
    DNN_SYM(lib, DestroyConvolutionDescriptor);
    DNN_SYM(lib, CreateActivationDescriptor);
    DNN_SYM(lib, SetActivationDescriptor);
    DNN_SYM(lib, DestroyActivationDescriptor);
    DNN_SYM(lib, GetConvolutionForwardAlgorithm_v7);
    DNN_SYM(lib, FindConvolutionForwardAlgorithm);
    DNN_SYM(lib, GetConvolutionForwardWorkspaceSize);
    DNN_SYM(lib, ConvolutionForward);
    DNN_SYM(lib, ConvolutionBiasActivationForward);
    DNN_SYM(lib, AddTensor);
    return true;
}

static bool resolve_graph(void *lib)
{
    DNN_SYM(lib, BackendCreateDescriptor);
    DNN_SYM(lib, BackendDestroyDescriptor);
    DNN_SYM(lib, BackendFinalize);
    DNN_SYM(lib, BackendSetAttribute);
    DNN_SYM(lib, BackendGetAttribute);
    DNN_SYM(lib, BackendExecute);
    return true;
}

/* Loads libcudnn.so.9 once per process; the library stays loaded. */
static void load_api(void)
{
    void *lib = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    size_t version = 0;
    if (resolve_all(lib))
        version = wnn__dnn.GetVersion(); /* major * 10000 + minor * 100 + patch */
    if (version >= 90000 && version < 100000) {
        wnn__dnn.ok = true;
        wnn__dnn.graph_ok = resolve_graph(lib);
    } else
        dlclose(lib);
}

/* ---- the device's handle ------------------------------------------------------------ */

/* Handles are pooled for the process, as cuBLAS's are (cuda.c): the soak
** saw cublasDestroy crash inside the driver while other threads opened and
** closed contexts, so a closed device lends its handle back instead of
** destroying it; a full pool keeps the handle alive. Under dnn_lifetime. */
#define DNN_POOL 32

static pthread_mutex_t dnn_lifetime = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int ordinal;
    void *handle;
} dnn_pool[DNN_POOL];
static int dnn_pooled;

/* The device's handle, pooled or made on first use, on the device's stream;
** NULL without cuDNN. Called under the device's lock. */
static void *device_handle(wnn__device *d)
{
    if (d->dnn_tried)
        return d->dnn;
    d->dnn_tried = true;
    pthread_once(&wnn__dnn.once, load_api);
    if (!wnn__dnn.ok)
        return NULL;
    void *h = NULL;
    pthread_mutex_lock(&dnn_lifetime);
    for (int i = dnn_pooled; i-- > 0 && !h;)
        if (dnn_pool[i].ordinal == d->ordinal) {
            h = dnn_pool[i].handle;
            dnn_pool[i] = dnn_pool[--dnn_pooled];
        }
    if (!h && wnn__dnn.Create(&h) != DNN_STATUS_SUCCESS)
        h = NULL;
    if (h && wnn__dnn.SetStream(h, d->stream) != DNN_STATUS_SUCCESS) {
        if (dnn_pooled < DNN_POOL) {
            dnn_pool[dnn_pooled].ordinal = d->ordinal;
            dnn_pool[dnn_pooled++].handle = h;
        }
        h = NULL;
    }
    pthread_mutex_unlock(&dnn_lifetime);
    (void)cudaGetLastError();
    d->dnn = h;
    return h;
}

void wnn__cu_dnn_close(wnn__device *d)
{
    if (!d->dnn)
        return;
    pthread_mutex_lock(&dnn_lifetime);
    wnn__dnn.SetStream(d->dnn, NULL); /* the device's stream is about to go */
    if (dnn_pooled < DNN_POOL) {
        dnn_pool[dnn_pooled].ordinal = d->ordinal;
        dnn_pool[dnn_pooled++].handle = d->dnn;
    }
    pthread_mutex_unlock(&dnn_lifetime);
    d->dnn = NULL;
}

/* ---- plans ------------------------------------------------------------------------- */

/* Destroys the graph API's plan of p and the descriptors it was made from. */
void wnn__dnn_release_graph(dnn_plan *p)
{
    if (p->graph)
        wnn__dnn.BackendDestroyDescriptor(p->graph);
    for (int i = p->n_graph_descs; i-- > 0;)
        wnn__dnn.BackendDestroyDescriptor(p->graph_descs[i]);
    p->graph = NULL;
    p->n_graph_descs = 0;
}

static void release_plan(void *plan)
{
    dnn_plan *p = plan;
    if (p->xd)
        wnn__dnn.DestroyTensorDescriptor(p->xd);
    if (p->yd)
        wnn__dnn.DestroyTensorDescriptor(p->yd);
    if (p->bd)
        wnn__dnn.DestroyTensorDescriptor(p->bd);
    if (p->wd)
        wnn__dnn.DestroyFilterDescriptor(p->wd);
    if (p->cd)
        wnn__dnn.DestroyConvolutionDescriptor(p->cd);
    if (p->ad)
        wnn__dnn.DestroyActivationDescriptor(p->ad);
    wnn__dnn_release_graph(p);
}

static wnn_status dnn_status(int s) { return s == DNN_STATUS_SUCCESS ? WNN_OK : WNN_STATUS_OPERATION_ERROR; }

/* Queues conv plan p once: through the graph API's plan when graph (then
** its epilogue as our kernel), else cuDNN's legacy call. bias and z may be
** NULL; ws holds p->workspace bytes. Returns a cuDNN status, or -1 for a
** kernel's launch failure. */
int wnn__dnn_exec(void *h, cudaStream_t stream, const dnn_plan *p, bool graph, const void *x, const void *w,
                  const void *bias, const void *z, void *y, void *ws)
{
    const float one = 1.0f, zero = 0.0f; /* scaling factors are float for float and half data */
    if (graph) {
        dnn_desc pack = NULL;
        int64_t uids[3] = {UID_X, UID_W, UID_Y};
        void *ptrs[3] = {(void *)x, (void *)w, y};
        int s = wnn__dnn.BackendCreateDescriptor(BK_VARIANT_PACK, &pack);
        if (s == DNN_STATUS_SUCCESS)
            s = wnn__dnn.BackendSetAttribute(pack, A_PACK_UIDS, AT_INT64, 3, uids);
        if (s == DNN_STATUS_SUCCESS)
            s = wnn__dnn.BackendSetAttribute(pack, A_PACK_POINTERS, AT_VOID_PTR, 3, ptrs);
        if (s == DNN_STATUS_SUCCESS)
            s = wnn__dnn.BackendSetAttribute(pack, A_PACK_WORKSPACE, AT_VOID_PTR, 1, &ws);
        if (s == DNN_STATUS_SUCCESS)
            s = wnn__dnn.BackendFinalize(pack);
        if (s == DNN_STATUS_SUCCESS)
            s = wnn__dnn.BackendExecute(h, p->graph, pack);
        if (pack)
            wnn__dnn.BackendDestroyDescriptor(pack);
        if (s == DNN_STATUS_SUCCESS && (bias || z || p->fused) &&
            wnn__cu_conv_epilogue(stream, p->type, p->count, p->channels, p->inner, bias, z, p->fused, y) !=
                cudaSuccess)
            s = -1;
        return s;
    }
    if (p->fused) {
        /* without a residual z is y scaled by 0, as the API allows */
        return wnn__dnn.ConvolutionBiasActivationForward(h, &one, p->xd, x, p->wd, w, p->cd, p->algo, ws, p->workspace,
                                                         z ? &one : &zero, p->yd, z ? z : y, p->bd, bias, p->ad, p->yd,
                                                         y);
    }
    int s = wnn__dnn.ConvolutionForward(h, &one, p->xd, x, p->wd, w, p->cd, p->algo, ws, p->workspace, &zero, p->yd, y);
    if (s == DNN_STATUS_SUCCESS && bias)
        s = wnn__dnn.AddTensor(h, &one, p->bd, bias, &one, p->yd, y);
    return s;
}

static bool aligned16(const void *p) { return (uintptr_t)p % 16 == 0; }

static wnn_status run_dnn_conv(const wnn__cu_exec *x, const wnn__cu_node *n)
{
    const dnn_plan *p = n->plan;
    const void *w = p->filter_at != SIZE_MAX ? (const char *)x->aux + p->filter_at : x->ptr[p->w];
    /* the bias: an operand, or the table's (folded, or zeros for the fused call) */
    const void *bias = p->b != WNN__NONE        ? x->ptr[p->b]
                       : p->bias_at != SIZE_MAX ? (const char *)x->aux + p->bias_at
                                                : NULL;
    const void *z = p->z != WNN__NONE ? x->ptr[p->z] : NULL;
    void *y = x->ptr[p->y];
    /* the graph's plan was made for 16-byte aligned tensors (wnn's own
    ** are; an imported one may not be) */
    bool graph = p->graph && aligned16(x->ptr[p->x]) && aligned16(w) && aligned16(y) && aligned16(x->scratch);
    if (graph && p->zero_bias)
        bias = NULL;
    int s = wnn__dnn_exec(x->dnn, x->stream, p, graph, x->ptr[p->x], w, bias, z, y, x->scratch);
    return s == -1 ? WNN_STATUS_OPERATION_ERROR : dnn_status(s);
}

/* What the pattern around a conv2d gave: the bias and residual values, a
** folded batchNormalization, and the node whose run does the work (the
** conv itself when nothing follows it into the plan). */
typedef struct dnn_match {
    uint32_t bias, z;
    uint32_t bn, add, last; /* node indices; bn, add UINT32_MAX for none */
    bool fused;
} dnn_match;

/* The filter rearranged on the host into [O, I/g, kh, kw] (NCHW) or
** [O, kh, kw, I/g] (NHWC), from the strides the conv's plan computed. */
static void repack_filter(const wnn__cu_conv *c, const void *src, size_t es, char *dst)
{
    uint32_t ig = c->c_in / c->groups;
    size_t k = 0;
    for (uint32_t o = 0; o < c->c_out; o++)
        for (uint32_t a = 0; a < (c->nhwc ? c->kh : ig); a++)
            for (uint32_t b = 0; b < (c->nhwc ? c->kw : c->kh); b++)
                for (uint32_t e = 0; e < (c->nhwc ? ig : c->kw); e++, k++) {
                    uint32_t i = c->nhwc ? e : a, y = c->nhwc ? a : b, xx = c->nhwc ? b : e;
                    uint64_t at = o * c->f_stride[0] + i * c->f_stride[1] + y * c->f_stride[2] + xx * c->f_stride[3];
                    memcpy(dst + k * es, (const char *)src + at * es, es);
                }
}

/* Element i of a float32 or float16 buffer, in double, and back. */
static double elem_get(const void *p, size_t i, wnn_data_type t)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        return wnn__half_to_float(((const uint16_t *)p)[i]);
    return ((const float *)p)[i];
}

static void elem_set(void *p, size_t i, wnn_data_type t, double v)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        ((uint16_t *)p)[i] = wnn__float_to_half((float)v);
    else
        ((float *)p)[i] = (float)v;
}

/* Element i of constant v, or absent when v is WNN__NONE. */
static double constant_at(const wnn__ir *ir, uint32_t v, size_t i, double absent)
{
    return v == WNN__NONE ? absent : elem_get(ir->values[v].data, i, ir->values[v].desc.data_type);
}

/* Folds batchNormalization bn into the repacked filter of conv (each output
** channel's row times s = scale / sqrt(variance + epsilon)) and writes the
** bias that goes with it, (conv's bias - mean) * s + bn's bias: in double,
** rounded once to type t. */
static void fold_bn(const wnn__ir *ir, const wnn__node *conv, const wnn__node *bn, const wnn__cu_conv *c,
                    wnn_data_type t, char *filter, char *bias)
{
    size_t row = (size_t)(c->c_in / c->groups) * c->kh * c->kw;
    uint32_t conv_bias = has_in(conv, 2) ? conv->in[2] : WNN__NONE;
    for (uint32_t o = 0; o < c->c_out; o++) {
        double s = constant_at(ir, bn->in[3], o, 1.0) /
                   sqrt(constant_at(ir, bn->in[2], o, 1.0) + bn->attrs.batch_norm.epsilon);
        elem_set(bias, o, t,
                 (constant_at(ir, conv_bias, o, 0.0) - constant_at(ir, bn->in[1], o, 0.0)) * s +
                     constant_at(ir, bn->in[4], o, 0.0));
        for (size_t i = (size_t)o * row; i < (size_t)(o + 1) * row; i++)
            elem_set(filter, i, t, elem_get(filter, i, t) * s);
    }
}

/* The algorithms measured for each geometry, for the process: models
** repeat their convolutions' shapes, and measuring runs each algorithm.
** Under choice_lock; full, the oldest entry goes. */

typedef struct dnn_choice {
    wnn__cu_conv c;
    wnn_data_type t;
    int ordinal, algo, math_type;
} dnn_choice;

static pthread_mutex_t choice_lock = PTHREAD_MUTEX_INITIALIZER;
static dnn_choice choices[DNN_CHOICES];
static unsigned n_choices, next_choice;

/* The geometry of c, without what cuDNN does not see (the filter's
** strides in the graph's layout). wnn__cu_conv has no padding bytes, so
** entries compare with memcmp. */
wnn__cu_conv wnn__dnn_geometry(const wnn__cu_conv *c)
{
    wnn__cu_conv g = *c;
    memset(g.f_stride, 0, sizeof g.f_stride);
    return g;
}

static bool choice_find(int ordinal, const wnn__cu_conv *c, wnn_data_type t, dnn_choice *out)
{
    wnn__cu_conv g = wnn__dnn_geometry(c);
    bool found = false;
    pthread_mutex_lock(&choice_lock);
    for (unsigned i = 0; i < n_choices && !found; i++)
        if (choices[i].ordinal == ordinal && choices[i].t == t && memcmp(&choices[i].c, &g, sizeof g) == 0) {
            *out = choices[i];
            found = true;
        }
    pthread_mutex_unlock(&choice_lock);
    return found;
}

void wnn__dnn_choice_keep(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int algo, int math_type)
{
    pthread_mutex_lock(&choice_lock);
    dnn_choice *e = &choices[n_choices < DNN_CHOICES ? n_choices++ : next_choice++ % DNN_CHOICES];
    *e = (dnn_choice){wnn__dnn_geometry(c), t, ordinal, algo, math_type};
    pthread_mutex_unlock(&choice_lock);
}

/* Whether algorithm result q suits wnn and its workspace fits: FFT
** algorithms are less accurate than WebNN's tolerances allow for, and
** float32 stays on FMA math. Sets the math type it needs, the algorithm and
** its workspace size. */
static bool usable(void *h, wnn_data_type t, const dnn_perf *q, dnn_plan *p)
{
    if (q->status != DNN_STATUS_SUCCESS || q->algo == DNN_FWD_ALGO_FFT || q->algo == DNN_FWD_ALGO_FFT_TILING ||
        q->memory > DNN_WORKSPACE_MAX || q->math_type == DNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
        return false;
    if (t == WNN_DATA_TYPE_FLOAT32 && q->math_type != DNN_FMA_MATH && q->math_type != DNN_DEFAULT_MATH)
        return false;
    if (t == WNN_DATA_TYPE_FLOAT16 && wnn__dnn.SetConvolutionMathType(p->cd, q->math_type))
        return false;
    size_t bytes = 0;
    if (wnn__dnn.GetConvolutionForwardWorkspaceSize(h, p->xd, p->wd, p->cd, p->yd, q->algo, &bytes) ||
        bytes > DNN_WORKSPACE_MAX)
        return false;
    p->algo = q->algo;
    p->workspace = bytes > q->memory ? bytes : q->memory;
    return true;
}

/* Makes legacy candidate i the algorithm p runs. */
void wnn__dnn_legacy_apply(void *h, wnn_data_type t, dnn_plan *p, int i)
{
    (void)h;
    if (t == WNN_DATA_TYPE_FLOAT16)
        (void)wnn__dnn.SetConvolutionMathType(p->cd, p->legacy_math[i]);
    p->algo = p->legacy_algo[i];
    p->math_type = p->legacy_math[i];
    p->workspace = p->legacy_workspace[i];
}

/* The descriptors of conv c and the fastest usable algorithm for them
** (measured once per geometry, else cuDNN's heuristics' first); false when
** cuDNN refuses. */
static bool plan_descriptors(void *h, int ordinal, const wnn__cu_conv *c, wnn_data_type t, dnn_plan *p)
{
    int type = t == WNN_DATA_TYPE_FLOAT16 ? DNN_DATA_HALF : DNN_DATA_FLOAT;
    int format = c->nhwc ? DNN_TENSOR_NHWC : DNN_TENSOR_NCHW;
    if (wnn__dnn.CreateTensorDescriptor(&p->xd) || wnn__dnn.CreateTensorDescriptor(&p->yd) ||
        wnn__dnn.CreateTensorDescriptor(&p->bd) || wnn__dnn.CreateFilterDescriptor(&p->wd) ||
        wnn__dnn.CreateConvolutionDescriptor(&p->cd))
        return false;
    int math = t == WNN_DATA_TYPE_FLOAT16 ? DNN_TENSOR_OP_MATH : DNN_FMA_MATH; /* no TF32 */
    if (wnn__dnn.SetTensor4dDescriptor(p->xd, format, type, (int)c->n, (int)c->c_in, (int)c->h_in, (int)c->w_in) ||
        wnn__dnn.SetTensor4dDescriptor(p->yd, format, type, (int)c->n, (int)c->c_out, (int)c->h_out, (int)c->w_out) ||
        wnn__dnn.SetTensor4dDescriptor(p->bd, format, type, 1, (int)c->c_out, 1, 1) ||
        wnn__dnn.SetFilter4dDescriptor(p->wd, type, format, (int)c->c_out, (int)(c->c_in / c->groups), (int)c->kh,
                                       (int)c->kw) ||
        wnn__dnn.SetConvolution2dDescriptor(p->cd, (int)c->pad_top, (int)c->pad_left, (int)c->stride[0],
                                            (int)c->stride[1], (int)c->dilation[0], (int)c->dilation[1],
                                            DNN_CROSS_CORRELATION, DNN_DATA_FLOAT) ||
        wnn__dnn.SetConvolutionGroupCount(p->cd, (int)c->groups) || wnn__dnn.SetConvolutionMathType(p->cd, math))
        return false;
    dnn_perf perf[DNN_FWD_ALGO_COUNT];
    int got = 0;
    dnn_choice known;
    if (choice_find(ordinal, c, t, &known)) {
        dnn_perf q = {.algo = known.algo, .status = DNN_STATUS_SUCCESS, .math_type = known.math_type};
        if (usable(h, t, &q, p))
            return true;
    }
    /* measured, fastest first (cuDNN runs each algorithm on memory it
    ** allocates for the purpose); the heuristics' order where that fails */
    bool measured = wnn__dnn.FindConvolutionForwardAlgorithm(h, p->xd, p->wd, p->cd, p->yd, DNN_FWD_ALGO_COUNT, &got,
                                                             perf) == DNN_STATUS_SUCCESS;
    if (!measured) {
        (void)cudaGetLastError();
        got = 0;
        if (wnn__dnn.GetConvolutionForwardAlgorithm_v7(h, p->xd, p->wd, p->cd, p->yd, DNN_FWD_ALGO_COUNT, &got, perf))
            return false;
    }
    /* cuDNN's own measurement runs each algorithm once, so close ones come
    ** out in either order from one process to the next: the usable ones
    ** it found fastest are candidates, timed again by wnn__dnn_choose */
    for (int i = 0; i < got && i < DNN_FWD_ALGO_COUNT; i++)
        if (usable(h, t, &perf[i], p)) {
            if (!measured)
                return true;
            if (p->n_legacy < DNN_LEGACY_CANDIDATES) {
                p->legacy_algo[p->n_legacy] = p->algo;
                p->legacy_math[p->n_legacy] = perf[i].math_type;
                p->legacy_workspace[p->n_legacy++] = p->workspace;
            }
        }
    if (p->n_legacy)
        wnn__dnn_legacy_apply(h, t, p, 0);
    return p->n_legacy > 0;
}

/* Whether conv2d node's geometry suits cuDNN's legacy API: symmetric
** padding, int-sized tensors, and a filter usable as is or constant. */
static bool conv_fits(const wnn__ir *ir, const wnn__node *node, const wnn__cu_conv *c)
{
    const uint32_t *pad = node->attrs.conv.padding;
    if (pad[0] != pad[1] || pad[2] != pad[3])
        return false;
    uint64_t ext_h = (uint64_t)(c->kh - 1) * c->dilation[0] + 1, ext_w = (uint64_t)(c->kw - 1) * c->dilation[1] + 1;
    if (c->h_in + 2ull * pad[0] < ext_h || c->w_in + 2ull * pad[2] < ext_w ||
        (c->h_in + 2ull * pad[0] - ext_h) / c->stride[0] + 1 != c->h_out ||
        (c->w_in + 2ull * pad[2] - ext_w) / c->stride[1] + 1 != c->w_out)
        return false;
    const wnn_operand_desc *in = in_desc(ir, node, 0), *f = in_desc(ir, node, 1), *out = out_desc(ir, node, 0);
    if (!wnn__shape_count(in) || !wnn__shape_count(out) || wnn__shape_count(in) > INT32_MAX ||
        wnn__shape_count(out) > INT32_MAX || wnn__shape_count(f) > INT32_MAX)
        return false;
    uint32_t layout = node->attrs.conv.filter_layout;
    bool native = layout == (c->nhwc ? WNN_CONV2D_FILTER_LAYOUT_OHWI : WNN_CONV2D_FILTER_LAYOUT_OIHW);
    const wnn__value *fv = &ir->values[node->in[1]];
    return native || (fv->kind == WNN__VALUE_CONSTANT && fv->data);
}

/* relu, or clamp to [0, +inf), of type t. */
static bool is_relu(const wnn__ir *ir, const wnn__cu_node *cn, wnn_data_type t)
{
    const wnn__node *node = cn->node;
    if (!cn->run || node->n_out != 1 || out_desc(ir, node, 0)->data_type != t)
        return false;
    if (node->op == WNN__OP_RELU)
        return true;
    return node->op == WNN__OP_CLAMP && node->attrs.clamp.min_value == 0.0 && isinf(node->attrs.clamp.max_value) &&
           node->attrs.clamp.max_value > 0;
}

/* A constant of type t, with its bytes, of n elements. */
static bool constant_of(const wnn__ir *ir, uint32_t v, uint64_t n, wnn_data_type t)
{
    const wnn__value *val = &ir->values[v];
    return val->kind == WNN__VALUE_CONSTANT && val->data && val->desc.data_type == t &&
           wnn__shape_count(&val->desc) == n;
}

/* batchNormalization node r over conv node k's output, along its channels,
** with constant statistics, scale and bias, after a constant filter and
** bias: foldable into them. */
static bool foldable_bn(const wnn__ir *ir, const wnn__cu_node *nodes, uint32_t k, uint32_t r, const wnn__cu_conv *c,
                        wnn_data_type t)
{
    const wnn__node *conv = &ir->nodes[k], *bn = &ir->nodes[r];
    if (bn->op != WNN__OP_BATCH_NORMALIZATION || !nodes[r].run || bn->n_in != 5 || bn->in[0] != conv->out[0] ||
        bn->attrs.batch_norm.axis != (c->nhwc ? 3u : 1u) ||
        !constant_of(ir, conv->in[1], wnn__shape_count(in_desc(ir, conv, 1)), t) ||
        (has_in(conv, 2) && !constant_of(ir, conv->in[2], c->c_out, t)))
        return false;
    for (uint32_t j = 1; j < 5; j++)
        if (has_in(bn, j) && !constant_of(ir, bn->in[j], c->c_out, t))
            return false;
    return has_in(bn, 1) && has_in(bn, 2);
}

/* A constant of type t holding one value per output channel, in a shape
** that broadcasts against the conv's output along the channel axis only. */
static bool per_channel_constant(const wnn__ir *ir, uint32_t v, const wnn__cu_conv *c, wnn_data_type t)
{
    const wnn__value *val = &ir->values[v];
    const wnn_operand_desc *d = &val->desc;
    if (val->kind != WNN__VALUE_CONSTANT || d->data_type != t || d->rank > 4 || wnn__shape_count(d) != c->c_out)
        return false;
    uint32_t channel_axis = c->nhwc ? 3 : 1;
    for (uint32_t i = 0; i < d->rank; i++) {
        uint32_t axis = 4 - d->rank + i;
        if (d->shape[i] != 1 && axis != channel_axis)
            return false;
    }
    return true;
}

static bool same_desc(const wnn_operand_desc *a, const wnn_operand_desc *b)
{
    return a->data_type == b->data_type && a->rank == b->rank &&
           memcmp(a->shape, b->shape, sizeof a->shape[0] * a->rank) == 0;
}

/* The node that reads v, when exactly one node reads it once and v is not
** a graph output; UINT32_MAX otherwise. */
static uint32_t only_reader(const wnn__ir *ir, const uint32_t *uses, const bool *is_output, uint32_t v)
{
    if (uses[v] != 1 || is_output[v])
        return UINT32_MAX;
    for (uint32_t m = 0; m < ir->n_nodes; m++)
        for (uint32_t j = 0; j < ir->nodes[m].n_in; j++)
            if (ir->nodes[m].in[j] == v)
                return m;
    return UINT32_MAX;
}

/* conv2d node k, then optionally a foldable batchNormalization, then
** optionally add(bias or residual; residual only after a batchNormalization),
** then relu. */
static dnn_match match_epilogue(const wnn__ir *ir, const wnn__cu_node *nodes, const uint32_t *uses,
                                const bool *is_output, uint32_t k, const wnn__cu_conv *c)
{
    const wnn__node *conv = &ir->nodes[k];
    wnn_data_type t = out_desc(ir, conv, 0)->data_type;
    dnn_match m = {has_in(conv, 2) ? conv->in[2] : WNN__NONE, WNN__NONE, UINT32_MAX, UINT32_MAX, k, false};
    uint32_t v = conv->out[0];
    uint32_t r = only_reader(ir, uses, is_output, v);
    if (r == UINT32_MAX || r <= k)
        return m;
    if (foldable_bn(ir, nodes, k, r, c, t)) {
        /* the bias comes from the table now */
        m = (dnn_match){WNN__NONE, WNN__NONE, r, UINT32_MAX, r, false};
        v = ir->nodes[r].out[0];
        uint32_t after = only_reader(ir, uses, is_output, v);
        if (after == UINT32_MAX || after <= r)
            return m;
        r = after;
    }
    const wnn__node *next = &ir->nodes[r];
    uint32_t bias = m.bias, z = WNN__NONE, add = UINT32_MAX;
    if (next->op == WNN__OP_ADD && nodes[r].run && next->n_in == 2 && next->n_out == 1 &&
        same_desc(out_desc(ir, next, 0), out_desc(ir, conv, 0))) {
        uint32_t other = next->in[0] == v ? next->in[1] : next->in[0];
        if (other == v)
            return m;
        if (bias == WNN__NONE && m.bn == UINT32_MAX && per_channel_constant(ir, other, c, t))
            bias = other;
        else if (same_desc(&ir->values[other].desc, out_desc(ir, conv, 0)))
            z = other;
        else
            return m;
        add = r;
        r = only_reader(ir, uses, is_output, next->out[0]);
        if (r == UINT32_MAX || r <= add)
            return m;
    }
    if (!is_relu(ir, &nodes[r], t) || ir->nodes[r].in[0] != (add != UINT32_MAX ? ir->nodes[add].out[0] : v))
        return m;
    return (dnn_match){bias, z, m.bn, add, r, true};
}

/* Plans conv node k on cuDNN, fused with its epilogue when it has one.
** Leaves the node alone when cuDNN refuses; OUT_OF_MEMORY only. */
static wnn_status plan_conv(wnn__device *d, void *h, const wnn__ir *ir, wnn__cu_node *nodes, const uint32_t *uses,
                            const bool *is_output, uint32_t k, bool *internal, uint32_t *pos)
{
    const wnn__node *node = &ir->nodes[k];
    wnn__cu_conv c;
    if (wnn__cu_conv_describe(ir, node, &c) != WNN_OK || !conv_fits(ir, node, &c))
        return WNN_OK;
    wnn_data_type t = in_desc(ir, node, 0)->data_type;
    dnn_plan *p = calloc(1, sizeof *p);
    if (!p)
        return WNN_STATUS_OUT_OF_MEMORY;
    wnn__cu_lock(d); /* the handle is the stream's: keep dispatches out */
    bool ok = plan_descriptors(h, d->ordinal, &c, t, p);
    wnn__cu_unlock(d);
    dnn_match m = match_epilogue(ir, nodes, uses, is_output, k, &c);
    if (ok && m.fused) {
        ok = wnn__dnn.CreateActivationDescriptor(&p->ad) == DNN_STATUS_SUCCESS &&
             wnn__dnn.SetActivationDescriptor(p->ad, DNN_ACTIVATION_RELU, DNN_PROPAGATE_NAN, 0.0) == DNN_STATUS_SUCCESS;
        if (!ok) { /* the plain convolution then, with a folded batchNormalization still */
            m = (dnn_match){m.bn == UINT32_MAX && has_in(node, 2) ? node->in[2] : WNN__NONE,
                            WNN__NONE,
                            m.bn,
                            UINT32_MAX,
                            m.bn == UINT32_MAX ? k : m.bn,
                            false};
            ok = true;
        }
    }
    if (!ok) {
        release_plan(p);
        free(p);
        (void)cudaGetLastError();
        return WNN_OK;
    }
    /* the node's table: the repacked (or folded) filter, then the folded
    ** bias or zeros for a missing one */
    size_t es = wnn_data_type_size(t), table = 0;
    p->filter_at = p->bias_at = SIZE_MAX;
    bool folded = m.bn != UINT32_MAX;
    bool native =
        node->attrs.conv.filter_layout == (c.nhwc ? WNN_CONV2D_FILTER_LAYOUT_OHWI : WNN_CONV2D_FILTER_LAYOUT_OIHW);
    size_t filter_bytes = (size_t)wnn__shape_count(in_desc(ir, node, 1)) * es;
    if (!native || folded) {
        p->filter_at = 0;
        table = (filter_bytes + 255) / 256 * 256;
    }
    if (folded || (m.fused && m.bias == WNN__NONE)) {
        p->bias_at = table;
        table += (size_t)c.c_out * es;
    }
    char *aux = NULL;
    if (table) {
        aux = calloc(1, table);
        if (!aux) {
            release_plan(p);
            free(p);
            return WNN_STATUS_OUT_OF_MEMORY;
        }
        if (p->filter_at != SIZE_MAX)
            repack_filter(&c, ir->values[node->in[1]].data, es, aux);
        if (folded)
            fold_bn(ir, node, &ir->nodes[m.bn], &c, t, aux, aux + p->bias_at);
    }
    p->x = node->in[0];
    p->w = node->in[1];
    p->b = m.bias;
    p->z = m.z;
    p->fused = m.fused;
    p->y = ir->nodes[m.last].out[0];
    p->type = t;
    p->count = (uint64_t)c.n * c.c_out * c.h_out * c.w_out;
    p->channels = c.c_out;
    p->inner = c.nhwc ? 1 : c.h_out * c.w_out;
    p->zero_bias = m.fused && m.bias == WNN__NONE && !folded;
    wnn__cu_lock(d);
    wnn__dnn_choose(d, h, &c, t, m.bias != WNN__NONE || folded, p);
    wnn__cu_unlock(d);
    /* the conv's own plan goes; the work moves to the node that runs it */
    wnn__cu_node *conv = &nodes[k], *last = &nodes[m.last];
    free(conv->plan);
    conv->plan = NULL;
    conv->run = NULL;
    conv->scratch_bytes = 0;
    if (m.last != k) {
        free(last->plan);
        internal[node->out[0]] = true;
        pos[k] = m.last;
        uint32_t joined[2] = {m.bn, m.add};
        for (int j = 0; j < 2; j++)
            if (joined[j] != UINT32_MAX && joined[j] != m.last) {
                nodes[joined[j]].run = NULL;
                internal[ir->nodes[joined[j]].out[0]] = true;
                pos[joined[j]] = m.last;
            }
    }
    last->plan = p;
    last->release = release_plan;
    last->run = run_dnn_conv;
    last->scratch_bytes = p->workspace;
    free(last->aux_host);
    last->aux_host = aux;
    last->aux_bytes = table;
    return WNN_OK;
}

wnn_status wnn__cu_dnn_convs(wnn__device *d, const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos)
{
    bool any = false;
    for (uint32_t k = 0; k < ir->n_nodes && !any; k++)
        any = ir->nodes[k].op == WNN__OP_CONV2D && nodes[k].run;
    if (!any)
        return WNN_OK;
    wnn__cu_lock(d);
    void *h = device_handle(d);
    wnn__cu_unlock(d);
    if (!h)
        return WNN_OK;
    uint32_t nv = ir->n_values ? ir->n_values : 1;
    uint32_t *uses = calloc(nv, sizeof *uses);
    bool *is_output = calloc(nv, sizeof *is_output);
    if (!uses || !is_output) {
        free(uses);
        free(is_output);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    wnn__ir_count_uses(ir, uses, is_output);
    wnn_status s = WNN_OK;
    for (uint32_t k = 0; k < ir->n_nodes && s == WNN_OK; k++)
        if (ir->nodes[k].op == WNN__OP_CONV2D && nodes[k].run)
            s = plan_conv(d, h, ir, nodes, uses, is_output, k, internal, pos);
    free(uses);
    free(is_output);
    return s;
}
