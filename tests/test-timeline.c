/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-timeline.c -- the context timeline through the public API: chained
** dispatches with no waits, reads and writes in recording order, reads that
** lose their tensor or their context before they run, destroying objects
** with work queued, the error callback, and the orders objects may be
** released in, blocking reads behind work only the worker may run. (The
** many-threads test is test-threads.c.)
**
** Where a test needs work to be still queued when it acts, it first records
** a large dispatch (a chain of matrix products) so the context's worker is
** busy for far longer than the few calls that follow take.
*/
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "wnn/wnn.h"

static wnn_context *new_context(wnn_policy policy, wnn_error_callback on_error, void *user)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    o.policy = policy;
    o.on_error = on_error;
    o.on_error_user_data = user;
    wnn_context *ctx = NULL;
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "cannot create a cpu context: %s\n", wnn_last_error_message());
        exit(1);
    }
    return ctx;
}

static wnn_tensor *tensor(wnn_context *ctx, uint32_t rank, const uint32_t *shape, bool readable, bool writable)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = rank;
    for (uint32_t i = 0; i < rank; i++)
        d.shape[i] = shape[i];
    d.readable = readable;
    d.writable = writable;
    wnn_tensor *t = NULL;
    if (wnn_context_create_tensor(ctx, &d, &t) != WNN_OK) {
        fprintf(stderr, "create_tensor: %s\n", wnn_last_error_message());
        exit(1);
    }
    return t;
}

static wnn_graph *build_or_die(wnn_graph_builder *b, const wnn_named_operand *outs, size_t n)
{
    wnn_graph *g = NULL;
    if (wnn_graph_builder_build(b, outs, n, &g) != WNN_OK) {
        fprintf(stderr, "build: %s\n", wnn_last_error_message());
        exit(1);
    }
    wnn_graph_builder_release(b);
    return g;
}

static wnn_graph_builder *builder(wnn_context *ctx)
{
    wnn_graph_builder *b = NULL;
    if (wnn_graph_builder_create(ctx, &b) != WNN_OK) {
        fprintf(stderr, "builder: %s\n", wnn_last_error_message());
        exit(1);
    }
    return b;
}

/* ---- a dispatch that keeps the worker busy ----------------------------------------- */

#define BUSY_N 512
#define BUSY_DEPTH 4

typedef struct busy {
    wnn_graph *g;
    wnn_tensor *in, *out;
} busy;

static void busy_init(busy *w, wnn_context *ctx)
{
    wnn_graph_builder *b = builder(ctx);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 2, {BUSY_N, BUSY_N}};
    float *k = malloc(sizeof(float) * BUSY_N * BUSY_N);
    for (size_t i = 0; i < (size_t)BUSY_N * BUSY_N; i++)
        k[i] = 1.0f / BUSY_N;
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *c = wnn_graph_builder_constant(b, &d, k, sizeof(float) * BUSY_N * BUSY_N);
    free(k);
    for (int i = 0; i < BUSY_DEPTH; i++)
        x = wnn_matmul(b, x, c);
    wnn_named_operand outs[] = {{"y", x}};
    w->g = build_or_die(b, outs, 1);
    static const uint32_t shape[] = {BUSY_N, BUSY_N};
    w->in = tensor(ctx, 2, shape, false, false);
    w->out = tensor(ctx, 2, shape, true, false);
}

static void ignore_read(wnn_status s, const char *message, const void *data, size_t n, void *user) {}

/* Queues the matmul chain, then a read of its result with a callback: on a
** device with its own queue (null, cuda) the dispatch only enqueues, and it
** is that read, waiting for the device, that keeps the timeline busy. */
static void busy_queue(busy *w, wnn_context *ctx)
{
    wnn_named_tensor in[] = {{"x", w->in}}, out[] = {{"y", w->out}};
    CHECK_OK(wnn_context_dispatch(ctx, w->g, in, 1, out, 1));
    CHECK_OK(wnn_context_read_tensor(ctx, w->out, ignore_read, NULL));
}

static void busy_fini(busy *w)
{
    wnn_tensor_release(w->in);
    wnn_tensor_release(w->out);
    wnn_graph_release(w->g);
}

/* A gate holds the timeline on every device: a read whose callback (on the
** worker, which helpers never take over) blocks until the test opens it.
** A busy dispatch is not enough on a device with its own queue (null, cuda),
** where the timeline only enqueues the work. */
typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool open;
    wnn_tensor *t;
} gate;

static void gate_wait(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    gate *g = user;
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

static void gate_close(gate *g, wnn_context *ctx)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = false;
    wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {1}, true, false, false};
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &g->t));
    CHECK_OK(wnn_context_read_tensor(ctx, g->t, gate_wait, g));
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->lock);
}

static void gate_fini(gate *g)
{
    wnn_tensor_release(g->t);
    pthread_mutex_destroy(&g->lock);
    pthread_cond_destroy(&g->cv);
}

/* ---- an async read collector ---------------------------------------------------------------- */

typedef struct reader {
    pthread_mutex_t lock;
    int calls;
    wnn_status status;
    float first;
} reader;

static void reader_init(reader *r)
{
    memset(r, 0, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    r->status = (wnn_status)-1;
}

static void on_read(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    reader *r = user;
    pthread_mutex_lock(&r->lock);
    r->calls++;
    r->status = status;
    if (status == WNN_OK && data && n >= sizeof(float))
        memcpy(&r->first, data, sizeof(float));
    pthread_mutex_unlock(&r->lock);
}

static int reader_calls(reader *r)
{
    pthread_mutex_lock(&r->lock);
    int n = r->calls;
    pthread_mutex_unlock(&r->lock);
    return n;
}

/* ---- y = x * 2 -------------------------------------------------------------------------------- */

#define LEN 1024

static wnn_graph *build_double(wnn_context *ctx)
{
    wnn_graph_builder *b = builder(ctx);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
    wnn_named_operand outs[] = {{"y", wnn_mul(b, x, two)}};
    return build_or_die(b, outs, 1);
}

static wnn_status run_double(wnn_context *ctx, wnn_graph *g, wnn_tensor *x, wnn_tensor *y)
{
    wnn_named_tensor in[] = {{"x", x}}, out[] = {{"y", y}};
    return wnn_context_dispatch(ctx, g, in, 1, out, 1);
}

static void fill(float *v, float base)
{
    for (int i = 0; i < LEN; i++)
        v[i] = base + (float)(i % 97);
}

/* Checks v[i] == scale * (base + i % 97) for every i. */
static void expect_scaled_at(int line, const float *v, float base, float scale)
{
    for (int i = 0; i < LEN; i++) {
        float want = scale * (base + (float)(i % 97));
        if (v[i] != want) {
            test_failed++;
            fprintf(stderr, "%s:%d: element %d is %g, want %g\n", __FILE__, line, i, v[i], want);
            return;
        }
    }
    test_passed++;
}
#define EXPECT_SCALED(v, base, scale) expect_scaled_at(__LINE__, v, base, scale)

static const uint32_t len_shape[] = {LEN};

static void test_chain(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    wnn_graph *g = build_double(ctx);
    wnn_tensor *t[4];
    for (int i = 0; i < 4; i++)
        t[i] = tensor(ctx, 1, len_shape, true, true);
    static float x[LEN], r1[LEN], r3[LEN];
    fill(x, 1.0f);
    /* write -> dispatch -> dispatch -> dispatch -> read, nothing waits */
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], x, sizeof x));
    CHECK_OK(run_double(ctx, g, t[0], t[1]));
    CHECK_OK(wnn_context_read_tensor_into(ctx, t[1], r1, sizeof r1, NULL, NULL)); /* recorded mid-chain */
    CHECK_OK(run_double(ctx, g, t[1], t[2]));
    CHECK_OK(run_double(ctx, g, t[2], t[3]));
    CHECK_OK(wnn_context_read_tensor_into(ctx, t[3], r3, sizeof r3, NULL, NULL));
    CHECK_OK(wnn_context_finish(ctx));
    EXPECT_SCALED(r1, 1.0f, 2.0f);
    EXPECT_SCALED(r3, 1.0f, 8.0f);

    /* a longer ping-pong chain: 20 doublings */
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], x, sizeof x));
    for (int i = 0; i < 20; i++)
        CHECK_OK(run_double(ctx, g, t[i % 2], t[(i + 1) % 2]));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t[0], r3, sizeof r3));
    EXPECT_SCALED(r3, 1.0f, 1048576.0f);

    /* the same chain behind a busy worker */
    busy w;
    busy_init(&w, ctx);
    busy_queue(&w, ctx);
    fill(x, 3.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, t[0], x, sizeof x));
    CHECK_OK(run_double(ctx, g, t[0], t[1]));
    CHECK_OK(run_double(ctx, g, t[1], t[2]));
    CHECK_OK(run_double(ctx, g, t[2], t[3]));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t[3], r3, sizeof r3));
    EXPECT_SCALED(r3, 3.0f, 8.0f);
    busy_fini(&w);

    for (int i = 0; i < 4; i++)
        wnn_tensor_release(t[i]);
    wnn_graph_release(g);
    wnn_context_release(ctx);
}

static void test_read_write_order(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy w;
    busy_init(&w, ctx);
    wnn_tensor *t = tensor(ctx, 1, len_shape, true, true);
    static float v[LEN], r1[LEN], r2[LEN], r3[LEN];
    busy_queue(&w, ctx); /* everything below is recorded before any of it runs */
    fill(v, 1.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    CHECK_OK(wnn_context_read_tensor_into(ctx, t, r1, sizeof r1, NULL, NULL));
    fill(v, 2.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    reader r;
    reader_init(&r);
    CHECK_OK(wnn_context_read_tensor(ctx, t, on_read, &r));
    CHECK_OK(wnn_context_read_tensor_into(ctx, t, r2, sizeof r2, NULL, NULL));
    fill(v, 3.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    CHECK_OK(wnn_context_finish(ctx));
    EXPECT_SCALED(r1, 1.0f, 1.0f);
    EXPECT_SCALED(r2, 2.0f, 1.0f);
    CHECK_EQ_INT(reader_calls(&r), 1);
    CHECK_STATUS(r.status, WNN_OK);
    CHECK(r.first == 2.0f);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, t, r3, sizeof r3));
    EXPECT_SCALED(r3, 3.0f, 1.0f);
    pthread_mutex_destroy(&r.lock);
    wnn_tensor_release(t);
    busy_fini(&w);
    wnn_context_release(ctx);
}

/* The gate's callback, then a write recorded from the worker: work the
** test's blocking read did not see recorded when it began. */
typedef struct late_write {
    gate g;
    wnn_context *ctx;
    wnn_tensor *x;
    const float *v;
    wnn_status status;
} late_write;

static void gate_then_write(wnn_status s, const char *message, const void *data, size_t n, void *user)
{
    late_write *w = user;
    gate_wait(s, message, data, n, &w->g);
    w->status = wnn_context_write_tensor(w->ctx, w->x, w->v, sizeof(float) * LEN);
}

static void *open_later(void *arg)
{
    struct timespec d = {0, 20 * 1000 * 1000};
    nanosleep(&d, NULL);
    gate_open(arg);
    return NULL;
}

/* A blocking read waits for the work recorded before it, a callback only the
** worker may run included, then reads on the caller's thread; when more work
** was recorded meanwhile (here from that callback), its read queues behind it
** instead. Either way it returns the value the earlier work left. */
static void test_blocking_read_after_work(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    wnn_graph *g = build_double(ctx);
    wnn_tensor *x = tensor(ctx, 1, len_shape, false, true), *y = tensor(ctx, 1, len_shape, true, false);
    static float v[LEN], late[LEN], got[LEN];
    fill(late, 5.0f);
    for (int round = 0; round < 2; round++) {
        late_write w = {.ctx = ctx, .x = x, .v = late, .status = (wnn_status)-1};
        pthread_mutex_init(&w.g.lock, NULL);
        pthread_cond_init(&w.g.cv, NULL);
        wnn_tensor_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {1}, true, false, false};
        CHECK_OK(wnn_context_create_tensor(ctx, &d, &w.g.t));
        CHECK_OK(wnn_context_read_tensor(ctx, w.g.t, round ? gate_then_write : gate_wait, round ? (void *)&w : &w.g));
        fill(v, 1.0f + round);
        CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v)); /* queued behind the gate */
        CHECK_OK(run_double(ctx, g, x, y));
        pthread_t opener;
        CHECK(pthread_create(&opener, NULL, open_later, &w.g) == 0);
        CHECK_OK(wnn_context_read_tensor_sync(ctx, y, got, sizeof got));
        EXPECT_SCALED(got, 1.0f + round, 2.0f);
        pthread_join(opener, NULL);
        CHECK_OK(wnn_context_finish(ctx));
        if (round) {
            CHECK_STATUS(w.status, WNN_OK);
            CHECK_OK(run_double(ctx, g, x, y));
            CHECK_OK(wnn_context_read_tensor_sync(ctx, y, got, sizeof got));
            EXPECT_SCALED(got, 5.0f, 2.0f);
        }
        gate_fini(&w.g);
    }
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    wnn_context_release(ctx);
}

static void test_read_then_destroy(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy w;
    busy_init(&w, ctx);
    wnn_tensor *t = tensor(ctx, 1, len_shape, true, true), *u = tensor(ctx, 1, len_shape, true, true),
               *keep = tensor(ctx, 1, len_shape, true, true);
    static float v[LEN], into[LEN], kept[LEN];
    fill(v, 5.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, t, v, sizeof v));
    CHECK_OK(wnn_context_write_tensor(ctx, keep, v, sizeof v));
    busy_queue(&w, ctx);
    gate gt;
    gate_close(&gt, ctx);
    reader r, r2, r3;
    reader_init(&r);
    reader_init(&r2);
    reader_init(&r3);
    CHECK_OK(wnn_context_read_tensor(ctx, t, on_read, &r));
    CHECK_OK(wnn_context_read_tensor_into(ctx, u, into, sizeof into, on_read, &r2));
    CHECK_OK(wnn_context_read_tensor(ctx, keep, on_read, &r3));
    wnn_tensor_destroy(t);
    wnn_tensor_release(u); /* release destroys too */
    CHECK_EQ_INT(reader_calls(&r), 0); /* the worker is held at the gate */
    gate_open(&gt);
    wnn_context_finish(ctx);
    gate_fini(&gt);
    CHECK_EQ_INT(reader_calls(&r), 1);
    CHECK_STATUS(r.status, WNN_STATUS_DESTROYED);
    CHECK_EQ_INT(reader_calls(&r2), 1);
    CHECK_STATUS(r2.status, WNN_STATUS_DESTROYED);
    /* a read of another tensor is not affected */
    CHECK_EQ_INT(reader_calls(&r3), 1);
    CHECK_STATUS(r3.status, WNN_OK);
    CHECK(r3.first == 5.0f);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, keep, kept, sizeof kept));
    EXPECT_SCALED(kept, 5.0f, 1.0f);
    /* after destroy, new reads are refused at once */
    CHECK_STATUS(wnn_context_read_tensor(ctx, t, on_read, &r), WNN_STATUS_DESTROYED);
    CHECK_EQ_INT(reader_calls(&r), 1);
    pthread_mutex_destroy(&r.lock);
    pthread_mutex_destroy(&r2.lock);
    pthread_mutex_destroy(&r3.lock);
    wnn_tensor_release(t);
    wnn_tensor_release(keep);
    busy_fini(&w);
    wnn_context_release(ctx);
}

/* a + b and a * b, [LEN] float32 */
static wnn_graph *build_sum_prod(wnn_context *ctx)
{
    wnn_graph_builder *b = builder(ctx);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_operand *a = wnn_graph_builder_input(b, "a", &d);
    wnn_operand *x = wnn_graph_builder_input(b, "b", &d);
    wnn_named_operand outs[] = {{"sum", wnn_add(b, a, x)}, {"prod", wnn_mul(b, a, x)}};
    return build_or_die(b, outs, 2);
}

static void test_destroy_after_dispatch(void)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy w;
    busy_init(&w, ctx);
    wnn_graph *g = build_sum_prod(ctx);
    wnn_tensor *a = tensor(ctx, 1, len_shape, true, true), *b = tensor(ctx, 1, len_shape, true, true),
               *sum = tensor(ctx, 1, len_shape, true, true), *prod = tensor(ctx, 1, len_shape, true, true);
    static float va[LEN], vb[LEN], got[LEN];
    fill(va, 1.0f);
    for (int i = 0; i < LEN; i++)
        vb[i] = 2.0f;
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_write_tensor(ctx, a, va, sizeof va));
    CHECK_OK(wnn_context_write_tensor(ctx, b, vb, sizeof vb));
    wnn_named_tensor in[] = {{"a", a}, {"b", b}}, out[] = {{"sum", sum}, {"prod", prod}};
    CHECK_OK(wnn_context_dispatch(ctx, g, in, 2, out, 2));
    /* destroy both inputs and one output while the dispatch is still queued */
    wnn_tensor_destroy(a);
    wnn_tensor_release(b);
    wnn_tensor_destroy(prod);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, sum, got, sizeof got));
    EXPECT_SCALED(got, 3.0f, 1.0f); /* (1 + i%97) + 2 */
    CHECK_OK(wnn_context_finish(ctx));

    /* the graph released right after dispatch: the queued dispatch still runs */
    wnn_tensor *a2 = tensor(ctx, 1, len_shape, true, true), *b2 = tensor(ctx, 1, len_shape, true, true),
               *s2 = tensor(ctx, 1, len_shape, true, true), *p2 = tensor(ctx, 1, len_shape, true, true);
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_write_tensor(ctx, a2, va, sizeof va));
    CHECK_OK(wnn_context_write_tensor(ctx, b2, vb, sizeof vb));
    wnn_named_tensor in2[] = {{"a", a2}, {"b", b2}}, out2[] = {{"sum", s2}, {"prod", p2}};
    CHECK_OK(wnn_context_dispatch(ctx, g, in2, 2, out2, 2));
    wnn_graph_release(g);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, p2, got, sizeof got));
    EXPECT_SCALED(got, 1.0f, 2.0f);

    /* the graph destroyed (not released) after dispatch: also fine; later dispatches refused */
    wnn_graph *g2 = build_sum_prod(ctx);
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_dispatch(ctx, g2, in2, 2, out2, 2));
    wnn_graph_destroy(g2);
    CHECK_STATUS(wnn_context_dispatch(ctx, g2, in2, 2, out2, 2), WNN_STATUS_DESTROYED);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, s2, got, sizeof got));
    EXPECT_SCALED(got, 3.0f, 1.0f);
    CHECK_OK(wnn_context_finish(ctx));
    wnn_graph_release(g2);

    wnn_tensor_release(a);
    wnn_tensor_release(sum);
    wnn_tensor_release(prod);
    wnn_tensor_release(a2);
    wnn_tensor_release(b2);
    wnn_tensor_release(s2);
    wnn_tensor_release(p2);
    busy_fini(&w);
    wnn_context_release(ctx);
}

#define PENDING 10

static void test_context_destroyed_with_work(bool release_at_once)
{
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy w;
    busy_init(&w, ctx);
    wnn_graph *g = build_double(ctx);
    wnn_tensor *x = tensor(ctx, 1, len_shape, true, true), *y = tensor(ctx, 1, len_shape, true, true);
    static float v[LEN], into[PENDING][LEN];
    fill(v, 1.0f);
    CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v));
    busy_queue(&w, ctx);
    CHECK_OK(run_double(ctx, g, x, y));
    reader r[PENDING];
    for (int i = 0; i < PENDING; i++) {
        reader_init(&r[i]);
        if (i % 2)
            CHECK_OK(wnn_context_read_tensor(ctx, y, on_read, &r[i]));
        else
            CHECK_OK(wnn_context_read_tensor_into(ctx, y, into[i], sizeof into[i], on_read, &r[i]));
    }
    CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v));
    CHECK_OK(run_double(ctx, g, x, y));
    wnn_context_destroy(ctx);
    CHECK(wnn_context_is_lost(ctx));
    CHECK(wnn_tensor_is_destroyed(x));
    CHECK(wnn_tensor_is_destroyed(y));
    if (release_at_once) {
        wnn_context_release(ctx); /* waits for the queued work */
        ctx = NULL;
    } else {
        CHECK_STATUS(wnn_context_finish(ctx), WNN_STATUS_CONTEXT_LOST);
    }
    int ok = 0, lost = 0, other = 0;
    for (int i = 0; i < PENDING; i++) {
        CHECK_EQ_INT(reader_calls(&r[i]), 1);
        if (r[i].status == WNN_OK) {
            ok++;
            if (i % 2 == 0)
                EXPECT_SCALED(into[i], 1.0f, 2.0f);
            else
                CHECK(r[i].first == 2.0f);
        } else if (r[i].status == WNN_STATUS_CONTEXT_LOST) {
            lost++;
        } else {
            other++;
            fprintf(stderr, "%s:%d: pending read %d completed with %s\n", __FILE__, __LINE__, i,
                    wnn_status_string(r[i].status));
        }
        pthread_mutex_destroy(&r[i].lock);
    }
    CHECK_EQ_INT(ok + lost, PENDING);
    CHECK_EQ_INT(other, 0);
    if (ctx) {
        CHECK_STATUS(wnn_context_finish(ctx), WNN_STATUS_CONTEXT_LOST);
        wnn_context_release(ctx);
    }
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    busy_fini(&w);
}

/* ---- error callback ------------------------------------------------------------------------ */

typedef struct errors {
    pthread_mutex_t lock;
    int calls;
    wnn_status first;
    char message[256];
} errors;

static void on_error(wnn_status status, const char *message, void *user)
{
    errors *e = user;
    pthread_mutex_lock(&e->lock);
    if (e->calls++ == 0) {
        e->first = status;
        snprintf(e->message, sizeof e->message, "%s", message ? message : "");
    }
    pthread_mutex_unlock(&e->lock);
}

static void test_error_callback(void)
{
    errors e;
    memset(&e, 0, sizeof e);
    pthread_mutex_init(&e.lock, NULL);
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, on_error, &e);
    busy w;
    busy_init(&w, ctx);
    wnn_graph *g = build_double(ctx);
    wnn_tensor *x = tensor(ctx, 1, len_shape, true, true), *y = tensor(ctx, 1, len_shape, true, true);
    static float v[LEN], got[LEN];
    fill(v, 1.0f);

    /* successful work reports nothing */
    CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v));
    CHECK_OK(run_double(ctx, g, x, y));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, y, got, sizeof got));
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(e.calls, 0);
    /* errors returned by a call are not timeline errors */
    CHECK_STATUS(wnn_context_write_tensor(ctx, x, v, 3), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_EQ_INT(e.calls, 0);

    /* a callback-less read that fails on the timeline goes to on_error and finish */
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_read_tensor_into(ctx, y, got, sizeof got, NULL, NULL));
    wnn_tensor_destroy(y);
    CHECK_STATUS(wnn_context_finish(ctx), WNN_STATUS_DESTROYED);
    pthread_mutex_lock(&e.lock);
    CHECK_EQ_INT(e.calls, 1);
    CHECK_STATUS(e.first, WNN_STATUS_DESTROYED);
    CHECK(e.message[0] != '\0');
    pthread_mutex_unlock(&e.lock);
    /* finish reports it once */
    CHECK_OK(wnn_context_finish(ctx));

    wnn_tensor_release(x);
    wnn_tensor_release(y);
    wnn_graph_release(g);
    busy_fini(&w);
    wnn_context_release(ctx);
    CHECK_EQ_INT(e.calls, 1);
    pthread_mutex_destroy(&e.lock);
}

/* ---- release orders ---------------------------------------------------------------------- */

static void test_release_orders(void)
{
    static float v[LEN], got[LEN];
    fill(v, 1.0f);

    /* context released first, with work queued, a builder, a graph and tensors alive */
    wnn_context *ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy w;
    busy_init(&w, ctx);
    wnn_graph *g = build_double(ctx);
    wnn_tensor *x = tensor(ctx, 1, len_shape, true, true), *y = tensor(ctx, 1, len_shape, true, true);
    wnn_graph_builder *b = builder(ctx);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_operand *bx = wnn_graph_builder_input(b, "x", &d);
    CHECK(bx != NULL);
    reader r;
    reader_init(&r);
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v));
    CHECK_OK(run_double(ctx, g, x, y));
    CHECK_OK(wnn_context_read_tensor(ctx, y, on_read, &r));
    wnn_context_release(ctx);
    CHECK_EQ_INT(reader_calls(&r), 1);
    CHECK(r.status == WNN_OK || r.status == WNN_STATUS_CONTEXT_LOST);
    /* the handles stay valid and report the loss */
    CHECK(wnn_tensor_is_destroyed(x));
    CHECK_EQ_INT(wnn_tensor_byte_length(x), LEN * 4);
    CHECK_EQ_INT(wnn_graph_input_count(g), 1);
    CHECK(wnn_neg(b, bx) == NULL);
    CHECK_STATUS(wnn_graph_builder_status(b), WNN_STATUS_CONTEXT_LOST);
    wnn_graph_builder_clear_error(b);
    wnn_named_operand outs[] = {{"y", bx}};
    wnn_graph *g2 = NULL;
    CHECK_STATUS(wnn_graph_builder_build(b, outs, 1, &g2), WNN_STATUS_CONTEXT_LOST);
    wnn_graph_release(g);
    wnn_tensor_release(y);
    wnn_graph_builder_release(b);
    wnn_tensor_release(x);
    busy_fini(&w);
    pthread_mutex_destroy(&r.lock);

    /* tensors released before finish, right after the dispatch that uses them */
    ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    busy_init(&w, ctx);
    g = build_double(ctx);
    x = tensor(ctx, 1, len_shape, true, true);
    y = tensor(ctx, 1, len_shape, true, true);
    wnn_tensor *z = tensor(ctx, 1, len_shape, true, true);
    busy_queue(&w, ctx);
    CHECK_OK(wnn_context_write_tensor(ctx, x, v, sizeof v));
    CHECK_OK(run_double(ctx, g, x, y));
    CHECK_OK(run_double(ctx, g, y, z));
    wnn_tensor_release(x);
    wnn_tensor_release(y);
    CHECK_OK(wnn_context_finish(ctx));
    CHECK_OK(wnn_context_read_tensor_sync(ctx, z, got, sizeof got));
    EXPECT_SCALED(got, 1.0f, 4.0f);
    /* graph before tensors, busy tensors before the context */
    busy_queue(&w, ctx);
    wnn_graph_release(g);
    busy_fini(&w);
    wnn_tensor_release(z);
    wnn_context_release(ctx);

    /* graph and tensors released after a destroy, before release of the context */
    ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    g = build_double(ctx);
    x = tensor(ctx, 1, len_shape, true, true);
    y = tensor(ctx, 1, len_shape, true, true);
    CHECK_OK(run_double(ctx, g, x, y));
    wnn_context_destroy(ctx);
    wnn_graph_release(g);
    wnn_tensor_release(y);
    wnn_tensor_release(x);
    wnn_context_release(ctx);

    /* a context with nothing recorded */
    ctx = new_context(WNN_POLICY_CHROMIUM, NULL, NULL);
    wnn_context_release(ctx);
    test_passed++;
}

int main(void)
{
    test_chain();
    test_read_write_order();
    test_blocking_read_after_work();
    test_read_then_destroy();
    test_destroy_after_dispatch();
    test_context_destroyed_with_work(false);
    test_context_destroyed_with_work(true);
    test_error_callback();
    test_release_orders();
    TEST_DONE();
}
