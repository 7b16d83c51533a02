/* SPDX-License-Identifier: Apache-2.0 */
/*
** config.h -- the WNN_* environment switches, read once.
**
** Every variable wnn reads from the environment is read here, the first
** time any part of wnn asks, and kept for the life of the process: nothing
** calls getenv in a kernel, per dispatch or per compile. docs/api.md lists
** them. A value that does not parse is ignored with one warning on stderr.
*/
#ifndef WNN_PLATFORM_CONFIG_H
#define WNN_PLATFORM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

typedef enum wnn__conv_path {
    WNN__CONV_AUTO,   /* the cpu picks per convolution */
    WNN__CONV_GEMM,   /* WNN_CPU_CONV=gemm */
    WNN__CONV_DIRECT  /* WNN_CPU_CONV=direct */
} wnn__conv_path;

typedef struct wnn__config {
    uint32_t num_threads;        /* WNN_NUM_THREADS; 0: one per core online */
    bool cpu_dnnl;               /* WNN_CPU_DNNL=0 turns oneDNN off */
    bool cpu_avx512;             /* WNN_CPU_AVX512=0: wnn's own cpu kernels keep to AVX2 where the processor has AVX-512 */
    bool cpu_nhwc;               /* WNN_CPU_NHWC=0 turns the layout step off (backends/cpu/layout.c) */
    int cpu_xnnpack;             /* WNN_CPU_XNNPACK: 0 off, 1 every convolution it takes, -1 (unset) by thread count */
    uint32_t cpu_xnnpack_piece;  /* WNN_CPU_XNNPACK_PIECE_MACS: the fewest multiply-adds an XNNPACK piece (tests) */
    int cpu_openmp;              /* WNN_CPU_OPENMP: 1 libgomp's team, 0 wnn's own threads, -1 (unset) by thread count */
    uint32_t cpu_spin_us;        /* WNN_CPU_SPIN_US: how long a hand-off to the OpenMP master polls before sleeping (0 .. 100000; 50) */
    bool cpu_profile;            /* WNN_CPU_PROFILE set: time per operator, printed at exit */
    bool cpu_sleef;              /* WNN_CPU_SLEEF=0: sin, cos, tan, sqrt, reciprocal, softplus without vector rows (backends/cpu/vec_libm.h) */
    bool cpu_fuse;               /* WNN_CPU_FUSE=0 keeps element-wise chains apart (backends/cpu/ew_chain.h) */
    bool cpu_pad_b;              /* WNN_CPU_PAD_B=0: no padded copies of constant matmul B operands (backends/cpu/kernels.h) */
    wnn__conv_path cpu_conv;     /* WNN_CPU_CONV: gemm or direct */
    bool cuda_graphs;            /* WNN_CUDA_GRAPHS=0 turns CUDA-graph replay off */
    bool cuda_fusion;            /* WNN_CUDA_FUSION=0 turns element-wise fusion off */
    bool cuda_direct_conv;       /* WNN_CUDA_DIRECT_CONV set: direct convolution kernels */
    bool cuda_cudnn;             /* WNN_CUDA_CUDNN=0 turns cuDNN convolutions off */
    bool cuda_cudnn_graph;       /* WNN_CUDA_CUDNN_GRAPH=0: cuDNN's legacy convolution API alone */
    bool cuda_cudnn_verbose;     /* WNN_CUDA_CUDNN_VERBOSE set: each convolution's choice on stderr */
    uint32_t cuda_staging_kib;   /* WNN_CUDA_STAGING_KIB: pinned staging chunk (64 .. 262144; 8192) */
    uint32_t cuda_copy_threads;  /* WNN_CUDA_COPY_THREADS: threads of a staged copy; 0: the pool's */
    uint32_t null_copy_delay_us; /* WNN_NULL_COPY_DELAY_US: the null device's copy latency */
    const char *cuda_module;     /* WNN_CUDA_MODULE: path of libwnn_cuda.so, or NULL */
    const char *webgpu_module;   /* WNN_WEBGPU_MODULE: path of libwnn_webgpu.so, or NULL */
    const char *webgpu_library;  /* WNN_WEBGPU_LIBRARY: a webgpu.h implementation, or NULL */
    bool webgpu_debug;           /* WNN_WEBGPU_DEBUG set: the webgpu device explains refusals on stderr */
    uint32_t webgpu_split_kib;   /* WNN_WEBGPU_SPLIT_KIB: split dispatches over this binding size (tests) */
    bool webgpu_vec4;            /* WNN_WEBGPU_VEC4=0: element-wise kernels one word an invocation */
    bool webgpu_f16;             /* WNN_WEBGPU_F16=0: shader-f16 left unused where the device has it */
    bool webgpu_upload_pieces;   /* WNN_WEBGPU_UPLOAD=pieces: large writes as wgpuQueueWriteBuffer pieces */
    bool webgpu_read_whole;      /* WNN_WEBGPU_READ=whole: large reads through one readback buffer, not in chunks */
    uint32_t webgpu_staging_kib;  /* WNN_WEBGPU_STAGING_KIB: each of the four MapWrite staging buffers (64 .. 262144; 8192) */
    uint32_t webgpu_copy_threads; /* WNN_WEBGPU_COPY_THREADS: threads copying into/out of mapped staging; 0: the pool's */
    bool attention;              /* WNN_ATTENTION=0 keeps attention chains unfused (backends/attention.c) */
} wnn__config;

/* The switches, read at the first call. Thread-safe. */
const wnn__config *wnn__config_get(void);

/* Reads the environment again: for tests that change a switch with setenv()
** between contexts, never while another thread uses wnn. */
void wnn__config_reload(void);

#endif
