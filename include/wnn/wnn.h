/* SPDX-License-Identifier: Apache-2.0 */
/*
** wnn.h -- the public C API of wnn, a native implementation of the W3C WebNN API.
**
** This header is the contract. Every published type, constant and function is
** declared here with what it does, what it returns on failure, who owns what,
** and whether it may be called from several threads. What is not here is not API.
**
** Objects (all opaque, all created and released through this API):
**
**   wnn_context        bound to one device; owns one ordered timeline of work.
**   wnn_tensor         WebNN's MLTensor: typed device-resident storage.
**   wnn_graph_builder  WebNN's MLGraphBuilder: records operators, builds once.
**   wnn_operand        a node of a graph under construction; owned by its builder.
**   wnn_graph          WebNN's MLGraph: compiled for the context's device, immutable.
**
** Destroy versus release. WebNN's destroy() makes an object unusable but the
** script keeps holding it. wnn mirrors that: wnn_X_destroy() applies WebNN's
** destroy semantics and the handle stays valid, so later calls on it fail
** cleanly with WNN_STATUS_DESTROYED (or WNN_STATUS_CONTEXT_LOST); wnn_X_release()
** gives the handle back and frees it (destroying the object first if needed).
** Every handle a wnn_*_create* function returns must be released exactly once.
** Releasing or destroying NULL is a no-op.
**
** Errors. Every fallible function returns a wnn_status; WNN_OK (0) is success.
** Statuses are grouped by WebNN's error classes (see wnn_status_class()). The
** calling thread's last error message (wnn_last_error_message()) names the
** function, the argument and the rule that failed. Builder operators return
** NULL on invalid input and the builder keeps the first error.
**
** Threads. Contexts, tensors and graphs may be used from several threads at
** once. A graph builder belongs to one thread at a time. Callbacks run on a wnn
** worker thread and must not block it for long; they may call wnn functions
** except the blocking ones (wnn_context_finish, wnn_context_read_tensor_sync)
** on their own context.
**
** Asynchronous calls follow libuv's rule: if the call returns an error its
** callback never runs; if it returns WNN_OK its callback runs exactly once.
*/
#ifndef WNN_WNN_H
#define WNN_WNN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(WNN_SHARED_BUILD)
#define WNN_API __declspec(dllexport)
#elif defined(__GNUC__)
#define WNN_API __attribute__((visibility("default")))
#else
#define WNN_API
#endif

#define WNN_VERSION_MAJOR 0
#define WNN_VERSION_MINOR 1
#define WNN_VERSION_PATCH 0
#define WNN_VERSION_STRING "0.1.0"

/* The largest tensor rank wnn accepts (Chromium's limit; WebNN leaves it to
** the implementation). */
#define WNN_MAX_RANK 8

/* The largest valid dimension and element count: 2^31 - 1 (WebNN "check
** dimensions"). */
#define WNN_MAX_DIMENSION 2147483647u

/* Returns the library version as "MAJOR.MINOR.PATCH". Never fails. */
WNN_API const char *wnn_version(void);

/* ------------------------------------------------------------------------ */
/* Statuses                                                                 */
/* ------------------------------------------------------------------------ */

/*
** A status is an error class (a multiple of 100, WebNN's DOMException name or
** TypeError) plus a detail. wnn_status_class() strips the detail.
*/
typedef enum wnn_status {
    WNN_OK = 0,

    /* TypeError: the caller passed something the rules forbid. */
    WNN_STATUS_TYPE_ERROR = 100,          /* generic type error */
    WNN_STATUS_INVALID_ARGUMENT = 101,    /* NULL where required, bad option */
    WNN_STATUS_INVALID_DIMENSION = 102,   /* a dimension is 0 or > 2^31-1 */
    WNN_STATUS_INVALID_RANK = 103,        /* rank over WNN_MAX_RANK or the op's range */
    WNN_STATUS_TOO_MANY_ELEMENTS = 104,   /* element count > 2^31-1 */
    WNN_STATUS_TENSOR_TOO_LARGE = 105,    /* byte length > device maxTensorByteLength */
    WNN_STATUS_UNSUPPORTED_DATA_TYPE = 106, /* data type not allowed here */
    WNN_STATUS_WRONG_CONTEXT = 107,       /* object of another context or builder */
    WNN_STATUS_NOT_READABLE = 108,        /* read of a tensor made without readable */
    WNN_STATUS_NOT_WRITABLE = 109,        /* write of a tensor made without writable */
    WNN_STATUS_BYTE_LENGTH_MISMATCH = 110, /* buffer size differs from the tensor's */
    WNN_STATUS_CONSTANT_TENSOR = 111,     /* constant tensor bound as a dispatch tensor */
    WNN_STATUS_NAME_MISMATCH = 112,       /* dispatch/build names: missing, extra, empty */
    WNN_STATUS_DESCRIPTOR_MISMATCH = 113, /* dispatch tensor type/shape differs */
    WNN_STATUS_DUPLICATE_TENSOR = 114,    /* one tensor bound twice where forbidden */
    WNN_STATUS_DESTROYED_OBJECT = 115,    /* destroyed tensor, under WNN_POLICY_SPEC */
    WNN_STATUS_SHAPE_MISMATCH = 116,      /* operator shapes incompatible (broadcast, ...) */

    /* InvalidStateError: the object is in a state that forbids the call. */
    WNN_STATUS_INVALID_STATE = 200,
    WNN_STATUS_DESTROYED = 201,           /* tensor or graph was destroyed */
    WNN_STATUS_CONTEXT_LOST = 202,        /* its context was destroyed or lost */
    WNN_STATUS_ALREADY_BUILT = 203,       /* the builder has built once already */

    /* NotSupportedError */
    WNN_STATUS_NOT_SUPPORTED = 300,
    WNN_STATUS_NO_SUCH_DEVICE = 301,      /* no usable device with that name */
    WNN_STATUS_UNSUPPORTED_DEVICE = 302,  /* DLPack: memory of a device this one cannot reach */
    WNN_STATUS_COPY_FORBIDDEN = 303,      /* DLPack: a copy is needed and the caller forbade it */
    WNN_STATUS_UNSUPPORTED_VERSION = 304, /* DLPack: a managed tensor of another major version */

    /* OperationError: the device failed to do what was asked. */
    WNN_STATUS_OPERATION_ERROR = 400,

    /* Out of memory (host or device). */
    WNN_STATUS_OUT_OF_MEMORY = 500,

    /* UnknownError */
    WNN_STATUS_UNKNOWN = 600
} wnn_status;

/* Returns the error class of s: WNN_OK, WNN_STATUS_TYPE_ERROR,
** WNN_STATUS_INVALID_STATE, WNN_STATUS_NOT_SUPPORTED, WNN_STATUS_OPERATION_ERROR,
** WNN_STATUS_OUT_OF_MEMORY or WNN_STATUS_UNKNOWN. */
WNN_API wnn_status wnn_status_class(wnn_status s);

/* Returns a static name for s, e.g. "WNN_STATUS_DESTROYED"; "unknown status"
** for values wnn does not define. Never NULL. */
WNN_API const char *wnn_status_string(wnn_status s);

/* Returns the message of the last failure on the calling thread, e.g.
** "wnn_context_create_tensor: shape[1] is 0, dimensions must be > 0". The text
** stays valid until the thread's next failing wnn call. "" if none. */
WNN_API const char *wnn_last_error_message(void);

/* ------------------------------------------------------------------------ */
/* Data types and descriptors                                                */
/* ------------------------------------------------------------------------ */

/* WebNN's MLOperandDataType. INT4 and UINT4 (two elements per byte, the
** element 2k in bits 0-3) are a Chromium extension used by quantizeLinear and
** dequantizeLinear; they are only accepted where opSupportLimits lists them. */
typedef enum wnn_data_type {
    WNN_DATA_TYPE_INVALID = 0,
    WNN_DATA_TYPE_FLOAT32 = 1,
    WNN_DATA_TYPE_FLOAT16 = 2,
    WNN_DATA_TYPE_INT32 = 3,
    WNN_DATA_TYPE_UINT32 = 4,
    WNN_DATA_TYPE_INT64 = 5,
    WNN_DATA_TYPE_UINT64 = 6,
    WNN_DATA_TYPE_INT8 = 7,
    WNN_DATA_TYPE_UINT8 = 8,
    WNN_DATA_TYPE_INT4 = 9,
    WNN_DATA_TYPE_UINT4 = 10
} wnn_data_type;

/* WebNN's name of a data type ("float32", ...), or NULL for an invalid value. */
WNN_API const char *wnn_data_type_name(wnn_data_type t);

/* Parses a WebNN data type name. Returns WNN_DATA_TYPE_INVALID if unknown. */
WNN_API wnn_data_type wnn_data_type_from_name(const char *name);

/* Bytes per element (1 for INT4/UINT4, which pack two per byte), 0 if invalid. */
WNN_API size_t wnn_data_type_size(wnn_data_type t);

/* WebNN's MLOperandDescriptor: a data type and a shape. rank 0 is a scalar.
** Dimensions are uint32_t so that every value WebNN's IDL admits can be
** represented and rejected by the dimension rule. */
typedef struct wnn_operand_desc {
    wnn_data_type data_type;
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK];
} wnn_operand_desc;

#define WNN_OPERAND_DESC_INIT {WNN_DATA_TYPE_FLOAT32, 0, {0, 0, 0, 0, 0, 0, 0, 0}}

/* WebNN's MLTensorDescriptor: an operand descriptor and usage flags. */
typedef struct wnn_tensor_desc {
    wnn_data_type data_type;
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK];
    bool readable; /* wnn_context_read_tensor* allowed */
    bool writable; /* wnn_context_write_tensor allowed */
    bool exportable_to_gpu; /* WebNN's exportableToGPU: may be rented to WebGPU
                            ** (wnn_webgpu.h); webgpu device only */
} wnn_tensor_desc;

#define WNN_TENSOR_DESC_INIT {WNN_DATA_TYPE_FLOAT32, 0, {0, 0, 0, 0, 0, 0, 0, 0}, false, false, false}

/* Element count of desc (1 for a scalar), or 0 when a dimension is 0. */
WNN_API uint64_t wnn_operand_desc_element_count(const wnn_operand_desc *desc);

/* Packed byte length of desc (ceil(n/2) for INT4/UINT4). */
WNN_API uint64_t wnn_operand_desc_byte_length(const wnn_operand_desc *desc);

/* ------------------------------------------------------------------------ */
/* Devices                                                                   */
/* ------------------------------------------------------------------------ */

typedef enum wnn_device_kind {
    WNN_DEVICE_KIND_CPU = 0,       /* host memory is device memory */
    WNN_DEVICE_KIND_DISCRETE = 1,  /* separate memory reached by explicit copies */
    WNN_DEVICE_KIND_EMULATED = 2   /* the "null" device: discrete, emulated on the host */
} wnn_device_kind;

/* What wnn_device_get_info() reports. Strings are static. */
typedef struct wnn_device_info {
    const char *name;             /* "cpu", "null", "cuda", "cuda:1" ... */
    const char *description;      /* human-readable, e.g. the GPU's name */
    wnn_device_kind kind;
    bool accelerated;             /* WebNN's MLContext.accelerated */
    uint64_t max_tensor_byte_length;
    uint64_t memory_bytes;        /* device memory, 0 if unknown */
    int32_t dlpack_device_type;   /* DLDeviceType of its memory (1 = CPU) */
    int32_t dlpack_device_id;
} wnn_device_info;

/* Number of devices usable now: every backend compiled in whose device is
** present. "cpu" is always device 0. Thread-safe. */
WNN_API uint32_t wnn_device_count(void);

/* Fills *info for device index. WNN_STATUS_INVALID_ARGUMENT if index is out of
** range or info is NULL. */
WNN_API wnn_status wnn_device_get_info(uint32_t index, wnn_device_info *info);

/* ------------------------------------------------------------------------ */
/* Threads                                                                   */
/* ------------------------------------------------------------------------ */

/* The most threads wnn_set_num_threads() accepts. */
#define WNN_MAX_THREADS 256

/* Sets how many threads the cpu device's kernels use, the calling thread
** included, for the whole process (PyTorch's set_num_threads, ONNX Runtime's
** intra_op_num_threads); OpenBLAS's count follows. Kernels that start after
** the call use the new count; running ones finish with theirs. n = 0 restores
** the default: WNN_NUM_THREADS when it is a positive number, else the CPUs
** the process may use (the least of the cores online, its affinity mask and
** its cgroup's CPU quota rounded up). Thread-safe. Errors: INVALID_ARGUMENT for n > WNN_MAX_THREADS. */
WNN_API wnn_status wnn_set_num_threads(uint32_t n);

/* The number of threads the cpu device's kernels use now (>= 1): the last
** wnn_set_num_threads() count, or the default, as far as the system let the
** pool start them. Thread-safe. */
WNN_API uint32_t wnn_num_threads(void);

/* ------------------------------------------------------------------------ */
/* Operator support limits (WebNN's MLOpSupportLimits)                       */
/* ------------------------------------------------------------------------ */

/* What a device accepts for one operand: a set of data types (bit
** 1u << wnn_data_type for each) and a range of ranks. */
typedef struct wnn_tensor_limits {
    uint32_t data_types;
    uint32_t min_rank;
    uint32_t max_rank;
} wnn_tensor_limits;

#define WNN_DATA_TYPE_BIT(t) (1u << (t))

/* The context-wide members of MLOpSupportLimits. */
typedef struct wnn_context_limits {
    const char *preferred_input_layout; /* "nchw" or "nhwc" */
    uint64_t max_tensor_byte_length;
    wnn_tensor_limits input;            /* graph inputs and tensors */
    wnn_tensor_limits constant;
    wnn_tensor_limits output;
} wnn_context_limits;

/* Number of builder operators wnn implements, and the WebNN name of each
** ("add", "conv2d", "lstmCell" ...), for enumeration. NULL past the end. */
WNN_API uint32_t wnn_operator_count(void);
WNN_API const char *wnn_operator_name(uint32_t index);

/* The operand names MLOpSupportLimits uses for an operator ("input",
** "filter", "bias", "output" ...), for enumeration. NULL past the end or for
** an unknown operator. */
WNN_API const char *wnn_operator_operand_name(const char *op, uint32_t index);

#define WNN_TENSOR_LIMITS_INIT {0, 0, 0}
#define WNN_CONTEXT_LIMITS_INIT {NULL, 0, WNN_TENSOR_LIMITS_INIT, WNN_TENSOR_LIMITS_INIT, WNN_TENSOR_LIMITS_INIT}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct wnn_context wnn_context;
typedef struct wnn_tensor wnn_tensor;
typedef struct wnn_graph_builder wnn_graph_builder;
typedef struct wnn_operand wnn_operand;
typedef struct wnn_graph wnn_graph;

/* WebNN's MLPowerPreference. With no device named, HIGH_PERFORMANCE picks the
** first accelerated device, anything else picks "cpu". */
typedef enum wnn_power_preference {
    WNN_POWER_PREFERENCE_DEFAULT = 0,
    WNN_POWER_PREFERENCE_HIGH_PERFORMANCE = 1,
    WNN_POWER_PREFERENCE_LOW_POWER = 2
} wnn_power_preference;

/* Where the WebNN specification and Chromium/WPT disagree, which to follow.
**   CHROMIUM (default): destroyed tensors are WNN_STATUS_DESTROYED (an
**     InvalidStateError), one tensor may feed several dispatch inputs, and a
**     BYOB read buffer may be larger than the tensor (its tail is untouched).
**   SPEC: destroyed tensors in read/write/dispatch are
**     WNN_STATUS_DESTROYED_OBJECT (a TypeError), any duplicate dispatch
**     binding is refused, and BYOB read buffers must match exactly. */
typedef enum wnn_policy {
    WNN_POLICY_CHROMIUM = 0,
    WNN_POLICY_SPEC = 1
} wnn_policy;

/* Receives errors found on the timeline (after the call that queued the work
** returned), on a wnn worker thread. */
typedef void (*wnn_error_callback)(wnn_status status, const char *message, void *user_data);

typedef struct wnn_context_options {
    const char *device;                    /* NULL: chosen by power_preference */
    wnn_power_preference power_preference;
    wnn_policy policy;
    wnn_error_callback on_error;           /* may be NULL */
    void *on_error_user_data;
    uint64_t memory_limit;                 /* device bytes the context may hold; 0: no limit */
} wnn_context_options;

#define WNN_CONTEXT_OPTIONS_INIT {NULL, WNN_POWER_PREFERENCE_DEFAULT, WNN_POLICY_CHROMIUM, NULL, NULL, 0}

/* Creates a context on a device. options may be NULL (defaults). On success
** *out holds a context the caller must release with wnn_context_release().
** Fails with WNN_STATUS_NO_SUCH_DEVICE if the named device is not usable now
** (the message lists the usable ones), WNN_STATUS_INVALID_ARGUMENT if out is
** NULL or the policy or power preference is not one of its enum's values.
** A device named "cpu" or "null", or no name with the default power
** preference, never loads the GPU backends; "cuda..." or high-performance
** loads libwnn_cuda.so (beside libwnn, or $WNN_CUDA_MODULE) on first use.
** Thread-safe. */
WNN_API wnn_status wnn_context_create(const wnn_context_options *options, wnn_context **out);

/* WebNN's MLContext.destroy(): the context is lost. Every tensor and graph of
** it becomes destroyed, pending reads complete with WNN_STATUS_CONTEXT_LOST,
** work already queued finishes safely, and every later call on the context or
** its objects fails with WNN_STATUS_CONTEXT_LOST. Idempotent. */
WNN_API void wnn_context_destroy(wnn_context *ctx);

/* Destroys ctx if needed, waits for its queued work to drain, and releases the
** caller's handle. Tensors, graphs and builders of the context remain valid
** handles (they report WNN_STATUS_CONTEXT_LOST) until released. */
WNN_API void wnn_context_release(wnn_context *ctx);

/* True once the context is lost (destroyed). */
WNN_API bool wnn_context_is_lost(const wnn_context *ctx);

/* Fills *info with the context's device. */
WNN_API wnn_status wnn_context_get_device_info(const wnn_context *ctx, wnn_device_info *info);

/* Waits until every piece of work recorded on the context before this call
** has completed. Returns the first error the timeline met since the last
** finish (or WNN_OK), and WNN_STATUS_CONTEXT_LOST if the context is lost.
** Must not be called from a wnn callback. */
WNN_API wnn_status wnn_context_finish(wnn_context *ctx);

/* Device memory of a context, as its caching allocator sees it. Blocks are
** rounded up to size classes (powers of two from 256 bytes to 1 MiB, then
** multiples of 1 MiB); freed blocks stay cached for reuse until trimmed. */
typedef struct wnn_memory_stats {
    uint64_t in_use_bytes;       /* held by live tensors and compiled graphs */
    uint64_t cached_bytes;       /* freed blocks kept for reuse */
    uint64_t peak_bytes;         /* highest in_use_bytes so far */
    uint64_t device_allocations; /* calls into the device's allocator */
    uint64_t device_frees;
    uint64_t copies_to_device;   /* host -> device transfers and their bytes */
    uint64_t bytes_to_device;
    uint64_t copies_to_host;     /* device -> host transfers */
    uint64_t bytes_to_host;
    uint64_t copies_on_device;   /* device -> device copies */
    uint64_t bytes_on_device;
} wnn_memory_stats;

/* Fills *out with the context's memory statistics. Thread-safe. On the cpu
** device host memory is device memory: tensors never copy, so the copy
** counters stay 0. */
WNN_API wnn_status wnn_context_get_memory_stats(wnn_context *ctx, wnn_memory_stats *out);

/* Gives every cached block back to the device. Thread-safe. */
WNN_API void wnn_context_trim_memory(wnn_context *ctx);

/* Page-locked ("pinned") host memory for fast transfers. On a discrete
** device (cuda) the DMA engine reads and writes it directly, so a
** wnn_context_write_tensor() from it (of at least 256 KiB, made while the
** context has nothing queued) or a read into it skips the staging copy
** through wnn's own pinned buffers; on the cpu and null devices it is
** ordinary memory. Writes from it still return only once the caller may
** reuse the bytes (on cuda: once their DMA is done). Pinned memory is
** scarce: the operating system cannot page it out.
**
** wnn_context_alloc_host: *out = byte_length bytes (> 0) of host memory,
** aligned to at least 64 bytes (a page on cuda), owned by the caller until
** wnn_context_free_host() or the context's release, whichever comes first.
** Errors: INVALID_ARGUMENT (NULL ctx or out, byte_length 0);
** CONTEXT_LOST; OUT_OF_MEMORY. *out is NULL on failure. Thread-safe. */
WNN_API wnn_status wnn_context_alloc_host(wnn_context *ctx, size_t byte_length, void **out);

/* Gives back memory of wnn_context_alloc_host() on the same context.
** INVALID_ARGUMENT for NULL, or for a pointer the context did not
** allocate (another context's, an interior pointer, one freed already):
** nothing happens to it. Allowed on a lost context. Thread-safe. */
WNN_API wnn_status wnn_context_free_host(wnn_context *ctx, void *ptr);

/* Pins byte_length bytes (> 0) of the caller's memory at ptr, which stays
** the caller's, for transfers of this context's device (cudaHostRegister
** on cuda: page-aligned ranges pin fastest; registering costs about as
** much as copying the range a few times, so register buffers reused for
** many transfers). The memory must stay allocated until
** wnn_context_unregister_host() or the context's release, which undoes
** every registration left. Errors: INVALID_ARGUMENT (NULL ctx or ptr,
** byte_length 0, a range overlapping one registered already, memory the
** driver refuses to pin twice); CONTEXT_LOST; OUT_OF_MEMORY;
** OPERATION_ERROR (the driver refused, e.g. a read-only mapping).
** Thread-safe. */
WNN_API wnn_status wnn_context_register_host(wnn_context *ctx, void *ptr, size_t byte_length);

/* Undoes wnn_context_register_host(ctx, ptr, ...), after the transfers
** already made from or into it. INVALID_ARGUMENT for NULL or for a ptr
** that does not start a registration of this context. Allowed on a lost
** context. Thread-safe. */
WNN_API wnn_status wnn_context_unregister_host(wnn_context *ctx, void *ptr);

/* Fills *out with the context's MLOpSupportLimits top level: true to what
** the device really does (the data types its tensors can hold). */
WNN_API wnn_status wnn_context_get_limits(wnn_context *ctx, wnn_context_limits *out);

/* Fills *out with the limits of one operand of one operator, both named as
** in MLOpSupportLimits (e.g. "conv2d", "filter"). WNN_STATUS_NOT_SUPPORTED if
** the device has no such operator; WNN_STATUS_INVALID_ARGUMENT for an
** operand name the operator does not have. */
WNN_API wnn_status wnn_context_get_operand_limits(wnn_context *ctx, const char *op, const char *operand,
                                                  wnn_tensor_limits *out);

/* ------------------------------------------------------------------------ */
/* Tensors (MLTensor)                                                        */
/* ------------------------------------------------------------------------ */

/* Creates a tensor that reads as zeros. Validation (first failing rule wins):
** context lost -> CONTEXT_LOST; data type invalid or not supported by the
** device -> UNSUPPORTED_DATA_TYPE; rank > WNN_MAX_RANK -> INVALID_RANK; a
** dimension 0 or > 2^31-1 -> INVALID_DIMENSION; element count > 2^31-1 ->
** TOO_MANY_ELEMENTS; byte length > the device's max_tensor_byte_length ->
** TENSOR_TOO_LARGE; exportable_to_gpu on a device other than webgpu ->
** NOT_SUPPORTED; allocation failure -> OUT_OF_MEMORY. Thread-safe. */
WNN_API wnn_status wnn_context_create_tensor(wnn_context *ctx, const wnn_tensor_desc *desc,
                                             wnn_tensor **out);

/* Creates a constant tensor (readable = writable = false, constant = true)
** holding a copy of data, which must be exactly the descriptor's byte length
** (else BYTE_LENGTH_MISMATCH). The same descriptor rules as above apply. A
** constant tensor feeds wnn_graph_builder_constant_tensor(); it cannot be
** written, read or bound to a dispatch. */
WNN_API wnn_status wnn_context_create_constant_tensor(wnn_context *ctx, const wnn_operand_desc *desc,
                                                      const void *data, size_t byte_length,
                                                      wnn_tensor **out);

/* Records a write of byte_length bytes of data into tensor. The bytes are
** copied before the call returns; the caller may reuse its buffer at once.
** Errors: CONTEXT_LOST; WRONG_CONTEXT; DESTROYED (or DESTROYED_OBJECT under
** WNN_POLICY_SPEC); NOT_WRITABLE; BYTE_LENGTH_MISMATCH; INVALID_ARGUMENT for
** NULL data. Thread-safe. */
WNN_API wnn_status wnn_context_write_tensor(wnn_context *ctx, wnn_tensor *tensor, const void *data,
                                            size_t byte_length);

/* Completion of a read. status is WNN_OK or why the read failed (e.g.
** DESTROYED when the tensor was destroyed before the read ran); message is ""
** on success. On success data points at byte_length bytes that are valid only
** during the call (or at the caller's buffer for the _into variant). */
typedef void (*wnn_read_callback)(wnn_status status, const char *message, const void *data,
                                  size_t byte_length, void *user_data);

/* Records a read of tensor; callback runs once on a worker thread with the
** bytes. Errors as for write, with NOT_READABLE in place of NOT_WRITABLE, and
** INVALID_ARGUMENT for a NULL callback. */
WNN_API wnn_status wnn_context_read_tensor(wnn_context *ctx, wnn_tensor *tensor,
                                           wnn_read_callback callback, void *user_data);

/* Records a read into the caller's buffer (WebNN's BYOB read). The buffer
** must stay valid until the callback runs. Under the default policy it may be
** larger than the tensor (the tail is left untouched); under WNN_POLICY_SPEC
** it must match exactly. Smaller -> BYTE_LENGTH_MISMATCH. callback may be
** NULL, in which case wnn_context_finish() reports failures. */
WNN_API wnn_status wnn_context_read_tensor_into(wnn_context *ctx, wnn_tensor *tensor, void *buffer,
                                                size_t buffer_size, wnn_read_callback callback,
                                                void *user_data);

/* Reads tensor into buffer and waits for the result. Same rules as
** wnn_context_read_tensor_into(); returns the read's completion status. Must
** not be called from a wnn callback. */
WNN_API wnn_status wnn_context_read_tensor_sync(wnn_context *ctx, wnn_tensor *tensor, void *buffer,
                                                size_t buffer_size);

/* WebNN's MLTensor.destroy(): the tensor is dead at once; reads recorded but
** not yet run complete with WNN_STATUS_DESTROYED; work already queued that
** uses it completes safely; its storage is released after that work. The
** handle stays valid until wnn_tensor_release(). Idempotent. Thread-safe,
** also against calls on the same tensor in other threads: a write, read,
** dispatch or DLPack export that races the destroy either completes (on
** the old storage, which lives until the last such call, task or export is
** done) or fails with DESTROYED; none touches freed memory. */
WNN_API void wnn_tensor_destroy(wnn_tensor *tensor);

/* Destroys tensor if needed and releases the caller's handle. */
WNN_API void wnn_tensor_release(wnn_tensor *tensor);

/* Attributes. They stay readable after destroy. */
WNN_API void wnn_tensor_get_desc(const wnn_tensor *tensor, wnn_tensor_desc *out);
WNN_API wnn_data_type wnn_tensor_data_type(const wnn_tensor *tensor);
WNN_API uint32_t wnn_tensor_rank(const wnn_tensor *tensor);
WNN_API uint64_t wnn_tensor_byte_length(const wnn_tensor *tensor);
WNN_API bool wnn_tensor_is_readable(const wnn_tensor *tensor);
WNN_API bool wnn_tensor_is_writable(const wnn_tensor *tensor);
WNN_API bool wnn_tensor_is_constant(const wnn_tensor *tensor);
WNN_API bool wnn_tensor_is_destroyed(const wnn_tensor *tensor);
WNN_API wnn_context *wnn_tensor_context(const wnn_tensor *tensor);

/* ------------------------------------------------------------------------ */
/* Graph builder                                                            */
/* ------------------------------------------------------------------------ */

/* Creates a builder for ctx. CONTEXT_LOST if ctx is lost. Release with
** wnn_graph_builder_release(); operands live as long as their builder. */
WNN_API wnn_status wnn_graph_builder_create(wnn_context *ctx, wnn_graph_builder **out);

WNN_API void wnn_graph_builder_release(wnn_graph_builder *builder);

/* The first error any builder call met (WNN_OK if none) and its message, e.g.
** "matmul: a is rank 1, must be >= 2". The message is owned by the builder. */
WNN_API wnn_status wnn_graph_builder_status(const wnn_graph_builder *builder);
WNN_API const char *wnn_graph_builder_error_message(const wnn_graph_builder *builder);

/* Forgets the builder's recorded error, so that a caller that handled a NULL
** return (a validation test, a binding that throws per call) can go on. */
WNN_API void wnn_graph_builder_clear_error(wnn_graph_builder *builder);

/* The data type and shape inferred for an operand. */
WNN_API void wnn_operand_get_desc(const wnn_operand *operand, wnn_operand_desc *out);

/* A named graph input. name must be non-empty and unique in the builder. */
WNN_API wnn_operand *wnn_graph_builder_input(wnn_graph_builder *builder, const char *name,
                                             const wnn_operand_desc *desc);

/* A constant from bytes, copied now; byte_length must match desc. */
WNN_API wnn_operand *wnn_graph_builder_constant(wnn_graph_builder *builder, const wnn_operand_desc *desc,
                                                const void *data, size_t byte_length);

/* A 0-D constant of type from a number (WebNN's MLNumber): the value is cast
** to the type (truncating for integers, saturating to the type's range). The
** _int64 form keeps 64-bit integer precision. */
WNN_API wnn_operand *wnn_graph_builder_constant_scalar(wnn_graph_builder *builder, wnn_data_type type,
                                                       double value);
WNN_API wnn_operand *wnn_graph_builder_constant_scalar_int64(wnn_graph_builder *builder,
                                                             wnn_data_type type, int64_t value);

/* A constant operand backed by a constant tensor of the same context. The
** tensor may be destroyed after the graph is built. Errors: WRONG_CONTEXT,
** DESTROYED (DESTROYED_OBJECT under WNN_POLICY_SPEC), CONSTANT_TENSOR for a
** tensor that is not a constant tensor. */
WNN_API wnn_operand *wnn_graph_builder_constant_tensor(wnn_graph_builder *builder, wnn_tensor *tensor);

/* A name and an operand or tensor, for build and dispatch. */
typedef struct wnn_named_operand {
    const char *name;
    wnn_operand *operand;
} wnn_named_operand;

typedef struct wnn_named_tensor {
    const char *name;
    wnn_tensor *tensor;
} wnn_named_tensor;

/* Builds a graph computing the named outputs. As in WebNN, the outputs are
** validated before the builder is marked built: a call refused for the
** builder's recorded error or for outputs that break a rule below
** (NAME_MISMATCH, WRONG_CONTEXT, INVALID_ARGUMENT, DESTROYED) leaves the
** builder usable, so a corrected call may follow (after
** wnn_graph_builder_clear_error() for a recorded error). From then on the
** builder is used up, even if compiling fails. Errors: ALREADY_BUILT or
** CONTEXT_LOST; NAME_MISMATCH for no outputs, an empty or repeated name;
** WRONG_CONTEXT for an operand of another builder; INVALID_ARGUMENT for an
** output that is an input or constant operand; DESTROYED (DESTROYED_OBJECT
** under WNN_POLICY_SPEC) for a constant tensor destroyed before build; the builder's recorded error if any;
** TENSOR_TOO_LARGE for an operand over the device's maxTensorByteLength;
** OUT_OF_MEMORY when the least memory any execution needs (the constants
** plus the peak of intermediates alive together) is over the context's
** memory_limit, else the device's memory (the host's for cpu and null);
** NOT_SUPPORTED if the device has no kernel for a node (supports_op should
** have refused it at the builder), OPERATION_ERROR if it cannot compile it
** otherwise. */
WNN_API wnn_status wnn_graph_builder_build(wnn_graph_builder *builder, const wnn_named_operand *outputs,
                                           size_t output_count, wnn_graph **out);

/* ------------------------------------------------------------------------ */
/* Graphs and dispatch                                                      */
/* ------------------------------------------------------------------------ */

/* WebNN's MLGraph.destroy(); work already queued finishes. Idempotent. */
WNN_API void wnn_graph_destroy(wnn_graph *graph);
WNN_API void wnn_graph_release(wnn_graph *graph);

/* The graph's inputs and outputs, in the order of build (outputs) and of
** creation (inputs). *name stays valid as long as the graph handle. */
WNN_API uint32_t wnn_graph_input_count(const wnn_graph *graph);
WNN_API uint32_t wnn_graph_output_count(const wnn_graph *graph);
WNN_API wnn_status wnn_graph_get_input(const wnn_graph *graph, uint32_t index, const char **name,
                                       wnn_operand_desc *desc);
WNN_API wnn_status wnn_graph_get_output(const wnn_graph *graph, uint32_t index, const char **name,
                                        wnn_operand_desc *desc);

/* Records a dispatch of graph reading inputs and writing outputs; returns
** before the work is done. Checks, first failure wins, each rule over every
** binding before the next rule: CONTEXT_LOST; INVALID_ARGUMENT (a NULL
** array or tensor); WRONG_CONTEXT (graph or tensor of another context);
** DESTROYED (graph, then tensors; DESTROYED_OBJECT for tensors under
** WNN_POLICY_SPEC);
** NAME_MISMATCH (count differs, a name missing or unknown, repeated);
** DESCRIPTOR_MISMATCH (data type or shape differs); CONSTANT_TENSOR;
** DUPLICATE_TENSOR (one tensor as two outputs, or as input and output; under
** WNN_POLICY_SPEC also one tensor as two inputs). Outputs of one dispatch may
** be inputs of the next with no wait. Thread-safe. */
WNN_API wnn_status wnn_context_dispatch(wnn_context *ctx, wnn_graph *graph, const wnn_named_tensor *inputs,
                                        size_t input_count, const wnn_named_tensor *outputs,
                                        size_t output_count);

/* ------------------------------------------------------------------------ */
/* Operators                                                                */
/*                                                                          */
/* Each returns a new operand owned by the builder, or NULL when an argument */
/* breaks a WebNN rule; the builder then keeps the first error (status and   */
/* message naming the operator, the argument and the rule). Operands of      */
/* another builder are refused with WNN_STATUS_WRONG_CONTEXT. Every operand  */
/* is held to the data types and ranks wnn_context_get_operand_limits()      */
/* reports for it (UNSUPPORTED_DATA_TYPE, INVALID_RANK): the builder accepts */
/* exactly what the limits list, so int4/uint4 only where they are listed    */
/* (quantizeLinear, dequantizeLinear). Every output must pass the operand    */
/* descriptor rules: each dimension and the element count at most 2^31-1     */
/* (INVALID_DIMENSION, TOO_MANY_ELEMENTS).                                   */
/* ------------------------------------------------------------------------ */

/*
** Operator options. Every wnn_*_options struct follows webgpu.h's rule: a
** struct whose bytes are all zero, like a NULL options pointer, means
** WebNN's defaults for every member. So that this holds with no "has"
** flags:
**   - a member whose WebNN default is 0, false, NULL or an enum's first
**     value is a plain value (the enums are numbered so that WebNN's
**     default is 0);
**   - a member whose default is another number, where 0 is a legal value
**     (gemm's alpha, an epsilon, batchNormalization's axis), is a const
**     pointer: NULL for the default, else the value it points at, e.g.
**     o.alpha = &(double){2.0}; (a compound literal lives until the end of
**     its block, so make it in the block of the call); beware that the
**     literal 0 assigned to such a member is NULL, the default, not 0;
**   - a member whose legal values are never 0 (strides, dilations, groups,
**     window and output sizes, resample scales) reads all zeros as its
**     default; a zero beside a non-zero is INVALID_ARGUMENT;
**   - a list that may be absent (axes, recurrent activations) is a pointer
**     and a count: NULL is the default, a non-NULL pointer with count 0 is
**     the empty list.
** The _INIT macros spell the zero struct, for readability. Pointed-to
** values are read during the call only.
**
** Extension point: every options struct starts with next_in_chain, as
** webgpu.h's structs do. A later version may define structs that begin
** with a wnn_chained_struct (s_type naming which) to carry options a struct
** lacks, chained from next_in_chain. This version defines none:
** next_in_chain must be NULL, else the operator fails with
** INVALID_ARGUMENT.
*/
typedef struct wnn_chained_struct {
    const struct wnn_chained_struct *next;
    uint32_t s_type;
} wnn_chained_struct;

/* The zero initializer every options struct's _INIT macro spells: {0} in C,
** {} in C++ (where {0} draws -Wmissing-field-initializers). */
#ifdef __cplusplus
#define WNN_OPTIONS_INIT {}
#else
#define WNN_OPTIONS_INIT {0}
#endif

/* WebNN's MLNumber (bigint or unrestricted double): the double value, or
** with is_integer the exact integer negative ? -magnitude : magnitude, for
** int64 and uint64 values a double cannot hold (e.g. 2^53 + 1). A zeroed
** wnn_number is the double 0. */
typedef struct wnn_number {
    double value;
    bool is_integer;
    bool negative;
    uint64_t magnitude;
} wnn_number;

/* ------------------------------------------------------------------------ */
/* Element-wise operators                                                   */
/* ------------------------------------------------------------------------ */

/* Element-wise binary operators with bidirectional broadcasting; a and b must
** share a data type. pow, div, max, min, add, sub, mul accept every data type. */
WNN_API wnn_operand *wnn_add(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_sub(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_mul(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_div(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_max(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_min(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_pow(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);

/* Element-wise unary operators. abs and neg: float32, float16, int64, int32,
** int8. exp, log, sqrt, sigmoid, tanh: float32, float16. relu: float32,
** float16, int64, int32, int8. */
WNN_API wnn_operand *wnn_abs(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_neg(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_exp(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_log(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_sqrt(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_relu(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_sigmoid(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_tanh(wnn_graph_builder *builder, wnn_operand *x);

/*
** Element-wise unary math: ceil, floor, cos, sin, tan, erf, reciprocal and
** roundEven (halves to even) take float32 or float16. sign (-1, 0 or 1; NaN
** stays NaN) takes float32, float16, int64, int32 and int8. identity copies
** its input bit for bit and takes every data type. A wrong data type is
** WNN_STATUS_UNSUPPORTED_DATA_TYPE.
*/
WNN_API wnn_operand *wnn_ceil(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_floor(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_cos(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_sin(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_tan(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_erf(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_reciprocal(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_round_even(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_sign(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_identity(wnn_graph_builder *builder, wnn_operand *x);

/* isNaN and isInfinite: a uint8 tensor of the input's shape, 1 where the
** element is NaN (infinite), else 0. Every data type is accepted; integer
** inputs give all zeros. */
WNN_API wnn_operand *wnn_is_nan(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_is_infinite(wnn_graph_builder *builder, wnn_operand *x);

/*
** Comparisons: a uint8 tensor of 1 (true) and 0 (false), the bidirectional
** broadcast of a's and b's shapes. a and b must share a data type (any data
** type; int64/uint64 compare exactly); NaN compares unequal to everything, so
** notEqual is 1 and the others 0. Errors: UNSUPPORTED_DATA_TYPE when the
** types differ, SHAPE_MISMATCH when the shapes do not broadcast.
*/
WNN_API wnn_operand *wnn_equal(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_not_equal(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_greater(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_greater_or_equal(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_lesser(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_lesser_or_equal(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);

/*
** Logical operators on uint8 tensors, where any non-zero element is true;
** the result is uint8 0 or 1. The binary ones broadcast bidirectionally.
** Errors: UNSUPPORTED_DATA_TYPE for an operand that is not uint8,
** SHAPE_MISMATCH when the shapes do not broadcast.
*/
WNN_API wnn_operand *wnn_logical_not(wnn_graph_builder *builder, wnn_operand *a);
WNN_API wnn_operand *wnn_logical_and(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_logical_or(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);
WNN_API wnn_operand *wnn_logical_xor(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);

/* where: element-wise condition ? true_value : false_value. condition must
** be uint8 (non-zero is true); true_value and false_value share any data
** type, which the output takes; the output shape is the bidirectional
** broadcast of all three shapes. Errors: UNSUPPORTED_DATA_TYPE (condition
** not uint8, or the value types differ), SHAPE_MISMATCH. */
WNN_API wnn_operand *wnn_where(wnn_graph_builder *builder, wnn_operand *condition, wnn_operand *true_value,
                               wnn_operand *false_value);

/* clamp: a NULL bound is absent (-infinity / +infinity); min > max is a
** type error (WNN_STATUS_INVALID_ARGUMENT). Bounds are cast to the input's
** type, saturating for integer types; a NaN bound bounds nothing. An int64
** or uint64 bound a double cannot hold is given as an exact integer (see
** wnn_number). */
typedef struct wnn_clamp_options {
    const wnn_chained_struct *next_in_chain;
    const wnn_number *min_value; /* NULL: no lower bound */
    const wnn_number *max_value; /* NULL: no upper bound */
} wnn_clamp_options;

#define WNN_CLAMP_OPTIONS_INIT WNN_OPTIONS_INIT

/* options may be NULL (no bounds). */
WNN_API wnn_operand *wnn_clamp(wnn_graph_builder *builder, wnn_operand *x, const wnn_clamp_options *options);

/* cast to any data type; float to integer truncates toward zero and
** saturates, NaN becomes 0. */
WNN_API wnn_operand *wnn_cast(wnn_graph_builder *builder, wnn_operand *x, wnn_data_type type);

/*
** Activations, float32 and float16 only (UNSUPPORTED_DATA_TYPE otherwise);
** each output has its input's descriptor. options may be NULL (defaults).
**   elu:         x >= 0 ? x : alpha * (exp(x) - 1)         alpha = 1
**   gelu:        0.5 * x * (1 + erf(x / sqrt(2)))
**   hardSigmoid: max(0, min(1, alpha * x + beta))         alpha = 0.2, beta = 0.5
**   hardSwish:   x * max(0, min(6, x + 3)) / 6
**   leakyRelu:   x >= 0 ? x : alpha * x                     alpha = 0.01
**   linear:      alpha * x + beta                           alpha = 1, beta = 0
**   softplus:    ln(1 + exp(x))
**   softsign:    x / (1 + |x|)
** alpha and beta must be finite (INVALID_ARGUMENT); a NULL pointer gives the
** default above.
*/
typedef struct wnn_elu_options {
    const wnn_chained_struct *next_in_chain;
    const double *alpha; /* NULL: 1 */
} wnn_elu_options;

#define WNN_ELU_OPTIONS_INIT WNN_OPTIONS_INIT

typedef struct wnn_hard_sigmoid_options {
    const wnn_chained_struct *next_in_chain;
    const double *alpha; /* NULL: 0.2 */
    const double *beta;  /* NULL: 0.5 */
} wnn_hard_sigmoid_options;

#define WNN_HARD_SIGMOID_OPTIONS_INIT WNN_OPTIONS_INIT

typedef struct wnn_leaky_relu_options {
    const wnn_chained_struct *next_in_chain;
    const double *alpha; /* NULL: 0.01 */
} wnn_leaky_relu_options;

#define WNN_LEAKY_RELU_OPTIONS_INIT WNN_OPTIONS_INIT

typedef struct wnn_linear_options {
    const wnn_chained_struct *next_in_chain;
    const double *alpha; /* NULL: 1 */
    double beta;         /* default 0 */
} wnn_linear_options;

#define WNN_LINEAR_OPTIONS_INIT WNN_OPTIONS_INIT

WNN_API wnn_operand *wnn_elu(wnn_graph_builder *builder, wnn_operand *x, const wnn_elu_options *options);
WNN_API wnn_operand *wnn_gelu(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_hard_sigmoid(wnn_graph_builder *builder, wnn_operand *x,
                                      const wnn_hard_sigmoid_options *options);
WNN_API wnn_operand *wnn_hard_swish(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_leaky_relu(wnn_graph_builder *builder, wnn_operand *x,
                                    const wnn_leaky_relu_options *options);
WNN_API wnn_operand *wnn_linear(wnn_graph_builder *builder, wnn_operand *x, const wnn_linear_options *options);
WNN_API wnn_operand *wnn_softplus(wnn_graph_builder *builder, wnn_operand *x);
WNN_API wnn_operand *wnn_softsign(wnn_graph_builder *builder, wnn_operand *x);

/* prelu: x >= 0 ? x : slope * x. input is float32, float16, int64, int32 or
** int8; slope has the same data type (else UNSUPPORTED_DATA_TYPE) and a shape
** that broadcasts bidirectionally with the input's (else SHAPE_MISMATCH);
** the output has the broadcast shape. */
WNN_API wnn_operand *wnn_prelu(wnn_graph_builder *builder, wnn_operand *x, wnn_operand *slope);

/* ------------------------------------------------------------------------ */
/* Reduction operators                                                      */
/* ------------------------------------------------------------------------ */

/*
** Reductions over a set of axes. The result keeps the input's data type;
** reduced dimensions are dropped, or kept as 1 with keep_dimensions.
**   reduceL1, reduceSum, reduceSumSquare, reduceProduct: float32, float16,
**     int32, uint32, int64, uint64 (integers wrap, 64-bit ones exactly);
**   reduceL2, reduceLogSum, reduceLogSumExp, reduceMean: float32, float16;
**   reduceMax, reduceMin: every data type.
** axes NULL (the default) reduces every axis; otherwise the axes_count
** entries of axes are reduced, and axes_count 0 reduces nothing (the
** operator is then applied to each element alone, e.g. reduceL1 gives |x|).
** Errors: UNSUPPORTED_DATA_TYPE; INVALID_ARGUMENT for axes_count over the
** rank, an axis not below the rank, or an axis given twice.
*/
typedef struct wnn_reduce_options {
    const wnn_chained_struct *next_in_chain;
    const uint32_t *axes; /* NULL: every axis */
    uint32_t axes_count;
    bool keep_dimensions;
} wnn_reduce_options;

#define WNN_REDUCE_OPTIONS_INIT WNN_OPTIONS_INIT

WNN_API wnn_operand *wnn_reduce_l1(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_l2(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_log_sum(wnn_graph_builder *builder, wnn_operand *x,
                                        const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_log_sum_exp(wnn_graph_builder *builder, wnn_operand *x,
                                            const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_max(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_mean(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_min(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_product(wnn_graph_builder *builder, wnn_operand *x,
                                        const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_sum(wnn_graph_builder *builder, wnn_operand *x, const wnn_reduce_options *options);
WNN_API wnn_operand *wnn_reduce_sum_square(wnn_graph_builder *builder, wnn_operand *x,
                                           const wnn_reduce_options *options);

/* argMin and argMax: the index of the smallest (largest) element along axis,
** the first one on ties; a NaN counts as smaller (larger) than any number
** so that it is found. Any input data type, rank >= 1 (else INVALID_RANK);
** axis below the rank (else INVALID_ARGUMENT); output_data_type int32 or
** int64 (else UNSUPPORTED_DATA_TYPE), WNN_DATA_TYPE_INVALID (0) meaning
** WebNN's default int32. The axis is dropped from the output shape, or kept
** as 1 with keep_dimensions. */
typedef struct wnn_arg_min_max_options {
    const wnn_chained_struct *next_in_chain;
    bool keep_dimensions;
    wnn_data_type output_data_type; /* 0: int32 */
} wnn_arg_min_max_options;

#define WNN_ARG_MIN_MAX_OPTIONS_INIT WNN_OPTIONS_INIT

WNN_API wnn_operand *wnn_arg_min(wnn_graph_builder *builder, wnn_operand *x, uint32_t axis,
                                 const wnn_arg_min_max_options *options);
WNN_API wnn_operand *wnn_arg_max(wnn_graph_builder *builder, wnn_operand *x, uint32_t axis,
                                 const wnn_arg_min_max_options *options);

/* cumulativeSum: running sums along axis (float32, float16, int32, uint32,
** int64, uint64; integers wrap). exclusive leaves each element out of its
** own sum (the first is 0); reversed sums from the end of the axis. Rank
** >= 1 (else INVALID_RANK), axis below the rank (else INVALID_ARGUMENT). */
typedef struct wnn_cumulative_sum_options {
    const wnn_chained_struct *next_in_chain;
    bool exclusive;
    bool reversed;
} wnn_cumulative_sum_options;

#define WNN_CUMULATIVE_SUM_OPTIONS_INIT WNN_OPTIONS_INIT

WNN_API wnn_operand *wnn_cumulative_sum(wnn_graph_builder *builder, wnn_operand *x, uint32_t axis,
                                        const wnn_cumulative_sum_options *options);

/* softmax along axis (< rank); float32 and float16, rank >= 1. */
WNN_API wnn_operand *wnn_softmax(wnn_graph_builder *builder, wnn_operand *x, uint32_t axis);

/* ------------------------------------------------------------------------ */
/* Data movement operators                                                  */
/* ------------------------------------------------------------------------ */

/* reshape to new_shape (rank new_rank); element counts must match. */
WNN_API wnn_operand *wnn_reshape(wnn_graph_builder *builder, wnn_operand *x, uint32_t new_rank,
                                 const uint32_t *new_shape);

/* transpose by permutation (NULL: reversed axes); a permutation of 0..rank-1. */
WNN_API wnn_operand *wnn_transpose(wnn_graph_builder *builder, wnn_operand *x, const uint32_t *permutation);

/* concat count (1..8192) operands of one type and rank along axis; other
** dimensions must match. */
WNN_API wnn_operand *wnn_concat(wnn_graph_builder *builder, wnn_operand *const *inputs, size_t count,
                                uint32_t axis);

/* slice: a window of sizes[i] elements from starts[i] (starts[i] + sizes[i] <=
** shape[i], sizes > 0) taking every strides[i]-th one, so output dimension i
** is ceil(sizes[i] / strides[i]); strides
** NULL means all 1. Each array has rank entries. */
WNN_API wnn_operand *wnn_slice(wnn_graph_builder *builder, wnn_operand *x, const uint32_t *starts,
                               const uint32_t *sizes, const uint32_t *strides);

/* expand: broadcasts input to new_shape (new_rank entries, at most
** WNN_MAX_RANK) by numpy's rule, one way: input's shape, aligned right, must
** have 1 or new_shape's size in each dimension, and input's rank must not
** exceed new_rank. Any data type. Errors: INVALID_RANK (new_rank over
** WNN_MAX_RANK), SHAPE_MISMATCH (not broadcastable), INVALID_DIMENSION or
** TOO_MANY_ELEMENTS (new_shape is not a valid shape). */
WNN_API wnn_operand *wnn_expand(wnn_graph_builder *builder, wnn_operand *input, uint32_t new_rank,
                                const uint32_t *new_shape);

/* WebNN's MLPaddingMode. Edge repeats the border element; reflection mirrors
** the input about its border element, without repeating it. */
typedef enum wnn_pad_mode {
    WNN_PAD_MODE_CONSTANT = 0,
    WNN_PAD_MODE_EDGE = 1,
    WNN_PAD_MODE_REFLECTION = 2
} wnn_pad_mode;

typedef struct wnn_pad_options {
    const wnn_chained_struct *next_in_chain;
    wnn_pad_mode mode; /* default constant */
    double value;      /* constant mode's fill (default 0), cast to input's type as MLNumber */
} wnn_pad_options;

#define WNN_PAD_OPTIONS_INIT WNN_OPTIONS_INIT

/* pad: adds beginning_padding[i] elements before and ending_padding[i] after
** dimension i; each array has rank entries. options may be NULL (constant
** 0). Any data type, rank >= 1 (else INVALID_RANK). Errors: INVALID_ARGUMENT
** (NULL arrays, unknown mode, reflection padding not below the dimension's
** size), INVALID_DIMENSION or TOO_MANY_ELEMENTS (the padded shape is too
** large). */
WNN_API wnn_operand *wnn_pad(wnn_graph_builder *builder, wnn_operand *input, const uint32_t *beginning_padding,
                             const uint32_t *ending_padding, const wnn_pad_options *options);

typedef struct wnn_split_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t axis;
} wnn_split_options;

#define WNN_SPLIT_OPTIONS_INIT WNN_OPTIONS_INIT

/* split into count equal parts along options->axis (options may be NULL:
** axis 0). Stores the count operands in outputs, which must have room for
** count entries, and returns count; returns 0 on error (the builder keeps
** it). Any data type, rank >= 1. Errors: INVALID_RANK (rank 0),
** INVALID_ARGUMENT (axis >= rank, count 0, outputs NULL), SHAPE_MISMATCH
** (the axis length is not a multiple of count). */
WNN_API size_t wnn_split(wnn_graph_builder *builder, wnn_operand *input, uint32_t count,
                         const wnn_split_options *options, wnn_operand **outputs);

/* split into parts of the given sizes (n_sizes >= 1 entries, each > 0, adding
** up to the axis length). outputs needs room for n_sizes entries; returns
** n_sizes, or 0 on error as wnn_split(). A sum that differs is
** SHAPE_MISMATCH; a zero size or an empty list is INVALID_ARGUMENT. */
WNN_API size_t wnn_split_sizes(wnn_graph_builder *builder, wnn_operand *input, const uint32_t *sizes,
                               size_t n_sizes, const wnn_split_options *options, wnn_operand **outputs);

/* tile: repeats input repetitions[i] times along dimension i (rank entries,
** each > 0; NULL allowed for rank 0). Any data type and rank. Errors:
** INVALID_ARGUMENT (NULL or a zero repetition), INVALID_DIMENSION or
** TOO_MANY_ELEMENTS (the result is too large). */
WNN_API wnn_operand *wnn_tile(wnn_graph_builder *builder, wnn_operand *input, const uint32_t *repetitions);

/* reverse's axes: axes NULL reverses every axis (WebNN's default);
** otherwise the axes_count entries of axes (0 means none) are reversed. */
typedef struct wnn_reverse_options {
    const wnn_chained_struct *next_in_chain;
    const uint32_t *axes; /* NULL: every axis */
    uint32_t axes_count;
} wnn_reverse_options;

#define WNN_REVERSE_OPTIONS_INIT WNN_OPTIONS_INIT

/* reverse the order of elements along some axes. options may be NULL (all
** axes). Any data type and rank. Errors: INVALID_ARGUMENT (an axis >= rank,
** an axis listed twice, axes_count > WNN_MAX_RANK). */
WNN_API wnn_operand *wnn_reverse(wnn_graph_builder *builder, wnn_operand *input,
                                 const wnn_reverse_options *options);

/* lower is WebNN's upper inverted, so that the zero struct keeps WebNN's
** default, the upper triangle. */
typedef struct wnn_triangular_options {
    const wnn_chained_struct *next_in_chain;
    bool lower;       /* keep the lower triangle; false (default): the upper one */
    int32_t diagonal; /* which diagonal bounds it: 0 main, > 0 above, < 0 below */
} wnn_triangular_options;

#define WNN_TRIANGULAR_OPTIONS_INIT WNN_OPTIONS_INIT

/* triangular: in each matrix of the last two dimensions keeps element (i, j)
** where j - i >= diagonal (upper, the default) or j - i <= diagonal (lower) and zeroes the
** rest. options may be NULL. Any data type, rank >= 2 (else INVALID_RANK). */
WNN_API wnn_operand *wnn_triangular(wnn_graph_builder *builder, wnn_operand *input,
                                    const wnn_triangular_options *options);

/* ------------------------------------------------------------------------ */
/* Gather and scatter operators                                             */
/* ------------------------------------------------------------------------ */

/* Gather and scatter.
**
** indices are int32, uint32 or int64 (else UNSUPPORTED_DATA_TYPE). An index
** i into a dimension of size n may be negative (i < 0 counts from the end,
** i + n); values outside [-n, n-1] are clamped into it, as WPT's vectors
** assume (WebNN leaves them to the implementation). The gathered or scattered
** input may have any data type. */
typedef struct wnn_gather_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t axis;
} wnn_gather_options;

#define WNN_GATHER_OPTIONS_INIT WNN_OPTIONS_INIT

/* gather: picks slices of input along options->axis (options may be NULL:
** axis 0); the output shape is input.shape[:axis] + indices.shape +
** input.shape[axis+1:]. Input rank >= 1 (INVALID_RANK); axis >= rank is
** INVALID_ARGUMENT; an output rank over WNN_MAX_RANK is INVALID_RANK. */
WNN_API wnn_operand *wnn_gather(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *indices,
                                const wnn_gather_options *options);

/* gather_elements: output[p] = input[p with p[axis] = indices[p]]. indices
** has input's rank and input's shape except along axis (SHAPE_MISMATCH
** otherwise); the output has indices' shape. Rank >= 1. */
WNN_API wnn_operand *wnn_gather_elements(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *indices,
                                         const wnn_gather_options *options);

/* gather_nd: indices [..., k] holds coordinates of the first k dimensions of
** input (k <= input's rank, else SHAPE_MISMATCH); the output shape is
** indices.shape[:-1] + input.shape[k:]. Both ranks >= 1 (INVALID_RANK). */
WNN_API wnn_operand *wnn_gather_nd(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *indices);

typedef struct wnn_scatter_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t axis;
} wnn_scatter_options;

#define WNN_SCATTER_OPTIONS_INIT WNN_OPTIONS_INIT

/* scatter_elements: a copy of input where output[p with p[axis] =
** indices[p]] = updates[p] for every p of indices, in row-major order (a
** later update of one element wins). indices and updates have the same
** shape, which is input's except along axis (SHAPE_MISMATCH); updates has
** input's data type (UNSUPPORTED_DATA_TYPE). options may be NULL (axis 0). */
WNN_API wnn_operand *wnn_scatter_elements(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *indices,
                                          wnn_operand *updates, const wnn_scatter_options *options);

/* scatter_nd: a copy of input where the slice at each coordinate of indices
** [..., k] is replaced by the matching slice of updates, whose shape must be
** indices.shape[:-1] + input.shape[k:] (SHAPE_MISMATCH). Later updates win. */
WNN_API wnn_operand *wnn_scatter_nd(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *indices,
                                    wnn_operand *updates);

/* ------------------------------------------------------------------------ */
/* Linear algebra operators                                                 */
/* ------------------------------------------------------------------------ */

/* matmul: rank >= 2 each, a [..., M, K] x b [..., K, N], batch dimensions
** broadcast; float32 and float16. */
WNN_API wnn_operand *wnn_matmul(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);

/* gemm: alpha * A' * B' + beta * C with A', B' optionally transposed; a and b
** rank 2; c (optional, may be NULL) unidirectionally broadcastable to [M, N]. */
typedef struct wnn_gemm_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *c;
    const double *alpha; /* NULL: 1 */
    const double *beta;  /* NULL: 1 */
    bool a_transpose;
    bool b_transpose;
} wnn_gemm_options;

#define WNN_GEMM_OPTIONS_INIT WNN_OPTIONS_INIT

WNN_API wnn_operand *wnn_gemm(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b,
                              const wnn_gemm_options *options);

/* ------------------------------------------------------------------------ */
/* Convolution and pooling operators                                        */
/* ------------------------------------------------------------------------ */

/* Where the channels sit in a 4-D input (and the output): [batches,
** channels, height, width] or [batches, height, width, channels]. */
typedef enum wnn_input_layout {
    WNN_INPUT_LAYOUT_NCHW = 0,
    WNN_INPUT_LAYOUT_NHWC = 1
} wnn_input_layout;

/* conv2d filter layouts: o = output channels, i = input channels / groups,
** h and w the kernel's height and width. */
typedef enum wnn_conv2d_filter_layout {
    WNN_CONV2D_FILTER_LAYOUT_OIHW = 0,
    WNN_CONV2D_FILTER_LAYOUT_HWIO = 1,
    WNN_CONV2D_FILTER_LAYOUT_OHWI = 2,
    WNN_CONV2D_FILTER_LAYOUT_IHWO = 3
} wnn_conv2d_filter_layout;

/* convTranspose2d filter layouts: i = input channels, o = output channels /
** groups. */
typedef enum wnn_conv_transpose2d_filter_layout {
    WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_IOHW = 0,
    WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_HWOI = 1,
    WNN_CONV_TRANSPOSE2D_FILTER_LAYOUT_OHWI = 2
} wnn_conv_transpose2d_filter_layout;

/* conv2d. padding is [beginning height, ending height, beginning width,
** ending width]; strides and dilations are [height, width], each >= 1, {0,
** 0} meaning {1, 1}; groups >= 1 (0 means 1) must divide the input channels
** and the output channels, and the filter's input channels must be input
** channels / groups. bias (NULL: none) is rank 1 of [output channels]. */
typedef struct wnn_conv2d_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t padding[4];
    uint32_t strides[2];   /* {0, 0}: {1, 1} */
    uint32_t dilations[2]; /* {0, 0}: {1, 1} */
    uint32_t groups;       /* 0: 1 */
    wnn_input_layout input_layout;
    wnn_conv2d_filter_layout filter_layout;
    wnn_operand *bias;
} wnn_conv2d_options;

#define WNN_CONV2D_OPTIONS_INIT WNN_OPTIONS_INIT

/* 2-D convolution of input (rank 4, float32 or float16) with filter (rank 4,
** the input's type); options may be NULL (defaults). Output dimension d is
** floor((in + pad_begin + pad_end - ((k - 1) * dilation + 1)) / stride) + 1,
** in the input's layout. Errors: UNSUPPORTED_DATA_TYPE (type not float, or
** filter/bias of another type); INVALID_RANK; INVALID_ARGUMENT (a stride or
** dilation of 0 beside a non-zero one, an unknown layout); SHAPE_MISMATCH
** (channels and groups disagree, bias shape); INVALID_DIMENSION (the window
** does not fit in the padded input, or an output dimension over 2^31-1). */
WNN_API wnn_operand *wnn_conv2d(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *filter,
                                const wnn_conv2d_options *options);

/* convTranspose2d: as conv2d, plus output_padding ([height, width], each
** below the stride of its dimension), added to the end of the output, and
** output_sizes ({0, 0}, the default, when absent), the output's [height,
** width], each >= 1, which must lie in [computed, computed + stride) where
** computed leaves output_padding out. The filter's input channels must
** equal the input's; output channels are the filter's output channels *
** groups. */
typedef struct wnn_conv_transpose2d_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t padding[4];
    uint32_t strides[2];   /* {0, 0}: {1, 1} */
    uint32_t dilations[2]; /* {0, 0}: {1, 1} */
    uint32_t output_padding[2];
    uint32_t output_sizes[2]; /* {0, 0}: computed */
    uint32_t groups;          /* 0: 1 */
    wnn_input_layout input_layout;
    wnn_conv_transpose2d_filter_layout filter_layout;
    wnn_operand *bias;
} wnn_conv_transpose2d_options;

#define WNN_CONV_TRANSPOSE2D_OPTIONS_INIT WNN_OPTIONS_INIT

/* Transposed 2-D convolution (the gradient of conv2d with respect to its
** input). Output dimension d is (in - 1) * stride + (k - 1) * dilation + 1 -
** pad_begin - pad_end + output_padding, or output_sizes. Types, ranks and
** errors as wnn_conv2d, plus INVALID_ARGUMENT for output_padding >= stride
** and output_sizes out of their range. */
WNN_API wnn_operand *wnn_conv_transpose2d(wnn_graph_builder *builder, wnn_operand *input,
                                          wnn_operand *filter, const wnn_conv_transpose2d_options *options);

/* How pool2d rounds a fractional output size (WebNN's roundingType, formerly
** outputShapeRounding). */
typedef enum wnn_rounding_type {
    WNN_ROUNDING_TYPE_FLOOR = 0,
    WNN_ROUNDING_TYPE_CEIL = 1
} wnn_rounding_type;

/* Options of the three pooling operators. window_dimensions ([height,
** width], each >= 1) is the input's whole height and width when {0, 0}, the
** default. padding, strides and dilations as conv2d. Output dimension d is
** (in + pad_begin + pad_end - ((window - 1) * dilation + 1)) / stride + 1
** rounded by rounding_type; output_sizes (each >= 1; {0, 0}, the default,
** when absent) overrides the rounding and must equal the floor or the ceil
** value. Windows read only real elements: padding adds nothing and is not
** counted by the average; a window that holds no element gives 0. */
typedef struct wnn_pool2d_options {
    const wnn_chained_struct *next_in_chain;
    uint32_t window_dimensions[2]; /* {0, 0}: the whole input */
    uint32_t padding[4];
    uint32_t strides[2];   /* {0, 0}: {1, 1} */
    uint32_t dilations[2]; /* {0, 0}: {1, 1} */
    wnn_input_layout layout;
    wnn_rounding_type rounding_type;
    uint32_t output_sizes[2]; /* {0, 0}: computed */
} wnn_pool2d_options;

#define WNN_POOL2D_OPTIONS_INIT WNN_OPTIONS_INIT

/* Pooling over the height and width of a rank-4 input; options may be NULL.
** averagePool2d and l2Pool2d (the square root of the sum of squares) take
** float32 and float16; maxPool2d takes every data type except int4/uint4.
** Errors: UNSUPPORTED_DATA_TYPE; INVALID_RANK; INVALID_ARGUMENT (a window
** size, stride, dilation or output size of 0 beside a non-zero one, an
** unknown layout or rounding, output_sizes that match neither rounding);
** INVALID_DIMENSION (the window does not fit in the padded input, an output
** dimension over 2^31-1). */
WNN_API wnn_operand *wnn_average_pool2d(wnn_graph_builder *builder, wnn_operand *input,
                                        const wnn_pool2d_options *options);
WNN_API wnn_operand *wnn_l2_pool2d(wnn_graph_builder *builder, wnn_operand *input,
                                   const wnn_pool2d_options *options);
WNN_API wnn_operand *wnn_max_pool2d(wnn_graph_builder *builder, wnn_operand *input,
                                    const wnn_pool2d_options *options);

typedef enum wnn_interpolation_mode {
    WNN_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0,
    WNN_INTERPOLATION_MODE_LINEAR = 1
} wnn_interpolation_mode;

/* resample2d: the two dimensions axes[0] and axes[1] (distinct, < 4; {0,
** 0}, which is never valid, means WebNN's default {2, 3}) become sizes[i]
** when sizes is not {0, 0} (each >= 1; scales are then ignored), else
** floor(in * scales[i]) with scales[i] > 0 ({0, 0}: {1, 1}). */
typedef struct wnn_resample2d_options {
    const wnn_chained_struct *next_in_chain;
    wnn_interpolation_mode mode;
    float scales[2];   /* {0, 0}: {1, 1} */
    uint32_t sizes[2]; /* {0, 0}: from scales */
    uint32_t axes[2];  /* {0, 0}: {2, 3} */
} wnn_resample2d_options;

#define WNN_RESAMPLE2D_OPTIONS_INIT WNN_OPTIONS_INIT

/* Resizes two dimensions of a rank-4 input (float32, float16, int8, uint8);
** options may be NULL. Output element j of a resized dimension samples the
** input at the half-pixel coordinate (j + 0.5) * in / out - 0.5, clamped to
** [0, in - 1]: nearest-neighbor takes index ceil(coordinate - 0.5), linear
** interpolates its two neighbours (integer types round to nearest).
** Errors: UNSUPPORTED_DATA_TYPE; INVALID_RANK; INVALID_ARGUMENT (axes
** repeated or >= 4, a scale <= 0 or not finite beside a non-zero one, a
** size of 0 beside a non-zero one, an unknown mode); INVALID_DIMENSION (an
** output dimension of 0 or over 2^31-1). */
WNN_API wnn_operand *wnn_resample2d(wnn_graph_builder *builder, wnn_operand *input,
                                    const wnn_resample2d_options *options);

/* ------------------------------------------------------------------------ */
/* Normalization operators                                                  */
/* ------------------------------------------------------------------------ */

/* batchNormalization: scale and bias (NULL: 1 and 0) are rank 1 of
** [input.shape[axis]], like mean and variance. */
typedef struct wnn_batch_normalization_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *scale;
    wnn_operand *bias;
    const uint32_t *axis;  /* NULL: 1 */
    const double *epsilon; /* NULL: 1e-5 */
} wnn_batch_normalization_options;

#define WNN_BATCH_NORMALIZATION_OPTIONS_INIT WNN_OPTIONS_INIT

/* (input - mean) / sqrt(variance + epsilon) * scale + bias, with mean,
** variance, scale and bias indexed by the input's position along axis.
** input: float32 or float16, rank >= 1; every other operand of its type.
** options may be NULL. Errors: UNSUPPORTED_DATA_TYPE; INVALID_RANK (input
** rank 0, a parameter not rank 1); INVALID_ARGUMENT (axis >= rank);
** SHAPE_MISMATCH (a parameter's length is not input.shape[axis]). */
WNN_API wnn_operand *wnn_batch_normalization(wnn_graph_builder *builder, wnn_operand *input,
                                             wnn_operand *mean, wnn_operand *variance,
                                             const wnn_batch_normalization_options *options);

/* instanceNormalization: scale and bias (NULL: 1 and 0) are rank 1 of
** [channels], the channels being where layout puts them. */
typedef struct wnn_instance_normalization_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *scale;
    wnn_operand *bias;
    const double *epsilon; /* NULL: 1e-5 */
    wnn_input_layout layout;
} wnn_instance_normalization_options;

#define WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT WNN_OPTIONS_INIT

/* Normalizes each (batch, channel) plane of a rank-4 input (float32 or
** float16) by its own mean and variance: (x - mean) / sqrt(variance +
** epsilon) * scale + bias. options may be NULL. Errors:
** UNSUPPORTED_DATA_TYPE; INVALID_RANK; INVALID_ARGUMENT (unknown layout);
** SHAPE_MISMATCH (scale or bias length differs from the channels). */
WNN_API wnn_operand *wnn_instance_normalization(wnn_graph_builder *builder, wnn_operand *input,
                                                const wnn_instance_normalization_options *options);

/* layerNormalization: the mean and variance are taken over axes
** (axes_count distinct dimensions below the input's rank, in any order;
** when axes is NULL, every dimension but the first). scale and bias (NULL:
** 1 and 0) have shape [input.shape[axes[0]], input.shape[axes[1]], ...], in
** the order axes lists them. */
typedef struct wnn_layer_normalization_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *scale;
    wnn_operand *bias;
    const uint32_t *axes; /* NULL: every dimension but the first */
    uint32_t axes_count;
    const double *epsilon; /* NULL: 1e-5 */
} wnn_layer_normalization_options;

#define WNN_LAYER_NORMALIZATION_OPTIONS_INIT WNN_OPTIONS_INIT

/* Normalizes input (float32 or float16, any rank) over options' axes: (x -
** mean) / sqrt(variance + epsilon) * scale + bias. With no axes each element
** is its own group (the result is bias). options may be NULL. Errors:
** UNSUPPORTED_DATA_TYPE; INVALID_ARGUMENT (an axis repeated or >= rank,
** axes_count over WNN_MAX_RANK); INVALID_RANK and SHAPE_MISMATCH (scale or
** bias not of the shape above). */
WNN_API wnn_operand *wnn_layer_normalization(wnn_graph_builder *builder, wnn_operand *input,
                                             const wnn_layer_normalization_options *options);

/* ------------------------------------------------------------------------ */
/* Quantization operators                                                   */
/* ------------------------------------------------------------------------ */

/*
** quantizeLinear: saturate(roundEven(input / scale) + zero_point) in the
** zero point's data type. dequantizeLinear: (input - zero_point) * scale in
** the scale's data type. Both keep the input's shape.
**
** quantizeLinear: input float32 or float16; scale of the input's type;
** zero_point int8, uint8, int32, uint32, int4 or uint4.
** dequantizeLinear: input int8, uint8, int32, uint32, int4 or uint4;
** zero_point of the input's type; scale float32 or float16.
**
** scale and zero_point have one shape, of rank at most the input's. Aligned
** to the right with the input's shape, each of their dimensions must divide
** the input's: a dimension of 1 broadcasts, a larger one splits the input's
** dimension into equal blocks that share one scale and zero point.
** Errors: UNSUPPORTED_DATA_TYPE; INVALID_RANK (scale's rank over the
** input's); SHAPE_MISMATCH (shapes differ or do not divide).
*/
WNN_API wnn_operand *wnn_quantize_linear(wnn_graph_builder *builder, wnn_operand *x, wnn_operand *scale,
                                         wnn_operand *zero_point);
WNN_API wnn_operand *wnn_dequantize_linear(wnn_graph_builder *builder, wnn_operand *x, wnn_operand *scale,
                                           wnn_operand *zero_point);

/* ------------------------------------------------------------------------ */
/* Recurrent operators                                                      */
/* ------------------------------------------------------------------------ */

/* Recurrent networks: gru, gru_cell, lstm, lstm_cell.
**
** All operands are float32 or float16 and share input's data type
** (UNSUPPORTED_DATA_TYPE otherwise); every shape is fixed by the arguments
** (SHAPE_MISMATCH when it differs, INVALID_RANK for a wrong rank). Weights
** are stacked by gate along their first (cell) or second (network) dimension
** in the order the layout names; biases likewise. float16 is computed in
** float32 and rounded once per output. */
typedef enum wnn_recurrent_activation {
    WNN_RECURRENT_ACTIVATION_RELU = 0,
    WNN_RECURRENT_ACTIVATION_SIGMOID = 1,
    WNN_RECURRENT_ACTIVATION_TANH = 2
} wnn_recurrent_activation;

typedef enum wnn_recurrent_direction {
    WNN_RECURRENT_DIRECTION_FORWARD = 0,
    WNN_RECURRENT_DIRECTION_BACKWARD = 1,
    WNN_RECURRENT_DIRECTION_BOTH = 2
} wnn_recurrent_direction;

/* Gate order of GRU weights and biases: update, reset, new (ZRN) or reset,
** update, new (RZN). */
typedef enum wnn_gru_weight_layout {
    WNN_GRU_WEIGHT_LAYOUT_ZRN = 0,
    WNN_GRU_WEIGHT_LAYOUT_RZN = 1
} wnn_gru_weight_layout;

/* Gate order of LSTM weights and biases: input, output, forget, cell (IOFG)
** or input, forget, cell, output (IFGO). Peephole weights are always input,
** output, forget. */
typedef enum wnn_lstm_weight_layout {
    WNN_LSTM_WEIGHT_LAYOUT_IOFG = 0,
    WNN_LSTM_WEIGHT_LAYOUT_IFGO = 1
} wnn_lstm_weight_layout;

/* Operands are NULL when absent (biases then count as zero, initial states
** as zero). activations (NULL: sigmoid, tanh, WebNN's default), else
** activations_count entries, which must be 2: [0] for the update and reset
** gates, [1] for the new gate. reset_before is WebNN's resetAfter inverted,
** so that the zero struct keeps WebNN's default (reset after). */
typedef struct wnn_gru_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *bias;                 /* [numDirections, 3 * hiddenSize] */
    wnn_operand *recurrent_bias;       /* [numDirections, 3 * hiddenSize] */
    wnn_operand *initial_hidden_state; /* [numDirections, batchSize, hiddenSize] */
    bool reset_before;                 /* reset gate applied before the recurrent product */
    bool return_sequence;
    wnn_recurrent_direction direction;
    wnn_gru_weight_layout layout;
    const wnn_recurrent_activation *activations; /* NULL: sigmoid, tanh */
    uint32_t activations_count;
} wnn_gru_options;

#define WNN_GRU_OPTIONS_INIT WNN_OPTIONS_INIT

/* gru over input [steps, batchSize, inputSize] with weight [numDirections,
** 3 * hiddenSize, inputSize] and recurrent_weight [numDirections,
** 3 * hiddenSize, hiddenSize] (numDirections 2 for BOTH, else 1). Stores in
** outputs the last hidden state [numDirections, batchSize, hiddenSize] and,
** with return_sequence, every step's [steps, numDirections, batchSize,
** hiddenSize]; outputs needs room for 2. Returns the count (1 or 2), 0 on
** error. steps must equal input.shape[0] and hiddenSize * 6 must be a valid
** dimension; options may be NULL. Bad enum values are INVALID_ARGUMENT. */
WNN_API size_t wnn_gru(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *weight,
                       wnn_operand *recurrent_weight, uint32_t steps, uint32_t hidden_size,
                       const wnn_gru_options *options, wnn_operand **outputs);

typedef struct wnn_gru_cell_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *bias;           /* [3 * hiddenSize] */
    wnn_operand *recurrent_bias; /* [3 * hiddenSize] */
    bool reset_before;           /* as in wnn_gru_options */
    wnn_gru_weight_layout layout;
    const wnn_recurrent_activation *activations; /* NULL: sigmoid, tanh; else 2 */
    uint32_t activations_count;
} wnn_gru_cell_options;

#define WNN_GRU_CELL_OPTIONS_INIT WNN_OPTIONS_INIT

/* gru_cell: one GRU step. input [batchSize, inputSize], weight
** [3 * hiddenSize, inputSize], recurrent_weight [3 * hiddenSize, hiddenSize],
** hidden_state [batchSize, hiddenSize]; returns the new hidden state
** [batchSize, hiddenSize]. options may be NULL. */
WNN_API wnn_operand *wnn_gru_cell(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *weight,
                                  wnn_operand *recurrent_weight, wnn_operand *hidden_state, uint32_t hidden_size,
                                  const wnn_gru_cell_options *options);

/* activations (NULL: sigmoid, tanh, tanh, WebNN's default), else
** activations_count entries, which must be 3: [0] for the input, forget and
** output gates, [1] for the cell gate, [2] for the cell state on its way
** into the hidden state. */
typedef struct wnn_lstm_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *bias;                 /* [numDirections, 4 * hiddenSize] */
    wnn_operand *recurrent_bias;       /* [numDirections, 4 * hiddenSize] */
    wnn_operand *peephole_weight;      /* [numDirections, 3 * hiddenSize] */
    wnn_operand *initial_hidden_state; /* [numDirections, batchSize, hiddenSize] */
    wnn_operand *initial_cell_state;   /* [numDirections, batchSize, hiddenSize] */
    bool return_sequence;
    wnn_recurrent_direction direction;
    wnn_lstm_weight_layout layout;
    const wnn_recurrent_activation *activations; /* NULL: sigmoid, tanh, tanh */
    uint32_t activations_count;
} wnn_lstm_options;

#define WNN_LSTM_OPTIONS_INIT WNN_OPTIONS_INIT

/* lstm over input [steps, batchSize, inputSize] with weight [numDirections,
** 4 * hiddenSize, inputSize] and recurrent_weight [numDirections,
** 4 * hiddenSize, hiddenSize]. Stores in outputs the last hidden state and
** the last cell state (each [numDirections, batchSize, hiddenSize]) and, with
** return_sequence, every step's hidden state [steps, numDirections,
** batchSize, hiddenSize]; outputs needs room for 3. Returns the count (2 or
** 3), 0 on error. steps must be > 0 and equal input.shape[0]; hiddenSize * 8
** must be a valid dimension; options may be NULL. */
WNN_API size_t wnn_lstm(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *weight,
                        wnn_operand *recurrent_weight, uint32_t steps, uint32_t hidden_size,
                        const wnn_lstm_options *options, wnn_operand **outputs);

typedef struct wnn_lstm_cell_options {
    const wnn_chained_struct *next_in_chain;
    wnn_operand *bias;            /* [4 * hiddenSize] */
    wnn_operand *recurrent_bias;  /* [4 * hiddenSize] */
    wnn_operand *peephole_weight; /* [3 * hiddenSize] */
    wnn_lstm_weight_layout layout;
    const wnn_recurrent_activation *activations; /* NULL: sigmoid, tanh, tanh; else 3 */
    uint32_t activations_count;
} wnn_lstm_cell_options;

#define WNN_LSTM_CELL_OPTIONS_INIT WNN_OPTIONS_INIT

/* lstm_cell: one LSTM step. input [batchSize, inputSize], weight
** [4 * hiddenSize, inputSize], recurrent_weight [4 * hiddenSize, hiddenSize],
** hidden_state and cell_state [batchSize, hiddenSize]. Stores the new hidden
** state and the new cell state in outputs (room for 2) and returns 2, or 0
** on error. options may be NULL. */
WNN_API size_t wnn_lstm_cell(wnn_graph_builder *builder, wnn_operand *input, wnn_operand *weight,
                             wnn_operand *recurrent_weight, wnn_operand *hidden_state, wnn_operand *cell_state,
                             uint32_t hidden_size, const wnn_lstm_cell_options *options, wnn_operand **outputs);

/* ------------------------------------------------------------------------ */
/* DLPack interop                                                            */
/*                                                                          */
/* Lends wnn tensors to other frameworks and wraps theirs, through DLPack's  */
/* managed tensors, without copies where the memory allows. The structs are  */
/* declared in wnn/dlpack.h; this header passes them as void * so that it   */
/* stays usable alone: a managed tensor is a DLManagedTensorVersioned *, or  */
/* a DLManagedTensor * (the pre-1.0 struct) when the options say legacy.     */
/* docs/dlpack.md explains ownership, streams, devices and copies.           */
/* ------------------------------------------------------------------------ */

/* Whether a transfer may, must or must not copy (the Array API's copy=None,
** True, False). */
typedef enum wnn_dlpack_copy {
    WNN_DLPACK_COPY_IF_NEEDED = 0, /* share the memory when possible, copy otherwise */
    WNN_DLPACK_COPY_ALWAYS = 1,    /* always hand over a private copy */
    WNN_DLPACK_COPY_NEVER = 2      /* share or fail with WNN_STATUS_COPY_FORBIDDEN */
} wnn_dlpack_copy;

/* The stream value that asks for no synchronization at all: the consumer
** orders itself after the producer (e.g. with wnn_context_finish). */
#define WNN_DLPACK_STREAM_NO_SYNC (-1)

typedef struct wnn_dlpack_export_options {
    /* The consumer's stream (Python's stream=): has_stream false is "None".
    ** cpu and host memory: only None or WNN_DLPACK_STREAM_NO_SYNC. Devices
    ** with queues: also any value >= 1, a queue of the consumer; 0 and
    ** values below -1 are INVALID_ARGUMENT. What each value does on each
    ** device is in docs/dlpack.md. */
    bool has_stream;
    int64_t stream;
    /* The device the consumer wants the memory on (Python's dl_device=), as
    ** a DLDeviceType and id: 0 means the tensor's own device; kDLCPU (1), 0
    ** asks for host memory, which the null device can only give as a copy. */
    int32_t device_type;
    int32_t device_id;
    wnn_dlpack_copy copy;
    /* Produce a DLManagedTensor (for consumers that pass no max_version)
    ** instead of a DLManagedTensorVersioned. It cannot say read-only, so a
    ** constant tensor is copied (or refused under COPY_NEVER). */
    bool legacy;
} wnn_dlpack_export_options;

#define WNN_DLPACK_EXPORT_OPTIONS_INIT {false, 0, 0, 0, WNN_DLPACK_COPY_IF_NEEDED, false}

/* Lends tensor to a DLPack consumer: *out receives a new managed tensor the
** consumer must hand back exactly once through its deleter (from any
** thread). The data keep their shape and data type (WebNN's eight types map
** to kDLFloat/kDLInt/kDLUInt, lanes 1); strides are always filled (compact
** row-major) and byte_offset is 0. Without a copy the memory is the
** tensor's own and stays valid until the deleter runs, even if the tensor
** is destroyed or released, or its context lost, first; a constant tensor is
** flagged DLPACK_FLAG_BITMASK_READ_ONLY. With a copy the flag
** DLPACK_FLAG_BITMASK_IS_COPIED is set and the copy is the consumer's alone.
** The export is ordered after the work recorded on the tensor's context
** before the call, as options->stream says. options may be NULL (versioned,
** own device, no stream, copy if needed).
** Errors: INVALID_ARGUMENT (NULL tensor or out, a bad option or a stream the
** device cannot take); CONTEXT_LOST; DESTROYED (DESTROYED_OBJECT under
** WNN_POLICY_SPEC); UNSUPPORTED_DATA_TYPE (int4, uint4); UNSUPPORTED_DEVICE
** (a device_type/device_id the memory cannot be given on); COPY_FORBIDDEN;
** OUT_OF_MEMORY; a device failure met while making the data ready. On error
** *out is NULL. With no stream (None) the call waits for the data, so it
** must not be called from a wnn callback. Thread-safe. */
WNN_API wnn_status wnn_tensor_export_dlpack(wnn_tensor *tensor, const wnn_dlpack_export_options *options,
                                            void **out);

typedef struct wnn_dlpack_import_options {
    bool legacy;          /* managed is a DLManagedTensor, not a DLManagedTensorVersioned */
    wnn_dlpack_copy copy; /* COPY_NEVER: wrap or fail; ALWAYS: copy into wnn's memory */
    bool readable;        /* the new tensor's usage flags, as in wnn_tensor_desc */
    bool writable;
    bool bool_as_uint8;   /* accept kDLBool (8 bits) as a uint8 tensor */
    /* The producer's stream, for device memory of a device with queues
    ** (CUDA: a cudaStream_t, 1 the legacy default stream, 2 the per-thread
    ** one): the context's queue waits for the work queued on it before it
    ** touches the memory. has_stream false: the legacy default stream,
    ** which a producer handed stream 1 ordered its work before.
    ** WNN_DLPACK_STREAM_NO_SYNC: no wait (the caller has ordered it); 0 and
    ** values below -1 are INVALID_ARGUMENT. Ignored for host memory. A
    ** DLPack 1.3 C exchange API producer's current_work_stream goes here. */
    bool has_stream;
    int64_t stream;
} wnn_dlpack_import_options;

#define WNN_DLPACK_IMPORT_OPTIONS_INIT {false, WNN_DLPACK_COPY_IF_NEEDED, true, true, false, false, 0}

/* Makes a tensor of ctx from a DLPack managed tensor, taking ownership of
** managed whatever the outcome: wnn calls its deleter exactly once (on
** failure before this returns; never if managed is NULL). Memory of ctx's
** own device (host memory for a "cpu" context; device memory only as wnn
** exported it), compact, at byte_offset 0 and aligned to its element size
** is wrapped without a copy: the deleter runs when the tensor's storage is
** released (after destroy and the work queued before it). Anything else ctx
** can reach -- host memory into a
** device context, other strides (negative and zero included), a byte
** offset -- is copied into new wnn memory, after which the deleter runs.
** Memory wrapped from a DLPACK_FLAG_BITMASK_READ_ONLY tensor becomes a
** constant tensor (never written; readable if options->readable), which
** keeps a host copy of its bytes for graph builders as every constant does;
** a copy is an ordinary tensor. options may be NULL (versioned, copy if
** needed, readable and writable).
** Errors: INVALID_ARGUMENT (NULL ctx, managed or out; NULL shape with ndim
** > 0; NULL data; strides whose offsets overflow; a view leaving the memory
** or the device wnn exported; a bad option);
** UNSUPPORTED_VERSION (version.major != 1: only the deleter is touched);
** INVALID_RANK (ndim < 0 or > WNN_MAX_RANK); INVALID_DIMENSION (a dimension
** < 1 or > 2^31-1: WebNN has no empty tensors); TOO_MANY_ELEMENTS;
** UNSUPPORTED_DATA_TYPE (anything but WebNN's eight types with lanes 1, and
** bool unless bool_as_uint8); UNSUPPORTED_DEVICE (memory ctx cannot reach);
** COPY_FORBIDDEN; CONTEXT_LOST; TENSOR_TOO_LARGE; OUT_OF_MEMORY. Thread-safe;
** must not be called from a wnn callback when the memory is read-only. */
WNN_API wnn_status wnn_context_import_dlpack(wnn_context *ctx, void *managed,
                                             const wnn_dlpack_import_options *options, wnn_tensor **out);


#ifdef __cplusplus
}
#endif

#endif /* WNN_WNN_H */
