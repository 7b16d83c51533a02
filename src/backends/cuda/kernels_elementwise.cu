/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_elementwise.cu -- element-wise kernels: binary operators with
** broadcasting (arithmetic, comparisons, logical, prelu), where, the unary
** operators, clamp, cast and gemm's scaled broadcast of c.
**
** Every operator is a scalar device function per type; a kernel template
** applies it either along flat arrays (each thread moving 16 bytes of the
** wider side per access, single-element inputs held in a register) or along
** a broadcast plan (index arithmetic per element). Semantics follow the cpu
** kernels bit for bit where they can: float16 computes in float32 and
** rounds once; integers wrap; division by zero gives 0; max and min
** propagate NaN; the math beyond the basic operators works in double like
** the cpu's, except erf and gelu, which run at bandwidth in float within
** WebNN's tolerances.
*/
#include <type_traits>

#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* Binary operators                                                          */
/* ------------------------------------------------------------------------ */

__device__ __forceinline__ uint64_t pow_wrapping(uint64_t base, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1u)
            r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}

template <int OP> __device__ __forceinline__ float float_binary(float a, float b)
{
    if constexpr (OP == WNN__OP_ADD)
        return a + b;
    else if constexpr (OP == WNN__OP_SUB)
        return a - b;
    else if constexpr (OP == WNN__OP_MUL)
        return a * b;
    else if constexpr (OP == WNN__OP_DIV)
        return a / b;
    else if constexpr (OP == WNN__OP_MAX)
        return (a > b || a != a) ? a : b;
    else if constexpr (OP == WNN__OP_MIN)
        return (a < b || a != a) ? a : b;
    else if constexpr (OP == WNN__OP_POW)
        return powf(a, b);
    else /* prelu */
        return a < 0 ? a * b : a;
}

template <int OP, typename T> __device__ __forceinline__ T int_binary(T a, T b)
{
    typedef typename unsigned_of<T>::type U;
    constexpr bool is_signed = (T)-1 < (T)0;
    if constexpr (OP == WNN__OP_ADD)
        return wrap<T>((uint64_t)(U)((U)a + (U)b));
    else if constexpr (OP == WNN__OP_SUB)
        return wrap<T>((uint64_t)(U)((U)a - (U)b));
    else if constexpr (OP == WNN__OP_MUL)
        return wrap<T>((uint64_t)(U)((U)a * (U)b));
    else if constexpr (OP == WNN__OP_MAX)
        return a > b ? a : b;
    else if constexpr (OP == WNN__OP_MIN)
        return a < b ? a : b;
    else if constexpr (OP == WNN__OP_DIV) {
        if (b == 0)
            return 0;
        if constexpr (is_signed) {
            if (b == (T)-1)
                return wrap<T>(0u - (uint64_t)(int64_t)a);
        }
        return (T)(a / b);
    } else if constexpr (OP == WNN__OP_POW) {
        if constexpr (is_signed) {
            if (b < 0) {
                if (a == 1)
                    return 1;
                if (a == (T)-1)
                    return ((uint64_t)(int64_t)b & 1u) ? (T)-1 : (T)1;
                return 0;
            }
            return wrap<T>(pow_wrapping((uint64_t)(int64_t)a, (uint64_t)(int64_t)b));
        } else {
            return wrap<T>(pow_wrapping((uint64_t)a, (uint64_t)b));
        }
    } else { /* prelu: the product wraps */
        return a < 0 ? wrap<T>((uint64_t)(U)((U)a * (U)b)) : a;
    }
}

template <int OP> struct is_compare {
    static constexpr bool value = OP == WNN__OP_EQUAL || OP == WNN__OP_NOT_EQUAL || OP == WNN__OP_GREATER ||
                                  OP == WNN__OP_GREATER_OR_EQUAL || OP == WNN__OP_LESSER ||
                                  OP == WNN__OP_LESSER_OR_EQUAL;
};

template <int OP, typename V> __device__ __forceinline__ uint8_t compare(V a, V b)
{
    if constexpr (OP == WNN__OP_EQUAL)
        return a == b;
    else if constexpr (OP == WNN__OP_NOT_EQUAL)
        return a != b;
    else if constexpr (OP == WNN__OP_GREATER)
        return a > b;
    else if constexpr (OP == WNN__OP_GREATER_OR_EQUAL)
        return a >= b;
    else if constexpr (OP == WNN__OP_LESSER)
        return a < b;
    else
        return a <= b;
}

/* The result type of OP on T inputs. */
template <int OP, typename T> struct binary_result { typedef T type; };
#define WNNCU_U8_RESULT(OPV)                                                                          \
    template <typename T> struct binary_result<OPV, T> { typedef uint8_t type; };
WNNCU_U8_RESULT(WNN__OP_EQUAL)
WNNCU_U8_RESULT(WNN__OP_NOT_EQUAL)
WNNCU_U8_RESULT(WNN__OP_GREATER)
WNNCU_U8_RESULT(WNN__OP_GREATER_OR_EQUAL)
WNNCU_U8_RESULT(WNN__OP_LESSER)
WNNCU_U8_RESULT(WNN__OP_LESSER_OR_EQUAL)
WNNCU_U8_RESULT(WNN__OP_LOGICAL_AND)
WNNCU_U8_RESULT(WNN__OP_LOGICAL_OR)
WNNCU_U8_RESULT(WNN__OP_LOGICAL_XOR)

template <int OP, typename T> __device__ __forceinline__ typename binary_result<OP, T>::type binary(T a, T b)
{
    if constexpr (OP == WNN__OP_LOGICAL_AND)
        return (a != 0) && (b != 0);
    else if constexpr (OP == WNN__OP_LOGICAL_OR)
        return (a != 0) || (b != 0);
    else if constexpr (OP == WNN__OP_LOGICAL_XOR)
        return (a != 0) != (b != 0);
    else if constexpr (is_compare<OP>::value) {
        if constexpr (is_h16<T>::value)
            return compare<OP>(h2f(a), h2f(b));
        else
            return compare<OP>(a, b);
    } else if constexpr (is_h16<T>::value) {
        if constexpr (OP == WNN__OP_PRELU) /* copies the input's bits where it is kept */
            return h2f(a) < 0 ? f2h(h2f(a) * h2f(b)) : a;
        else
            return f2h(float_binary<OP>(h2f(a), h2f(b)));
    } else if constexpr (is_float_type<T>::value) {
        return float_binary<OP>(a, b);
    } else {
        return int_binary<OP, T>(a, b);
    }
}

template <int OP, typename T>
__global__ void binary_flat(const T *__restrict__ a, const T *__restrict__ b, typename binary_result<OP, T>::type *__restrict__ o,
                            uint64_t n, uint32_t scalar_mask)
{
    typedef typename binary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    const bool sa = scalar_mask & 1u, sb = scalar_mask & 2u;
    const T a0 = sa ? a[0] : T(), b0 = sb ? b[0] : T();
    const uint64_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        T x[N], y[N];
        R r[N];
        if (sa) {
#pragma unroll
            for (int k = 0; k < N; k++)
                x[k] = a0;
        } else {
            vload<T, N>(x, a + v * N);
        }
        if (sb) {
#pragma unroll
            for (int k = 0; k < N; k++)
                y[k] = b0;
        } else {
            vload<T, N>(y, b + v * N);
        }
#pragma unroll
        for (int k = 0; k < N; k++)
            r[k] = binary<OP, T>(x[k], y[k]);
        vstore<R, N>(o + v * N, r);
    }
    const uint64_t i = nvec * N + global_id();
    if (i < n)
        o[i] = binary<OP, T>(sa ? a0 : a[i], sb ? b0 : b[i]);
}

template <int OP, typename T>
__global__ void binary_general(const T *__restrict__ a, const T *__restrict__ b, typename binary_result<OP, T>::type *__restrict__ o,
                               const wnn__cu_bcast p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t off[3];
        bcast_offsets(p, i, off);
        o[i] = binary<OP, T>(a[off[0]], b[off[1]]);
    }
}

template <int OP, typename T>
cudaError_t launch_binary(cudaStream_t s, const wnn__cu_bcast *p, const void *a, const void *b, void *o)
{
    typedef typename binary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    if (p->flat && aligned16(a) && aligned16(b) && aligned16(o))
        binary_flat<OP, T><<<blocks_for(p->count / N + 1), THREADS, 0, s>>>((const T *)a, (const T *)b, (R *)o,
                                                                            p->count, p->scalar_mask);
    else
        binary_general<OP, T><<<blocks_for(p->count), THREADS, 0, s>>>((const T *)a, (const T *)b, (R *)o, *p);
    return cudaGetLastError();
}

/* The types each binary operator takes (the cpu backend's). */
bool binary_types(wnn__op op, wnn_data_type t)
{
    switch (op) {
    case WNN__OP_ADD:
    case WNN__OP_SUB:
    case WNN__OP_MUL:
    case WNN__OP_DIV:
    case WNN__OP_MAX:
    case WNN__OP_MIN:
    case WNN__OP_POW:
    case WNN__OP_EQUAL:
    case WNN__OP_NOT_EQUAL:
    case WNN__OP_GREATER:
    case WNN__OP_GREATER_OR_EQUAL:
    case WNN__OP_LESSER:
    case WNN__OP_LESSER_OR_EQUAL:
        return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8;
    case WNN__OP_LOGICAL_AND:
    case WNN__OP_LOGICAL_OR:
    case WNN__OP_LOGICAL_XOR:
        return t == WNN_DATA_TYPE_UINT8;
    case WNN__OP_PRELU:
        return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16 || t == WNN_DATA_TYPE_INT32 ||
               t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_INT8;
    default:
        return false;
    }
}

template <int OP>
cudaError_t binary_for_type(cudaStream_t s, wnn_data_type t, const wnn__cu_bcast *p, const void *a, const void *b,
                            void *o)
{
#define WNNCU_LAUNCH_BINARY(T) return launch_binary<OP, T>(s, p, a, b, o)
    WNNCU_TYPE_CASES(t, WNNCU_LAUNCH_BINARY)
#undef WNNCU_LAUNCH_BINARY
    return cudaErrorInvalidValue;
}

/* logical operators and prelu take few types: instantiate only those */
template <int OP>
cudaError_t logical_launch(cudaStream_t s, const wnn__cu_bcast *p, const void *a, const void *b, void *o)
{
    return launch_binary<OP, uint8_t>(s, p, a, b, o);
}

cudaError_t prelu_launch(cudaStream_t s, wnn_data_type t, const wnn__cu_bcast *p, const void *a, const void *b,
                         void *o)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return launch_binary<WNN__OP_PRELU, float>(s, p, a, b, o);
    case WNN_DATA_TYPE_FLOAT16: return launch_binary<WNN__OP_PRELU, h16>(s, p, a, b, o);
    case WNN_DATA_TYPE_INT32: return launch_binary<WNN__OP_PRELU, int32_t>(s, p, a, b, o);
    case WNN_DATA_TYPE_INT64: return launch_binary<WNN__OP_PRELU, int64_t>(s, p, a, b, o);
    case WNN_DATA_TYPE_INT8: return launch_binary<WNN__OP_PRELU, int8_t>(s, p, a, b, o);
    default: return cudaErrorInvalidValue;
    }
}

/* ------------------------------------------------------------------------ */
/* where                                                                     */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void where_flat(const uint8_t *__restrict__ c, const T *__restrict__ t, const T *__restrict__ f,
                           T *__restrict__ o, uint64_t n, uint32_t scalar_mask)
{
    const bool sc = scalar_mask & 1u, st = scalar_mask & 2u, sf = scalar_mask & 4u;
    for (uint64_t i = global_id(); i < n; i += global_stride())
        o[i] = c[sc ? 0 : i] ? t[st ? 0 : i] : f[sf ? 0 : i];
}

template <typename T>
__global__ void where_general(const uint8_t *__restrict__ c, const T *__restrict__ t, const T *__restrict__ f,
                              T *__restrict__ o, const wnn__cu_bcast p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t off[3];
        bcast_offsets(p, i, off);
        o[i] = c[off[0]] ? t[off[1]] : f[off[2]];
    }
}

/* ------------------------------------------------------------------------ */
/* Unary operators                                                           */
/* ------------------------------------------------------------------------ */

/* The result type: uint8 for the predicates, else the input's. */
template <int OP, typename T> struct unary_result { typedef T type; };
template <typename T> struct unary_result<WNN__OP_IS_NAN, T> { typedef uint8_t type; };
template <typename T> struct unary_result<WNN__OP_IS_INFINITE, T> { typedef uint8_t type; };

/* gelu(x) = x/2 erfc(-x/sqrt(2)) in float. erfc keeps the relative
** precision that 1 + erf(x/sqrt(2)) loses to cancellation for negative x,
** but it magnifies its argument's relative error about 2z^2 times, so the
** argument is carried in two floats, z = zh + zl (1/sqrt(2) split the same
** way, the product's rounding error from an fma), and erfc(zh) is corrected
** to first order with erfc'(z) ~ -2z erfc(z) for z > 0: erfc(zh + zl) =
** erfc(zh) (1 - 2 zh zl); for z <= 0 erfc is in [1, 2] and needs none.
** That keeps gelu within a few ulp of WebNN's 18 (4 over every float in
** [-16, 16] with glibc's erfcf) at one erfcf per element. The tails beyond
** +-10, where erfcf's result would be subnormal, and infinities and NaN
** take double as the cpu does. */
__device__ __forceinline__ float gelu_float(float x)
{
    if (!(x >= -10.0f && x <= 10.0f))
        return (float)(0.5 * (double)x * erfc(-(double)x * 0.70710678118654752440));
    const float c_hi = 0.707106769f, c_lo = 1.21016171e-08f;
    const float zh = -x * c_hi;
    const float zl = fmaf(-x, c_hi, -zh) - x * c_lo;
    return 0.5f * x * erfcf(zh) * fmaf(-2.0f * fmaxf(zh, 0.0f), zl, 1.0f);
}

/* The float operators computed in float: the priority-1 ones like the
** cpu's, erf (WebNN allows it an absolute 1/1024) and gelu. */
template <int OP> __device__ __forceinline__ float float_unary(float x)
{
    if constexpr (OP == WNN__OP_ABS)
        return fabsf(x);
    else if constexpr (OP == WNN__OP_NEG)
        return -x;
    else if constexpr (OP == WNN__OP_EXP)
        return expf(x);
    else if constexpr (OP == WNN__OP_LOG)
        return logf(x);
    else if constexpr (OP == WNN__OP_SQRT)
        return sqrtf(x);
    else if constexpr (OP == WNN__OP_RELU)
        return x < 0.0f ? 0.0f : x;
    else if constexpr (OP == WNN__OP_SIGMOID)
        return 1.0f / (1.0f + expf(-x));
    else if constexpr (OP == WNN__OP_ERF)
        return erff(x);
    else if constexpr (OP == WNN__OP_GELU)
        return gelu_float(x);
    else
        return tanhf(x);
}

template <int OP> struct is_double_math {
    static constexpr bool value = OP != WNN__OP_ABS && OP != WNN__OP_NEG && OP != WNN__OP_EXP && OP != WNN__OP_LOG &&
                                  OP != WNN__OP_SQRT && OP != WNN__OP_RELU && OP != WNN__OP_SIGMOID &&
                                  OP != WNN__OP_TANH && OP != WNN__OP_ERF && OP != WNN__OP_GELU;
};

/* The other float operators, in double like the cpu's. */
template <int OP> __device__ __forceinline__ double double_unary(double x, double alpha, double beta)
{
    if constexpr (OP == WNN__OP_CEIL)
        return ceil(x);
    else if constexpr (OP == WNN__OP_FLOOR)
        return floor(x);
    else if constexpr (OP == WNN__OP_COS)
        return cos(x);
    else if constexpr (OP == WNN__OP_SIN)
        return sin(x);
    else if constexpr (OP == WNN__OP_TAN)
        return tan(x);
    else if constexpr (OP == WNN__OP_RECIPROCAL)
        return 1.0 / x;
    else if constexpr (OP == WNN__OP_ROUND_EVEN)
        return rint(x);
    else if constexpr (OP == WNN__OP_SIGN)
        return x > 0 ? 1.0 : x < 0 ? -1.0 : x;
    else if constexpr (OP == WNN__OP_ELU)
        return x >= 0 ? x : alpha * expm1(x);
    else if constexpr (OP == WNN__OP_HARD_SIGMOID) {
        double v = alpha * x + beta;
        return v < 0 ? 0.0 : v > 1 ? 1.0 : v;
    } else if constexpr (OP == WNN__OP_HARD_SWISH) {
        double t = x + 3.0;
        t = t < 0 ? 0.0 : t > 6 ? 6.0 : t;
        return x * t / 6.0;
    } else if constexpr (OP == WNN__OP_LEAKY_RELU)
        return x >= 0 ? x : alpha * x;
    else if constexpr (OP == WNN__OP_LINEAR)
        return alpha * x + beta;
    else if constexpr (OP == WNN__OP_SOFTPLUS) {
        if (x != x)
            return x;
        return (x > 0 ? x : 0.0) + log1p(exp(-fabs(x)));
    } else /* softsign */
        return x / (1.0 + fabs(x));
}

template <int OP, typename T>
__device__ __forceinline__ typename unary_result<OP, T>::type unary(T x, double alpha, double beta)
{
    if constexpr (OP == WNN__OP_IS_NAN) {
        if constexpr (is_h16<T>::value)
            return (x.bits & 0x7fffu) > 0x7c00u;
        else if constexpr (is_float_type<T>::value)
            return x != x;
        else
            return 0;
    } else if constexpr (OP == WNN__OP_IS_INFINITE) {
        if constexpr (is_h16<T>::value)
            return (x.bits & 0x7fffu) == 0x7c00u;
        else if constexpr (is_float_type<T>::value)
            return isinf(x) ? 1 : 0;
        else
            return 0;
    } else if constexpr (OP == WNN__OP_LOGICAL_NOT) {
        return x == 0;
    } else if constexpr (is_float_type<T>::value) {
        float v;
        if constexpr (is_h16<T>::value)
            v = h2f(x);
        else
            v = x;
        float r;
        if constexpr (is_double_math<OP>::value)
            r = (float)double_unary<OP>((double)v, alpha, beta);
        else
            r = float_unary<OP>(v);
        if constexpr (is_h16<T>::value)
            return f2h(r);
        else
            return r;
    } else { /* signed integers: abs, neg, relu, sign */
        if constexpr (OP == WNN__OP_ABS)
            return x < 0 ? wrap<T>(0u - (uint64_t)(int64_t)x) : x;
        else if constexpr (OP == WNN__OP_NEG)
            return wrap<T>(0u - (uint64_t)(int64_t)x);
        else if constexpr (OP == WNN__OP_RELU)
            return x < 0 ? (T)0 : x;
        else
            return (T)((x > 0) - (x < 0));
    }
}

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

/* ------------------------------------------------------------------------ */
/* gemm's c: dst = beta * broadcast(src)                                     */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void scaled_broadcast(const T *__restrict__ src, T *__restrict__ dst, const wnn__cu_bcast p, float beta)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t off[3];
        bcast_offsets(p, i, off);
        if constexpr (is_h16<T>::value) {
            float v = h2f(src[off[0]]);
            dst[i] = f2h(beta == 1.0f ? v : beta * v);
        } else {
            float v = src[off[0]];
            dst[i] = beta == 1.0f ? v : beta * v;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* fused runs                                                                */
/* ------------------------------------------------------------------------ */

/* Each thread runs the program over FUSED_V neighbouring elements at once,
** so that the dispatch on every instruction is paid once per FUSED_V
** elements, the operator's loop unrolls into independent work, and flat
** operands move with one wide access. The temporaries are named variables
** selected through switches, so they stay in registers. */
#define FUSED_V 4

template <bool HALF> __device__ __forceinline__ void fused_load(float (&d)[FUSED_V], const void *ptr, uint64_t base,
                                                                uint64_t count, bool scalar)
{
    if (scalar) {
        float v = HALF ? h2f(((const h16 *)ptr)[0]) : ((const float *)ptr)[0];
#pragma unroll
        for (int j = 0; j < FUSED_V; j++)
            d[j] = v;
    } else if (base + FUSED_V <= count) {
        if constexpr (HALF) {
            h16 h[FUSED_V];
            vload<h16, FUSED_V>(h, (const h16 *)ptr + base);
#pragma unroll
            for (int j = 0; j < FUSED_V; j++)
                d[j] = h2f(h[j]);
        } else {
            vload<float, FUSED_V>(d, (const float *)ptr + base);
        }
    } else {
#pragma unroll
        for (int j = 0; j < FUSED_V; j++)
            d[j] = base + j < count ? (HALF ? h2f(((const h16 *)ptr)[base + j]) : ((const float *)ptr)[base + j]) : 0.0f;
    }
}

template <bool HALF> __device__ __forceinline__ void fused_store(const float (&d)[FUSED_V], void *ptr, uint64_t base,
                                                                 uint64_t count, bool scalar)
{
    if (scalar) {
        if (base == 0) {
            if constexpr (HALF)
                ((h16 *)ptr)[0] = f2h(d[0]);
            else
                ((float *)ptr)[0] = d[0];
        }
    } else if (base + FUSED_V <= count) {
        if constexpr (HALF) {
            h16 h[FUSED_V];
#pragma unroll
            for (int j = 0; j < FUSED_V; j++)
                h[j] = f2h(d[j]);
            vstore<h16, FUSED_V>((h16 *)ptr + base, h);
        } else {
            vstore<float, FUSED_V>((float *)ptr + base, d);
        }
    } else {
        for (int j = 0; j < FUSED_V; j++)
            if (base + j < count) {
                if constexpr (HALF)
                    ((h16 *)ptr)[base + j] = f2h(d[j]);
                else
                    ((float *)ptr)[base + j] = d[j];
            }
    }
}

struct fused_temps {
    float t0[FUSED_V], t1[FUSED_V], t2[FUSED_V], t3[FUSED_V];
};

__device__ __forceinline__ void copy_v(float (&d)[FUSED_V], const float (&s)[FUSED_V])
{
#pragma unroll
    for (int j = 0; j < FUSED_V; j++)
        d[j] = s[j];
}

template <bool HALF>
__device__ __forceinline__ void fused_fetch(const wnn__cu_fused &p, const fused_temps &t, uint8_t src,
                                            float (&d)[FUSED_V], uint64_t base)
{
    switch (src) {
    case 0: copy_v(d, t.t0); break;
    case 1: copy_v(d, t.t1); break;
    case 2: copy_v(d, t.t2); break;
    case 3: copy_v(d, t.t3); break;
    default: {
        const uint32_t slot = src - WNN__CU_FUSED_TEMPS;
        fused_load<HALF>(d, p.ptr[slot], base, p.count, (p.scalar_slots >> slot) & 1u);
    }
    }
}

__device__ __forceinline__ void fused_put(fused_temps &t, uint8_t dst, const float (&v)[FUSED_V])
{
    switch (dst) {
    case 0: copy_v(t.t0, v); break;
    case 1: copy_v(t.t1, v); break;
    case 2: copy_v(t.t2, v); break;
    default: copy_v(t.t3, v); break;
    }
}

template <bool HALF>
__device__ __forceinline__ void fused_compute(uint8_t op, float (&d)[FUSED_V], const float (&a)[FUSED_V],
                                              const float (&b)[FUSED_V])
{
#define WNNCU_FUSED_CASE(OPV, EXPR)                                                                   \
    case OPV:                                                                                         \
        _Pragma("unroll") for (int j = 0; j < FUSED_V; j++) d[j] = EXPR;                              \
        break;
    switch (op) {
    WNNCU_FUSED_CASE(WNN__OP_ADD, float_binary<WNN__OP_ADD>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_SUB, float_binary<WNN__OP_SUB>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_MUL, float_binary<WNN__OP_MUL>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_DIV, float_binary<WNN__OP_DIV>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_MAX, float_binary<WNN__OP_MAX>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_MIN, float_binary<WNN__OP_MIN>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_POW, float_binary<WNN__OP_POW>(a[j], b[j]))
    WNNCU_FUSED_CASE(WNN__OP_ABS, float_unary<WNN__OP_ABS>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_NEG, float_unary<WNN__OP_NEG>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_EXP, float_unary<WNN__OP_EXP>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_LOG, float_unary<WNN__OP_LOG>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_SQRT, float_unary<WNN__OP_SQRT>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_RELU, float_unary<WNN__OP_RELU>(a[j]))
    WNNCU_FUSED_CASE(WNN__OP_SIGMOID, float_unary<WNN__OP_SIGMOID>(a[j]))
    default: WNNCU_FUSED_CASE(WNN__OP_TANH, float_unary<WNN__OP_TANH>(a[j]))
    }
#undef WNNCU_FUSED_CASE
    if constexpr (HALF) {
#pragma unroll
        for (int j = 0; j < FUSED_V; j++)
            d[j] = h2f(f2h(d[j]));
    }
}

template <bool HALF> __global__ void fused_kernel(const wnn__cu_fused p)
{
    fused_temps t;
    for (uint64_t base = global_id() * FUSED_V; base < p.count; base += global_stride() * FUSED_V) {
        for (uint32_t k = 0; k < p.n_ops; k++) {
            const wnn__cu_fused_op o = p.ops[k];
            if (o.kind == WNN__CU_FUSED_COMPUTE) {
                float a[FUSED_V], b[FUSED_V], d[FUSED_V];
                fused_fetch<HALF>(p, t, o.a, a, base);
                fused_fetch<HALF>(p, t, o.b, b, base);
                fused_compute<HALF>(o.op, d, a, b);
                fused_put(t, o.dst, d);
            } else {
                float d[FUSED_V];
                fused_fetch<HALF>(p, t, o.dst, d, base);
                fused_store<HALF>(d, (void *)p.ptr[o.a], base, p.count, o.b != 0);
            }
        }
    }
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

extern "C" bool wnn__cu_binary_supported(wnn__op op, wnn_data_type t) { return binary_types(op, t); }

extern "C" cudaError_t wnn__cu_binary(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_bcast *p,
                                      const void *a, const void *b, void *out)
{
    if (!binary_types(op, t))
        return cudaErrorInvalidValue;
    switch (op) {
    case WNN__OP_ADD: return binary_for_type<WNN__OP_ADD>(s, t, p, a, b, out);
    case WNN__OP_SUB: return binary_for_type<WNN__OP_SUB>(s, t, p, a, b, out);
    case WNN__OP_MUL: return binary_for_type<WNN__OP_MUL>(s, t, p, a, b, out);
    case WNN__OP_DIV: return binary_for_type<WNN__OP_DIV>(s, t, p, a, b, out);
    case WNN__OP_MAX: return binary_for_type<WNN__OP_MAX>(s, t, p, a, b, out);
    case WNN__OP_MIN: return binary_for_type<WNN__OP_MIN>(s, t, p, a, b, out);
    case WNN__OP_POW: return binary_for_type<WNN__OP_POW>(s, t, p, a, b, out);
    case WNN__OP_EQUAL: return binary_for_type<WNN__OP_EQUAL>(s, t, p, a, b, out);
    case WNN__OP_NOT_EQUAL: return binary_for_type<WNN__OP_NOT_EQUAL>(s, t, p, a, b, out);
    case WNN__OP_GREATER: return binary_for_type<WNN__OP_GREATER>(s, t, p, a, b, out);
    case WNN__OP_GREATER_OR_EQUAL: return binary_for_type<WNN__OP_GREATER_OR_EQUAL>(s, t, p, a, b, out);
    case WNN__OP_LESSER: return binary_for_type<WNN__OP_LESSER>(s, t, p, a, b, out);
    case WNN__OP_LESSER_OR_EQUAL: return binary_for_type<WNN__OP_LESSER_OR_EQUAL>(s, t, p, a, b, out);
    case WNN__OP_LOGICAL_AND: return logical_launch<WNN__OP_LOGICAL_AND>(s, p, a, b, out);
    case WNN__OP_LOGICAL_OR: return logical_launch<WNN__OP_LOGICAL_OR>(s, p, a, b, out);
    case WNN__OP_LOGICAL_XOR: return logical_launch<WNN__OP_LOGICAL_XOR>(s, p, a, b, out);
    case WNN__OP_PRELU: return prelu_launch(s, t, p, a, b, out);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t wnn__cu_where(cudaStream_t s, uint32_t elem_size, const wnn__cu_bcast *p, const void *cond,
                                     const void *t, const void *f, void *out)
{
#define WNNCU_LAUNCH_WHERE(T)                                                                         \
    if (p->flat)                                                                                      \
        where_flat<T><<<blocks_for(p->count), THREADS, 0, s>>>((const uint8_t *)cond, (const T *)t,     \
                                                               (const T *)f, (T *)out, p->count,       \
                                                               p->scalar_mask);                        \
    else                                                                                              \
        where_general<T><<<blocks_for(p->count), THREADS, 0, s>>>((const uint8_t *)cond, (const T *)t,  \
                                                                  (const T *)f, (T *)out, *p)
    WNNCU_SIZE_CASES(elem_size, WNNCU_LAUNCH_WHERE)
#undef WNNCU_LAUNCH_WHERE
    return cudaGetLastError();
}

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

extern "C" cudaError_t wnn__cu_scaled_broadcast(cudaStream_t s, wnn_data_type t, const wnn__cu_bcast *p,
                                                double beta, const void *src, void *dst)
{
    if (t == WNN_DATA_TYPE_FLOAT32)
        scaled_broadcast<float><<<blocks_for(p->count), THREADS, 0, s>>>((const float *)src, (float *)dst, *p,
                                                                         (float)beta);
    else if (t == WNN_DATA_TYPE_FLOAT16)
        scaled_broadcast<h16><<<blocks_for(p->count), THREADS, 0, s>>>((const h16 *)src, (h16 *)dst, *p,
                                                                       (float)beta);
    else
        return cudaErrorInvalidValue;
    return cudaGetLastError();
}

extern "C" bool wnn__cu_fusible(wnn__op op)
{
    switch (op) {
    case WNN__OP_ADD:
    case WNN__OP_SUB:
    case WNN__OP_MUL:
    case WNN__OP_DIV:
    case WNN__OP_MAX:
    case WNN__OP_MIN:
    case WNN__OP_POW:
    case WNN__OP_ABS:
    case WNN__OP_NEG:
    case WNN__OP_EXP:
    case WNN__OP_LOG:
    case WNN__OP_SQRT:
    case WNN__OP_RELU:
    case WNN__OP_SIGMOID:
    case WNN__OP_TANH:
        return true;
    default:
        return false;
    }
}

extern "C" cudaError_t wnn__cu_fused_run(cudaStream_t s, const wnn__cu_fused *p)
{
    for (uint32_t k = 0; k < WNN__CU_FUSED_MAX_PTRS; k++)
        if (p->ptr[k] && !((p->scalar_slots >> k) & 1u) && ((uintptr_t)p->ptr[k] & 15u))
            return cudaErrorMisalignedAddress;
    const unsigned blocks = blocks_for((p->count + FUSED_V - 1) / FUSED_V);
    if (p->half)
        fused_kernel<true><<<blocks, THREADS, 0, s>>>(*p);
    else
        fused_kernel<false><<<blocks, THREADS, 0, s>>>(*p);
    return cudaGetLastError();
}
