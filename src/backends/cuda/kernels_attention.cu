/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_attention.cu -- an attention chain (backends/attention.h) as one
** kernel, float16, on the tensor cores, in the manner of FlashAttention-2:
** a block of four warps takes 64 query rows (16 a warp, their q fragments
** held in registers) and walks the keys 64 at a time. The scores of a step
** are mma.sync products kept in registers, folded into a running softmax
** per row (the maximum so far, the sum so far, the output rescaled when the
** maximum moves), and the probabilities, packed to float16 in the layout
** the next product reads, are multiplied by the step's values into float
** accumulators: neither scores nor probabilities reach memory. Keys and
** values go through double-buffered shared memory, copied asynchronously
** 16 bytes at a time where their rows are contiguous (the next step's
** while this step computes), and into fragments with ldmatrix. Operands are read through their
** strides, so the transposes around the chain cost nothing. Head widths 16,
** 32, 48, 64, 80, 96 and 128 (q's and v's equal); others stay unfused.
*/
#include <atomic>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/cuda_kernels.h"

namespace {

constexpr int BM = 64;    /* query rows per block */
constexpr int BN = 64;    /* keys per step */
constexpr int WARPS = 4;  /* 16 rows each */
constexpr int THREADS = WARPS * 32;

/* q [64][d + 8], k and v double-buffered [2][64][d + 8] and [2][64][e + 8],
** in halves: the padding of 8 makes ldmatrix's eight row reads of a warp
** hit distinct banks. */
__host__ __device__ constexpr size_t smem_bytes(int d, int e)
{
    return ((size_t)3 * 64 * (d + 8) + (size_t)2 * 64 * (e + 8)) * 2;
}

__device__ __forceinline__ int64_t batch_offset(const wnn__cu_attention &p, const int64_t *stride, uint32_t t)
{
    int64_t off = 0;
    for (int i = (int)p.batch_rank; i-- > 0;) {
        off += (int64_t)(t % p.batch[i]) * stride[i];
        t /= p.batch[i];
    }
    return off;
}

/* c += a b on the tensor cores: a 16x16 (row), b 16x8 (col), c 16x8 float.
** Lane l holds, with g = l / 4 and q = l % 4: a0 (row g, k 2q, 2q+1),
** a1 (row g + 8), a2 (row g, k 2q + 8, 2q + 9), a3 (row g + 8, k 2q + 8);
** b0 (k 2q, 2q+1, column g), b1 (k 2q + 8, 2q + 9); c0 c1 (row g, columns
** 2q, 2q + 1), c2 c3 (row g + 8). */
__device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t shared_address(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* Four 8x8 matrices of halves from shared memory, lane l giving the
** address of row l % 8 of matrix l / 8; register k holds matrix k, lane l
** its row l / 4, columns 2 (l % 4) and the next (transposed: that column's
** two rows). */
__device__ __forceinline__ void ldsm4(uint32_t (&r)[4], const __half *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(p)));
}
__device__ __forceinline__ void ldsm4_t(uint32_t (&r)[4], const __half *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(p)));
}
__device__ __forceinline__ void ldsm2(uint32_t (&r)[2], const __half *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(shared_address(p)));
}

/* 16 bytes from global to shared memory without the registers; zeros
** when !full (src is then not read). */
__device__ __forceinline__ void copy16(__half *dst, const __half *src, bool full)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared_address(dst)), "l"(src),
                 "r"(full ? 16 : 0));
}
__device__ __forceinline__ void copies_commit() { asm volatile("cp.async.commit_group;"); }
template <int N> __device__ __forceinline__ void copies_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N)); }

/* Two floats as halves in one register, lo in the low 16 bits. */
__device__ __forceinline__ uint32_t pack(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
}

/* Rows first .. first + 63 of an operand (row j at src + j * rs, element c
** at c * cs; rows at or past limit zeros) into shared rows of W halves, ld
** apart. VEC (unit column stride, rows 16-byte aligned): asynchronous
** 16-byte copies, to be waited for; else element by element, done on
** return. */
template <int W, bool VEC>
__device__ __forceinline__ void load_tile(__half *dst, int ld, const __half *src, int64_t rs, int64_t cs,
                                          uint32_t first, uint32_t limit)
{
    if constexpr (VEC) {
        constexpr int PER_ROW = W / 8;
#pragma unroll
        for (int k = 0; k < (64 * PER_ROW + THREADS - 1) / THREADS; k++) {
            const uint32_t i = threadIdx.x + k * THREADS, j = i / PER_ROW, c = i % PER_ROW * 8;
            if (i < 64 * PER_ROW) {
                const bool in = first + j < limit;
                copy16(dst + j * ld + c, in ? src + (int64_t)(first + j) * rs + c : src, in);
            }
        }
    } else {
        const __half zero = __float2half(0.0f);
        for (uint32_t i = threadIdx.x; i < 64 * W; i += THREADS) {
            const uint32_t j = i / W, c = i % W;
            dst[j * ld + c] = first + j < limit ? src[(int64_t)(first + j) * rs + (int64_t)c * cs] : zero;
        }
    }
}

template <int D, int E, bool VEC>
__global__ void __launch_bounds__(THREADS) attention_f16(wnn__cu_attention p, const __half *q, const __half *kt,
                                                         const __half *v, const __half *mask, __half *out)
{
    constexpr int LDQ = D + 8, LDV = E + 8;
    extern __shared__ __align__(128) unsigned char smem[];
    __half *Qs = (__half *)smem, *Kbuf = Qs + 64 * LDQ, *Vbuf = Kbuf + 2 * 64 * LDQ;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
    const uint32_t R = p.batch_rank, t = blockIdx.y, m0 = blockIdx.x * BM;

    const __half *qb = q + batch_offset(p, p.q, t), *kb = kt + batch_offset(p, p.kt, t),
                 *vb = v + batch_offset(p, p.v, t);
    const __half *mb = mask ? mask + batch_offset(p, p.mask, t) : nullptr;
    /* key j is column j of kt: its elements at kb + j * kn + c * kd */
    const int64_t kd = p.kt[R], kn = p.kt[R + 1], vr = p.v[R], vc = p.v[R + 1];
    load_tile<D, VEC>(Qs, LDQ, qb, p.q[R], p.q[R + 1], m0, p.m);
    if constexpr (VEC)
        copies_commit();
    load_tile<D, VEC>(Kbuf, LDQ, kb, kn, kd, 0, p.n);
    load_tile<E, VEC>(Vbuf, LDV, vb, vr, vc, 0, p.n);
    if constexpr (VEC) {
        copies_commit();
        copies_wait<1>(); /* q's */
    }
    __syncthreads();
    /* q's a fragments: matrix k of ldsm4 is rows (k & 1) * 8, columns (k >> 1) * 8 */
    uint32_t qa[D / 16][4];
#pragma unroll
    for (int kc = 0; kc < D / 16; kc++)
        ldsm4(qa[kc], Qs + (warp * 16 + lane % 8 + (lane / 8 & 1) * 8) * LDQ + kc * 16 + lane / 16 * 8);

    /* this lane's rows: g and g + 8 of the warp's 16 */
    const uint32_t row0 = m0 + warp * 16 + g, row1 = row0 + 8;
    float o[E / 8][4];
#pragma unroll
    for (int j = 0; j < E / 8; j++)
        o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.0f;
    float mx0 = -INFINITY, mx1 = -INFINITY, sum0 = 0.0f, sum1 = 0.0f; /* sums over this lane's columns */
    for (uint32_t n0 = 0, step = 0; n0 < p.n; n0 += BN, step++) {
        const __half *Ks = Kbuf + (step & 1) * 64 * LDQ, *Vs = Vbuf + (step & 1) * 64 * LDV;
        if constexpr (VEC) {
            if (n0 + BN < p.n) { /* the next step's, on their way during this one */
                load_tile<D, VEC>(Kbuf + (~step & 1) * 64 * LDQ, LDQ, kb, kn, kd, n0 + BN, p.n);
                load_tile<E, VEC>(Vbuf + (~step & 1) * 64 * LDV, LDV, vb, vr, vc, n0 + BN, p.n);
                copies_commit();
                copies_wait<1>();
            } else {
                copies_wait<0>();
            }
        } else if (step) {
            load_tile<D, VEC>((__half *)Ks, LDQ, kb, kn, kd, n0, p.n);
            load_tile<E, VEC>((__half *)Vs, LDV, vb, vr, vc, n0, p.n);
        }
        __syncthreads(); /* this step's keys and values are in */

        /* scores: key tile j's b fragments for chunks kc, kc + 1 in one ldsm4 */
        float s[BN / 8][4];
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
            const __half *kr = Ks + (j * 8 + lane % 8) * LDQ;
#pragma unroll
            for (int kc = 0; kc + 1 < D / 16; kc += 2) {
                uint32_t b[4];
                ldsm4(b, kr + kc * 16 + lane / 8 * 8);
                mma(s[j], qa[kc], b[0], b[1]);
                mma(s[j], qa[kc + 1], b[2], b[3]);
            }
            if constexpr (D / 16 % 2) { /* an odd chunk last (widths 16, 48, 80) */
                uint32_t b[2];
                ldsm2(b, kr + (D / 16 - 1) * 16 + (lane / 8 & 1) * 8);
                mma(s[j], qa[D / 16 - 1], b[0], b[1]);
            }
        }
        float step0 = -INFINITY, step1 = -INFINITY;
#pragma unroll
        for (int j = 0; j < BN / 8; j++)
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const uint32_t n = n0 + j * 8 + 2 * tq + (i & 1), row = i < 2 ? row0 : row1;
                float x = -INFINITY;
                if (n < p.n) {
                    x = s[j][i] * p.scale;
                    if (mb && row < p.m)
                        x += __half2float(mb[(int64_t)row * p.mask[R] + (int64_t)n * p.mask[R + 1]]);
                }
                s[j][i] = x;
                if (i < 2)
                    step0 = fmaxf(step0, x);
                else
                    step1 = fmaxf(step1, x);
            }
#pragma unroll
        for (int off = 1; off < 4; off <<= 1) { /* the quad holding a row */
            step0 = fmaxf(step0, __shfl_xor_sync(0xffffffffu, step0, off));
            step1 = fmaxf(step1, __shfl_xor_sync(0xffffffffu, step1, off));
        }
        const float new0 = fmaxf(mx0, step0), new1 = fmaxf(mx1, step1);
        const float base0 = new0 == -INFINITY ? 0.0f : new0, base1 = new1 == -INFINITY ? 0.0f : new1;
        const float corr0 = __expf(mx0 - base0), corr1 = __expf(mx1 - base1);
        mx0 = new0, mx1 = new1;
        sum0 *= corr0, sum1 *= corr1;
#pragma unroll
        for (int j = 0; j < E / 8; j++) {
            o[j][0] *= corr0, o[j][1] *= corr0;
            o[j][2] *= corr1, o[j][3] *= corr1;
        }
        /* the scores' accumulator layout is the next product's a layout */
        uint32_t pa[BN / 16][4];
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            const float e0 = __expf(s[j][0] - base0), e1 = __expf(s[j][1] - base0);
            const float e2 = __expf(s[j][2] - base1), e3 = __expf(s[j][3] - base1);
            sum0 += e0 + e1, sum1 += e2 + e3;
            pa[j / 2][(j & 1) * 2] = pack(e0, e1);
            pa[j / 2][(j & 1) * 2 + 1] = pack(e2, e3);
        }
        /* values: rows kc * 16 + lane of a tile, transposed, are the b
        ** fragments of chunks kc and kc + 1 for value columns j * 8 */
#pragma unroll
        for (int j = 0; j < E / 8; j++)
#pragma unroll
            for (int kc = 0; kc < BN / 16; kc += 2) {
                uint32_t b[4];
                ldsm4_t(b, Vs + (kc * 16 + lane) * LDV + j * 8);
                mma(o[j], pa[kc], b[0], b[1]);
                mma(o[j], pa[kc + 1], b[2], b[3]);
            }
        __syncthreads(); /* every warp is done with this step's buffers */
    }
#pragma unroll
    for (int off = 1; off < 4; off <<= 1) {
        sum0 += __shfl_xor_sync(0xffffffffu, sum0, off);
        sum1 += __shfl_xor_sync(0xffffffffu, sum1, off);
    }
    const float inv0 = 1.0f / sum0, inv1 = 1.0f / sum1;
    const int64_t orow = p.out[R], ocol = p.out[R + 1];
    __half *ob = out + batch_offset(p, p.out, t);
#pragma unroll
    for (int j = 0; j < E / 8; j++) {
        const int64_t c = (int64_t)(j * 8 + 2 * tq) * ocol;
        if (row0 < p.m) {
            ob[(int64_t)row0 * orow + c] = __float2half(o[j][0] * inv0);
            ob[(int64_t)row0 * orow + c + ocol] = __float2half(o[j][1] * inv0);
        }
        if (row1 < p.m) {
            ob[(int64_t)row1 * orow + c] = __float2half(o[j][2] * inv1);
            ob[(int64_t)row1 * orow + c + ocol] = __float2half(o[j][3] * inv1);
        }
    }
}

/* Whether every tile row of p can be loaded 16 bytes at a time: unit
** inner strides, every other stride a multiple of 8 halves (the
** allocator's blocks are 256-byte aligned; the pointers are checked too). */
bool vectorizable(const wnn__cu_attention *p)
{
    const uint32_t R = p->batch_rank;
    if (p->q[R + 1] != 1 || p->kt[R] != 1 || p->v[R + 1] != 1)
        return false;
    for (uint32_t i = 0; i < R; i++)
        if (p->q[i] % 8 || p->kt[i] % 8 || p->v[i] % 8)
            return false;
    return p->q[R] % 8 == 0 && p->kt[R + 1] % 8 == 0 && p->v[R] % 8 == 0;
}

/* Per kernel and device ordinal: the dynamic shared memory it has been
** allowed, set at a graph's first dispatch (never captured into a CUDA
** graph: cuda_graph.c captures from the third). */
std::atomic<int> g_smem_limit[14][64];

template <int D, bool VEC>
cudaError_t launch(cudaStream_t s, const wnn__cu_attention *p, const void *q, const void *kt, const void *v,
                   const void *mask, void *out, std::atomic<int> *limit)
{
    const int bytes = (int)smem_bytes(D, D);
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    if (dev < 0 || dev >= 64 || bytes > limit[dev].load()) {
        e = cudaFuncSetAttribute(attention_f16<D, D, VEC>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
        if (e != cudaSuccess)
            return e;
        if (dev >= 0 && dev < 64)
            limit[dev].store(bytes);
    }
    dim3 grid((p->m + BM - 1) / BM, p->batches);
    attention_f16<D, D, VEC><<<grid, THREADS, bytes, s>>>(*p, (const __half *)q, (const __half *)kt,
                                                         (const __half *)v, (const __half *)mask, (__half *)out);
    return cudaGetLastError();
}

} // namespace

extern "C" bool wnn__cu_attention_supported(const wnn__cu_attention *p, wnn_data_type t)
{
    return t == WNN_DATA_TYPE_FLOAT16 && p->d == p->e &&
           (p->d == 16 || p->d == 32 || p->d == 48 || p->d == 64 || p->d == 80 || p->d == 96 || p->d == 128) &&
           p->batches >= 1 && p->batches <= 65535 && p->m >= 1 && p->n >= 1;
}

extern "C" cudaError_t wnn__cu_attention_run(cudaStream_t s, const wnn__cu_attention *p, const void *q,
                                             const void *kt, const void *v, const void *mask, void *out)
{
    const bool vec = vectorizable(p) && ((uintptr_t)q | (uintptr_t)kt | (uintptr_t)v) % 16 == 0;
#define WNNCU_ATTENTION_WIDTH(D, AT)                                                                    \
    case D * 2: return launch<D, false>(s, p, q, kt, v, mask, out, g_smem_limit[AT]);                  \
    case D * 2 + 1: return launch<D, true>(s, p, q, kt, v, mask, out, g_smem_limit[AT + 1]);
    switch (p->d * 2 + vec) {
    WNNCU_ATTENTION_WIDTH(16, 0)
    WNNCU_ATTENTION_WIDTH(32, 2)
    WNNCU_ATTENTION_WIDTH(48, 4)
    WNNCU_ATTENTION_WIDTH(64, 6)
    WNNCU_ATTENTION_WIDTH(80, 8)
    WNNCU_ATTENTION_WIDTH(96, 10)
    WNNCU_ATTENTION_WIDTH(128, 12)
    default: return cudaErrorInvalidValue;
    }
#undef WNNCU_ATTENTION_WIDTH
}
