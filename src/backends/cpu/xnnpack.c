/* SPDX-License-Identifier: Apache-2.0 */
/*
** xnnpack.c -- float32 nhwc convolutions through XNNPACK (see xnnpack.h).
**
** A convolution is cut at compile into pieces, one for each of the pool's
** threads (fewer where the work is small): ranges of output channels (an
** ungrouped convolution's, in vectors of 16, or whole groups) and of output
** rows (of the one image, or whole images where there are several). Each
** piece is an XNNPACK operator of its own, its filter slice packed once, its
** band's padding its own, set up again only when its tensors move, and run
** with no threadpool of XNNPACK's: the pieces run on wnn's pool
** (wnn__parallel_for), the OpenMP team that runs oneDNN and wnn's loops, so
** there is one set of threads in the process. The chain's steps after the
** convolution's own clamp (a residual add, activations) run over each piece
** on the thread that computed it, while it is in cache.
*/
#include "backends/cpu/xnnpack.h"

/* As dnnl.c: built in when the headers are found (Debian's libxnnpack-dev),
** never in sanitizer builds (XNNPACK's threads and assembly kernels are not
** instrumented). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WNN_NO_XNNPACK 1
#endif
#endif
#if defined(__has_include) && !defined(WNN_NO_XNNPACK) && !defined(WNN_NO_DNNL) && !defined(__SANITIZE_THREAD__) &&    \
    !defined(__SANITIZE_ADDRESS__)
#if __has_include(<xnnpack.h>) && __has_include(<pthreadpool.h>)
#define WNN_HAVE_XNNPACK 1
#endif
#endif

#ifdef WNN_HAVE_XNNPACK

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xnnpack.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "backends/cpu/vec.h"
#include "platform/config.h"
#include "platform/pool.h"

#define XNN_FUNCS(X)                                                                                                   \
    X(xnn_initialize)                                                                                                  \
    X(xnn_create_convolution2d_nhwc_f32)                                                                               \
    X(xnn_setup_convolution2d_nhwc_f32) X(xnn_run_operator) X(xnn_delete_operator)

static struct {
    pthread_once_t once;
    bool ok;
#define X(f) __typeof__(f) *f;
    XNN_FUNCS(X)
#undef X
} L = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    if (wnn__config_get()->cpu_xnnpack != 1 || !wnn__config_get()->cpu_dnnl)
        return;
    void *h = dlopen("libXNNPACK.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
#define X(f)                                                                                                           \
    if (!(L.f = (__typeof__(f) *)dlsym(h, #f)))                                                                        \
        return;
    XNN_FUNCS(X)
#undef X
    /* the handle stays for the process: operators live in graphs */
    L.ok = L.xnn_initialize(NULL) == xnn_status_success;
}

bool wnn__xnn_available(void)
{
    pthread_once(&L.once, load);
    return L.ok;
}

/* One piece of the convolution: images [b0, b0 + nb), output rows
** [r0, r0 + rows) and output channels [c0, c0 + nc) of each, one XNNPACK
** operator made for exactly that (its filter slice, its rows' padding). */
typedef struct piece {
    xnn_operator_t op;
    size_t nb, ih;      /* batch and input rows it is set up with */
    size_t x_off, y_off; /* floats into x and the result */
    size_t pixels, c0, nc; /* output pixels, channel range (of oc) */
    const float *x_set;
    float *y_set; /* where op was last set up for */
    enum xnn_status status;
} piece;

struct wnn__xnn_conv {
    piece *pieces;
    size_t n_pieces;
    size_t w, y_count, oc;
    wnn__xnn_step steps[WNN__XNN_MAX_STEPS];
    uint32_t n_steps;
    bool residual;
    float *tmp; /* the convolution's result when res is y itself */
    /* the run in flight, for the pieces */
    const float *x, *res;
    float *to, *y;
};

/* XNNPACK's status as wnn's: otherwise for every failure but memory. */
static wnn_status status_of(enum xnn_status s, wnn_status otherwise)
{
    return s == xnn_status_success ? WNN_OK : s == xnn_status_out_of_memory ? WNN_STATUS_OUT_OF_MEMORY : otherwise;
}


/* Into how many channel and row (or image) parts the pieces split: the
** split whose largest piece is smallest, for at most `parts` pieces; at
** equal cost the one with more channel parts (fewer filter copies). */
static void choose_split(size_t parts, size_t ch_units, size_t row_units, size_t *pc, size_t *pr)
{
    size_t best = (size_t)-1;
    *pc = *pr = 1;
    for (size_t c = 1; c <= parts && c <= ch_units; c++) {
        size_t r = parts / c < row_units ? parts / c : row_units;
        size_t cost = ((ch_units + c - 1) / c) * ((row_units + r - 1) / r);
        if (cost <= best)
            best = cost, *pc = c, *pr = r;
    }
}

wnn_status wnn__xnn_conv_create(const wnn__xnn_conv_desc *d, const float *filter, const float *bias,
                                wnn__xnn_conv **out)
{
    *out = NULL;
    if (!wnn__xnn_available())
        return WNN_STATUS_NOT_SUPPORTED;
    wnn__xnn_conv *c = calloc(1, sizeof *c);
    if (!c)
        return WNN_STATUS_OUT_OF_MEMORY;
    size_t gic = d->c / d->groups, goc = d->oc / d->groups;
    c->w = d->w, c->oc = d->oc;
    c->y_count = (size_t)d->n * d->oh * d->ow * d->oc;
    if (d->n_steps > WNN__XNN_MAX_STEPS) {
        free(c);
        return WNN_STATUS_NOT_SUPPORTED;
    }
    memcpy(c->steps, d->steps, d->n_steps * sizeof *d->steps);
    c->n_steps = d->n_steps;
    for (uint32_t k = 0; k < d->n_steps; k++)
        c->residual |= d->steps[k].kind == WNN__XNN_SUM;

    /* channel units: 16 output channels of an ungrouped convolution (a
    ** vector of AVX-512), or groups of about that many; rows: output rows of
    ** the one image, or images */
    size_t unit = d->groups == 1 ? 16 : goc >= 16 ? 1 : 16 / goc;
    size_t ch_units = d->groups == 1 ? (d->oc + unit - 1) / unit : (d->groups + unit - 1) / unit;
    uint32_t ek = (d->kh - 1) * d->dilation[0] + 1;
    bool by_rows = d->n == 1 && d->pad[0] < ek && d->pad[1] < ek; /* every band then reads an input row */
    size_t row_units = d->n > 1 ? d->n : by_rows ? d->oh : 1;
    double macs = (double)c->y_count * d->kh * d->kw * gic;
    /* a piece holds at least this many multiply-adds (65536 unless a test
    ** lowers it): below that the hand-over to a thread costs what it saves */
    double least = wnn__config_get()->cpu_xnnpack_piece ? wnn__config_get()->cpu_xnnpack_piece : 1;
    size_t parts = wnn__pool_size();
    if ((double)parts * least > macs)
        parts = macs < least ? 1 : (size_t)(macs / least);
    size_t pc, pr;
    choose_split(parts, ch_units, row_units, &pc, &pr);

    c->pieces = calloc(pc * pr, sizeof *c->pieces);
    if (!c->pieces) {
        free(c);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    enum xnn_status s = xnn_status_success;
    size_t ch_total = d->groups == 1 ? d->oc : d->groups; /* what the channel parts split */
    for (size_t i = 0; i < pr && s == xnn_status_success; i++) {
        size_t r0 = row_units * i / pr, r1 = row_units * (i + 1) / pr;
        size_t nb = d->n > 1 ? r1 - r0 : 1, b0 = d->n > 1 ? r0 : 0;
        size_t oh0 = 0, ohn = d->oh, ih = d->h, ih0 = 0;
        uint32_t pt = d->pad[0], pb = d->pad[1];
        if (d->n == 1 && by_rows) { /* the band of output rows [r0, r1) and the input rows it reads */
            long first = (long)r0 * d->stride[0] - d->pad[0];
            long last = (long)(r1 - 1) * d->stride[0] - d->pad[0] + ek - 1;
            long top = first < 0 ? 0 : first, bottom = last > (long)d->h - 1 ? (long)d->h - 1 : last;
            pt = (uint32_t)(top - first), pb = (uint32_t)(last - bottom);
            oh0 = r0, ohn = r1 - r0, ih0 = (size_t)top, ih = (size_t)(bottom - top + 1);
        }
        for (size_t j = 0; j < pc && s == xnn_status_success; j++) {
            piece *p = &c->pieces[c->n_pieces++];
            size_t u0 = ch_units * j / pc * unit, u1 = ch_units * (j + 1) / pc * unit;
            if (u1 > ch_total)
                u1 = ch_total;
            /* ungrouped: output channels [u0, u1); grouped: groups [u0, u1) */
            size_t groups = d->groups == 1 ? 1 : u1 - u0, oc0 = d->groups == 1 ? u0 : u0 * goc;
            size_t ic0 = d->groups == 1 ? 0 : u0 * gic, nc = d->groups == 1 ? u1 - u0 : (u1 - u0) * goc;
            p->nb = nb, p->ih = ih, p->c0 = oc0, p->nc = nc;
            p->pixels = nb * ohn * d->ow;
            p->x_off = ((b0 * d->h + ih0) * d->w) * d->c + ic0;
            p->y_off = ((b0 * d->oh + oh0) * d->ow) * d->oc + oc0;
            size_t per_oc = (size_t)d->kh * d->kw * gic;
            s = L.xnn_create_convolution2d_nhwc_f32(
                pt, d->pad[3], pb, d->pad[2], d->kh, d->kw, d->stride[0], d->stride[1], d->dilation[0],
                d->dilation[1], (uint32_t)groups, gic, d->groups == 1 ? nc : goc, d->c, d->oc, filter + oc0 * per_oc,
                bias + oc0, d->lo, d->hi, 0, &p->op);
        }
    }
    if (s != xnn_status_success) {
        wnn__xnn_conv_free(c);
        return status_of(s, WNN_STATUS_NOT_SUPPORTED);
    }
    *out = c;
    return WNN_OK;
}

/* The steps over n floats from v (and a, res's), into y (which may be v). */
static void steps_run(const wnn__xnn_conv *c, float *y, const float *v, const float *a, size_t n)
{
    float t[256];
    for (size_t i = 0; i < n; i += 256) {
        size_t m = n - i < 256 ? n - i : 256;
        memcpy(t, v + i, m * sizeof *t);
        for (uint32_t k = 0; k < c->n_steps; k++) {
            const wnn__xnn_step *st = &c->steps[k];
            float al = st->alpha, be = st->beta;
            switch (st->kind) {
            case WNN__XNN_SUM:
                for (size_t j = 0; j < m; j++)
                    t[j] += a[i + j];
                break;
            case WNN__XNN_RELU:
                for (size_t j = 0; j < m; j++)
                    t[j] = t[j] >= 0.0f ? t[j] : al * t[j];
                break;
            case WNN__XNN_LINEAR:
                for (size_t j = 0; j < m; j++)
                    t[j] = al * t[j] + be;
                break;
            case WNN__XNN_CLIP:
                for (size_t j = 0; j < m; j++)
                    t[j] = t[j] < al ? al : t[j] > be ? be : t[j];
                break;
            case WNN__XNN_SIGMOID:
                wnn__vec_sigmoid(t, t, m);
                break;
            case WNN__XNN_TANH:
                for (size_t j = 0; j < m; j++)
                    t[j] = tanhf(t[j]);
                break;
            case WNN__XNN_HARD_SWISH:
                for (size_t j = 0; j < m; j++) {
                    float g = t[j] + 3.0f;
                    g = g < 0.0f ? 0.0f : g > 6.0f ? 6.0f : g;
                    t[j] = t[j] * g * (1.0f / 6.0f);
                }
                break;
            case WNN__XNN_ELU:
                for (size_t j = 0; j < m; j++)
                    t[j] = t[j] >= 0.0f ? t[j] : al * expm1f(t[j]);
                break;
            case WNN__XNN_SWISH: {
                float g[256];
                for (size_t j = 0; j < m; j++)
                    g[j] = al * t[j];
                wnn__vec_sigmoid(g, g, m);
                for (size_t j = 0; j < m; j++)
                    t[j] *= g[j];
                break;
            }
            }
        }
        memcpy(y + i, t, m * sizeof *t);
    }
}

/* The steps over one piece, row segment by row segment (the whole piece at
** once where it holds every channel), on the thread that computed it. */
static void epilogue(const wnn__xnn_conv *c, const piece *p)
{
    bool whole = p->nc == c->oc;
    size_t seg = whole ? p->pixels * c->oc : p->nc, rows = whole ? 1 : p->pixels;
    for (size_t r = 0; r < rows; r++) {
        size_t off = p->y_off + r * c->oc;
        steps_run(c, c->y + off, c->to + off, c->residual ? c->res + off : NULL, seg);
    }
}

static void run_pieces(void *arg, size_t begin, size_t end)
{
    wnn__xnn_conv *c = arg;
#if defined(__x86_64__) || defined(__i386__)
    /* subnormals flushed to zero while XNNPACK computes, as its own
    ** threadpool does for its operators (PTHREADPOOL_FLAG_DISABLE_DENORMALS):
    ** a subnormal operand costs a hundred cycles on some processors */
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040); /* FTZ, DAZ */
#endif
    for (size_t k = begin; k < end; k++) {
        piece *p = &c->pieces[k];
        const float *x = c->x + p->x_off;
        float *to = c->to + p->y_off;
        enum xnn_status s = xnn_status_success;
        if (x != p->x_set || to != p->y_set) {
            s = L.xnn_setup_convolution2d_nhwc_f32(p->op, p->nb, p->ih, c->w, x, to, NULL);
            p->x_set = s == xnn_status_success ? x : NULL;
            p->y_set = s == xnn_status_success ? to : NULL;
        }
        if (s == xnn_status_success)
            s = L.xnn_run_operator(p->op, NULL);
        if (s == xnn_status_success && c->n_steps)
            epilogue(c, p);
        p->status = s;
    }
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(csr);
#endif
}

wnn_status wnn__xnn_conv_run(wnn__xnn_conv *c, const float *x, float *y, const float *res)
{
    /* the convolution cannot write over the addend it is added to (the cpu
    ** planner places a node's result before its inputs are freed, so they
    ** do not meet today; oneDNN's sum post-op would take it in place) */
    float *to = y;
    if (c->residual && res == y) {
        if (!c->tmp && !(c->tmp = malloc(c->y_count * sizeof *c->tmp)))
            return WNN_STATUS_OUT_OF_MEMORY;
        to = c->tmp;
    }
    c->x = x, c->y = y, c->to = to, c->res = res;
    wnn__parallel_for(c->n_pieces, 1, run_pieces, c);
    for (size_t k = 0; k < c->n_pieces; k++)
        if (c->pieces[k].status != xnn_status_success)
            return status_of(c->pieces[k].status, WNN_STATUS_OPERATION_ERROR);
    return WNN_OK;
}

void wnn__xnn_conv_free(wnn__xnn_conv *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < c->n_pieces; k++)
        if (c->pieces[k].op)
            L.xnn_delete_operator(c->pieces[k].op);
    free(c->pieces);
    free(c->tmp);
    free(c);
}

#else /* no XNNPACK */

bool wnn__xnn_available(void) { return false; }

wnn_status wnn__xnn_conv_create(const wnn__xnn_conv_desc *d, const float *filter, const float *bias,
                                wnn__xnn_conv **out)
{
    (void)d, (void)filter, (void)bias;
    *out = NULL;
    return WNN_STATUS_NOT_SUPPORTED;
}

wnn_status wnn__xnn_conv_run(wnn__xnn_conv *c, const float *x, float *y, const float *res)
{
    (void)c, (void)x, (void)y, (void)res;
    return WNN_STATUS_NOT_SUPPORTED;
}

void wnn__xnn_conv_free(wnn__xnn_conv *c) { (void)c; }

#endif
