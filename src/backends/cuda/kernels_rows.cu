/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_rows.cu -- layerNormalization over contiguous rows held in
** registers: one warp per row, each lane loading its share in 16-byte
** vectors once, so the row is read from memory once and written once
** (kernels_reduce.cu's general kernel reads it three times, an element at
** a time). Sums of a lane's elements are in float, across lanes in
** double; mean and variance in double like the cpu's. wnn__cu_normalize
** hands over the shapes this takes.
*/
#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

__device__ __forceinline__ double warp_sum(double v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
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
        const T *x = in + r * len;
        float v[VECS][V];
        float part = 0.0f;
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const uint32_t j = lane + 32u * k;
            T e[V];
            if (j < nvec)
                vload<T, V>(e, x + (uint64_t)j * V);
#pragma unroll
            for (int i = 0; i < V; i++) {
                v[k][i] = j < nvec ? load_f(e, i) : 0.0f;
                part += v[k][i];
            }
        }
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

template <typename T>
cudaError_t launch_rows(cudaStream_t s, uint64_t rows, uint32_t len, double epsilon, const void *in,
                        const void *scale, const void *bias, void *out)
{
    constexpr int V = 16 / sizeof(T);
    if (!rows)
        return cudaSuccess;
    const uint32_t per_lane = (len / V + 31) / 32;
    const uint64_t b = (rows + 7) / 8;
    const unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
#define WNNCU_ROWS(VECS)                                                                              \
    layer_norm_rows<T, VECS><<<blocks, 256, 0, s>>>((const T *)in, (const T *)scale, (const T *)bias, (T *)out, \
                                                    rows, len, epsilon)
    if (per_lane <= 1)
        WNNCU_ROWS(1);
    else if (per_lane <= 2)
        WNNCU_ROWS(2);
    else if (per_lane <= 4)
        WNNCU_ROWS(4);
    else
        WNNCU_ROWS(8);
#undef WNNCU_ROWS
    return cudaGetLastError();
}

} // namespace

extern "C" bool wnn__cu_norm_rows_fits(wnn_data_type t, const wnn__cu_norm *p, const void *in, const void *scale,
                                       const void *bias, const void *out)
{
    const wnn__cu_reduce *r = &p->r;
    const uint64_t v = t == WNN_DATA_TYPE_FLOAT16 ? 8 : 4;
    if ((t != WNN_DATA_TYPE_FLOAT32 && t != WNN_DATA_TYPE_FLOAT16) || p->by_channel || r->red_rank != 1 ||
        r->red_stride[0] != 1 || r->n_red % v || r->n_red > 32 * 8 * v || r->kept_rank > 1 ||
        (r->kept_rank == 1 && r->kept_stride[0] != r->n_red))
        return false;
    return aligned16(in) && aligned16(out) && (!scale || aligned16(scale)) && (!bias || aligned16(bias));
}

extern "C" cudaError_t wnn__cu_norm_rows(cudaStream_t s, wnn_data_type t, const wnn__cu_norm *p, const void *in,
                                         const void *scale, const void *bias, void *out)
{
    if (t == WNN_DATA_TYPE_FLOAT16)
        return launch_rows<h16>(s, p->r.n_out, (uint32_t)p->r.n_red, p->epsilon, in, scale, bias, out);
    return launch_rows<float>(s, p->r.n_out, (uint32_t)p->r.n_red, p->epsilon, in, scale, bias, out);
}
