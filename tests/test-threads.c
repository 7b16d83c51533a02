/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-threads.c -- many threads using wnn at once through the public API.
** Eight threads each create tensors, build a small graph, write, dispatch,
** read (checking every value) and release, 200 times: first all on one
** shared context, then each on its own context, then all dispatching one
** shared graph. Then the thread-count setting: its rules, and large kernels
** that stay correct while another thread changes the count. Meant to run
** under ThreadSanitizer too.
**
** Worker threads must not touch the (non-atomic) check counters of test.h;
** each counts its own failures and main() checks the totals.
*/
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "wnn/wnn.h"

#define THREADS 8
#define ITERATIONS 200
#define LEN 64

typedef struct job {
    int id;
    wnn_context *shared;      /* NULL: the thread makes its own context */
    wnn_graph *shared_graph;  /* phase 3: one graph for every thread */
    int done;                 /* iterations that checked out */
    int failures;
    char first_failure[256];
} job;

static void fail(job *j, int line, const char *what, wnn_status s)
{
    if (j->failures++ == 0)
        snprintf(j->first_failure, sizeof j->first_failure, "thread %d line %d: %s: %s (%s)", j->id, line, what,
                 wnn_status_string(s), wnn_last_error_message());
}

#define TRY(j, expr)                                                                                   \
    do {                                                                                               \
        wnn_status s_ = (expr);                                                                        \
        if (s_ != WNN_OK) {                                                                            \
            fail(j, __LINE__, #expr, s_);                                                              \
            goto out;                                                                                  \
        }                                                                                              \
    } while (0)

/* The graph of every iteration: y = (x + k) * 2 and z = relu(x - k). */
static wnn_status build(wnn_context *ctx, double k, wnn_graph **g)
{
    wnn_graph_builder *b = NULL;
    wnn_status s = wnn_graph_builder_create(ctx, &b);
    if (s != WNN_OK)
        return s;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *kc = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, k);
    wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
    wnn_operand *y = wnn_mul(b, wnn_add(b, x, kc), two);
    wnn_operand *z = wnn_relu(b, wnn_sub(b, x, kc));
    wnn_named_operand outs[] = {{"y", y}, {"z", z}};
    s = wnn_graph_builder_build(b, outs, 2, g);
    wnn_graph_builder_release(b);
    return s;
}

typedef struct async_read {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool done;
    wnn_status status;
    float values[LEN];
} async_read;

static void on_read(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    async_read *r = user;
    pthread_mutex_lock(&r->lock);
    r->status = status;
    if (status == WNN_OK && n == sizeof r->values)
        memcpy(r->values, data, n);
    r->done = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->lock);
}

static void *worker(void *arg)
{
    job *j = arg;
    wnn_context *ctx = j->shared;
    if (!ctx) {
        wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
        o.device = test_device();
        wnn_status s = wnn_context_create(&o, &ctx);
        if (s != WNN_OK) {
            fail(j, __LINE__, "wnn_context_create", s);
            return NULL;
        }
    }
    wnn_tensor_desc in_desc = WNN_TENSOR_DESC_INIT, out_desc = WNN_TENSOR_DESC_INIT;
    in_desc.rank = out_desc.rank = 1;
    in_desc.shape[0] = out_desc.shape[0] = LEN;
    in_desc.writable = true;
    out_desc.readable = true;

    for (int it = 0; it < ITERATIONS && j->failures == 0; it++) {
        double k = j->shared_graph ? 3.0 : (double)(j->id * 1000 + it);
        wnn_graph *g = j->shared_graph;
        wnn_tensor *x = NULL, *y = NULL, *z = NULL;
        float xv[LEN], yv[LEN];
        async_read zr;
        bool zr_init = false;
        if (!g)
            TRY(j, build(ctx, k, &g));
        TRY(j, wnn_context_create_tensor(ctx, &in_desc, &x));
        TRY(j, wnn_context_create_tensor(ctx, &out_desc, &y));
        TRY(j, wnn_context_create_tensor(ctx, &out_desc, &z));
        for (int i = 0; i < LEN; i++)
            xv[i] = (float)(i * (j->id + 1) + it);
        TRY(j, wnn_context_write_tensor(ctx, x, xv, sizeof xv));
        for (int i = 0; i < LEN; i++) /* the write copied: clobbering is harmless */
            xv[i] = -1.0f;
        wnn_named_tensor in[] = {{"x", x}}, out[] = {{"y", y}, {"z", z}};
        TRY(j, wnn_context_dispatch(ctx, g, in, 1, out, 2));
        memset(&zr, 0, sizeof zr);
        pthread_mutex_init(&zr.lock, NULL);
        pthread_cond_init(&zr.cv, NULL);
        zr_init = true;
        TRY(j, wnn_context_read_tensor(ctx, z, on_read, &zr));
        TRY(j, wnn_context_read_tensor_sync(ctx, y, yv, sizeof yv));
        pthread_mutex_lock(&zr.lock);
        while (!zr.done)
            pthread_cond_wait(&zr.cv, &zr.lock);
        pthread_mutex_unlock(&zr.lock);
        TRY(j, zr.status);
        for (int i = 0; i < LEN; i++) {
            float xi = (float)(i * (j->id + 1) + it);
            float want_y = (xi + (float)k) * 2.0f;
            float d = xi - (float)k;
            float want_z = d < 0.0f ? 0.0f : d;
            if (yv[i] != want_y || zr.values[i] != want_z) {
                char what[128];
                snprintf(what, sizeof what, "iteration %d element %d: y %g (want %g), z %g (want %g)", it, i,
                         yv[i], want_y, zr.values[i], want_z);
                fail(j, __LINE__, what, WNN_OK);
                goto out;
            }
        }
        j->done++;
    out:
        if (zr_init) {
            /* never free the collector while its callback may still run */
            if (j->failures)
                wnn_context_finish(ctx);
            pthread_mutex_destroy(&zr.lock);
            pthread_cond_destroy(&zr.cv);
        }
        if (it % 2) { /* vary the order of destroy and release */
            wnn_tensor_destroy(x);
            wnn_tensor_destroy(y);
        }
        wnn_tensor_release(x);
        wnn_tensor_release(y);
        wnn_tensor_release(z);
        if (g != j->shared_graph)
            wnn_graph_release(g);
    }
    if (!j->shared)
        wnn_context_release(ctx);
    return NULL;
}

static void run_phase(const char *name, wnn_context *shared, wnn_graph *shared_graph)
{
    pthread_t th[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = i;
        jobs[i].shared = shared;
        jobs[i].shared_graph = shared_graph;
        if (pthread_create(&th[i], NULL, worker, &jobs[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        if (jobs[i].failures)
            fprintf(stderr, "%s: %s\n", name, jobs[i].first_failure);
        CHECK_EQ_INT(jobs[i].failures, 0);
        CHECK_EQ_INT(jobs[i].done, ITERATIONS);
    }
}

/* Changes the thread count until told to stop. */
static void *toggle_threads(void *arg)
{
    atomic_int *stop = arg;
    for (uint32_t k = 0; !atomic_load(stop); k++) {
        if (wnn_set_num_threads(k % 5) != WNN_OK || wnn_num_threads() < 1)
            atomic_store(stop, 2);
    }
    return NULL;
}

/* y = relu(x) over a range large enough to be split over the workers. */
static void relu_while_toggling(wnn_context *ctx)
{
    enum { N = 1 << 18 };
    wnn_graph_builder *b = NULL;
    CHECK_OK(wnn_graph_builder_create(ctx, &b));
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {N}};
    wnn_named_operand out = {"y", wnn_relu(b, wnn_graph_builder_input(b, "x", &d))};
    wnn_graph *g = NULL;
    CHECK_OK(wnn_graph_builder_build(b, &out, 1, &g));
    wnn_graph_builder_release(b);
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {N}, true, true, false};
    wnn_tensor *x = NULL, *y = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &x));
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &y));
    float *xv = malloc(N * sizeof *xv), *yv = malloc(N * sizeof *yv);
    if (!g || !x || !y || !xv || !yv) {
        CHECK(false);
        goto out;
    }
    for (int i = 0; i < N; i++)
        xv[i] = (float)(i % 7) - 3.0f;
    CHECK_OK(wnn_context_write_tensor(ctx, x, xv, N * sizeof *xv));

    atomic_int stop = 0;
    pthread_t toggler;
    CHECK_EQ_INT(pthread_create(&toggler, NULL, toggle_threads, &stop), 0);
    int wrong = 0;
    for (int it = 0; it < 20; it++) {
        wnn_named_tensor bi = {"x", x}, bo = {"y", y};
        CHECK_OK(wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1));
        CHECK_OK(wnn_context_read_tensor_sync(ctx, y, yv, N * sizeof *yv));
        for (int i = 0; i < N; i++)
            wrong += yv[i] != (xv[i] > 0 ? xv[i] : 0.0f);
    }
    int stopped_by = atomic_exchange(&stop, 1);
    pthread_join(toggler, NULL);
    CHECK_EQ_INT(stopped_by, 0); /* the toggler met no failure */
    CHECK_EQ_INT(wrong, 0);
out:
    free(xv);
    free(yv);
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
}

static void test_num_threads(wnn_context *ctx)
{
    uint32_t initial = wnn_num_threads();
    CHECK(initial >= 1);
    CHECK_OK(wnn_set_num_threads(3));
    CHECK_EQ_INT(wnn_num_threads(), 3);
    CHECK_OK(wnn_set_num_threads(1));
    CHECK_EQ_INT(wnn_num_threads(), 1);
    CHECK_STATUS(wnn_set_num_threads(WNN_MAX_THREADS + 1), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(wnn_last_error_message(), "wnn_set_num_threads") != NULL);
    CHECK_EQ_INT(wnn_num_threads(), 1); /* a refused call changes nothing */
    CHECK_OK(wnn_set_num_threads(0));
    CHECK_EQ_INT(wnn_num_threads(), initial); /* 0: the default again */
    relu_while_toggling(ctx);
    CHECK_OK(wnn_set_num_threads(0));
}

/* relu over 2^18 floats on a new context; returns the wrong elements (or -1). */
static int relu_once(void)
{
    enum { N = 1 << 18 };
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    wnn_context *ctx = NULL;
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    wnn_tensor *x = NULL, *y = NULL;
    float *xv = malloc(N * sizeof *xv), *yv = malloc(N * sizeof *yv);
    int wrong = -1;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {N}};
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {N}, true, true, false};
    if (!xv || !yv || wnn_context_create(&o, &ctx) != WNN_OK || wnn_graph_builder_create(ctx, &b) != WNN_OK)
        goto out;
    wnn_named_operand out = {"y", wnn_relu(b, wnn_graph_builder_input(b, "x", &d))};
    if (wnn_graph_builder_build(b, &out, 1, &g) != WNN_OK || wnn_context_create_tensor(ctx, &td, &x) != WNN_OK ||
        wnn_context_create_tensor(ctx, &td, &y) != WNN_OK)
        goto out;
    for (int i = 0; i < N; i++)
        xv[i] = (float)(i % 5) - 2.0f;
    wnn_named_tensor bi = {"x", x}, bo = {"y", y};
    if (wnn_context_write_tensor(ctx, x, xv, N * sizeof *xv) != WNN_OK ||
        wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1) != WNN_OK ||
        wnn_context_read_tensor_sync(ctx, y, yv, N * sizeof *yv) != WNN_OK)
        goto out;
    wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += yv[i] != (xv[i] > 0 ? xv[i] : 0.0f);
out:
    free(xv);
    free(yv);
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);
    return wrong;
}

/* A child forked after the pool started (the OpenMP team's master, or the
** pthread workers, stay behind in the parent) computes on a context of its
** own without waiting forever for them; a 20 s alarm turns a hang into a
** failure. */
#if defined(__SANITIZE_THREAD__)
#define TEST_NO_FORK 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TEST_NO_FORK 1
#endif
#endif

static void test_fork(void)
{
#ifdef TEST_NO_FORK
    /* its runtime refuses threads started after a multi-threaded fork */
    printf("skipped: the fork test under ThreadSanitizer\n");
    return;
#endif
    const char *device = getenv("WNN_TEST_DEVICE");
    if (device && strcmp(device, "cuda") == 0) {
        /* CUDA documents that a child of fork may not use a context the
        ** parent initialized */
        printf("skipped: the fork test on cuda (the CUDA runtime does not survive fork)\n");
        return;
    }
    /* webgpu: the parent's instance and the implementation's threads do not
    ** survive fork, so the child's context is refused, without waiting */
    bool refused = device && strcmp(device, "webgpu") == 0;
    CHECK_EQ_INT(relu_once(), 0); /* the pool runs in the parent */
    pid_t pid = fork();
    if (pid == 0) {
        alarm(20);
        _exit((relu_once() == 0) != refused ? 0 : 1);
    }
    CHECK(pid > 0);
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "the forked child %s\n",
                WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "hung (20 s)" : "failed");
}

int main(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (!ctx)
        TEST_DONE();

    run_phase("shared context", ctx, NULL);
    CHECK_OK(wnn_context_finish(ctx));

    run_phase("own contexts", NULL, NULL);

    wnn_graph *g = NULL;
    CHECK_OK(build(ctx, 3.0, &g));
    if (g) {
        run_phase("shared graph", ctx, g);
        wnn_graph_release(g);
    }
    CHECK_OK(wnn_context_finish(ctx));
    test_num_threads(ctx);
    wnn_context_release(ctx);
    test_fork();
    TEST_DONE();
}
