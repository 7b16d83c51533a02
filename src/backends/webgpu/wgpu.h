/* SPDX-License-Identifier: Apache-2.0 */
/*
** wgpu.h -- the part of the standard webgpu.h C API the webgpu backend uses,
** declared for run-time loading: types, the enum values it passes, and a
** table of function pointers filled by dlsym (WG_FUNCTIONS). Nothing here
** links against an implementation.
**
** The ABI is the 2025 webgpu-headers one that Dawn's C API has (WGPUStringView
** labels, a WGPUFuture from every asynchronous call, *CallbackInfo structs by
** value with userdata1/userdata2, WGPUInstanceDescriptor.capabilities,
** bindingArraySize in bind group layout entries). Sizes and offsets are
** checked below against the numbers read from the debug information of the
** pinned build (npm bun-webgpu-linux-x64 0.1.7, libwebgpu_wrapper.so); enum
** values have no debug information and are checked by running
** (tests/test-webgpu-abi.c). One value differs from today's webgpu-headers:
** this build numbers WGPUFeatureName in the older order, shader-f16 is 0xA.
*/
#ifndef WNN_BACKENDS_WEBGPU_WGPU_H
#define WNN_BACKENDS_WEBGPU_WGPU_H

#include <stddef.h>
#include <stdint.h>

#define WGPU_STRLEN SIZE_MAX
#define WGPU_WHOLE_SIZE UINT64_MAX

typedef uint32_t WGPUBool;
typedef uint64_t WGPUFlags;

typedef struct WGPUInstanceImpl *WGPUInstance;
typedef struct WGPUAdapterImpl *WGPUAdapter;
typedef struct WGPUDeviceImpl *WGPUDevice;
typedef struct WGPUQueueImpl *WGPUQueue;
typedef struct WGPUBufferImpl *WGPUBuffer;
typedef struct WGPUShaderModuleImpl *WGPUShaderModule;
typedef struct WGPUComputePipelineImpl *WGPUComputePipeline;
typedef struct WGPUBindGroupLayoutImpl *WGPUBindGroupLayout;
typedef struct WGPUBindGroupImpl *WGPUBindGroup;
typedef struct WGPUPipelineLayoutImpl *WGPUPipelineLayout;
typedef struct WGPUCommandEncoderImpl *WGPUCommandEncoder;
typedef struct WGPUCommandBufferImpl *WGPUCommandBuffer;
typedef struct WGPUComputePassEncoderImpl *WGPUComputePassEncoder;

/* ---- enums: 32-bit, webgpu-headers values ---------------------------------- */

enum {
    WGPUSType_ShaderSourceWGSL = 2,
    WGPUCallbackMode_WaitAnyOnly = 1,
    WGPUCallbackMode_AllowSpontaneous = 3,
    WGPUWaitStatus_Success = 1,
    WGPUWaitStatus_TimedOut = 2,
    WGPURequestAdapterStatus_Success = 1,
    WGPURequestDeviceStatus_Success = 1,
    WGPUMapAsyncStatus_Success = 1,
    WGPUPopErrorScopeStatus_Success = 1,
    WGPUErrorType_NoError = 1,
    WGPUErrorType_Validation = 2,
    WGPUErrorType_OutOfMemory = 3,
    WGPUErrorFilter_Validation = 1,
    WGPUErrorFilter_OutOfMemory = 2,
    WGPUBackendType_Null = 1,
    WGPUBackendType_Vulkan = 6,
    WGPUAdapterType_DiscreteGPU = 1,
    WGPUAdapterType_IntegratedGPU = 2,
    WGPUAdapterType_CPU = 3,
    WGPUPowerPreference_HighPerformance = 2,
    WGPUFeatureName_ShaderF16 = 0x0A, /* the older order: see the top comment */
};

typedef uint32_t WGPUSType;
typedef uint32_t WGPUCallbackMode;
typedef uint32_t WGPUStatus;
typedef uint32_t WGPUWaitStatus;
typedef uint32_t WGPUErrorType;
typedef uint32_t WGPUBackendType;
typedef uint32_t WGPUFeatureName;

#define WGPUBufferUsage_MapRead 0x1ull
#define WGPUBufferUsage_MapWrite 0x2ull
#define WGPUBufferUsage_CopySrc 0x4ull
#define WGPUBufferUsage_CopyDst 0x8ull
#define WGPUBufferUsage_Storage 0x80ull
#define WGPUMapMode_Read 0x1ull
#define WGPUMapMode_Write 0x2ull
#define WGPUShaderStage_Compute 0x4ull

/* ---- structs ------------------------------------------------------------------ */

typedef struct WGPUStringView {
    const char *data;
    size_t length; /* WGPU_STRLEN: NUL-terminated */
} WGPUStringView;
typedef struct WGPUChainedStruct {
    struct WGPUChainedStruct *next;
    WGPUSType sType;
} WGPUChainedStruct;
typedef struct WGPUFuture { uint64_t id; } WGPUFuture;
typedef struct WGPUFutureWaitInfo {
    WGPUFuture future;
    WGPUBool completed;
} WGPUFutureWaitInfo;

typedef struct WGPUInstanceCapabilities {
    WGPUChainedStruct *nextInChain;
    WGPUBool timedWaitAnyEnable;
    size_t timedWaitAnyMaxCount;
} WGPUInstanceCapabilities;
typedef struct WGPUInstanceDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUInstanceCapabilities capabilities;
} WGPUInstanceDescriptor;

typedef struct WGPURequestAdapterOptions {
    WGPUChainedStruct *nextInChain;
    uint32_t featureLevel;
    uint32_t powerPreference;
    WGPUBool forceFallbackAdapter;
    WGPUBackendType backendType;
    void *compatibleSurface;
} WGPURequestAdapterOptions;

typedef void (*WGPURequestAdapterCallback)(uint32_t status, WGPUAdapter adapter, WGPUStringView message,
                                           void *userdata1, void *userdata2);
typedef void (*WGPURequestDeviceCallback)(uint32_t status, WGPUDevice device, WGPUStringView message,
                                          void *userdata1, void *userdata2);
typedef void (*WGPUBufferMapCallback)(uint32_t status, WGPUStringView message, void *userdata1, void *userdata2);
typedef void (*WGPUDeviceLostCallback)(const WGPUDevice *device, uint32_t reason, WGPUStringView message,
                                       void *userdata1, void *userdata2);
typedef void (*WGPUUncapturedErrorCallback)(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message,
                                            void *userdata1, void *userdata2);
typedef void (*WGPUPopErrorScopeCallback)(uint32_t status, WGPUErrorType type, WGPUStringView message,
                                          void *userdata1, void *userdata2);

/* Every asynchronous call takes one of these by value. */
#define WG_CALLBACK_INFO(name, fn)       \
    typedef struct name {                \
        WGPUChainedStruct *nextInChain;  \
        WGPUCallbackMode mode;           \
        fn callback;                     \
        void *userdata1;                 \
        void *userdata2;                 \
    } name
WG_CALLBACK_INFO(WGPURequestAdapterCallbackInfo, WGPURequestAdapterCallback);
WG_CALLBACK_INFO(WGPURequestDeviceCallbackInfo, WGPURequestDeviceCallback);
WG_CALLBACK_INFO(WGPUBufferMapCallbackInfo, WGPUBufferMapCallback);
WG_CALLBACK_INFO(WGPUDeviceLostCallbackInfo, WGPUDeviceLostCallback);
WG_CALLBACK_INFO(WGPUPopErrorScopeCallbackInfo, WGPUPopErrorScopeCallback);
#undef WG_CALLBACK_INFO
typedef struct WGPUUncapturedErrorCallbackInfo {
    WGPUChainedStruct *nextInChain;
    WGPUUncapturedErrorCallback callback;
    void *userdata1;
    void *userdata2;
} WGPUUncapturedErrorCallbackInfo;

typedef struct WGPUAdapterInfo {
    WGPUChainedStruct *nextInChain;
    WGPUStringView vendor, architecture, device, description;
    WGPUBackendType backendType;
    uint32_t adapterType;
    uint32_t vendorID, deviceID, subgroupMinSize, subgroupMaxSize;
} WGPUAdapterInfo;

typedef struct WGPULimits {
    WGPUChainedStruct *nextInChain;
    uint32_t maxTextureDimension1D, maxTextureDimension2D, maxTextureDimension3D, maxTextureArrayLayers;
    uint32_t maxBindGroups, maxBindGroupsPlusVertexBuffers, maxBindingsPerBindGroup;
    uint32_t maxDynamicUniformBuffersPerPipelineLayout, maxDynamicStorageBuffersPerPipelineLayout;
    uint32_t maxSampledTexturesPerShaderStage, maxSamplersPerShaderStage;
    uint32_t maxStorageBuffersPerShaderStage, maxStorageTexturesPerShaderStage;
    uint32_t maxUniformBuffersPerShaderStage;
    uint64_t maxUniformBufferBindingSize, maxStorageBufferBindingSize;
    uint32_t minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment, maxVertexBuffers;
    uint64_t maxBufferSize;
    uint32_t maxVertexAttributes, maxVertexBufferArrayStride, maxInterStageShaderVariables;
    uint32_t maxColorAttachments, maxColorAttachmentBytesPerSample;
    uint32_t maxComputeWorkgroupStorageSize, maxComputeInvocationsPerWorkgroup;
    uint32_t maxComputeWorkgroupSizeX, maxComputeWorkgroupSizeY, maxComputeWorkgroupSizeZ;
    uint32_t maxComputeWorkgroupsPerDimension, maxImmediateSize;
} WGPULimits;

typedef struct WGPUQueueDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUQueueDescriptor;
typedef struct WGPUDeviceDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    size_t requiredFeatureCount;
    const WGPUFeatureName *requiredFeatures;
    const WGPULimits *requiredLimits;
    WGPUQueueDescriptor defaultQueue;
    WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
    WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
} WGPUDeviceDescriptor;

typedef struct WGPUBufferDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUFlags usage;
    uint64_t size;
    WGPUBool mappedAtCreation;
} WGPUBufferDescriptor;

typedef struct WGPUShaderModuleDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
} WGPUShaderModuleDescriptor;
typedef struct WGPUShaderSourceWGSL {
    WGPUChainedStruct chain;
    WGPUStringView code;
} WGPUShaderSourceWGSL;

typedef struct WGPUComputeState {
    WGPUChainedStruct *nextInChain;
    WGPUShaderModule module;
    WGPUStringView entryPoint;
    size_t constantCount;
    const void *constants;
} WGPUComputeState;
typedef struct WGPUComputePipelineDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUPipelineLayout layout; /* NULL: derived from the shader */
    WGPUComputeState compute;
} WGPUComputePipelineDescriptor;

typedef struct WGPUBindGroupEntry {
    WGPUChainedStruct *nextInChain;
    uint32_t binding;
    WGPUBuffer buffer;
    uint64_t offset;
    uint64_t size;
    void *sampler;
    void *textureView;
} WGPUBindGroupEntry;
typedef struct WGPUBindGroupDescriptor {
    WGPUChainedStruct *nextInChain;
    WGPUStringView label;
    WGPUBindGroupLayout layout;
    size_t entryCount;
    const WGPUBindGroupEntry *entries;
} WGPUBindGroupDescriptor;

/* ---- layouts, as the pinned build's debug information gives them -------------- */

#define WG_SIZE(T, n) _Static_assert(sizeof(T) == (n), "webgpu.h ABI: size of " #T)
#define WG_AT(T, m, n) _Static_assert(offsetof(T, m) == (n), "webgpu.h ABI: offset of " #T "." #m)
WG_SIZE(WGPUStringView, 16);
WG_SIZE(WGPUFutureWaitInfo, 16);
WG_SIZE(WGPUInstanceDescriptor, 32);
WG_SIZE(WGPURequestAdapterOptions, 32);
WG_AT(WGPURequestAdapterOptions, backendType, 20);
WG_SIZE(WGPURequestAdapterCallbackInfo, 40);
WG_SIZE(WGPUBufferMapCallbackInfo, 40);
WG_SIZE(WGPUUncapturedErrorCallbackInfo, 32);
WG_SIZE(WGPUAdapterInfo, 96);
WG_AT(WGPUAdapterInfo, backendType, 72);
WG_AT(WGPUAdapterInfo, subgroupMaxSize, 92);
WG_SIZE(WGPULimits, 152);
WG_AT(WGPULimits, maxStorageBufferBindingSize, 72);
WG_AT(WGPULimits, maxBufferSize, 96);
WG_AT(WGPULimits, maxComputeWorkgroupSizeX, 132);
WG_AT(WGPULimits, maxComputeWorkgroupsPerDimension, 144);
WG_SIZE(WGPUDeviceDescriptor, 144);
WG_AT(WGPUDeviceDescriptor, deviceLostCallbackInfo, 72);
WG_AT(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo, 112);
WG_SIZE(WGPUBufferDescriptor, 48);
WG_SIZE(WGPUShaderModuleDescriptor, 24);
WG_SIZE(WGPUShaderSourceWGSL, 32);
WG_SIZE(WGPUComputeState, 48);
WG_SIZE(WGPUComputePipelineDescriptor, 80);
WG_SIZE(WGPUBindGroupEntry, 56);
WG_SIZE(WGPUBindGroupDescriptor, 48);
#undef WG_SIZE
#undef WG_AT

/* ---- functions: X(return type, name, parameters) -------------------------------- */

#define WG_FUNCTIONS(X)                                                                             \
    X(WGPUStatus, wgpuGetInstanceCapabilities, (WGPUInstanceCapabilities *))                        \
    X(WGPUInstance, wgpuCreateInstance, (const WGPUInstanceDescriptor *))                           \
    X(WGPUFuture, wgpuInstanceRequestAdapter,                                                       \
      (WGPUInstance, const WGPURequestAdapterOptions *, WGPURequestAdapterCallbackInfo))            \
    X(WGPUWaitStatus, wgpuInstanceWaitAny, (WGPUInstance, size_t, WGPUFutureWaitInfo *, uint64_t))  \
    X(void, wgpuInstanceProcessEvents, (WGPUInstance))                                              \
    X(void, wgpuInstanceAddRef, (WGPUInstance))                                                     \
    X(void, wgpuInstanceRelease, (WGPUInstance))                                                    \
    X(WGPUStatus, wgpuAdapterGetInfo, (WGPUAdapter, WGPUAdapterInfo *))                             \
    X(void, wgpuAdapterInfoFreeMembers, (WGPUAdapterInfo))                                          \
    X(WGPUStatus, wgpuAdapterGetLimits, (WGPUAdapter, WGPULimits *))                                \
    X(WGPUBool, wgpuAdapterHasFeature, (WGPUAdapter, WGPUFeatureName))                              \
    X(WGPUFuture, wgpuAdapterRequestDevice,                                                         \
      (WGPUAdapter, const WGPUDeviceDescriptor *, WGPURequestDeviceCallbackInfo))                   \
    X(void, wgpuAdapterRelease, (WGPUAdapter))                                                      \
    X(WGPUQueue, wgpuDeviceGetQueue, (WGPUDevice))                                                  \
    X(WGPUStatus, wgpuDeviceGetLimits, (WGPUDevice, WGPULimits *))                                  \
    X(WGPUStatus, wgpuDeviceGetAdapterInfo, (WGPUDevice, WGPUAdapterInfo *))                        \
    X(WGPUBool, wgpuDeviceHasFeature, (WGPUDevice, WGPUFeatureName))                                \
    X(WGPUBuffer, wgpuDeviceCreateBuffer, (WGPUDevice, const WGPUBufferDescriptor *))               \
    X(WGPUShaderModule, wgpuDeviceCreateShaderModule, (WGPUDevice, const WGPUShaderModuleDescriptor *)) \
    X(WGPUComputePipeline, wgpuDeviceCreateComputePipeline,                                         \
      (WGPUDevice, const WGPUComputePipelineDescriptor *))                                          \
    X(WGPUBindGroup, wgpuDeviceCreateBindGroup, (WGPUDevice, const WGPUBindGroupDescriptor *))      \
    X(WGPUCommandEncoder, wgpuDeviceCreateCommandEncoder, (WGPUDevice, const void *))               \
    X(void, wgpuDevicePushErrorScope, (WGPUDevice, uint32_t))                                       \
    X(WGPUFuture, wgpuDevicePopErrorScope, (WGPUDevice, WGPUPopErrorScopeCallbackInfo))             \
    X(void, wgpuDeviceAddRef, (WGPUDevice))                                                         \
    X(void, wgpuDeviceRelease, (WGPUDevice))                                                        \
    X(void, wgpuQueueWriteBuffer, (WGPUQueue, WGPUBuffer, uint64_t, const void *, size_t))          \
    X(void, wgpuQueueSubmit, (WGPUQueue, size_t, const WGPUCommandBuffer *))                        \
    X(void, wgpuQueueRelease, (WGPUQueue))                                                          \
    X(WGPUFuture, wgpuBufferMapAsync, (WGPUBuffer, WGPUFlags, size_t, size_t, WGPUBufferMapCallbackInfo)) \
    X(const void *, wgpuBufferGetConstMappedRange, (WGPUBuffer, size_t, size_t))                    \
    X(void *, wgpuBufferGetMappedRange, (WGPUBuffer, size_t, size_t))                               \
    X(void, wgpuBufferUnmap, (WGPUBuffer))                                                          \
    X(uint64_t, wgpuBufferGetSize, (WGPUBuffer))                                                    \
    X(WGPUFlags, wgpuBufferGetUsage, (WGPUBuffer))                                                  \
    X(void, wgpuBufferAddRef, (WGPUBuffer))                                                         \
    X(void, wgpuBufferDestroy, (WGPUBuffer))                                                        \
    X(void, wgpuBufferRelease, (WGPUBuffer))                                                        \
    X(void, wgpuShaderModuleRelease, (WGPUShaderModule))                                            \
    X(WGPUBindGroupLayout, wgpuComputePipelineGetBindGroupLayout, (WGPUComputePipeline, uint32_t))  \
    X(void, wgpuComputePipelineRelease, (WGPUComputePipeline))                                      \
    X(void, wgpuBindGroupLayoutRelease, (WGPUBindGroupLayout))                                      \
    X(void, wgpuBindGroupRelease, (WGPUBindGroup))                                                  \
    X(WGPUComputePassEncoder, wgpuCommandEncoderBeginComputePass, (WGPUCommandEncoder, const void *)) \
    X(void, wgpuCommandEncoderCopyBufferToBuffer,                                                   \
      (WGPUCommandEncoder, WGPUBuffer, uint64_t, WGPUBuffer, uint64_t, uint64_t))                   \
    X(void, wgpuCommandEncoderClearBuffer, (WGPUCommandEncoder, WGPUBuffer, uint64_t, uint64_t))    \
    X(WGPUCommandBuffer, wgpuCommandEncoderFinish, (WGPUCommandEncoder, const void *))              \
    X(void, wgpuCommandEncoderRelease, (WGPUCommandEncoder))                                        \
    X(void, wgpuCommandBufferRelease, (WGPUCommandBuffer))                                          \
    X(void, wgpuComputePassEncoderSetPipeline, (WGPUComputePassEncoder, WGPUComputePipeline))       \
    X(void, wgpuComputePassEncoderSetBindGroup,                                                     \
      (WGPUComputePassEncoder, uint32_t, WGPUBindGroup, size_t, const uint32_t *))                  \
    X(void, wgpuComputePassEncoderDispatchWorkgroups, (WGPUComputePassEncoder, uint32_t, uint32_t, uint32_t)) \
    X(void, wgpuComputePassEncoderEnd, (WGPUComputePassEncoder))                                    \
    X(void, wgpuComputePassEncoderRelease, (WGPUComputePassEncoder))

/* The loaded library: one pointer per function, named without the prefix. */
typedef struct wg_api {
#define WG_MEMBER(ret, name, params) ret(*name) params;
    WG_FUNCTIONS(WG_MEMBER)
#undef WG_MEMBER
} wg_api;

#endif
