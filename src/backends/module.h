/* SPDX-License-Identifier: Apache-2.0 */
/*
** module.h -- backends that live in their own shared library (a module),
** loaded with dlopen on first use of their devices, so that a program that
** never asks for a GPU never maps the GPU's libraries (the cuda backend's
** cuBLAS alone is half a gigabyte).
**
** A module exports one function, WNN__MODULE_ENTRY, that takes the host's
** services and returns its backend table. The services are the few core
** functions a backend calls (the caching allocator, the worker pool, fault
** injection, descriptor arithmetic): a module compiles none of core itself,
** so there is one allocator and one pool whichever way libwnn was linked.
*/
#ifndef WNN_BACKENDS_MODULE_H
#define WNN_BACKENDS_MODULE_H

#include "backends/backend.h"
#include "platform/pool.h"
#include "memory/arena.h"

#define WNN__MODULE_VERSION 4
#define WNN__MODULE_ENTRY "wnn_backend_module_entry"

struct wnn__allocator;

typedef struct wnn__host {
    uint32_t version; /* WNN__MODULE_VERSION */
    const struct wnn__config *(*config)(void);
    wnn_status (*allocator_alloc)(struct wnn__allocator *a, size_t bytes, void **ptr, size_t *block_size);
    void (*allocator_free)(struct wnn__allocator *a, void *ptr, size_t block_size);
    wnn_status (*memory_upload)(struct wnn__allocator *a, const void *src, size_t n, void **ptr, size_t *block_size);
    void (*parallel_for)(size_t n, size_t grain, wnn__range_fn fn, void *arg);
    size_t (*arena_place)(wnn__arena_block *live, uint32_t *n, size_t size, uint32_t id);
    void (*arena_unplace)(wnn__arena_block *live, uint32_t *n, uint32_t id);
    size_t (*data_type_size)(wnn_data_type t);
    uint64_t (*byte_length)(const wnn_operand_desc *desc);
    size_t (*pool_size)(void); /* since 4 */
} wnn__host;

/* The module's entry: NULL when host->version is not one it was built for. */
typedef const wnn__backend *(*wnn__module_entry)(const wnn__host *host);

#endif
