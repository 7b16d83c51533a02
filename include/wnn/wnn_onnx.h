/*
** wnn_onnx.h -- loading ONNX models into wnn: the public C API of libwnn_onnx.
**
** libwnn_onnx reads an ONNX model (a ModelProto, from a file or from memory,
** with its external-data files), lowers its graph to WebNN operators through
** wnn's public builder API, builds the graph for a context's device and runs
** it. It is a separate library over wnn.h: libwnn never depends on it. Link
** with -lwnn_onnx -lwnn (pkg-config: wnn plus libprotobuf-c).
**
** Static shapes. WebNN graphs have static shapes, so every tensor of the
** model must get one at load time: a model input's free dimensions (ONNX
** dim_param, e.g. "batch") are bound by the caller, by name or by giving the
** whole input shape (ONNX Runtime's free-dimension overrides). Inputs that
** WebNN takes as attributes (Reshape's shape, Slice's starts, Pad's pads,
** Resize's scales, every axes input) must be constants; they are folded at
** load time, as are the small shape computations (Shape, ConstantOfShape,
** Range, Gather on shapes ...) that exporters emit. Dropout and Identity
** vanish. docs/onnx.md lists the supported operators and decompositions.
**
** Objects:
**
**   wnn_onnx_model   a loaded, compiled model bound to one context, with one
**                    input and one output tensor per graph input and output,
**                    created once and reused by every run.
**
** Errors. Every fallible function returns a wnn_status (wnn.h); the calling
** thread's wnn_onnx_last_error_message() says what failed, naming the node
** (its name or index), the operator, the opset and the reason, e.g.
** "node 3 'conv1' (Conv, opset 13): auto_pad SAME_UPPER with dilations is
** not supported". The classes:
**   WNN_STATUS_INVALID_ARGUMENT   NULL where required, a bad option, a binding
**                                 for an input the model does not have;
**   WNN_STATUS_NOT_SUPPORTED      an operator, attribute or data type WebNN
**                                 cannot express, a dynamic shape left free;
**   WNN_STATUS_OPERATION_ERROR    the file cannot be read, is truncated or is
**                                 not a valid ONNX model, external data is
**                                 missing or short;
**   others                        as wnn's builder and dispatch report them.
**
** Threads. A model may be run from one thread at a time (its input and output
** tensors are shared by every run); load models per thread for parallel runs.
*/
#ifndef WNN_WNN_ONNX_H
#define WNN_WNN_ONNX_H

#include "wnn/wnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The message of the last wnn_onnx failure on the calling thread; "" if none.
** Valid until the thread's next failing wnn_onnx call. */
WNN_API const char *wnn_onnx_last_error_message(void);

/* ------------------------------------------------------------------------ */
/* Load options                                                              */
/* ------------------------------------------------------------------------ */

/* A value for a named free dimension (ONNX dim_param), e.g. {"batch", 1}. */
typedef struct wnn_onnx_dimension {
    const char *name;
    uint32_t value;
} wnn_onnx_dimension;

/* The whole shape of a model input, overriding what the model declares
** (which must agree where the model has fixed dimensions). */
typedef struct wnn_onnx_input_shape {
    const char *name;
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK];
} wnn_onnx_input_shape;

/* One node the importer cannot lower, for check mode. Strings are valid only
** during the callback. */
typedef struct wnn_onnx_issue {
    uint32_t node_index;   /* position in the graph's node list */
    const char *node_name; /* "" when the node has none */
    const char *op_type;   /* "Conv" */
    const char *domain;    /* "" for the default ONNX domain */
    int64_t opset;         /* the model's opset version for that domain */
    wnn_status status;     /* usually WNN_STATUS_NOT_SUPPORTED */
    const char *message;   /* why, e.g. "mode 'cubic' has no WebNN resample2d" */
} wnn_onnx_issue;

typedef void (*wnn_onnx_issue_callback)(const wnn_onnx_issue *issue, void *user_data);

typedef struct wnn_onnx_options {
    const wnn_onnx_dimension *dimensions; /* free dimensions by name; may be NULL */
    size_t dimension_count;
    const wnn_onnx_input_shape *input_shapes; /* whole input shapes; may be NULL */
    size_t input_shape_count;
    /* Folder of external-data files for a model loaded from memory (a file
    ** model's own folder is used otherwise). NULL: the working directory. */
    const char *base_dir;
    /* Free dimensions that are neither named above nor in input_shapes are
    ** bound to this value when it is not 0 (e.g. 1 for a batch), else they
    ** are an error (WNN_STATUS_NOT_SUPPORTED). */
    uint32_t default_dimension;
    /* Values for model inputs that an operator needs as constants (a Reshape
    ** shape, Slice starts, Pad pads ... fed as graph inputs): used only where
    ** a constant is required; the input stays a graph input otherwise.
    ** Matched by name (wnn_onnx_array.name). May be NULL. */
    const struct wnn_onnx_array *constant_inputs;
    size_t constant_input_count;
} wnn_onnx_options;

#define WNN_ONNX_OPTIONS_INIT {NULL, 0, NULL, 0, NULL, 0, NULL, 0}

/* ------------------------------------------------------------------------ */
/* Models                                                                    */
/* ------------------------------------------------------------------------ */

typedef struct wnn_onnx_model wnn_onnx_model;

/* Loads the ONNX model at path (at most 2 GiB; external data files may add
** more), lowers it to WebNN, builds it for ctx's device and creates its input
** and output tensors. options may be NULL (no bindings). On success *out
** holds a model the caller must release with wnn_onnx_model_release(). On
** failure *out is NULL and nothing is left allocated. Errors: see the top of
** this header. Thread-safe (for distinct models). */
WNN_API wnn_status wnn_onnx_model_load(wnn_context *ctx, const char *path, const wnn_onnx_options *options,
                                       wnn_onnx_model **out);

/* As wnn_onnx_model_load(), from size bytes of a serialized ModelProto. The
** bytes are only read during the call. External data is looked up in
** options->base_dir. */
WNN_API wnn_status wnn_onnx_model_load_memory(wnn_context *ctx, const void *data, size_t size,
                                              const wnn_onnx_options *options, wnn_onnx_model **out);

/* Check mode: imports the model at path for ctx's device without stopping
** at the first problem, calls callback (which may be NULL) once per node that
** cannot be lowered, and stores their number in *issue_count (may be NULL).
** Builds nothing. Returns WNN_OK when every node lowers, WNN_STATUS_NOT_SUPPORTED
** when some cannot, and the load errors above when the file itself is bad
** (then callback is not called). */
WNN_API wnn_status wnn_onnx_check(wnn_context *ctx, const char *path, const wnn_onnx_options *options,
                                  wnn_onnx_issue_callback callback, void *user_data, size_t *issue_count);

/* What a model file declares, read without lowering it: e.g. to bind input
** shapes before loading, or to label a model by its operators. */
typedef struct wnn_onnx_info {
    char **inputs;          /* graph inputs that are not initializers, in order */
    uint32_t input_count;
    char **outputs;         /* graph outputs, in order */
    uint32_t output_count;
    char **op_types;        /* distinct node operators ("Conv"), in first-use order */
    uint32_t op_type_count;
    int64_t opset;          /* the default domain's version, 0 if none */
} wnn_onnx_info;

/* Fills *out from the model at path; the caller frees it with
** wnn_onnx_info_free(). Load errors as above. */
WNN_API wnn_status wnn_onnx_read_info(const char *path, wnn_onnx_info *out);
WNN_API void wnn_onnx_info_free(wnn_onnx_info *info);

/* Releases model, its graph and its tensors. NULL is a no-op. */
WNN_API void wnn_onnx_model_release(wnn_onnx_model *model);

/* The graph inputs (the model's non-initializer inputs, in model order) and
** outputs, with the static descriptors chosen at load time. ONNX bool is
** WNN_DATA_TYPE_UINT8 (0 or 1). *name stays valid as long as the model. */
WNN_API uint32_t wnn_onnx_model_input_count(const wnn_onnx_model *model);
WNN_API uint32_t wnn_onnx_model_output_count(const wnn_onnx_model *model);
WNN_API wnn_status wnn_onnx_model_get_input(const wnn_onnx_model *model, uint32_t index, const char **name,
                                            wnn_operand_desc *desc);
WNN_API wnn_status wnn_onnx_model_get_output(const wnn_onnx_model *model, uint32_t index, const char **name,
                                             wnn_operand_desc *desc);

/* The compiled graph (owned by the model), for wnn_context_dispatch() with
** the caller's own tensors: its input and output names are the model's. */
WNN_API wnn_graph *wnn_onnx_model_graph(const wnn_onnx_model *model);

/* The model's own tensor for an input or output name (owned by the model;
** inputs writable, outputs readable, both exportable through DLPack). NULL
** for an unknown name. */
WNN_API wnn_tensor *wnn_onnx_model_tensor(const wnn_onnx_model *model, const char *name);

/* A named host buffer for wnn_onnx_model_run(): inputs are only read. */
typedef struct wnn_onnx_buffer {
    const char *name;
    void *data;
    size_t byte_length; /* must equal the tensor's byte length */
} wnn_onnx_buffer;

/* Runs the model once: writes each input buffer into the model's input
** tensor, dispatches, and reads every listed output into its buffer, waiting
** for the result. Every model input must be given exactly once; outputs may
** be any subset of the model's (the others are computed, not read).
** Errors: INVALID_ARGUMENT (NULL model, an input array with missing or
** unknown names); BYTE_LENGTH_MISMATCH; any dispatch or read failure.
** Must not be called from a wnn callback. */
WNN_API wnn_status wnn_onnx_model_run(wnn_onnx_model *model, const wnn_onnx_buffer *inputs, size_t input_count,
                                      const wnn_onnx_buffer *outputs, size_t output_count);

/* Zero-copy run: dispatches the graph with the caller's tensors for the
** inputs named (any input not named uses the model's own tensor, as last
** written) and writes the outputs into the model's own output tensors
** (wnn_onnx_model_tensor()), or into the caller's output tensors where
** outputs names them. Returns at once, like wnn_context_dispatch(); chain
** further dispatches or read, export or finish as usual. */
WNN_API wnn_status wnn_onnx_model_dispatch(wnn_onnx_model *model, const wnn_named_tensor *inputs,
                                           size_t input_count, const wnn_named_tensor *outputs,
                                           size_t output_count);

/* ------------------------------------------------------------------------ */
/* Host arrays (TensorProto and .npy files)                                  */
/* ------------------------------------------------------------------------ */

/* A dense host array, as decoded from an ONNX TensorProto or a .npy file. */
typedef struct wnn_onnx_array {
    char *name;               /* TensorProto's name ("" if none); owned */
    wnn_data_type data_type;  /* bool arrives as UINT8 */
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK];
    void *data;               /* byte_length bytes, row-major; owned */
    size_t byte_length;
} wnn_onnx_array;

/* Reads a serialized TensorProto file (an ONNX test's input_0.pb) into *out,
** which the caller frees with wnn_onnx_array_free(). NOT_SUPPORTED for data
** types WebNN has not (double, string, int16 ...);
** OPERATION_ERROR for an unreadable or corrupt file. An empty tensor (a 0
** dimension) is read as such (byte_length 0): it can bind a constant input
** (e.g. empty axes), not a tensor. */
WNN_API wnn_status wnn_onnx_array_read_tensor_proto(const char *path, wnn_onnx_array *out);

/* Reads a NumPy .npy file (format 1.0-3.0, C order, little-endian; the
** dtypes f4 f2 i4 u4 i8 u8 i1 u1 and b1) into *out (name ""). */
WNN_API wnn_status wnn_onnx_array_read_npy(const char *path, wnn_onnx_array *out);

/* Writes array as a .npy file (format 1.0). */
WNN_API wnn_status wnn_onnx_array_write_npy(const char *path, const wnn_onnx_array *array);

/* Frees what the array owns and zeroes it. NULL is a no-op. */
WNN_API void wnn_onnx_array_free(wnn_onnx_array *array);

#ifdef __cplusplus
}
#endif

#endif /* WNN_WNN_ONNX_H */
