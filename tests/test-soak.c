/*
** test-soak.c -- a bounded concurrency soak through the public API. Four
** worker threads create, write, dispatch, read (blocking, into a buffer and
** through callbacks, some of which read again from inside the callback),
** export through DLPack (calling the deleter), import foreign memory, build
** and release graphs, and destroy and release tensors and graphs while the
** others use them. Its parts:
**
**   shared          one context; a shared graph and shared tensors that every
**                   worker writes, reads, dispatches from and into, exports;
**   own             a context per worker, reopened now and then (half of them
**                   under WNN_POLICY_SPEC), and each worker misusing the
**                   objects of a context that is not its own;
**   lost            one shared context destroyed by main while the workers
**                   use it;
**   graph-destroy   a fifth thread destroys and replaces the shared graph
**                   while the workers dispatch it;
**   tensor-destroy  the fifth thread (and now and then a worker) destroys the
**                   shared tensors while the others write, read, dispatch and
**                   export them (defect D2 of the 2026-11 reliability review:
**                   destroy freed storage that another call was about to use).
**
** Every result is checked. A call either succeeds or fails with a status the
** part allows (CONTEXT_LOST once the context is lost, and then nothing may
** succeed; DESTROYED for a shared object another thread may destroy); every
** value read, computed or exported is the one written, or for a tensor that
** several threads write, one whole write (never torn, never another
** tensor's bytes); every read callback runs exactly once for each call that
** returned WNN_OK and never for one that failed; every import deleter runs
** exactly once; a context holds no memory once its objects are released.
** Leaks are left to the sanitizer builds (test-asan), races to test-tsan.
**
** Usage: test-soak [DEVICE [PART...]]: every part, or those named. DEVICE
** defaults to $WNN_TEST_DEVICE (else "cpu"); a device that is not present
** exits 77 (skipped). WNN_SOAK_SECONDS (default 1) is how long each part
** runs; it prints the operations made and how many of them were refused
** with a status the part allows.
**
** Worker threads must not touch the (non-atomic) check counters of test.h:
** each records its own failures in its job and main() checks them.
*/
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "wnn/dlpack.h"
#include "wnn/wnn.h"

#define WORKERS 4
#define LEN 64          /* elements of every tensor: float32 [LEN] */
#define RING 32         /* asynchronous reads a worker keeps in flight */
#define CALLBACK_WAIT_S 60
#define REOPEN_EVERY 200 /* own part: steps between reopenings of a worker's context */
#define LOST_ROUND_S 0.25 /* lost part: the length of a round, one loss in each */

/* ---- values ------------------------------------------------------------------------ */

/*
** Every write is a whole pattern: element i of the pattern of seed s is
** s * LEN + i. A read that sees one seed in every element saw one write; a
** torn write, stale storage of another tensor or freed memory does not look
** like that. The shared graph makes y = 2x + 1 and z = -x of it. Seeds are
** below 2^16 (so 2x + 1 stays exact in float32); bits 12-15 say who wrote:
** worker w writes (w + 1) << 12 | n, main and the destroyer 15 << 12 | n.
*/
enum { KIND_X, KIND_Y, KIND_Z };

#define SEED_FROZEN_BASE (15 << 12)

static float value_of(int kind, float x) { return kind == KIND_Y ? 2.0f * x + 1.0f : kind == KIND_Z ? -x : x; }

static void fill(float *v, int seed)
{
    for (int i = 0; i < LEN; i++)
        v[i] = (float)(seed * LEN + i);
}

/* The seed v was made from as kind (X, Y or Z), or -1. */
static int seed_of(const float *v, int kind)
{
    float x0 = kind == KIND_Y ? (v[0] - 1.0f) / 2.0f : kind == KIND_Z ? -v[0] : v[0];
    if (!(x0 >= 0.0f && x0 < 65536.0f * LEN))
        return -1;
    long b = (long)x0;
    if ((float)b != x0 || b % LEN)
        return -1;
    for (int i = 0; i < LEN; i++)
        if (v[i] != value_of(kind, (float)(b + i)))
            return -1;
    return (int)(b / LEN);
}

/* Whether v is the pattern of seed want (want >= 0), or one whole pattern of
** any seed or the zeros of a tensor never written (want < 0). */
static bool matches(const float *v, int kind, int want)
{
    if (want >= 0)
        return seed_of(v, kind) == want;
    bool zeros = true;
    for (int i = 0; i < LEN && zeros; i++)
        zeros = v[i] == 0.0f;
    return zeros || seed_of(v, kind) >= 0;
}

/* ---- shared objects --------------------------------------------------------------------- */

/*
** A shared object is reached through a slot. A thread takes the slot's
** holder under the slot's lock and counts itself a user; the destroyer
** destroys the object while users may be calling wnn with it (that is the
** race under test), then puts a new holder in the slot and releases the old
** handle only when its last user is gone: a handle must stay valid while
** in use, the object behind it need not.
*/
enum { SLOT_MAIL, SLOT_FROZEN, SLOT_SINK, SLOT_GRAPH, SLOT_COUNT };

typedef struct holder {
    wnn_tensor *t;
    wnn_graph *g;
    int seed; /* SLOT_FROZEN: the pattern written before it was published */
    atomic_int users;
} holder;

typedef struct slot {
    pthread_mutex_t lock;
    holder *h;
} slot;

/* What a part allows besides WNN_OK: CONTEXT_LOST, or DESTROYED from a call
** on a shared graph or tensor. A call says which shared objects it involves
** with the same bits (SHARED_GRAPH, SHARED_TENSOR). */
enum { ALLOW_LOST = 1, SHARED_GRAPH = 2, SHARED_TENSOR = 4, SHARED_ANY = SHARED_GRAPH | SHARED_TENSOR };

typedef struct env {
    wnn_context *ctx;
    slot slots[SLOT_COUNT]; /* mail: written by all; frozen: written once; sink: dispatch output */
    unsigned allow;
    atomic_bool lost;       /* set once wnn_context_destroy(ctx) has returned */
    atomic_int next_frozen;
    wnn_context *other;     /* own part: a context none of the worker's objects belong to */
    wnn_graph *other_graph;
    wnn_tensor *other_tensor;
} env;

static holder *acquire(env *e, int which)
{
    slot *s = &e->slots[which];
    pthread_mutex_lock(&s->lock);
    holder *h = s->h;
    atomic_fetch_add(&h->users, 1);
    pthread_mutex_unlock(&s->lock);
    return h;
}

static void drop(holder *h) { atomic_fetch_sub(&h->users, 1); }

/* y = 2x + c and z = -x, where c is a constant tensor of ones released as
** soon as the graph is built. */
static wnn_status build_graph(wnn_context *ctx, wnn_graph **out)
{
    float ones[LEN];
    for (int i = 0; i < LEN; i++)
        ones[i] = 1.0f;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_tensor *c = NULL;
    wnn_status s = wnn_context_create_constant_tensor(ctx, &d, ones, sizeof ones, &c);
    if (s != WNN_OK)
        return s;
    wnn_graph_builder *b = NULL;
    s = wnn_graph_builder_create(ctx, &b);
    if (s == WNN_OK) {
        wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
        wnn_operand *two = wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, 2.0);
        wnn_operand *y = wnn_add(b, wnn_mul(b, x, two), wnn_graph_builder_constant_tensor(b, c));
        wnn_named_operand outs[] = {{"y", y}, {"z", wnn_neg(b, x)}};
        s = wnn_graph_builder_build(b, outs, 2, out);
    }
    wnn_graph_builder_release(b);
    wnn_tensor_release(c);
    return s;
}

static wnn_status new_tensor(wnn_context *ctx, bool writable, wnn_tensor **out)
{
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.rank = 1;
    d.shape[0] = LEN;
    d.readable = true;
    d.writable = writable;
    return wnn_context_create_tensor(ctx, &d, out);
}

/* A new holder for slot which of e: a graph, or a tensor (mail and frozen
** written with a pattern before anyone can see them). */
static wnn_status new_holder(env *e, int which, holder **out)
{
    holder *h = calloc(1, sizeof *h);
    wnn_status s;
    if (!h)
        return WNN_STATUS_OUT_OF_MEMORY;
    if (which == SLOT_GRAPH) {
        s = build_graph(e->ctx, &h->g);
    } else {
        s = new_tensor(e->ctx, which != SLOT_SINK, &h->t);
        if (s == WNN_OK && which != SLOT_SINK) {
            float v[LEN];
            h->seed = SEED_FROZEN_BASE | (atomic_fetch_add(&e->next_frozen, 1) & 0xfff);
            fill(v, h->seed);
            s = wnn_context_write_tensor(e->ctx, h->t, v, sizeof v);
        }
    }
    if (s != WNN_OK) {
        wnn_tensor_release(h->t);
        wnn_graph_release(h->g);
        free(h);
        return s;
    }
    *out = h;
    return WNN_OK;
}

static void free_holder(holder *h)
{
    wnn_tensor_release(h->t);
    wnn_graph_release(h->g);
    free(h);
}

static wnn_status env_open(env *e, const char *device, wnn_policy policy, unsigned allow)
{
    memset(e, 0, sizeof *e);
    e->allow = allow;
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    o.policy = policy;
    wnn_status s = wnn_context_create(&o, &e->ctx);
    for (int i = 0; i < SLOT_COUNT; i++) {
        pthread_mutex_init(&e->slots[i].lock, NULL);
        if (s == WNN_OK)
            s = new_holder(e, i, &e->slots[i].h);
    }
    return s;
}

/* Releases e's objects, then its context; returns the device bytes the
** context still held when its objects were gone (0 unless it was lost). */
static uint64_t env_close(env *e)
{
    for (int i = 0; i < SLOT_COUNT; i++) {
        if (e->slots[i].h)
            free_holder(e->slots[i].h);
        pthread_mutex_destroy(&e->slots[i].lock);
    }
    uint64_t held = 0;
    wnn_memory_stats st;
    if (e->ctx && !atomic_load(&e->lost) && wnn_context_finish(e->ctx) == WNN_OK &&
        wnn_context_get_memory_stats(e->ctx, &st) == WNN_OK)
        held = st.in_use_bytes;
    wnn_context_release(e->ctx);
    return held;
}

/* ---- jobs and their checks ------------------------------------------------------------ */

struct job;

/* One asynchronous read: what it must see, and what its callback saw. */
typedef struct read_rec {
    struct job *owner;
    struct read_rec *child; /* read again from inside the callback, or NULL */
    int kind, want;         /* matches(data, kind, want) on success */
    unsigned shared;        /* SHARED_TENSOR: of a tensor another thread may destroy */
    int expect;             /* callbacks owed: 1 if the call returned WNN_OK, else 0 */
    /* written by the callback, under the owner's lock */
    int calls;
    wnn_status status;
    bool bad_values, bad_message, child_issued;
    wnn_status child_call; /* the read issued from the callback, if it failed */
    float buf[LEN];        /* the _into target */
} read_rec;

typedef struct job {
    int id;
    env *e;      /* the context it uses: shared, or its own */
    env *shared; /* the part's context */
    bool own;    /* own part: e is the worker's own, reopened every REOPEN_EVERY steps */
    const char *device;
    double deadline;
    uint64_t rng;
    int next_seed;
    wnn_tensor *x, *y, *z; /* private: only this worker touches them */
    unsigned long ops, refused; /* calls made; of them, failures the part allows */
    bool lost_seen; /* the context was lost before the current call */
    pthread_mutex_t lock;
    pthread_cond_t cv;
    long issued, completed; /* asynchronous reads, under lock */
    read_rec ring[RING][2]; /* [0] the read, [1] its nested read */
    int ring_next;
    int failures;
    char first_failure[320];
} job;

static atomic_long imports_made, import_deleters;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t rnd(job *j)
{
    j->rng ^= j->rng << 13;
    j->rng ^= j->rng >> 7;
    j->rng ^= j->rng << 17;
    return (uint32_t)(j->rng >> 11);
}

static int next_seed(job *j) { return (j->id + 1) << 12 | (j->next_seed++ & 0xfff); }

static void fail(job *j, int line, const char *what, const char *why)
{
    if (j->failures++ == 0)
        snprintf(j->first_failure, sizeof j->first_failure, "thread %d line %d: %s: %s", j->id, line, what, why);
}

static bool allowed(const job *j, wnn_status s, unsigned shared)
{
    return (s == WNN_STATUS_CONTEXT_LOST && (j->e->allow & ALLOW_LOST)) ||
           (s == WNN_STATUS_DESTROYED && (j->e->allow & shared & SHARED_ANY));
}

/* Checks the status of a call: WNN_OK, or a failure the part allows (shared:
** the SHARED_* objects the call involves). Once the context is lost nothing
** may succeed. Returns whether the call succeeded. */
static bool status_ok(job *j, int line, const char *what, unsigned shared, wnn_status s)
{
    char why[256];
    j->ops++;
    if (s == WNN_OK && j->lost_seen) {
        fail(j, line, what, "succeeded on a context already lost");
        return false;
    }
    if (s == WNN_OK)
        return true;
    j->refused++;
    if (!allowed(j, s, shared)) {
        snprintf(why, sizeof why, "%s (%s)", wnn_status_string(s), wnn_last_error_message());
        fail(j, line, what, why);
    } else if (!wnn_last_error_message()[0]) {
        fail(j, line, what, "failed without a message");
    } else if (j->lost_seen && s != WNN_STATUS_CONTEXT_LOST) {
        snprintf(why, sizeof why, "%s on a lost context, want WNN_STATUS_CONTEXT_LOST", wnn_status_string(s));
        fail(j, line, what, why);
    }
    return false;
}

/* The comma orders the look at lost before the call. */
#define CALL(j, shared, expr)                                                                        \
    ((j)->lost_seen = atomic_load(&(j)->e->lost), status_ok(j, __LINE__, #expr, shared, (expr)))

static void expect_status(job *j, int line, const char *what, wnn_status got, wnn_status want)
{
    j->ops++;
    if (got != want) {
        char why[256];
        snprintf(why, sizeof why, "gave %s, want %s", wnn_status_string(got), wnn_status_string(want));
        fail(j, line, what, why);
    }
}

#define EXPECT(j, expr, want) expect_status(j, __LINE__, #expr, (expr), want)

#define CHECK_VALUES(j, v, kind, want)                                                               \
    do {                                                                                             \
        if (!matches(v, kind, want)) {                                                               \
            char why_[128];                                                                          \
            snprintf(why_, sizeof why_, "read [%g %g ... %g], want the pattern of seed %d kind %d", \
                     (v)[0], (v)[1], (v)[LEN - 1], want, kind);                                      \
            fail(j, __LINE__, #v, why_);                                                             \
        }                                                                                            \
    } while (0)

/* ---- asynchronous reads ---------------------------------------------------------------- */

static void on_read(wnn_status status, const char *message, const void *data, size_t n, void *user)
{
    read_rec *r = user;
    job *j = r->owner;
    bool bad_values = status == WNN_OK && (n != sizeof r->buf || !matches(data, r->kind, r->want));
    bool bad_message = !message || (status == WNN_OK) != (message[0] == 0);
    /* a callback may record more work on its own context without waiting */
    if (status == WNN_OK && r->child) {
        pthread_mutex_lock(&j->lock);
        j->issued++;
        r->child_issued = true;
        pthread_mutex_unlock(&j->lock);
        wnn_status s = wnn_context_read_tensor_into(j->e->ctx, j->y, r->child->buf, sizeof r->child->buf,
                                                    on_read, r->child);
        if (s != WNN_OK) {
            pthread_mutex_lock(&j->lock);
            j->issued--;
            r->child_issued = false;
            r->child_call = s;
            pthread_mutex_unlock(&j->lock);
        }
    }
    pthread_mutex_lock(&j->lock);
    r->calls++;
    r->status = status;
    r->bad_values = bad_values;
    r->bad_message = bad_message;
    j->completed++;
    pthread_cond_broadcast(&j->cv);
    pthread_mutex_unlock(&j->lock);
}

/* Waits until r (and the read its callback made) has called back, then
** checks what the callbacks saw. */
static void settle(job *j, read_rec *r)
{
    read_rec *c = r->child;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += CALLBACK_WAIT_S;
    pthread_mutex_lock(&j->lock);
    while (r->calls < r->expect || (r->child_issued && c->calls < 1))
        if (pthread_cond_timedwait(&j->cv, &j->lock, &until) == ETIMEDOUT)
            break;
    read_rec done = *r;
    bool child_issued = r->child_issued;
    read_rec child_done = c ? *c : done;
    pthread_mutex_unlock(&j->lock);

    char why[160];
    if (done.calls != done.expect) {
        snprintf(why, sizeof why, "read callback ran %d times, want %d (in %d s)", done.calls, done.expect,
                 CALLBACK_WAIT_S);
        fail(j, __LINE__, "settle", why);
    } else if (done.expect) {
        if (done.status != WNN_OK && !allowed(j, done.status, done.shared)) {
            snprintf(why, sizeof why, "read completed with %s", wnn_status_string(done.status));
            fail(j, __LINE__, "settle", why);
        }
        if (done.bad_values)
            fail(j, __LINE__, "settle", "a read callback saw wrong values");
        if (done.bad_message)
            fail(j, __LINE__, "settle", "a read callback's message does not match its status");
    }
    if (c && !child_issued && done.child_call != WNN_OK && !allowed(j, done.child_call, 0)) {
        snprintf(why, sizeof why, "a read from a callback gave %s", wnn_status_string(done.child_call));
        fail(j, __LINE__, "settle", why);
    }
    if (c && (child_issued ? child_done.calls != 1 : child_done.calls != 0))
        fail(j, __LINE__, "settle", "the callback of a read made from a callback ran a wrong number of times");
    if (c && child_issued && child_done.calls == 1) {
        if (child_done.status != WNN_OK && !allowed(j, child_done.status, 0))
            fail(j, __LINE__, "settle", "a read made from a callback failed");
        if (child_done.bad_values)
            fail(j, __LINE__, "settle", "a read made from a callback saw wrong values");
    }
}

/* The next record of the ring, settled and reset. */
static read_rec *next_rec(job *j, int kind, int want, unsigned shared, bool nest)
{
    read_rec *r = &j->ring[j->ring_next][0];
    j->ring_next = (j->ring_next + 1) % RING;
    settle(j, r);
    pthread_mutex_lock(&j->lock);
    memset(r, 0, 2 * sizeof *r);
    r->owner = r[1].owner = j;
    r->kind = kind;
    r->want = want;
    r->shared = shared;
    r->child = nest ? &r[1] : NULL;
    r[1].kind = KIND_Y;
    r[1].want = -1;
    r[1].expect = 1;
    pthread_mutex_unlock(&j->lock);
    return r;
}

static void issued(job *j, read_rec *r, bool ok)
{
    pthread_mutex_lock(&j->lock);
    r->expect = ok;
    j->issued += ok;
    pthread_mutex_unlock(&j->lock);
}

/* An asynchronous read of t, with the bytes in the callback or (into) in the
** record's buffer. */
static void read_async(job *j, wnn_tensor *t, int kind, int want, unsigned shared, bool into)
{
    read_rec *r = next_rec(j, kind, want, shared, rnd(j) % 4 == 0);
    bool ok = into ? CALL(j, shared, wnn_context_read_tensor_into(j->e->ctx, t, r->buf, sizeof r->buf, on_read, r))
                   : CALL(j, shared, wnn_context_read_tensor(j->e->ctx, t, on_read, r));
    issued(j, r, ok);
}

/* Waits for every read the worker has in flight. */
static void drain(job *j)
{
    for (int i = 0; i < RING; i++) {
        settle(j, &j->ring[i][0]);
        j->ring[i][0].expect = j->ring[i][0].calls = 0;
        j->ring[i][0].child_issued = false;
        j->ring[i][1].calls = 0;
    }
}

/* ---- DLPack ------------------------------------------------------------------------------- */

/* Exports t as host memory; checks the managed tensor's fields. */
static DLManagedTensorVersioned *export_host(job *j, wnn_tensor *t, wnn_dlpack_copy copy, unsigned shared)
{
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.device_type = kDLCPU;
    o.copy = copy;
    void *out = &o; /* must come back NULL on failure */
    if (!CALL(j, shared, wnn_tensor_export_dlpack(t, &o, &out))) {
        if (out)
            fail(j, __LINE__, "wnn_tensor_export_dlpack", "failed and left *out set");
        return NULL;
    }
    DLManagedTensorVersioned *m = out;
    const DLTensor *d = &m->dl_tensor;
    if (m->version.major != 1 || !m->deleter || d->ndim != 1 || d->shape[0] != LEN || !d->strides ||
        d->strides[0] != 1 || d->byte_offset != 0 || d->dtype.code != kDLFloat || d->dtype.bits != 32 ||
        d->dtype.lanes != 1 || d->device.device_type != kDLCPU || !d->data)
        fail(j, __LINE__, "wnn_tensor_export_dlpack", "the managed tensor's fields are wrong");
    if (copy == WNN_DLPACK_COPY_ALWAYS && !(m->flags & DLPACK_FLAG_BITMASK_IS_COPIED))
        fail(j, __LINE__, "wnn_tensor_export_dlpack", "a copy without DLPACK_FLAG_BITMASK_IS_COPIED");
    return m;
}

typedef struct foreign {
    DLManagedTensorVersioned m;
    int64_t shape[1], strides[1];
    float data[LEN];
} foreign;

static void foreign_deleter(DLManagedTensorVersioned *m)
{
    atomic_fetch_add(&import_deleters, 1);
    free(m);
}

/* ---- the steps a worker takes ------------------------------------------------------------- */

/* Write the mail tensor that every worker writes. */
static void step_write_mail(job *j)
{
    float v[LEN];
    holder *h = acquire(j->e, SLOT_MAIL);
    fill(v, next_seed(j));
    CALL(j, SHARED_TENSOR, wnn_context_write_tensor(j->e->ctx, h->t, v, sizeof v));
    drop(h);
}

/* Read a shared tensor and wait: one whole write, or the frozen pattern. */
static void step_read_shared(job *j)
{
    float v[LEN];
    int which = rnd(j) % 3;
    holder *h = acquire(j->e, which);
    if (CALL(j, SHARED_TENSOR, wnn_context_read_tensor_sync(j->e->ctx, h->t, v, sizeof v)))
        CHECK_VALUES(j, v, which == SLOT_SINK ? KIND_Y : KIND_X, which == SLOT_FROZEN ? h->seed : -1);
    drop(h);
}

/* Write x, dispatch the shared graph x -> y, z, read y now and z later. */
static void step_private_chain(job *j)
{
    float v[LEN];
    int seed = next_seed(j);
    fill(v, seed);
    if (!CALL(j, 0, wnn_context_write_tensor(j->e->ctx, j->x, v, sizeof v)))
        return;
    holder *g = acquire(j->e, SLOT_GRAPH);
    wnn_named_tensor in[] = {{"x", j->x}}, out[] = {{"y", j->y}, {"z", j->z}};
    bool ok = CALL(j, SHARED_GRAPH, wnn_context_dispatch(j->e->ctx, g->g, in, 1, out, 2));
    drop(g);
    if (!ok)
        return;
    read_async(j, j->z, KIND_Z, seed, 0, true);
    if (CALL(j, 0, wnn_context_read_tensor_sync(j->e->ctx, j->y, v, sizeof v)))
        CHECK_VALUES(j, v, KIND_Y, seed);
}

/* Dispatch the shared graph from mail into the shared sink (and the
** private z); read both through callbacks. */
static void step_dispatch_shared(job *j)
{
    holder *mail = acquire(j->e, SLOT_MAIL), *sink = acquire(j->e, SLOT_SINK), *g = acquire(j->e, SLOT_GRAPH);
    wnn_named_tensor in[] = {{"x", mail->t}}, out[] = {{"z", j->z}, {"y", sink->t}};
    if (CALL(j, SHARED_ANY, wnn_context_dispatch(j->e->ctx, g->g, in, 1, out, 2))) {
        read_async(j, sink->t, KIND_Y, -1, SHARED_TENSOR, rnd(j) % 2);
        read_async(j, j->z, KIND_Z, -1, 0, false);
    }
    drop(g);
    drop(sink);
    drop(mail);
}

/* Dispatch from the frozen tensor; its result must be exactly its pattern. */
static void step_dispatch_frozen(job *j)
{
    holder *f = acquire(j->e, SLOT_FROZEN), *g = acquire(j->e, SLOT_GRAPH);
    wnn_named_tensor in[] = {{"x", f->t}}, out[] = {{"y", j->y}, {"z", j->z}};
    if (CALL(j, SHARED_ANY, wnn_context_dispatch(j->e->ctx, g->g, in, 1, out, 2)))
        read_async(j, j->y, KIND_Y, f->seed, 0, false);
    drop(g);
    drop(f);
}

/* Export the frozen tensor (shared memory on the cpu, a copy elsewhere) or
** the mail tensor (always a copy: others write it); check the bytes, and
** where destroying is part of the test, destroy the frozen tensor while the
** export still holds it. */
static void step_export_shared(job *j)
{
    bool frozen = rnd(j) % 2;
    holder *h = acquire(j->e, frozen ? SLOT_FROZEN : SLOT_MAIL);
    DLManagedTensorVersioned *m =
        export_host(j, h->t, frozen ? WNN_DLPACK_COPY_IF_NEEDED : WNN_DLPACK_COPY_ALWAYS, SHARED_TENSOR);
    if (m) {
        const float *v = m->dl_tensor.data;
        CHECK_VALUES(j, v, KIND_X, frozen ? h->seed : -1);
        if (frozen && (j->e->allow & SHARED_TENSOR) && rnd(j) % 4 == 0) {
            wnn_tensor_destroy(h->t);
            CHECK_VALUES(j, v, KIND_X, h->seed);
        }
        m->deleter(m);
    }
    drop(h);
}

/* A tensor of its own, exported, then released before the export is read. */
static void step_export_private(job *j)
{
    float v[LEN];
    wnn_tensor *t = NULL;
    int seed = next_seed(j);
    fill(v, seed);
    if (!CALL(j, 0, new_tensor(j->e->ctx, true, &t)))
        return;
    DLManagedTensorVersioned *m = NULL;
    if (CALL(j, 0, wnn_context_write_tensor(j->e->ctx, t, v, sizeof v)))
        m = export_host(j, t, rnd(j) % 3 ? WNN_DLPACK_COPY_IF_NEEDED : WNN_DLPACK_COPY_ALWAYS, 0);
    if (rnd(j) % 2)
        wnn_tensor_destroy(t);
    wnn_tensor_release(t);
    if (m) {
        const float *got = m->dl_tensor.data;
        CHECK_VALUES(j, got, KIND_X, seed);
        m->deleter(m);
    }
}

/* Build a graph x + k of its own, dispatch it into z, release it at once,
** and read the result. */
static void step_build(job *j)
{
    float v[LEN];
    int seed = next_seed(j), k = 1 + (int)(rnd(j) % 1000);
    wnn_graph_builder *b = NULL;
    wnn_graph *g = NULL;
    if (!CALL(j, 0, wnn_graph_builder_create(j->e->ctx, &b)))
        return;
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {LEN}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand outs[] = {{"y", wnn_add(b, x, wnn_graph_builder_constant_scalar(b, WNN_DATA_TYPE_FLOAT32, k))}};
    bool built = CALL(j, 0, wnn_graph_builder_build(b, outs, 1, &g));
    wnn_graph_builder_release(b);
    if (!built)
        return;
    fill(v, seed);
    wnn_named_tensor in[] = {{"x", j->x}}, out[] = {{"y", j->z}};
    bool ok = CALL(j, 0, wnn_context_write_tensor(j->e->ctx, j->x, v, sizeof v)) &&
              CALL(j, 0, wnn_context_dispatch(j->e->ctx, g, in, 1, out, 1));
    wnn_graph_release(g);
    if (ok && CALL(j, 0, wnn_context_read_tensor_sync(j->e->ctx, j->z, v, sizeof v)))
        for (int i = 0; i < LEN; i++)
            if (v[i] != (float)(seed * LEN + i + k)) {
                fail(j, __LINE__, "step_build", "a freshly built graph computed a wrong value");
                break;
            }
}

/* Import host memory of its own (wrapped on the cpu, copied elsewhere),
** dispatch from it, release it, and read the result. */
static void step_import(job *j)
{
    float v[LEN];
    int seed = next_seed(j);
    foreign *f = calloc(1, sizeof *f);
    if (!f) {
        fail(j, __LINE__, "calloc", "out of memory");
        return;
    }
    f->shape[0] = LEN;
    f->strides[0] = 1;
    fill(f->data, seed);
    DLTensor dl = {f->data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, f->shape, f->strides, 0};
    f->m = (DLManagedTensorVersioned){{1, 0}, f, foreign_deleter, 0, dl};
    wnn_tensor *t = NULL;
    atomic_fetch_add(&imports_made, 1);
    if (!CALL(j, 0, wnn_context_import_dlpack(j->e->ctx, &f->m, NULL, &t)))
        return;
    holder *g = acquire(j->e, SLOT_GRAPH);
    wnn_named_tensor in[] = {{"x", t}}, out[] = {{"y", j->y}, {"z", j->z}};
    bool ok = CALL(j, SHARED_GRAPH, wnn_context_dispatch(j->e->ctx, g->g, in, 1, out, 2));
    drop(g);
    wnn_tensor_release(t);
    if (ok && CALL(j, 0, wnn_context_read_tensor_sync(j->e->ctx, j->y, v, sizeof v)))
        CHECK_VALUES(j, v, KIND_Y, seed);
}

/* Statistics and, now and then, a finish of the whole context. Statistics
** stay readable on a lost context, like a tensor's attributes. */
static void step_stats(job *j)
{
    wnn_memory_stats st;
    j->ops++;
    if (wnn_context_get_memory_stats(j->e->ctx, &st) != WNN_OK)
        fail(j, __LINE__, "wnn_context_get_memory_stats", wnn_last_error_message());
    else if (st.peak_bytes < st.in_use_bytes)
        fail(j, __LINE__, "wnn_context_get_memory_stats", "peak_bytes below in_use_bytes");
    if (rnd(j) % 8 == 0)
        CALL(j, SHARED_ANY, wnn_context_finish(j->e->ctx));
}

/* Objects of another context, each refused with WRONG_CONTEXT. */
static void step_misuse(job *j)
{
    env *e = j->e;
    float v[LEN];
    fill(v, next_seed(j));
    holder *g = acquire(e, SLOT_GRAPH);
    wnn_named_tensor in[] = {{"x", j->x}}, out[] = {{"y", j->y}, {"z", j->z}};
    wnn_named_tensor other_in[] = {{"x", e->other_tensor}};
    EXPECT(j, wnn_context_write_tensor(e->other, j->x, v, sizeof v), WNN_STATUS_WRONG_CONTEXT);
    EXPECT(j, wnn_context_read_tensor_sync(e->other, j->y, v, sizeof v), WNN_STATUS_WRONG_CONTEXT);
    EXPECT(j, wnn_context_dispatch(e->other, g->g, in, 1, out, 2), WNN_STATUS_WRONG_CONTEXT);
    EXPECT(j, wnn_context_dispatch(e->ctx, e->other_graph, in, 1, out, 2), WNN_STATUS_WRONG_CONTEXT);
    EXPECT(j, wnn_context_dispatch(e->ctx, g->g, other_in, 1, out, 2), WNN_STATUS_WRONG_CONTEXT);
    EXPECT(j, wnn_context_write_tensor(e->ctx, e->other_tensor, v, sizeof v), WNN_STATUS_WRONG_CONTEXT);
    drop(g);
}

/* A worker destroys a shared tensor itself (tensor-destroy only). */
static void step_destroy_shared(job *j)
{
    holder *h = acquire(j->e, rnd(j) % 3);
    wnn_tensor_destroy(h->t);
    if (!wnn_tensor_is_destroyed(h->t))
        fail(j, __LINE__, "wnn_tensor_destroy", "the tensor is not destroyed afterwards");
    drop(h);
}

static void step(job *j)
{
    uint32_t r = rnd(j) % 64;
    if (r < 10)
        step_write_mail(j);
    else if (r < 20)
        step_read_shared(j);
    else if (r < 30)
        step_private_chain(j);
    else if (r < 38)
        step_dispatch_shared(j);
    else if (r < 44)
        step_dispatch_frozen(j);
    else if (r < 50)
        step_export_shared(j);
    else if (r < 54)
        step_export_private(j);
    else if (r < 57)
        step_import(j);
    else if (r < 59)
        step_build(j);
    else if (r < 61)
        step_stats(j);
    else if (j->e->other)
        step_misuse(j);
    else if (j->e->allow & SHARED_TENSOR && r == 63 && rnd(j) % 16 == 0)
        step_destroy_shared(j);
}

/* ---- workers and parts ------------------------------------------------------------------- */

static bool private_open(job *j)
{
    return CALL(j, 0, new_tensor(j->e->ctx, true, &j->x)) && CALL(j, 0, new_tensor(j->e->ctx, false, &j->y)) &&
           CALL(j, 0, new_tensor(j->e->ctx, false, &j->z));
}

static void private_close(job *j)
{
    drain(j);
    wnn_tensor_release(j->x);
    wnn_tensor_release(j->y);
    wnn_tensor_release(j->z);
    j->x = j->y = j->z = NULL;
}

/* own part: a context of the worker's own, with the other context's objects
** to misuse. */
static bool own_open(job *j)
{
    env *shared = j->shared, *e = calloc(1, sizeof *e);
    wnn_policy policy = j->id % 2 ? WNN_POLICY_SPEC : WNN_POLICY_CHROMIUM;
    if (!e || !CALL(j, 0, env_open(e, j->device, policy, 0))) {
        if (e)
            env_close(e);
        free(e);
        return false;
    }
    e->other = shared->ctx;
    e->other_graph = shared->slots[SLOT_GRAPH].h->g;
    e->other_tensor = shared->slots[SLOT_MAIL].h->t;
    j->e = e;
    return true;
}

static void own_close(job *j)
{
    uint64_t held = env_close(j->e);
    if (held) {
        char why[64];
        snprintf(why, sizeof why, "%llu bytes still in use", (unsigned long long)held);
        fail(j, __LINE__, "env_close", why);
    }
    free(j->e);
    j->e = j->shared;
}

static void *worker(void *arg)
{
    job *j = arg;
    if (j->own && !own_open(j))
        return NULL;
    if (private_open(j)) {
        for (long n = 1; now_s() < j->deadline && !j->failures; n++) {
            step(j);
            if (j->own && n % REOPEN_EVERY == 0) {
                private_close(j);
                own_close(j);
                if (!own_open(j))
                    return NULL;
                if (!private_open(j))
                    break;
            }
        }
    }
    private_close(j);
    if (j->own)
        own_close(j);
    return NULL;
}

/* The fifth thread of the destroy parts: destroys a shared object that the
** workers are using, gives them a moment to run into it, then puts a new
** one in its slot and releases the old handle once nobody holds it. */
static void destroyer(job *j, bool tensors)
{
    env *e = j->e;
    while (now_s() < j->deadline && !j->failures) {
        int which = tensors ? (int)(rnd(j) % SLOT_COUNT) : SLOT_GRAPH;
        slot *s = &e->slots[which];
        holder *fresh = NULL;
        if (!CALL(j, 0, new_holder(e, which, &fresh)))
            break;
        pthread_mutex_lock(&s->lock);
        holder *old = s->h;
        pthread_mutex_unlock(&s->lock);
        if (old->g)
            wnn_graph_destroy(old->g);
        else
            wnn_tensor_destroy(old->t);
        j->ops++;
        struct timespec pause = {0, (long)(rnd(j) % 200) * 1000};
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&s->lock);
        s->h = fresh;
        pthread_mutex_unlock(&s->lock);
        while (atomic_load(&old->users))
            sched_yield();
        free_holder(old);
    }
}

typedef struct part {
    const char *name;
    unsigned allow;
    bool own, lose, destroy_graphs, destroy_tensors;
} part;

static const part parts[] = {
    {"shared", 0, false, false, false, false},
    {"own", 0, true, false, false, false},
    {"lost", ALLOW_LOST, false, true, false, false},
    {"graph-destroy", SHARED_GRAPH, false, false, true, false},
    {"tensor-destroy", SHARED_ANY, false, false, true, true},
};

/* One round of a part: the workers (and the destroyer, or a context loss)
** for seconds; adds the operations made and those refused. */
static void run_round(const part *p, const char *device, double seconds, unsigned long *ops, unsigned long *refused)
{
    env shared;
    pthread_t th[WORKERS];
    job *jobs = calloc(WORKERS + 1, sizeof *jobs);
    CHECK_OK(env_open(&shared, device, WNN_POLICY_CHROMIUM, p->allow));
    if (!jobs || !shared.ctx) {
        free(jobs);
        return;
    }
    double start = now_s();
    for (int i = 0; i <= WORKERS; i++) {
        job *j = &jobs[i];
        j->id = i;
        j->e = j->shared = &shared;
        j->own = p->own && i < WORKERS;
        j->device = device;
        j->deadline = start + seconds;
        j->rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ (uint64_t)(start * 1e6);
        pthread_mutex_init(&j->lock, NULL);
        pthread_cond_init(&j->cv, NULL);
        if (i < WORKERS && pthread_create(&th[i], NULL, worker, j) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(1);
        }
    }
    job *main_job = &jobs[WORKERS];
    if (p->lose) {
        double d = seconds * (0.1 + (rnd(main_job) % 700) / 1000.0);
        struct timespec at = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        nanosleep(&at, NULL);
        wnn_context_destroy(shared.ctx);
        atomic_store(&shared.lost, true);
        CHECK(wnn_context_is_lost(shared.ctx));
    } else if (p->destroy_graphs || p->destroy_tensors) {
        destroyer(main_job, p->destroy_tensors);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    uint64_t held = env_close(&shared);
    CHECK_EQ_INT(held, 0);

    unsigned long made = 0;
    for (int i = 0; i <= WORKERS; i++) {
        job *j = &jobs[i];
        if (j->failures)
            fprintf(stderr, "%s: %s (%d failures)\n", p->name, j->first_failure, j->failures);
        CHECK_EQ_INT(j->failures, 0);
        /* the context is released: every callback owed has run, none twice */
        CHECK_EQ_INT(j->completed, j->issued);
        made += j->ops;
        *refused += j->refused;
        pthread_mutex_destroy(&j->lock);
        pthread_cond_destroy(&j->cv);
    }
    CHECK(made > 0);
    *ops += made;
    free(jobs);
}

/* A part for seconds: in one round, or for lost in rounds of LOST_ROUND_S
** so that the context is lost at many moments. */
static void run_part(const part *p, const char *device, double seconds)
{
    int rounds = p->lose ? (int)(seconds / LOST_ROUND_S + 0.999) : 1;
    int failed = test_failed;
    unsigned long ops = 0, refused = 0;
    double start = now_s();
    for (int r = 0; r < rounds && test_failed == failed; r++)
        run_round(p, device, seconds / rounds, &ops, &refused);
    double elapsed = now_s() - start;
    printf("%-15s %9lu operations in %.2f s (%d round%s), %.0f/s, %lu refused\n", p->name, ops, elapsed, rounds,
           rounds == 1 ? "" : "s", ops / elapsed, refused);
}

static bool device_present(const char *name)
{
    uint32_t n = wnn_device_count();
    for (uint32_t i = 0; i < n; i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && strcmp(info.name, name) == 0)
            return true;
    }
    return false;
}

/* A crash prints the stack of the crashing thread (frames as
** module(+offset), for addr2line) before the process dies: a soak that
** fails once in a while must say where. */
static void on_crash(int sig)
{
    void *frames[48];
    static const char head[] = "test-soak: fatal signal; stack:\n";
    (void)!write(2, head, sizeof head - 1);
    backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
    signal(sig, SIG_DFL);
    raise(sig);
}

int main(int argc, char **argv)
{
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGABRT, on_crash);
    const char *device = argc > 1 ? argv[1] : test_device();
    const char *s = getenv("WNN_SOAK_SECONDS");
    double seconds = s && atof(s) > 0 ? atof(s) : 1.0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!device_present(device)) {
        printf("skipped: no %s device (not built in, or no driver or hardware)\n", device);
        return 77;
    }
    for (int i = 2; i < argc; i++) {
        bool known = false;
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            known |= strcmp(argv[i], parts[k].name) == 0;
        if (!known) {
            fprintf(stderr, "test-soak: no part named %s\n", argv[i]);
            return 2;
        }
    }
    printf("device %s, %d workers, %.1f s a part\n", device, WORKERS, seconds);
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        const part *p = &parts[k];
        bool named = argc <= 2;
        for (int i = 2; i < argc; i++)
            named |= strcmp(argv[i], p->name) == 0;
        if (named)
            run_part(p, device, seconds);
    }
    CHECK_EQ_INT(atomic_load(&import_deleters), atomic_load(&imports_made));
    TEST_DONE();
}
