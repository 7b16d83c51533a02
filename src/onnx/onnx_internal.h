/*
** onnx_internal.h -- what the importer's files share: host constants, the
** value table, the importer state, attribute access and error reporting.
**
** Values. Every ONNX value name maps to an onx_value: a WebNN operand, a host
** constant (an initializer, a Constant node, or a folded computation), or
** both. Host constants become operands only when an operator consumes them
** as tensors; operators that need attributes (shapes, axes, pads) read them
** from the host constant directly.
*/
#ifndef WNN_ONNX_INTERNAL_H
#define WNN_ONNX_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnx.pb-c.h"
#include "wnn/wnn_onnx.h"

/* A dense host array with ONNX's freedom: dimensions may be 0. */
typedef struct onx_const {
    wnn_data_type type;
    uint32_t rank;
    int64_t dims[WNN_MAX_RANK];
    size_t count;
    void *data; /* count elements of type, owned */
} onx_const;

typedef struct onx_value {
    char *name;
    wnn_operand *op;     /* NULL until needed, for host constants */
    onx_const *c;        /* host value when known at import */
    bool foldable;       /* c may be folded (false for constant_inputs feeds) */
    bool poisoned;       /* check mode: its producer failed */
    uint32_t scope;      /* the subgraph depth that defined it (0: the main graph) */
    wnn_data_type type;
    uint32_t rank;
    uint32_t shape[WNN_MAX_RANK]; /* for operands; host constants use c->dims */
    struct onx_value *next; /* hash chain */
} onx_value;

#define ONX_BUCKETS 1024u

typedef struct onx_importer {
    wnn_context *ctx;
    wnn_graph_builder *b;
    const Onnx__ModelProto *model;
    const Onnx__GraphProto *graph;
    const wnn_onnx_options *opt;
    const char *base_dir;
    int64_t opset;          /* the default domain's version */
    int64_t ms_opset;       /* com.microsoft, 0 if not imported */
    int64_t training_opset; /* ai.onnx.preview.training, 0 if not imported */
    onx_value *buckets[ONX_BUCKETS];
    uint32_t scope;         /* the depth of the subgraph being lowered */
    bool attach_known;      /* onx_out_const adds values to lowered outputs */
    /* the node being lowered, for messages */
    const Onnx__NodeProto *node;
    uint32_t node_index;
    /* check mode */
    bool check;
    wnn_onnx_issue_callback on_issue;
    void *issue_user_data;
    size_t issue_count;
    /* the first error: status and message */
    wnn_status status;
    char message[1024];
    /* graph inputs and outputs (ONNX names) */
    char **input_names;
    uint32_t input_count;
} onx_importer;

/* ---- errors (import.c) ---- */
void onx_set_error(wnn_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a failure of the current node ("node 3 'conv' (Conv, opset 13): ...")
** and returns st. */
wnn_status onx_fail(onx_importer *im, wnn_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The builder's first error turned into a node failure (UNSUPPORTED_DATA_TYPE
** becomes NOT_SUPPORTED: WebNN cannot express that type there). */
wnn_status onx_builder_failed(onx_importer *im);

/* ---- host constants (tensor.c) ---- */
onx_const *onx_const_new(wnn_data_type type, uint32_t rank, const int64_t *dims);
void onx_const_free(onx_const *c);
onx_const *onx_const_copy(const onx_const *c);
size_t onx_type_size(wnn_data_type t);
bool onx_type_from_onnx(int32_t onnx_type, wnn_data_type *out);
const char *onx_onnx_type_name(int32_t onnx_type);
/* Element i of c as int64 or double, any numeric type. */
int64_t onx_get_i64(const onx_const *c, size_t i);
double onx_get_f64(const onx_const *c, size_t i);
/* A double truncated toward zero, saturated to int64; NaN is 0 (ONNX's Cast). */
int64_t onx_f64_to_i64(double v);
void onx_set_i64(onx_const *c, size_t i, int64_t v);
void onx_set_f64(onx_const *c, size_t i, double v);
bool onx_type_is_float(wnn_data_type t);
/* Decodes a TensorProto (raw, typed fields or external data under base_dir).
** Large raw data is taken from t (its raw_data is emptied): decode each
** tensor once. */
wnn_status onx_tensor_decode(const Onnx__TensorProto *t, const char *base_dir, onx_const **out);

/* ---- values (import.c) ---- */
onx_value *onx_lookup(onx_importer *im, const char *name);
onx_value *onx_define(onx_importer *im, const char *name);
/* The node's input i, NULL when absent or named "". */
onx_value *onx_in(onx_importer *im, const Onnx__NodeProto *n, size_t i);
/* The input as an operand (host constants are materialized once). */
wnn_operand *onx_operand(onx_importer *im, onx_value *v);
/* Input i as an operand; fails the node when absent. */
wnn_operand *onx_in_op(onx_importer *im, const Onnx__NodeProto *n, size_t i);
/* x's descriptor; WNN_OPERAND_DESC_INIT's (a float32 scalar) for NULL. */
wnn_operand_desc onx_desc_of(wnn_operand *x);
/* Frees every value of the table (import's end). */
void onx_free_values(onx_importer *im);
/* Output i of the node as an operand or a host constant (taken over). */
wnn_status onx_out(onx_importer *im, const Onnx__NodeProto *n, size_t i, wnn_operand *op);
wnn_status onx_out_const(onx_importer *im, const Onnx__NodeProto *n, size_t i, onx_const *c);
/* Input i's constant value (a feed counts); NULL, after failing the node,
** when it is not known at import. what names it in the message. */
const onx_const *onx_in_const(onx_importer *im, const Onnx__NodeProto *n, size_t i, const char *what);
/* Input i's constant integers into out (at most max). -1 with the node failed. */
int onx_in_ints(onx_importer *im, const Onnx__NodeProto *n, size_t i, const char *what, int64_t *out, size_t max);
/* The descriptor of a value (operand or constant). */
void onx_value_desc(const onx_value *v, wnn_data_type *type, uint32_t *rank, int64_t *dims);
/* A scalar constant operand of type. */
wnn_operand *onx_scalar(onx_importer *im, wnn_data_type type, double v);
/* Normalizes a possibly negative axis against rank; -1 with the node failed. */
int onx_axis(onx_importer *im, int64_t axis, uint32_t rank);

/* ---- subgraphs (import.c) ---- */
/* Enters a new scope for a subgraph (outer names stay visible) and returns
** the depth to give onx_scope_leave. */
uint32_t onx_scope_enter(onx_importer *im);
/* Forgets every value defined deeper than depth. */
void onx_scope_leave(onx_importer *im, uint32_t depth);
/* Defines g's initializers in the current scope and lowers its nodes;
** stops at the first failure (im->node is then the failed node). */
wnn_status onx_subgraph_walk(onx_importer *im, const Onnx__GraphProto *g);

/* ---- attributes (import.c) ---- */
const Onnx__AttributeProto *onx_attr(const Onnx__NodeProto *n, const char *name);
int64_t onx_attr_int(const Onnx__NodeProto *n, const char *name, int64_t dflt);
float onx_attr_float(const Onnx__NodeProto *n, const char *name, float dflt);
/* The string attribute into buf ("" copied from dflt when absent). */
const char *onx_attr_string(const Onnx__NodeProto *n, const char *name, const char *dflt, char *buf, size_t size);
/* The ints attribute: count (or -1 when absent) and the values. */
int onx_attr_ints(const Onnx__NodeProto *n, const char *name, int64_t *out, size_t max);
int onx_attr_floats(const Onnx__NodeProto *n, const char *name, float *out, size_t max);

/* Cast's target ONNX type: an int, or a name before opset 6. */
int32_t onx_cast_target(const Onnx__NodeProto *n);

/* ---- lowering and folding (ops_*.c, fold.c) ---- */
typedef wnn_status (*onx_lower_fn)(onx_importer *im, const Onnx__NodeProto *n);
/* The lowering of op_type in the default domain, NULL if none. */
onx_lower_fn onx_find_lowering(const char *op_type);
/* The lowering of op_type in ai.onnx.preview.training, NULL if none
** (ops_training.c). */
onx_lower_fn onx_find_training(const char *op_type);
/* The host evaluation of op_type, NULL if none. Returns WNN_OK with the
** outputs defined, or NOT_SUPPORTED to fall back to lowering. */
onx_lower_fn onx_find_folding(const char *op_type);

/* Tables, one per topic file. */
typedef struct onx_op_entry {
    const char *name;
    onx_lower_fn fn;
} onx_op_entry;
extern const onx_op_entry onx_ops_elementwise[];
extern const onx_op_entry onx_ops_nn[];
extern const onx_op_entry onx_ops_shape[];
extern const onx_op_entry onx_ops_extra[];
extern const onx_op_entry onx_ops_recurrent[];
extern const onx_op_entry onx_ops_einsum[];
extern const onx_op_entry onx_ops_control[];
extern const onx_op_entry onx_ops_signal[];
extern const onx_op_entry onx_ops_integer[];
extern const onx_op_entry onx_ops_gridsample[];
extern const onx_op_entry onx_ops_text[];
extern const onx_op_entry onx_fold_ops[];

/* 3-D Conv/ConvTranspose and MaxPool/AveragePool (rank-5 inputs) on 2-D
** operators (ops_spatial3d.c). */
wnn_status onx_lower_conv3d(onx_importer *im, const Onnx__NodeProto *n);
wnn_status onx_lower_pool3d(onx_importer *im, const Onnx__NodeProto *n);

/* The convolution a Conv-like node n (strides, pads, dilations, group)
** makes of float operands x and w, 1-D or 2-D, no bias (ops_nn.c). NULL
** with the node failed. */
wnn_operand *onx_conv_of(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, wnn_operand *w);

/* ScatterElements or ScatterND with reduction red (add, mul, max, min) by
** selection masks and reductions (ops_extra.c). */
wnn_status onx_lower_scatter_reduced(onx_importer *im, const Onnx__NodeProto *n, const char *red);

/* Resize of x to out (scales as ONNX states them) by gathers of constant
** taps along each axis, for what resample2d cannot do (ops_resize.c). */
wnn_status onx_resize_by_taps(onx_importer *im, const Onnx__NodeProto *n, wnn_operand *x, const double *scales,
                              const uint32_t *out, const char *mode, const char *coord, const char *nearest);

/* ---- shape rules shared by lowering and folding (ops_shape.c) ---- */
/* Output dimensions of Reshape, Flatten, Squeeze or Unsqueeze (by
** n->op_type) for an input of rank and dims; the output rank, or -1 with
** the node failed. */
int onx_shape_rule(onx_importer *im, const Onnx__NodeProto *n, uint32_t rank, const int64_t *dims, int64_t *out);

/* A Slice as per-axis start, step (non-zero, may be negative) and count. */
typedef struct onx_slice {
    int64_t start[WNN_MAX_RANK], step[WNN_MAX_RANK], count[WNN_MAX_RANK];
} onx_slice;
int onx_slice_rule(onx_importer *im, const Onnx__NodeProto *n, uint32_t rank, const int64_t *dims, onx_slice *s);

/* ---- files (tensor.c) ---- */
/* Reads a whole file (at most max bytes) into a new buffer. */
wnn_status onx_read_file(const char *path, size_t max, void **data, size_t *size);
/* Maps a model file read-only (falls back to reading it); release with
** onx_unmap_file(data, size, mapped). */
wnn_status onx_map_file(const char *path, size_t max, void **data, size_t *size, bool *mapped);
void onx_unmap_file(void *data, size_t size, bool mapped);

#endif /* WNN_ONNX_INTERNAL_H */
