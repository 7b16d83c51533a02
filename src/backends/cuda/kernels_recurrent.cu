/* SPDX-License-Identifier: Apache-2.0 */
/*
** kernels_recurrent.cu -- the element-wise gate arithmetic of gru, gruCell,
** lstm and lstmCell, one thread per (batch, hidden) element, in float32.
**
** The sums follow the order of the cpu kernels (and WebNN's emulation):
** (bias + recurrent bias) + (input product + state product). Gate offsets
** are in units of the hidden size: gru zrn has z, r, n at 0, 1, 2 and rzn r,
** z, n; lstm iofg has i, o, f, g at 0, 1, 2, 3 and ifgo i, f, g, o.
*/
#include "backends/cuda/cuda_common.cuh"

using namespace wnncu;

namespace {

__device__ __forceinline__ float activate(uint32_t f, float x)
{
    switch (f) {
    case WNN_RECURRENT_ACTIVATION_RELU: return x < 0.0f ? 0.0f : x;
    case WNN_RECURRENT_ACTIVATION_SIGMOID: {
        float e = expf(-fabsf(x)); /* as elementwise_ops.cuh's sigmoid */
        return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
    }
    default: return tanhf(x);
    }
}

__device__ __forceinline__ float at(const float *v, uint32_t i) { return v ? v[i] : 0.0f; }

__global__ void gru_reset(const wnn__cu_rnn p, const float *__restrict__ gx, float *__restrict__ gh,
                          const float *__restrict__ b, const float *__restrict__ rb, const float *__restrict__ h,
                          float *__restrict__ rh)
{
    const uint32_t H = p.hidden, G = 3 * H;
    const uint32_t ro = p.layout == WNN_GRU_WEIGHT_LAYOUT_ZRN ? H : 0, no = 2 * H;
    for (uint64_t e = global_id(); e < (uint64_t)p.batch * H; e += global_stride()) {
        const uint32_t i = (uint32_t)(e / H), j = (uint32_t)(e % H);
        const float *gxi = gx + (uint64_t)i * G;
        float *ghi = gh + (uint64_t)i * G;
        float r = activate(p.act[0], (at(b, ro + j) + at(rb, ro + j)) + (gxi[ro + j] + ghi[ro + j]));
        if (p.reset_after)
            ghi[no + j] = r * (at(rb, no + j) + ghi[no + j]);
        else
            rh[e] = r * h[e];
    }
}

__global__ void gru_output(const wnn__cu_rnn p, const float *__restrict__ gx, const float *__restrict__ gh,
                           const float *__restrict__ b, const float *__restrict__ rb, const float *__restrict__ h,
                           float *__restrict__ h_new, float *__restrict__ seq)
{
    const uint32_t H = p.hidden, G = 3 * H;
    const uint32_t zo = p.layout == WNN_GRU_WEIGHT_LAYOUT_ZRN ? 0 : H, no = 2 * H;
    for (uint64_t e = global_id(); e < (uint64_t)p.batch * H; e += global_stride()) {
        const uint32_t i = (uint32_t)(e / H), j = (uint32_t)(e % H);
        const float *gxi = gx + (uint64_t)i * G, *ghi = gh + (uint64_t)i * G;
        float z = activate(p.act[0], (at(b, zo + j) + at(rb, zo + j)) + (gxi[zo + j] + ghi[zo + j]));
        float pre = p.reset_after ? at(b, no + j) + (gxi[no + j] + ghi[no + j])
                                  : (at(b, no + j) + at(rb, no + j)) + (gxi[no + j] + ghi[no + j]);
        float n = activate(p.act[1], pre);
        float v = z * h[e] + n * (1.0f - z);
        h_new[e] = v;
        if (seq)
            seq[e] = v;
    }
}

/* Peepholes (i, o, f) all read the incoming cell state, as in WebNN. */
__global__ void lstm_step(const wnn__cu_rnn p, const float *__restrict__ gx, const float *__restrict__ gh,
                          const float *__restrict__ b, const float *__restrict__ rb, const float *__restrict__ peep,
                          const float *__restrict__ c, float *__restrict__ h_new, float *__restrict__ c_new,
                          float *__restrict__ seq)
{
    const uint32_t H = p.hidden, G = 4 * H;
    const bool iofg = p.layout == WNN_LSTM_WEIGHT_LAYOUT_IOFG;
    const uint32_t io = 0, oo = iofg ? H : 3 * H, fo = iofg ? 2 * H : H, go = iofg ? 3 * H : 2 * H;
    for (uint64_t e = global_id(); e < (uint64_t)p.batch * H; e += global_stride()) {
        const uint32_t i = (uint32_t)(e / H), j = (uint32_t)(e % H);
        const float *gxi = gx + (uint64_t)i * G, *ghi = gh + (uint64_t)i * G;
        const float cb = c[e];
#define WNNCU_GATE(off) ((at(b, (off) + j) + at(rb, (off) + j)) + (gxi[(off) + j] + ghi[(off) + j]))
        float ig = activate(p.act[0], cb * at(peep, j) + WNNCU_GATE(io));
        float fg = activate(p.act[0], cb * at(peep, 2 * H + j) + WNNCU_GATE(fo));
        float gg = activate(p.act[1], WNNCU_GATE(go));
        float og = activate(p.act[0], cb * at(peep, H + j) + WNNCU_GATE(oo));
#undef WNNCU_GATE
        float ct = fg * cb + ig * gg;
        float ht = og * activate(p.act[2], ct);
        c_new[e] = ct;
        h_new[e] = ht;
        if (seq)
            seq[e] = ht;
    }
}

} // namespace

extern "C" cudaError_t wnn__cu_gru_reset(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, float *gh,
                                         const float *b, const float *rb, const float *h, float *rh)
{
    gru_reset<<<blocks_for((uint64_t)p->batch * p->hidden), THREADS, 0, s>>>(*p, gx, gh, b, rb, h, rh);
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_gru_output(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, const float *gh,
                                          const float *b, const float *rb, const float *h, float *h_new, float *seq)
{
    gru_output<<<blocks_for((uint64_t)p->batch * p->hidden), THREADS, 0, s>>>(*p, gx, gh, b, rb, h, h_new, seq);
    return cudaGetLastError();
}

extern "C" cudaError_t wnn__cu_lstm_step(cudaStream_t s, const wnn__cu_rnn *p, const float *gx, const float *gh,
                                         const float *b, const float *rb, const float *peephole, const float *c,
                                         float *h_new, float *c_new, float *seq)
{
    lstm_step<<<blocks_for((uint64_t)p->batch * p->hidden), THREADS, 0, s>>>(*p, gx, gh, b, rb, peephole, c, h_new,
                                                                               c_new, seq);
    return cudaGetLastError();
}
