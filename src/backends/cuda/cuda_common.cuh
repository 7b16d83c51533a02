/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_common.cuh -- device-side helpers shared by the kernels_*.cu files:
** the element types, float16 conversions, loads and stores through float,
** the comparison key of each type, the conversions of cast, wide loads and
** stores, broadcast offsets, and launch geometry.
*/
#ifndef WNN_BACKENDS_CUDA_CUDA_COMMON_CUH
#define WNN_BACKENDS_CUDA_CUDA_COMMON_CUH

#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "backends/cuda/cuda_kernels.h"

namespace wnncu {

/* binary16 storage; arithmetic happens in float */
struct h16 {
    uint16_t bits;
};

__device__ __forceinline__ float h2f(h16 x) { return __half2float(__ushort_as_half(x.bits)); }
__device__ __forceinline__ h16 f2h(float f) { return h16{__half_as_ushort(__float2half_rn(f))}; }

/* ---- per type traits ---------------------------------------------------- */

template <typename T> struct is_h16 { static constexpr bool value = false; };
template <> struct is_h16<h16> { static constexpr bool value = true; };

template <typename T> struct is_float_type { static constexpr bool value = false; };
template <> struct is_float_type<float> { static constexpr bool value = true; };
template <> struct is_float_type<h16> { static constexpr bool value = true; };

template <typename T> struct unsigned_of;
template <> struct unsigned_of<int32_t> { typedef uint32_t type; };
template <> struct unsigned_of<uint32_t> { typedef uint32_t type; };
template <> struct unsigned_of<int64_t> { typedef uint64_t type; };
template <> struct unsigned_of<uint64_t> { typedef uint64_t type; };
template <> struct unsigned_of<int8_t> { typedef uint8_t type; };
template <> struct unsigned_of<uint8_t> { typedef uint8_t type; };

template <typename T> struct limits_of;
template <> struct limits_of<int32_t> { static constexpr int64_t lo = INT32_MIN; static constexpr int64_t hi = INT32_MAX; };
template <> struct limits_of<uint32_t> { static constexpr int64_t lo = 0; static constexpr int64_t hi = UINT32_MAX; };
template <> struct limits_of<int8_t> { static constexpr int64_t lo = INT8_MIN; static constexpr int64_t hi = INT8_MAX; };
template <> struct limits_of<uint8_t> { static constexpr int64_t lo = 0; static constexpr int64_t hi = UINT8_MAX; };

/* Keeps the low bits of v, as C's conversion to an unsigned type does. */
template <typename T> __device__ __forceinline__ T wrap(uint64_t v)
{
    return (T)(typename unsigned_of<T>::type)v;
}

/* ---- element i as float, and back (float16 widened, rounded once) ---------- */

template <typename T> __device__ __forceinline__ float load_f(const T *p, uint64_t i)
{
    if constexpr (is_h16<T>::value)
        return h2f(p[i]);
    else
        return (float)p[i];
}

template <typename T> __device__ __forceinline__ void store_f(T *p, uint64_t i, float v)
{
    if constexpr (is_h16<T>::value)
        p[i] = f2h(v);
    else
        p[i] = v;
}

/* What comparisons (argMin/argMax, maxPool2d) see: float for the float types
** (NaN kept), the value widened to 64 bits for integers. */
template <typename T> struct order_key {
    typedef typename std::conditional<is_float_type<T>::value, float,
                                      typename std::conditional<std::is_signed<T>::value, int64_t, uint64_t>::type>::type K;
    __device__ static K of(T x)
    {
        if constexpr (is_h16<T>::value)
            return h2f(x);
        else
            return (K)x;
    }
};

/* ---- conversions of cast (through double, saturating, NaN to 0) --------- */

template <typename T> __device__ __forceinline__ double to_double(T x) { return (double)x; }
template <> __device__ __forceinline__ double to_double<h16>(h16 x) { return (double)h2f(x); }

template <typename T> __device__ __forceinline__ T from_double(double d);
template <> __device__ __forceinline__ float from_double<float>(double d) { return (float)d; }
template <> __device__ __forceinline__ h16 from_double<h16>(double d) { return f2h((float)d); }
template <typename T> __device__ __forceinline__ T int_from_double(double d)
{
    if (d != d)
        return 0;
    if (d <= (double)limits_of<T>::lo)
        return (T)limits_of<T>::lo;
    if (d >= (double)limits_of<T>::hi)
        return (T)limits_of<T>::hi;
    return (T)d;
}
template <> __device__ __forceinline__ int32_t from_double<int32_t>(double d) { return int_from_double<int32_t>(d); }
template <> __device__ __forceinline__ uint32_t from_double<uint32_t>(double d) { return int_from_double<uint32_t>(d); }
template <> __device__ __forceinline__ int8_t from_double<int8_t>(double d) { return int_from_double<int8_t>(d); }
template <> __device__ __forceinline__ uint8_t from_double<uint8_t>(double d) { return int_from_double<uint8_t>(d); }
/* (double)INT64_MAX rounds up to 2^63, so ">=" catches every value that
** would not fit; likewise 2^64 for uint64. */
template <> __device__ __forceinline__ int64_t from_double<int64_t>(double d)
{
    if (d != d)
        return 0;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    if (d >= 9223372036854775808.0)
        return INT64_MAX;
    return (int64_t)d;
}
template <> __device__ __forceinline__ uint64_t from_double<uint64_t>(double d)
{
    if (d != d || d <= 0.0)
        return 0;
    if (d >= 18446744073709551616.0)
        return UINT64_MAX;
    return (uint64_t)d;
}

/* ---- wide loads and stores -------------------------------------------------- */

template <int BYTES> struct word;
template <> struct word<16> { typedef uint4 type; };
template <> struct word<8> { typedef uint2 type; };
template <> struct word<4> { typedef unsigned int type; };
template <> struct word<2> { typedef unsigned short type; };
template <> struct word<1> { typedef unsigned char type; };

/* N elements at p, which is aligned to N * sizeof(T) bytes, in one access. */
template <typename T, int N> __device__ __forceinline__ void vload(T (&x)[N], const T *p)
{
    typedef typename word<N * sizeof(T)>::type W;
    W w = *reinterpret_cast<const W *>(p);
    memcpy(x, &w, sizeof w);
}

template <typename T, int N> __device__ __forceinline__ void vstore(T *p, const T (&x)[N])
{
    typedef typename word<N * sizeof(T)>::type W;
    W w;
    memcpy(&w, x, sizeof w);
    *reinterpret_cast<W *>(p) = w;
}

/* Elements per thread for a kernel reading In and writing Out: as many as
** fit 16 bytes of the wider of the two. */
template <typename In, typename Out> struct vec_width {
    static constexpr int value = 16 / (sizeof(In) > sizeof(Out) ? sizeof(In) : sizeof(Out));
};

/* ---- launch geometry ---------------------------------------------------------- */

static constexpr unsigned THREADS = 256;

/* Blocks for work items handled one per thread in a grid-stride loop. */
static inline unsigned blocks_for(uint64_t items)
{
    uint64_t b = (items + THREADS - 1) / THREADS;
    if (b < 1)
        b = 1;
    if (b > (1u << 20))
        b = 1u << 20;
    return (unsigned)b;
}

__device__ __forceinline__ uint64_t global_id() { return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ uint64_t global_stride() { return (uint64_t)gridDim.x * blockDim.x; }

static inline bool aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* Offset of output element i in input k of a broadcast plan. */
__device__ __forceinline__ void bcast_offsets(const wnn__cu_bcast &p, uint64_t i, uint64_t *off)
{
    uint64_t rest = i;
    off[0] = off[1] = off[2] = 0;
    for (int d = (int)p.rank - 1; d >= 0; d--) {
        uint64_t dim = p.shape[d];
        uint64_t idx = rest % dim;
        rest /= dim;
        off[0] += idx * p.stride[0][d];
        off[1] += idx * p.stride[1][d];
        off[2] += idx * p.stride[2][d];
    }
}

/* Runs f(T-typed tag) for the storage type of t; returns false when t is
** not one of the eight element types. */
#define WNNCU_TYPE_CASES(t, F)                                                                        \
    switch (t) {                                                                                      \
    case WNN_DATA_TYPE_FLOAT32: F(float); break;                                                      \
    case WNN_DATA_TYPE_FLOAT16: F(::wnncu::h16); break;                                               \
    case WNN_DATA_TYPE_INT32: F(int32_t); break;                                                      \
    case WNN_DATA_TYPE_UINT32: F(uint32_t); break;                                                    \
    case WNN_DATA_TYPE_INT64: F(int64_t); break;                                                      \
    case WNN_DATA_TYPE_UINT64: F(uint64_t); break;                                                    \
    case WNN_DATA_TYPE_INT8: F(int8_t); break;                                                        \
    case WNN_DATA_TYPE_UINT8: F(uint8_t); break;                                                      \
    default: return cudaErrorInvalidValue;                                                            \
    }

/* Plain unsigned storage of an element size, for kernels that only move
** bits. */
#define WNNCU_SIZE_CASES(size, F)                                                                     \
    switch (size) {                                                                                   \
    case 1: F(uint8_t); break;                                                                        \
    case 2: F(uint16_t); break;                                                                       \
    case 4: F(uint32_t); break;                                                                       \
    case 8: F(uint64_t); break;                                                                       \
    default: return cudaErrorInvalidValue;                                                            \
    }

} // namespace wnncu

#endif
