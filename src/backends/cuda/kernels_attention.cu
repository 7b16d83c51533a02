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
** values go through shared memory (values transposed), loaded 16 bytes at
** a time where their rows are contiguous, and the next step's are fetched
** into registers while this step computes. Operands are read through their
** strides, so the transposes around the chain cost nothing. Head widths 16,
** 32, 64 and 128 (q's and v's equal); others stay unfused.
*/
#include <atomic>

#include "backends/cuda/cuda_common.cuh"
#include "backends/cuda/cuda_kernels.h"

namespace {

constexpr int BM = 64;    /* query rows per block */
constexpr int BN = 64;    /* keys per step */
constexpr int WARPS = 4;  /* 16 rows each */
constexpr int THREADS = WARPS * 32;

/* q and k tiles [64][d + 8] and v transposed [e][64 + 8], in halves: the
** padding of 8 makes a warp's fragment loads hit 32 distinct banks. */
__host__ __device__ constexpr size_t smem_bytes(int d, int e)
{
    return ((size_t)(BM + BN) * (d + 8) + (size_t)e * (BN + 8)) * 2;
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

/* Two floats as halves in one register, lo in the low 16 bits. */
__device__ __forceinline__ uint32_t pack(float lo, float hi)
{
    __half2 h = __floats2half2_rn(lo, hi);
    return *(uint32_t *)&h;
}

__device__ __forceinline__ uint32_t word(const __half *p) { return *(const uint32_t *)p; }

/* A tile of 64 rows of W halves (row j at src + j * rs, element c at
** c * cs), rows at or past limit zeros: fetched into registers (VEC: 16
** bytes at a time, unit column stride), then put into shared memory row by
** row (ld apart) or transposed (column c at dst + c * ld), so that the next
** step's loads overlap this step's products. */
template <int W, bool VEC, bool TRANSPOSED> struct tile {
    static constexpr int PER_ROW = W / 8, VECS = (64 * PER_ROW + THREADS - 1) / THREADS;
    uint4 r[VEC ? VECS : 1];

    /* vector i of the tile: its row and 8-column chunk (rows fastest when
    ** transposing, so that a warp's scattered stores hit distinct banks) */
    __device__ static void place(uint32_t i, uint32_t &j, uint32_t &c)
    {
        j = TRANSPOSED ? i % 64 : i / PER_ROW;
        c = (TRANSPOSED ? i / 64 : i % PER_ROW) * 8;
    }
    __device__ __forceinline__ void fetch(const __half *src, int64_t rs, uint32_t first, uint32_t limit)
    {
        if constexpr (VEC) {
#pragma unroll
            for (int k = 0; k < VECS; k++) {
                uint32_t i = threadIdx.x + k * THREADS, j, c;
                place(i, j, c);
                r[k] = make_uint4(0, 0, 0, 0);
                if (i < 64 * PER_ROW && first + j < limit)
                    r[k] = *(const uint4 *)(src + (int64_t)(first + j) * rs + c);
            }
        }
    }
    __device__ __forceinline__ void put(__half *dst, int ld, const __half *src, int64_t rs, int64_t cs,
                                        uint32_t first, uint32_t limit)
    {
        if constexpr (VEC) {
#pragma unroll
            for (int k = 0; k < VECS; k++) {
                uint32_t i = threadIdx.x + k * THREADS, j, c;
                place(i, j, c);
                if (i >= 64 * PER_ROW)
                    continue;
                if constexpr (!TRANSPOSED) {
                    *(uint4 *)(dst + j * ld + c) = r[k];
                } else {
                    const __half *h = (const __half *)&r[k];
#pragma unroll
                    for (int x = 0; x < 8; x++)
                        dst[(c + x) * ld + j] = h[x];
                }
            }
        } else {
            const __half zero = __float2half(0.0f);
            for (uint32_t i = threadIdx.x; i < 64 * W; i += THREADS) {
                uint32_t j = TRANSPOSED ? i % 64 : i / W, c = TRANSPOSED ? i / 64 : i % W;
                __half x = first + j < limit ? src[(int64_t)(first + j) * rs + (int64_t)c * cs] : zero;
                dst[TRANSPOSED ? c * ld + j : j * ld + c] = x;
            }
        }
    }
};

template <int D, int E, bool VEC>
__global__ void __launch_bounds__(THREADS) attention_f16(wnn__cu_attention p, const __half *q, const __half *kt,
                                                         const __half *v, const __half *mask, __half *out)
{
    constexpr int LDQ = D + 8, LDV = BN + 8;
    extern __shared__ __align__(128) unsigned char smem[];
    __half *Qs = (__half *)smem, *Ks = Qs + BM * LDQ, *Vt = Ks + BN * LDQ;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
    const uint32_t R = p.batch_rank, t = blockIdx.y, m0 = blockIdx.x * BM;

    const __half *qb = q + batch_offset(p, p.q, t), *kb = kt + batch_offset(p, p.kt, t),
                 *vb = v + batch_offset(p, p.v, t);
    const __half *mb = mask ? mask + batch_offset(p, p.mask, t) : nullptr;
    /* key j is column j of kt: its elements at kb + j * kn + c * kd */
    const int64_t kd = p.kt[R], kn = p.kt[R + 1], vr = p.v[R], vc = p.v[R + 1];
    tile<D, VEC, false> ql, kl;
    tile<E, VEC, true> vl;
    ql.fetch(qb, p.q[R], m0, p.m);
    ql.put(Qs, LDQ, qb, p.q[R], p.q[R + 1], m0, p.m);
    kl.fetch(kb, kn, 0, p.n);
    vl.fetch(vb, vr, 0, p.n);
    __syncthreads();
    uint32_t qa[D / 16][4];
    const __half *qw = Qs + (warp * 16 + g) * LDQ + 2 * tq;
#pragma unroll
    for (int kc = 0; kc < D / 16; kc++) {
        qa[kc][0] = word(qw + kc * 16);
        qa[kc][1] = word(qw + 8 * LDQ + kc * 16);
        qa[kc][2] = word(qw + kc * 16 + 8);
        qa[kc][3] = word(qw + 8 * LDQ + kc * 16 + 8);
    }

    /* this lane's rows: g and g + 8 of the warp's 16 */
    const uint32_t row0 = m0 + warp * 16 + g, row1 = row0 + 8;
    float o[E / 8][4];
#pragma unroll
    for (int j = 0; j < E / 8; j++)
        o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.0f;
    float mx0 = -INFINITY, mx1 = -INFINITY, sum0 = 0.0f, sum1 = 0.0f; /* sums over this lane's columns */
    for (uint32_t n0 = 0; n0 < p.n; n0 += BN) {
        __syncthreads(); /* the last step's keys and values are used up */
        kl.put(Ks, LDQ, kb, kn, kd, n0, p.n);
        vl.put(Vt, LDV, vb, vr, vc, n0, p.n);
        __syncthreads();
        if (n0 + BN < p.n) { /* the next step's, on their way during this one */
            kl.fetch(kb, kn, n0 + BN, p.n);
            vl.fetch(vb, vr, n0 + BN, p.n);
        }

        float s[BN / 8][4];
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
            const __half *kr = Ks + (j * 8 + g) * LDQ + 2 * tq;
#pragma unroll
            for (int kc = 0; kc < D / 16; kc++)
                mma(s[j], qa[kc], word(kr + kc * 16), word(kr + kc * 16 + 8));
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
#pragma unroll
        for (int j = 0; j < E / 8; j++) {
            const __half *vr8 = Vt + (j * 8 + g) * LDV + 2 * tq;
#pragma unroll
            for (int kc = 0; kc < BN / 16; kc++)
                mma(o[j], pa[kc], word(vr8 + kc * 16), word(vr8 + kc * 16 + 8));
        }
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
std::atomic<int> g_smem_limit[8][64];

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
    return t == WNN_DATA_TYPE_FLOAT16 && p->d == p->e && (p->d == 16 || p->d == 32 || p->d == 64 || p->d == 128) &&
           p->batches >= 1 && p->batches <= 65535 && p->m >= 1 && p->n >= 1;
}

extern "C" cudaError_t wnn__cu_attention_run(cudaStream_t s, const wnn__cu_attention *p, const void *q,
                                             const void *kt, const void *v, const void *mask, void *out)
{
    const bool vec = vectorizable(p) && ((uintptr_t)q | (uintptr_t)kt | (uintptr_t)v) % 16 == 0;
    switch (p->d * 2 + vec) {
    case 32: return launch<16, false>(s, p, q, kt, v, mask, out, g_smem_limit[0]);
    case 33: return launch<16, true>(s, p, q, kt, v, mask, out, g_smem_limit[1]);
    case 64: return launch<32, false>(s, p, q, kt, v, mask, out, g_smem_limit[2]);
    case 65: return launch<32, true>(s, p, q, kt, v, mask, out, g_smem_limit[3]);
    case 128: return launch<64, false>(s, p, q, kt, v, mask, out, g_smem_limit[4]);
    case 129: return launch<64, true>(s, p, q, kt, v, mask, out, g_smem_limit[5]);
    case 256: return launch<128, false>(s, p, q, kt, v, mask, out, g_smem_limit[6]);
    case 257: return launch<128, true>(s, p, q, kt, v, mask, out, g_smem_limit[7]);
    default: return cudaErrorInvalidValue;
    }
}
