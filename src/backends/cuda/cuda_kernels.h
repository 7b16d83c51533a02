/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_kernels.h -- the CUDA kernels of the cuda backend, as launchers
** callable from C.
**
** The host side (ops_*.c) plans each node once at compile time into one of
** the plain structs below; a launcher takes the plan by value, the device
** pointers and the stream, queues its kernel(s) and returns the launch
** status. Nothing here allocates, synchronizes or reads device memory
** on the host, so every launcher may be recorded into a CUDA graph.
**
** Element types are wnn_data_type values. float16 is stored as binary16 bits
** and computed in float32 (rounded once per result, to nearest even), so the
** results match the cpu backend's. Integer arithmetic wraps.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_KERNELS_H
#define WNN_BACKENDS_CUDA_CUDA_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "core/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WNN__CU_MAX_IN 3

/* ---- element-wise ---------------------------------------------------------- */

/* Up to three inputs broadcast against the output. After planning, size-1
** dimensions are gone and neighbours every input walks contiguously are
** merged, so same-shape inputs are one dimension. flat: every input is
** either contiguous like the output or a single element (bit k of
** scalar_mask), so the kernel walks plain (vectorized) arrays. */
typedef struct wnn__cu_bcast {
    uint32_t rank; /* >= 1 */
    uint32_t n_in;
    uint32_t shape[WNN_MAX_RANK];
    uint32_t stride[WNN__CU_MAX_IN][WNN_MAX_RANK]; /* in elements; 0 where broadcast */
    uint64_t count;                                /* output elements */
    uint32_t flat;
    uint32_t scalar_mask;
} wnn__cu_bcast;

/* add sub mul div max min pow (out: the input type), equal ... lesserOrEqual
** (out: uint8), logicalAnd/Or/Xor (uint8), prelu. t is the inputs' type. */
bool wnn__cu_binary_supported(wnn__op op, wnn_data_type t);
cudaError_t wnn__cu_binary(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_bcast *p, const void *a,
                           const void *b, void *out);

/* where: condition (uint8) ? t : f, copied as elements of elem_size bytes. */
cudaError_t wnn__cu_where(cudaStream_t s, uint32_t elem_size, const wnn__cu_bcast *p, const void *cond,
                          const void *t, const void *f, void *out);

/* One input, same shape out: abs neg exp log sqrt relu sigmoid tanh, the
** math of ceil ... softsign (with alpha and beta where they apply),
** isNaN and isInfinite (out: uint8), logicalNot. t is the input's type. */
bool wnn__cu_unary_supported(wnn__op op, wnn_data_type t);
cudaError_t wnn__cu_unary(cudaStream_t s, wnn__op op, wnn_data_type t, uint64_t n, double alpha, double beta,
                          const void *in, void *out);

/* clamp: lo/hi as doubles (NaN already replaced by -inf/+inf), and for the
** 64-bit integer types the exact bounds lo_bits/hi_bits. */
typedef struct wnn__cu_clamp {
    double lo, hi;
    uint64_t lo_bits, hi_bits;
} wnn__cu_clamp;
bool wnn__cu_clamp_supported(wnn_data_type t);
cudaError_t wnn__cu_clamp_run(cudaStream_t s, wnn_data_type t, uint64_t n, wnn__cu_clamp c, const void *in,
                              void *out);

/* cast between any two of the eight element types. */
bool wnn__cu_cast_supported(wnn_data_type from, wnn_data_type to);
cudaError_t wnn__cu_cast(cudaStream_t s, wnn_data_type from, wnn_data_type to, uint64_t n, const void *in,
                         void *out);

/* out[i] = (out type) (scale * in[i]) for a broadcast of c into gemm's
** output: copies src (strided, broadcast) times beta into dst. */
cudaError_t wnn__cu_scaled_broadcast(cudaStream_t s, wnn_data_type t, const wnn__cu_bcast *p, double beta,
                                     const void *src, void *dst);

/* quantizeLinear (quantize) and dequantizeLinear: input element i, at
** coordinates c[d], uses scale and zero point element sum(c[d] / block[d] *
** sstride[d]). float_type is the input's (quantize) or the scale's
** (dequantize); int_type the zero point's: int8, uint8, int32, uint32, or
** int4 and uint4 (packed two per byte, element 2k in the low nibble). */
typedef struct wnn__cu_quant {
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK], block[WNN_MAX_RANK];
    uint64_t sstride[WNN_MAX_RANK];
    uint64_t count;
} wnn__cu_quant;
bool wnn__cu_quantize_supported(wnn_data_type float_type, wnn_data_type int_type);
cudaError_t wnn__cu_quantize(cudaStream_t s, bool quantize, wnn_data_type float_type, wnn_data_type int_type,
                             const wnn__cu_quant *p, const void *x, const void *scale, const void *zero_point,
                             void *out);

/* A fused run of element-wise float operators: a small program run once
** per element. Values live in WNN__CU_FUSED_TEMPS temporaries; an operand
** below that number names a temporary, an operand k above it reads pointer
** k - WNN__CU_FUSED_TEMPS (its element 0 only when bit k of scalar_slots is
** set; element i % period when bit k of row_slots is: a row repeated along
** the last axis, such as a bias, period a multiple of
** WNN__CU_FUSED_ROW_ALIGN). COMPUTE applies op (a wnn__op) to operands a and b into temporary
** dst; STORE writes temporary dst to pointer a (element 0 only when b is 1).
** float16 rounds every result to binary16, as separate kernels would.
** An operand WNN__CU_FUSED_PRE + k names pointer pre_slot[k], which the
** kernel reads for all of its elements before the program runs, so that
** those loads are in flight together (fusion.c assigns them). */
#define WNN__CU_FUSED_MAX_OPS 64
#define WNN__CU_FUSED_TEMPS 4
#define WNN__CU_FUSED_MAX_PTRS 48
#define WNN__CU_FUSED_ROW_ALIGN 8
#define WNN__CU_FUSED_PRE 128
#define WNN__CU_FUSED_MAX_PRE 4
enum { WNN__CU_FUSED_COMPUTE, WNN__CU_FUSED_STORE };
typedef struct wnn__cu_fused_op {
    uint8_t kind, op, dst, a, b;
} wnn__cu_fused_op;
typedef struct wnn__cu_fused {
    uint64_t count;
    uint64_t scalar_slots, row_slots;
    uint32_t n_ops;
    uint32_t half;
    uint32_t period;
    uint32_t n_pre;
    uint8_t pre_slot[WNN__CU_FUSED_MAX_PRE];
    wnn__cu_fused_op ops[WNN__CU_FUSED_MAX_OPS];
    const void *ptr[WNN__CU_FUSED_MAX_PTRS];
} wnn__cu_fused;
/* Whether op can be part of a fused run. */
bool wnn__cu_fusible(wnn__op op);
cudaError_t wnn__cu_fused_run(cudaStream_t s, const wnn__cu_fused *p);

/* ---- data movement ----------------------------------------------------------- */

/* dst[out_offset(i)] = src[in_offset(i)] for every index i of shape, offsets
** in elements (strides may be 0 or negative; src and dst point at the base). */
typedef struct wnn__cu_strided {
    uint32_t rank; /* >= 1 */
    uint32_t shape[WNN_MAX_RANK];
    int64_t src_stride[WNN_MAX_RANK];
    int64_t dst_stride[WNN_MAX_RANK];
    uint64_t count;
} wnn__cu_strided;
cudaError_t wnn__cu_copy_strided(cudaStream_t s, uint32_t elem_size, const wnn__cu_strided *p, const void *src,
                                 void *dst);

/* rows rows of row_bytes bytes, src_pitch and dst_pitch apart (concat, split). */
cudaError_t wnn__cu_copy_rows(cudaStream_t s, uint64_t rows, uint64_t row_bytes, uint64_t src_pitch,
                              uint64_t dst_pitch, const void *src, void *dst);

/* The output walked in order reads, per dimension d, input offset
** table[table_at[d] + coordinate] (in elements), or the fill value when any
** dimension's entry is negative (pad, tile, and the like). */
typedef struct wnn__cu_index_map {
    uint32_t rank; /* >= 1 */
    uint32_t shape[WNN_MAX_RANK];
    uint32_t table_at[WNN_MAX_RANK];
    uint64_t count;
    uint64_t fill; /* the fill element's bytes */
} wnn__cu_index_map;
cudaError_t wnn__cu_index_map_run(cudaStream_t s, uint32_t elem_size, const wnn__cu_index_map *p,
                                  const int64_t *table, const void *src, void *dst);

/* triangular over the last two dimensions [h, w]. */
cudaError_t wnn__cu_triangular(cudaStream_t s, uint32_t elem_size, uint64_t count, uint32_t h, uint32_t w,
                               bool upper, int32_t diagonal, const void *src, void *dst);

/* gather along an axis: out [outer, n_idx, inner] from in [outer, axis_len,
** inner]; index_type int32, uint32 or int64; negative indices count from the
** end and out-of-range ones are clamped. */
typedef struct wnn__cu_gather {
    uint64_t outer, inner, n_idx, count;
    uint32_t axis_len;
} wnn__cu_gather;
cudaError_t wnn__cu_gather_run(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                               const wnn__cu_gather *p, const void *in, const void *idx, void *out);

/* gatherElements (scatter = false) and scatterElements (scatter = true):
** indices [outer, idx_axis, inner] index input's axis [outer, in_axis,
** inner]. scatterElements expects out to hold a copy of input already and
** uses winner (count int32 of scratch) so that the last update of an element
** in row-major order wins, as on the cpu. */
typedef struct wnn__cu_elements {
    uint64_t outer, inner, count; /* count: elements of indices */
    uint32_t idx_axis, in_axis;
} wnn__cu_elements;
cudaError_t wnn__cu_gather_elements(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                    const wnn__cu_elements *p, const void *in, const void *idx, void *out);
cudaError_t wnn__cu_scatter_elements(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                     const wnn__cu_elements *p, const void *idx, const void *updates, void *out,
                                     int32_t *winner, uint64_t out_count);

/* gatherND / scatterND: n_slices index tuples of k coordinates select slices
** of slice elements from (into) input of shape dims[0..k). */
typedef struct wnn__cu_nd {
    uint32_t k;
    uint32_t dims[WNN_MAX_RANK];
    uint64_t strides[WNN_MAX_RANK]; /* elements per step of dims[d] */
    uint64_t n_slices, slice;
} wnn__cu_nd;
cudaError_t wnn__cu_gather_nd(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type, const wnn__cu_nd *p,
                              const void *in, const void *idx, void *out);
cudaError_t wnn__cu_scatter_nd(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type, const wnn__cu_nd *p,
                               const void *idx, const void *updates, void *out, int32_t *winner,
                               uint64_t out_count);

/* ---- along axes ---------------------------------------------------------------- */

/* softmax over [outer, len, inner] around the axis; float32 and float16. */
cudaError_t wnn__cu_softmax(cudaStream_t s, wnn_data_type t, uint64_t outer, uint32_t len, uint64_t inner,
                            const void *in, void *out);
/* The same over contiguous rows (inner 1) of up to 256 16-byte vectors held
** in registers (kernels_rows.cu), for the shapes and pointers _fits accepts. */
bool wnn__cu_softmax_rows_fits(wnn_data_type t, uint32_t len, uint64_t inner, const void *in, const void *out);
cudaError_t wnn__cu_softmax_rows(cudaStream_t s, wnn_data_type t, uint64_t rows, uint32_t len, const void *in,
                                 void *out);

/* Reductions: each output reads the elements at base(kept index) +
** offset(reduced index); kept and reduced dimensions are merged where
** contiguous. */
typedef struct wnn__cu_reduce {
    uint32_t kept_rank, red_rank;
    uint32_t kept_shape[WNN_MAX_RANK], red_shape[WNN_MAX_RANK];
    uint64_t kept_stride[WNN_MAX_RANK], red_stride[WNN_MAX_RANK];
    uint64_t n_out, n_red;
} wnn__cu_reduce;
bool wnn__cu_reduce_supported(wnn__op op, wnn_data_type t);
cudaError_t wnn__cu_reduce_run(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_reduce *p,
                               const void *in, void *out);

/* argMin/argMax and cumulativeSum over [outer, len, inner]. */
cudaError_t wnn__cu_arg_min_max(cudaStream_t s, bool is_max, wnn_data_type t, wnn_data_type out_type,
                                uint64_t outer, uint32_t len, uint64_t inner, const void *in, void *out);
bool wnn__cu_cumsum_supported(wnn_data_type t);
cudaError_t wnn__cu_cumsum(cudaStream_t s, wnn_data_type t, uint64_t outer, uint32_t len, uint64_t inner,
                           bool exclusive, bool reversed, const void *in, void *out);

/* Normalization over groups: group g is the elements base(g) + offset(r)
** of a reduction plan, r = 0 .. n_red - 1. Mean and variance are computed in
** double; each element becomes (x - mean) / sqrt(var + eps) * scale + bias,
** scale and bias (NULL: 1 and 0) taken at index r (layerNormalization, whose
** reduced dimensions are planned in the order of its axes) or at the group's
** channel (g / chan_div) % channels (instanceNormalization, by_channel). */
typedef struct wnn__cu_norm {
    wnn__cu_reduce r;
    double epsilon;
    uint32_t by_channel;
    uint64_t chan_div, channels;
} wnn__cu_norm;
cudaError_t wnn__cu_normalize(cudaStream_t s, wnn_data_type t, const wnn__cu_norm *p, const void *in,
                              const void *scale, const void *bias, void *out);
/* The same over contiguous rows of up to 256 16-byte vectors held in
** registers (kernels_rows.cu), for the plans and pointers _fits accepts. */
bool wnn__cu_norm_rows_fits(wnn_data_type t, const wnn__cu_norm *p, const void *in, const void *scale,
                            const void *bias, const void *out);
cudaError_t wnn__cu_norm_rows(cudaStream_t s, wnn_data_type t, const wnn__cu_norm *p, const void *in,
                              const void *scale, const void *bias, void *out);

/* batchNormalization: element i uses channel (i / inner) % channels. */
cudaError_t wnn__cu_batch_norm(cudaStream_t s, wnn_data_type t, uint64_t count, uint64_t inner,
                               uint64_t channels, double epsilon, const void *in, const void *mean,
                               const void *var, const void *scale, const void *bias, void *out);

/* ---- spatial ----------------------------------------------------------------------- */

/* conv2d and convTranspose2d with the filter in OIHW (conv2d) or IOHW
** (transpose) order, input and output in NCHW or NHWC; float32 and float16,
** accumulating in float32. */
typedef struct wnn__cu_conv {
    uint32_t n, c_in, h_in, w_in, c_out, h_out, w_out, kh, kw;
    uint32_t groups;
    uint32_t stride[2], dilation[2], pad_top, pad_left;
    uint32_t nhwc;
    uint32_t transpose;
    /* filter element (o, i, y, x) is at o * f_stride[0] + i * f_stride[1] +
    ** y * f_stride[2] + x * f_stride[3]; for the transpose o and i are the
    ** filter's own output (per group) and input channels */
    uint64_t f_stride[4];
} wnn__cu_conv;
cudaError_t wnn__cu_conv2d(cudaStream_t s, wnn_data_type t, const wnn__cu_conv *p, const void *in,
                           const void *filter, const void *bias, void *out);

/* The epilogue of a convolution run apart from it: y = y + bias[channel] +
** z, then relu (x < 0 ? 0 : x) when asked, in place; bias (one per channel)
** and z (like y) may be NULL. Element i's channel is (i / inner) % channels
** (inner: h * w for nchw, 1 for nhwc). float32 and float16. */
cudaError_t wnn__cu_conv_epilogue(cudaStream_t s, wnn_data_type t, uint64_t count, uint32_t channels,
                                  uint32_t inner, const void *bias, const void *z, bool relu, void *y);

/* im2col for conv2d through a matrix product: cols[(n - n0) * P + p][k] for
** images [n0, n0 + images), P = h_out * w_out output pixels, k = (ic * kh +
** ky) * kw + kx over all input channels (groups must be 1); 0 where the tap
** falls in the padding. */
cudaError_t wnn__cu_im2col(cudaStream_t s, wnn_data_type t, const wnn__cu_conv *p, uint32_t n0, uint32_t images,
                           const void *in, void *cols);

typedef struct wnn__cu_pool {
    uint32_t n, c, h_in, w_in, h_out, w_out;
    uint32_t window[2], stride[2], dilation[2], pad_top, pad_left;
    uint32_t nhwc;
} wnn__cu_pool;
bool wnn__cu_pool_supported(wnn__op op, wnn_data_type t);
cudaError_t wnn__cu_pool2d(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_pool *p, const void *in,
                           void *out);

/* resample2d: output index j of dimension d reads taps[table_at[d] + j]
** (nearest: lo only; linear: lo and hi blended by w, on the two resized
** axes). The tables are built on the host exactly as the cpu builds them. */
typedef struct wnn__cu_tap {
    uint32_t lo, hi;
    float w;
} wnn__cu_tap;
typedef struct wnn__cu_resample {
    uint32_t shape_in[4], shape_out[4];
    uint32_t table_at[4];
    uint32_t axes[2];
    uint32_t linear;
    uint64_t count;
} wnn__cu_resample;
bool wnn__cu_resample_supported(wnn_data_type t);
cudaError_t wnn__cu_resample2d(cudaStream_t s, wnn_data_type t, const wnn__cu_resample *p,
                               const wnn__cu_tap *taps, const void *in, void *out);

/* ---- recurrent networks -------------------------------------------------------------- */

/* The element-wise parts of one gru or lstm step, in float32 on [batch,
** hidden] states; the matrix products around them go through cuBLAS. gx and
** gh are [batch, gates * hidden] (input and state products); b, rb and
** peephole may be NULL (zero). act holds wnn_recurrent_activation values. */
typedef struct wnn__cu_rnn {
    uint32_t batch, hidden, layout, reset_after;
    uint32_t act[3];
} wnn__cu_rnn;
/* gru, first half: r = act0(...); with reset_after gh's new gate becomes
** r * (rb + gh), else rh = r * h (for the product that follows). */
/* ---- attention (kernels_attention.cu) ------------------------------------ */

/* An attention chain (backends/attention.h): out = softmax(scale * q kt +
** mask) v per batch, every operand through element strides (its batch
** axes, then its two matrix axes; 0 where it broadcasts). */
typedef struct wnn__cu_attention {
    uint32_t batch_rank;
    uint32_t batch[WNN_MAX_RANK];
    uint32_t batches, m, n, d, e;
    float scale;
    int64_t q[WNN_MAX_RANK], kt[WNN_MAX_RANK], v[WNN_MAX_RANK], mask[WNN_MAX_RANK], out[WNN_MAX_RANK];
} wnn__cu_attention;
/* Whether the fused kernel takes p for elements of type t (float16, equal
** widths of 16, 32, 48, 64, 80, 96 or 128). */
bool wnn__cu_attention_supported(const wnn__cu_attention *p, wnn_data_type t);
/* mask may be NULL. */
cudaError_t wnn__cu_attention_run(cudaStream_t s, const wnn__cu_attention *p, const void *q, const void *kt,
                                  const void *v, const void *mask, void *out);

cudaError_t wnn__cu_gru_reset(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, float *gh, const float *b,
                              const float *rb, const float *h, float *rh);
/* gru, second half: h_new = z * h + n * (1 - z); also into seq when not NULL. */
cudaError_t wnn__cu_gru_output(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, const float *gh,
                               const float *b, const float *rb, const float *h, float *h_new, float *seq);
/* lstm: c_new and h_new (and h_new into seq when not NULL). */
cudaError_t wnn__cu_lstm_step(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, const float *gh,
                              const float *b, const float *rb, const float *peephole, const float *c, float *h_new,
                              float *c_new, float *seq);

#ifdef __cplusplus
}
#endif

#endif
