/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-host-memory.c -- wnn_context_alloc_host / _free_host /
** _register_host / _unregister_host on the test device: every misuse's
** status, and writes and reads from pageable, allocated and registered
** memory of sizes that take each copy path (one staging chunk, several
** threads, more chunks than the ring holds, the pinned DMA path), checked
** byte for byte; then again with a tiny staging ring and three copy
** threads, so the ring wraps many times under concurrency.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/config.h"
#include "test.h"

static wnn_context *open_ctx(void)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = test_device();
    wnn_context *ctx = NULL;
    CHECK_OK(wnn_context_create(&o, &ctx));
    if (ctx == NULL) { /* nothing below can run without it */
        fprintf(stderr, "test-host-memory: no %s context\n", o.device);
        printf("%d passed, %d failed\n", test_passed, test_failed);
        exit(1);
    }
    return ctx;
}

static void test_misuse(void)
{
    wnn_context *ctx = open_ctx(), *other = open_ctx();
    void *p = (void *)1;
    CHECK_STATUS(wnn_context_alloc_host(NULL, 64, &p), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(p == NULL);
    CHECK_STATUS(wnn_context_alloc_host(ctx, 64, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_alloc_host(ctx, 0, &p), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(wnn_last_error_message(), "byte_length is 0") != NULL);

    CHECK_OK(wnn_context_alloc_host(ctx, 1000, &p));
    CHECK(p != NULL && ((uintptr_t)p & 63) == 0);
    memset(p, 7, 1000);
    CHECK_STATUS(wnn_context_free_host(ctx, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_free_host(NULL, p), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_free_host(ctx, (char *)p + 8), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(wnn_last_error_message(), "was not allocated") != NULL);
    CHECK_STATUS(wnn_context_free_host(other, p), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_unregister_host(ctx, p), WNN_STATUS_INVALID_ARGUMENT);
    void *foreign = malloc(64);
    CHECK_STATUS(wnn_context_free_host(ctx, foreign), WNN_STATUS_INVALID_ARGUMENT);
    free(foreign); /* untouched by the refusal */
    CHECK_OK(wnn_context_free_host(ctx, p));
    CHECK_STATUS(wnn_context_free_host(ctx, p), WNN_STATUS_INVALID_ARGUMENT);

    size_t n = 3 * 4096;
    char *mine = aligned_alloc(4096, n);
    CHECK_STATUS(wnn_context_register_host(NULL, mine, n), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_register_host(ctx, NULL, n), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_register_host(ctx, mine, 0), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_register_host(ctx, (void *)UINTPTR_MAX, 2), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_OK(wnn_context_register_host(ctx, mine, n));
    CHECK_STATUS(wnn_context_register_host(ctx, mine + 4096, 4096), WNN_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(wnn_last_error_message(), "overlap") != NULL);
    CHECK_STATUS(wnn_context_unregister_host(ctx, mine + 4096), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_free_host(ctx, mine), WNN_STATUS_INVALID_ARGUMENT); /* registered, not allocated */
    CHECK_STATUS(wnn_context_unregister_host(NULL, mine), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(wnn_context_unregister_host(ctx, NULL), WNN_STATUS_INVALID_ARGUMENT);
    CHECK_OK(wnn_context_unregister_host(ctx, mine));
    CHECK_STATUS(wnn_context_unregister_host(ctx, mine), WNN_STATUS_INVALID_ARGUMENT);

    /* left over: the context's release gives both back (leak checkers see) */
    CHECK_OK(wnn_context_alloc_host(ctx, 5000, &p));
    CHECK_OK(wnn_context_register_host(ctx, mine, n));

    /* a lost context allocates nothing but takes memory back */
    void *q = NULL;
    CHECK_OK(wnn_context_alloc_host(other, 100, &q));
    wnn_context_destroy(other);
    CHECK_STATUS(wnn_context_alloc_host(other, 100, &p), WNN_STATUS_CONTEXT_LOST);
    CHECK_STATUS(wnn_context_register_host(other, mine, n), WNN_STATUS_CONTEXT_LOST);
    CHECK_OK(wnn_context_free_host(other, q));
    wnn_context_release(other);
    wnn_context_release(ctx);
    free(mine);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131 + seed + (i >> 12)) & 0xff);
}

static bool same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)((i * 131 + seed + (i >> 12)) & 0xff))
            return false;
    return true;
}

/* src -> tensor -> dst for each kind of host memory on both sides. */
static void round_trip(wnn_context *ctx, size_t n)
{
    wnn_tensor_desc d = {WNN_DATA_TYPE_UINT8, 1, {(uint32_t)n}, true, true, false};
    wnn_tensor *t = NULL;
    CHECK_OK(wnn_context_create_tensor(ctx, &d, &t));
    unsigned char *plain = malloc(n), *reg = malloc(n + 100) + 100; /* not page aligned */
    void *alloc = NULL;
    CHECK_OK(wnn_context_alloc_host(ctx, n, &alloc));
    CHECK_OK(wnn_context_register_host(ctx, reg, n));
    unsigned char *kinds[3] = {plain, alloc, reg};
    static const char *names[3] = {"pageable", "alloc_host", "register_host"};
    unsigned seed = 1;
    for (int from = 0; from < 3; from++) {
        for (int to = 0; to < 3; to++, seed++) {
            fill(kinds[from], n, seed);
            CHECK_OK(wnn_context_write_tensor(ctx, t, kinds[from], n));
            fill(kinds[from], n, seed + 77); /* the write's bytes were taken already */
            memset(kinds[to], 0, n);
            CHECK_OK(wnn_context_read_tensor_sync(ctx, t, kinds[to], n));
            bool ok = same(kinds[to], n, seed);
            if (!ok)
                fprintf(stderr, "round trip of %zu bytes from %s to %s differs\n", n, names[from], names[to]);
            CHECK(ok);
        }
    }
    CHECK_OK(wnn_context_unregister_host(ctx, reg));
    CHECK_OK(wnn_context_free_host(ctx, alloc));
    free(plain);
    free(reg - 100);
    wnn_tensor_release(t);
    CHECK_OK(wnn_context_finish(ctx));
}

static void test_transfers(void)
{
    /* one chunk; the pinned DMA threshold; several threads; more chunks
    ** than the ring (4 x 8 MiB by default) holds, with an odd tail */
    static const size_t sizes[] = {1000, 300 << 10, (5 << 20) + 3, (40 << 20) + 12345};
    wnn_context *ctx = open_ctx();
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        round_trip(ctx, sizes[i]);
    wnn_context_release(ctx);

    /* a 64 KiB ring and three threads: every transfer wraps it many times */
    setenv("WNN_CUDA_STAGING_KIB", "64", 1);
    setenv("WNN_CUDA_COPY_THREADS", "3", 1);
    wnn__config_reload();
    ctx = open_ctx();
    round_trip(ctx, (3 << 20) + 5);
    round_trip(ctx, 200 << 10);
    wnn_context_release(ctx);
    unsetenv("WNN_CUDA_STAGING_KIB");
    unsetenv("WNN_CUDA_COPY_THREADS");
    wnn__config_reload();
}

int main(void)
{
    test_misuse();
    test_transfers();
    TEST_DONE();
}
