/* SPDX-License-Identifier: Apache-2.0 */
/*
** config.c -- reads the WNN_* environment switches once (config.h).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/config.h"

static wnn__config config;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *text(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

/* A decimal count in [0, max]; a value that does not parse keeps fallback
** and says so once. */
static uint32_t count(const char *name, uint32_t max, uint32_t fallback)
{
    const char *v = text(name);
    if (!v)
        return fallback;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (*end != '\0' || v[0] == '-' || n > max) {
        fprintf(stderr, "wnn: %s=%s is not a number from 0 to %u; ignored\n", name, v, max);
        return fallback;
    }
    return (uint32_t)n;
}

/* "0" turns a default-on switch off. */
static bool on_unless_zero(const char *name)
{
    const char *v = text(name);
    return !(v && strcmp(v, "0") == 0);
}

static void read_all(void)
{
    config.num_threads = count("WNN_NUM_THREADS", 4096, 0);
    config.cpu_dnnl = on_unless_zero("WNN_CPU_DNNL");
    config.cpu_nhwc = on_unless_zero("WNN_CPU_NHWC");
    config.cpu_avx512 = on_unless_zero("WNN_CPU_AVX512");
    const char *xnn = text("WNN_CPU_XNNPACK");
    config.cpu_xnnpack = !xnn ? -1 : strcmp(xnn, "0") == 0 ? 0 : strcmp(xnn, "1") == 0 ? 1 : -1;
    if (xnn && config.cpu_xnnpack < 0)
        fprintf(stderr, "wnn: WNN_CPU_XNNPACK=%s is not 0 or 1; ignored\n", xnn);
    config.cpu_xnnpack_piece = count("WNN_CPU_XNNPACK_PIECE_MACS", 1u << 30, 65536);
    const char *omp = text("WNN_CPU_OPENMP");
    config.cpu_openmp = !omp ? -1 : strcmp(omp, "0") == 0 ? 0 : strcmp(omp, "1") == 0 ? 1 : -1;
    if (omp && config.cpu_openmp < 0)
        fprintf(stderr, "wnn: WNN_CPU_OPENMP=%s is not 0 or 1; ignored\n", omp);
    config.cpu_spin_us = count("WNN_CPU_SPIN_US", 100000, 50);
    config.cpu_profile = text("WNN_CPU_PROFILE") != NULL;
    config.cpu_fuse = on_unless_zero("WNN_CPU_FUSE");
    config.cpu_sleef = on_unless_zero("WNN_CPU_SLEEF");
    config.cpu_pad_b = on_unless_zero("WNN_CPU_PAD_B");
    const char *conv = text("WNN_CPU_CONV");
    config.cpu_conv = !conv                        ? WNN__CONV_AUTO
                      : strcmp(conv, "gemm") == 0   ? WNN__CONV_GEMM
                      : strcmp(conv, "direct") == 0 ? WNN__CONV_DIRECT
                                                    : WNN__CONV_AUTO;
    if (conv && config.cpu_conv == WNN__CONV_AUTO)
        fprintf(stderr, "wnn: WNN_CPU_CONV=%s is not gemm or direct; ignored\n", conv);
    config.attention = on_unless_zero("WNN_ATTENTION");
    config.cuda_graphs = on_unless_zero("WNN_CUDA_GRAPHS");
    config.cuda_fusion = on_unless_zero("WNN_CUDA_FUSION");
    config.cuda_direct_conv = text("WNN_CUDA_DIRECT_CONV") != NULL;
    config.cuda_cudnn = on_unless_zero("WNN_CUDA_CUDNN");
    config.cuda_cudnn_graph = on_unless_zero("WNN_CUDA_CUDNN_GRAPH");
    config.cuda_cudnn_verbose = text("WNN_CUDA_CUDNN_VERBOSE") != NULL;
    config.cuda_staging_kib = count("WNN_CUDA_STAGING_KIB", 262144, 8192);
    if (config.cuda_staging_kib < 64) {
        fprintf(stderr, "wnn: WNN_CUDA_STAGING_KIB=%u is below 64; 64 used\n", config.cuda_staging_kib);
        config.cuda_staging_kib = 64;
    }
    config.cuda_copy_threads = count("WNN_CUDA_COPY_THREADS", 4096, 0);
    config.null_copy_delay_us = count("WNN_NULL_COPY_DELAY_US", 10000000, 0);
    config.cuda_module = text("WNN_CUDA_MODULE");
    config.webgpu_module = text("WNN_WEBGPU_MODULE");
    config.webgpu_library = text("WNN_WEBGPU_LIBRARY");
    config.webgpu_debug = text("WNN_WEBGPU_DEBUG") != NULL;
    config.webgpu_split_kib = count("WNN_WEBGPU_SPLIT_KIB", 1u << 22, 0);
    config.webgpu_vec4 = on_unless_zero("WNN_WEBGPU_VEC4");
    config.webgpu_f16 = on_unless_zero("WNN_WEBGPU_F16");
    config.webgpu_copy_threads = count("WNN_WEBGPU_COPY_THREADS", 4096, 0);
    config.webgpu_staging_kib = count("WNN_WEBGPU_STAGING_KIB", 262144, 8192);
    if (config.webgpu_staging_kib < 64) {
        fprintf(stderr, "wnn: WNN_WEBGPU_STAGING_KIB=%u is below 64; 64 used\n", config.webgpu_staging_kib);
        config.webgpu_staging_kib = 64;
    }
    const char *down = text("WNN_WEBGPU_READ");
    config.webgpu_read_whole = down && strcmp(down, "whole") == 0;
    if (down && !config.webgpu_read_whole && strcmp(down, "chunks") != 0)
        fprintf(stderr, "wnn: WNN_WEBGPU_READ=%s is not chunks or whole; ignored\n", down);
    const char *up = text("WNN_WEBGPU_UPLOAD");
    config.webgpu_upload_pieces = up && strcmp(up, "pieces") == 0;
    if (up && !config.webgpu_upload_pieces && strcmp(up, "staged") != 0)
        fprintf(stderr, "wnn: WNN_WEBGPU_UPLOAD=%s is not staged or pieces; ignored\n", up);
}

const wnn__config *wnn__config_get(void)
{
    pthread_once(&once, read_all);
    return &config;
}

void wnn__config_reload(void)
{
    wnn__config_get(); /* the once flag is spent before the values change */
    read_all();
}
