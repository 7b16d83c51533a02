/* SPDX-License-Identifier: Apache-2.0 */
/*
** dnnl.c -- conv2d and convTranspose2d through oneDNN, compiled once per
** graph (see dnnl.h). A convTranspose2d is oneDNN's deconvolution: the same
** path with its filter regrouped and no post-ops (dnnl_chain.c says why).
**
** At compile, a conv2d whose filter (and bias, if any) are constants becomes
** one oneDNN convolution: the filter is read in whichever of WebNN's layouts
** it has, and reordered once into the layout oneDNN picked for this machine.
** The nodes after it fold in while each is the only reader of the one before
** and none of them is a graph output:
**
**   batchNormalization  with constant parameters on the channel axis: scaled
**                       into the filter and the bias (computed in double);
**   add                 of a tensor of the output's shape computed before the
**                       convolution: oneDNN's sum post-op (the result starts
**                       as that tensor and the convolution adds into it);
**   relu, clamp, sigmoid, tanh, leakyRelu, elu, hardSwish, hardSigmoid, linear,
**   and add, sub, mul, div, max, min with a constant of one value: eltwise
**                       post-ops (linear steps merged into one);
**   mul(x, sigmoid(x))  swish, and mul(x, clamp(x + 3, 0, 6)), hardSwish as
**                       exporters spell it out (x read by those two only).
**
** Source and result are reordered between the graph's layout (nchw or nhwc)
** and the blocked layout oneDNN prefers when they differ. float16 operands are
** widened to float32 (F16C) and the result narrowed once: oneDNN 2.6 computes
** float16 convolutions only on processors with AVX512-FP16.
**
** Threads: Debian's oneDNN runs on OpenMP (libgomp). A convolution is one
** call from the thread running the graph, which is the pool's master
** (platform/pool.c): wnn's own parallel loops run on the same OpenMP team,
** so there is one team of wnn's thread count (WNN_NUM_THREADS) in the
** process, and its threads go from one operator to the next without sleeping.
** OpenMP's threads spin a little after each region before sleeping
** (OMP_WAIT_POLICY=passive stops it).
*/
#include "backends/cpu/dnnl.h"

#ifdef WNN_HAVE_DNNL

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

#include "backends/cpu/dnnl_chain.h"
#include "backends/cpu/half_simd.h"
#include "backends/cpu/simd_avx2.h" /* WNN_CPU_X86 */
#include "backends/cpu/xnnpack.h"
#include "platform/pool.h"
#include "core/half.h"
#include "platform/config.h"

typedef wnn__dnnl_chain chain;
typedef wnn__dnnl_post_op post_op;

#define DNNL_FUNCS(X)                                                                                                  \
    X(dnnl_engine_create)                                                                                              \
    X(dnnl_stream_create) X(dnnl_stream_wait) X(dnnl_stream_destroy) X(dnnl_memory_desc_init_by_tag)                   \
        X(dnnl_memory_desc_init_by_strides) X(dnnl_memory_desc_equal) X(dnnl_memory_desc_get_size)                     \
            X(dnnl_memory_create) X(dnnl_memory_destroy) X(dnnl_memory_set_data_handle) X(dnnl_memory_get_data_handle) \
                X(dnnl_dilated_convolution_forward_desc_init) X(dnnl_dilated_deconvolution_forward_desc_init) X(dnnl_primitive_desc_create)                            \
                    X(dnnl_primitive_desc_query_md) X(dnnl_primitive_desc_destroy) X(dnnl_primitive_create)            \
                        X(dnnl_primitive_destroy) X(dnnl_primitive_execute) X(dnnl_reorder_primitive_desc_create)      \
                            X(dnnl_post_ops_create) X(dnnl_post_ops_destroy) X(dnnl_post_ops_append_eltwise)           \
                                X(dnnl_post_ops_append_sum) X(dnnl_primitive_attr_create)                              \
                                    X(dnnl_primitive_attr_destroy) X(dnnl_primitive_attr_set_post_ops)                 \
                                        X(dnnl_primitive_attr_set_scratchpad_mode) X(dnnl_sgemm)

static struct {
    pthread_once_t once;
    bool ok;
    dnnl_engine_t engine;
    void (*omp_set_num_threads)(int);
    int (*omp_get_max_threads)(void);
#define X(f) __typeof__(f) *f;
    DNNL_FUNCS(X)
#undef X
} L = {.once = PTHREAD_ONCE_INIT};

static void load(void)
{
    if (!wnn__config_get()->cpu_dnnl)
        return;
    void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
#define X(f)                                                                                                           \
    if (!(L.f = (__typeof__(f) *)dlsym(h, #f)))                                                                        \
        return;
    DNNL_FUNCS(X)
#undef X
    /* found among libdnnl's dependencies when it runs on OpenMP */
    L.omp_set_num_threads = (void (*)(int))dlsym(h, "omp_set_num_threads");
    L.omp_get_max_threads = (int (*)(void))dlsym(h, "omp_get_max_threads");
    if (!L.omp_set_num_threads || !L.omp_get_max_threads)
        L.omp_set_num_threads = NULL;
    /* the handle stays open for the process: primitives live in graphs */
    L.ok = L.dnnl_engine_create(&L.engine, dnnl_cpu, 0) == dnnl_success;
}

static bool available(void)
{
    pthread_once(&L.once, load);
    return L.ok;
}

/* OpenMP's thread count on this thread becomes n; returns the old one, for
** restore_threads(), so the application's own OpenMP is left as it was.
** Primitives are made for the pool's whole count (oneDNN splits their work
** for the count they are made with), and run with wnn__pool_threads_here():
** all of them on the pool's master, which runs graphs, 1 on another thread,
** so that no second team starts beside the master's (platform/pool.c). */
static int use_threads(size_t n)
{
    if (!L.omp_set_num_threads)
        return 0;
    int old = L.omp_get_max_threads();
    L.omp_set_num_threads((int)n);
    return old;
}

static void restore_threads(int old)
{
    if (L.omp_set_num_threads)
        L.omp_set_num_threads(old);
}

struct wnn__dnnl_node {
    uint32_t x, res, y;      /* value ids: input, residual (or WNN__NONE), result */
    bool half;               /* float16 operands, staged through float32 */
    size_t threads;          /* OpenMP threads the primitives were made for */
    size_t x_count, y_count; /* elements */
    dnnl_stream_t stream;
    dnnl_primitive_t conv;
    dnnl_primitive_t src_reorder;              /* user -> conv layout, or NULL */
    dnnl_primitive_t res_reorder, dst_reorder; /* user <-> conv layout, or NULL */
    dnnl_memory_t user_src, src, weights, bias, user_dst, dst, scratch;
    void *src_buf, *dst_buf, *weights_buf, *scratch_buf; /* owned */
    float *x32, *y32;                                    /* float16 staging, owned */
    dnnl_memory_desc_t src_md, dst_md;                   /* the layouts the convolution reads and writes */
    /* wnn__dnnl_link(): the value is held in the convolution's layout by the
    ** primitives on both sides, so no reorder runs for it */
    bool x_linked, res_linked, y_linked;
    wnn__xnn_conv *xnn; /* XNNPACK runs the chain instead (none of the above but the values) */
};

/* ------------------------------------------------------------------------ */
/* Compile                                                                   */
/* ------------------------------------------------------------------------ */

static dnnl_status_t reorder_prim(const dnnl_memory_desc_t *from, const dnnl_memory_desc_t *to, dnnl_primitive_t *out)
{
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = L.dnnl_reorder_primitive_desc_create(&pd, from, L.engine, to, L.engine, NULL);
    if (s != dnnl_success)
        return s;
    s = L.dnnl_primitive_create(out, pd);
    L.dnnl_primitive_desc_destroy(pd);
    return s;
}

static void *alloc_md(const dnnl_memory_desc_t *md)
{
    size_t n = L.dnnl_memory_desc_get_size(md);
    return aligned_alloc(64, (n + 63) / 64 * 64 + 64);
}

/* Memory and, when the layouts differ, a buffer and a reorder for a tensor
** the graph holds in user layout and the primitive wants in want. */
static dnnl_status_t bridge(const dnnl_memory_desc_t *user, const dnnl_memory_desc_t *want, bool to_user,
                            dnnl_memory_t *user_mem, dnnl_memory_t *mem, void **buf, dnnl_primitive_t *re)
{
    dnnl_status_t s = L.dnnl_memory_create(user_mem, user, L.engine, DNNL_MEMORY_NONE);
    if (s != dnnl_success || L.dnnl_memory_desc_equal(user, want))
        return s;
    if (!(*buf = alloc_md(want)))
        return dnnl_out_of_memory;
    if ((s = L.dnnl_memory_create(mem, want, L.engine, *buf)) != dnnl_success)
        return s;
    return to_user ? reorder_prim(want, user, re) : reorder_prim(user, want, re);
}

static dnnl_status_t exec2(dnnl_stream_t st, dnnl_primitive_t p, dnnl_memory_t from, dnnl_memory_t to)
{
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return L.dnnl_primitive_execute(p, st, 2, a);
}

/* The filter (folded_filter's) reordered into wmd; the bias into bias. */
static dnnl_status_t load_weights(const wnn__ir *ir, const wnn__node *conv, const chain *c, wnn__dnnl_node *d,
                                  const dnnl_memory_desc_t *user_w, const dnnl_memory_desc_t *wmd, float *bias)
{
    float *w = wnn__dnnl_folded_filter(ir, conv, c, false, bias);
    if (!w)
        return dnnl_out_of_memory;
    /* on one thread: this is the compiling thread, and a region of more
    ** would start an OpenMP team of its own beside the master's, whose
    ** threads then sleep between regions (libgomp spins less once it has
    ** more threads than cores: 16 threads ran slower than 8) */
    int threads = use_threads(1);
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_primitive_t re = NULL;
    dnnl_status_t r = dnnl_out_of_memory;
    if ((d->weights_buf = alloc_md(wmd)) && (r = L.dnnl_memory_create(&from, user_w, L.engine, w)) == dnnl_success &&
        (r = L.dnnl_memory_create(&to, wmd, L.engine, d->weights_buf)) == dnnl_success &&
        (r = reorder_prim(user_w, wmd, &re)) == dnnl_success && (r = exec2(d->stream, re, from, to)) == dnnl_success)
        r = L.dnnl_stream_wait(d->stream);
    if (re)
        L.dnnl_primitive_destroy(re);
    if (from)
        L.dnnl_memory_destroy(from);
    if (to)
        L.dnnl_memory_destroy(to);
    restore_threads(threads);
    free(w);
    return r;
}

/* The activation tensors' descriptor in the graph's layout. */
static void user_md(const wnn_operand_desc *d, bool nhwc, dnnl_memory_desc_t *md)
{
    /* oneDNN's dimensions are always n, c, h, w; the tag says the order */
    dnnl_dims_t dims = {d->shape[0], d->shape[nhwc ? 3 : 1], d->shape[nhwc ? 1 : 2], d->shape[nhwc ? 2 : 3]};
    L.dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_f32, nhwc ? dnnl_nhwc : dnnl_nchw);
}

/* The convolution's (or, for a convTranspose2d, the deconvolution's)
** descriptor from src to dst; oneDNN's dimensions and padding are WebNN's. */
static dnnl_status_t conv_desc(const wnn__node *conv, const wnn_operand_desc *xd, const wnn_operand_desc *fd,
                               const dnnl_memory_desc_t *src, const dnnl_memory_desc_t *wts,
                               const dnnl_memory_desc_t *bias, const dnnl_memory_desc_t *dst, dnnl_convolution_desc_t *cd)
{
    const uint32_t *p = conv->attrs.conv.padding, *sd = conv->attrs.conv.strides, *dl = conv->attrs.conv.dilations;
    dnnl_dims_t strides = {sd[0], sd[1]}, dilates = {dl[0] - 1, dl[1] - 1}, pad_l = {p[0], p[2]}, pad_r = {p[1], p[3]};
    if (conv->op != WNN__OP_CONV_TRANSPOSE2D)
        return L.dnnl_dilated_convolution_forward_desc_init(cd, dnnl_forward_inference, dnnl_convolution_direct, src,
                                                            wts, bias, dst, strides, dilates, pad_l, pad_r);
    /* WebNN's output padding (or output sizes) lengthens the far edge: the
    ** padding there is what makes oneDNN's size come out, and may be < 0 */
    bool nhwc = conv->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    for (int a = 0; a < 2; a++) {
        int64_t in = xd->shape[(nhwc ? 1 : 2) + a], out = dst->dims[2 + a];
        int64_t extent = ((int64_t)fd->shape[ax[2 + a]] - 1) * dl[a] + 1;
        pad_r[a] = (in - 1) * sd[a] + extent - pad_l[a] - out;
    }
    return L.dnnl_dilated_deconvolution_forward_desc_init(cd, dnnl_forward_inference, dnnl_deconvolution_direct, src,
                                                          wts, bias, dst, strides, dilates, pad_l, pad_r);
}

/* Whether an nhwc graph's convolution should take oneDNN's own (blocked)
** layout and the reorders around it rather than plain nhwc: on a processor
** without AVX-512, oneDNN 2.6's plain-nhwc kernel for an ungrouped KxK
** convolution (K > 1) ran 1.3 to 1.6 times as long as its blocked nChw8c
** one (resnet18's 3x3 convolutions on this project's 2-core machine,
** DNNL_VERBOSE: 11.9 / 9.2 / 8.6 ms a run at 56x56x64, 28x28x128 and
** 14x14x256 against 7.9 / 5.9 / 6.6), while the two reorders move the
** source and the result once each: they pay off from about 2^25
** multiply-adds. Smaller ones (MobileNets' pointwise and depthwise,
** SqueezeNet's) stay plain, where the reorders cost more than they save. */
static bool blocked_pays(const wnn__node *conv, const wnn_operand_desc *xd, const wnn_operand_desc *yd,
                         int64_t taps)
{
#if WNN_CPU_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") || conv->attrs.conv.groups != 1 || taps < 2)
        return false;
    double macs = (double)yd->shape[0] * yd->shape[1] * yd->shape[2] * yd->shape[3] * taps * xd->shape[3]; /* nhwc */
    return macs >= (double)(1 << 25);
#else
    (void)conv, (void)xd, (void)yd, (void)taps;
    return false;
#endif
}

/* Whether a value comes out of an earlier primitive in oneDNN's blocked
** layout (one that reorders its result back to the graph's). */
static bool from_blocked(wnn__dnnl_node *const *earlier, uint32_t n, uint32_t v)
{
    for (uint32_t m = 0; v != WNN__NONE && m < n; m++)
        if (earlier[m] && earlier[m]->y == v && !earlier[m]->half && !earlier[m]->xnn && earlier[m]->dst_reorder)
            return true;
    return false;
}

static dnnl_status_t build(const wnn__ir *ir, const wnn__node *conv, const chain *c, bool near_blocked,
                           wnn__dnnl_node *d)
{
    const wnn_operand_desc *xd = &ir->values[conv->in[0]].desc, *yd = &ir->values[conv->out[0]].desc;
    const wnn_operand_desc *fd = &ir->values[conv->in[1]].desc;
    bool nhwc = conv->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    /* o output channels in all, i input channels a group */
    int64_t g = conv->attrs.conv.groups, o = yd->shape[nhwc ? 3 : 1], i = xd->shape[nhwc ? 3 : 1] / g;
    int64_t kh = fd->shape[ax[2]], kw = fd->shape[ax[3]];

    dnnl_memory_desc_t xu, yu, wu, bmd, xa, ya, wa;
    user_md(xd, nhwc, &xu);
    user_md(yd, nhwc, &yu);
    if (g > 1)
        L.dnnl_memory_desc_init_by_tag(&wu, 5, (dnnl_dims_t){g, o / g, i, kh, kw}, dnnl_f32, dnnl_goihw);
    else
        L.dnnl_memory_desc_init_by_tag(&wu, 4, (dnnl_dims_t){o, i, kh, kw}, dnnl_f32, dnnl_oihw);
    L.dnnl_memory_desc_init_by_tag(&bmd, 1, (dnnl_dims_t){o}, dnnl_f32, dnnl_x);
    L.dnnl_memory_desc_init_by_tag(&xa, 4, xu.dims, dnnl_f32, dnnl_format_tag_any);
    L.dnnl_memory_desc_init_by_tag(&ya, 4, yu.dims, dnnl_f32, dnnl_format_tag_any);
    L.dnnl_memory_desc_init_by_tag(&wa, wu.ndims, wu.dims, dnnl_f32, dnnl_format_tag_any);

    /* an nhwc graph's convolutions are asked first for plain nhwc on both
    ** sides (the graph's layout, so no reorder around them), and take
    ** oneDNN's own choice only where it has no kernel for that: on AVX2 its
    ** choice is a blocked layout whose reorders cost more than the
    ** convolutions of a small image */
    dnnl_convolution_desc_t cd, cd_plain;
    dnnl_status_t s = conv_desc(conv, xd, fd, &xa, &wa, &bmd, &ya, &cd);
    if (s != dnnl_success)
        return s;
    /* an ungrouped convolution whose source or addend comes blocked from
    ** an earlier one takes the blocked layout too, so that wnn__dnnl_link
    ** can drop the reorders between them (ResNet's 1x1 downsampling
    ** convolutions, at each stage's start) */
    bool plain = nhwc && !blocked_pays(conv, xd, yd, kh * kw) && !(near_blocked && g == 1) &&
                 conv_desc(conv, xd, fd, &xu, &wa, &bmd, &yu, &cd_plain) == dnnl_success;

    dnnl_post_ops_t po;
    dnnl_primitive_attr_t attr;
    if ((s = L.dnnl_post_ops_create(&po)) != dnnl_success)
        return s;
    for (uint32_t k = 0; s == dnnl_success && k < c->n_ops; k++)
        s = c->ops[k].sum ? L.dnnl_post_ops_append_sum(po, 1.0f)
                          : L.dnnl_post_ops_append_eltwise(po, 1.0f, c->ops[k].alg, c->ops[k].alpha, c->ops[k].beta);
    if (s == dnnl_success && (s = L.dnnl_primitive_attr_create(&attr)) == dnnl_success) {
        s = L.dnnl_primitive_attr_set_post_ops(attr, po);
        /* a scratchpad per node: graphs may run on several threads at once */
        if (s == dnnl_success)
            s = L.dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user);
        dnnl_primitive_desc_t pd = NULL;
        if (s == dnnl_success) {
            s = plain ? L.dnnl_primitive_desc_create(&pd, &cd_plain, attr, L.engine, NULL) : dnnl_unimplemented;
            if (s != dnnl_success && s != dnnl_out_of_memory)
                s = L.dnnl_primitive_desc_create(&pd, &cd, attr, L.engine, NULL);
        }
        L.dnnl_primitive_attr_destroy(attr);
        if (s == dnnl_success) {
            const dnnl_memory_desc_t *src = L.dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
            const dnnl_memory_desc_t *dst = L.dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
            const dnnl_memory_desc_t *wts = L.dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
            const dnnl_memory_desc_t *pad = L.dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
            d->src_md = *src;
            d->dst_md = *dst;
            float *bias = malloc((size_t)o * sizeof *bias);
            s = bias ? dnnl_success : dnnl_out_of_memory;
            if (s == dnnl_success)
                s = L.dnnl_primitive_create(&d->conv, pd);
            if (s == dnnl_success)
                s = bridge(&xu, src, false, &d->user_src, &d->src, &d->src_buf, &d->src_reorder);
            if (s == dnnl_success)
                s = bridge(&yu, dst, true, &d->user_dst, &d->dst, &d->dst_buf, &d->dst_reorder);
            if (s == dnnl_success && d->dst_reorder && c->res != WNN__NONE)
                s = reorder_prim(&yu, dst, &d->res_reorder);
            if (s == dnnl_success)
                s = load_weights(ir, conv, c, d, &wu, wts, bias);
            if (s == dnnl_success)
                s = L.dnnl_memory_create(&d->weights, wts, L.engine, d->weights_buf);
            if (s == dnnl_success)
                s = L.dnnl_memory_create(&d->bias, &bmd, L.engine, DNNL_MEMORY_ALLOCATE);
            if (s == dnnl_success && pad && L.dnnl_memory_desc_get_size(pad) > 0)
                s = (d->scratch_buf = alloc_md(pad)) ? L.dnnl_memory_create(&d->scratch, pad, L.engine, d->scratch_buf)
                                                     : dnnl_out_of_memory;
            if (s == dnnl_success) {
                void *h;
                L.dnnl_memory_get_data_handle(d->bias, &h);
                memcpy(h, bias, (size_t)o * sizeof *bias);
            }
            free(bias);
            /* plain layouts run on the graph's own memory */
            if (s == dnnl_success && !d->src)
                s = L.dnnl_memory_create(&d->src, &xu, L.engine, DNNL_MEMORY_NONE);
            if (s == dnnl_success && !d->dst)
                s = L.dnnl_memory_create(&d->dst, &yu, L.engine, DNNL_MEMORY_NONE);
            L.dnnl_primitive_desc_destroy(pd);
        }
    }
    L.dnnl_post_ops_destroy(po);
    return s;
}

/* Whether XNNPACK should take this float32 nhwc convolution: only where
** WNN_CPU_XNNPACK=1 asks. Its convolutions run in pieces on wnn's own
** threads (xnnpack.c), but on the machines measured (docs/backends.md) its
** kernels were slower than oneDNN's on one thread and on sixteen. */
static bool xnn_wanted(void) { return wnn__config_get()->cpu_xnnpack == 1; }

/* lo, hi narrowed by a clamp to [a, b]: clamp(clamp(x, lo, hi), a, b). */
static void narrow(float *lo, float *hi, float a, float b)
{
    *lo = fminf(fmaxf(*lo, a), b);
    *hi = fminf(fmaxf(*hi, a), b);
}

/* The chain as XNNPACK's path computes it into *xd: the clamps and relus
** before anything else as the convolution's own bounds, the rest (the
** residual add, activations) as steps after it; false for an activation
** it does not have. */
static bool xnn_chain(const chain *c, wnn__xnn_conv_desc *xd)
{
    xd->lo = -INFINITY;
    xd->hi = INFINITY;
    for (uint32_t k = 0; k < c->n_ops; k++) {
        const post_op *op = &c->ops[k];
        bool bound = xd->n_steps == 0 && !op->sum &&
                     ((op->alg == dnnl_eltwise_relu && op->alpha == 0.0f) ||
                      (op->alg == dnnl_eltwise_clip && op->alpha <= op->beta));
        if (bound) {
            if (op->alg == dnnl_eltwise_relu)
                narrow(&xd->lo, &xd->hi, 0.0f, INFINITY);
            else
                narrow(&xd->lo, &xd->hi, op->alpha, op->beta);
            continue;
        }
        wnn__xnn_step st = {WNN__XNN_SUM, op->alpha, op->beta};
        if (op->sum)
            st.kind = WNN__XNN_SUM;
        else if (op->alg == dnnl_eltwise_relu)
            st.kind = WNN__XNN_RELU;
        else if (op->alg == dnnl_eltwise_linear)
            st.kind = WNN__XNN_LINEAR;
        else if (op->alg == dnnl_eltwise_clip)
            st.kind = WNN__XNN_CLIP;
        else if (op->alg == dnnl_eltwise_logistic)
            st.kind = WNN__XNN_SIGMOID;
        else if (op->alg == dnnl_eltwise_tanh)
            st.kind = WNN__XNN_TANH;
        else if (op->alg == dnnl_eltwise_hardswish && op->alpha == 0.0f)
            st.kind = WNN__XNN_HARD_SWISH;
        else if (op->alg == dnnl_eltwise_elu)
            st.kind = WNN__XNN_ELU;
        else if (op->alg == dnnl_eltwise_swish)
            st.kind = WNN__XNN_SWISH;
        else
            return false;
        if (xd->n_steps == WNN__XNN_MAX_STEPS)
            return false;
        xd->steps[xd->n_steps++] = st;
    }
    return xd->lo < xd->hi;
}

/* d runs through XNNPACK where it takes the convolution and its chain:
** WNN_OK with d->xnn set, or with d->xnn NULL for oneDNN to try. */
static wnn_status xnn_build(const wnn__ir *ir, const wnn__node *conv, const chain *c, wnn__dnnl_node *d)
{
    const wnn_operand_desc *xd = &ir->values[conv->in[0]].desc, *yd = &ir->values[conv->out[0]].desc;
    if (d->half || conv->op != WNN__OP_CONV2D || conv->attrs.conv.input_layout != WNN_INPUT_LAYOUT_NHWC ||
        !xnn_wanted() || !wnn__xnn_available())
        return WNN_OK;
    wnn__xnn_conv_desc k = {0};
    if (!xnn_chain(c, &k))
        return WNN_OK;
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    const uint32_t *fs = ir->values[conv->in[1]].desc.shape;
    k.n = xd->shape[0], k.h = xd->shape[1], k.w = xd->shape[2], k.c = xd->shape[3];
    k.oh = yd->shape[1], k.ow = yd->shape[2], k.oc = yd->shape[3];
    k.kh = fs[ax[2]], k.kw = fs[ax[3]], k.groups = conv->attrs.conv.groups;
    memcpy(k.pad, conv->attrs.conv.padding, sizeof k.pad);
    memcpy(k.stride, conv->attrs.conv.strides, sizeof k.stride);
    memcpy(k.dilation, conv->attrs.conv.dilations, sizeof k.dilation);
    float *bias = malloc((size_t)k.oc * sizeof *bias);
    float *w = bias ? wnn__dnnl_folded_filter(ir, conv, c, true, bias) : NULL;
    wnn_status s = w ? wnn__xnn_conv_create(&k, w, bias, &d->xnn) : WNN_STATUS_OUT_OF_MEMORY;
    free(w);
    free(bias);
    if (s == WNN_OK) { /* plain nhwc on both sides: wnn__dnnl_link never matches it with a blocked layout */
        user_md(xd, true, &d->src_md);
        user_md(yd, true, &d->dst_md);
    }
    return s == WNN_STATUS_OUT_OF_MEMORY ? s : WNN_OK;
}

/* Whether some output row or column of a conv2d reads only padding. oneDNN
** 2.6's brgconv gets those wrong (bias and sum lost) in some shapes, so they
** stay on the portable kernel; real models rarely have them. */
static bool window_in_padding(const wnn__ir *ir, const wnn__node *conv)
{
    const wnn_operand_desc *xd = &ir->values[conv->in[0]].desc, *yd = &ir->values[conv->out[0]].desc;
    const wnn_operand_desc *fd = &ir->values[conv->in[1]].desc;
    bool nhwc = conv->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    if (conv->op != WNN__OP_CONV2D)
        return false;
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    for (int a = 0; a < 2; a++) {
        int64_t in = xd->shape[(nhwc ? 1 : 2) + a], out = yd->shape[(nhwc ? 1 : 2) + a];
        int64_t pad = conv->attrs.conv.padding[2 * a], stride = conv->attrs.conv.strides[a];
        int64_t extent = ((int64_t)fd->shape[ax[2 + a]] - 1) * conv->attrs.conv.dilations[a] + 1;
        if (pad >= extent || (out - 1) * stride - pad >= in)
            return true;
    }
    return false;
}

/* The threads a convolution is worth: one below CONV_MACS_PER_THREAD
** multiply-adds (on a loaded machine a second thread the scheduler has not
** run holds up a small one: ppocr_mobile_v2_cls, 2 cores, 1.1 ms a run on 1
** thread, 5 ms on 2), else the pool's whole count. Nothing in between: when
** a region asks for fewer threads than the one before, libgomp lets the
** surplus exit and the next larger region creates them again (mobilenet_v2,
** 16 threads: 51 a run). A region of one thread leaves the team as it is. */
#define CONV_MACS_PER_THREAD ((uint64_t)1 << 20)

static size_t conv_threads(const wnn__ir *ir, const wnn__node *conv)
{
    int ax[4];
    wnn__dnnl_filter_axes(conv, ax);
    const wnn_operand_desc *fd = &ir->values[conv->in[1]].desc, *yd = &ir->values[conv->out[0]].desc;
    /* multiply-adds of one output element of a conv2d, (C_in / groups) * kh *
    ** kw, or of one input element of a convTranspose2d, (C_out / groups) * kh * kw */
    uint64_t per_element = (uint64_t)fd->shape[ax[conv->op == WNN__OP_CONV2D ? 1 : 0]] * fd->shape[ax[2]] * fd->shape[ax[3]];
    const wnn_operand_desc *counted = conv->op == WNN__OP_CONV2D ? yd : &ir->values[conv->in[0]].desc;
    uint64_t macs = wnn__shape_count(counted) * per_element;
    return macs < CONV_MACS_PER_THREAD ? 1 : wnn__pool_size();
}

/* Whether oneDNN's deconvolution is worth taking for a convTranspose2d: it
** holds output channels in blocks of 8 (16 with AVX-512), so with fewer a
** group it computes mostly padding, and wnn's own gemm path was faster
** (2-core AMD EPYC with AVX2, 2x2 stride 2, [1,24,160,160] in, wnn bench p50 against the
** portable kernel: 1 output channel 1.07 -> 2.04 ms, 4 3.20 -> 3.69, 8 6.84
** -> 2.61, 16 16.8 -> 5.2). Depthwise ones (one channel in and out a group)
** it blocks across groups: [1,64,56,56] 4x4 stride 2, 11.6 -> 2.3 ms. */
static bool deconv_worth_it(const wnn__ir *ir, const wnn__node *conv)
{
    bool nhwc = conv->attrs.conv.input_layout == WNN_INPUT_LAYOUT_NHWC;
    uint32_t g = conv->attrs.conv.groups, c = nhwc ? 3 : 1;
    uint32_t in_g = ir->values[conv->in[0]].desc.shape[c] / g, out_g = ir->values[conv->out[0]].desc.shape[c] / g;
    return out_g >= 8 || (g > 1 && in_g == 1 && out_g == 1);
}

bool wnn__dnnl_takes(const wnn__ir *ir, uint32_t n)
{
    const wnn__node *conv = &ir->nodes[n];
    if ((conv->op != WNN__OP_CONV2D && conv->op != WNN__OP_CONV_TRANSPOSE2D) || !available())
        return false;
    wnn_data_type t = ir->values[conv->in[0]].desc.data_type;
    if (conv->op == WNN__OP_CONV_TRANSPOSE2D && !deconv_worth_it(ir, conv))
        return false;
    return (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) && wnn__dnnl_is_constant(ir, conv->in[1]) &&
           wnn__dnnl_is_constant(ir, conv->in[2]) && !window_in_padding(ir, conv);
}

wnn_status wnn__dnnl_compile(const wnn__ir *ir, uint32_t n, const uint32_t *uses, const bool *is_output, bool *fused,
                             wnn__dnnl_node *const *earlier, wnn__dnnl_node **out)
{
    *out = NULL;
    if (!wnn__dnnl_takes(ir, n))
        return WNN_OK;
    const wnn__node *conv = &ir->nodes[n];
    wnn_data_type t = ir->values[conv->in[0]].desc.data_type;
    chain c = wnn__dnnl_follow(ir, n, uses, is_output);
    wnn__dnnl_node *d = calloc(1, sizeof *d);
    if (!d)
        return WNN_STATUS_OUT_OF_MEMORY;
    d->x = conv->in[0];
    d->res = c.res;
    d->y = c.out;
    d->half = t == WNN_DATA_TYPE_FLOAT16;
    d->x_count = (size_t)wnn_operand_desc_byte_length(&ir->values[d->x].desc) / wnn_data_type_size(t);
    d->y_count = (size_t)wnn_operand_desc_byte_length(&ir->values[d->y].desc) / wnn_data_type_size(t);
    /* primitives size their scratchpads for the thread count they are made
    ** with: they never run with more (wnn_set_num_threads may raise it) */
    d->threads = conv_threads(ir, conv);
    wnn_status xs = xnn_build(ir, conv, &c, d);
    if (xs != WNN_OK || d->xnn) {
        if (xs != WNN_OK) {
            wnn__dnnl_free(d);
            return xs;
        }
        for (uint32_t k = 0; k < c.n_nodes; k++)
            fused[c.nodes[k]] = true;
        *out = d;
        return WNN_OK;
    }
    int threads = use_threads(d->threads);
    dnnl_status_t s = L.dnnl_stream_create(&d->stream, L.engine, dnnl_stream_default_flags);
    if (s == dnnl_success)
        s = build(ir, conv, &c, from_blocked(earlier, n, d->x) || from_blocked(earlier, n, d->res), d);
    restore_threads(threads);
    if (s == dnnl_success && d->half) {
        d->x32 = malloc(d->x_count * sizeof *d->x32);
        d->y32 = malloc(d->y_count * sizeof *d->y32);
        if (!d->x32 || !d->y32)
            s = dnnl_out_of_memory;
    }
    if (s != dnnl_success) {
        wnn__dnnl_free(d);
        /* a shape oneDNN refuses runs on the portable kernel */
        return s == dnnl_out_of_memory ? WNN_STATUS_OUT_OF_MEMORY : WNN_OK;
    }
    for (uint32_t k = 0; k < c.n_nodes; k++)
        fused[c.nodes[k]] = true;
    *out = d;
    return WNN_OK;
}

uint32_t wnn__dnnl_node_output(const wnn__dnnl_node *d) { return d->y; }

bool wnn__dnnl_node_xnnpack(const wnn__dnnl_node *d) { return d->xnn != NULL; }

uint32_t wnn__dnnl_node_reorders(const wnn__dnnl_node *d)
{
    return (d->src_reorder && !d->x_linked) + (d->dst_reorder && !d->y_linked) +
           (d->res != WNN__NONE && d->dst_reorder && !d->res_linked);
}

/* ------------------------------------------------------------------------ */
/* Run                                                                       */
/* ------------------------------------------------------------------------ */

wnn_status wnn__dnnl_run(wnn__dnnl_node *d, const wnn__view *views)
{
    if (d->xnn)
        return wnn__xnn_conv_run(d->xnn, views[d->x].data, views[d->y].data,
                                 d->res != WNN__NONE ? views[d->res].data : NULL);
    size_t here = wnn__pool_threads_here();
    int threads = use_threads(here < d->threads ? here : d->threads);
    void *x = views[d->x].data, *y = d->half ? (void *)d->y32 : views[d->y].data;
    if (d->half) {
        wnn__half_to_float_n(d->x32, x, d->x_count);
        x = d->x32;
    }
    dnnl_status_t s = dnnl_success;
    if (d->src_reorder && !d->x_linked) {
        L.dnnl_memory_set_data_handle(d->user_src, x);
        s = exec2(d->stream, d->src_reorder, d->user_src, d->src);
    } else {
        L.dnnl_memory_set_data_handle(d->src, x);
    }
    /* where the convolution writes: y, or a buffer reordered into y after */
    void *dst = d->dst_reorder && !d->y_linked ? d->dst_buf : y;
    L.dnnl_memory_set_data_handle(d->dst, dst);
    if (d->res != WNN__NONE && s == dnnl_success) {
        /* the sum post-op adds into what the result holds */
        const void *r = views[d->res].data;
        if (d->half) {
            wnn__half_to_float_n(d->y32, r, d->y_count);
            r = d->y32;
        }
        if (d->res_linked) {
            memmove(dst, r, L.dnnl_memory_desc_get_size(&d->dst_md));
        } else if (d->dst_reorder) {
            L.dnnl_memory_set_data_handle(d->user_dst, (void *)r);
            s = exec2(d->stream, d->res_reorder, d->user_dst, d->dst);
        } else if (r != y) {
            memmove(y, r, d->y_count * sizeof(float));
        }
    }
    if (s == dnnl_success) {
        dnnl_exec_arg_t a[5] = {{DNNL_ARG_SRC, d->src},
                                {DNNL_ARG_WEIGHTS, d->weights},
                                {DNNL_ARG_BIAS, d->bias},
                                {DNNL_ARG_DST, d->dst},
                                {DNNL_ARG_SCRATCHPAD, d->scratch}};
        s = L.dnnl_primitive_execute(d->conv, d->stream, d->scratch ? 5 : 4, a);
    }
    if (d->dst_reorder && !d->y_linked && s == dnnl_success) {
        L.dnnl_memory_set_data_handle(d->user_dst, y);
        s = exec2(d->stream, d->dst_reorder, d->dst, d->user_dst);
    }
    if (s == dnnl_success)
        s = L.dnnl_stream_wait(d->stream);
    restore_threads(threads);
    if (s != dnnl_success)
        return s == dnnl_out_of_memory ? WNN_STATUS_OUT_OF_MEMORY : WNN_STATUS_OPERATION_ERROR;
    if (d->half)
        wnn__float_to_half_n(views[d->y].data, d->y32, d->y_count);
    return WNN_OK;
}

void wnn__dnnl_link(const wnn__ir *ir, wnn__dnnl_node *const *nodes, size_t *bytes)
{
    uint32_t nv = ir->n_values;
    uint32_t *producer = malloc((nv ? nv : 1) * sizeof *producer);
    uint32_t *reads = calloc(nv ? nv : 1, sizeof *reads), *matched = calloc(nv ? nv : 1, sizeof *matched);
    if (producer && reads && matched) {
        for (uint32_t v = 0; v < nv; v++)
            producer[v] = UINT32_MAX;
        for (uint32_t n = 0; n < ir->n_nodes; n++) {
            const wnn__dnnl_node *d = nodes[n];
            if (d && !d->half && d->dst_reorder)
                producer[d->y] = n;
            for (uint32_t j = 0; j < ir->nodes[n].n_in; j++)
                if (ir->nodes[n].in[j] != WNN__NONE)
                    reads[ir->nodes[n].in[j]]++;
        }
        for (uint32_t i = 0; i < ir->n_outputs; i++)
            producer[ir->output_values[i]] = UINT32_MAX;
        /* every read of a linked value is a convolution's source in the
        ** producer's layout, or a sum post-op's addend in it */
        for (uint32_t n = 0; n < ir->n_nodes; n++) {
            const wnn__dnnl_node *d = nodes[n];
            if (!d || d->half)
                continue;
            if (producer[d->x] != UINT32_MAX && L.dnnl_memory_desc_equal(&d->src_md, &nodes[producer[d->x]]->dst_md))
                matched[d->x]++;
            if (d->res != WNN__NONE && producer[d->res] != UINT32_MAX &&
                L.dnnl_memory_desc_equal(&d->dst_md, &nodes[producer[d->res]]->dst_md))
                matched[d->res]++;
        }
        for (uint32_t v = 0; v < nv; v++)
            if (producer[v] != UINT32_MAX && matched[v] == reads[v]) {
                wnn__dnnl_node *p = nodes[producer[v]];
                p->y_linked = true;
                bytes[v] = L.dnnl_memory_desc_get_size(&p->dst_md);
            }
        for (uint32_t n = 0; n < ir->n_nodes; n++) {
            wnn__dnnl_node *d = nodes[n];
            if (!d || d->half)
                continue;
            d->x_linked = producer[d->x] != UINT32_MAX && nodes[producer[d->x]]->y_linked;
            d->res_linked = d->res != WNN__NONE && producer[d->res] != UINT32_MAX && nodes[producer[d->res]]->y_linked;
        }
    }
    free(producer);
    free(reads);
    free(matched);
}

void wnn__dnnl_free(wnn__dnnl_node *d)
{
    if (!d)
        return;
    wnn__xnn_conv_free(d->xnn);
    dnnl_primitive_t prims[] = {d->conv, d->src_reorder, d->res_reorder, d->dst_reorder};
    for (size_t k = 0; k < sizeof prims / sizeof *prims; k++)
        if (prims[k])
            L.dnnl_primitive_destroy(prims[k]);
    dnnl_memory_t mems[] = {d->user_src, d->src, d->weights, d->bias, d->user_dst, d->dst, d->scratch};
    for (size_t k = 0; k < sizeof mems / sizeof *mems; k++)
        if (mems[k])
            L.dnnl_memory_destroy(mems[k]);
    if (d->stream)
        L.dnnl_stream_destroy(d->stream);
    free(d->src_buf);
    free(d->dst_buf);
    free(d->weights_buf);
    free(d->scratch_buf);
    free(d->x32);
    free(d->y32);
    free(d);
}

bool wnn__dnnl_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                     const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    if (!wnn__pool_on_team() || !available())
        return false;
    int threads = use_threads(wnn__pool_threads_here());
    dnnl_status_t s = L.dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', (dnnl_dim_t)m, (dnnl_dim_t)n, (dnnl_dim_t)k, alpha,
                                   a, (dnnl_dim_t)lda, b, (dnnl_dim_t)ldb, beta, c, (dnnl_dim_t)ldc);
    restore_threads(threads);
    return s == dnnl_success;
}

#else /* no oneDNN headers at build time: every node runs on the portable kernels */

bool wnn__dnnl_sgemm(bool ta, bool tb, size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda,
                     const float *b, size_t ldb, float beta, float *c, size_t ldc)
{
    return false;
}

wnn_status wnn__dnnl_compile(const wnn__ir *ir, uint32_t n, const uint32_t *uses, const bool *is_output, bool *fused,
                             wnn__dnnl_node *const *earlier, wnn__dnnl_node **out)
{
    *out = NULL;
    return WNN_OK;
}

bool wnn__dnnl_takes(const wnn__ir *ir, uint32_t n) { return false; }

uint32_t wnn__dnnl_node_output(const wnn__dnnl_node *d) { return WNN__NONE; }

bool wnn__dnnl_node_xnnpack(const wnn__dnnl_node *d) { return false; }

uint32_t wnn__dnnl_node_reorders(const wnn__dnnl_node *d) { return 0; }

wnn_status wnn__dnnl_run(wnn__dnnl_node *d, const wnn__view *views) { return WNN_STATUS_NOT_SUPPORTED; }

void wnn__dnnl_link(const wnn__ir *ir, wnn__dnnl_node *const *nodes, size_t *bytes) {}

void wnn__dnnl_free(wnn__dnnl_node *d) {}

#endif
