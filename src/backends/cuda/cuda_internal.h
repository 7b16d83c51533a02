/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_internal.h -- what cuda.c (devices, memory, graphs) and cuda_ops.c
** (one plan per operator) share.
**
** graph_compile asks cuda_ops.c to prepare every node: pick a launcher,
** precompute its plan, say how much scratch memory it needs in the arena
** and which small table (if any) must be uploaded once. graph_execute then
** resolves a device pointer for every value and calls each node's run.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_INTERNAL_H
#define WNN_BACKENDS_CUDA_CUDA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "core/ir.h"

typedef struct wnn__cu_node wnn__cu_node;

/* What a node's run sees. */
typedef struct wnn__cu_exec {
    cudaStream_t stream;
    cublasHandle_t blas;
    void *const *ptr; /* per value id: its device pointer (NULL for none) */
    void *scratch;    /* the node's scratch in the arena (NULL if it asked none) */
    const void *aux;  /* the node's uploaded table (NULL if none) */
} wnn__cu_exec;

/* Queues the node's work on x->stream; records nothing else. */
typedef wnn_status (*wnn__cu_run_fn)(const wnn__cu_exec *x, const wnn__cu_node *n);

struct wnn__cu_node {
    const wnn__node *node;
    wnn__cu_run_fn run;  /* NULL: nothing to do (an alias) */
    void *plan;          /* the operator's plan, malloc'd (freed with the graph) */
    size_t scratch_bytes;
    void *aux_host;      /* a table to upload once (malloc'd; freed after upload) */
    size_t aux_bytes;
    bool alias;          /* output 0 may share input 0's memory (reshape, identity) */
    /* set by cuda.c */
    size_t scratch_offset;
    void *aux;
    size_t aux_block;
};

/* Prepares n (n->node set, the rest zero) for ir. NOT_SUPPORTED when the
** operator or its data types have no CUDA kernel; OUT_OF_MEMORY. */
wnn_status wnn__cu_prepare(const wnn__ir *ir, wnn__cu_node *n);

/* Fuses runs of consecutive element-wise float nodes into one kernel each:
** the last node of a run gets the fused program, the others no run. Values
** that then live only in registers get internal[v] = true; pos[n] becomes
** the index of the node whose run does node n's work (n itself when not
** fused), so that the memory planner keeps the run's inputs alive until it.
** internal and pos come in as false and identity. */
wnn_status wnn__cu_fuse(const wnn__ir *ir, wnn__cu_node *nodes, bool *internal, uint32_t *pos);

/* A cudaError_t as a wnn status (OUT_OF_MEMORY or OPERATION_ERROR). */
wnn_status wnn__cu_status(cudaError_t e);

/* Element count of a descriptor (1 for a scalar). */
uint64_t wnn__cu_count(const wnn_operand_desc *d);

#endif
