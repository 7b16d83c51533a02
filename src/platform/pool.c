/* SPDX-License-Identifier: Apache-2.0 */
/*
** pool.c -- the process-wide threads behind wnn__parallel_for.
**
** Two ways to run a job, chosen once per process:
**
** The OpenMP team (the default where libgomp.so.1 loads). oneDNN, which the
** cpu device's convolutions use, runs on libgomp; libgomp keeps one team of
** threads per thread that starts a parallel region. Had wnn its own workers
** beside that team, the two would fight over the cores (the team spins
** after each region, waiting for the next), and every thread that called
** oneDNN would get a team of its own (the timeline's worker and a caller
** that helps it: two teams of N threads on N cores, which makes libgomp
** stop spinning and sleep after every region). So in this mode one thread,
** the pool's master, starts every parallel region of wnn: wnn__pool_call
** runs a whole graph on it, oneDNN's regions and wnn__parallel_for's jobs
** alike (a job is GOMP_parallel over the same chunks as below), and a
** parallel_for from another thread is handed to the master. There is one
** team in the process, and its threads go from one operator to the next
** without sleeping. libgomp is opened at run time (dlopen, RTLD_LOCAL):
** the same libgomp.so.1 oneDNN brings, never linked.
**
** The pthread pool (builds with a sanitizer, WNN_CPU_OPENMP=0, or no
** libgomp): (threads - 1) detached workers, because the calling thread
** works too. A job lives on the caller's stack. Workers claim chunks of it
** with an atomic counter; the caller, once no chunk is left, withdraws the
** job under the lock and waits until every worker that joined has left it,
** so no worker can touch the job after the caller returns.
**
** Either way the pool runs one job (or one call) at a time. A call that
** finds it busy (another thread's kernel, or a nested call from inside a
** job) runs its whole range inline instead of waiting, so no pattern of
** nested or concurrent calls can deadlock.
**
** The threads live as long as the process and are never joined; everything
** they use is static, so leak checkers see nothing unreachable.
**
** wnn_set_num_threads() changes how many threads later jobs use: the pool
** grows to the largest count ever asked for, and a job takes at most the
** current count's helpers, so lowering it leaves the extra workers asleep.
*/
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "platform/pool.h"

#include "platform/config.h"
#include "platform/cpus.h"
#include "wnn/wnn.h"

#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Above this, more threads only cost memory; also bounds WNN_NUM_THREADS. */
#define WNN__POOL_MAX_THREADS WNN_MAX_THREADS

/* Chunks per thread: enough to even out uneven chunks without much overhead. */
#define WNN__CHUNKS_PER_THREAD 4

typedef struct pool_job {
    wnn__range_fn fn;
    void *arg;
    size_t n;
    size_t chunk;            /* range length of every chunk but the last */
    size_t n_chunks;
    size_t helpers;          /* workers that may join: the thread count - 1 */
    atomic_size_t next;      /* the next unclaimed chunk */
} pool_job;

static struct {
    pthread_once_t once;
    atomic_size_t size;      /* threads started, the caller included */
    atomic_size_t wanted;    /* threads a job may use, the caller included */
    pthread_mutex_t grow;    /* serializes wnn_set_num_threads */
    int blas_default;        /* OpenBLAS's own count, before any setting */
    atomic_flag in_use;      /* set while a job owns the workers */
    pthread_mutex_t lock;    /* guards job, generation and joined */
    pthread_cond_t wake;     /* workers: a new job was posted */
    pthread_cond_t left;     /* the caller: a worker left the job */
    pool_job *job;           /* NULL when no job accepts helpers */
    unsigned long generation;
    size_t joined;           /* workers inside the current job */
} g_pool = {
    .once = PTHREAD_ONCE_INIT,
    .in_use = ATOMIC_FLAG_INIT,
    .grow = PTHREAD_MUTEX_INITIALIZER,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .left = PTHREAD_COND_INITIALIZER,
};

/* True on pool workers, so that their nested calls run inline at once. */
static _Thread_local bool t_is_worker;

/* Sanitizer builds keep the pthread pool: ThreadSanitizer cannot see the
** ordering inside the uninstrumented libgomp, and LeakSanitizer's exit-time
** scan stumbles on its idle threads (as dnnl.c says of oneDNN). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define WNN__POOL_NO_OPENMP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WNN__POOL_NO_OPENMP 1
#endif

/* The OpenMP team's master: the one thread that starts wnn's parallel
** regions (see the top of the file). */
static struct {
    pthread_once_t once;
    bool on;
    void (*parallel)(void (*)(void *), void *, unsigned, unsigned); /* GOMP_parallel */
    void (*set_num_threads)(int);                                   /* omp_set_num_threads */
    pthread_mutex_t lock;
    pthread_cond_t posted;  /* the master: a call was posted */
    pthread_cond_t done;    /* the caller: the call returned */
    void (*fn)(void *);     /* the call, while one is posted */
    void *arg;
    atomic_ulong n_posted, n_done; /* changed under lock; read also without it, by the spins */
} g_team = {
    .once = PTHREAD_ONCE_INIT,
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .posted = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
};

static _Thread_local bool t_is_master;

/* Each side of a hand-off to the master (the caller waiting for its call,
** the master waiting for the next) polls for up to WNN_CPU_SPIN_US before it
** sleeps on its condition variable: a futex wake and the context switch
** behind it cost 5-30 us on a virtual machine, twice per graph, more than a
** small operator's whole run. The poll yields the core between looks, so a
** team thread that shares it still runs (a poll that only paused took a core
** from a 16-thread team: 16-core host, bench_dispatch reduceSum [1024,1024]
** 24 -> 102 us). It polls only where the team and the caller leave a core
** spare: with 16 threads on 16 cores, polling with yields halved the small
** dispatches in one run and in the next made two of them take 4000 us (a
** scheduler tick), so there the hand-off sleeps as before. With 4 threads on
** 16 cores: relu [65536] 20.4 -> 10.7 us, reduceSum [1024,1024] 29 -> 19 us. */
static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Whether the hand-off may poll: a core to spare beside the team and the
** caller, and a poll time configured. */
static bool may_poll(void)
{
    static atomic_size_t cores; /* usable, read once */
    size_t have = atomic_load_explicit(&cores, memory_order_relaxed);
    if (!have)
        atomic_store_explicit(&cores, have = wnn__cpus_usable() ? wnn__cpus_usable() : 1, memory_order_relaxed);
    return wnn__config_get()->cpu_spin_us > 0 && wnn__pool_size() + 1 <= have;
}

/* Polls until *v differs from old (differ) or reaches at least old (!differ),
** for up to the configured time; returns whether it did. */
static bool spin_until(atomic_ulong *v, unsigned long old, bool differ)
{
    if (!may_poll())
        return false;
    uint64_t limit = (uint64_t)wnn__config_get()->cpu_spin_us * 1000u;
    uint64_t start = now_ns();
    for (unsigned i = 1;; i++) {
        unsigned long x = atomic_load_explicit(v, memory_order_acquire);
        if (differ ? x != old : x >= old)
            return true;
        sched_yield();
        if ((i & 15) == 0 && now_ns() - start > limit)
            return false;
    }
}

static void run_chunks(pool_job *job)
{
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
        if (c >= job->n_chunks)
            return;
        size_t begin = c * job->chunk;
        size_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
        job->fn(job->arg, begin, end);
    }
}

static void *worker_main(void *unused)
{
    (void)unused;
    t_is_worker = true;
    pthread_mutex_lock(&g_pool.lock);
    unsigned long seen = g_pool.generation;
    for (;;) {
        while (g_pool.generation == seen)
            pthread_cond_wait(&g_pool.wake, &g_pool.lock);
        seen = g_pool.generation;
        pool_job *job = g_pool.job;
        if (!job || g_pool.joined >= job->helpers) /* withdrawn, or enough helpers */
            continue;
        g_pool.joined++;
        pthread_mutex_unlock(&g_pool.lock);

        run_chunks(job);

        pthread_mutex_lock(&g_pool.lock);
        if (--g_pool.joined == 0)
            pthread_cond_signal(&g_pool.left);
    }
    return NULL;
}

#ifndef WNN__POOL_NO_OPENMP
static void *master_main(void *unused)
{
    (void)unused;
    t_is_master = true;
    pthread_mutex_lock(&g_team.lock);
    for (;;) {
        if (atomic_load(&g_team.n_done) == atomic_load(&g_team.n_posted)) {
            unsigned long done = atomic_load(&g_team.n_done);
            pthread_mutex_unlock(&g_team.lock);
            spin_until(&g_team.n_posted, done, true);
            pthread_mutex_lock(&g_team.lock);
        }
        while (atomic_load(&g_team.n_done) == atomic_load(&g_team.n_posted))
            pthread_cond_wait(&g_team.posted, &g_team.lock);
        void (*fn)(void *) = g_team.fn;
        void *arg = g_team.arg;
        pthread_mutex_unlock(&g_team.lock);

        fn(arg);

        pthread_mutex_lock(&g_team.lock);
        atomic_fetch_add(&g_team.n_done, 1);
        pthread_cond_broadcast(&g_team.done);
    }
    return NULL;
}

/* A forked child has no master (only the forking thread survives fork):
** its jobs run inline on the calling thread instead of waiting forever for
** one. The pthread path, with no workers either, does the same. */
static void team_lost_in_child(void) { g_team.on = false; }
#endif

static size_t threads_wanted(void);

/* Opens libgomp and starts the master; leaves g_team.on false (the pthread
** pool) when any step fails. */
static void team_start(void)
{
#ifndef WNN__POOL_NO_OPENMP
    /* Unset, the team is for 2 threads and more. On 2 cores the two pools
    ** fought too: beside oneDNN's team, whose threads spin after each region,
    ** wnn's own worker made a third runnable thread, and the runs fell into
    ** a slow mode at random (idle 2-core machine, bench_models.py, pthread
    ** pool -> team: resnet18 26.3 / 19.0 -> 17.7 / 19.0 ms, mobilenet_v2 8.0 /
    ** 9.1 -> 4.9 / 5.3, efficientnet_b0 12.3 / 16.0 -> 9.3 / 9.6). With two
    ** busy loops beside it, bert_encoder took 636 ms a run on the pthread
    ** pool (OpenBLAS's threads spinning too) and 15 on the team; resnet18 71
    ** and 180 (a team's end-of-region barrier waits for a thread the
    ** scheduler has not run). */
    int mode = wnn__config_get()->cpu_openmp;
    if (mode == 0 || (mode < 0 && threads_wanted() < 2))
        return;
    void *h = dlopen("libgomp.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    /* the handle stays open for the process, as the team's threads do */
    g_team.parallel = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlsym(h, "GOMP_parallel");
    g_team.set_num_threads = (void (*)(int))dlsym(h, "omp_set_num_threads");
    if (!g_team.parallel || !g_team.set_num_threads)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* as the workers do; the team inherits it */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    g_team.on = pthread_create(&t, &attr, master_main, NULL) == 0;
    if (g_team.on)
        pthread_atfork(NULL, NULL, team_lost_in_child);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
}

static bool team_on(void)
{
    pthread_once(&g_team.once, team_start);
    return g_team.on;
}

/* Runs fn(arg) on the master and waits for it. The caller owns in_use. */
static void master_run(void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&g_team.lock);
    g_team.fn = fn;
    g_team.arg = arg;
    unsigned long mine = atomic_fetch_add(&g_team.n_posted, 1) + 1;
    pthread_cond_signal(&g_team.posted);
    pthread_mutex_unlock(&g_team.lock);
    spin_until(&g_team.n_done, mine, false);
    pthread_mutex_lock(&g_team.lock);
    while (atomic_load(&g_team.n_done) < mine)
        pthread_cond_wait(&g_team.done, &g_team.lock);
    pthread_mutex_unlock(&g_team.lock);
}

static size_t threads_wanted(void)
{
    long n = (long)wnn__config_get()->num_threads;
    if (n < 1)
        n = (long)wnn__cpus_usable(); /* affinity and cgroup quota, not only the cores online */
    if (n < 1)
        n = 1;
    if (n > WNN__POOL_MAX_THREADS)
        n = WNN__POOL_MAX_THREADS;
    return (size_t)n;
}

/* Starts workers until the pool has want threads (the caller included);
** keeps the ones it got if the system refuses more. Under g_pool.grow, or
** from pool_start. */
static void pool_grow(size_t want)
{
    size_t have = atomic_load(&g_pool.size);
    if (have >= want)
        return;

    /* Workers block every signal so that handlers run on the application's
    ** threads, never in the middle of a kernel. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (; have < want; have++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker_main, NULL) != 0)
            break; /* run with the workers we got */
        atomic_store(&g_pool.size, have + 1);
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void pool_start(void)
{
    atomic_store(&g_pool.size, 1);
    size_t want = threads_wanted();
    if (team_on()) /* libgomp starts the team's threads */
        atomic_store(&g_pool.size, want);
    else
        pool_grow(want);
    atomic_store(&g_pool.wanted, want);
}

size_t wnn__pool_size(void)
{
    pthread_once(&g_pool.once, pool_start);
    size_t wanted = atomic_load(&g_pool.wanted), size = atomic_load(&g_pool.size);
    return wanted < size ? wanted : size;
}

void wnn__pool_set_threads(size_t n)
{
    pthread_once(&g_pool.once, pool_start);
    pthread_mutex_lock(&g_pool.grow);
    if (!g_pool.blas_default)
        g_pool.blas_default = openblas_get_num_threads();
    size_t want = n ? n : threads_wanted();
    if (g_team.on) {
        if (want > atomic_load(&g_pool.size))
            atomic_store(&g_pool.size, want);
    } else {
        pool_grow(want);
    }
    atomic_store(&g_pool.wanted, want);
    openblas_set_num_threads(n ? (int)n : g_pool.blas_default);
    pthread_mutex_unlock(&g_pool.grow);
}

/* One thread of the OpenMP team: the same chunks the pthread workers take. */
static void team_body(void *p)
{
    bool was = t_is_worker;
    t_is_worker = true; /* nested calls run inline, on the master too */
    run_chunks(p);
    t_is_worker = was;
}

/* On the master: the job as one parallel region of its team. */
static void team_region(void *p)
{
    pool_job *job = p;
    g_team.parallel(team_body, job, (unsigned)(job->helpers + 1), 0);
}

void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;

    size_t threads = t_is_worker ? 1 : wnn__pool_size();
    size_t max_chunks = n / grain; /* so that every chunk is >= grain */
    /* the master is inside a call that owns the pool already */
    if (threads < 2 || max_chunks < 2 || (!t_is_master && atomic_flag_test_and_set(&g_pool.in_use))) {
        fn(arg, 0, n);
        return;
    }

    size_t n_chunks = threads * WNN__CHUNKS_PER_THREAD;
    if (n_chunks > max_chunks)
        n_chunks = max_chunks;
    pool_job job = {.fn = fn, .arg = arg, .n = n, .chunk = (n + n_chunks - 1) / n_chunks, .helpers = threads - 1};
    job.n_chunks = (n + job.chunk - 1) / job.chunk;
    atomic_init(&job.next, 0);

    if (g_team.on) {
        if (t_is_master)
            team_region(&job);
        else
            master_run(team_region, &job);
    } else {
        pthread_mutex_lock(&g_pool.lock);
        g_pool.job = &job;
        g_pool.generation++;
        pthread_cond_broadcast(&g_pool.wake);
        pthread_mutex_unlock(&g_pool.lock);

        run_chunks(&job);

        /* Every chunk is claimed; the ones still running belong to workers that
        ** joined, and none can join once the job is withdrawn. */
        pthread_mutex_lock(&g_pool.lock);
        g_pool.job = NULL;
        while (g_pool.joined > 0)
            pthread_cond_wait(&g_pool.left, &g_pool.lock);
        pthread_mutex_unlock(&g_pool.lock);
    }

    if (!t_is_master)
        atomic_flag_clear(&g_pool.in_use);
}

typedef struct team_call {
    void (*fn)(void *);
    void *arg;
} team_call;

/* On the master: OpenMP's count for this call's regions (oneDNN's, OpenBLAS's
** on OpenMP) is wnn's. */
static void team_call_run(void *p)
{
    team_call *c = p;
    g_team.set_num_threads((int)wnn__pool_size());
    c->fn(c->arg);
}

void wnn__pool_call(void (*fn)(void *), void *arg)
{
    if (wnn__pool_size() < 2 || t_is_master || t_is_worker || !g_team.on ||
        atomic_flag_test_and_set(&g_pool.in_use)) {
        fn(arg);
        return;
    }
    team_call c = {fn, arg};
    master_run(team_call_run, &c);
    atomic_flag_clear(&g_pool.in_use);
}

bool wnn__pool_handoff_sleeps(void)
{
    return wnn__pool_size() >= 2 && g_team.on && !may_poll();
}

void wnn__pool_run_alone(void (*fn)(void *), void *arg)
{
    bool was = t_is_worker;
    t_is_worker = true; /* parallel_for and pool_call run inline; libraries get one thread */
    fn(arg);
    t_is_worker = was;
}

size_t wnn__pool_threads_here(void)
{
    if (t_is_worker)
        return 1;
    size_t n = wnn__pool_size(); /* starts the pool: g_team.on is settled after it */
    return g_team.on && !t_is_master ? 1 : n;
}

bool wnn__pool_on_team(void)
{
    (void)wnn__pool_size(); /* starts the pool, which settles g_team.on */
    return g_team.on;
}
