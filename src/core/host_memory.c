/* SPDX-License-Identifier: Apache-2.0 */
/*
** host_memory.c -- wnn_context_alloc_host / _free_host / _register_host /
** _unregister_host: pinned host memory through the backend's optional
** entries, plain aligned memory and no-op registrations where it has none.
**
** The context keeps a list of what it handed out or registered, so that a
** free or unregister of anything else is refused with a status rather than
** passed to the driver (or to free()), and so that the context's end gives
** back whatever is left.
*/
#include <stdlib.h>

#include "core/internal.h"

typedef struct wnn__host_block {
    struct wnn__host_block *next;
    char *ptr;
    size_t bytes;
    bool registered; /* the caller's memory, pinned; else allocated here */
} wnn__host_block;

#define PLAIN_ALIGNMENT 4096 /* of memory from a backend without host_alloc */

static wnn_status check_context(const char *fn, wnn_context *ctx)
{
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (atomic_load(&ctx->lost))
        return wnn__fail(WNN_STATUS_CONTEXT_LOST, "%s: context is lost", fn);
    return WNN_OK;
}

static void block_give_back(wnn_context *ctx, wnn__host_block *b)
{
    const wnn__backend *be = ctx->backend;
    if (b->registered) {
        if (be->host_unregister)
            be->host_unregister(ctx->device, b->ptr);
    } else if (be->host_alloc) {
        be->host_free(ctx->device, b->ptr);
    } else {
        free(b->ptr);
    }
    free(b);
}

/* Takes off ctx's list the block that starts at ptr and is of the kind
** asked for; NULL if none. */
static wnn__host_block *take_block(wnn_context *ctx, const void *ptr, bool registered)
{
    pthread_mutex_lock(&ctx->lock);
    wnn__host_block **at = &ctx->host_blocks;
    while (*at && !((*at)->ptr == ptr && (*at)->registered == registered))
        at = &(*at)->next;
    wnn__host_block *b = *at;
    if (b)
        *at = b->next;
    pthread_mutex_unlock(&ctx->lock);
    return b;
}

wnn_status wnn_context_alloc_host(wnn_context *ctx, size_t byte_length, void **out)
{
    static const char fn[] = "wnn_context_alloc_host";
    if (!out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: out is NULL", fn);
    *out = NULL;
    wnn_status s = check_context(fn, ctx);
    if (s != WNN_OK)
        return s;
    if (byte_length == 0)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: byte_length is 0", fn);
    wnn__host_block *b = calloc(1, sizeof *b);
    if (!b)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    void *p = NULL;
    if (ctx->backend->host_alloc)
        s = ctx->backend->host_alloc(ctx->device, byte_length, &p);
    else
        s = posix_memalign(&p, PLAIN_ALIGNMENT, byte_length) == 0 ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
    if (s != WNN_OK) {
        free(b);
        return wnn__fail(s, "%s: %zu bytes of host memory for \"%s\": %s", fn, byte_length, ctx->info.name,
                         wnn_status_string(s));
    }
    *b = (wnn__host_block){.ptr = p, .bytes = byte_length};
    pthread_mutex_lock(&ctx->lock);
    b->next = ctx->host_blocks;
    ctx->host_blocks = b;
    pthread_mutex_unlock(&ctx->lock);
    *out = p;
    return WNN_OK;
}

wnn_status wnn_context_free_host(wnn_context *ctx, void *ptr)
{
    static const char fn[] = "wnn_context_free_host";
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (!ptr)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: ptr is NULL", fn);
    wnn__host_block *b = take_block(ctx, ptr, false);
    if (!b)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT,
                         "%s: %p was not allocated by wnn_context_alloc_host on this context (or was freed already)",
                         fn, ptr);
    block_give_back(ctx, b);
    return WNN_OK;
}

wnn_status wnn_context_register_host(wnn_context *ctx, void *ptr, size_t byte_length)
{
    static const char fn[] = "wnn_context_register_host";
    wnn_status s = check_context(fn, ctx);
    if (s != WNN_OK)
        return s;
    if (!ptr)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: ptr is NULL", fn);
    if (byte_length == 0)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: byte_length is 0", fn);
    if ((uintptr_t)ptr + byte_length < (uintptr_t)ptr)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %zu bytes at %p wrap the address space", fn,
                         byte_length, ptr);
    wnn__host_block *b = calloc(1, sizeof *b);
    if (!b)
        return wnn__fail(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
    *b = (wnn__host_block){.ptr = ptr, .bytes = byte_length, .registered = true};
    /* claim the range on the list first, so two threads cannot both pin it */
    uintptr_t lo = (uintptr_t)ptr, hi = lo + byte_length;
    pthread_mutex_lock(&ctx->lock);
    bool overlap = false;
    for (const wnn__host_block *o = ctx->host_blocks; o && !overlap; o = o->next)
        overlap = o->registered && lo < (uintptr_t)o->ptr + o->bytes && (uintptr_t)o->ptr < hi;
    if (!overlap) {
        b->next = ctx->host_blocks;
        ctx->host_blocks = b;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (overlap) {
        free(b);
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %zu bytes at %p overlap memory registered already", fn,
                         byte_length, ptr);
    }
    if (ctx->backend->host_register && (s = ctx->backend->host_register(ctx->device, ptr, byte_length)) != WNN_OK) {
        free(take_block(ctx, ptr, true));
        return wnn__fail(s, "%s: \"%s\" cannot pin %zu bytes at %p: %s", fn, ctx->info.name, byte_length, ptr,
                         wnn_status_string(s));
    }
    return WNN_OK;
}

wnn_status wnn_context_unregister_host(wnn_context *ctx, void *ptr)
{
    static const char fn[] = "wnn_context_unregister_host";
    if (!ctx)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: context is NULL", fn);
    if (!ptr)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: ptr is NULL", fn);
    wnn__host_block *b = take_block(ctx, ptr, true);
    if (!b)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT,
                         "%s: %p does not start memory registered with wnn_context_register_host on this context", fn,
                         ptr);
    block_give_back(ctx, b);
    return WNN_OK;
}

void wnn__host_blocks_release(wnn_context *ctx)
{
    wnn__host_block *b = ctx->host_blocks;
    ctx->host_blocks = NULL;
    while (b) {
        wnn__host_block *next = b->next;
        block_give_back(ctx, b);
        b = next;
    }
}
