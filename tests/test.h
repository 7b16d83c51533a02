/* SPDX-License-Identifier: Apache-2.0 */
/*
** test.h -- the small assertion kit every test file uses. Each failing check
** prints the file, line, and both values; main() ends with TEST_DONE(), which
** prints "N passed, N failed" and returns the exit status.
*/
#ifndef WNN_TESTS_TEST_H
#define WNN_TESTS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wnn/wnn.h"

/* unused in a test compiled without the device it needs (a build without CUDA) */
static int test_passed __attribute__((unused)), test_failed __attribute__((unused));
static int test_skipped __attribute__((unused));

#define CHECK(cond)                                                                                   \
    do {                                                                                              \
        if (cond) {                                                                                   \
            test_passed++;                                                                            \
        } else {                                                                                      \
            test_failed++;                                                                            \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                  \
        }                                                                                             \
    } while (0)

#define CHECK_EQ_INT(got, want)                                                                       \
    do {                                                                                              \
        long long g_ = (long long)(got), w_ = (long long)(want);                                      \
        if (g_ == w_) {                                                                               \
            test_passed++;                                                                            \
        } else {                                                                                      \
            test_failed++;                                                                            \
            fprintf(stderr, "%s:%d: %s == %lld, want %s == %lld\n", __FILE__, __LINE__, #got, g_,     \
                    #want, w_);                                                                       \
        }                                                                                             \
    } while (0)

/* Status checks print the names of both statuses and the last message. */
#define CHECK_STATUS(got, want)                                                                       \
    do {                                                                                              \
        wnn_status g_ = (got), w_ = (want);                                                           \
        if (g_ == w_) {                                                                               \
            test_passed++;                                                                            \
        } else {                                                                                      \
            test_failed++;                                                                            \
            fprintf(stderr, "%s:%d: %s gave %s, want %s (%s)\n", __FILE__, __LINE__, #got,            \
                    wnn_status_string(g_), wnn_status_string(w_), wnn_last_error_message());          \
        }                                                                                             \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, WNN_OK)

#define CHECK_NEAR(got, want, tol)                                                                    \
    do {                                                                                              \
        double g_ = (double)(got), w_ = (double)(want);                                               \
        if (g_ - w_ <= (tol) && w_ - g_ <= (tol)) {                                                   \
            test_passed++;                                                                            \
        } else {                                                                                      \
            test_failed++;                                                                            \
            fprintf(stderr, "%s:%d: %s == %.9g, want %.9g (tolerance %g)\n", __FILE__, __LINE__, #got, \
                    g_, w_, (double)(tol));                                                           \
        }                                                                                             \
    } while (0)

/* The device a test runs on: $WNN_TEST_DEVICE, default "cpu". CTest runs
** every unit test once per device (the -null copies). */
static inline const char *test_device(void)
{
    const char *d = getenv("WNN_TEST_DEVICE");
    return d && d[0] ? d : "cpu";
}

/* A case the device under test does not offer: its opSupportLimits leave
** the data type out, so the builder says WNN_STATUS_UNSUPPORTED_DATA_TYPE
** (the webgpu device's 64-bit integers outside a few operators). On cpu and
** null, which offer every type, that is a failure and this returns false;
** on other devices it counts a skip and prints why. */
static inline bool test_skip_unsupported(wnn_status s, const char *why, const char *file, int line)
{
    const char *d = test_device();
    if (s != WNN_STATUS_UNSUPPORTED_DATA_TYPE || strcmp(d, "cpu") == 0 || strcmp(d, "null") == 0)
        return false;
    test_skipped++;
    fprintf(stderr, "%s:%d: skipped on %s, which does not offer it: %s\n", file, line, d, why);
    return true;
}
#define SKIP_UNSUPPORTED(s, why) test_skip_unsupported((s), (why), __FILE__, __LINE__)

#define TEST_DONE()                                                                                   \
    do {                                                                                              \
        if (test_skipped)                                                                             \
            printf("%d passed, %d failed, %d skipped\n", test_passed, test_failed, test_skipped);      \
        else                                                                                          \
            printf("%d passed, %d failed\n", test_passed, test_failed);                               \
        return test_failed ? 1 : 0;                                                                   \
    } while (0)

#endif
