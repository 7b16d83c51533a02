/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_dnn.c -- conv2d through cuDNN 9's convolution API, loaded with
** dlopen on first use (never linked): the process-wide function table, the
** device's handle, and the compile-time pass that moves conv2d nodes onto
** cuDNN (see wnn__cu_dnn_convs in cuda_internal.h).
**
** Only the handful of types and constants used here are declared, with
** cuDNN 9's values, so that the module builds without cuDNN's headers; the
** library is used only when cudnnGetVersion says 9.x. Everything is chosen
** at compile: descriptors, the algorithm (the fastest cuDNN measures on the
** device, as PyTorch's benchmark mode does, remembered for the process per
** geometry; its heuristics' first where it cannot measure; no TF32 for
** float32, tensor cores for float16, no FFT algorithms), the workspace
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

#include "backends/cuda/cuda_ops.h"
#include "core/half.h"
#include "platform/config.h"

/* ---- cuDNN 9's ABI: the part used here ------------------------------------------- */

enum {
    DNN_STATUS_SUCCESS = 0,
    DNN_DATA_FLOAT = 0,
    DNN_DATA_HALF = 2,
    DNN_TENSOR_NCHW = 0,
    DNN_TENSOR_NHWC = 1,
    DNN_CROSS_CORRELATION = 1,
    DNN_DEFAULT_MATH = 0,
    DNN_TENSOR_OP_MATH = 1,
    DNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    DNN_FMA_MATH = 3,
    DNN_ACTIVATION_RELU = 1,
    DNN_PROPAGATE_NAN = 1,
    DNN_FWD_ALGO_FFT = 4,
    DNN_FWD_ALGO_FFT_TILING = 5,
    DNN_FWD_ALGO_COUNT = 8,
};

typedef struct dnn_perf { /* cudnnConvolutionFwdAlgoPerf_t */
    int algo;
    int status;
    float time;
    size_t memory;
    int determinism;
    int math_type;
    int reserved[3];
} dnn_perf;

typedef void *dnn_desc; /* any of cuDNN's descriptor handles */

/* cuDNN 9's graph API (cudnn_graph.h): descriptor kinds, attribute types,
** attribute names and notes, the ones used here */
enum {
    BK_CONVOLUTION = 1,
    BK_ENGINE = 2,
    BK_ENGINECFG = 3,
    BK_ENGINEHEUR = 4,
    BK_EXECUTION_PLAN = 5,
    BK_OP_CONV_FORWARD = 10,
    BK_OPERATION_GRAPH = 15,
    BK_VARIANT_PACK = 16,
    BK_TENSOR = 17,

    AT_HANDLE = 0,
    AT_DATA_TYPE = 1,
    AT_INT64 = 3,
    AT_FLOAT = 4,
    AT_VOID_PTR = 6,
    AT_CONVOLUTION_MODE = 7,
    AT_HEUR_MODE = 8,
    AT_NUMERICAL_NOTE = 11,
    AT_DESCRIPTOR = 15,
    AT_BEHAVIOR_NOTE = 19,

    A_CONV_COMP_TYPE = 100,
    A_CONV_MODE = 101,
    A_CONV_DILATIONS = 102,
    A_CONV_FILTER_STRIDES = 103,
    A_CONV_POST_PADDINGS = 104,
    A_CONV_PRE_PADDINGS = 105,
    A_CONV_SPATIAL_DIMS = 106,
    A_HEUR_MODE = 200,
    A_HEUR_GRAPH = 201,
    A_HEUR_RESULTS = 202,
    A_CFG_ENGINE = 300,
    A_PLAN_HANDLE = 400,
    A_PLAN_CONFIG = 401,
    A_PLAN_WORKSPACE = 402,
    A_FWD_ALPHA = 700,
    A_FWD_BETA = 701,
    A_FWD_CONV = 702,
    A_FWD_W = 703,
    A_FWD_X = 704,
    A_FWD_Y = 705,
    A_GRAPH_HANDLE = 800,
    A_GRAPH_OPS = 801,
    A_TENSOR_ALIGNMENT = 900,
    A_TENSOR_DATA_TYPE = 901,
    A_TENSOR_DIMENSIONS = 902,
    A_TENSOR_STRIDES = 903,
    A_TENSOR_UID = 906,
    A_PACK_UIDS = 1000,
    A_PACK_POINTERS = 1001,
    A_PACK_WORKSPACE = 1003,
    A_ENGINE_NUMERICAL_NOTE = 1303,
    A_ENGINE_BEHAVIOR_NOTE = 1305,

    NOTE_TENSOR_CORE = 0,
    NOTE_DOWN_CONVERT_INPUTS = 1,
    NOTE_REDUCED_PRECISION_REDUCTION = 2,
    NOTE_FFT = 3,
    NOTE_WINOGRAD_TILE_6x6 = 7,
    NOTE_WINOGRAD_TILE_13x13 = 8,
    BEHAVIOR_RUNTIME_COMPILATION = 0,
    HEUR_MODE_A = 3,
};

static struct {
    pthread_once_t once;
    bool ok;
    size_t (*GetVersion)(void);
    int (*Create)(void **handle);
    int (*Destroy)(void *handle);
    int (*SetStream)(void *handle, cudaStream_t stream);
    int (*CreateTensorDescriptor)(dnn_desc *d);
    int (*SetTensor4dDescriptor)(dnn_desc d, int format, int type, int n, int c, int h, int w);
    int (*DestroyTensorDescriptor)(dnn_desc d);
    int (*CreateFilterDescriptor)(dnn_desc *d);
    int (*SetFilter4dDescriptor)(dnn_desc d, int type, int format, int k, int c, int h, int w);
    int (*DestroyFilterDescriptor)(dnn_desc d);
    int (*CreateConvolutionDescriptor)(dnn_desc *d);
    int (*SetConvolution2dDescriptor)(dnn_desc d, int pad_h, int pad_w, int u, int v, int dilation_h, int dilation_w,
                                      int mode, int compute_type);
    int (*SetConvolutionGroupCount)(dnn_desc d, int groups);
    int (*SetConvolutionMathType)(dnn_desc d, int math_type);
    int (*DestroyConvolutionDescriptor)(dnn_desc d);
    int (*CreateActivationDescriptor)(dnn_desc *d);
    int (*SetActivationDescriptor)(dnn_desc d, int mode, int nan, double coef);
    int (*DestroyActivationDescriptor)(dnn_desc d);
    int (*GetConvolutionForwardAlgorithm_v7)(void *handle, dnn_desc x, dnn_desc w, dnn_desc conv, dnn_desc y,
                                             int requested, int *returned, dnn_perf *perf);
    int (*FindConvolutionForwardAlgorithm)(void *handle, dnn_desc x, dnn_desc w, dnn_desc conv, dnn_desc y,
                                           int requested, int *returned, dnn_perf *perf);
    int (*GetConvolutionForwardWorkspaceSize)(void *handle, dnn_desc x, dnn_desc w, dnn_desc conv, dnn_desc y, int algo,
                                              size_t *bytes);
    int (*ConvolutionForward)(void *handle, const void *alpha, dnn_desc xd, const void *x, dnn_desc wd, const void *w,
                              dnn_desc conv, int algo, void *workspace, size_t workspace_bytes, const void *beta,
                              dnn_desc yd, void *y);
    int (*ConvolutionBiasActivationForward)(void *handle, const void *alpha1, dnn_desc xd, const void *x, dnn_desc wd,
                                            const void *w, dnn_desc conv, int algo, void *workspace,
                                            size_t workspace_bytes, const void *alpha2, dnn_desc zd, const void *z,
                                            dnn_desc bd, const void *bias, dnn_desc act, dnn_desc yd, void *y);
    int (*AddTensor)(void *handle, const void *alpha, dnn_desc ad, const void *a, const void *beta, dnn_desc cd,
                     void *c);
    /* the graph API, where the library has it (graph_ok) */
    bool graph_ok;
    int (*BackendCreateDescriptor)(int kind, dnn_desc *d);
    int (*BackendDestroyDescriptor)(dnn_desc d);
    int (*BackendFinalize)(dnn_desc d);
    int (*BackendSetAttribute)(dnn_desc d, int name, int type, int64_t count, const void *values);
    int (*BackendGetAttribute)(dnn_desc d, int name, int type, int64_t requested, int64_t *count, void *values);
    int (*BackendExecute)(void *handle, dnn_desc plan, dnn_desc variant_pack);
} api = {.once = PTHREAD_ONCE_INIT};

/* Resolves cudnn<name> into api.name; false when it is missing. */
#define DNN_SYM(lib, name)                                                                                             \
    do {                                                                                                               \
        void *f_ = dlsym((lib), "cudnn" #name);                                                                        \
        if (!f_)                                                                                                       \
            return false;                                                                                              \
        memcpy(&api.name, &f_, sizeof f_);                                                                             \
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
        version = api.GetVersion(); /* major * 10000 + minor * 100 + patch */
    if (version >= 90000 && version < 100000) {
        api.ok = true;
        api.graph_ok = resolve_graph(lib);
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
    pthread_once(&api.once, load_api);
    if (!api.ok)
        return NULL;
    void *h = NULL;
    pthread_mutex_lock(&dnn_lifetime);
    for (int i = dnn_pooled; i-- > 0 && !h;)
        if (dnn_pool[i].ordinal == d->ordinal) {
            h = dnn_pool[i].handle;
            dnn_pool[i] = dnn_pool[--dnn_pooled];
        }
    if (!h && api.Create(&h) != DNN_STATUS_SUCCESS)
        h = NULL;
    if (h && api.SetStream(h, d->stream) != DNN_STATUS_SUCCESS) {
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
    api.SetStream(d->dnn, NULL); /* the device's stream is about to go */
    if (dnn_pooled < DNN_POOL) {
        dnn_pool[dnn_pooled].ordinal = d->ordinal;
        dnn_pool[dnn_pooled++].handle = d->dnn;
    }
    pthread_mutex_unlock(&dnn_lifetime);
    d->dnn = NULL;
}

/* ---- plans ------------------------------------------------------------------------- */

#define DNN_WORKSPACE_MAX ((size_t)256 << 20)

#define DNN_GRAPH_DESCS 16
#define DNN_LEGACY_CANDIDATES 4

typedef struct dnn_plan {
    dnn_desc xd, wd, yd, bd, cd, ad; /* ad only when fused */
    int algo;
    size_t workspace;          /* the most either path needs */
    uint32_t x, w, b, z, y;    /* value ids; b, z WNN__NONE for none */
    size_t filter_at, bias_at; /* in the node's table; SIZE_MAX: none */
    bool fused;                /* y = relu(conv(x) + bias + z) in one call */
    bool zero_bias;            /* the table's bias is zeros, for the fused call only */
    /* the legacy algorithms cuDNN measured fastest, when it measured */
    int n_legacy, math_type; /* math_type: the chosen candidate's */
    int legacy_algo[DNN_LEGACY_CANDIDATES], legacy_math[DNN_LEGACY_CANDIDATES];
    size_t legacy_workspace[DNN_LEGACY_CANDIDATES];
    /* the graph API's plan for the convolution alone (NULL: the legacy
    ** call runs), its epilogue then a kernel of ours; the descriptors it
    ** was made from live as long as it does */
    dnn_desc graph;
    dnn_desc graph_descs[DNN_GRAPH_DESCS];
    int n_graph_descs;
    wnn_data_type type;
    uint64_t count;           /* output elements */
    uint32_t channels, inner; /* channel of element i: (i / inner) % channels */
} dnn_plan;

/* Destroys the graph API's plan of p and the descriptors it was made from. */
static void release_graph(dnn_plan *p)
{
    if (p->graph)
        api.BackendDestroyDescriptor(p->graph);
    for (int i = p->n_graph_descs; i-- > 0;)
        api.BackendDestroyDescriptor(p->graph_descs[i]);
    p->graph = NULL;
    p->n_graph_descs = 0;
}

static void release_plan(void *plan)
{
    dnn_plan *p = plan;
    if (p->xd)
        api.DestroyTensorDescriptor(p->xd);
    if (p->yd)
        api.DestroyTensorDescriptor(p->yd);
    if (p->bd)
        api.DestroyTensorDescriptor(p->bd);
    if (p->wd)
        api.DestroyFilterDescriptor(p->wd);
    if (p->cd)
        api.DestroyConvolutionDescriptor(p->cd);
    if (p->ad)
        api.DestroyActivationDescriptor(p->ad);
    release_graph(p);
}

static wnn_status dnn_status(int s) { return s == DNN_STATUS_SUCCESS ? WNN_OK : WNN_STATUS_OPERATION_ERROR; }

/* The unique ids of the graph API's tensors, in the variant pack's order. */
enum { UID_X = 1, UID_W = 2, UID_Y = 3 };

/* Queues conv plan p once: through the graph API's plan when graph (then
** its epilogue as our kernel), else cuDNN's legacy call. bias and z may be
** NULL; ws holds p->workspace bytes. Returns a cuDNN status, or -1 for a
** kernel's launch failure. */
static int exec_conv(void *h, cudaStream_t stream, const dnn_plan *p, bool graph, const void *x, const void *w,
                     const void *bias, const void *z, void *y, void *ws)
{
    const float one = 1.0f, zero = 0.0f; /* scaling factors are float for float and half data */
    if (graph) {
        dnn_desc pack = NULL;
        int64_t uids[3] = {UID_X, UID_W, UID_Y};
        void *ptrs[3] = {(void *)x, (void *)w, y};
        int s = api.BackendCreateDescriptor(BK_VARIANT_PACK, &pack);
        if (s == DNN_STATUS_SUCCESS)
            s = api.BackendSetAttribute(pack, A_PACK_UIDS, AT_INT64, 3, uids);
        if (s == DNN_STATUS_SUCCESS)
            s = api.BackendSetAttribute(pack, A_PACK_POINTERS, AT_VOID_PTR, 3, ptrs);
        if (s == DNN_STATUS_SUCCESS)
            s = api.BackendSetAttribute(pack, A_PACK_WORKSPACE, AT_VOID_PTR, 1, &ws);
        if (s == DNN_STATUS_SUCCESS)
            s = api.BackendFinalize(pack);
        if (s == DNN_STATUS_SUCCESS)
            s = api.BackendExecute(h, p->graph, pack);
        if (pack)
            api.BackendDestroyDescriptor(pack);
        if (s == DNN_STATUS_SUCCESS && (bias || z || p->fused) &&
            wnn__cu_conv_epilogue(stream, p->type, p->count, p->channels, p->inner, bias, z, p->fused, y) !=
                cudaSuccess)
            s = -1;
        return s;
    }
    if (p->fused) {
        /* without a residual z is y scaled by 0, as the API allows */
        return api.ConvolutionBiasActivationForward(h, &one, p->xd, x, p->wd, w, p->cd, p->algo, ws, p->workspace,
                                                    z ? &one : &zero, p->yd, z ? z : y, p->bd, bias, p->ad, p->yd, y);
    }
    int s = api.ConvolutionForward(h, &one, p->xd, x, p->wd, w, p->cd, p->algo, ws, p->workspace, &zero, p->yd, y);
    if (s == DNN_STATUS_SUCCESS && bias)
        s = api.AddTensor(h, &one, p->bd, bias, &one, p->yd, y);
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
    int s = exec_conv(x->dnn, x->stream, p, graph, x->ptr[p->x], w, bias, z, y, x->scratch);
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
#define DNN_CHOICES 128

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
static wnn__cu_conv geometry_of(const wnn__cu_conv *c)
{
    wnn__cu_conv g = *c;
    memset(g.f_stride, 0, sizeof g.f_stride);
    return g;
}

static bool choice_find(int ordinal, const wnn__cu_conv *c, wnn_data_type t, dnn_choice *out)
{
    wnn__cu_conv g = geometry_of(c);
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

static void choice_keep(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int algo, int math_type)
{
    pthread_mutex_lock(&choice_lock);
    dnn_choice *e = &choices[n_choices < DNN_CHOICES ? n_choices++ : next_choice++ % DNN_CHOICES];
    *e = (dnn_choice){geometry_of(c), t, ordinal, algo, math_type};
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
    if (t == WNN_DATA_TYPE_FLOAT16 && api.SetConvolutionMathType(p->cd, q->math_type))
        return false;
    size_t bytes = 0;
    if (api.GetConvolutionForwardWorkspaceSize(h, p->xd, p->wd, p->cd, p->yd, q->algo, &bytes) ||
        bytes > DNN_WORKSPACE_MAX)
        return false;
    p->algo = q->algo;
    p->workspace = bytes > q->memory ? bytes : q->memory;
    return true;
}

/* Makes legacy candidate i the algorithm p runs. */
static void legacy_apply(void *h, wnn_data_type t, dnn_plan *p, int i)
{
    (void)h;
    if (t == WNN_DATA_TYPE_FLOAT16)
        (void)api.SetConvolutionMathType(p->cd, p->legacy_math[i]);
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
    if (api.CreateTensorDescriptor(&p->xd) || api.CreateTensorDescriptor(&p->yd) ||
        api.CreateTensorDescriptor(&p->bd) || api.CreateFilterDescriptor(&p->wd) ||
        api.CreateConvolutionDescriptor(&p->cd))
        return false;
    int math = t == WNN_DATA_TYPE_FLOAT16 ? DNN_TENSOR_OP_MATH : DNN_FMA_MATH; /* no TF32 */
    if (api.SetTensor4dDescriptor(p->xd, format, type, (int)c->n, (int)c->c_in, (int)c->h_in, (int)c->w_in) ||
        api.SetTensor4dDescriptor(p->yd, format, type, (int)c->n, (int)c->c_out, (int)c->h_out, (int)c->w_out) ||
        api.SetTensor4dDescriptor(p->bd, format, type, 1, (int)c->c_out, 1, 1) ||
        api.SetFilter4dDescriptor(p->wd, type, format, (int)c->c_out, (int)(c->c_in / c->groups), (int)c->kh,
                                  (int)c->kw) ||
        api.SetConvolution2dDescriptor(p->cd, (int)c->pad_top, (int)c->pad_left, (int)c->stride[0], (int)c->stride[1],
                                       (int)c->dilation[0], (int)c->dilation[1], DNN_CROSS_CORRELATION,
                                       DNN_DATA_FLOAT) ||
        api.SetConvolutionGroupCount(p->cd, (int)c->groups) || api.SetConvolutionMathType(p->cd, math))
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
    bool measured = api.FindConvolutionForwardAlgorithm(h, p->xd, p->wd, p->cd, p->yd, DNN_FWD_ALGO_COUNT, &got,
                                                        perf) == DNN_STATUS_SUCCESS;
    if (!measured) {
        (void)cudaGetLastError();
        got = 0;
        if (api.GetConvolutionForwardAlgorithm_v7(h, p->xd, p->wd, p->cd, p->yd, DNN_FWD_ALGO_COUNT, &got, perf))
            return false;
    }
    /* cuDNN's own measurement runs each algorithm once, so close ones come
    ** out in either order from one process to the next: the usable ones
    ** it found fastest are candidates, timed again by plan_choose */
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
        legacy_apply(h, t, p, 0);
    return p->n_legacy > 0;
}

/* ---- the graph API: engines beyond the legacy algorithms ------------------------- */

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
        api.BackendDestroyDescriptor(d);
        return false;
    }
    p->graph_descs[p->n_graph_descs++] = d;
    return true;
}

static dnn_desc graph_make(int kind)
{
    dnn_desc d = NULL;
    return api.BackendCreateDescriptor(kind, &d) == DNN_STATUS_SUCCESS ? d : NULL;
}

static bool graph_set(dnn_desc d, int name, int type, int64_t count, const void *values)
{
    return api.BackendSetAttribute(d, name, type, count, values) == DNN_STATUS_SUCCESS;
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
        api.BackendFinalize(d) != DNN_STATUS_SUCCESS)
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
        !graph_set(conv, A_CONV_POST_PADDINGS, AT_INT64, 2, pad) || api.BackendFinalize(conv) != DNN_STATUS_SUCCESS)
        return NULL;
    dnn_desc op = graph_make(BK_OP_CONV_FORWARD);
    if (!graph_keep(p, op))
        return NULL;
    float alpha = 1.0f, beta = 0.0f;
    if (!graph_set(op, A_FWD_X, AT_DESCRIPTOR, 1, &x) || !graph_set(op, A_FWD_W, AT_DESCRIPTOR, 1, &w) ||
        !graph_set(op, A_FWD_Y, AT_DESCRIPTOR, 1, &y) || !graph_set(op, A_FWD_CONV, AT_DESCRIPTOR, 1, &conv) ||
        !graph_set(op, A_FWD_ALPHA, AT_FLOAT, 1, &alpha) || !graph_set(op, A_FWD_BETA, AT_FLOAT, 1, &beta) ||
        api.BackendFinalize(op) != DNN_STATUS_SUCCESS)
        return NULL;
    dnn_desc g = graph_make(BK_OPERATION_GRAPH);
    if (!graph_keep(p, g))
        return NULL;
    (void)graph_set(g, A_GRAPH_HANDLE, AT_HANDLE, 1, &h); /* deprecated in 9.x, needed before */
    if (!graph_set(g, A_GRAPH_OPS, AT_DESCRIPTOR, 1, &op) || api.BackendFinalize(g) != DNN_STATUS_SUCCESS)
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
    bool ok = api.BackendGetAttribute(cfg, A_CFG_ENGINE, AT_DESCRIPTOR, 1, &got, &engine) == DNN_STATUS_SUCCESS &&
              got == 1 &&
              api.BackendGetAttribute(engine, A_ENGINE_NUMERICAL_NOTE, AT_NUMERICAL_NOTE, 32, &n_notes, notes) ==
                  DNN_STATUS_SUCCESS &&
              api.BackendGetAttribute(engine, A_ENGINE_BEHAVIOR_NOTE, AT_BEHAVIOR_NOTE, 32, &n_behaviour, behaviour) ==
                  DNN_STATUS_SUCCESS;
    for (int64_t i = 0; ok && i < n_notes && i < 32; i++)
        ok = !(notes[i] == NOTE_TENSOR_CORE && t == WNN_DATA_TYPE_FLOAT32) && notes[i] != NOTE_DOWN_CONVERT_INPUTS &&
             notes[i] != NOTE_REDUCED_PRECISION_REDUCTION && notes[i] != NOTE_FFT &&
             notes[i] != NOTE_WINOGRAD_TILE_6x6 && notes[i] != NOTE_WINOGRAD_TILE_13x13;
    for (int64_t i = 0; ok && i < n_behaviour && i < 32; i++)
        ok = behaviour[i] != BEHAVIOR_RUNTIME_COMPILATION;
    api.BackendDestroyDescriptor(engine);
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
    if (graph_set(plan, A_PLAN_CONFIG, AT_DESCRIPTOR, 1, &cfg) && api.BackendFinalize(plan) == DNN_STATUS_SUCCESS &&
        api.BackendGetAttribute(plan, A_PLAN_WORKSPACE, AT_INT64, 1, &got, &bytes) == DNN_STATUS_SUCCESS && got == 1 &&
        bytes >= 0 && (size_t)bytes <= DNN_WORKSPACE_MAX) {
        *workspace = (size_t)bytes;
        return plan;
    }
    api.BackendDestroyDescriptor(plan);
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
    if (exec_conv(h, b->stream, p, graph, b->x, b->w, bias ? b->b : NULL, b->z, b->y, b->ws) != DNN_STATUS_SUCCESS ||
        cudaStreamSynchronize(b->stream) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1.0f;
    }
    for (int round = 0; round < 3; round++) {
        float ms = 0.0f;
        bool ok = cudaEventRecord(b->start, b->stream) == cudaSuccess;
        for (int i = 0; i < 3 && ok; i++)
            ok = exec_conv(h, b->stream, p, graph, b->x, b->w, bias ? b->b : NULL, b->z, b->y, b->ws) ==
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
** Under choice_lock; full, the oldest entry goes. */
typedef struct graph_choice {
    wnn__cu_conv c;
    wnn_data_type t;
    int ordinal, epilogue, rank;
} graph_choice;

static graph_choice graph_choices[DNN_CHOICES];
static unsigned n_graph_choices, next_graph_choice;

static bool graph_choice_find(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int epilogue, int *rank)
{
    wnn__cu_conv g = geometry_of(c);
    bool found = false;
    pthread_mutex_lock(&choice_lock);
    for (unsigned i = 0; i < n_graph_choices && !found; i++) {
        const graph_choice *e = &graph_choices[i];
        if (e->ordinal == ordinal && e->t == t && e->epilogue == epilogue && memcmp(&e->c, &g, sizeof g) == 0) {
            *rank = e->rank;
            found = true;
        }
    }
    pthread_mutex_unlock(&choice_lock);
    return found;
}

static void graph_choice_keep(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int epilogue, int rank)
{
    pthread_mutex_lock(&choice_lock);
    unsigned i = n_graph_choices < DNN_CHOICES ? n_graph_choices++ : next_graph_choice++ % DNN_CHOICES;
    graph_choices[i] = (graph_choice){geometry_of(c), t, ordinal, epilogue, rank};
    pthread_mutex_unlock(&choice_lock);
}

/* Chooses what runs conv c, timed on the device's stream with scratch
** tensors of its shape, once per geometry and epilogue for the process:
** the fastest of the legacy algorithms cuDNN measured (p's candidates),
** then one of the graph API's engines instead where it runs clearly faster,
** epilogue included. bias: the epilogue adds one. Leaves p on its first
** legacy algorithm when nothing can be timed. Called under the device's
** lock. WNN_CUDA_CUDNN_VERBOSE prints each choice on stderr. */
static void plan_choose(wnn__device *d, void *h, const wnn__cu_conv *c, wnn_data_type t, bool bias, dnn_plan *p)
{
    int epilogue = (p->fused ? 1 : 0) | (p->z != WNN__NONE ? 2 : 0) | (bias ? 4 : 0);
    int known = -2; /* the graph choice made before: a rank, -1 legacy, -2 none */
    bool graph_api = api.graph_ok && d->use_cudnn_graph;
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
        graph_set(heur, A_HEUR_MODE, AT_HEUR_MODE, 1, &mode) && api.BackendFinalize(heur) == DNN_STATUS_SUCCESS &&
        api.BackendGetAttribute(heur, A_HEUR_RESULTS, AT_DESCRIPTOR, 0, &n_cfg, NULL) == DNN_STATUS_SUCCESS &&
        n_cfg > 0) {
        if (n_cfg > DNN_ENGINES)
            n_cfg = DNN_ENGINES;
        for (int64_t i = 0; i < n_cfg; i++)
            if (!(cfg[i] = graph_make(BK_ENGINECFG)))
                n_cfg = i;
        if (n_cfg > 0 &&
            api.BackendGetAttribute(heur, A_HEUR_RESULTS, AT_DESCRIPTOR, n_cfg, &got, cfg) == DNN_STATUS_SUCCESS) {
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

    int best = -1;           /* the graph engine chosen, or -1 */
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
                legacy_apply(h, t, p, i);
            float ms = bench_time(h, p, false, &b, bias || p->fused);
            if (ms >= 0.0f && (legacy_ms < 0.0f || ms < legacy_ms)) {
                legacy_ms = ms;
                fastest_legacy = i;
            }
        }
        if (p->n_legacy)
            legacy_apply(h, t, p, fastest_legacy);
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
        legacy_apply(h, t, p, 0);
    }
    bench_free(&b);
    if (p->n_legacy)
        choice_keep(d->ordinal, c, t, p->algo, p->math_type);
    if (wnn__config_get()->cuda_cudnn_verbose)
        fprintf(stderr,
                "wnn cuda: conv2d %s n%u c%u %ux%u -> c%u %ux%u k%ux%u s%u,%u d%u,%u g%u%s%s%s: legacy algo %d "
                "%.4f ms (%d candidates), graph API %d engines%s, fastest %.4f ms: %s\n",
                t == WNN_DATA_TYPE_FLOAT16 ? "float16" : "float32", c->n, c->c_in, c->h_in, c->w_in, c->c_out,
                c->h_out, c->w_out, c->kh, c->kw, c->stride[0], c->stride[1], c->dilation[0], c->dilation[1],
                c->groups, c->nhwc ? " nhwc" : "", bias ? " +bias" : "", p->fused ? " +relu" : "", p->algo,
                legacy_ms, p->n_legacy, made, known >= -1 ? " (chosen before)" : "", graph_ms,
                best >= 0 ? "graph API" : "legacy");
    for (int i = 0; i < (int)n_cfg; i++) {
        if (i == best) {
            p->graph = plan[i];
            p->workspace = ws[i] > p->workspace ? ws[i] : p->workspace;
            (void)graph_keep(p, cfg[i]); /* the plan was made from it (room is left for it) */
        } else {
            if (plan[i])
                api.BackendDestroyDescriptor(plan[i]);
            if (cfg[i])
                api.BackendDestroyDescriptor(cfg[i]);
        }
    }
    if (!p->graph)
        release_graph(p);
    (void)cudaGetLastError();
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
        ok = api.CreateActivationDescriptor(&p->ad) == DNN_STATUS_SUCCESS &&
             api.SetActivationDescriptor(p->ad, DNN_ACTIVATION_RELU, DNN_PROPAGATE_NAN, 0.0) == DNN_STATUS_SUCCESS;
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
    plan_choose(d, h, &c, t, m.bias != WNN__NONE || folded, p);
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
    for (uint32_t n = 0; n < ir->n_nodes; n++)
        for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
            if (ir->nodes[n].in[j] != WNN__NONE)
                uses[ir->nodes[n].in[j]]++;
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        is_output[ir->output_values[i]] = true;
    wnn_status s = WNN_OK;
    for (uint32_t k = 0; k < ir->n_nodes && s == WNN_OK; k++)
        if (ir->nodes[k].op == WNN__OP_CONV2D && nodes[k].run)
            s = plan_conv(d, h, ir, nodes, uses, is_output, k, internal, pos);
    free(uses);
    free(is_output);
    return s;
}
