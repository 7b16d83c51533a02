/* SPDX-License-Identifier: Apache-2.0 */
/*
** pool.c -- the process-wide worker pool behind wnn__parallel_for.
**
** One pool for the whole process, started on first use: (threads - 1)
** detached workers, because the calling thread works too. The pool runs one
** job at a time. A call that finds it busy (another thread's kernel, or a
** nested call from inside a job) runs its whole range inline instead of
** waiting, so no pattern of nested or concurrent calls can deadlock.
**
** A job lives on the caller's stack. Workers claim chunks of it with an
** atomic counter; the caller, once no chunk is left, withdraws the job under
** the lock and waits until every worker that joined has left it, so no worker
** can touch the job after the caller returns.
**
** The workers live as long as the process and are never joined; everything
** they use is static, so leak checkers see nothing unreachable.
*/
#ifndef _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "backends/cpu/pool.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

/* Above this, more threads only cost memory; also bounds WNN_NUM_THREADS. */
#define WNN__POOL_MAX_THREADS 256

/* Chunks per thread: enough to even out uneven chunks without much overhead. */
#define WNN__CHUNKS_PER_THREAD 4

typedef struct pool_job {
    wnn__range_fn fn;
    void *arg;
    size_t n;
    size_t chunk;            /* range length of every chunk but the last */
    size_t n_chunks;
    atomic_size_t next;      /* the next unclaimed chunk */
} pool_job;

static struct {
    pthread_once_t once;
    size_t size;             /* threads in all, the caller included */
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
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .left = PTHREAD_COND_INITIALIZER,
};

/* True on pool workers, so that their nested calls run inline at once. */
static _Thread_local bool t_is_worker;

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
        if (!job) /* woke after the caller withdrew the job */
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

static size_t threads_wanted(void)
{
    const char *env = getenv("WNN_NUM_THREADS");
    long n = 0;
    if (env && *env) {
        char *end;
        n = strtol(env, &end, 10);
        if (*end != '\0')
            n = 0; /* not a number: ignore it rather than guess */
    }
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > WNN__POOL_MAX_THREADS)
        n = WNN__POOL_MAX_THREADS;
    return (size_t)n;
}

static void pool_start(void)
{
    size_t want = threads_wanted();
    g_pool.size = 1;

    /* Workers block every signal so that handlers run on the application's
    ** threads, never in the middle of a kernel. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (size_t i = 1; i < want; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker_main, NULL) != 0)
            break; /* run with the workers we got */
        g_pool.size++;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

size_t wnn__pool_size(void)
{
    pthread_once(&g_pool.once, pool_start);
    return g_pool.size;
}

void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;

    size_t threads = t_is_worker ? 1 : wnn__pool_size();
    size_t max_chunks = n / grain; /* so that every chunk is >= grain */
    if (threads < 2 || max_chunks < 2 || atomic_flag_test_and_set(&g_pool.in_use)) {
        fn(arg, 0, n);
        return;
    }

    size_t n_chunks = threads * WNN__CHUNKS_PER_THREAD;
    if (n_chunks > max_chunks)
        n_chunks = max_chunks;
    pool_job job = {.fn = fn, .arg = arg, .n = n, .chunk = (n + n_chunks - 1) / n_chunks};
    job.n_chunks = (n + job.chunk - 1) / job.chunk;
    atomic_init(&job.next, 0);

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

    atomic_flag_clear(&g_pool.in_use);
}
