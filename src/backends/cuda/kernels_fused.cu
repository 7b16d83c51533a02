/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_fused.cu -- a run of element-wise operators that fusion.c chained
** into one program, executed by one kernel over float32 or float16 data.
** Each operation is the operator's own scalar function
** (elementwise_ops.cuh), so a fused run rounds as the unfused operators do.
*/
#include "backends/cuda/elementwise_ops.cuh"

using namespace wnncu;

namespace {

/* ------------------------------------------------------------------------ */
/* fused runs                                                                */
/* ------------------------------------------------------------------------ */

/* Each thread runs the program over V neighbouring elements at once (4
** floats or 8 halves: 16 bytes), so that the dispatch on every instruction
** is paid once per V elements, the operator's loop unrolls into
** independent work, and flat operands move with one 16-byte access. The
** temporaries are named variables selected through switches, so they stay
** in registers. */
template <bool HALF> struct fused_width { static constexpr int value = HALF ? 8 : 4; };

template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ void fused_load(float (&d)[V], const void *ptr, uint64_t base, uint64_t count, bool scalar,
                                           uint32_t period)
{
    if (period) /* a row: V divides the period, so the vector stays in one row */
        base %= period;
    if (scalar) {
        float v = HALF ? h2f(((const h16 *)ptr)[0]) : ((const float *)ptr)[0];
#pragma unroll
        for (int j = 0; j < V; j++)
            d[j] = v;
    } else if (base + V <= count) {
        if constexpr (HALF) {
            h16 h[V];
            vload<h16, V>(h, (const h16 *)ptr + base);
#pragma unroll
            for (int j = 0; j < V; j++)
                d[j] = h2f(h[j]);
        } else {
            vload<float, V>(d, (const float *)ptr + base);
        }
    } else {
#pragma unroll
        for (int j = 0; j < V; j++)
            d[j] = base + j < count ? (HALF ? h2f(((const h16 *)ptr)[base + j]) : ((const float *)ptr)[base + j]) : 0.0f;
    }
}

template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ void fused_store(const float (&d)[V], void *ptr, uint64_t base, uint64_t count, bool scalar)
{
    if (scalar) {
        if (base == 0) {
            if constexpr (HALF)
                ((h16 *)ptr)[0] = f2h(d[0]);
            else
                ((float *)ptr)[0] = d[0];
        }
    } else if (base + V <= count) {
        if constexpr (HALF) {
            __half2 h[V / 2];
#pragma unroll
            for (int j = 0; j < V; j += 2)
                h[j / 2] = __floats2half2_rn(d[j], d[j + 1]);
            vstore<__half2, V / 2>((__half2 *)ptr + base / 2, h);
        } else {
            vstore<float, V>((float *)ptr + base, d);
        }
    } else {
        for (int j = 0; j < V; j++)
            if (base + j < count) {
                if constexpr (HALF)
                    ((h16 *)ptr)[base + j] = f2h(d[j]);
                else
                    ((float *)ptr)[base + j] = d[j];
            }
    }
}

/* The values a thread holds: the temporaries and the inputs read ahead
** (WNN__CU_FUSED_PRE), each as the 16 bytes of its V elements, packed as
** the tensor holds them. float16 results are rounded to binary16 anyway,
** so a packed temporary loses nothing and takes half the registers. */
struct fused_regs {
    uint4 t0, t1, t2, t3;
    uint4 r0, r1, r2, r3;
};

template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ void unpack16(float (&d)[V], const uint4 &w)
{
    if constexpr (HALF) {
        __half2 h[4];
        memcpy(h, &w, sizeof w);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const float2 f = __half22float2(h[j]);
            d[2 * j] = f.x;
            d[2 * j + 1] = f.y;
        }
    } else {
        memcpy(d, &w, sizeof w);
    }
}

template <bool HALF, int V = fused_width<HALF>::value> __device__ __forceinline__ uint4 pack16(const float (&d)[V])
{
    uint4 w;
    if constexpr (HALF) {
        __half2 h[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            h[j] = __floats2half2_rn(d[2 * j], d[2 * j + 1]);
        memcpy(&w, h, sizeof w);
    } else {
        memcpy(&w, d, sizeof w);
    }
    return w;
}

/* The 16 bytes of read-ahead input k at element base. */
template <bool HALF> __device__ __forceinline__ uint4 load_ahead(const wnn__cu_fused &p, int k, uint64_t base)
{
    const uint32_t slot = p.pre_slot[k];
    const uint64_t at = (p.row_slots >> slot) & 1u ? base % p.period : base;
    return *(const uint4 *)((const char *)p.ptr[slot] + at * (HALF ? 2 : 4));
}

/* Loads every read-ahead input of the V elements at base when all V are in
** the tensor (returns whether they are); a tail leaves them to fused_fetch.
** The loads are issued together, before the program needs any of them. */
template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ bool fused_read_ahead(const wnn__cu_fused &p, fused_regs &g, uint64_t base)
{
    if (base + V > p.count)
        return false;
    if constexpr (!HALF) /* fusion.c reads ahead for float16 only */
        return true;
    const uint32_t n = p.n_pre;
    if (n > 0)
        g.r0 = load_ahead<HALF>(p, 0, base);
    if (n > 1)
        g.r1 = load_ahead<HALF>(p, 1, base);
    if (n > 2)
        g.r2 = load_ahead<HALF>(p, 2, base);
    if (n > 3)
        g.r3 = load_ahead<HALF>(p, 3, base);
    return true;
}

template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ void fused_fetch(const wnn__cu_fused &p, const fused_regs &g, bool full, uint8_t src,
                                            float (&d)[V], uint64_t base)
{
    uint32_t slot = src - WNN__CU_FUSED_TEMPS;
    switch (src) {
    case 0: unpack16<HALF>(d, g.t0); return;
    case 1: unpack16<HALF>(d, g.t1); return;
    case 2: unpack16<HALF>(d, g.t2); return;
    case 3: unpack16<HALF>(d, g.t3); return;
    case WNN__CU_FUSED_PRE + 0:
    case WNN__CU_FUSED_PRE + 1:
    case WNN__CU_FUSED_PRE + 2:
    case WNN__CU_FUSED_PRE + 3:
        if constexpr (!HALF)
            break;
        if (full) {
            switch (src - WNN__CU_FUSED_PRE) {
            case 0: unpack16<HALF>(d, g.r0); return;
            case 1: unpack16<HALF>(d, g.r1); return;
            case 2: unpack16<HALF>(d, g.r2); return;
            default: unpack16<HALF>(d, g.r3); return;
            }
        }
        slot = p.pre_slot[src - WNN__CU_FUSED_PRE];
        break;
    default: break;
    }
    fused_load<HALF>(d, p.ptr[slot], base, p.count, (p.scalar_slots >> slot) & 1u,
                     (p.row_slots >> slot) & 1u ? p.period : 0);
}

/* Temporary dst = v, rounded to the element type (float16 packs it). */
template <bool HALF, int V = fused_width<HALF>::value>
__device__ __forceinline__ void fused_put(fused_regs &g, uint8_t dst, const float (&v)[V])
{
    const uint4 w = pack16<HALF>(v);
    switch (dst) {
    case 0: g.t0 = w; break;
    case 1: g.t1 = w; break;
    case 2: g.t2 = w; break;
    default: g.t3 = w; break;
    }
}

/* The operators a program may use and still run on the small kernel
** (SIMPLE): a few instructions each. The full switch, with the
** transcendental functions unrolled V times in every case, is a large
** kernel, and the float16 one ran a bias-and-relu chain at a quarter of the
** memory's speed. */
static bool simple_op(uint8_t op)
{
    switch (op) {
    case WNN__OP_ADD:
    case WNN__OP_SUB:
    case WNN__OP_MUL:
    case WNN__OP_MAX:
    case WNN__OP_MIN:
    case WNN__OP_ABS:
    case WNN__OP_NEG:
    case WNN__OP_RELU:
        return true;
    default:
        return false;
    }
}

template <bool HALF, bool SIMPLE, int V = fused_width<HALF>::value>
__device__ __forceinline__ void fused_compute(uint8_t op, float (&d)[V], const float (&a)[V], const float (&b)[V])
{
#define WNNCU_FUSED_CASE(OPV, EXPR)                                                                   \
    case OPV:                                                                                         \
        _Pragma("unroll") for (int j = 0; j < V; j++) d[j] = EXPR;                              \
        break;
/* the cheap cases, which both switches have (simple_op's list) */
#define WNNCU_FUSED_SIMPLE_CASES                                                                      \
    WNNCU_FUSED_CASE(WNN__OP_ADD, float_binary<WNN__OP_ADD>(a[j], b[j]))                              \
    WNNCU_FUSED_CASE(WNN__OP_SUB, float_binary<WNN__OP_SUB>(a[j], b[j]))                              \
    WNNCU_FUSED_CASE(WNN__OP_MUL, float_binary<WNN__OP_MUL>(a[j], b[j]))                              \
    WNNCU_FUSED_CASE(WNN__OP_MAX, float_binary<WNN__OP_MAX>(a[j], b[j]))                              \
    WNNCU_FUSED_CASE(WNN__OP_MIN, float_binary<WNN__OP_MIN>(a[j], b[j]))                              \
    WNNCU_FUSED_CASE(WNN__OP_ABS, float_unary<WNN__OP_ABS>(a[j]))                                     \
    WNNCU_FUSED_CASE(WNN__OP_NEG, float_unary<WNN__OP_NEG>(a[j]))
    if constexpr (SIMPLE) {
        switch (op) {
        WNNCU_FUSED_SIMPLE_CASES
        default: WNNCU_FUSED_CASE(WNN__OP_RELU, float_unary<WNN__OP_RELU>(a[j]))
        }
    } else {
        switch (op) {
        WNNCU_FUSED_SIMPLE_CASES
        WNNCU_FUSED_CASE(WNN__OP_DIV, float_binary<WNN__OP_DIV>(a[j], b[j]))
        WNNCU_FUSED_CASE(WNN__OP_POW, float_binary<WNN__OP_POW>(a[j], b[j]))
        WNNCU_FUSED_CASE(WNN__OP_EXP, float_unary<WNN__OP_EXP>(a[j]))
        WNNCU_FUSED_CASE(WNN__OP_LOG, float_unary<WNN__OP_LOG>(a[j]))
        WNNCU_FUSED_CASE(WNN__OP_SQRT, float_unary<WNN__OP_SQRT>(a[j]))
        WNNCU_FUSED_CASE(WNN__OP_RELU, float_unary<WNN__OP_RELU>(a[j]))
        WNNCU_FUSED_CASE(WNN__OP_SIGMOID, float_unary<WNN__OP_SIGMOID>(a[j]))
        WNNCU_FUSED_CASE(WNN__OP_GELU, HALF ? gelu_half(a[j]) : gelu_float(a[j]))
        default: WNNCU_FUSED_CASE(WNN__OP_TANH, float_unary<WNN__OP_TANH>(a[j]))
        }
    }
#undef WNNCU_FUSED_SIMPLE_CASES
#undef WNNCU_FUSED_CASE
}

template <bool HALF, bool SIMPLE> __global__ void __launch_bounds__(THREADS, HALF ? 3 : 4) fused_kernel(const wnn__cu_fused p)
{
    constexpr int V = fused_width<HALF>::value;
    fused_regs g;
    for (uint64_t base = global_id() * V; base < p.count; base += global_stride() * V) {
        const bool full = fused_read_ahead<HALF>(p, g, base);
        for (uint32_t k = 0; k < p.n_ops; k++) {
            const wnn__cu_fused_op o = p.ops[k];
            if (o.kind == WNN__CU_FUSED_COMPUTE) {
                float a[V], b[V], d[V];
                fused_fetch<HALF>(p, g, full, o.a, a, base);
                fused_fetch<HALF>(p, g, full, o.b, b, base);
                fused_compute<HALF, SIMPLE>(o.op, d, a, b);
                fused_put<HALF>(g, o.dst, d);
            } else {
                float d[V];
                fused_fetch<HALF>(p, g, full, o.dst, d, base);
                fused_store<HALF>(d, (void *)p.ptr[o.a], base, p.count, o.b != 0);
            }
        }
    }
}

} // namespace

/* ------------------------------------------------------------------------ */
/* Launchers                                                                 */
/* ------------------------------------------------------------------------ */

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
    case WNN__OP_GELU:
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
    const uint64_t v = p->half ? fused_width<true>::value : fused_width<false>::value;
    const unsigned blocks = blocks_for((p->count + v - 1) / v);
    bool simple = true;
    for (uint32_t k = 0; k < p->n_ops && simple; k++)
        simple = p->ops[k].kind != WNN__CU_FUSED_COMPUTE || simple_op(p->ops[k].op);
    if (p->half && simple)
        fused_kernel<true, true><<<blocks, THREADS, 0, s>>>(*p);
    else if (p->half)
        fused_kernel<true, false><<<blocks, THREADS, 0, s>>>(*p);
    else if (simple)
        fused_kernel<false, true><<<blocks, THREADS, 0, s>>>(*p);
    else
        fused_kernel<false, false><<<blocks, THREADS, 0, s>>>(*p);
    return cudaGetLastError();
}
