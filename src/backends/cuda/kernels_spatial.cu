/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_spatial.cu -- conv2d, convTranspose2d, the three pool2d
** operators and resample2d on rank-4 tensors in either layout.
**
** One thread per output element: a direct convolution reads the filter in
** its own layout through strides (no repacking) and accumulates in float32;
** pooling reads only the real elements of each window (padding adds nothing
** and is not counted) with average and L2 sums in double; resample reads
** per-dimension tap tables built on the host exactly as the cpu builds them.
*/
#include <type_traits>

#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

/* Element offset of (n, c, y, x) in a rank-4 tensor of the layout. */
__device__ __forceinline__ uint64_t at4(bool nhwc, uint32_t c_n, uint32_t h, uint32_t w, uint32_t n, uint32_t c,
                                        uint32_t y, uint32_t x)
{
    return nhwc ? (((uint64_t)n * h + y) * w + x) * c_n + c : (((uint64_t)n * c_n + c) * h + y) * w + x;
}

/* (n, c, y, x) of output element i. */
__device__ __forceinline__ void coords4(bool nhwc, uint32_t c_n, uint32_t h, uint32_t w, uint64_t i, uint32_t *n,
                                        uint32_t *c, uint32_t *y, uint32_t *x)
{
    if (nhwc) {
        *c = (uint32_t)(i % c_n);
        i /= c_n;
        *x = (uint32_t)(i % w);
        i /= w;
        *y = (uint32_t)(i % h);
        *n = (uint32_t)(i / h);
    } else {
        *x = (uint32_t)(i % w);
        i /= w;
        *y = (uint32_t)(i % h);
        i /= h;
        *c = (uint32_t)(i % c_n);
        *n = (uint32_t)(i / c_n);
    }
}

/* ------------------------------------------------------------------------ */
/* Convolutions                                                              */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void conv2d_direct(const T *__restrict__ in, const T *__restrict__ f, const T *__restrict__ bias,
                              T *__restrict__ out, const wnn__cu_conv p, uint64_t count)
{
    const uint32_t cg_in = p.c_in / p.groups, cg_out = p.c_out / p.groups;
    const bool nhwc = p.nhwc != 0;
    for (uint64_t i = global_id(); i < count; i += global_stride()) {
        uint32_t n, oc, oy, ox;
        coords4(nhwc, p.c_out, p.h_out, p.w_out, i, &n, &oc, &oy, &ox);
        const uint32_t g = oc / cg_out;
        float acc = 0.0f;
        if (!p.transpose) {
            const int64_t y0 = (int64_t)oy * p.stride[0] - p.pad_top, x0 = (int64_t)ox * p.stride[1] - p.pad_left;
            for (uint32_t ky = 0; ky < p.kh; ky++) {
                const int64_t iy = y0 + (int64_t)ky * p.dilation[0];
                if (iy < 0 || iy >= p.h_in)
                    continue;
                for (uint32_t kx = 0; kx < p.kw; kx++) {
                    const int64_t ix = x0 + (int64_t)kx * p.dilation[1];
                    if (ix < 0 || ix >= p.w_in)
                        continue;
                    const uint64_t fbase = oc * p.f_stride[0] + ky * p.f_stride[2] + kx * p.f_stride[3];
                    for (uint32_t icl = 0; icl < cg_in; icl++) {
                        const uint32_t ic = g * cg_in + icl;
                        acc += load_f(in, at4(nhwc, p.c_in, p.h_in, p.w_in, n, ic, (uint32_t)iy, (uint32_t)ix)) *
                               load_f(f, fbase + icl * p.f_stride[1]);
                    }
                }
            }
        } else {
            /* output (oy, ox) gathers input (iy, ix) with oy = iy * stride -
            ** pad + ky * dilation */
            const uint32_t ocl = oc % cg_out;
            for (uint32_t ky = 0; ky < p.kh; ky++) {
                const int64_t ty = (int64_t)oy + p.pad_top - (int64_t)ky * p.dilation[0];
                if (ty < 0 || ty % p.stride[0])
                    continue;
                const int64_t iy = ty / p.stride[0];
                if (iy >= p.h_in)
                    continue;
                for (uint32_t kx = 0; kx < p.kw; kx++) {
                    const int64_t tx = (int64_t)ox + p.pad_left - (int64_t)kx * p.dilation[1];
                    if (tx < 0 || tx % p.stride[1])
                        continue;
                    const int64_t ix = tx / p.stride[1];
                    if (ix >= p.w_in)
                        continue;
                    const uint64_t fbase = ocl * p.f_stride[0] + ky * p.f_stride[2] + kx * p.f_stride[3];
                    for (uint32_t icl = 0; icl < cg_in; icl++) {
                        const uint32_t ic = g * cg_in + icl;
                        acc += load_f(in, at4(nhwc, p.c_in, p.h_in, p.w_in, n, ic, (uint32_t)iy, (uint32_t)ix)) *
                               load_f(f, fbase + (uint64_t)ic * p.f_stride[1]);
                    }
                }
            }
        }
        if (bias)
            acc += load_f(bias, oc);
        store_f(out, i, acc);
    }
}

template <typename T>
__global__ void im2col(const T *__restrict__ in, T *__restrict__ cols, const wnn__cu_conv p, uint32_t n0,
                       uint64_t count)
{
    const bool nhwc = p.nhwc != 0;
    const uint64_t P = (uint64_t)p.h_out * p.w_out, K = (uint64_t)p.c_in * p.kh * p.kw;
    for (uint64_t e = global_id(); e < count; e += global_stride()) {
        const uint64_t k = e % K, row = e / K;
        const uint32_t n = n0 + (uint32_t)(row / P), pix = (uint32_t)(row % P);
        const uint32_t oy = pix / p.w_out, ox = pix % p.w_out;
        const uint32_t kx = (uint32_t)(k % p.kw), ky = (uint32_t)((k / p.kw) % p.kh), ic = (uint32_t)(k / p.kw / p.kh);
        const int64_t iy = (int64_t)oy * p.stride[0] - p.pad_top + (int64_t)ky * p.dilation[0];
        const int64_t ix = (int64_t)ox * p.stride[1] - p.pad_left + (int64_t)kx * p.dilation[1];
        T v = T();
        if (iy >= 0 && iy < p.h_in && ix >= 0 && ix < p.w_in)
            v = in[at4(nhwc, p.c_in, p.h_in, p.w_in, n, ic, (uint32_t)iy, (uint32_t)ix)];
        cols[e] = v;
    }
}

/* ------------------------------------------------------------------------ */
/* Pooling                                                                   */
/* ------------------------------------------------------------------------ */

/* Taps k in [k0, k1) of a window starting at start fall inside [0, size). */
__device__ __forceinline__ void window_span(int64_t start, uint32_t taps, uint32_t dilation, uint32_t size, uint32_t *k0,
                                            uint32_t *k1)
{
    uint32_t lo = 0, hi = taps;
    while (lo < hi && start + (int64_t)lo * dilation < 0)
        lo++;
    while (hi > lo && start + (int64_t)(hi - 1) * dilation >= (int64_t)size)
        hi--;
    *k0 = lo;
    *k1 = hi;
}

template <int OP, typename T>
__global__ void pool2d(const T *__restrict__ in, T *__restrict__ out, const wnn__cu_pool p, uint64_t count)
{
    const bool nhwc = p.nhwc != 0;
    for (uint64_t i = global_id(); i < count; i += global_stride()) {
        uint32_t n, c, oy, ox;
        coords4(nhwc, p.c, p.h_out, p.w_out, i, &n, &c, &oy, &ox);
        const int64_t y0 = (int64_t)oy * p.stride[0] - p.pad_top, x0 = (int64_t)ox * p.stride[1] - p.pad_left;
        uint32_t ky0, ky1, kx0, kx1;
        window_span(y0, p.window[0], p.dilation[0], p.h_in, &ky0, &ky1);
        window_span(x0, p.window[1], p.dilation[1], p.w_in, &kx0, &kx1);
        if constexpr (OP == WNN__OP_MAX_POOL2D) {
            typedef typename order_key<T>::K K;
            T best = T();
            K bk = K();
            bool any = false;
            for (uint32_t ky = ky0; ky < ky1; ky++)
                for (uint32_t kx = kx0; kx < kx1; kx++) {
                    T v = in[at4(nhwc, p.c, p.h_in, p.w_in, n, c, (uint32_t)(y0 + (int64_t)ky * p.dilation[0]),
                                 (uint32_t)(x0 + (int64_t)kx * p.dilation[1]))];
                    K vk = order_key<T>::of(v);
                    if (!any || (bk == bk && (vk > bk || vk != vk))) {
                        best = v;
                        bk = vk;
                    }
                    any = true;
                }
            out[i] = best;
        } else {
            double sum = 0.0;
            for (uint32_t ky = ky0; ky < ky1; ky++)
                for (uint32_t kx = kx0; kx < kx1; kx++) {
                    double v = load_f(in, at4(nhwc, p.c, p.h_in, p.w_in, n, c, (uint32_t)(y0 + (int64_t)ky * p.dilation[0]),
                                              (uint32_t)(x0 + (int64_t)kx * p.dilation[1])));
                    sum += OP == WNN__OP_L2_POOL2D ? v * v : v;
                }
            const uint64_t taps = (uint64_t)(ky1 - ky0) * (kx1 - kx0);
            float r = taps == 0 ? 0.0f
                                : (float)(OP == WNN__OP_L2_POOL2D ? sqrt(sum) : sum / (double)taps);
            store_f(out, i, r);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* resample2d                                                                */
/* ------------------------------------------------------------------------ */

template <typename T> __device__ __forceinline__ void store_any(T *p, uint64_t i, float v)
{
    if constexpr (is_h16<T>::value)
        p[i] = f2h(v);
    else if constexpr (std::is_same<T, int8_t>::value)
        p[i] = (int8_t)fminf(fmaxf(roundf(v), -128.0f), 127.0f);
    else if constexpr (std::is_same<T, uint8_t>::value)
        p[i] = (uint8_t)fminf(fmaxf(roundf(v), 0.0f), 255.0f);
    else
        p[i] = v;
}

template <typename T>
__global__ void resample(const T *__restrict__ in, T *__restrict__ out, const wnn__cu_tap *__restrict__ taps,
                         const wnn__cu_resample p)
{
    uint64_t stride[4];
    stride[3] = 1;
    for (int d = 2; d >= 0; d--)
        stride[d] = stride[d + 1] * p.shape_in[d + 1];
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t rest = i;
        wnn__cu_tap t[4];
        uint64_t lo = 0;
        for (int d = 3; d >= 0; d--) {
            uint32_t j = (uint32_t)(rest % p.shape_out[d]);
            rest /= p.shape_out[d];
            t[d] = taps[p.table_at[d] + j];
            lo += (uint64_t)t[d].lo * stride[d];
        }
        if (!p.linear) {
            out[i] = in[lo];
            continue;
        }
        /* blend the four corners of the two resized dimensions a and b,
        ** without contracting into fused multiply-adds, as the cpu rounds */
        const wnn__cu_tap ta = t[p.axes[0]], tb = t[p.axes[1]];
        const uint64_t da = (uint64_t)(ta.hi - ta.lo) * stride[p.axes[0]];
        const uint64_t db = (uint64_t)(tb.hi - tb.lo) * stride[p.axes[1]];
        float v00 = load_f(in, lo), v01 = load_f(in, lo + db), v10 = load_f(in, lo + da),
              v11 = load_f(in, lo + da + db);
        float top = __fadd_rn(__fmul_rn(1.0f - tb.w, v00), __fmul_rn(tb.w, v01));
        float bottom = __fadd_rn(__fmul_rn(1.0f - tb.w, v10), __fmul_rn(tb.w, v11));
        store_any(out, i, __fadd_rn(__fmul_rn(1.0f - ta.w, top), __fmul_rn(ta.w, bottom)));
    }
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

extern "C" cudaError_t wnn__cu_conv2d(cudaStream_t s, wnn_data_type t, const wnn__cu_conv *p, const void *in,
                                      const void *filter, const void *bias, void *out)
{
    const uint64_t count = (uint64_t)p->n * p->c_out * p->h_out * p->w_out;
    if (t == WNN_DATA_TYPE_FLOAT32)
        conv2d_direct<float><<<blocks_for(count), THREADS, 0, s>>>((const float *)in, (const float *)filter,
                                                                   (const float *)bias, (float *)out, *p, count);
    else if (t == WNN_DATA_TYPE_FLOAT16)
        conv2d_direct<h16><<<blocks_for(count), THREADS, 0, s>>>((const h16 *)in, (const h16 *)filter,
                                                                 (const h16 *)bias, (h16 *)out, *p, count);
    else
        return cudaErrorInvalidValue;
    return cudaGetLastError();
}

/* y = y + bias[channel] + z, then relu when asked (x < 0 ? 0 : x, NaN kept),
** in place, in float32 and rounded once. The channel of element i is
** (i / inner) % channels. */
template <typename T>
__global__ void conv_epilogue(T *__restrict__ y, const T *__restrict__ bias, const T *__restrict__ z, uint32_t channels,
                              uint32_t inner, bool relu, uint64_t count)
{
    for (uint64_t i = global_id(); i < count; i += global_stride()) {
        float v = load_f(y, i);
        if (bias)
            v += load_f(bias, (i / inner) % channels);
        if (z)
            v += load_f(z, i);
        store_f(y, i, relu && v < 0.0f ? 0.0f : v);
    }
}

/* The same over float16 in 16-byte words of 8 elements, where the 8 share
** a channel (inner % 8 == 0) or are 8 consecutive channels (inner == 1,
** channels % 8 == 0). */
__global__ void conv_epilogue_h8(uint4 *__restrict__ y, const h16 *__restrict__ bias, const uint4 *__restrict__ z,
                                 uint32_t channels, uint32_t inner, bool relu, uint64_t words)
{
    for (uint64_t w = global_id(); w < words; w += global_stride()) {
        uint4 yv = y[w], zv = z ? z[w] : make_uint4(0, 0, 0, 0);
        h16 *ye = reinterpret_cast<h16 *>(&yv);
        const h16 *ze = reinterpret_cast<const h16 *>(&zv);
        uint64_t first = w * 8;
        uint32_t c0 = (uint32_t)((first / inner) % channels);
#pragma unroll
        for (int k = 0; k < 8; k++) {
            float v = h2f(ye[k]);
            if (bias)
                v += h2f(bias[inner == 1 ? c0 + k : c0]);
            if (z)
                v += h2f(ze[k]);
            ye[k] = f2h(relu && v < 0.0f ? 0.0f : v);
        }
        y[w] = yv;
    }
}

extern "C" cudaError_t wnn__cu_conv_epilogue(cudaStream_t s, wnn_data_type t, uint64_t count, uint32_t channels,
                                             uint32_t inner, const void *bias, const void *z, bool relu, void *y)
{
    if (!channels || !inner)
        return cudaErrorInvalidValue;
    if (t == WNN_DATA_TYPE_FLOAT16 && count % 8 == 0 && ((uintptr_t)y | (uintptr_t)z) % 16 == 0 &&
        (inner % 8 == 0 || (inner == 1 && channels % 8 == 0))) {
        conv_epilogue_h8<<<blocks_for(count / 8), THREADS, 0, s>>>((uint4 *)y, (const h16 *)bias, (const uint4 *)z,
                                                                   channels, inner, relu, count / 8);
    } else if (t == WNN_DATA_TYPE_FLOAT16) {
        conv_epilogue<h16><<<blocks_for(count), THREADS, 0, s>>>((h16 *)y, (const h16 *)bias, (const h16 *)z, channels,
                                                                 inner, relu, count);
    } else if (t == WNN_DATA_TYPE_FLOAT32) {
        conv_epilogue<float><<<blocks_for(count), THREADS, 0, s>>>((float *)y, (const float *)bias, (const float *)z,
                                                                   channels, inner, relu, count);
    } else {
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" bool wnn__cu_pool_supported(wnn__op op, wnn_data_type t)
{
    if (op == WNN__OP_MAX_POOL2D)
        return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8;
    if (op == WNN__OP_AVERAGE_POOL2D || op == WNN__OP_L2_POOL2D)
        return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16;
    return false;
}

extern "C" cudaError_t wnn__cu_pool2d(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_pool *p,
                                      const void *in, void *out)
{
    const uint64_t count = (uint64_t)p->n * p->c * p->h_out * p->w_out;
    const unsigned blocks = blocks_for(count);
    if (!wnn__cu_pool_supported(op, t))
        return cudaErrorInvalidValue;
    if (op == WNN__OP_MAX_POOL2D) {
#define WNNCU_MAXPOOL(T) pool2d<WNN__OP_MAX_POOL2D, T><<<blocks, THREADS, 0, s>>>((const T *)in, (T *)out, *p, count)
        WNNCU_TYPE_CASES(t, WNNCU_MAXPOOL)
#undef WNNCU_MAXPOOL
    } else if (op == WNN__OP_AVERAGE_POOL2D) {
        if (t == WNN_DATA_TYPE_FLOAT32)
            pool2d<WNN__OP_AVERAGE_POOL2D, float><<<blocks, THREADS, 0, s>>>((const float *)in, (float *)out, *p, count);
        else
            pool2d<WNN__OP_AVERAGE_POOL2D, h16><<<blocks, THREADS, 0, s>>>((const h16 *)in, (h16 *)out, *p, count);
    } else {
        if (t == WNN_DATA_TYPE_FLOAT32)
            pool2d<WNN__OP_L2_POOL2D, float><<<blocks, THREADS, 0, s>>>((const float *)in, (float *)out, *p, count);
        else
            pool2d<WNN__OP_L2_POOL2D, h16><<<blocks, THREADS, 0, s>>>((const h16 *)in, (h16 *)out, *p, count);
    }
    return cudaGetLastError();
}

extern "C" bool wnn__cu_resample_supported(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16 || t == WNN_DATA_TYPE_INT8 ||
           t == WNN_DATA_TYPE_UINT8;
}

extern "C" cudaError_t wnn__cu_resample2d(cudaStream_t s, wnn_data_type t, const wnn__cu_resample *p,
                                          const wnn__cu_tap *taps, const void *in, void *out)
{
    const unsigned blocks = blocks_for(p->count);
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: resample<float><<<blocks, THREADS, 0, s>>>((const float *)in, (float *)out, taps, *p); break;
    case WNN_DATA_TYPE_FLOAT16: resample<h16><<<blocks, THREADS, 0, s>>>((const h16 *)in, (h16 *)out, taps, *p); break;
    case WNN_DATA_TYPE_INT8: resample<int8_t><<<blocks, THREADS, 0, s>>>((const int8_t *)in, (int8_t *)out, taps, *p); break;
    case WNN_DATA_TYPE_UINT8: resample<uint8_t><<<blocks, THREADS, 0, s>>>((const uint8_t *)in, (uint8_t *)out, taps, *p); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_im2col(cudaStream_t s, wnn_data_type t, const wnn__cu_conv *p, uint32_t n0,
                                      uint32_t images, const void *in, void *cols)
{
    const uint64_t count = (uint64_t)images * p->h_out * p->w_out * p->c_in * p->kh * p->kw;
    if (t == WNN_DATA_TYPE_FLOAT32)
        im2col<float><<<blocks_for(count), THREADS, 0, s>>>((const float *)in, (float *)cols, *p, n0, count);
    else if (t == WNN_DATA_TYPE_FLOAT16)
        im2col<h16><<<blocks_for(count), THREADS, 0, s>>>((const h16 *)in, (h16 *)cols, *p, n0, count);
    else
        return cudaErrorInvalidValue;
    return cudaGetLastError();
}
