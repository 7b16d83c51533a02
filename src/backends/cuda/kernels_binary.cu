/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_binary.cu -- element-wise kernels over a broadcast plan: the
** binary operators (arithmetic, comparisons, logical, prelu), where, and
** gemm's scaled broadcast of c.
**
** A kernel template applies an operator's scalar function
** (elementwise_ops.cuh) either along flat arrays (each thread moving 16
** bytes of the wider side per access, single-element inputs held in a
** register) or along a broadcast plan (index arithmetic per element).
*/
#include "backends/cuda/elementwise_ops.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* Binary operators                                                          */
/* ------------------------------------------------------------------------ */

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

/* An input read as element (i / q) % m for output element i: a bias row
** repeated (q 1, m the row), one value per row or per channel (q the
** elements that share it), a block between broadcast axes, or the output's
** own layout (q 1, m the count). Sizes fit 32 bits (the builder's limit). */
struct row_form {
    uint32_t q, m;
};

/* Input k of plan p in row form: its axes read with stride 0 on both ends
** and contiguously in between; false when it is read any other way. */
static bool row_form_of(const wnn__cu_bcast *p, uint32_t k, row_form *f)
{
    if ((p->scalar_mask >> k) & 1u) {
        *f = row_form{1, 1};
        return true;
    }
    int d = (int)p->rank - 1;
    uint64_t q = 1, m = 1;
    for (; d >= 0 && p->stride[k][d] == 0; d--)
        q *= p->shape[d];
    for (; d >= 0 && p->stride[k][d] == m; d--)
        m *= p->shape[d];
    for (; d >= 0; d--)
        if (p->stride[k][d] != 0)
            return false;
    *f = row_form{(uint32_t)q, (uint32_t)m};
    return true;
}

/* N elements of an input in row form from output element base (N divides
** base): one wide load when they are consecutive in it, one value when
** they share one. */
template <typename T, int N>
__device__ __forceinline__ void row_load(T (&x)[N], const T *__restrict__ a, row_form f, uint32_t base)
{
    if (f.q == 1 && f.m % N == 0) {
        vload<T, N>(x, a + base % f.m);
    } else if (f.q % N == 0) {
        const T v = a[(base / f.q) % f.m];
#pragma unroll
        for (int k = 0; k < N; k++)
            x[k] = v;
    } else {
#pragma unroll
        for (int k = 0; k < N; k++)
            x[k] = a[((base + k) / f.q) % f.m];
    }
}

template <int OP, typename T>
__global__ void binary_rows(const T *__restrict__ a, const T *__restrict__ b,
                            typename binary_result<OP, T>::type *__restrict__ o, uint32_t n, row_form fa, row_form fb)
{
    typedef typename binary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    const uint32_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        T x[N], y[N];
        R r[N];
        row_load<T, N>(x, a, fa, (uint32_t)v * N);
        row_load<T, N>(y, b, fb, (uint32_t)v * N);
#pragma unroll
        for (int k = 0; k < N; k++)
            r[k] = binary<OP, T>(x[k], y[k]);
        vstore<R, N>(o + v * N, r);
    }
    const uint64_t i = (uint64_t)nvec * N + global_id();
    if (i < n)
        o[i] = binary<OP, T>(a[(i / fa.q) % fa.m], b[(i / fb.q) % fb.m]);
}

/* Whether input form f can be read N at a time: wide loads aligned, or one
** value per N outputs. */
static bool row_vectorizable(row_form f, const void *ptr, int n)
{
    return (f.q == 1 && f.m % n == 0 && aligned16(ptr)) || f.q % n == 0 || f.m == 1;
}

template <int OP, typename T>
cudaError_t launch_binary(cudaStream_t s, const wnn__cu_bcast *p, const void *a, const void *b, void *o)
{
    typedef typename binary_result<OP, T>::type R;
    constexpr int N = vec_width<T, R>::value;
    row_form fa, fb;
    if (p->flat && aligned16(a) && aligned16(b) && aligned16(o))
        binary_flat<OP, T><<<blocks_for(p->count / N + 1), THREADS, 0, s>>>((const T *)a, (const T *)b, (R *)o,
                                                                            p->count, p->scalar_mask);
    else if (p->count <= UINT32_MAX && aligned16(o) && row_form_of(p, 0, &fa) && row_form_of(p, 1, &fb) &&
             row_vectorizable(fa, a, N) && row_vectorizable(fb, b, N))
        binary_rows<OP, T><<<blocks_for(p->count / N + 1), THREADS, 0, s>>>((const T *)a, (const T *)b, (R *)o,
                                                                            (uint32_t)p->count, fa, fb);
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

/* The same from a source in row form, 16 bytes at a time. */
template <typename T>
__global__ void scaled_rows(const T *__restrict__ src, T *__restrict__ dst, uint32_t n, row_form f, float beta)
{
    constexpr int N = 16 / sizeof(T);
    const uint32_t nvec = n / N;
    for (uint64_t v = global_id(); v < nvec; v += global_stride()) {
        T x[N];
        row_load<T, N>(x, src, f, (uint32_t)v * N);
        if (beta != 1.0f) {
#pragma unroll
            for (int k = 0; k < N; k++)
                store_f(x, k, beta * load_f(x, k));
        }
        vstore<T, N>(dst + v * N, x);
    }
    const uint64_t i = (uint64_t)nvec * N + global_id();
    if (i < n)
        store_f(dst, i, beta * load_f(src, (i / f.q) % f.m));
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

extern "C" cudaError_t wnn__cu_scaled_broadcast(cudaStream_t s, wnn_data_type t, const wnn__cu_bcast *p,
                                                double beta, const void *src, void *dst)
{
    row_form f;
    int n = t == WNN_DATA_TYPE_FLOAT16 ? 8 : 4;
    bool rows = (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) && p->count <= UINT32_MAX &&
                aligned16(dst) && row_form_of(p, 0, &f) && row_vectorizable(f, src, n);
    if (rows && t == WNN_DATA_TYPE_FLOAT32)
        scaled_rows<float><<<blocks_for(p->count / 4 + 1), THREADS, 0, s>>>((const float *)src, (float *)dst,
                                                                          (uint32_t)p->count, f, (float)beta);
    else if (rows)
        scaled_rows<h16><<<blocks_for(p->count / 8 + 1), THREADS, 0, s>>>((const h16 *)src, (h16 *)dst,
                                                                        (uint32_t)p->count, f, (float)beta);
    else if (t == WNN_DATA_TYPE_FLOAT32)
        scaled_broadcast<float><<<blocks_for(p->count), THREADS, 0, s>>>((const float *)src, (float *)dst, *p,
                                                                         (float)beta);
    else if (t == WNN_DATA_TYPE_FLOAT16)
        scaled_broadcast<h16><<<blocks_for(p->count), THREADS, 0, s>>>((const h16 *)src, (h16 *)dst, *p,
                                                                       (float)beta);
    else
        return cudaErrorInvalidValue;
    return cudaGetLastError();
}
