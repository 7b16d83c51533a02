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
} wnn_tensor_desc;

#define WNN_TENSOR_DESC_INIT {WNN_DATA_TYPE_FLOAT32, 0, {0, 0, 0, 0, 0, 0, 0, 0}, false, false}

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
** Fails with WNN_STATUS_NO_SUCH_DEVICE if the named device is not usable now,
** WNN_STATUS_INVALID_ARGUMENT if out is NULL. Thread-safe. */
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

/* ------------------------------------------------------------------------ */
/* Tensors (MLTensor)                                                        */
/* ------------------------------------------------------------------------ */

/* Creates a tensor that reads as zeros. Validation (first failing rule wins):
** context lost -> CONTEXT_LOST; data type invalid or not supported by the
** device -> UNSUPPORTED_DATA_TYPE; rank > WNN_MAX_RANK -> INVALID_RANK; a
** dimension 0 or > 2^31-1 -> INVALID_DIMENSION; element count > 2^31-1 ->
** TOO_MANY_ELEMENTS; byte length > the device's max_tensor_byte_length ->
** TENSOR_TOO_LARGE; allocation failure -> OUT_OF_MEMORY. Thread-safe. */
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
** handle stays valid until wnn_tensor_release(). Idempotent. Thread-safe. */
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
WNN_API wnn_context *wnn_tensor_get_context(const wnn_tensor *tensor);

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
** tensor may be destroyed after the graph is built. */
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

/* Builds a graph computing the named outputs. Marks the builder built first,
** so it is single-use even if building fails. Errors: ALREADY_BUILT or
** CONTEXT_LOST; NAME_MISMATCH for no outputs, an empty or repeated name;
** WRONG_CONTEXT for an operand of another builder; INVALID_ARGUMENT for an
** output that is an input or constant operand; DESTROYED for a constant
** tensor destroyed before build; the builder's recorded error if any;
** OPERATION_ERROR if the device cannot compile it. */
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
** before the work is done. Checks, first failure wins: CONTEXT_LOST;
** WRONG_CONTEXT (graph or tensor of another context); DESTROYED (graph or
** tensor destroyed; DESTROYED_OBJECT for tensors under WNN_POLICY_SPEC);
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
/* another builder are refused with WNN_STATUS_WRONG_CONTEXT.                */
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

/* clamp: absent bounds are -infinity / +infinity; min > max is a type error.
** Bounds are cast to the input's type. */
typedef struct wnn_clamp_options {
    bool has_min_value;
    double min_value;
    bool has_max_value;
    double max_value;
} wnn_clamp_options;

#define WNN_CLAMP_OPTIONS_INIT {false, 0.0, false, 0.0}

/* options may be NULL (no bounds). */
WNN_API wnn_operand *wnn_clamp(wnn_graph_builder *builder, wnn_operand *x, const wnn_clamp_options *options);

/* cast to any data type; float to integer truncates toward zero and
** saturates, NaN becomes 0. */
WNN_API wnn_operand *wnn_cast(wnn_graph_builder *builder, wnn_operand *x, wnn_data_type type);

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

/* softmax along axis (< rank); float32 and float16, rank >= 1. */
WNN_API wnn_operand *wnn_softmax(wnn_graph_builder *builder, wnn_operand *x, uint32_t axis);

/* matmul: rank >= 2 each, a [..., M, K] x b [..., K, N], batch dimensions
** broadcast; float32 and float16. */
WNN_API wnn_operand *wnn_matmul(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b);

/* gemm: alpha * A' * B' + beta * C with A', B' optionally transposed; a and b
** rank 2; c (optional, may be NULL) unidirectionally broadcastable to [M, N]. */
typedef struct wnn_gemm_options {
    wnn_operand *c;
    double alpha;
    double beta;
    bool a_transpose;
    bool b_transpose;
} wnn_gemm_options;

#define WNN_GEMM_OPTIONS_INIT {NULL, 1.0, 1.0, false, false}

WNN_API wnn_operand *wnn_gemm(wnn_graph_builder *builder, wnn_operand *a, wnn_operand *b,
                              const wnn_gemm_options *options);

/* ---- more operators, family A: element-wise, comparison, logical, activations, reductions, quantization ---- */
/* (end of family A) */

/* ---- more operators, family B: convolution, pooling, normalization, resample ---- */
/* (end of family B) */

/* ---- more operators, family C: data movement, gather/scatter, recurrent ---- */
/* (end of family C) */

#ifdef __cplusplus
}
#endif

#endif /* WNN_WNN_H */
