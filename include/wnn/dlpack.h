/* SPDX-License-Identifier: Apache-2.0 */
/*
** dlpack.h -- the DLPack 1.x C ABI, as wnn declares it.
**
** DLPack is the common in-memory tensor structure that frameworks (NumPy,
** PyTorch, CuPy, JAX, TVM ...) use to lend tensors to each other without
** copies. wnn declares the ABI itself because the dlpack.h most
** distributions ship (Debian's libdlpack-dev is 0.6) predates the versioned
** managed tensor. The names and values below are DLPack's, so code written
** against the upstream header compiles against this one unchanged.
**
** Coexistence with the upstream header. Both headers use the include guard
** DLPACK_DLPACK_H_:
**   - upstream dlpack.h included first: this file declares nothing of its
**     own and checks the upstream declarations (they must be 1.x);
**   - this file included first: a later upstream include becomes a no-op,
**     and the declarations here (the same ABI) serve both.
** Either order compiles; mixing in a pre-1.0 upstream header is an error.
**
** What wnn implements of it: see wnn.h (wnn_tensor_export_dlpack,
** wnn_context_import_dlpack) and docs/dlpack.md.
*/
#ifndef WNN_DLPACK_H
#define WNN_DLPACK_H

#include <stddef.h>
#include <stdint.h>

/* The DLPack version whose tensor ABI this file declares and that wnn writes
** into the managed tensors it exports. */
#define WNN_DLPACK_VERSION_MAJOR 1
#define WNN_DLPACK_VERSION_MINOR 3

#ifdef DLPACK_DLPACK_H_

#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION != 1
#error "wnn/dlpack.h: the dlpack.h included before it is not DLPack 1.x (no DLManagedTensorVersioned)"
#endif

#else /* declare the ABI */

#define DLPACK_DLPACK_H_

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 3

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif

#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A version: the major number changes with the layout of
** DLManagedTensorVersioned, the minor number when enum values are added. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* Where the memory lives. A C enum (four bytes with every C compiler wnn
** supports); in C++ its underlying type is int32_t, as upstream has it. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,          /* host memory; device_id 0 */
    kDLCUDA = 2,         /* CUDA device memory; device_id is the CUDA ordinal */
    kDLCUDAHost = 3,     /* page-locked host memory from cudaMallocHost */
    kDLOpenCL = 4,       /* data is a cl_mem handle */
    kDLVulkan = 7,       /* Vulkan buffer */
    kDLMetal = 8,        /* Metal buffer */
    kDLVPI = 9,          /* Verilog simulator buffer */
    kDLROCM = 10,        /* AMD GPU memory */
    kDLROCMHost = 11,    /* page-locked host memory from hipMallocHost */
    kDLExtDev = 12,      /* reserved for extensions; meaning defined by the producer */
    kDLCUDAManaged = 13, /* cudaMallocManaged memory */
    kDLOneAPI = 14,      /* SYCL unified shared memory */
    kDLWebGPU = 15,      /* WebGPU buffer */
    kDLHexagon = 16,     /* Qualcomm Hexagon DSP */
    kDLMAIA = 17,        /* Microsoft MAIA */
    kDLTrn = 18          /* AWS Trainium */
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id;
} DLDevice;

/* The kind of number an element holds; stored in DLDataType.code. */
#ifdef __cplusplus
typedef enum : uint8_t {
#else
typedef enum {
#endif
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,          /* interleaved real, imaginary */
    kDLBool = 6,             /* one byte per element */
    kDLFloat8_e3m4 = 7,
    kDLFloat8_e4m3 = 8,
    kDLFloat8_e4m3b11fnuz = 9,
    kDLFloat8_e4m3fn = 10,
    kDLFloat8_e4m3fnuz = 11,
    kDLFloat8_e5m2 = 12,
    kDLFloat8_e5m2fnuz = 13,
    kDLFloat8_e8m0fnu = 14,
    kDLFloat6_e2m3fn = 15,
    kDLFloat6_e3m2fn = 16,
    kDLFloat4_e2m1fn = 17
} DLDataTypeCode;

/* An element type: code (a DLDataTypeCode), bits per lane, lanes per element
** (1 for scalars). float32 is {kDLFloat, 32, 1}. */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A strided view of memory. The first element is at (char *)data +
** byte_offset; element (i0, i1, ...) is sum(ik * strides[k]) elements after
** it. shape and strides have ndim entries; strides may be NULL only for
** ndim == 0 (producers older than DLPack 1.2 also used NULL for compact
** row-major). */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 managed tensor: no version, no flags. The consumer calls
** deleter(self) once when done (deleter may be NULL). */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)   /* the consumer must not write */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)   /* a private copy: the consumer owns it alone */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL) /* sub-byte elements one per byte */

/* The 1.x managed tensor. Everything up to and including flags is frozen
** across major versions: a consumer that does not know version.major may
** still call deleter, and must touch nothing else. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

/* DLPack 1.3's C exchange API: a producer's static table of C functions, found
** by Python consumers as the type attribute __dlpack_c_exchange_api__, a
** PyCapsule named "dlpack_exchange_api" holding a DLPackExchangeAPI *. Python
** objects are passed as void *. Every function returns 0, or -1 with a Python
** exception set (the allocator: after calling SetError once). */
typedef int (*DLPackManagedTensorAllocator)(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                                            void (*SetError)(void *error_ctx, const char *kind,
                                                             const char *message));
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void *py_object, DLManagedTensorVersioned **out);
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned *tensor, void **out_py_object);
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void *py_object, DLTensor *out);
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id, void **out_current_stream);

typedef struct DLPackExchangeAPIHeader {
    DLPackVersion version;                   /* the producer's DLPack version */
    struct DLPackExchangeAPIHeader *prev_api; /* an older table, or NULL */
} DLPackExchangeAPIHeader;

typedef struct DLPackExchangeAPI {
    DLPackExchangeAPIHeader header;
    DLPackManagedTensorAllocator managed_tensor_allocator;
    DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
    DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
    DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync; /* may be NULL */
    DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
}
#endif

#endif /* declare the ABI */

/* 1.0 and 1.1 upstream headers lack these; the values are DLPack's. */
#ifndef DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)
#endif

/* The layout on 64-bit targets (x86-64, aarch64; LP64 and LLP64 agree since
** no field is a C long). These hold for upstream declarations too. */
#if defined(__cplusplus)
#define WNN__DLPACK_ASSERT(c, m) static_assert(c, m)
#else
#define WNN__DLPACK_ASSERT(c, m) _Static_assert(c, m)
#endif
#if UINTPTR_MAX == UINT64_MAX
WNN__DLPACK_ASSERT(sizeof(DLPackVersion) == 8, "DLPackVersion is 8 bytes");
WNN__DLPACK_ASSERT(offsetof(DLPackVersion, minor) == 4, "DLPackVersion.minor at 4");
WNN__DLPACK_ASSERT(sizeof(DLDeviceType) == 4, "DLDeviceType is 4 bytes");
WNN__DLPACK_ASSERT(sizeof(DLDevice) == 8, "DLDevice is 8 bytes");
WNN__DLPACK_ASSERT(offsetof(DLDevice, device_id) == 4, "DLDevice.device_id at 4");
WNN__DLPACK_ASSERT(sizeof(DLDataType) == 4, "DLDataType is 4 bytes");
WNN__DLPACK_ASSERT(offsetof(DLDataType, bits) == 1, "DLDataType.bits at 1");
WNN__DLPACK_ASSERT(offsetof(DLDataType, lanes) == 2, "DLDataType.lanes at 2");
WNN__DLPACK_ASSERT(sizeof(DLTensor) == 48, "DLTensor is 48 bytes");
WNN__DLPACK_ASSERT(offsetof(DLTensor, data) == 0, "DLTensor.data at 0");
WNN__DLPACK_ASSERT(offsetof(DLTensor, device) == 8, "DLTensor.device at 8");
WNN__DLPACK_ASSERT(offsetof(DLTensor, ndim) == 16, "DLTensor.ndim at 16");
WNN__DLPACK_ASSERT(offsetof(DLTensor, dtype) == 20, "DLTensor.dtype at 20");
WNN__DLPACK_ASSERT(offsetof(DLTensor, shape) == 24, "DLTensor.shape at 24");
WNN__DLPACK_ASSERT(offsetof(DLTensor, strides) == 32, "DLTensor.strides at 32");
WNN__DLPACK_ASSERT(offsetof(DLTensor, byte_offset) == 40, "DLTensor.byte_offset at 40");
WNN__DLPACK_ASSERT(sizeof(struct DLManagedTensor) == 64, "DLManagedTensor is 64 bytes");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensor, manager_ctx) == 48, "DLManagedTensor.manager_ctx at 48");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensor, deleter) == 56, "DLManagedTensor.deleter at 56");
WNN__DLPACK_ASSERT(sizeof(struct DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned is 80 bytes");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensorVersioned, manager_ctx) == 8,
                   "DLManagedTensorVersioned.manager_ctx at 8");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensorVersioned, deleter) == 16,
                   "DLManagedTensorVersioned.deleter at 16");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensorVersioned, flags) == 24, "DLManagedTensorVersioned.flags at 24");
WNN__DLPACK_ASSERT(offsetof(struct DLManagedTensorVersioned, dl_tensor) == 32,
                   "DLManagedTensorVersioned.dl_tensor at 32");
#if DLPACK_MAJOR_VERSION > 1 || DLPACK_MINOR_VERSION >= 3
WNN__DLPACK_ASSERT(sizeof(DLPackExchangeAPIHeader) == 16, "DLPackExchangeAPIHeader is 16 bytes");
WNN__DLPACK_ASSERT(sizeof(DLPackExchangeAPI) == 56, "DLPackExchangeAPI is 56 bytes");
WNN__DLPACK_ASSERT(offsetof(DLPackExchangeAPI, managed_tensor_allocator) == 16, "allocator at 16");
WNN__DLPACK_ASSERT(offsetof(DLPackExchangeAPI, current_work_stream) == 48, "current_work_stream at 48");
#endif
#endif

#endif /* WNN_DLPACK_H */
