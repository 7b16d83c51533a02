/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu_graph.h -- compiling and running an IR with the cpu kernels on host
** memory. The cpu backend uses it directly; the null backend uses it on its
** own (device-side) copies.
*/
#ifndef WNN_BACKENDS_CPU_CPU_GRAPH_H
#define WNN_BACKENDS_CPU_CPU_GRAPH_H

#include "core/ir.h"

typedef struct wnn__cpu_graph wnn__cpu_graph;

/* Plans ir (kept by pointer; it must outlive the compiled graph; the plan
** may be of its nhwc form, layout.h, whose value ids extend ir's) without
** an arena; fails with NOT_SUPPORTED when an operator has no cpu kernel. The
** device then binds an arena of wnn__cpu_graph_arena_size() bytes (its own)
** and, optionally, per-value constant pointers (constants[v] for each
** constant value v; NULL: the IR's own bytes). */
wnn_status wnn__cpu_graph_plan(const wnn__ir *ir, wnn__cpu_graph **out);
void wnn__cpu_graph_free(wnn__cpu_graph *g);
size_t wnn__cpu_graph_arena_size(const wnn__cpu_graph *g);
void wnn__cpu_graph_counts(const wnn__cpu_graph *g, uint32_t *n_inputs, uint32_t *n_outputs);
/* What g moves between layouts each run, for tests: transpose nodes it
** runs, and reorders its oneDNN primitives run (wnn__dnnl_node_reorders). */
void wnn__cpu_graph_census(const wnn__cpu_graph *g, uint32_t *transposes, uint32_t *reorders);
/* The element-wise chains g runs in one pass each (ew_chain.h), and the
** nodes they hold, for tests. */
void wnn__cpu_graph_chains(const wnn__cpu_graph *g, uint32_t *chains, uint32_t *nodes);
void wnn__cpu_graph_bind(wnn__cpu_graph *g, void *arena, void *const *constants);

/* Runs g with host pointers bound to the IR's inputs and outputs. Not
** reentrant for one g: calls on the same graph must not overlap. */
wnn_status wnn__cpu_graph_run(wnn__cpu_graph *g, void *const *inputs, void *const *outputs);

#endif
