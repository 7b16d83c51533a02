/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_internal.h -- what the files of the cuda backend share: the opened
** device (cuda.c), its memory and copies (cuda_memory.c), compiled graphs
** (cuda_graph.c) and the operators' plans (cuda_ops.h: ops_*.c, fusion.c,
** ops_table.c).
**
** graph_compile asks ops_table.c to prepare every node: pick a launcher,
** precompute its plan, say how much scratch memory it needs in the arena
** and which small table (if any) must be uploaded once. graph_execute then
** resolves a device pointer for every value and calls each node's run.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_INTERNAL_H
#define WNN_BACKENDS_CUDA_CUDA_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "core/ir.h"
#include "core/shape.h"

/* ---- the opened device (cuda.c) --------------------------------------------- */

#define CU_STAGES 4 /* pinned staging chunks */
#define WNN__CU_BLAS_WORKSPACE ((size_t)32 << 20) /* cuBLAS's recommendation for Hopper */

struct wnn__device {
    int ordinal;
    pthread_mutex_t lock; /* recursive: serializes everything queued on the stream */
    cudaStream_t stream;
    cublasHandle_t blas;
    void *blas_workspace;
    char *staging;      /* CU_STAGES chunks of pinned memory, made on first use */
    size_t stage_bytes; /* bytes per chunk (WNN_CUDA_STAGING_KIB) */
    cudaEvent_t staged[CU_STAGES];
    bool staged_used[CU_STAGES];
    unsigned next_stage;
    cudaEvent_t direct_done; /* the end of a copy straight from or to pinned memory */
    cudaEvent_t handoff;     /* DLPack's stream handshakes (re-recorded each time) */
    wnn_status error; /* first failure of queued work since the last synchronize */
    bool use_graphs;  /* WNN_CUDA_GRAPHS=0 turns capture off */
    bool use_fusion;  /* WNN_CUDA_FUSION=0 turns element-wise fusion off */
    bool use_cudnn;   /* WNN_CUDA_CUDNN=0 (or WNN_CUDA_DIRECT_CONV) keeps cuDNN out */
    bool use_cudnn_graph; /* WNN_CUDA_CUDNN_GRAPH=0 keeps cuDNN's graph API out (cuda_dnn.c) */
    bool dnn_tried;   /* the cuDNN handle was asked for (cuda_dnn.c) */
    void *dnn;        /* cudnnHandle_t on stream, or NULL */
};

/* A cudaError_t as a wnn status (OUT_OF_MEMORY or OPERATION_ERROR). */
static inline wnn_status wnn__cu_status(cudaError_t e)
{
    if (e == cudaSuccess)
        return WNN_OK;
    return e == cudaErrorMemoryAllocation ? WNN_STATUS_OUT_OF_MEMORY : WNN_STATUS_OPERATION_ERROR;
}

/* Takes the device's lock and makes it the calling thread's device. */
static inline void wnn__cu_lock(wnn__device *d)
{
    pthread_mutex_lock(&d->lock);
    cudaSetDevice(d->ordinal);
}

static inline void wnn__cu_unlock(wnn__device *d) { pthread_mutex_unlock(&d->lock); }

/* ---- memory and copies (cuda_memory.c): the backend table's entries --------- */

wnn_status wnn__cu_mem_alloc(wnn__device *d, size_t bytes, void **ptr);
void wnn__cu_mem_free(wnn__device *d, void *ptr);
wnn_status wnn__cu_copy_to_device(wnn__device *d, void *dst, const void *src, size_t n);
wnn_status wnn__cu_copy_to_host(wnn__device *d, void *dst, const void *src, size_t n);
wnn_status wnn__cu_copy_on_device(wnn__device *d, void *dst, const void *src, size_t n);
wnn_status wnn__cu_fill_zero(wnn__device *d, void *dst, size_t n);
wnn_status wnn__cu_synchronize(wnn__device *d);
wnn_status wnn__cu_host_alloc(wnn__device *d, size_t bytes, void **ptr);
void wnn__cu_host_free(wnn__device *d, void *ptr);
wnn_status wnn__cu_host_register(wnn__device *d, void *ptr, size_t bytes);
void wnn__cu_host_unregister(wnn__device *d, void *ptr);

/* ---- graphs (cuda_graph.c): the backend table's entries ----------------------- */

wnn_status wnn__cu_graph_compile(wnn__device *d, struct wnn__allocator *alloc, const wnn__ir *ir, void **compiled);
void wnn__cu_graph_release(wnn__device *d, void *compiled);
wnn_status wnn__cu_graph_execute(wnn__device *d, void *compiled, void *const *inputs, void *const *outputs);

/* ---- compiled nodes (cuda_graph.c, ops_*.c) ----------------------------------- */

typedef struct wnn__cu_node wnn__cu_node;

/* What a node's run sees. */
typedef struct wnn__cu_exec {
    cudaStream_t stream;
    cublasHandle_t blas;
    void *const *ptr; /* per value id: its device pointer (NULL for none) */
    void *scratch;    /* the node's scratch in the arena (NULL if it asked none) */
    const void *aux;  /* the node's uploaded table (NULL if none) */
    void *dnn;        /* the device's cudnnHandle_t (NULL without cuDNN) */
    void *blas_workspace; /* the device's, WNN__CU_BLAS_WORKSPACE bytes, for cuBLASLt */
} wnn__cu_exec;

/* Queues the node's work on x->stream; records nothing else. */
typedef wnn_status (*wnn__cu_run_fn)(const wnn__cu_exec *x, const wnn__cu_node *n);

struct wnn__cu_node {
    const wnn__node *node;
    wnn__cu_run_fn run;  /* NULL: nothing to do (an alias) */
    void *plan;          /* the operator's plan, malloc'd (freed with the graph) */
    void (*release)(void *plan); /* what to undo in the plan before freeing it, or NULL */
    size_t scratch_bytes;
    void *aux_host;      /* a table to upload once (malloc'd; freed after upload) */
    size_t aux_bytes;
    bool alias;          /* output 0 may share input 0's memory (reshape, identity) */
    size_t alias_offset; /* at this byte offset into it (a contiguous slice or gather) */
    /* set by cuda_graph.c */
    size_t scratch_offset;
    void *aux;
    size_t aux_block;
};

/* (ops_table.c) Prepares n (n->node set, the rest zero) for ir.
** NOT_SUPPORTED when the operator or its data types have no CUDA kernel;
** OUT_OF_MEMORY. */
wnn_status wnn__cu_prepare(const wnn__ir *ir, wnn__cu_node *n);

/* (fusion.c) Fuses runs of consecutive element-wise float nodes into one
** kernel each: the last node of a run gets the fused program, the others no
** run. Values that then live only in registers get internal[v] = true;
** pos[n] becomes the index of the node whose run does node n's work (n
** itself when not fused), so that the memory planner keeps the run's inputs
** alive until it. internal and pos come in as false and identity. */
wnn_status wnn__cu_fuse(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* (ops_matmul.c) Folds into matmul nodes a transpose of an operand's last
** two axes read only by the matmul (cuBLAS reads the operand transposed)
** and a mul or div by a one-element constant of its only reader (cuBLAS's
** alpha; the matmul then runs at that node). internal and pos as for
** wnn__cu_fuse; fails only for OUT_OF_MEMORY. Called before it. */
wnn_status wnn__cu_matmul_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* (ops_attention.c) Runs the attention chains of ir (backends/attention.h)
** that the fused kernel takes as one kernel at the chain's last node; the
** chain's other nodes get no run, their results internal, pos the last
** node. Called before wnn__cu_matmul_fold. Fails only for OUT_OF_MEMORY. */
wnn_status wnn__cu_attention_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* (ops_elementwise.c) Runs gelu as exporters spell it, x * 0.5 * (1 +
** erf(x / sqrt(2))) (backends/gelu.h), as one gelu kernel at the chain's
** last node; the chain's other nodes get no run, their results internal,
** pos the last node. Called before wnn__cu_fuse. Fails only for
** OUT_OF_MEMORY. */
wnn_status wnn__cu_gelu_fold(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* ---- cuDNN (cuda_dnn.c) ---------------------------------------------------------- */

/* Moves conv2d nodes that cuDNN 9 takes onto it (libcudnn.so.9 is loaded
** on first use, never linked): algorithm chosen once here, workspace as
** the node's scratch. A conv2d whose output feeds only an add of a
** per-channel constant or of a tensor of the output's shape, then a relu
** (or clamp to [0, inf)), becomes one cudnnConvolutionBiasActivationForward
** run by the relu node; internal and pos as for wnn__cu_fuse. Nodes cuDNN
** refuses keep their plans; without cuDNN nothing changes. Fails only for
** OUT_OF_MEMORY. Called before wnn__cu_fuse. */
wnn_status wnn__cu_dnn_convs(wnn__device *d, const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* Lends the device's cuDNN handle, if any, back to the process's pool (the
** stream is idle). */
void wnn__cu_dnn_close(wnn__device *d);

#endif
