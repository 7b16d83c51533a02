/* SPDX-License-Identifier: Apache-2.0 */
/*
** xnnpack.c -- float32 nhwc convolutions through XNNPACK (see xnnpack.h).
**
** A convolution is one XNNPACK operator made at compile (the filter packed
** once) and set up again only when its tensors move. A residual add and a
** trailing hardSwish are XNNPACK operators of their own over the result.
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

#include "platform/config.h"
#include "platform/pool.h"

#define XNN_FUNCS(X)                                                                                                   \
    X(xnn_initialize)                                                                                                  \
    X(xnn_create_convolution2d_nhwc_f32)                                                                               \
    X(xnn_setup_convolution2d_nhwc_f32) X(xnn_run_operator) X(xnn_delete_operator) X(xnn_create_add_nd_f32)            \
        X(xnn_setup_add_nd_f32) X(xnn_create_hardswish_nc_f32) X(xnn_setup_hardswish_nc_f32)                           \
            X(xnn_create_sigmoid_nc_f32) X(xnn_setup_sigmoid_nc_f32) X(xnn_create_multiply_nd_f32)                     \
                X(xnn_setup_multiply_nd_f32)

static struct {
    pthread_once_t once;
    bool ok;
    pthreadpool_t pool; /* NULL: one thread */
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
    /* libXNNPACK's own dependency, so already loaded */
    pthreadpool_t (*create)(size_t) = (pthreadpool_t(*)(size_t))dlsym(h, "pthreadpool_create");
    size_t threads = wnn__pool_size();
    if (!create || L.xnn_initialize(NULL) != xnn_status_success)
        return;
    /* the handle and the pool stay for the process: operators live in graphs */
    if (threads > 1 && !(L.pool = create(threads)))
        return;
    L.ok = true;
}

bool wnn__xnn_available(void)
{
    pthread_once(&L.once, load);
    return L.ok;
}

struct wnn__xnn_conv {
    xnn_operator_t conv, add, act, mul; /* act: hardSwish or sigmoid; mul: swish's product */
    size_t n, h, w, y_count, oc, pixels;
    size_t y_shape[4];
    const float *x_set;
    float *y_set;    /* where conv was last set up for */
    float *tmp;      /* the convolution's result when res is y itself */
    float *gate;     /* swish's sigmoid */
    bool hard_swish; /* act is hardSwish, else sigmoid */
    const void *add_set[3], *act_set, *mul_set;
};

/* XNNPACK's status as wnn's: otherwise for every failure but memory. */
static wnn_status status_of(enum xnn_status s, wnn_status otherwise)
{
    return s == xnn_status_success ? WNN_OK : s == xnn_status_out_of_memory ? WNN_STATUS_OUT_OF_MEMORY : otherwise;
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
    c->n = d->n, c->h = d->h, c->w = d->w, c->oc = d->oc;
    c->pixels = (size_t)d->n * d->oh * d->ow;
    c->y_count = c->pixels * d->oc;
    c->y_shape[0] = d->n, c->y_shape[1] = d->oh, c->y_shape[2] = d->ow, c->y_shape[3] = d->oc;
    enum xnn_status s = L.xnn_create_convolution2d_nhwc_f32(
        d->pad[0], d->pad[3], d->pad[1], d->pad[2], d->kh, d->kw, d->stride[0], d->stride[1], d->dilation[0],
        d->dilation[1], d->groups, d->c / d->groups, d->oc / d->groups, d->c, d->oc, filter, bias, d->lo, d->hi,
        XNN_FLAG_YIELD_WORKERS, &c->conv);
    if (s == xnn_status_success && d->residual)
        s = L.xnn_create_add_nd_f32(d->res_lo, d->res_hi, 0, &c->add);
    if (s == xnn_status_success && d->post == WNN__XNN_POST_HARD_SWISH)
        s = L.xnn_create_hardswish_nc_f32(d->oc, d->oc, d->oc, 0, &c->act);
    if (s == xnn_status_success && (d->post == WNN__XNN_POST_SIGMOID || d->post == WNN__XNN_POST_SWISH))
        s = L.xnn_create_sigmoid_nc_f32(d->oc, d->oc, d->oc, 0, &c->act);
    if (s == xnn_status_success && d->post == WNN__XNN_POST_SWISH) {
        s = L.xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &c->mul);
        if (s == xnn_status_success && !(c->gate = malloc(c->y_count * sizeof *c->gate)))
            s = xnn_status_out_of_memory;
    }
    c->hard_swish = d->post == WNN__XNN_POST_HARD_SWISH;
    if (s != xnn_status_success) {
        wnn__xnn_conv_free(c);
        return status_of(s, WNN_STATUS_NOT_SUPPORTED);
    }
    *out = c;
    return WNN_OK;
}

wnn_status wnn__xnn_conv_run(wnn__xnn_conv *c, const float *x, float *y, const float *res)
{
    /* the convolution cannot write over the addend it is added to (the cpu
    ** planner places a node's result before its inputs are freed, so they
    ** do not meet today; oneDNN's sum post-op would take it in place) */
    float *to = y;
    if (c->add && res == y) {
        if (!c->tmp && !(c->tmp = malloc(c->y_count * sizeof *c->tmp)))
            return WNN_STATUS_OUT_OF_MEMORY;
        to = c->tmp;
    }
    enum xnn_status s = xnn_status_success;
    if (x != c->x_set || to != c->y_set) {
        s = L.xnn_setup_convolution2d_nhwc_f32(c->conv, c->n, c->h, c->w, x, to, L.pool);
        c->x_set = s == xnn_status_success ? x : NULL;
        c->y_set = s == xnn_status_success ? to : NULL;
    }
    if (s == xnn_status_success)
        s = L.xnn_run_operator(c->conv, L.pool);
    if (s == xnn_status_success && c->add) {
        if (c->add_set[0] != to || c->add_set[1] != res || c->add_set[2] != y) {
            s = L.xnn_setup_add_nd_f32(c->add, 4, c->y_shape, 4, c->y_shape, to, res, y, L.pool);
            c->add_set[0] = to, c->add_set[1] = res, c->add_set[2] = y;
            if (s != xnn_status_success)
                c->add_set[0] = NULL;
        }
        if (s == xnn_status_success)
            s = L.xnn_run_operator(c->add, L.pool);
    }
    if (s == xnn_status_success && c->act) {
        /* in place, or for swish into the gate that then multiplies y */
        float *a = c->mul ? c->gate : y;
        if (c->act_set != y) {
            s = c->hard_swish ? L.xnn_setup_hardswish_nc_f32(c->act, c->pixels, y, a, L.pool)
                              : L.xnn_setup_sigmoid_nc_f32(c->act, c->pixels, y, a, L.pool);
            c->act_set = s == xnn_status_success ? y : NULL;
        }
        if (s == xnn_status_success)
            s = L.xnn_run_operator(c->act, L.pool);
    }
    if (s == xnn_status_success && c->mul) {
        if (c->mul_set != y) {
            s = L.xnn_setup_multiply_nd_f32(c->mul, 4, c->y_shape, 4, c->y_shape, y, c->gate, y, L.pool);
            c->mul_set = s == xnn_status_success ? y : NULL;
        }
        if (s == xnn_status_success)
            s = L.xnn_run_operator(c->mul, L.pool);
    }
    return status_of(s, WNN_STATUS_OPERATION_ERROR);
}

void wnn__xnn_conv_free(wnn__xnn_conv *c)
{
    if (!c)
        return;
    xnn_operator_t ops[4] = {c->conv, c->add, c->act, c->mul};
    for (int k = 0; k < 4; k++)
        if (ops[k])
            L.xnn_delete_operator(ops[k]);
    free(c->tmp);
    free(c->gate);
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
