/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_dnn.h -- what cuda_dnn.c (cuDNN's loading, the legacy convolution
** algorithms, the IR pass) and cuda_dnn_graph.c (the graph API's engines
** and the timing that chooses between the two) share: the part of cuDNN 9's
** ABI used, the function table, and a convolution's plan.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_DNN_H
#define WNN_BACKENDS_CUDA_CUDA_DNN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "backends/cuda/cuda_ops.h"

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

/* The process-wide table of cuDNN's functions, resolved once (cuda_dnn.c). */
typedef struct wnn__dnn_api {
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
} wnn__dnn_api;

extern wnn__dnn_api wnn__dnn;

/* ---- a convolution's plan ---------------------------------------------------------- */

#define DNN_WORKSPACE_MAX ((size_t)256 << 20)

#define DNN_GRAPH_DESCS       16
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

#define DNN_CHOICES 128 /* geometries remembered for the process, per table */

/* The unique ids of the graph API's tensors, in the variant pack's order. */
enum { UID_X = 1, UID_W = 2, UID_Y = 3 };

/* Destroys the graph API's plan of p and the descriptors it was made from. */
void wnn__dnn_release_graph(dnn_plan *p);

/* Queues conv plan p once: through the graph API's plan when graph (then
** its epilogue as a kernel of wnn's), else cuDNN's legacy call. bias and z
** may be NULL; ws holds p->workspace bytes. Returns a cuDNN status, or -1
** for a kernel's launch failure. */
int wnn__dnn_exec(void *h, cudaStream_t stream, const dnn_plan *p, bool graph, const void *x, const void *w,
                  const void *bias, const void *z, void *y, void *ws);

/* The geometry of c, without what cuDNN does not see (the filter's
** strides in the graph's layout); entries compare with memcmp. */
wnn__cu_conv wnn__dnn_geometry(const wnn__cu_conv *c);

/* Makes legacy candidate i the algorithm p runs. */
void wnn__dnn_legacy_apply(void *h, wnn_data_type t, dnn_plan *p, int i);

/* Remembers the legacy algorithm chosen for c on device ordinal. */
void wnn__dnn_choice_keep(int ordinal, const wnn__cu_conv *c, wnn_data_type t, int algo, int math_type);

/* (cuda_dnn_graph.c) Chooses what runs conv c by timing, once per geometry
** and epilogue for the process: the fastest of p's legacy candidates, or a
** graph API engine where it runs clearly faster. Under the device's lock. */
void wnn__dnn_choose(wnn__device *d, void *h, const wnn__cu_conv *c, wnn_data_type t, bool bias, dnn_plan *p);

#endif
