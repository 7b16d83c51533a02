/* SPDX-License-Identifier: Apache-2.0 */
/*
** elementwise_ops.cuh -- the scalar device function of every element-wise
** operator, per element type, and the result type each gives: what the
** kernels of kernels_binary.cu, kernels_unary.cu and kernels_fused.cu
** apply to each element, so that a fused run computes exactly what the
** operator's own kernel does.
**
** Semantics follow the cpu kernels bit for bit where they can: float16
** computes in float32 and rounds once; integers wrap; division by zero
** gives 0; max and min propagate NaN; the math beyond the basic operators
** works in double like the cpu's, except erf and gelu, which run at
** bandwidth in float within WebNN's tolerances.
*/
#ifndef WNN_BACKENDS_CUDA_ELEMENTWISE_OPS_CUH
#define WNN_BACKENDS_CUDA_ELEMENTWISE_OPS_CUH

#include "backends/cuda/cuda_common.cuh"

namespace wnncu {

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

/* ------------------------------------------------------------------------ */
/* Unary operators                                                           */
/* ------------------------------------------------------------------------ */

/* The result type: uint8 for the predicates, else the input's. */
template <int OP, typename T> struct unary_result { typedef T type; };
template <typename T> struct unary_result<WNN__OP_IS_NAN, T> { typedef uint8_t type; };
template <typename T> struct unary_result<WNN__OP_IS_INFINITE, T> { typedef uint8_t type; };

/* gelu(x) = x Phi(x) in float, Phi(x) = erfc(-x/sqrt(2)) / 2, which keeps
** the relative precision that 1 + erf(x/sqrt(2)) loses to cancellation for
** negative x; Phi(x) = 1 - erfc(|x|/sqrt(2)) / 2 for x >= 0. erfc(z) is
** Numerical Recipes' erfcc, t exp(-z^2 + P(t)) with t = 1 / (1 + z/2)
** (relative error below 1.2e-7). z^2 = x^2 / 2 is taken exactly, x^2 as a
** float and its fma remainder, and the exponent -x^2/2 + P(t) is reduced
** by n ln 2 (ln 2 in two parts) before its small second part is added, so
** one expf of an argument under 2 in magnitude and a power of two carry it;
** rounding the whole exponent as one float would cost up to 64 ulp at
** x = -10. That is 7.4 ulp at worst over every float in [-10, 10]
** (emulated with glibc's expf; WebNN allows 18), with one reciprocal and
** one exponential: the former form took two exponentials and a division
** and ran gelu at 0.73 of PyTorch's speed. Beyond +10 Phi is 1 to float
** precision; below -10, where erfc would be subnormal, and for NaN the
** tail (not inlined, so that it costs the common path no registers) takes
** double as the cpu does. */
static __device__ __noinline__ float gelu_float_tail(float x)
{
    return (float)(0.5 * (double)x * erfc(-(double)x * 0.70710678118654752440));
}

__device__ __forceinline__ float gelu_float(float x)
{
    if (x > 10.0f)
        return x;
    if (!(x >= -10.0f))
        return gelu_float_tail(x);
    const float z = fabsf(x) * 0.70710678f, t = 1.0f / fmaf(0.5f, z, 1.0f);
    float p = 0.17087277f;
    p = fmaf(p, t, -0.82215223f);
    p = fmaf(p, t, 1.48851587f);
    p = fmaf(p, t, -1.13520398f);
    p = fmaf(p, t, 0.27886807f);
    p = fmaf(p, t, -0.18628806f);
    p = fmaf(p, t, 0.09678418f);
    p = fmaf(p, t, 0.37409196f);
    p = fmaf(p, t, 1.00002368f);
    p = fmaf(p, t, -1.26551223f);
    const float xx = x * x, xe = fmaf(x, x, -xx);
    const float hi = -0.5f * xx, lo = fmaf(-0.5f, xe, p);
    const float n = rintf(hi * 1.44269504f); /* in [-72, 0] */
    float r = fmaf(n, -0.693145752f, hi);
    r = fmaf(n, -1.42860677e-06f, r) + lo;
    const float scale = __int_as_float(((int)n + 127) << 23);
    const float h = 0.5f * t * expf(r) * scale;
    return x * (x >= 0.0f ? 1.0f - h : h);
}

/* gelu for float16 results: the same erfc with the fast reciprocal and
** exponential and the argument in one float, relative error about 1e-5 at
** worst, far inside float16's steps of 2^-11 (WebNN allows 18 of them),
** at half gelu_float's instructions, which kept float16 below memory
** speed. Infinities and NaN come out as the cpu's. */
__device__ __forceinline__ float gelu_half(float x)
{
    const float z = -x * 0.707106781f, a = fabsf(z);
    const float t = __fdividef(1.0f, fmaf(0.5f, a, 1.0f));
    float p = 0.17087277f;
    p = fmaf(p, t, -0.82215223f);
    p = fmaf(p, t, 1.48851587f);
    p = fmaf(p, t, -1.13520398f);
    p = fmaf(p, t, 0.27886807f);
    p = fmaf(p, t, -0.18628806f);
    p = fmaf(p, t, 0.09678418f);
    p = fmaf(p, t, 0.37409196f);
    p = fmaf(p, t, 1.00002368f);
    p = fmaf(p, t, -1.26551223f);
    float e = t * __expf(fmaf(-a, a, p));
    e = z < 0.0f ? 2.0f - e : e;
    return 0.5f * x * e;
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
    else if constexpr (OP == WNN__OP_SIGMOID) {
        /* exp of -|x| never overflows, so results fall gradually into the
        ** subnormal range (1 / (1 + exp(-x)) gave 0 below x = -88.72) */
        float e = expf(-fabsf(x));
        return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
    }
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
        else if constexpr (OP == WNN__OP_GELU && is_h16<T>::value)
            r = gelu_half(v);
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

} // namespace wnncu

#endif
