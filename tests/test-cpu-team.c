/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-cpu-team.c -- the cpu device's OpenMP team keeps its threads from one
** run to the next (platform/pool.c, backends/cpu/dnnl.c). libgomp lets the
** surplus threads of a team exit when a parallel region asks for fewer
** threads than the one before, and creates them again for the next larger
** one: a graph whose operators ran on different thread counts paid thread
** creations on every run (mobilenet_v2 on 16 threads: 51 a run). This file
** counts pthread_create calls, its own definition standing in front of the
** C library's for libgomp too (the executable exports it), while a graph of
** a large, a medium and a large convolution runs again and again on a team
** of 4, and that no thread but the master starts a team of its own (the
** compile's weight reorders started one, whose threads then counted against
** the cores: libgomp spins less once it has more threads than cores, and 16
** threads ran slower than 8). With the pthread pool instead of the team (sanitizer builds, no
** libgomp) it says so and skips.
*/
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "platform/pool.h"
#include "test.h"
#include "wnn/wnn.h"

static atomic_int created;

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "pthread_create");
    atomic_fetch_add(&created, 1);
    return real(thread, attr, fn, arg);
}

static wnn_operand *conv(wnn_graph_builder *b, wnn_operand *x, uint32_t in, uint32_t out, uint32_t k)
{
    size_t n = (size_t)out * in * k * k;
    float *w = malloc(n * sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i] = (float)((i * 7919) % 101) / 505.0f - 0.1f;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 4, {out, in, k, k}};
    wnn_operand *f = wnn_graph_builder_constant(b, &d, w, n * sizeof *w);
    free(w);
    wnn_conv2d_options o = WNN_CONV2D_OPTIONS_INIT;
    for (int j = 0; j < 4; j++)
        o.padding[j] = k / 2;
    return wnn_relu(b, wnn_conv2d(b, x, f, &o));
}

int main(void)
{
    setenv("WNN_CPU_OPENMP", "1", 0);
    setenv("WNN_NUM_THREADS", "4", 0);
    wnn_context_options co = WNN_CONTEXT_OPTIONS_INIT;
    co.device = "cpu";
    wnn_context *ctx;
    if (wnn_context_create(&co, &ctx) != WNN_OK) {
        fprintf(stderr, "no cpu device: %s\n", wnn_last_error_message());
        return 1;
    }
    if (!wnn__pool_on_team() || wnn__pool_size() < 4) {
        printf("skipped: the cpu device runs on its pthread pool here, not an OpenMP team of 4\n");
        wnn_context_release(ctx);
        return 77;
    }
    /* the pool's master, the timeline's worker and libraries' threads
    ** (OpenBLAS starts one per core) are there by now */
    int base = atomic_load(&created);
    /* [1,32,28,28]: 7.2 M multiply-adds (the whole team), 2.4 M (half of it
    ** under a count per operator), 7.2 M again */
    enum { C = 32, H = 28, W = 28 };
    wnn_graph_builder *b;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc xd = {WNN_DATA_TYPE_FLOAT32, 4, {1, C, H, W}};
    wnn_operand *y = conv(b, wnn_graph_builder_input(b, "x", &xd), C, C, 3);
    y = conv(b, conv(b, y, C, 3 * C, 1), 3 * C, C, 3);
    wnn_named_operand named = {"y", y};
    wnn_graph *g;
    CHECK_OK(wnn_graph_builder_build(b, &named, 1, &g));
    wnn_graph_builder_release(b);

    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = WNN_DATA_TYPE_FLOAT32, td.rank = 4, td.writable = td.readable = true;
    for (int k = 0; k < 4; k++)
        td.shape[k] = xd.shape[k];
    wnn_tensor *x, *out;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &x));
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &out));
    static float data[C * H * W];
    for (size_t i = 0; i < C * H * W; i++)
        data[i] = (float)(i % 13) / 13.0f;
    CHECK_OK(wnn_context_write_tensor(ctx, x, data, sizeof data));
    wnn_named_tensor ins[1] = {{"x", x}}, outs[1] = {{"y", out}};
    /* the first runs start the team */
    for (int r = 0; r < 2; r++)
        CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, out, data, sizeof data));
    /* since the pool started: the team's threads beside the master (the
    ** pool's count less one) and one more at most; a second team, of a
    ** thread that compiled or ran oneDNN primitives outside the master,
    ** would add as many again */
    int before = atomic_load(&created);
    if (before - base > (int)wnn__pool_size())
        fprintf(stderr, "%d threads created by a compile and two runs (team of %zu)\n", before - base,
                wnn__pool_size());
    CHECK(before - base <= (int)wnn__pool_size());
    for (int r = 0; r < 20; r++)
        CHECK_OK(wnn_context_dispatch(ctx, g, ins, 1, outs, 1));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, out, data, sizeof data));
    int during = atomic_load(&created) - before;
    if (during)
        fprintf(stderr, "%d threads created over 20 runs of one graph (team of %zu)\n", during, wnn__pool_size());
    CHECK_EQ_INT(during, 0);
    wnn_tensor_release(x);
    wnn_tensor_release(out);
    wnn_graph_release(g);
    wnn_context_release(ctx);
    TEST_DONE();
}
