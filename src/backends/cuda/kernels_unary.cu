/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_unary.cu -- element-wise kernels of one input: the unary
** operators and activations, clamp and cast.
**
** Each runs along flat arrays, every thread moving 16 bytes of the wider of
** its input and output per access; the unary operators apply their scalar
** function of elementwise_ops.cuh.
*/
#include "backends/cuda/elementwise_ops.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* Unary operators                                                           */
/* ------------------------------------------------------------------------ */

template <int OP, typename T>
__global__ void unary_flat(const T *__restrict__ in, typename unary_result<OP, T>::type *__restrict__ o, uint64_t n,
                           double alpha, double beta)
{
    typedef typename unary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    const uint64_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        T x[N];
        R r[N];
        vload<T, N>(x, in + v * N);
#pragma unroll
        for (int k = 0; k < N; k++)
            r[k] = unary<OP, T>(x[k], alpha, beta);
        vstore<R, N>(o + v * N, r);
    }
    const uint64_t i = nvec * N + global_id();
    if (i < n)
        o[i] = unary<OP, T>(in[i], alpha, beta);
}

template <int OP, typename T>
cudaError_t launch_unary(cudaStream_t s, uint64_t n, double alpha, double beta, const void *in, void *out)
{
    typedef typename unary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorMisalignedAddress;
    unary_flat<OP, T><<<blocks_for(n / N + 1), THREADS, 0, s>>>((const T *)in, (R *)out, n, alpha, beta);
    return cudaGetLastError();
}

enum unary_class { U_NONE, U_FLOAT, U_SIGNED_AND_FLOAT, U_ALL, U_U8 };

unary_class unary_kind(wnn__op op)
{
    switch (op) {
    case WNN__OP_ABS:
    case WNN__OP_NEG:
    case WNN__OP_RELU:
    case WNN__OP_SIGN:
        return U_SIGNED_AND_FLOAT;
    case WNN__OP_EXP:
    case WNN__OP_LOG:
    case WNN__OP_SQRT:
    case WNN__OP_SIGMOID:
    case WNN__OP_TANH:
    case WNN__OP_CEIL:
    case WNN__OP_FLOOR:
    case WNN__OP_COS:
    case WNN__OP_SIN:
    case WNN__OP_TAN:
    case WNN__OP_ERF:
    case WNN__OP_RECIPROCAL:
    case WNN__OP_ROUND_EVEN:
    case WNN__OP_ELU:
    case WNN__OP_GELU:
    case WNN__OP_HARD_SIGMOID:
    case WNN__OP_HARD_SWISH:
    case WNN__OP_LEAKY_RELU:
    case WNN__OP_LINEAR:
    case WNN__OP_SOFTPLUS:
    case WNN__OP_SOFTSIGN:
        return U_FLOAT;
    case WNN__OP_IS_NAN:
    case WNN__OP_IS_INFINITE:
        return U_ALL;
    case WNN__OP_LOGICAL_NOT:
        return U_U8;
    default:
        return U_NONE;
    }
}

template <int OP>
cudaError_t unary_for_type(cudaStream_t s, wnn_data_type t, uint64_t n, double alpha, double beta, const void *in,
                           void *out)
{
    constexpr int kind = OP == WNN__OP_ABS || OP == WNN__OP_NEG || OP == WNN__OP_RELU || OP == WNN__OP_SIGN ? 1
                         : OP == WNN__OP_IS_NAN || OP == WNN__OP_IS_INFINITE                             ? 2
                         : OP == WNN__OP_LOGICAL_NOT                                                     ? 3
                                                                                                         : 0;
    if constexpr (kind == 3) {
        return launch_unary<OP, uint8_t>(s, n, alpha, beta, in, out);
    } else if constexpr (kind == 2) {
        if (t == WNN_DATA_TYPE_FLOAT32)
            return launch_unary<OP, float>(s, n, alpha, beta, in, out);
        if (t == WNN_DATA_TYPE_FLOAT16)
            return launch_unary<OP, h16>(s, n, alpha, beta, in, out);
        /* integers are never NaN nor infinite */
        return cudaMemsetAsync(out, 0, n, s);
    } else {
        if (t == WNN_DATA_TYPE_FLOAT32)
            return launch_unary<OP, float>(s, n, alpha, beta, in, out);
        if (t == WNN_DATA_TYPE_FLOAT16)
            return launch_unary<OP, h16>(s, n, alpha, beta, in, out);
        if constexpr (kind == 1) {
            if (t == WNN_DATA_TYPE_INT32)
                return launch_unary<OP, int32_t>(s, n, alpha, beta, in, out);
            if (t == WNN_DATA_TYPE_INT64)
                return launch_unary<OP, int64_t>(s, n, alpha, beta, in, out);
            if (t == WNN_DATA_TYPE_INT8)
                return launch_unary<OP, int8_t>(s, n, alpha, beta, in, out);
        }
        return cudaErrorInvalidValue;
    }
}

/* ------------------------------------------------------------------------ */
/* clamp                                                                     */
/* ------------------------------------------------------------------------ */

template <typename T> struct clamp_bounds {
    T lo, hi;
};

template <typename T>
__global__ void clamp_flat(const T *__restrict__ in, T *__restrict__ o, uint64_t n, T lo, T hi)
{
    constexpr int N = vec_width<T, T>::value;
    const uint64_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        T x[N];
        vload<T, N>(x, in + v * N);
#pragma unroll
        for (int k = 0; k < N; k++)
            x[k] = x[k] < lo ? lo : x[k] > hi ? hi : x[k];
        vstore<T, N>(o + v * N, x);
    }
    const uint64_t i = nvec * N + global_id();
    if (i < n) {
        T x = in[i];
        o[i] = x < lo ? lo : x > hi ? hi : x;
    }
}

/* float16 compares widened values but copies bits, so that an unclamped
** element comes out exactly as it went in. */
__global__ void clamp_f16(const h16 *__restrict__ in, h16 *__restrict__ o, uint64_t n, h16 lo, h16 hi)
{
    const float lo_f = h2f(lo), hi_f = h2f(hi);
    for (uint64_t i = global_id(); i < n; i += global_stride()) {
        float v = h2f(in[i]);
        o[i] = v < lo_f ? lo : v > hi_f ? hi : in[i];
    }
}

template <typename T> cudaError_t launch_clamp(cudaStream_t s, uint64_t n, T lo, T hi, const void *in, void *out)
{
    constexpr int N = vec_width<T, T>::value;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorMisalignedAddress;
    clamp_flat<T><<<blocks_for(n / N + 1), THREADS, 0, s>>>((const T *)in, (T *)out, n, lo, hi);
    return cudaGetLastError();
}

/* Host-side casts of clamp's bounds, as the cpu's from_double. */
template <typename T> T host_int_bound(double d, double lo, double hi)
{
    if (d != d)
        return 0;
    if (d <= lo)
        return (T)lo;
    if (d >= hi)
        return (T)hi;
    return (T)d;
}

/* float to binary16 bits on the host, rounding to nearest even. */
uint16_t host_f2h(float f)
{
    __half h = __float2half_rn(f);
    return __half_as_ushort(h);
}

/* ------------------------------------------------------------------------ */
/* cast                                                                      */
/* ------------------------------------------------------------------------ */

template <typename S, typename D> __device__ __forceinline__ D convert(S x)
{
    constexpr bool sf = is_float_type<S>::value, df = is_float_type<D>::value;
    if constexpr (!sf && !df)
        return wrap<D>((uint64_t)x); /* int to int keeps the low bits */
    else
        return from_double<D>(to_double<S>(x));
}

template <typename S, typename D>
__global__ void cast_flat(const S *__restrict__ in, D *__restrict__ o, uint64_t n)
{
    constexpr int N = vec_width<S, D>::value;
    const uint64_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        S x[N];
        D r[N];
        vload<S, N>(x, in + v * N);
#pragma unroll
        for (int k = 0; k < N; k++)
            r[k] = convert<S, D>(x[k]);
        vstore<D, N>(o + v * N, r);
    }
    const uint64_t i = nvec * N + global_id();
    if (i < n)
        o[i] = convert<S, D>(in[i]);
}

template <typename S, typename D> cudaError_t launch_cast(cudaStream_t s, uint64_t n, const void *in, void *out)
{
    constexpr int N = vec_width<S, D>::value;
    if (!aligned16(in) || !aligned16(out))
        return cudaErrorMisalignedAddress;
    cast_flat<S, D><<<blocks_for(n / N + 1), THREADS, 0, s>>>((const S *)in, (D *)out, n);
    return cudaGetLastError();
}

template <typename S> cudaError_t cast_from(cudaStream_t s, wnn_data_type to, uint64_t n, const void *in, void *out)
{
#define WNNCU_LAUNCH_CAST(D) return launch_cast<S, D>(s, n, in, out)
    WNNCU_TYPE_CASES(to, WNNCU_LAUNCH_CAST)
#undef WNNCU_LAUNCH_CAST
    return cudaErrorInvalidValue;
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

extern "C" bool wnn__cu_unary_supported(wnn__op op, wnn_data_type t)
{
    bool is_float = t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16;
    switch (unary_kind(op)) {
    case U_FLOAT: return is_float;
    case U_SIGNED_AND_FLOAT:
        return is_float || t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_INT8;
    case U_ALL: return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8;
    case U_U8: return t == WNN_DATA_TYPE_UINT8;
    default: return false;
    }
}

extern "C" cudaError_t wnn__cu_unary(cudaStream_t s, wnn__op op, wnn_data_type t, uint64_t n, double alpha,
                                     double beta, const void *in, void *out)
{
    if (!wnn__cu_unary_supported(op, t))
        return cudaErrorInvalidValue;
#define WNNCU_UNARY_CASE(OPV)                                                                         \
    case OPV: return unary_for_type<OPV>(s, t, n, alpha, beta, in, out);
    switch (op) {
    WNNCU_UNARY_CASE(WNN__OP_ABS)
    WNNCU_UNARY_CASE(WNN__OP_NEG)
    WNNCU_UNARY_CASE(WNN__OP_EXP)
    WNNCU_UNARY_CASE(WNN__OP_LOG)
    WNNCU_UNARY_CASE(WNN__OP_SQRT)
    WNNCU_UNARY_CASE(WNN__OP_RELU)
    WNNCU_UNARY_CASE(WNN__OP_SIGMOID)
    WNNCU_UNARY_CASE(WNN__OP_TANH)
    WNNCU_UNARY_CASE(WNN__OP_CEIL)
    WNNCU_UNARY_CASE(WNN__OP_FLOOR)
    WNNCU_UNARY_CASE(WNN__OP_COS)
    WNNCU_UNARY_CASE(WNN__OP_SIN)
    WNNCU_UNARY_CASE(WNN__OP_TAN)
    WNNCU_UNARY_CASE(WNN__OP_ERF)
    WNNCU_UNARY_CASE(WNN__OP_RECIPROCAL)
    WNNCU_UNARY_CASE(WNN__OP_ROUND_EVEN)
    WNNCU_UNARY_CASE(WNN__OP_SIGN)
    WNNCU_UNARY_CASE(WNN__OP_IS_NAN)
    WNNCU_UNARY_CASE(WNN__OP_IS_INFINITE)
    WNNCU_UNARY_CASE(WNN__OP_LOGICAL_NOT)
    WNNCU_UNARY_CASE(WNN__OP_ELU)
    WNNCU_UNARY_CASE(WNN__OP_GELU)
    WNNCU_UNARY_CASE(WNN__OP_HARD_SIGMOID)
    WNNCU_UNARY_CASE(WNN__OP_HARD_SWISH)
    WNNCU_UNARY_CASE(WNN__OP_LEAKY_RELU)
    WNNCU_UNARY_CASE(WNN__OP_LINEAR)
    WNNCU_UNARY_CASE(WNN__OP_SOFTPLUS)
    WNNCU_UNARY_CASE(WNN__OP_SOFTSIGN)
    default: return cudaErrorInvalidValue;
    }
#undef WNNCU_UNARY_CASE
}

extern "C" bool wnn__cu_clamp_supported(wnn_data_type t) { return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8; }

extern "C" cudaError_t wnn__cu_clamp_run(cudaStream_t s, wnn_data_type t, uint64_t n, wnn__cu_clamp c,
                                         const void *in, void *out)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return launch_clamp<float>(s, n, (float)c.lo, (float)c.hi, in, out);
    case WNN_DATA_TYPE_FLOAT16:
        clamp_f16<<<blocks_for(n), THREADS, 0, s>>>((const h16 *)in, (h16 *)out, n, h16{host_f2h((float)c.lo)},
                                                    h16{host_f2h((float)c.hi)});
        return cudaGetLastError();
    case WNN_DATA_TYPE_INT32:
        return launch_clamp<int32_t>(s, n, host_int_bound<int32_t>(c.lo, INT32_MIN, INT32_MAX),
                                     host_int_bound<int32_t>(c.hi, INT32_MIN, INT32_MAX), in, out);
    case WNN_DATA_TYPE_UINT32:
        return launch_clamp<uint32_t>(s, n, host_int_bound<uint32_t>(c.lo, 0, UINT32_MAX),
                                      host_int_bound<uint32_t>(c.hi, 0, UINT32_MAX), in, out);
    case WNN_DATA_TYPE_INT8:
        return launch_clamp<int8_t>(s, n, host_int_bound<int8_t>(c.lo, INT8_MIN, INT8_MAX),
                                    host_int_bound<int8_t>(c.hi, INT8_MIN, INT8_MAX), in, out);
    case WNN_DATA_TYPE_UINT8:
        return launch_clamp<uint8_t>(s, n, host_int_bound<uint8_t>(c.lo, 0, UINT8_MAX),
                                     host_int_bound<uint8_t>(c.hi, 0, UINT8_MAX), in, out);
    case WNN_DATA_TYPE_INT64:
        return launch_clamp<int64_t>(s, n, (int64_t)c.lo_bits, (int64_t)c.hi_bits, in, out);
    case WNN_DATA_TYPE_UINT64: return launch_clamp<uint64_t>(s, n, c.lo_bits, c.hi_bits, in, out);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" bool wnn__cu_cast_supported(wnn_data_type from, wnn_data_type to)
{
    return from >= WNN_DATA_TYPE_FLOAT32 && from <= WNN_DATA_TYPE_UINT8 && to >= WNN_DATA_TYPE_FLOAT32 &&
           to <= WNN_DATA_TYPE_UINT8;
}

extern "C" cudaError_t wnn__cu_cast(cudaStream_t s, wnn_data_type from, wnn_data_type to, uint64_t n,
                                    const void *in, void *out)
{
#define WNNCU_CAST_FROM(S) return cast_from<S>(s, to, n, in, out)
    WNNCU_TYPE_CASES(from, WNNCU_CAST_FROM)
#undef WNNCU_CAST_FROM
    return cudaErrorInvalidValue;
}
