/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_movement.cu -- kernels that move elements without computing on
** them: strided copies (transpose, slice, expand, reverse), rows of bytes
** (concat, split), per-dimension index maps (pad, tile), triangular, and
** gather/scatter.
**
** Only element sizes matter here, so each kernel is instantiated for 1, 2,
** 4 and 8 byte elements. Indices (int32, uint32, int64) are clamped into
** [-n, n - 1] and negative ones count from the end, like the cpu's, so no
** index can reach outside a tensor.
*/
#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* Strided copy                                                              */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void copy_strided(const T *__restrict__ src, T *__restrict__ dst, const wnn__cu_strided p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t rest = i;
        int64_t so = 0, doff = 0;
        for (int d = (int)p.rank - 1; d >= 0; d--) {
            uint64_t idx = rest % p.shape[d];
            rest /= p.shape[d];
            so += (int64_t)idx * p.src_stride[d];
            doff += (int64_t)idx * p.dst_stride[d];
        }
        dst[doff] = src[so];
    }
}

/* 2-D transpose of the last two dimensions through shared memory, batched
** over the first: src [batch, rows, cols] -> dst [batch, cols, rows]. Both
** sides are read and written along rows of the tile, so every access is
** coalesced. */
template <typename T>
__global__ void transpose_tiles(const T *__restrict__ src, T *__restrict__ dst, uint32_t rows, uint32_t cols,
                                uint32_t batch)
{
    __shared__ T tile[32][33];
    const uint32_t tiles_c = (cols + 31) / 32, tiles_r = (rows + 31) / 32;
    for (uint64_t t = blockIdx.x; t < (uint64_t)tiles_c * tiles_r * batch; t += gridDim.x) {
        uint32_t b = (uint32_t)(t / ((uint64_t)tiles_c * tiles_r));
        uint32_t rem = (uint32_t)(t % ((uint64_t)tiles_c * tiles_r));
        uint32_t r0 = (rem / tiles_c) * 32, c0 = (rem % tiles_c) * 32;
        const T *s = src + (uint64_t)b * rows * cols;
        T *d = dst + (uint64_t)b * rows * cols;
        for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
            uint32_t r = r0 + y, c = c0 + threadIdx.x;
            if (r < rows && c < cols)
                tile[y][threadIdx.x] = s[(uint64_t)r * cols + c];
        }
        __syncthreads();
        for (uint32_t y = threadIdx.y; y < 32; y += blockDim.y) {
            uint32_t c = c0 + y, r = r0 + threadIdx.x;
            if (r < rows && c < cols)
                d[(uint64_t)c * rows + r] = tile[threadIdx.x][y];
        }
        __syncthreads();
    }
}

/* ------------------------------------------------------------------------ */
/* Rows of bytes                                                             */
/* ------------------------------------------------------------------------ */

template <typename W>
__global__ void copy_rows(const char *__restrict__ src, char *__restrict__ dst, uint64_t rows, uint64_t row_words,
                          uint64_t src_pitch, uint64_t dst_pitch)
{
    const uint64_t total = rows * row_words;
    for (uint64_t i = global_id(); i < total; i += global_stride()) {
        uint64_t r = i / row_words, w = i % row_words;
        reinterpret_cast<W *>(dst + r * dst_pitch)[w] = reinterpret_cast<const W *>(src + r * src_pitch)[w];
    }
}

/* A strided copy whose innermost dimension is contiguous on both sides
** (a slice along the last axis, a transpose that keeps it): words of W
** bytes, run_words of them per run; the runs walk the other dimensions of
** p (their strides in bytes here). */
template <typename W>
__global__ void copy_runs(const char *__restrict__ src, char *__restrict__ dst, const wnn__cu_strided p,
                          uint64_t runs, uint32_t run_words)
{
    const uint64_t total = runs * run_words;
    for (uint64_t i = global_id(); i < total; i += global_stride()) {
        uint64_t rest = i / run_words;
        int64_t so = 0, doff = 0;
        for (int d = (int)p.rank - 2; d >= 0; d--) {
            uint64_t idx = rest % p.shape[d];
            rest /= p.shape[d];
            so += (int64_t)idx * p.src_stride[d];
            doff += (int64_t)idx * p.dst_stride[d];
        }
        const uint32_t w = (uint32_t)(i % run_words);
        reinterpret_cast<W *>(dst + doff)[w] = reinterpret_cast<const W *>(src + so)[w];
    }
}

/* ------------------------------------------------------------------------ */
/* Index maps                                                                */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void index_map(const T *__restrict__ src, T *__restrict__ dst, const int64_t *__restrict__ table,
                          const wnn__cu_index_map p)
{
    T fill;
    memcpy(&fill, &p.fill, sizeof fill);
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t rest = i;
        int64_t off = 0;
        bool padded = false;
        for (int d = (int)p.rank - 1; d >= 0; d--) {
            uint64_t idx = rest % p.shape[d];
            rest /= p.shape[d];
            int64_t t = table[p.table_at[d] + idx];
            if (t < 0)
                padded = true;
            off += t;
        }
        dst[i] = padded ? fill : src[off];
    }
}

/* ------------------------------------------------------------------------ */
/* triangular                                                                */
/* ------------------------------------------------------------------------ */

template <typename T>
__global__ void triangular(const T *__restrict__ src, T *__restrict__ dst, uint64_t count, uint32_t h, uint32_t w,
                           bool upper, int32_t diagonal)
{
    for (uint64_t i = global_id(); i < count; i += global_stride()) {
        int64_t j = (int64_t)(i % w), row = (int64_t)((i / w) % h);
        bool keep = upper ? j - row >= diagonal : j - row <= diagonal;
        dst[i] = keep ? src[i] : (T)0;
    }
}

/* ------------------------------------------------------------------------ */
/* gather and scatter                                                        */
/* ------------------------------------------------------------------------ */

template <typename I> __device__ __forceinline__ uint64_t resolve(const I *idx, uint64_t at, uint64_t n)
{
    int64_t i = (int64_t)idx[at], s = (int64_t)n;
    if (i < -s)
        i = -s;
    else if (i >= s)
        i = s - 1;
    return (uint64_t)(i < 0 ? i + s : i);
}

template <typename T, typename I>
__global__ void gather(const T *__restrict__ in, const I *__restrict__ idx, T *__restrict__ out, const wnn__cu_gather p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t inner = i % p.inner, rest = i / p.inner;
        uint64_t k = rest % p.n_idx, outer = rest / p.n_idx;
        uint64_t r = resolve(idx, k, p.axis_len);
        out[i] = in[(outer * p.axis_len + r) * p.inner + inner];
    }
}

/* Position pos of indices [outer, idx_axis, inner] targets element
** (outer, resolved index, inner) of data [outer, in_axis, inner]. */
template <typename I>
__device__ __forceinline__ uint64_t element_target(const I *idx, uint64_t pos, const wnn__cu_elements &p)
{
    uint64_t inner = pos % p.inner, outer = pos / p.inner / p.idx_axis;
    return (outer * p.in_axis + resolve(idx, pos, p.in_axis)) * p.inner + inner;
}

template <typename T, typename I>
__global__ void gather_elements(const T *__restrict__ in, const I *__restrict__ idx, T *__restrict__ out,
                                const wnn__cu_elements p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride())
        out[i] = in[element_target(idx, i, p)];
}

__global__ void fill_minus_one(int32_t *w, uint64_t n)
{
    for (uint64_t i = global_id(); i < n; i += global_stride())
        w[i] = -1;
}

template <typename I>
__global__ void scatter_elements_claim(const I *__restrict__ idx, int32_t *winner, const wnn__cu_elements p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride())
        atomicMax(&winner[element_target(idx, i, p)], (int32_t)i);
}

template <typename T, typename I>
__global__ void scatter_elements_write(const I *__restrict__ idx, const T *__restrict__ upd, T *__restrict__ out,
                                       const int32_t *__restrict__ winner, const wnn__cu_elements p)
{
    for (uint64_t i = global_id(); i < p.count; i += global_stride()) {
        uint64_t t = element_target(idx, i, p);
        if (winner[t] == (int32_t)i)
            out[t] = upd[i];
    }
}

template <typename I> __device__ __forceinline__ uint64_t nd_base(const I *idx, uint64_t tuple, const wnn__cu_nd &p)
{
    uint64_t off = 0;
    for (uint32_t j = 0; j < p.k; j++)
        off += resolve(idx, tuple * p.k + j, p.dims[j]) * p.strides[j];
    return off;
}

template <typename T, typename I>
__global__ void gather_nd(const T *__restrict__ in, const I *__restrict__ idx, T *__restrict__ out, const wnn__cu_nd p)
{
    const uint64_t total = p.n_slices * p.slice;
    for (uint64_t i = global_id(); i < total; i += global_stride()) {
        uint64_t t = i / p.slice, r = i % p.slice;
        out[i] = in[nd_base(idx, t, p) + r];
    }
}

template <typename I>
__global__ void scatter_nd_claim(const I *__restrict__ idx, int32_t *winner, const wnn__cu_nd p)
{
    const uint64_t total = p.n_slices * p.slice;
    for (uint64_t i = global_id(); i < total; i += global_stride()) {
        uint64_t t = i / p.slice, r = i % p.slice;
        atomicMax(&winner[nd_base(idx, t, p) + r], (int32_t)t);
    }
}

template <typename T, typename I>
__global__ void scatter_nd_write(const I *__restrict__ idx, const T *__restrict__ upd, T *__restrict__ out,
                                 const int32_t *__restrict__ winner, const wnn__cu_nd p)
{
    const uint64_t total = p.n_slices * p.slice;
    for (uint64_t i = global_id(); i < total; i += global_stride()) {
        uint64_t t = i / p.slice, r = i % p.slice;
        uint64_t at = nd_base(idx, t, p) + r;
        if (winner[at] == (int32_t)t)
            out[at] = upd[i];
    }
}

#define WNNCU_INDEX_CASES(it, F)                                                                      \
    switch (it) {                                                                                     \
    case WNN_DATA_TYPE_INT32: F(int32_t); break;                                                      \
    case WNN_DATA_TYPE_UINT32: F(uint32_t); break;                                                    \
    case WNN_DATA_TYPE_INT64: F(int64_t); break;                                                      \
    default: return cudaErrorInvalidValue;                                                            \
    }

template <typename T>
cudaError_t gather_typed(cudaStream_t s, wnn_data_type it, const wnn__cu_gather *p, const void *in, const void *idx,
                         void *out)
{
#define WNNCU_GATHER(I) gather<T, I><<<blocks_for(p->count), THREADS, 0, s>>>((const T *)in, (const I *)idx, (T *)out, *p)
    WNNCU_INDEX_CASES(it, WNNCU_GATHER)
#undef WNNCU_GATHER
    return cudaGetLastError();
}

template <typename T>
cudaError_t gather_elements_typed(cudaStream_t s, wnn_data_type it, const wnn__cu_elements *p, const void *in,
                                  const void *idx, void *out)
{
#define WNNCU_GATHER_EL(I)                                                                            \
    gather_elements<T, I><<<blocks_for(p->count), THREADS, 0, s>>>((const T *)in, (const I *)idx, (T *)out, *p)
    WNNCU_INDEX_CASES(it, WNNCU_GATHER_EL)
#undef WNNCU_GATHER_EL
    return cudaGetLastError();
}

template <typename T>
cudaError_t scatter_elements_typed(cudaStream_t s, wnn_data_type it, const wnn__cu_elements *p, const void *idx,
                                   const void *upd, void *out, int32_t *winner, uint64_t out_count)
{
    fill_minus_one<<<blocks_for(out_count), THREADS, 0, s>>>(winner, out_count);
#define WNNCU_SCATTER_EL(I)                                                                           \
    scatter_elements_claim<I><<<blocks_for(p->count), THREADS, 0, s>>>((const I *)idx, winner, *p);     \
    scatter_elements_write<T, I><<<blocks_for(p->count), THREADS, 0, s>>>((const I *)idx, (const T *)upd, \
                                                                          (T *)out, winner, *p)
    WNNCU_INDEX_CASES(it, WNNCU_SCATTER_EL)
#undef WNNCU_SCATTER_EL
    return cudaGetLastError();
}

template <typename T>
cudaError_t gather_nd_typed(cudaStream_t s, wnn_data_type it, const wnn__cu_nd *p, const void *in, const void *idx,
                            void *out)
{
#define WNNCU_GATHER_ND(I)                                                                            \
    gather_nd<T, I><<<blocks_for(p->n_slices * p->slice), THREADS, 0, s>>>((const T *)in, (const I *)idx, (T *)out, *p)
    WNNCU_INDEX_CASES(it, WNNCU_GATHER_ND)
#undef WNNCU_GATHER_ND
    return cudaGetLastError();
}

template <typename T>
cudaError_t scatter_nd_typed(cudaStream_t s, wnn_data_type it, const wnn__cu_nd *p, const void *idx, const void *upd,
                             void *out, int32_t *winner, uint64_t out_count)
{
    fill_minus_one<<<blocks_for(out_count), THREADS, 0, s>>>(winner, out_count);
    const uint64_t total = p->n_slices * p->slice;
#define WNNCU_SCATTER_ND(I)                                                                           \
    scatter_nd_claim<I><<<blocks_for(total), THREADS, 0, s>>>((const I *)idx, winner, *p);              \
    scatter_nd_write<T, I><<<blocks_for(total), THREADS, 0, s>>>((const I *)idx, (const T *)upd, (T *)out, winner, *p)
    WNNCU_INDEX_CASES(it, WNNCU_SCATTER_ND)
#undef WNNCU_SCATTER_ND
    return cudaGetLastError();
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

extern "C" cudaError_t wnn__cu_copy_strided(cudaStream_t s, uint32_t elem_size, const wnn__cu_strided *p,
                                            const void *src, void *dst)
{
    /* [batch, rows, cols] -> [batch, cols, rows]: the tiled transpose */
    const wnn__cu_strided &q = *p;
    bool batched_2d = false;
    uint32_t batch = 1, rows = 0, cols = 0;
    if (q.rank == 2 && q.src_stride[1] > 1 && q.src_stride[0] == 1 && q.dst_stride[1] == 1 &&
        q.dst_stride[0] == (int64_t)q.shape[1] && q.src_stride[1] == (int64_t)q.shape[0]) {
        batched_2d = true;
        rows = q.shape[1];
        cols = q.shape[0];
    } else if (q.rank == 3 && q.src_stride[2] > 1 && q.src_stride[1] == 1 && q.dst_stride[2] == 1 &&
               q.dst_stride[1] == (int64_t)q.shape[2] && q.src_stride[2] == (int64_t)q.shape[1] &&
               q.dst_stride[0] == (int64_t)q.shape[1] * q.shape[2] && q.src_stride[0] == q.dst_stride[0]) {
        batched_2d = true;
        batch = q.shape[0];
        rows = q.shape[2];
        cols = q.shape[1];
    }
    if (batched_2d && rows >= 8 && cols >= 8) {
        uint64_t tiles = (uint64_t)((rows + 31) / 32) * ((cols + 31) / 32) * batch;
        unsigned blocks = tiles > (1u << 20) ? (1u << 20) : (unsigned)tiles;
        dim3 threads(32, 8);
#define WNNCU_TRANSPOSE(T) transpose_tiles<T><<<blocks, threads, 0, s>>>((const T *)src, (T *)dst, rows, cols, batch)
        WNNCU_SIZE_CASES(elem_size, WNNCU_TRANSPOSE)
#undef WNNCU_TRANSPOSE
        return cudaGetLastError();
    }
    /* contiguous innermost runs of at least 8 bytes: whole words of them */
    if (q.rank >= 2 && q.src_stride[q.rank - 1] == 1 && q.dst_stride[q.rank - 1] == 1 &&
        (uint64_t)q.shape[q.rank - 1] * elem_size >= 8) {
        uint64_t all = (uint64_t)(uintptr_t)src | (uint64_t)(uintptr_t)dst | (uint64_t)q.shape[q.rank - 1] * elem_size;
        wnn__cu_strided b = q; /* strides in bytes */
        for (uint32_t d = 0; d + 1 < q.rank; d++) {
            b.src_stride[d] *= (int64_t)elem_size;
            b.dst_stride[d] *= (int64_t)elem_size;
            all |= (uint64_t)b.src_stride[d] | (uint64_t)b.dst_stride[d];
        }
        const uint64_t w = (all & 15u) == 0 ? 16 : (all & 7u) == 0 ? 8 : (all & 3u) == 0 ? 4 : 0;
        if (w) {
            const uint32_t run_words = (uint32_t)((uint64_t)q.shape[q.rank - 1] * elem_size / w);
            const uint64_t runs = q.count / q.shape[q.rank - 1];
            const unsigned blocks = blocks_for(runs * run_words);
            if (w == 16)
                copy_runs<uint4><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, b, runs, run_words);
            else if (w == 8)
                copy_runs<uint2><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, b, runs, run_words);
            else
                copy_runs<uint32_t><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, b, runs, run_words);
            return cudaGetLastError();
        }
    }
#define WNNCU_STRIDED(T) copy_strided<T><<<blocks_for(p->count), THREADS, 0, s>>>((const T *)src, (T *)dst, *p)
    WNNCU_SIZE_CASES(elem_size, WNNCU_STRIDED)
#undef WNNCU_STRIDED
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_copy_rows(cudaStream_t s, uint64_t rows, uint64_t row_bytes, uint64_t src_pitch,
                                         uint64_t dst_pitch, const void *src, void *dst)
{
    if (!rows || !row_bytes)
        return cudaSuccess;
    /* the widest word that divides every address and length */
    uint64_t all = (uint64_t)(uintptr_t)src | (uint64_t)(uintptr_t)dst | row_bytes | src_pitch | dst_pitch;
    uint64_t w = (all & 15u) == 0 ? 16 : (all & 7u) == 0 ? 8 : (all & 3u) == 0 ? 4 : (all & 1u) == 0 ? 2 : 1;
    uint64_t words = row_bytes / w;
    unsigned blocks = blocks_for(rows * words);
    switch (w) {
    case 16: copy_rows<uint4><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, rows, words, src_pitch, dst_pitch); break;
    case 8: copy_rows<uint2><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, rows, words, src_pitch, dst_pitch); break;
    case 4: copy_rows<uint32_t><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, rows, words, src_pitch, dst_pitch); break;
    case 2: copy_rows<uint16_t><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, rows, words, src_pitch, dst_pitch); break;
    default: copy_rows<uint8_t><<<blocks, THREADS, 0, s>>>((const char *)src, (char *)dst, rows, words, src_pitch, dst_pitch); break;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_index_map_run(cudaStream_t s, uint32_t elem_size, const wnn__cu_index_map *p,
                                             const int64_t *table, const void *src, void *dst)
{
#define WNNCU_INDEX_MAP(T) index_map<T><<<blocks_for(p->count), THREADS, 0, s>>>((const T *)src, (T *)dst, table, *p)
    WNNCU_SIZE_CASES(elem_size, WNNCU_INDEX_MAP)
#undef WNNCU_INDEX_MAP
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_triangular(cudaStream_t s, uint32_t elem_size, uint64_t count, uint32_t h, uint32_t w,
                                          bool upper, int32_t diagonal, const void *src, void *dst)
{
#define WNNCU_TRIANGULAR(T)                                                                           \
    triangular<T><<<blocks_for(count), THREADS, 0, s>>>((const T *)src, (T *)dst, count, h, w, upper, diagonal)
    WNNCU_SIZE_CASES(elem_size, WNNCU_TRIANGULAR)
#undef WNNCU_TRIANGULAR
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_gather_run(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                          const wnn__cu_gather *p, const void *in, const void *idx, void *out)
{
    /* rows of inner elements (an embedding's): moved as the widest words
    ** that divide them */
    const uint64_t row = p->inner * elem_size, all = row | (uint64_t)(uintptr_t)in | (uint64_t)(uintptr_t)out;
    const uint64_t w = (all & 15u) == 0 ? 16 : (all & 7u) == 0 ? 8 : (all & 3u) == 0 ? 4 : 0;
    if (p->inner && p->count && w > elem_size) {
        wnn__cu_gather q = *p;
        q.inner = row / w;
        q.count = p->count / p->inner * q.inner;
        if (w == 16)
            return gather_typed<uint4>(s, index_type, &q, in, idx, out);
        if (w == 8)
            return gather_typed<uint2>(s, index_type, &q, in, idx, out);
        return gather_typed<uint32_t>(s, index_type, &q, in, idx, out);
    }
#define WNNCU_G(T) return gather_typed<T>(s, index_type, p, in, idx, out)
    WNNCU_SIZE_CASES(elem_size, WNNCU_G)
#undef WNNCU_G
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t wnn__cu_gather_elements(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                               const wnn__cu_elements *p, const void *in, const void *idx, void *out)
{
#define WNNCU_G(T) return gather_elements_typed<T>(s, index_type, p, in, idx, out)
    WNNCU_SIZE_CASES(elem_size, WNNCU_G)
#undef WNNCU_G
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t wnn__cu_scatter_elements(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                                const wnn__cu_elements *p, const void *idx, const void *updates,
                                                void *out, int32_t *winner, uint64_t out_count)
{
#define WNNCU_S(T) return scatter_elements_typed<T>(s, index_type, p, idx, updates, out, winner, out_count)
    WNNCU_SIZE_CASES(elem_size, WNNCU_S)
#undef WNNCU_S
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t wnn__cu_gather_nd(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                         const wnn__cu_nd *p, const void *in, const void *idx, void *out)
{
#define WNNCU_G(T) return gather_nd_typed<T>(s, index_type, p, in, idx, out)
    WNNCU_SIZE_CASES(elem_size, WNNCU_G)
#undef WNNCU_G
    return cudaErrorInvalidValue;
}

extern "C" cudaError_t wnn__cu_scatter_nd(cudaStream_t s, uint32_t elem_size, wnn_data_type index_type,
                                          const wnn__cu_nd *p, const void *idx, const void *updates, void *out,
                                          int32_t *winner, uint64_t out_count)
{
#define WNNCU_S(T) return scatter_nd_typed<T>(s, index_type, p, idx, updates, out, winner, out_count)
    WNNCU_SIZE_CASES(elem_size, WNNCU_S)
#undef WNNCU_S
    return cudaErrorInvalidValue;
}
