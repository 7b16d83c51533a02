/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_quantize.cu -- quantizeLinear and dequantizeLinear: float32 or
** float16 against int8, uint8, int32, uint32, and int4/uint4 packed two per
** byte. Scale and zero point are indexed per block of the input (see
** wnn__cu_quant); quantize divides in float32 and rounds half to even, as
** the cpu does.
*/
#include <type_traits>

#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

__device__ __forceinline__ uint64_t quant_offset(const wnn__cu_quant &p, uint64_t i)
{
    uint64_t off = 0;
    for (int d = (int)p.rank - 1; d >= 0; d--) {
        uint64_t c = i % p.shape[d];
        i /= p.shape[d];
        off += c / p.block[d] * p.sstride[d];
    }
    return off;
}

template <typename F, typename I>
__global__ void quantize_kernel(const F *__restrict__ x, const F *__restrict__ scale, const I *__restrict__ zp,
                                I *__restrict__ out, const wnn__cu_quant p, int64_t lo, int64_t hi)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t s = quant_offset(p, i);
        float xv, sv;
        if constexpr (is_h16<F>::value) {
            xv = h2f(x[i]);
            sv = h2f(scale[s]);
        } else {
            xv = x[i];
            sv = scale[s];
        }
        /* x / scale in float32, rounded half to even; NaN gives the zero point */
        float q = rintf(__fdiv_rn(xv, sv));
        double v = q == q ? (double)q + (double)zp[s] : (double)zp[s];
        out[i] = (I)(v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v);
    }
}

template <typename F, typename I>
__global__ void dequantize_kernel(const I *__restrict__ x, const F *__restrict__ scale, const I *__restrict__ zp,
                                  F *__restrict__ out, const wnn__cu_quant p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t s = quant_offset(p, i);
        const float sv = load_f(scale, s);
        double v = __dmul_rn((double)((int64_t)x[i] - (int64_t)zp[s]), (double)sv);
        store_f(out, i, (float)v);
    }
}

template <typename F, typename I>
cudaError_t quantize_typed(cudaStream_t s, bool quantize, const wnn__cu_quant *p, const void *x, const void *scale,
                           const void *zp, void *out)
{
    const unsigned blocks = blocks_for(p->count);
    if (quantize) {
        int64_t lo, hi;
        if constexpr (std::is_same<I, int8_t>::value)
            lo = INT8_MIN, hi = INT8_MAX;
        else if constexpr (std::is_same<I, uint8_t>::value)
            lo = 0, hi = UINT8_MAX;
        else if constexpr (std::is_same<I, int32_t>::value)
            lo = INT32_MIN, hi = INT32_MAX;
        else
            lo = 0, hi = UINT32_MAX;
        quantize_kernel<F, I><<<blocks, THREADS, 0, s>>>((const F *)x, (const F *)scale, (const I *)zp, (I *)out, *p,
                                                         lo, hi);
    } else {
        dequantize_kernel<F, I><<<blocks, THREADS, 0, s>>>((const I *)x, (const F *)scale, (const I *)zp, (F *)out, *p);
    }
    return cudaGetLastError();
}

/* int4 and uint4: two elements per byte, element 2k in the low nibble. A
** quantizing thread writes whole bytes, so no two threads share one. */
__device__ __forceinline__ int64_t load_nibble(const uint8_t *p, uint64_t i, bool is_signed)
{
    unsigned nib = (p[i >> 1] >> ((i & 1u) * 4)) & 0xfu;
    return is_signed && nib >= 8 ? (int64_t)nib - 16 : (int64_t)nib;
}

template <typename F>
__global__ void quantize_packed(const F *__restrict__ x, const F *__restrict__ scale, const uint8_t *__restrict__ zp,
                                uint8_t *__restrict__ out, const wnn__cu_quant p, bool is_signed)
{
    const int64_t lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
    const uint64_t bytes = (p.count + 1) / 2;
    for (uint64_t k = global_id(); k < bytes; k += global_stride()) {
        unsigned byte = 0;
        for (uint64_t i = 2 * k; i < 2 * k + 2 && i < p.count; i++) {
            uint64_t s = quant_offset(p, i);
            float xv, sv;
            if constexpr (is_h16<F>::value) {
                xv = h2f(x[i]);
                sv = h2f(scale[s]);
            } else {
                xv = x[i];
                sv = scale[s];
            }
            float q = rintf(__fdiv_rn(xv, sv));
            int64_t z = load_nibble(zp, s, is_signed);
            double v = q == q ? (double)q + (double)z : (double)z;
            int64_t r = v <= (double)lo ? lo : v >= (double)hi ? hi : (int64_t)v;
            byte |= ((unsigned)r & 0xfu) << ((i & 1u) * 4);
        }
        out[k] = (uint8_t)byte;
    }
}

template <typename F>
__global__ void dequantize_packed(const uint8_t *__restrict__ x, const F *__restrict__ scale,
                                  const uint8_t *__restrict__ zp, F *__restrict__ out, const wnn__cu_quant p,
                                  bool is_signed)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t s = quant_offset(p, i);
        const float sv = load_f(scale, s);
        double v = __dmul_rn((double)(load_nibble(x, i, is_signed) - load_nibble(zp, s, is_signed)), (double)sv);
        store_f(out, i, (float)v);
    }
}

template <typename F>
cudaError_t quantize_packed_typed(cudaStream_t s, bool quantize, bool is_signed, const wnn__cu_quant *p, const void *x,
                                  const void *scale, const void *zp, void *out)
{
    if (quantize)
        quantize_packed<F><<<blocks_for((p->count + 1) / 2), THREADS, 0, s>>>(
            (const F *)x, (const F *)scale, (const uint8_t *)zp, (uint8_t *)out, *p, is_signed);
    else
        dequantize_packed<F><<<blocks_for(p->count), THREADS, 0, s>>>((const uint8_t *)x, (const F *)scale,
                                                                      (const uint8_t *)zp, (F *)out, *p, is_signed);
    return cudaGetLastError();
}

template <typename F>
cudaError_t quantize_for_int(cudaStream_t s, bool quantize, wnn_data_type int_type, const wnn__cu_quant *p,
                             const void *x, const void *scale, const void *zp, void *out)
{
    switch (int_type) {
    case WNN_DATA_TYPE_INT8: return quantize_typed<F, int8_t>(s, quantize, p, x, scale, zp, out);
    case WNN_DATA_TYPE_UINT8: return quantize_typed<F, uint8_t>(s, quantize, p, x, scale, zp, out);
    case WNN_DATA_TYPE_INT32: return quantize_typed<F, int32_t>(s, quantize, p, x, scale, zp, out);
    case WNN_DATA_TYPE_UINT32: return quantize_typed<F, uint32_t>(s, quantize, p, x, scale, zp, out);
    case WNN_DATA_TYPE_INT4: return quantize_packed_typed<F>(s, quantize, true, p, x, scale, zp, out);
    case WNN_DATA_TYPE_UINT4: return quantize_packed_typed<F>(s, quantize, false, p, x, scale, zp, out);
    default: return cudaErrorInvalidValue;
    }
}

} // namespace

extern "C" bool wnn__cu_quantize_supported(wnn_data_type float_type, wnn_data_type int_type)
{
    return (float_type == WNN_DATA_TYPE_FLOAT32 || float_type == WNN_DATA_TYPE_FLOAT16) &&
           (int_type == WNN_DATA_TYPE_INT8 || int_type == WNN_DATA_TYPE_UINT8 || int_type == WNN_DATA_TYPE_INT32 ||
            int_type == WNN_DATA_TYPE_UINT32 || int_type == WNN_DATA_TYPE_INT4 || int_type == WNN_DATA_TYPE_UINT4);
}

extern "C" cudaError_t wnn__cu_quantize(cudaStream_t s, bool quantize, wnn_data_type float_type, wnn_data_type int_type,
                                        const wnn__cu_quant *p, const void *x, const void *scale, const void *zero_point,
                                        void *out)
{
    if (!wnn__cu_quantize_supported(float_type, int_type))
        return cudaErrorInvalidValue;
    if (float_type == WNN_DATA_TYPE_FLOAT32)
        return quantize_for_int<float>(s, quantize, int_type, p, x, scale, zero_point, out);
    return quantize_for_int<h16>(s, quantize, int_type, p, x, scale, zero_point, out);
}
