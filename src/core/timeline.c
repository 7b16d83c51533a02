/* SPDX-License-Identifier: Apache-2.0 */
/*
** timeline.c -- a context's ordered work queue and its worker thread.
**
** Each context owns one worker that runs the context's tasks (writes, reads,
** dispatches, calls) strictly in the order they were recorded. That single
** order gives WebNN's per-tensor ordering for free: a dispatch's outputs are
** complete before any later task that reads them, so chained dispatches need
** no wait. Public calls validate, record a task and return; the worker runs
** it later. Tasks carry their own run and free (core/internal.h), so the
** timeline knows no kind of work.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* With ctx->lock held: runs the task at the head of the timeline unless
** another thread is running one. A thread waiting for the timeline (finish,
** a blocking read) helps this way instead of sleeping while the worker wakes
** up; it only takes tasks whose completion calls no user callback, because
** callbacks are documented to run on the worker. Returns whether it ran one. */
static bool run_one_locked(wnn_context *ctx, bool helper)
{
    wnn__task *task = ctx->head;
    if (!task || ctx->busy || (helper && task->callback && !task->internal_callback))
        return false;
    ctx->head = task->next;
    if (!ctx->head)
        ctx->tail = NULL;
    ctx->busy = true;
    pthread_mutex_unlock(&ctx->lock);

    task->run(ctx, task);
    task->free(task);

    pthread_mutex_lock(&ctx->lock);
    ctx->busy = false;
    ctx->completed++;
    pthread_cond_broadcast(&ctx->done_cv);
    /* The worker waits on work_cv only when it found nothing to run or the
    ** timeline busy: wake it only if there is something for it now. A
    ** wake-up for nothing is a futex call here and a context switch there,
    ** as much as the whole of a small write -> dispatch -> read. */
    if (ctx->head || ctx->stopping)
        pthread_cond_signal(&ctx->work_cv);
    return true;
}

static void *worker_main(void *arg)
{
    wnn_context *ctx = arg;
    pthread_mutex_lock(&ctx->lock);
    for (;;) {
        if (run_one_locked(ctx, false))
            continue;
        if (!ctx->head && ctx->stopping && !ctx->busy)
            break; /* stopping and drained */
        pthread_cond_wait(&ctx->work_cv, &ctx->lock);
    }
    pthread_mutex_unlock(&ctx->lock);
    return NULL;
}

/* With ctx->lock held. */
static bool enter_locked(wnn_context *ctx)
{
    bool idle = !ctx->head && !ctx->busy && !ctx->stopping;
    if (idle)
        ctx->busy = true;
    return idle;
}

bool wnn__timeline_try_enter(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    bool idle = enter_locked(ctx);
    pthread_mutex_unlock(&ctx->lock);
    return idle;
}

bool wnn__timeline_enter_after_all(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    uint64_t seq = ctx->submitted;
    while (ctx->completed < seq)
        if (!run_one_locked(ctx, true))
            pthread_cond_wait(&ctx->done_cv, &ctx->lock);
    bool idle = enter_locked(ctx);
    pthread_mutex_unlock(&ctx->lock);
    return idle;
}

void wnn__timeline_leave(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->busy = false;
    /* wake others only if they can have been waiting for this thread: work
    ** was queued meanwhile (worker, helpers), or the worker, stopping, waits
    ** for the timeline to be free before it exits */
    if (ctx->head || ctx->stopping) {
        pthread_cond_broadcast(&ctx->done_cv);
        pthread_cond_signal(&ctx->work_cv);
    }
    pthread_mutex_unlock(&ctx->lock);
}

void wnn__timeline_wait(wnn_context *ctx, uint64_t seq)
{
    pthread_mutex_lock(&ctx->lock);
    while (ctx->completed < seq)
        if (!run_one_locked(ctx, true))
            pthread_cond_wait(&ctx->done_cv, &ctx->lock);
    pthread_mutex_unlock(&ctx->lock);
}

wnn_status wnn__timeline_submit(wnn_context *ctx, wnn__task *task)
{
    return wnn__timeline_submit_seq(ctx, task, NULL);
}

wnn_status wnn__timeline_submit_seq(wnn_context *ctx, wnn__task *task, uint64_t *seq)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->stopping) {
        pthread_mutex_unlock(&ctx->lock);
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "context is lost");
    }
    task->next = NULL;
    if (ctx->tail)
        ctx->tail->next = task;
    else
        ctx->head = task;
    ctx->tail = task;
    ctx->submitted++;
    if (seq)
        *seq = ctx->submitted;
    pthread_cond_signal(&ctx->work_cv);
    pthread_mutex_unlock(&ctx->lock);
    return WNN_OK;
}

void wnn__timeline_error(wnn_context *ctx, wnn_status s, const char *message)
{
    pthread_mutex_lock(&ctx->lock);
    if (ctx->first_error == WNN_OK) {
        ctx->first_error = s;
        snprintf(ctx->first_error_message, sizeof ctx->first_error_message, "%s", message);
    }
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->on_error)
        ctx->on_error(s, message, ctx->on_error_user_data);
}

wnn_status wnn__timeline_start(wnn_context *ctx)
{
    if (pthread_create(&ctx->worker, NULL, worker_main, ctx) != 0)
        return WNN_STATUS_OUT_OF_MEMORY;
    ctx->worker_started = true;
    return WNN_OK;
}

void wnn__timeline_stop(wnn_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    ctx->stopping = true;
    pthread_cond_signal(&ctx->work_cv);
    pthread_mutex_unlock(&ctx->lock);
    if (ctx->worker_started)
        pthread_join(ctx->worker, NULL);
    ctx->worker_started = false;
}

void wnn__task_free(wnn__task *task)
{
    if (task)
        task->free(task);
}

/* ---- calls -------------------------------------------------------------- */

static void run_call(wnn_context *ctx, wnn__task *task)
{
    task->callback(atomic_load(&ctx->lost) ? WNN_STATUS_CONTEXT_LOST : WNN_OK, "", NULL, 0, task->user_data);
}

static void free_call(wnn__task *task) { free(task); }

wnn_status wnn__timeline_call(wnn_context *ctx, wnn_read_callback fn, void *user, uint64_t *seq)
{
    wnn__task *task = calloc(1, sizeof *task);
    if (!task)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    task->run = run_call;
    task->free = free_call;
    task->callback = fn;
    task->user_data = user;
    task->internal_callback = true;
    wnn_status s = wnn__timeline_submit_seq(ctx, task, seq);
    if (s != WNN_OK)
        free(task);
    return s;
}
