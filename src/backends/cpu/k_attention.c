/* SPDX-License-Identifier: Apache-2.0 */
/*
** k_attention.c -- an attention chain (backends/attention.h) as one kernel
** on float32 views: per batch and block of query rows, the scores
** scale * q kt (+ mask) in a scratch block, softmax along its rows, times v,
** written where o (or its transpose) goes. The scores never reach memory
** outside the block, and the transposes around the chain are strides.
**
** The products go through wnn__cpu_sgemm on the operands in place when
** their rows or columns are contiguous (as exporters leave them), else on
** packed copies; blocks are spread over the pool, a product per thread.
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/cpu/kernels.h"
#include "backends/cpu/vec.h"
#include "platform/pool.h"

typedef struct attn_job {
    const wnn__attention *a;
    const float *q, *kt, *v, *mask;
    float *out;
    size_t rows;       /* query rows per block */
    size_t blocks;     /* per batch */
    atomic_int status; /* WNN_OK, or a failure of some block */
} attn_job;

/* A rows x cols matrix at p with strides (rs, cs) as an sgemm operand:
** *t and *ld when it can be read in place, else false. */
static bool in_place(size_t rows, size_t cols, size_t rs, size_t cs, bool *t, size_t *ld)
{
    if (cs == 1 && (rows == 1 || rs >= cols)) {
        *t = false;
        *ld = rows == 1 ? cols : rs;
        return true;
    }
    if (rs == 1 && (cols == 1 || cs >= rows)) {
        *t = true;
        *ld = cols == 1 ? rows : cs;
        return true;
    }
    return false;
}

static void pack(float *dst, const float *src, size_t rows, size_t cols, size_t rs, size_t cs)
{
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            dst[i * cols + j] = src[i * rs + j * cs];
}

/* An operand of one product: in place, or packed into buf (rows * cols). */
static const float *operand(const float *p, size_t rows, size_t cols, size_t rs, size_t cs, float *buf, bool *t,
                            size_t *ld)
{
    if (in_place(rows, cols, rs, cs, t, ld))
        return p;
    pack(buf, p, rows, cols, rs, cs);
    *t = false;
    *ld = cols;
    return buf;
}

static void attn_blocks(void *arg, size_t begin, size_t end)
{
    attn_job *j = arg;
    const wnn__attention *a = j->a;
    uint32_t R = a->rank;
    size_t rows = j->rows, n = a->n, d = a->d, e = a->e;
    /* scores, and room to pack q, kt, v and the result if they need it */
    float *s = malloc((rows * n + rows * d + d * n + n * e + rows * e) * sizeof *s);
    if (!s) {
        atomic_store(&j->status, WNN_STATUS_OUT_OF_MEMORY);
        return;
    }
    float *qb = s + rows * n, *kb = qb + rows * d, *vb = kb + d * n, *ob = vb + n * e;
    for (size_t task = begin; task < end; task++) {
        size_t t = task / j->blocks, m0 = task % j->blocks * rows;
        size_t mr = a->m - m0 < rows ? a->m - m0 : rows;
        const size_t *qs = a->q.stride, *ks = a->kt.stride, *vs = a->v.stride, *os = a->out.stride;
        bool tq, tk, tv, to;
        size_t lq, lk, lv, lo;
        const float *q = operand(j->q + wnn__attention_batch_offset(a, &a->q, t) + m0 * qs[R - 2], mr, d, qs[R - 2],
                                 qs[R - 1], qb, &tq, &lq);
        const float *k =
            operand(j->kt + wnn__attention_batch_offset(a, &a->kt, t), d, n, ks[R - 2], ks[R - 1], kb, &tk, &lk);
        const float *v =
            operand(j->v + wnn__attention_batch_offset(a, &a->v, t), n, e, vs[R - 2], vs[R - 1], vb, &tv, &lv);
        wnn__cpu_sgemm(tq, tk, mr, n, d, a->scale, q, lq, k, lk, 0.0f, s, n);
        const float *mask = a->has_mask ? j->mask + wnn__attention_batch_offset(a, &a->mask, t) : NULL;
        for (size_t i = 0; i < mr; i++) {
            float *row = s + i * n;
            if (mask) {
                const float *mrow = mask + (m0 + i) * a->mask.stride[R - 2];
                size_t mc = a->mask.stride[R - 1];
                for (size_t c = 0; c < n; c++)
                    row[c] += mrow[c * mc];
            }
            float mx = wnn__vec_max(row, n);
            float sum = wnn__vec_exp_sum(row, row, mx, n);
            wnn__vec_scale(row, 1.0f / sum, n);
        }
        float *o = j->out + wnn__attention_batch_offset(a, &a->out, t) + m0 * os[R - 2];
        bool direct = in_place(mr, e, os[R - 2], os[R - 1], &to, &lo) && !to;
        wnn__cpu_sgemm(false, tv, mr, e, n, 1.0f, s, n, v, lv, 0.0f, direct ? o : ob, direct ? lo : e);
        if (!direct)
            for (size_t i = 0; i < mr; i++)
                for (size_t c = 0; c < e; c++)
                    o[i * os[R - 2] + c * os[R - 1]] = ob[i * e + c];
    }
    free(s);
}

wnn_status wnn__k_attention(const wnn__attention *a, const wnn__view *views)
{
    attn_job j = {a,
                  views[a->q.value].data,
                  views[a->kt.value].data,
                  views[a->v.value].data,
                  a->has_mask ? views[a->mask.value].data : NULL,
                  views[a->out.value].data,
                  64,
                  0,
                  WNN_OK};
    /* enough blocks for every thread twice over, down to 8 rows a block */
    size_t threads = wnn__pool_size();
    while (j.rows > 8 && a->batches * ((a->m + j.rows - 1) / j.rows) < 2 * threads)
        j.rows /= 2;
    j.blocks = (a->m + j.rows - 1) / j.rows;
    size_t tasks = a->batches * j.blocks;
    if (tasks == 0)
        return WNN_OK;
    size_t work = j.rows * a->n * (a->d + a->e);
    if (tasks > 1 && tasks * work >= ((size_t)1 << 16))
        wnn__parallel_for(tasks, 1, attn_blocks, &j);
    else
        attn_blocks(&j, 0, tasks);
    return (wnn_status)atomic_load(&j.status);
}
