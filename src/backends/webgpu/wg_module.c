/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_module.c -- the entry of libwnn_webgpu.so (backends/module.h): keeps the
** host's services and gives the webgpu backend table. The core functions the
** backend calls are defined here under their core names and forward to the
** host, as in the cuda module.
*/
#include <stddef.h>

#include "backends/module.h"
#include "memory/allocator.h"
#include "platform/config.h"
#include "platform/pool.h"

extern const wnn__backend wnn__webgpu_backend;

static const wnn__host *host;

__attribute__((visibility("default"))) const wnn__backend *wnn_backend_module_entry(const wnn__host *h);

const wnn__backend *wnn_backend_module_entry(const wnn__host *h)
{
    if (!h || h->version != WNN__MODULE_VERSION)
        return NULL;
    host = h;
    return &wnn__webgpu_backend;
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

uint64_t wnn_operand_desc_byte_length(const wnn_operand_desc *desc) { return host->byte_length(desc); }

size_t wnn_data_type_size(wnn_data_type t) { return host->data_type_size(t); }

const wnn__config *wnn__config_get(void) { return host->config(); }

void wnn__parallel_for(size_t n, size_t grain, wnn__range_fn fn, void *arg) { host->parallel_for(n, grain, fn, arg); }

size_t wnn__pool_size(void) { return host->pool_size(); }

/* Not among the host's services; small enough to have here. */
const char *wnn__op_name(wnn__op op)
{
    static const char *const names[] = {
#define WNN__OP_DEF(e, name) name,
#include "core/ops.def"
#undef WNN__OP_DEF
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

const char *wnn_data_type_name(wnn_data_type t)
{
    static const char *const names[] = {NULL, "float32", "float16", "int32", "uint32", "int64",
                                        "uint64", "int8", "uint8", "int4", "uint4"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

uint64_t wnn_operand_desc_element_count(const wnn_operand_desc *desc)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < desc->rank; i++)
        n *= desc->shape[i];
    return n;
}
