/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl.h -- WGSL generation for one graph node.
**
** Every buffer is an array<u32>: elements narrower than a word (float16,
** int8, uint8) are packed, so a kernel works in output words: invocation w
** computes the 4/size elements of word w and stores the word whole (no two
** invocations write one word). float16 is unpacked to f32 and packed back
** (unpack2x16float, with overflow to infinity done by hand), int8/uint8 are
** computed as i32/u32. Shapes and strides are baked into the text (a
** pipeline serves one node shape; identical texts share one pipeline); float
** attributes come from a small parameter buffer, because WGSL constant
** expressions may not hold infinities.
*/
#ifndef WNN_BACKENDS_WEBGPU_WG_WGSL_H
#define WNN_BACKENDS_WEBGPU_WG_WGSL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ir.h"

#define WG_WORKGROUP 256
/* Inputs a kernel binds: lstm has 8, so with the output and the parameters
** 10 storage buffers, over WebGPU's default limit of 8 (the device asks for
** the adapter's own limits; a kernel over them fails its build). */
#define WG_MAX_INPUTS 8

typedef struct wg_text {
    char *s;
    size_t n, cap;
    bool failed; /* out of memory */
} wg_text;

void wg_text_printf(wg_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* One kernel of a node: bindings are the output (0), inputs 1..n_in, and
** the parameters (n_in + 1) when uses_params. */
typedef struct wg_kernel {
    wg_text text;
    uint32_t out_slot;     /* which of the node's outputs it writes (split) */
    uint32_t out_value;    /* that output's value id */
    uint32_t n_in;
    uint32_t in_values[WG_MAX_INPUTS]; /* value ids bound to 1..n_in */
    bool uses_params;
    float params[8];
    uint32_t n_params;
    uint64_t words; /* output words, one invocation each (lanes each, when lanes > 1) */
    uint32_t lanes; /* 0 or 1: a word an invocation; 4: a vec4<u32> of words */
    /* Splitting over the binding-size limit (wg_graph.c): a chunk kernel
    ** (chunk_words > 0) writes output words [chunk_word, chunk_word +
    ** chunk_words), its output bound from chunk_word on. An element-wise
    ** kernel sets, in identity_mask, bit i for each input i + 1 it reads at
    ** the output's own element index: those are bound from the same element
    ** on; every other input is bound whole. windowed: wg_frame_end honoured
    ** the chunk (a kernel of one invocation per output word that reads no
    ** output element), so the chunk kernel is valid. */
    uint32_t identity_mask;
    bool windowed;
    uint64_t chunk_word, chunk_words;
    /* workgroups of a kernel that sets its own grid (the tiled product);
    ** all 0: one 256-invocation workgroup per 256 words */
    uint32_t grid[3];
} wg_kernel;

/* What the device offers that kernels may use (NULL: nothing beyond
** WebGPU's core). f16: the device has shader-f16 (and WNN_WEBGPU_F16 is not
** 0), so the tiled product binds float16 operands as array<f16> or
** array<vec4<f16>> and stores single halves: any N for float16 matmul and
** gemm, and float16 conv2d, run tiled. The product is still computed in f32. */
typedef struct wg_caps {
    bool f16;
} wg_caps;

/* Kernels for node n (concat makes one per input, split and the recurrent
** operators one per output, others one); returns the count, 0 when the node has no kernel (why says
** which rule). kernels has room for max entries. */
uint32_t wg_wgsl_node(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *kernels, uint32_t max,
                      char *why, size_t why_len);

/* Clears k for another try at its node, keeping the chunk it is for. */
void wg_kernel_clear(wg_kernel *k);

/* The kernel of node n for one chunk of its output, whose fields
** chunk_word and chunk_words the caller sets (the rest is cleared). False
** when the node has no such kernel: several kernels (concat, split, the
** recurrent operators), a kernel that reads its own output (concat's
** regions), 64-bit outputs, or only a kernel of its own main() (the tiled
** product and the vec4 kernels give way to their loops for a chunk). */
bool wg_wgsl_chunk(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k);

/* ---- writing kernels (wg_wgsl.c; used by the operator files) -------------- */

/* Elements per u32 word, and the WGSL type elements are computed in. */
uint32_t wg_per_word(wnn_data_type d);
const char *wg_ctype(wnn_data_type d);
bool wg_is_float(wnn_data_type d);
/* int64 and uint64: computed as vec2<u32> (low, high), two words each. */
bool wg_is64(wnn_data_type d);
/* fn ld<k>(i: u32) -> ctype: element i of binding k. */
void wg_emit_load(wg_text *t, uint32_t k, wnn_data_type d);

/* A kernel being written: wg_frame_begin declares the bindings (the
** output k->out_slot of n, then ins), the helpers, pk() and ld1..ldN; the
** caller writes fn val(e: u32) -> ctype(out) giving output element e, then
** wg_frame_end writes main(). keep (a WGSL bool of e, or NULL) marks
** elements the kernel must leave as they are. */
typedef struct wg_frame {
    const wnn__ir *ir;
    const wnn__node *n;
    wg_kernel *k;
    wnn_data_type out;
    uint64_t count;
} wg_frame;
void wg_frame_begin(wg_frame *f, wg_kernel *k, const wnn__ir *ir, const wnn__node *n, const uint32_t *ins,
                    uint32_t n_in);
void wg_frame_end(wg_frame *f, const char *keep);
/* A float attribute in the parameter buffer: its index in prm[]. */
uint32_t wg_param(wg_kernel *k, double v);
/* "var t_ = from; var i<s> = base[s];" then, over the coordinates of dims
** (rank r, row-major), i<s> += coordinate * strides[s][d]. */
void wg_emit_walk(wg_text *t, const char *from, uint32_t r, const uint32_t *dims, uint32_t n_src,
                  const uint32_t *base, uint32_t strides[][WNN_MAX_RANK]);
/* Row-major strides of in broadcast to out_dims (rank r): 0 on size-1 axes. */
void wg_broadcast_strides(const wnn_operand_desc *in, uint32_t r, const uint32_t *out_dims, uint32_t *st);

/* The tiled float32 product (wg_wgsl_tile.c). The caller writes, before
** wg_emit_tile, its bindings and
**   fn setup(z: u32)             per workgroup: batch z's bases (private vars)
**   fn la(m: u32, k: u32) -> f32 and fn lb(k: u32, n: u32) -> f32
**                                an element of A or B, called only in bounds;
**   fn la4 / fn lb4 -> vec4<f32> instead, where a_vec4 / b_vec4: 4 elements
**                                consecutive along k or along m (n), as
**                                a_along_m / b_along_k say, the dimension
**                                along which they run a multiple of 4;
**   fn so(m: u32, n: u32, v: f32) stores one output (the epilogue), or
**   fn so4(m, n, v: vec4<f32>)   4 outputs along n where out_vec4 (N % 4 == 0),
**   fn so2(m, n, v: vec2<f32>)   or 2 (one packed float16 word) where out_pairs
**                                (N even, the output's first element even).
** a_along_m / b_along_k also say which way memory runs for scalar loads. */
typedef struct wg_tile {
    uint32_t M, N, K, batch;
    bool a_along_m, a_vec4, b_along_k, b_vec4, out_vec4, out_pairs;
    uint32_t r;       /* set by wg_tile_plan: 1 (64x64 blocks) or 2 (128x128) */
    uint32_t grid[3]; /* set by wg_tile_plan */
} wg_tile;
/* Chooses the block size and grid; false when the grid exceeds max_groups
** a dimension (or the product is empty): the caller uses its plain kernel. */
bool wg_tile_plan(wg_tile *p, uint32_t max_groups);
void wg_emit_tile(wg_text *t, const wg_tile *p);

/* The operator files: each returns the node's kernel count (0: none, with
** why) like wg_wgsl_node, for the operators it owns. */
/* The WGSL helper functions every kernel may call (WGSL drops the unused
** ones), for a kernel that writes its own preamble. */
extern const char *const wg_helpers;
/* reductions, argMin/argMax, softmax (wg_wgsl_reduce.c): true with one
** kernel written. */
bool wg_wgsl_reduce(const wnn__ir *ir, const wnn__node *n, wg_kernel *k);
/* matmul and gemm (wg_wgsl_matmul.c): true with one kernel written. */
bool wg_wgsl_matmul(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k);
uint32_t wg_wgsl_conv(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k, char *why,
                      size_t why_len);
/* Native float16 operands of the tiled product (caps->f16): "enable f16;"
** must open the module; an element of an array<f16> binding is read as
** f32(b[i]) and stored as wg_f16_store's expression (h16's rounding and
** overflow, one half). */
#define WG_ENABLE_F16 "enable f16;\n"
#define WG_F16_STORE "bitcast<vec2<f16>>(h16(%s)).x"

uint32_t wg_wgsl_norm(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, char *why, size_t why_len);
uint32_t wg_wgsl_data(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, uint32_t max, char *why,
                      size_t why_len);
uint32_t wg_wgsl_rnn(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, uint32_t max, char *why, size_t why_len);

#endif
