/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case_internal.h -- what the three files of the WPT case runner share:
** the state of one run and the helpers each file gives the others.
**
**   wpt_case.c        the run: its outcome, tensors, dispatch, reads, judging
**   wpt_case_data.c   a case's descriptors and data (fill rule, encodings)
**   wpt_case_graph.c  the name table and the graph: inputs, operators, outputs
*/
#ifndef WNN_TOOLS_WPT_CASE_INTERNAL_H
#define WNN_TOOLS_WPT_CASE_INTERNAL_H

#ifdef WNN_HAVE_JANSSON

#include <stdint.h>

#include "wpt_case.h"

/* A name a later operator or an expected output can use. */
typedef struct named {
    const char *name;        /* points into the case's JSON */
    size_t len;
    const json_t *input;     /* the graph input's JSON, NULL for an operator output */
    wnn_operand *operand;    /* NULL until created */
    bool consumed;           /* named by a later operator */
    char *c_name;            /* for wnn, graph inputs only */
    void *data;              /* bytes to write, non-constant inputs only */
    size_t byte_length;
} named;

/* A graph output. */
typedef struct output_slot {
    named *source;
    char *c_name;
    char display[256];
    const json_t *expected;  /* NULL when the case expects nothing */
    wpt_number *values;      /* expected values; one value when fill */
    size_t value_count;
    bool fill;
    wnn_operand_desc desc;
    wnn_tensor *tensor;
    void *data;
    size_t byte_length;
    int verdict;
} output_slot;

typedef struct run_state {
    wnn_context *ctx;
    const json_t *tc;
    wpt_result *result;
    bool stopped;            /* a failure or skip was recorded */
    wnn_graph_builder *builder;
    named *names;
    size_t name_count, name_cap;
    output_slot *outs;
    size_t out_count;
    wnn_graph *graph;
    wnn_tensor **in_tensors;
    wnn_named_tensor *in_bind;
    size_t in_count;
    wnn_named_tensor *out_bind;
} run_state;

/* ---- the run's outcome (wpt_case.c) ---------------------------------------- */

/* Records the first failure or skip; later ones are consequences. */
void wpt__stop(run_state *s, wpt_outcome outcome, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Turns a refused builder call into a skip (a data type or an operator the
** device's opSupportLimits leave out) or a failure naming the call. */
void wpt__stop_for_builder(run_state *s, const char *what);
/* A failed wnn call: a failure with its status and wnn's message. */
void wpt__stop_for_status(run_state *s, wnn_status st, const char *what);

/* ---- descriptors and data (wpt_case_data.c) -------------------------------- */

/* True if the descriptor's shape holds a symbolic (object) dimension. */
bool wpt__has_dynamic_dims(const json_t *operand);
/* An operand's "descriptor"; false (the run stopped) when malformed. */
bool wpt__parse_descriptor(run_state *s, const json_t *operand, const char *what, wnn_operand_desc *out);
/* Bytes of count elements of t (int4/uint4 two to a byte). */
uint64_t wpt__packed_bytes(wnn_data_type t, uint64_t count);
/* Reads "data": an array of count values, or one value (the fill rule). */
bool wpt__read_values(run_state *s, const json_t *operand, const char *what, uint64_t count, wpt_number **values,
                      size_t *value_count, bool *fill);
/* Decodes an operand's "data" into the bytes of its descriptor. */
bool wpt__decode_data(run_state *s, const json_t *operand, const char *what, const wnn_operand_desc *desc,
                      void **bytes, size_t *byte_length);

/* ---- the name table and the graph (wpt_case_graph.c) ----------------------- */

/* The entry of a name; the last one wins, so an operator output may shadow
** an earlier name. NULL when none. */
named *wpt__find_name(run_state *s, const char *name, size_t len);
/* A new entry (zeroed but for its name); NULL (the run stopped) without memory. */
named *wpt__add_name(run_state *s, const char *name, size_t len);
/* Builds operator index of the case (op) and names its results. */
bool wpt__build_operator(run_state *s, const json_t *op, size_t index);
/* The graph's outputs: the expected outputs in order, or, for a model file
** without expectations, every operator output no later operator uses. */
bool wpt__collect_outputs(run_state *s, const json_t *expected);
/* Builds the graph of the collected outputs. */
bool wpt__build_graph(run_state *s);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_CASE_INTERNAL_H */
