/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops.h -- the table from WebNN builder method names ("add", "gemm",
** "reduceSum" ...) to adapters that turn a WPT case's JSON argument list into
** the matching wnn_* builder call.
**
** Owns: the adapter interface (wpt_call), the helpers adapters use to read
** positional arguments and options, the operator table itself (wpt_ops.c)
** and the adapters, one file per topic (wpt_ops_<topic>.c, declared at the
** end of this header).
**
** Adding an operator: a plain one- or two-operand one is one row
** (WPT_UNARY / WPT_BINARY) in the table of wpt_ops.c; any other is an
** adapter in the file of its topic, reading its arguments with the helpers
** below, declared here, plus one WPT_OP row.
*/
#ifndef WNN_TOOLS_WPT_OPS_H
#define WNN_TOOLS_WPT_OPS_H

#ifdef WNN_HAVE_JANSSON

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wnn/wnn.h"

/* The most positional arguments one operator call may have (WebNN's
** longest builder method, lstmCell, takes 6). Results have no such bound:
** an operator returns as many as it does (split into any count). */
#define WPT_MAX_ARGS 16

/* One positional argument: its label as the case wrote it (the IDL parameter
** name, for messages only), its JSON value, and the operand the value names
** (NULL when it names none). */
typedef struct wpt_arg {
    const char *key;
    const json_t *value;
    wnn_operand *operand;
} wpt_arg;

/* Resolves an operand name (graph input or earlier output); NULL if the name
** names none. Names are counted strings: they may hold U+0000. */
typedef wnn_operand *(*wpt_lookup_fn)(void *user, const char *name, size_t len);

struct wpt_op_entry;

/* One operator call being adapted. */
typedef struct wpt_call {
    wnn_graph_builder *builder;
    const char *op;                 /* the builder method name */
    const struct wpt_op_entry *entry; /* its table row (set by wpt_op_call) */
    const wpt_arg *args;            /* positional, in order; options excluded */
    size_t arg_count;
    const json_t *options;          /* the options object, NULL if none */
    wpt_lookup_fn lookup;
    void *lookup_user;
    /* Which options keys an adapter read; the runner fails the call if the
    ** case passes one no adapter read, instead of ignoring it silently. */
    const char *options_read[32];
    size_t options_read_count;
    /* The most results the caller can use (the names the case gives the
    ** operator's outputs): a call that would return more is refused before
    ** anything is sized from its arguments. */
    size_t max_results;
    /* The call's result operands, result_count of them, stored through
    ** wpt_call_one or wpt_call_many; an operand may be NULL when the builder
    ** refused (the builder then holds the error). wpt_call_free frees them. */
    wnn_operand **results;
    size_t result_count;
    char error[512];                /* set when an adapter returns false */
} wpt_call;

/* An adapter: calls the builder and stores its results in the call. Returns
** false, with call->error set, when the arguments cannot be turned into a
** call. */
typedef bool (*wpt_adapter)(wpt_call *call);

typedef wnn_operand *(*wpt_unary_fn)(wnn_graph_builder *b, wnn_operand *x);
typedef wnn_operand *(*wpt_binary_fn)(wnn_graph_builder *b, wnn_operand *a, wnn_operand *c);

typedef struct wpt_op_entry {
    const char *name;
    wpt_adapter adapter;
    wpt_unary_fn unary;   /* for the shared element-wise adapters */
    wpt_binary_fn binary;
} wpt_op_entry;

/* The entry for a builder method name, or NULL if the runner has none. */
const wpt_op_entry *wpt_op_find(const char *name);

/* Sets call->entry and calls the entry's adapter; the shared element-wise
** adapters find their wnn_* function through call->entry. The results are in
** call->results. */
bool wpt_op_call(const wpt_op_entry *entry, wpt_call *call);

/* Room for count results, all NULL, as call->results: what a builder method
** that writes count operands is given. NULL, with the call failed, when count
** is over call->max_results or memory runs out. */
wnn_operand **wpt_call_many(wpt_call *call, size_t count);

/* Stores the one result of a single-output operator; false as
** wpt_call_many. */
bool wpt_call_one(wpt_call *call, wnn_operand *result);

/* Frees the call's results (the operands stay the builder's). */
void wpt_call_free(wpt_call *call);

/* Fails the call if its options hold a key no adapter read ("label" is
** always allowed: it only names the operator). */
bool wpt_call_check_options(wpt_call *call);

/* Sets call->error ("<op>: <message>") and returns false, for adapters. */
bool wpt_call_fail(wpt_call *call, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Positional argument helpers; each fails the call with a message naming the
** operator and the argument when the value does not fit. */
bool wpt_args_between(wpt_call *call, size_t min, size_t max);
bool wpt_arg_operand(wpt_call *call, size_t index, wnn_operand **out);
bool wpt_arg_u32(wpt_call *call, size_t index, uint32_t *out);
bool wpt_arg_double(wpt_call *call, size_t index, double *out);
bool wpt_arg_data_type(wpt_call *call, size_t index, wnn_data_type *out);
/* A list of unsigned integers, at most cap of them. */
bool wpt_arg_u32_list(wpt_call *call, size_t index, uint32_t *out, size_t cap, size_t *count);
/* A list of unsigned integers of any length. *out is malloc'ed (free it). */
bool wpt_arg_u32_array(wpt_call *call, size_t index, uint32_t **out, size_t *count);
/* A list of operand names. *out is malloc'ed (free it); *count its length. */
bool wpt_arg_operand_list(wpt_call *call, size_t index, wnn_operand ***out, size_t *count);

/* Options helpers: an absent key leaves *out (and sets *present false where
** present is given); a present key of the wrong kind fails the call. */
bool wpt_opt_operand(wpt_call *call, const char *key, wnn_operand **out);
bool wpt_opt_double(wpt_call *call, const char *key, bool *present, double *out);
bool wpt_opt_bool(wpt_call *call, const char *key, bool *out);
bool wpt_opt_u32(wpt_call *call, const char *key, bool *present, uint32_t *out);
/* For the C API's optional members (a pointer, NULL for WebNN's default):
** a present key is read into *value and *out points at it; an absent one
** leaves *out NULL. */
bool wpt_opt_double_ptr(wpt_call *call, const char *key, double *value, const double **out);
bool wpt_opt_u32_ptr(wpt_call *call, const char *key, uint32_t *value, const uint32_t **out);
bool wpt_opt_u32_list(wpt_call *call, const char *key, bool *present, uint32_t *out, size_t cap,
                      size_t *count);
bool wpt_opt_string(wpt_call *call, const char *key, const char **out);
/* The raw value of an options key, recorded as read; NULL if absent. */
const json_t *wpt_opt_value(wpt_call *call, const char *key);
/* A string option naming one of n enum values (the indices of names); *out
** keeps its value when the key is absent. */
bool wpt_opt_enum(wpt_call *call, const char *key, const char *const *names, size_t n, int *out);
/* A sequence option of exactly n unsigned integers (WebNN sizes these
** sequences, the C API fixes them); *present, where given, tells whether it
** was there. */
bool wpt_opt_fixed(wpt_call *call, const char *key, uint32_t *out, size_t n, bool *present);
/* A layout option, "nchw" or "nhwc". */
bool wpt_opt_layout(wpt_call *call, const char *key, wnn_input_layout *out);

/* Fails the call unless length equals x's rank: the C API reads exactly rank
** entries of such arrays (transpose's permutation, slice's starts, pad's
** paddings ...), so a wrong length (a TypeError in WebNN) is caught here. */
bool wpt_rank_length(wpt_call *call, const char *what, size_t length, wnn_operand *x);

/* ------------------------------------------------------------------------ */
/* Adapters by topic, each with wpt_adapter's signature and one row in       */
/* wpt_ops.c's table                                                         */
/* ------------------------------------------------------------------------ */

/* Element-wise (wpt_ops_elementwise.c): the shared one- and two-operand
** adapters (they find their wnn_* function through call->entry), clamp,
** cast, where and the activations with options. */
bool wpt_adapt_unary(wpt_call *call);
bool wpt_adapt_binary(wpt_call *call);
bool wpt_adapt_clamp(wpt_call *call);
bool wpt_adapt_cast(wpt_call *call);
bool wpt_adapt_where(wpt_call *call);
bool wpt_adapt_elu(wpt_call *call);
bool wpt_adapt_hard_sigmoid(wpt_call *call);
bool wpt_adapt_leaky_relu(wpt_call *call);
bool wpt_adapt_linear(wpt_call *call);

/* Reduction (wpt_ops_reduce.c). wpt_adapt_reduce serves every reduceXxx: it
** picks the wnn_reduce_* function by call->op. */
bool wpt_adapt_reduce(wpt_call *call);
bool wpt_adapt_arg_min(wpt_call *call);
bool wpt_adapt_arg_max(wpt_call *call);
bool wpt_adapt_cumulative_sum(wpt_call *call);
bool wpt_adapt_softmax(wpt_call *call);

/* Data movement (wpt_ops_movement.c). */
bool wpt_adapt_reshape(wpt_call *call);
bool wpt_adapt_transpose(wpt_call *call);
bool wpt_adapt_concat(wpt_call *call);
bool wpt_adapt_slice(wpt_call *call);
bool wpt_adapt_expand(wpt_call *call);
bool wpt_adapt_pad(wpt_call *call);
bool wpt_adapt_split(wpt_call *call);
bool wpt_adapt_tile(wpt_call *call);
bool wpt_adapt_reverse(wpt_call *call);
bool wpt_adapt_triangular(wpt_call *call);

/* Gather and scatter (wpt_ops_gather.c). */
bool wpt_adapt_gather(wpt_call *call);
bool wpt_adapt_gather_elements(wpt_call *call);
bool wpt_adapt_gather_nd(wpt_call *call);
bool wpt_adapt_scatter_elements(wpt_call *call);
bool wpt_adapt_scatter_nd(wpt_call *call);

/* Linear algebra (wpt_ops_linalg.c); matmul is a WPT_BINARY row. */
bool wpt_adapt_gemm(wpt_call *call);

/* Convolution, pooling and resampling (wpt_ops_conv.c). */
bool wpt_adapt_conv2d(wpt_call *call);
bool wpt_adapt_conv_transpose2d(wpt_call *call);
bool wpt_adapt_average_pool2d(wpt_call *call);
bool wpt_adapt_l2_pool2d(wpt_call *call);
bool wpt_adapt_max_pool2d(wpt_call *call);
bool wpt_adapt_resample2d(wpt_call *call);

/* Normalization (wpt_ops_norm.c). */
bool wpt_adapt_batch_normalization(wpt_call *call);
bool wpt_adapt_instance_normalization(wpt_call *call);
bool wpt_adapt_layer_normalization(wpt_call *call);

/* Quantization (wpt_ops_quantize.c). */
bool wpt_adapt_quantize_linear(wpt_call *call);
bool wpt_adapt_dequantize_linear(wpt_call *call);

/* Recurrent networks (wpt_ops_recurrent.c). */
bool wpt_adapt_gru(wpt_call *call);
bool wpt_adapt_gru_cell(wpt_call *call);
bool wpt_adapt_lstm(wpt_call *call);
bool wpt_adapt_lstm_cell(wpt_call *call);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_OPS_H */
