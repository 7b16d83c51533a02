/* SPDX-License-Identifier: Apache-2.0 */
/*
** fuzz_common.h -- what the four libFuzzer harnesses share (docs/fuzzing.md):
** the failure report, the byte reader, the mutators' random numbers, the
** known-status test, the one-thread setup, the memory file behind the
** path-based readers, context creation and the end-of-input memory check.
**
** Each harness defines FUZZ_NAME (the prefix of its failure reports) before
** including this header. Everything here is static: each fuzzer is one
** translation unit of its own.
*/
#ifndef WNN_FUZZ_COMMON_H
#define WNN_FUZZ_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wnn/wnn.h"

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz_common.h"
#endif

/* libFuzzer's entry points, declared for -Wmissing-prototypes; a harness
** declares the optional ones it defines. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A broken oracle: the message goes to stderr and abort() hands the input
** to libFuzzer as a crash. */
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
    va_list ap;
    fputs(FUZZ_NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* The input read a byte at a time. Past the end every read is 0, so any
** prefix is a complete program. */
typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static inline uint8_t take(reader *r)
{
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

/* The custom mutators' random numbers (xorshift64), seeded from libFuzzer's
** seed on each call, so a mutation replays from its seed. */
static uint64_t g_rng;

static inline uint32_t rnd(uint32_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return n ? (uint32_t)(g_rng % n) : 0;
}

/* A status the library documents: wnn_status_string names it. */
static inline bool known_status(wnn_status s) { return strcmp(wnn_status_string(s), "unknown status") != 0; }

/* One kernel thread (and one OpenBLAS thread): the fuzzer's own workers
** are the parallelism, and runs stay reproducible. A value the user set
** wins. */
static inline void fuzz_one_thread(void)
{
    setenv("WNN_NUM_THREADS", "1", 0);
    setenv("OPENBLAS_NUM_THREADS", "1", 0);
}

/* A context on device (0 memory_limit: none); a context that cannot be
** made ends the fuzzer. */
static inline wnn_context *fuzz_context(const char *device, uint64_t memory_limit)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    o.memory_limit = memory_limit;
    wnn_context *ctx = NULL;
    if (wnn_context_create(&o, &ctx) != WNN_OK)
        fail("no %s context: %s", device, wnn_last_error_message());
    return ctx;
}

/* A memory file for the readers that take a path: returns its descriptor
** and writes its /proc path to path. */
static inline int fuzz_memory_file(const char *name, char path[64])
{
    int fd = memfd_create(name, 0);
    if (fd < 0)
        fail("memfd_create failed");
    snprintf(path, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* Replaces the memory file's bytes with the input's. */
static inline void fuzz_memory_file_write(int fd, const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        fail("cannot write the memory file");
}

/* After an input, with every object released: waits for the context's
** work, then no device memory may be in use; the cached blocks go back so
** the next input starts clean. must_finish: a failed finish is a failure
** too (harnesses that judged each run's own errors already pass false). */
static inline void fuzz_check_memory(wnn_context *ctx, const char *device, bool must_finish)
{
    if (wnn_context_finish(ctx) != WNN_OK && must_finish)
        fail("finish on %s: %s", device, wnn_last_error_message());
    wnn_memory_stats m;
    if (wnn_context_get_memory_stats(ctx, &m) != WNN_OK)
        fail("memory stats on %s: %s", device, wnn_last_error_message());
    if (m.in_use_bytes != 0)
        fail("%llu bytes of %s memory still in use with every object released", (unsigned long long)m.in_use_bytes,
             device);
    wnn_context_trim_memory(ctx);
}

#endif
