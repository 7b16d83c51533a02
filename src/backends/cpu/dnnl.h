/* SPDX-License-Identifier: Apache-2.0 */
/*
** dnnl.h -- the cpu backend's oneDNN path: convolutions (and transposed ones,
** as oneDNN's deconvolutions) compiled once per graph into oneDNN primitives,
** with the batchNormalization, residual add and activation that follow them
** folded in.
**
** oneDNN is loaded with dlopen (libdnnl.so.2) the first time a graph asks for
** it, so neither libwnn nor the programs that link it depend on it; where the
** library or its headers are missing, or WNN_CPU_DNNL=0 is set, every node
** runs on the portable kernels, which stay the reference the tests compare
** against.
*/
#ifndef WNN_BACKENDS_CPU_DNNL_H
#define WNN_BACKENDS_CPU_DNNL_H

#include "backends/cpu/kernels.h"

/* Built in when Debian's libdnnl-dev headers are found, unless WNN_NO_DNNL
** is defined (CMake: -DWNN_WITH_DNNL=OFF) or a sanitizer instruments the
** build: ThreadSanitizer cannot see the ordering inside the uninstrumented
** OpenMP runtime, and LeakSanitizer's exit-time scan crashes on its idle
** threads (gcc and clang, whose fuzz builds use ASan). Sanitizer builds test
** the portable kernels. */
#if defined(__has_feature) /* clang says it this way */
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WNN_NO_DNNL 1
#endif
#endif
#if defined(__has_include) && !defined(WNN_NO_DNNL) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
#if __has_include(<oneapi/dnnl/dnnl.h>)
#define WNN_HAVE_DNNL 1
#endif
#endif

typedef struct wnn__dnnl_node wnn__dnnl_node;

/* Compiles node n of ir, with the nodes after it that fold into it, into a
** oneDNN primitive. uses[v] counts the node inputs that read value v, and
** is_output[v] says whether v is a graph output; earlier[m] for m < n are
** the nodes compiled before it (NULL where none), whose layouts it may
** follow. On success *out is the
** compiled node and fused[] marks (true) the later nodes it computes; its
** result is written to the value wnn__dnnl_node_output() names. *out is NULL
** (and WNN_OK returned) when oneDNN is absent or does not take the node. */
wnn_status wnn__dnnl_compile(const wnn__ir *ir, uint32_t n, const uint32_t *uses, const bool *is_output,
                             bool *fused, wnn__dnnl_node *const *earlier, wnn__dnnl_node **out);

/* Whether wnn__dnnl_compile would make node n of ir a primitive: a float32 or
** float16 conv2d with constant filter and bias and a shape oneDNN 2.6 computes
** right, or such a convTranspose2d with 8 or more output channels a group
** (or one channel in and out a group), and oneDNN loaded. (A shape oneDNN
** then refuses still falls back.) */
bool wnn__dnnl_takes(const wnn__ir *ir, uint32_t n);

/* Reorders the compiled node runs per run: into and out of oneDNN's layout
** (none for a value linked or already in it), and of a sum post-op's addend. */
uint32_t wnn__dnnl_node_reorders(const wnn__dnnl_node *d);

/* Whether XNNPACK runs the compiled node (xnnpack.h) rather than oneDNN. */
bool wnn__dnnl_node_xnnpack(const wnn__dnnl_node *d);

/* The value the compiled node writes (the last of its fused chain). */
uint32_t wnn__dnnl_node_output(const wnn__dnnl_node *d);

/* Runs the compiled node over views[] (indexed by value id). Not reentrant
** for one node. */
wnn_status wnn__dnnl_run(wnn__dnnl_node *d, const wnn__view *views);

/* After every node is compiled (nodes[n] per node, NULL where none): a value
** that one primitive writes and only primitives read, each in the layout the
** writer produces (oneDNN's blocked one, where it differs from the graph's),
** stays in that layout, so the reorders on both sides are skipped. bytes[v]
** becomes the size of each such value (it may exceed the plain size: blocked
** channels are padded); other entries are left as they are. Graph outputs
** and float16 nodes are never linked. Falls back to no linking when out of
** memory. */
void wnn__dnnl_link(const wnn__ir *ir, wnn__dnnl_node *const *nodes, size_t *bytes);

void wnn__dnnl_free(wnn__dnnl_node *d);

/* C = alpha * op(A) op(B) + beta * C, row-major, through oneDNN's sgemm, on
** the thread's share of the OpenMP team (wnn__pool_threads_here). Returns
** false, doing nothing, when oneDNN is absent or the pool runs on wnn's own
** threads (platform/pool.c); the caller then uses OpenBLAS, whose threads
** are its own. */
bool wnn__dnnl_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                     const float *b, size_t ldb, float beta, float *c, size_t ldc);

#endif
