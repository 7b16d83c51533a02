/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_rows.cu -- layerNormalization and softmax over contiguous rows
** held in registers: one warp per row, each lane loading its share in
** 16-byte vectors once, so the row is read from memory once and written
** once (kernels_reduce.cu's general kernels read it two or three times, an
** element at a time). layerNormalization sums a lane's elements in float
** and across lanes in double, mean and variance in double like the cpu's;
** softmax works in float as the general kernel does. wnn__cu_normalize and
** wnn__cu_softmax hand over the shapes these take.
*/
#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

template <typename A> __device__ __forceinline__ A warp_sum(A v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

/* The largest of v across the warp; NaN wins, as in the general kernel. */
__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float o = __shfl_xor_sync(0xffffffffu, v, off);
        v = o > v || o != o ? o : v;
    }
    return v;
}

/* Loads lane's share of row x (len elements, a multiple of V) into v: vector
** lane + 32 k in v[k], fill where the row has no such vector. */
template <typename T, int VECS, int V>
__device__ __forceinline__ void load_row(float (&v)[VECS][V], const T *x, uint32_t nvec, uint32_t lane, float fill)
{
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        const uint32_t j = lane + 32u * k;
        T e[V];
        if (j < nvec)
            vload<T, V>(e, x + (uint64_t)j * V);
#pragma unroll
        for (int i = 0; i < V; i++)
            v[k][i] = j < nvec ? load_f(e, i) : fill;
    }
}

/* softmax of rows of len elements: the maximum first, so exp cannot
** overflow, then exp(x - max) / sum. */
template <typename T, int VECS>
__global__ void softmax_rows_reg(const T *__restrict__ in, T *__restrict__ out, uint64_t rows, uint32_t len)
{
    constexpr int V = 16 / sizeof(T);
    const uint32_t lane = threadIdx.x % 32, nvec = len / V;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t r = (uint64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
        float v[VECS][V];
        load_row<T, VECS, V>(v, in + r * len, nvec, lane, -INFINITY);
        float m = -INFINITY;
#pragma unroll
        for (int k = 0; k < VECS; k++)
#pragma unroll
            for (int i = 0; i < V; i++)
                m = v[k][i] > m || v[k][i] != v[k][i] ? v[k][i] : m;
        m = warp_max(m);
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < VECS; k++)
            if (lane + 32u * k < nvec) {
#pragma unroll
                for (int i = 0; i < V; i++) {
                    v[k][i] = expf(v[k][i] - m);
                    sum += v[k][i];
                }
            }
        sum = warp_sum(sum);
        T *y = out + r * len;
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const uint32_t j = lane + 32u * k;
            if (j >= nvec)
                continue;
            T o[V];
#pragma unroll
            for (int i = 0; i < V; i++)
                store_f(o, i, v[k][i] / sum);
            vstore<T, V>(y + (uint64_t)j * V, o);
        }
    }
}

/* Rows of len elements (a multiple of the vector width), VECS 16-byte
** vectors per lane at most. */
template <typename T, int VECS>
__global__ void layer_norm_rows(const T *__restrict__ in, const T *__restrict__ scale, const T *__restrict__ bias,
                                T *__restrict__ out, uint64_t rows, uint32_t len, double epsilon)
{
    constexpr int V = 16 / sizeof(T);
    const uint32_t lane = threadIdx.x % 32, nvec = len / V;
    const uint64_t warps = (uint64_t)gridDim.x * (blockDim.x / 32);
    for (uint64_t r = (uint64_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
        float v[VECS][V];
        load_row<T, VECS, V>(v, in + r * len, nvec, lane, 0.0f);
        float part = 0.0f;
#pragma unroll
        for (int k = 0; k < VECS; k++)
#pragma unroll
            for (int i = 0; i < V; i++)
                part += v[k][i];
        const double mean = warp_sum((double)part) / len;
        const float mf = (float)mean;
        part = 0.0f;
#pragma unroll
        for (int k = 0; k < VECS; k++)
            if (lane + 32u * k < nvec) {
#pragma unroll
                for (int i = 0; i < V; i++) {
                    const float d = v[k][i] - mf;
                    part += d * d;
                }
            }
        const float inv = (float)(1.0 / sqrt(warp_sum((double)part) / len + epsilon));
        T *y = out + r * len;
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const uint32_t j = lane + 32u * k;
            if (j >= nvec)
                continue;
            T s[V], b[V], o[V];
            if (scale)
                vload<T, V>(s, scale + (uint64_t)j * V);
            if (bias)
                vload<T, V>(b, bias + (uint64_t)j * V);
#pragma unroll
            for (int i = 0; i < V; i++) {
                float w = (v[k][i] - mf) * inv;
                if (scale)
                    w *= load_f(s, i);
                if (bias)
                    w += load_f(b, i);
                store_f(o, i, w);
            }
            vstore<T, V>(y + (uint64_t)j * V, o);
        }
    }
}

/* Launches KERNEL<T, VECS> over rows, eight rows (warps) a block, with the
** fewest vectors per lane that hold a row of len elements. */
#define WNNCU_LAUNCH_ROWS(KERNEL, T, rows, len, ...)                                                  \
    do {                                                                                              \
        constexpr int V_ = 16 / sizeof(T);                                                            \
        if (!(rows))                                                                                  \
            return cudaSuccess;                                                                       \
        const uint32_t per_lane_ = ((len) / V_ + 31) / 32;                                            \
        const uint64_t b_ = ((rows) + 7) / 8;                                                         \
        const unsigned blocks_ = b_ > (1u << 20) ? (1u << 20) : (unsigned)b_;                         \
        if (per_lane_ <= 1)                                                                           \
            KERNEL<T, 1><<<blocks_, 256, 0, s>>>(__VA_ARGS__);                                        \
        else if (per_lane_ <= 2)                                                                      \
            KERNEL<T, 2><<<blocks_, 256, 0, s>>>(__VA_ARGS__);                                        \
        else if (per_lane_ <= 4)                                                                      \
            KERNEL<T, 4><<<blocks_, 256, 0, s>>>(__VA_ARGS__);                                        \
        else                                                                                          \
            KERNEL<T, 8><<<blocks_, 256, 0, s>>>(__VA_ARGS__);                                        \
        return cudaGetLastError();                                                                    \
    } while (0)

template <typename T>
cudaError_t launch_norm(cudaStream_t s, uint64_t rows, uint32_t len, double epsilon, const void *in,
                        const void *scale, const void *bias, void *out)
{
    WNNCU_LAUNCH_ROWS(layer_norm_rows, T, rows, len, (const T *)in, (const T *)scale, (const T *)bias, (T *)out, rows,
                      len, epsilon);
}

template <typename T> cudaError_t launch_softmax(cudaStream_t s, uint64_t rows, uint32_t len, const void *in, void *out)
{
    WNNCU_LAUNCH_ROWS(softmax_rows_reg, T, rows, len, (const T *)in, (T *)out, rows, len);
}

/* Rows of whole 16-byte vectors, at most 8 a lane. */
bool row_fits(wnn_data_type t, uint64_t len)
{
    const uint64_t v = t == WNN_DATA_TYPE_FLOAT16 ? 8 : 4;
    return (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) && len % v == 0 && len <= 32 * 8 * v;
}

} // namespace

extern "C" bool wnn__cu_norm_rows_fits(wnn_data_type t, const wnn__cu_norm *p, const void *in, const void *scale,
                                       const void *bias, const void *out)
{
    const wnn__cu_reduce *r = &p->r;
    if (!row_fits(t, r->n_red) || p->by_channel || r->red_rank != 1 || r->red_stride[0] != 1 || r->kept_rank > 1 ||
        (r->kept_rank == 1 && r->kept_stride[0] != r->n_red))
        return false;
    return aligned16(in) && aligned16(out) && (!scale || aligned16(scale)) && (!bias || aligned16(bias));
}

extern "C" cudaError_t wnn__cu_norm_rows(cudaStream_t s, wnn_data_type t, const wnn__cu_norm *p, const void *in,
                                         const void *scale, const void *bias, void *out)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        return launch_norm<h16>(s, p->r.n_out, (uint32_t)p->r.n_red, p->epsilon, in, scale, bias, out);
    return launch_norm<float>(s, p->r.n_out, (uint32_t)p->r.n_red, p->epsilon, in, scale, bias, out);
}

extern "C" bool wnn__cu_softmax_rows_fits(wnn_data_type t, uint32_t len, uint64_t inner, const void *in,
                                          const void *out)
{
    return inner == 1 && len > 0 && row_fits(t, len) && aligned16(in) && aligned16(out);
}

extern "C" cudaError_t wnn__cu_softmax_rows(cudaStream_t s, wnn_data_type t, uint64_t rows, uint32_t len,
                                            const void *in, void *out)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        return launch_softmax<h16>(s, rows, len, in, out);
    return launch_softmax<float>(s, rows, len, in, out);
}
