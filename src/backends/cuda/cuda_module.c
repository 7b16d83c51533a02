/* SPDX-License-Identifier: Apache-2.0 */
/*
** cuda_module.c -- the entry of libwnn_cuda.so (backends/module.h): keeps
** the host's services and gives the cuda backend table. The core functions
** the backend calls are defined here under their core names and forward to
** the host, so the backend's sources are the same as if it were linked in.
*/
#include <stddef.h>

#include "backends/module.h"
#include "memory/allocator.h"
#include "platform/config.h"

static const wnn__host *host;

__attribute__((visibility("default"))) const wnn__backend *wnn_backend_module_entry(const wnn__host *h);

const wnn__backend *wnn_backend_module_entry(const wnn__host *h)
{
    if (!h || h->version != WNN__MODULE_VERSION)
        return NULL;
    host = h;
    return &wnn__cuda_backend;
}

wnn_status wnn__allocator_alloc(wnn__allocator *a, size_t bytes, void **ptr, size_t *block_size)
{
    return host->allocator_alloc(a, bytes, ptr, block_size);
}

void wnn__allocator_free(wnn__allocator *a, void *ptr, size_t block_size) { host->allocator_free(a, ptr, block_size); }

wnn_status wnn__memory_upload(wnn__allocator *a, const void *src, size_t n, void **ptr, size_t *block_size)
{
    return host->memory_upload(a, src, n, ptr, block_size);
}

const wnn__config *wnn__config_get(void) { return host->config(); }

void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg) { host->parallel_for(n, grain, fn, arg); }

size_t wnn__pool_size(void) { return host->pool_size(); }

size_t wnn__arena_place(wnn__arena_block *live, uint32_t *n, size_t size, uint32_t id)
{
    return host->arena_place(live, n, size, id);
}

void wnn__arena_unplace(wnn__arena_block *live, uint32_t *n, uint32_t id) { host->arena_unplace(live, n, id); }

size_t wnn_data_type_size(wnn_data_type t) { return host->data_type_size(t); }

uint64_t wnn_operand_desc_byte_length(const wnn_operand_desc *desc) { return host->byte_length(desc); }
