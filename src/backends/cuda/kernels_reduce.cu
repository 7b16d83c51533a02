/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_reduce.cu -- kernels that work along axes: softmax, the ten
** reductions, argMin/argMax, cumulativeSum, and the normalizations.
**
** A reduction gives each output to a group of threads: one thread when the
** reduced elements are strided (neighbouring threads then read neighbouring
** elements), a warp when they are contiguous, a whole block when they are
** many and the outputs few. Groups combine with shuffles (and shared memory
** across warps). Float types accumulate in double and round once, integers
** wrap in 64 bits, max and min propagate NaN -- the cpu's rules, so results
** differ from it only by the order of the additions.
*/
#include <type_traits>

#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* Group-wide combination                                                    */
/* ------------------------------------------------------------------------ */

struct comb_add {
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const { return a + b; }
};
struct comb_mul {
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const { return a * b; }
};
struct comb_max { /* NaN wins */
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const
    {
        return (b > a || b != b) && a == a ? b : a;
    }
};
struct comb_min {
    template <typename A> __device__ __forceinline__ A operator()(A a, A b) const
    {
        return (b < a || b != b) && a == a ? b : a;
    }
};

/* Combines v across the GROUP threads that share it (GROUP 1, 32 or a
** whole block of GROUP threads); every thread of the group gets the result.
** smem holds GROUP / 32 values. */
template <int GROUP, typename A, typename F> __device__ __forceinline__ A group_all(A v, F f, A *smem)
{
    if constexpr (GROUP > 1) {
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            v = f(v, __shfl_xor_sync(0xffffffffu, v, off));
    }
    if constexpr (GROUP > 32) {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        if (lane == 0)
            smem[warp] = v;
        __syncthreads();
        v = smem[0];
        for (int w = 1; w < GROUP / 32; w++)
            v = f(v, smem[w]);
        __syncthreads();
    }
    return v;
}

/* ------------------------------------------------------------------------ */
/* softmax                                                                   */
/* ------------------------------------------------------------------------ */

/* Rows of len contiguous elements, one group (warp or block) per row. */
template <typename T, int GROUP>
__global__ void softmax_rows(const T *__restrict__ in, T *__restrict__ out, uint64_t rows, uint32_t len)
{
    __shared__ float smem[GROUP / 32 > 0 ? GROUP / 32 : 1];
    const uint32_t lane = threadIdx.x % GROUP;
    const uint64_t per_block = blockDim.x / GROUP;
    for (uint64_t r = blockIdx.x * per_block + threadIdx.x / GROUP; r < rows; r += (uint64_t)gridDim.x * per_block) {
        const T *x = in + r * len;
        T *y = out + r * len;
        float m = -INFINITY;
        for (uint32_t i = lane; i < len; i += GROUP) {
            float v = load_f(x, i);
            m = v > m || v != v ? v : m;
        }
        m = group_all<GROUP>(m, comb_max(), smem);
        float sum = 0.0f;
        for (uint32_t i = lane; i < len; i += GROUP)
            sum += expf(load_f(x, i) - m);
        sum = group_all<GROUP>(sum, comb_add(), smem);
        for (uint32_t i = lane; i < len; i += GROUP)
            store_f(y, i, expf(load_f(x, i) - m) / sum);
    }
}

/* Columns: [outer, len, inner] with inner > 1, one thread per (outer,
** column); neighbouring threads read neighbouring columns. */
template <typename T>
__global__ void softmax_columns(const T *__restrict__ in, T *__restrict__ out, uint64_t outer, uint32_t len,
                                uint64_t inner)
{
    for (uint64_t c = global_id(); c < outer * inner; c += global_stride()) {
        uint64_t o = c / inner, i = c % inner;
        const T *x = in + o * len * inner + i;
        T *y = out + o * len * inner + i;
        float m = load_f(x, 0);
        for (uint32_t l = 1; l < len; l++) {
            float v = load_f(x, (uint64_t)l * inner);
            m = v > m ? v : m;
        }
        float sum = 0.0f;
        for (uint32_t l = 0; l < len; l++)
            sum += expf(load_f(x, (uint64_t)l * inner) - m);
        for (uint32_t l = 0; l < len; l++)
            store_f(y, (uint64_t)l * inner, expf(load_f(x, (uint64_t)l * inner) - m) / sum);
    }
}

template <typename T>
cudaError_t softmax_typed(cudaStream_t s, uint64_t outer, uint32_t len, uint64_t inner, const void *in, void *out)
{
    if (inner > 1) {
        softmax_columns<T><<<blocks_for(outer * inner), THREADS, 0, s>>>((const T *)in, (T *)out, outer, len, inner);
    } else if (len >= 2048) {
        unsigned blocks = outer > (1u << 20) ? (1u << 20) : (unsigned)outer;
        softmax_rows<T, 256><<<blocks, 256, 0, s>>>((const T *)in, (T *)out, outer, len);
    } else {
        uint64_t b = (outer + 7) / 8;
        unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
        softmax_rows<T, 32><<<blocks, 256, 0, s>>>((const T *)in, (T *)out, outer, len);
    }
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------ */
/* Reductions                                                                */
/* ------------------------------------------------------------------------ */

__device__ __forceinline__ uint64_t kept_offset(const wnn__cu_reduce &p, uint64_t o)
{
    uint64_t off = 0;
    for (int d = (int)p.kept_rank - 1; d >= 0; d--) {
        off += (o % p.kept_shape[d]) * p.kept_stride[d];
        o /= p.kept_shape[d];
    }
    return off;
}

__device__ __forceinline__ uint64_t red_offset(const wnn__cu_reduce &p, uint64_t r)
{
    if (p.red_rank == 1)
        return r * p.red_stride[0];
    uint64_t off = 0;
    for (int d = (int)p.red_rank - 1; d >= 0; d--) {
        off += (r % p.red_shape[d]) * p.red_stride[d];
        r /= p.red_shape[d];
    }
    return off;
}

template <typename T> struct is_signed_int {
    static constexpr bool value = std::is_integral<T>::value && std::is_signed<T>::value;
};

template <typename T> __device__ __forceinline__ double load_d(const T *p, uint64_t i)
{
    if constexpr (is_h16<T>::value)
        return (double)h2f(p[i]);
    else
        return (double)p[i];
}

/* The accumulator of OP over T, as on the cpu: double for the float types,
** 64-bit integers (wrapping) for the others. */
template <int OP, typename T> struct reducer {
    static constexpr bool flt = is_float_type<T>::value;
    static constexpr bool is_max = OP == WNN__OP_REDUCE_MAX;
    static constexpr bool is_min = OP == WNN__OP_REDUCE_MIN;
    typedef typename std::conditional<
        flt, double, typename std::conditional<(is_max || is_min) && is_signed_int<T>::value, int64_t, uint64_t>::type>::type A;

    __device__ static A init()
    {
        if constexpr (OP == WNN__OP_REDUCE_PRODUCT)
            return (A)1;
        else if constexpr (is_max) {
            if constexpr (flt)
                return -INFINITY;
            else if constexpr (is_signed_int<T>::value)
                return INT64_MIN;
            else
                return 0;
        } else if constexpr (is_min) {
            if constexpr (flt)
                return INFINITY;
            else if constexpr (is_signed_int<T>::value)
                return INT64_MAX;
            else
                return UINT64_MAX;
        } else
            return (A)0;
    }

    __device__ static void fold(A &a, T x)
    {
        if constexpr (flt) {
            double v = load_d(&x, 0);
            if constexpr (OP == WNN__OP_REDUCE_L1)
                a += fabs(v);
            else if constexpr (OP == WNN__OP_REDUCE_L2 || OP == WNN__OP_REDUCE_SUM_SQUARE)
                a += v * v;
            else if constexpr (OP == WNN__OP_REDUCE_PRODUCT)
                a *= v;
            else if constexpr (is_max) {
                if (v > a || v != v)
                    a = v;
            } else if constexpr (is_min) {
                if (v < a || v != v)
                    a = v;
            } else
                a += v;
        } else {
            typedef typename std::conditional<is_signed_int<T>::value, int64_t, uint64_t>::type W;
            const uint64_t u = (uint64_t)(W)x;
            if constexpr (OP == WNN__OP_REDUCE_L1) {
                if constexpr (is_signed_int<T>::value)
                    a += x < 0 ? 0u - u : u;
                else
                    a += u;
            } else if constexpr (OP == WNN__OP_REDUCE_SUM_SQUARE)
                a += u * u;
            else if constexpr (OP == WNN__OP_REDUCE_PRODUCT)
                a *= u;
            else if constexpr (is_max) {
                if ((W)x > a)
                    a = (W)x;
            } else if constexpr (is_min) {
                if ((W)x < a)
                    a = (W)x;
            } else
                a += u;
        }
    }

    template <int GROUP> __device__ static A combine(A a, A *smem)
    {
        if constexpr (OP == WNN__OP_REDUCE_PRODUCT)
            return group_all<GROUP>(a, comb_mul(), smem);
        else if constexpr (is_max)
            return group_all<GROUP>(a, comb_max(), smem);
        else if constexpr (is_min)
            return group_all<GROUP>(a, comb_min(), smem);
        else
            return group_all<GROUP>(a, comb_add(), smem);
    }

    __device__ static T finish(A a, uint64_t count)
    {
        if constexpr (flt) {
            double r = a;
            if constexpr (OP == WNN__OP_REDUCE_L2)
                r = sqrt(r);
            else if constexpr (OP == WNN__OP_REDUCE_MEAN)
                r = r / (double)count;
            else if constexpr (OP == WNN__OP_REDUCE_LOG_SUM)
                r = log(r);
            if constexpr (is_h16<T>::value)
                return f2h((float)r);
            else
                return (float)r;
        } else {
            return wrap<T>((uint64_t)a);
        }
    }
};

template <int OP, typename T, int GROUP>
__global__ void reduce_groups(const T *__restrict__ in, T *__restrict__ out, const wnn__cu_reduce p)
{
    typedef typename reducer<OP, T>::A A;
    __shared__ A smem[GROUP / 32 > 0 ? GROUP / 32 : 1];
    const uint32_t lane = threadIdx.x % GROUP;
    const uint64_t per_block = blockDim.x / GROUP;
    for (uint64_t o = blockIdx.x * per_block + threadIdx.x / GROUP; o < p.n_out;
         o += (uint64_t)gridDim.x * per_block) {
        const T *x = in + kept_offset(p, o);
        if constexpr (OP == WNN__OP_REDUCE_LOG_SUM_EXP) {
            /* the maximum first, so that exp cannot overflow */
            double m = -INFINITY;
            for (uint64_t r = lane; r < p.n_red; r += GROUP) {
                double v = load_d(x, red_offset(p, r));
                if (v > m || v != v)
                    m = v;
            }
            m = group_all<GROUP>(m, comb_max(), (double *)smem);
            double sum = 0.0;
            for (uint64_t r = lane; r < p.n_red; r += GROUP)
                sum += exp(load_d(x, red_offset(p, r)) - m);
            sum = group_all<GROUP>(sum, comb_add(), (double *)smem);
            if (lane == 0) {
                double r = isinf(m) || m != m ? m : m + log(sum);
                store_f(out, o, (float)r);
            }
        } else {
            A a = reducer<OP, T>::init();
            for (uint64_t r = lane; r < p.n_red; r += GROUP)
                reducer<OP, T>::fold(a, x[red_offset(p, r)]);
            a = reducer<OP, T>::template combine<GROUP>(a, smem);
            if (lane == 0)
                out[o] = reducer<OP, T>::finish(a, p.n_red);
        }
    }
}

/* Contiguous rows of whole 16-byte vectors of a float type, one warp per
** row: the warp case of reduce_groups with wide loads, four in flight. */
template <int OP, typename T>
__global__ void reduce_rows_vec(const T *__restrict__ in, T *__restrict__ out, const wnn__cu_reduce p)
{
    typedef typename reducer<OP, T>::A A;
    constexpr int V = 16 / sizeof(T), U = 4;
    const uint32_t lane = threadIdx.x % 32;
    const uint64_t nvec = p.n_red / V, per_block = blockDim.x / 32;
    for (uint64_t o = blockIdx.x * per_block + threadIdx.x / 32; o < p.n_out;
         o += (uint64_t)gridDim.x * per_block) {
        const T *x = in + kept_offset(p, o);
        A a = reducer<OP, T>::init();
        uint64_t j = lane;
        for (; j + 32 * (U - 1) < nvec; j += 32 * U) {
            T e[U][V];
#pragma unroll
            for (int u = 0; u < U; u++)
                vload<T, V>(e[u], x + (j + 32 * u) * V);
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int i = 0; i < V; i++)
                    reducer<OP, T>::fold(a, e[u][i]);
        }
        for (; j < nvec; j += 32) {
            T e[V];
            vload<T, V>(e, x + j * V);
#pragma unroll
            for (int i = 0; i < V; i++)
                reducer<OP, T>::fold(a, e[i]);
        }
        a = reducer<OP, T>::template combine<32>(a, nullptr);
        if (lane == 0)
            out[o] = reducer<OP, T>::finish(a, p.n_red);
    }
}

/* Whether p's rows suit reduce_rows_vec: one contiguous reduced dimension
** of whole vectors from aligned row starts. */
template <int OP, typename T> bool rows_vectorizable(const wnn__cu_reduce *p, const void *in)
{
    constexpr uint64_t V = 16 / sizeof(T);
    if constexpr (!is_float_type<T>::value || OP == WNN__OP_REDUCE_LOG_SUM_EXP) {
        return false;
    } else {
        if (p->red_rank != 1 || p->red_stride[0] != 1 || p->n_red % V || p->n_red < 32 * V || !aligned16(in))
            return false;
        for (uint32_t d = 0; d < p->kept_rank; d++)
            if (p->kept_stride[d] % V)
                return false;
        return true;
    }
}

template <int OP, typename T> cudaError_t launch_reduce(cudaStream_t s, const wnn__cu_reduce *p, const void *in, void *out)
{
    const bool contiguous = p->red_rank >= 1 && p->red_stride[p->red_rank - 1] == 1;
    if (p->n_red >= 4096 && p->n_out <= 1024) {
        unsigned blocks = p->n_out > (1u << 20) ? (1u << 20) : (unsigned)p->n_out;
        reduce_groups<OP, T, 256><<<blocks, 256, 0, s>>>((const T *)in, (T *)out, *p);
    } else if (rows_vectorizable<OP, T>(p, in)) {
        if constexpr (is_float_type<T>::value && OP != WNN__OP_REDUCE_LOG_SUM_EXP) {
            uint64_t b = (p->n_out + 7) / 8;
            unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
            reduce_rows_vec<OP, T><<<blocks, 256, 0, s>>>((const T *)in, (T *)out, *p);
        }
    } else if (contiguous && p->n_red >= 16) {
        uint64_t b = (p->n_out + 7) / 8;
        unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
        reduce_groups<OP, T, 32><<<blocks, 256, 0, s>>>((const T *)in, (T *)out, *p);
    } else {
        reduce_groups<OP, T, 1><<<blocks_for(p->n_out), THREADS, 0, s>>>((const T *)in, (T *)out, *p);
    }
    return cudaGetLastError();
}

bool reduce_types(wnn__op op, wnn_data_type t)
{
    bool flt = t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16;
    bool wide_int = t == WNN_DATA_TYPE_INT32 || t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_INT64 ||
                    t == WNN_DATA_TYPE_UINT64;
    switch (op) {
    case WNN__OP_REDUCE_L2:
    case WNN__OP_REDUCE_LOG_SUM:
    case WNN__OP_REDUCE_LOG_SUM_EXP:
    case WNN__OP_REDUCE_MEAN:
        return flt;
    case WNN__OP_REDUCE_L1:
    case WNN__OP_REDUCE_SUM:
    case WNN__OP_REDUCE_SUM_SQUARE:
    case WNN__OP_REDUCE_PRODUCT:
        return flt || wide_int;
    case WNN__OP_REDUCE_MAX:
    case WNN__OP_REDUCE_MIN:
        return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT8;
    default:
        return false;
    }
}

template <int OP>
cudaError_t reduce_float(cudaStream_t s, wnn_data_type t, const wnn__cu_reduce *p, const void *in, void *out)
{
    if (t == WNN_DATA_TYPE_FLOAT32)
        return launch_reduce<OP, float>(s, p, in, out);
    return launch_reduce<OP, h16>(s, p, in, out);
}

template <int OP>
cudaError_t reduce_wide(cudaStream_t s, wnn_data_type t, const wnn__cu_reduce *p, const void *in, void *out)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return launch_reduce<OP, float>(s, p, in, out);
    case WNN_DATA_TYPE_FLOAT16: return launch_reduce<OP, h16>(s, p, in, out);
    case WNN_DATA_TYPE_INT32: return launch_reduce<OP, int32_t>(s, p, in, out);
    case WNN_DATA_TYPE_UINT32: return launch_reduce<OP, uint32_t>(s, p, in, out);
    case WNN_DATA_TYPE_INT64: return launch_reduce<OP, int64_t>(s, p, in, out);
    case WNN_DATA_TYPE_UINT64: return launch_reduce<OP, uint64_t>(s, p, in, out);
    default: return cudaErrorInvalidValue;
    }
}

template <int OP>
cudaError_t reduce_all(cudaStream_t s, wnn_data_type t, const wnn__cu_reduce *p, const void *in, void *out)
{
#define WNNCU_R(T) return launch_reduce<OP, T>(s, p, in, out)
    WNNCU_TYPE_CASES(t, WNNCU_R)
#undef WNNCU_R
    return cudaErrorInvalidValue;
}

/* ------------------------------------------------------------------------ */
/* argMin / argMax                                                           */
/* ------------------------------------------------------------------------ */

/* Whether (v, i) beats (b, bi): a NaN beats every number; ties and NaN
** against NaN go to the smaller index. */
template <bool IS_MAX, typename K> __device__ __forceinline__ bool arg_better(K v, int64_t i, K b, int64_t bi)
{
    const bool vn = v != v, bn = b != b;
    if (bn)
        return vn && i < bi;
    if (vn)
        return true;
    if (IS_MAX ? v > b : v < b)
        return true;
    return v == b && i < bi;
}

template <typename T, bool IS_MAX, int GROUP, typename O>
__global__ void arg_kernel(const T *__restrict__ in, O *__restrict__ out, uint64_t outer, uint32_t len, uint64_t inner)
{
    typedef typename order_key<T>::K K;
    const uint32_t lane = threadIdx.x % GROUP;
    const uint64_t per_block = blockDim.x / GROUP, columns = outer * inner;
    for (uint64_t c = blockIdx.x * per_block + threadIdx.x / GROUP; c < columns; c += (uint64_t)gridDim.x * per_block) {
        const T *x = in + (c / inner) * len * inner + c % inner;
        K best = K();
        int64_t best_i = -1;
        for (uint32_t l = lane; l < len; l += GROUP) {
            K v = order_key<T>::of(x[(uint64_t)l * inner]);
            if (best_i < 0 || arg_better<IS_MAX>(v, (int64_t)l, best, best_i)) {
                best = v;
                best_i = l;
            }
        }
        if constexpr (GROUP > 1) {
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) {
                K v = __shfl_xor_sync(0xffffffffu, best, off);
                int64_t i = __shfl_xor_sync(0xffffffffu, best_i, off);
                if (i >= 0 && (best_i < 0 || arg_better<IS_MAX>(v, i, best, best_i))) {
                    best = v;
                    best_i = i;
                }
            }
        }
        if (lane == 0)
            out[c] = (O)best_i;
    }
}

template <typename T, bool IS_MAX>
cudaError_t arg_typed(cudaStream_t s, wnn_data_type out_type, uint64_t outer, uint32_t len, uint64_t inner,
                      const void *in, void *out)
{
    const uint64_t columns = outer * inner;
    if (inner == 1 && len >= 32) {
        uint64_t b = (columns + 7) / 8;
        unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
        if (out_type == WNN_DATA_TYPE_INT64)
            arg_kernel<T, IS_MAX, 32, int64_t><<<blocks, 256, 0, s>>>((const T *)in, (int64_t *)out, outer, len, inner);
        else
            arg_kernel<T, IS_MAX, 32, int32_t><<<blocks, 256, 0, s>>>((const T *)in, (int32_t *)out, outer, len, inner);
    } else {
        if (out_type == WNN_DATA_TYPE_INT64)
            arg_kernel<T, IS_MAX, 1, int64_t><<<blocks_for(columns), THREADS, 0, s>>>((const T *)in, (int64_t *)out,
                                                                                   outer, len, inner);
        else
            arg_kernel<T, IS_MAX, 1, int32_t><<<blocks_for(columns), THREADS, 0, s>>>((const T *)in, (int32_t *)out,
                                                                                   outer, len, inner);
    }
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------ */
/* cumulativeSum                                                             */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void cumsum_kernel(const T *__restrict__ in, T *__restrict__ out, uint64_t outer, uint32_t len,
                              uint64_t inner, bool exclusive, bool reversed)
{
    typedef typename std::conditional<is_float_type<T>::value, double, uint64_t>::type A;
    for (uint64_t c = global_id(); c < outer * inner; c += global_stride()) {
        const uint64_t base = (c / inner) * len * inner + c % inner;
        A sum = 0;
        for (uint32_t step = 0; step < len; step++) {
            uint32_t l = reversed ? len - 1 - step : step;
            uint64_t at = base + (uint64_t)l * inner;
            A before = sum;
            if constexpr (is_float_type<T>::value) {
                sum += load_d(in, at);
                double r = exclusive ? before : sum;
                store_f(out, at, (float)r);
            } else {
                typedef typename std::conditional<is_signed_int<T>::value, int64_t, uint64_t>::type W;
                sum += (uint64_t)(W)in[at];
                out[at] = wrap<T>(exclusive ? before : sum);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Normalizations                                                            */
/* ------------------------------------------------------------------------ */

template <typename T, int GROUP>
__global__ void normalize_groups(const T *__restrict__ in, const T *__restrict__ scale, const T *__restrict__ bias,
                                 T *__restrict__ out, const wnn__cu_norm p)
{
    __shared__ double smem[GROUP / 32 > 0 ? GROUP / 32 : 1];
    const uint32_t lane = threadIdx.x % GROUP;
    const uint64_t per_block = blockDim.x / GROUP, n = p.r.n_red;
    for (uint64_t g = blockIdx.x * per_block + threadIdx.x / GROUP; g < p.r.n_out; g += (uint64_t)gridDim.x * per_block) {
        const uint64_t base = kept_offset(p.r, g);
        double sum = 0.0;
        for (uint64_t r = lane; r < n; r += GROUP)
            sum += load_d(in, base + red_offset(p.r, r));
        sum = group_all<GROUP>(sum, comb_add(), smem);
        const double mean = sum / (double)n;
        double sq = 0.0;
        for (uint64_t r = lane; r < n; r += GROUP) {
            double dv = load_d(in, base + red_offset(p.r, r)) - mean;
            sq += dv * dv;
        }
        sq = group_all<GROUP>(sq, comb_add(), smem);
        const double inv = 1.0 / sqrt(sq / (double)n + p.epsilon);
        const uint64_t channel = p.by_channel ? (g / p.chan_div) % p.channels : 0;
        for (uint64_t r = lane; r < n; r += GROUP) {
            uint64_t at = base + red_offset(p.r, r), pi = p.by_channel ? channel : r;
            double v = (load_d(in, at) - mean) * inv;
            v = v * (scale ? load_d(scale, pi) : 1.0) + (bias ? load_d(bias, pi) : 0.0);
            store_f(out, at, (float)v);
        }
    }
}

template <typename T>
cudaError_t normalize_typed(cudaStream_t s, const wnn__cu_norm *p, const void *in, const void *scale, const void *bias,
                            void *out)
{
    const wnn__cu_reduce &r = p->r;
    const bool contiguous = r.red_rank >= 1 && r.red_stride[r.red_rank - 1] == 1;
    if (r.n_red >= 4096 && r.n_out <= 4096) {
        unsigned blocks = r.n_out > (1u << 20) ? (1u << 20) : (unsigned)r.n_out;
        normalize_groups<T, 256><<<blocks, 256, 0, s>>>((const T *)in, (const T *)scale, (const T *)bias, (T *)out, *p);
    } else if (contiguous && r.n_red >= 16) {
        uint64_t b = (r.n_out + 7) / 8;
        unsigned blocks = b > (1u << 20) ? (1u << 20) : (unsigned)b;
        normalize_groups<T, 32><<<blocks, 256, 0, s>>>((const T *)in, (const T *)scale, (const T *)bias, (T *)out, *p);
    } else {
        normalize_groups<T, 1><<<blocks_for(r.n_out), THREADS, 0, s>>>((const T *)in, (const T *)scale,
                                                                       (const T *)bias, (T *)out, *p);
    }
    return cudaGetLastError();
}

template <typename T>
__global__ void batch_norm_kernel(const T *__restrict__ in, const T *__restrict__ mean, const T *__restrict__ var,
                                  const T *__restrict__ scale, const T *__restrict__ bias, T *__restrict__ out,
                                  uint64_t count, uint64_t inner, uint64_t channels, double epsilon)
{
    for (uint64_t i = global_id(); i < count; i += global_stride()) {
        uint64_t c = (i / inner) % channels;
        double factor = (scale ? load_d(scale, c) : 1.0) / sqrt(load_d(var, c) + epsilon);
        double v = (load_d(in, i) - load_d(mean, c)) * factor + (bias ? load_d(bias, c) : 0.0);
        store_f(out, i, (float)v);
    }
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

extern "C" cudaError_t wnn__cu_softmax(cudaStream_t s, wnn_data_type t, uint64_t outer, uint32_t len, uint64_t inner,
                                       const void *in, void *out)
{
    if (wnn__cu_softmax_rows_fits(t, len, inner, in, out))
        return wnn__cu_softmax_rows(s, t, outer, len, in, out);
    if (t == WNN_DATA_TYPE_FLOAT32)
        return softmax_typed<float>(s, outer, len, inner, in, out);
    if (t == WNN_DATA_TYPE_FLOAT16)
        return softmax_typed<h16>(s, outer, len, inner, in, out);
    return cudaErrorInvalidValue;
}

extern "C" bool wnn__cu_reduce_supported(wnn__op op, wnn_data_type t) { return reduce_types(op, t); }

extern "C" cudaError_t wnn__cu_reduce_run(cudaStream_t s, wnn__op op, wnn_data_type t, const wnn__cu_reduce *p,
                                          const void *in, void *out)
{
    if (!reduce_types(op, t))
        return cudaErrorInvalidValue;
    switch (op) {
    case WNN__OP_REDUCE_L2: return reduce_float<WNN__OP_REDUCE_L2>(s, t, p, in, out);
    case WNN__OP_REDUCE_LOG_SUM: return reduce_float<WNN__OP_REDUCE_LOG_SUM>(s, t, p, in, out);
    case WNN__OP_REDUCE_LOG_SUM_EXP: return reduce_float<WNN__OP_REDUCE_LOG_SUM_EXP>(s, t, p, in, out);
    case WNN__OP_REDUCE_MEAN: return reduce_float<WNN__OP_REDUCE_MEAN>(s, t, p, in, out);
    case WNN__OP_REDUCE_L1: return reduce_wide<WNN__OP_REDUCE_L1>(s, t, p, in, out);
    case WNN__OP_REDUCE_SUM: return reduce_wide<WNN__OP_REDUCE_SUM>(s, t, p, in, out);
    case WNN__OP_REDUCE_SUM_SQUARE: return reduce_wide<WNN__OP_REDUCE_SUM_SQUARE>(s, t, p, in, out);
    case WNN__OP_REDUCE_PRODUCT: return reduce_wide<WNN__OP_REDUCE_PRODUCT>(s, t, p, in, out);
    case WNN__OP_REDUCE_MAX: return reduce_all<WNN__OP_REDUCE_MAX>(s, t, p, in, out);
    case WNN__OP_REDUCE_MIN: return reduce_all<WNN__OP_REDUCE_MIN>(s, t, p, in, out);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t wnn__cu_arg_min_max(cudaStream_t s, bool is_max, wnn_data_type t, wnn_data_type out_type,
                                           uint64_t outer, uint32_t len, uint64_t inner, const void *in, void *out)
{
#define WNNCU_ARG(T)                                                                                  \
    return is_max ? arg_typed<T, true>(s, out_type, outer, len, inner, in, out)                       \
                  : arg_typed<T, false>(s, out_type, outer, len, inner, in, out)
    WNNCU_TYPE_CASES(t, WNNCU_ARG)
#undef WNNCU_ARG
    return cudaErrorInvalidValue;
}

extern "C" bool wnn__cu_cumsum_supported(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16 || t == WNN_DATA_TYPE_INT32 ||
           t == WNN_DATA_TYPE_UINT32 || t == WNN_DATA_TYPE_INT64 || t == WNN_DATA_TYPE_UINT64;
}

extern "C" cudaError_t wnn__cu_cumsum(cudaStream_t s, wnn_data_type t, uint64_t outer, uint32_t len, uint64_t inner,
                                      bool exclusive, bool reversed, const void *in, void *out)
{
    if (!wnn__cu_cumsum_supported(t))
        return cudaErrorInvalidValue;
#define WNNCU_CUMSUM(T)                                                                               \
    cumsum_kernel<T><<<blocks_for(outer * inner), THREADS, 0, s>>>((const T *)in, (T *)out, outer, len, inner, \
                                                                   exclusive, reversed)
    WNNCU_TYPE_CASES(t, WNNCU_CUMSUM)
#undef WNNCU_CUMSUM
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_normalize(cudaStream_t s, wnn_data_type t, const wnn__cu_norm *p, const void *in,
                                         const void *scale, const void *bias, void *out)
{
    if (wnn__cu_norm_rows_fits(t, p, in, scale, bias, out))
        return wnn__cu_norm_rows(s, t, p, in, scale, bias, out);
    if (t == WNN_DATA_TYPE_FLOAT32)
        return normalize_typed<float>(s, p, in, scale, bias, out);
    if (t == WNN_DATA_TYPE_FLOAT16)
        return normalize_typed<h16>(s, p, in, scale, bias, out);
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t wnn__cu_batch_norm(cudaStream_t s, wnn_data_type t, uint64_t count, uint64_t inner,
                                          uint64_t channels, double epsilon, const void *in, const void *mean,
                                          const void *var, const void *scale, const void *bias, void *out)
{
#define WNNCU_BN(T)                                                                                   \
    batch_norm_kernel<T><<<blocks_for(count), THREADS, 0, s>>>((const T *)in, (const T *)mean, (const T *)var, \
                                                               (const T *)scale, (const T *)bias, (T *)out, count, \
                                                               inner, channels, epsilon)
    if (t == WNN_DATA_TYPE_FLOAT32)
        WNNCU_BN(float);
    else if (t == WNN_DATA_TYPE_FLOAT16)
        WNNCU_BN(h16);
    else
        return cudaErrorInvalidValue;
#undef WNNCU_BN
    return cudaGetLastError();
}
