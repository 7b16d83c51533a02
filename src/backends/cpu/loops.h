/* SPDX-License-Identifier: Apache-2.0 */
/*
** loops.h -- how the cpu's element-wise loops are written so that the
** compiler vectorizes them (k_elementwise.c, k_math.c).
*/
#ifndef WNN_BACKENDS_CPU_LOOPS_H
#define WNN_BACKENDS_CPU_LOOPS_H

#include <stddef.h>

/* The cpu's element-wise maps and rows are plain C loops that the compiler
** vectorizes.
** Built for baseline x86-64 they move 16 bytes an instruction, and a single
** relu of 2^20 floats took twice PyTorch's time on one Zen 4 core; each is
** also compiled for x86-64-v3 (AVX2, FMA, F16C), picked once by the loader
** (GNU ifunc). Floating-point contraction stays off (-std=c11), so both
** versions compute the same bits. */
/* Not under a sanitizer (its runtime is not up while the loader runs the
** resolvers; CMake defines WNN_NO_TARGET_CLONES there too). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define WNN_NO_TARGET_CLONES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define WNN_NO_TARGET_CLONES 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(WNN_NO_TARGET_CLONES)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* o[i] = EXPR for i < n, in blocks of 16 so that GCC's -O2 vectorizer
** (the very-cheap cost model: no epilogue loops) takes them. o may be the
** input itself (a node computed in place) but never overlaps it otherwise:
** ivdep lets the compiler vectorize without a run-time overlap check (each
** vector is read before the same elements are written, so the in-place
** case stays right). An earlier form staged each block in a local array,
** which GCC 12 copied out through scalar registers. */
#if defined(__GNUC__) && !defined(__clang__)
#define IVDEP _Pragma("GCC ivdep")
#elif defined(__clang__)
#define IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define IVDEP
#endif
#define BLOCK 16
#define BLOCKED_LOOP(T, o, n, EXPR)                                            \
    do {                                                                       \
        size_t i_ = 0;                                                         \
        for (; i_ + BLOCK <= (n); i_ += BLOCK) {                               \
            IVDEP for (size_t k_ = 0; k_ < BLOCK; k_++) {                      \
                size_t i = i_ + k_;                                            \
                (o)[i] = (EXPR);                                               \
            }                                                                  \
        }                                                                      \
        for (size_t i = i_; i < (n); i++)                                      \
            (o)[i] = (EXPR);                                                   \
    } while (0)

/* for (k = 0; k < m; k++) the body (the rest of the arguments), in the same
** blocks of 16 under ivdep: the body may write any element k it reads, and
** no other. */
#define FOR_BLOCKED(k, m, ...)                                                 \
    do {                                                                       \
        size_t k0_ = 0;                                                        \
        for (; k0_ + BLOCK <= (m); k0_ += BLOCK)                               \
            IVDEP for (size_t k = k0_; k < k0_ + BLOCK; k++)                   \
                __VA_ARGS__;                                                   \
        for (size_t k = k0_; k < (m); k++)                                     \
            __VA_ARGS__;                                                       \
    } while (0)

#endif
