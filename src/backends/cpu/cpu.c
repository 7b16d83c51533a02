/* SPDX-License-Identifier: Apache-2.0 */
/*
** cpu.c -- the cpu backend: host memory is device memory, graphs run the
** portable kernels of kernels.h node by node.
**
** A compiled graph owns one arena for its intermediates, planned once at
** compile time and reused by every dispatch (the timeline runs one dispatch
** at a time per context, so one arena per graph is enough).
*/
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/cpu/cpu_graph.h"
#include "backends/cpu/kernels.h"
#include "memory/allocator.h"

#define CPU_MAX_TENSOR_BYTES ((uint64_t)1 << 34)

static uint32_t cpu_device_count(void) { return 1; }

static wnn_status cpu_device_info(uint32_t index, wnn_device_info *info)
{
    *info = (wnn_device_info){
        .name = "cpu",
        .description = "host CPU (portable C kernels, OpenBLAS)",
        .kind = WNN_DEVICE_KIND_CPU,
        .accelerated = false,
        .max_tensor_byte_length = CPU_MAX_TENSOR_BYTES,
        .memory_bytes = 0,
        .dlpack_device_type = 1, /* kDLCPU */
        .dlpack_device_id = 0,
    };
    return WNN_OK;
}

struct wnn__device {
    int unused;
};

static wnn_status cpu_device_open(uint32_t index, wnn__device **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
}

static void cpu_device_close(wnn__device *dev) { free(dev); }

/* Every WebNN type, and int4/uint4 (packed two per byte), which the
** quantizeLinear and dequantizeLinear kernels read and write. */
static bool cpu_supports_data_type(const wnn__device *dev, wnn_data_type t)
{
    return t >= WNN_DATA_TYPE_FLOAT32 && t <= WNN_DATA_TYPE_UINT4;
}

static wnn_status cpu_mem_alloc(wnn__device *dev, size_t bytes, void **ptr)
{
    /* storage zeroes lazily (its ZERO state), so fresh memory need not be */
    *ptr = aligned_alloc(64, (bytes + 63) / 64 * 64);
    return *ptr ? WNN_OK : WNN_STATUS_OUT_OF_MEMORY;
}

static void cpu_mem_free(wnn__device *dev, void *ptr) { free(ptr); }

/* A compiled graph: the plan plus its arena from the context's allocator. */
typedef struct cpu_compiled {
    wnn__cpu_graph *plan;
    wnn__allocator *alloc;
    void *arena;
    size_t arena_block;
} cpu_compiled;

static void cpu_graph_release(wnn__device *dev, void *compiled)
{
    cpu_compiled *c = compiled;
    wnn__allocator_free(c->alloc, c->arena, c->arena_block);
    wnn__cpu_graph_free(c->plan);
    free(c);
}

static wnn_status cpu_graph_compile(wnn__device *dev, wnn__allocator *alloc, const wnn__ir *ir, void **compiled)
{
    cpu_compiled *c = calloc(1, sizeof *c);
    if (!c)
        return WNN_STATUS_OUT_OF_MEMORY;
    c->alloc = alloc;
    wnn_status s = wnn__cpu_graph_plan(ir, &c->plan);
    size_t arena = s == WNN_OK ? wnn__cpu_graph_arena_size(c->plan) : 0;
    if (s == WNN_OK && arena)
        s = wnn__allocator_alloc(alloc, arena, &c->arena, &c->arena_block);
    if (s != WNN_OK) {
        wnn__cpu_graph_free(c->plan);
        free(c);
        return s;
    }
    wnn__cpu_graph_bind(c->plan, c->arena, NULL);
    *compiled = c;
    return WNN_OK;
}

static wnn_status cpu_graph_execute(wnn__device *dev, void *compiled, void *const *inputs, void *const *outputs)
{
    return wnn__cpu_graph_run(((cpu_compiled *)compiled)->plan, inputs, outputs);
}

const wnn__backend wnn__cpu_backend = {
    .version = WNN__BACKEND_VERSION,
    .name = "cpu",
    .device_count = cpu_device_count,
    .device_info = cpu_device_info,
    .device_open = cpu_device_open,
    .device_close = cpu_device_close,
    .unified_memory = true,
    .supports_data_type = cpu_supports_data_type,
    .mem_alloc = cpu_mem_alloc,
    .mem_free = cpu_mem_free,
    .graph_compile = cpu_graph_compile,
    .graph_release = cpu_graph_release,
    .graph_execute = cpu_graph_execute,
};
