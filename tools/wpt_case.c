/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case.c -- runs one WPT-format case through wnn's public API.
**
** Owns: reading descriptors and data (fill rule, every data type's encoding,
** float16 through WPT's toHalf, int4/uint4 packing), the name table of graph
** inputs and operator outputs, building the graph with the operator table,
** one dispatch per run with writable input tensors and readable output
** tensors, and judging outputs (descriptor first, then values).
**
** Graph inputs are created on first use, as WPT creates them, and then reused:
** an input no operator names never becomes a graph input. The case's JSON must
** outlive the run: names point into it.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_case.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/shape.h"
#include "wpt_ops.h"

/* ------------------------------------------------------------------------ */
/* Small utilities                                                          */
/* ------------------------------------------------------------------------ */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const char *wpt_outcome_name(wpt_outcome outcome)
{
    static const char *const names[] = {[WPT_PASS] = "PASS", [WPT_FAIL] = "FAIL", [WPT_SKIP] = "SKIP"};
    return (unsigned)outcome < 3u ? names[outcome] : "?";
}

/* The C string handed to wnn for an operand name. wnn's names are
** NUL-terminated, so an embedded U+0000 is spelled "\u0000" instead, as
** wpt_load_file() already does for files; this covers cases built in memory
** (tests). The name still matches every use of itself within one run. */
static char *make_c_name(const char *name, size_t len)
{
    size_t nuls = 0;
    for (size_t i = 0; i < len; i++)
        nuls += name[i] == '\0';
    char *out = malloc(len + nuls * 5 + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] == '\0') {
            memcpy(out + o, "\\u0000", 6);
            o += 6;
        } else {
            out[o++] = name[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* ------------------------------------------------------------------------ */
/* The state of one run                                                     */
/* ------------------------------------------------------------------------ */

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

static void stop(run_state *s, wpt_outcome outcome, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Records the first failure or skip; later ones are consequences. */
static void stop(run_state *s, wpt_outcome outcome, const char *fmt, ...)
{
    if (s->stopped)
        return;
    s->stopped = true;
    s->result->outcome = outcome;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->result->reason, sizeof s->result->reason, fmt, ap);
    va_end(ap);
}

/* Turns a refused builder call into a skip (a data type or an operator the
** device's opSupportLimits leave out) or a failure naming the call. */
static void stop_for_builder(run_state *s, const char *what)
{
    wnn_status st = wnn_graph_builder_status(s->builder);
    const char *msg = wnn_graph_builder_error_message(s->builder);
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE)
        stop(s, WPT_SKIP, "unsupported data type: %s", msg ? msg : "");
    else if (st == WNN_STATUS_NOT_SUPPORTED)
        stop(s, WPT_SKIP, "operator not supported on this device: %s", msg ? msg : "");
    else
        stop(s, WPT_FAIL, "%s: builder refused it: %s: %s", what, wnn_status_string(st), msg ? msg : "");
}

static void stop_for_status(run_state *s, wnn_status st, const char *what)
{
    stop(s, WPT_FAIL, "%s failed: %s: %s", what, wnn_status_string(st), wnn_last_error_message());
}

static named *find_name(run_state *s, const char *name, size_t len)
{
    /* The last entry wins, so an operator output may shadow an earlier name. */
    for (size_t i = s->name_count; i-- > 0;)
        if (s->names[i].len == len && memcmp(s->names[i].name, name, len) == 0)
            return &s->names[i];
    return NULL;
}

static named *add_name(run_state *s, const char *name, size_t len)
{
    if (s->name_count == s->name_cap) {
        size_t cap = s->name_cap ? s->name_cap * 2 : 16;
        named *grown = realloc(s->names, cap * sizeof *grown);
        if (grown == NULL) {
            stop(s, WPT_FAIL, "out of memory for the name table");
            return NULL;
        }
        s->names = grown;
        s->name_cap = cap;
    }
    named *n = &s->names[s->name_count++];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->len = len;
    return n;
}

/* ------------------------------------------------------------------------ */
/* Descriptors and data                                                     */
/* ------------------------------------------------------------------------ */

/* True if the descriptor's shape holds a symbolic (object) dimension. */
static bool has_dynamic_dims(const json_t *operand)
{
    const json_t *desc = json_object_get(operand, "descriptor");
    const json_t *shape = json_object_get(desc, "shape");
    for (size_t i = 0; i < json_array_size(shape); i++)
        if (json_is_object(json_array_get(shape, i)))
            return true;
    return false;
}

static bool parse_descriptor(run_state *s, const json_t *operand, const char *what, wnn_operand_desc *out)
{
    const json_t *desc = json_object_get(operand, "descriptor");
    if (!json_is_object(desc)) {
        stop(s, WPT_FAIL, "%s: missing \"descriptor\" object", what);
        return false;
    }
    const json_t *type = json_object_get(desc, "dataType");
    if (!json_is_string(type)) {
        stop(s, WPT_FAIL, "%s: descriptor.dataType is missing or not a string", what);
        return false;
    }
    out->data_type = wnn_data_type_from_name(json_string_value(type));
    if (out->data_type == WNN_DATA_TYPE_INVALID) {
        stop(s, WPT_FAIL, "%s: descriptor.dataType \"%s\" is not a WebNN data type", what,
             json_string_value(type));
        return false;
    }
    /* Old WPT files called the shape "dimensions". */
    const json_t *shape = json_object_get(desc, "shape");
    if (shape == NULL)
        shape = json_object_get(desc, "dimensions");
    if (!json_is_array(shape)) {
        stop(s, WPT_FAIL, "%s: descriptor.shape is missing or not an array", what);
        return false;
    }
    size_t rank = json_array_size(shape);
    if (rank > WNN_MAX_RANK) {
        stop(s, WPT_FAIL, "%s: descriptor.shape has rank %zu, wnn supports at most %d", what, rank,
             WNN_MAX_RANK);
        return false;
    }
    out->rank = (uint32_t)rank;
    for (size_t i = 0; i < WNN_MAX_RANK; i++)
        out->shape[i] = 0;
    for (size_t i = 0; i < rank; i++) {
        const json_t *d = json_array_get(shape, i);
        json_int_t v = json_is_integer(d) ? json_integer_value(d) : -1;
        if (v < 0 || v > (json_int_t)UINT32_MAX) {
            stop(s, WPT_FAIL, "%s: descriptor.shape[%zu] must be an integer in 0..4294967295", what, i);
            return false;
        }
        out->shape[i] = (uint32_t)v;
    }
    return true;
}

static uint64_t packed_bytes(wnn_data_type t, uint64_t count)
{
    if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
        return (count + 1u) / 2u;
    return count * wnn_data_type_size(t);
}

/* Reads "data": an array of count values, or one value (the fill rule). */
static bool read_values(run_state *s, const json_t *operand, const char *what, uint64_t count,
                        wpt_number **values, size_t *value_count, bool *fill)
{
    const json_t *data = json_object_get(operand, "data");
    *values = NULL;
    *fill = false;
    if (data == NULL) {
        stop(s, WPT_FAIL, "%s: missing \"data\"", what);
        return false;
    }
    if (!json_is_array(data)) {
        wpt_number *one = malloc(sizeof *one);
        if (one == NULL || !wpt_json_number(data, one)) {
            free(one);
            stop(s, WPT_FAIL, "%s: \"data\" must be an array or a number", what);
            return false;
        }
        *values = one;
        *value_count = 1;
        *fill = count > 1;
        return true;
    }
    size_t n = json_array_size(data);
    if (n != count) {
        stop(s, WPT_FAIL, "%s: \"data\" has %zu values, the descriptor has %" PRIu64 " elements", what, n,
             count);
        return false;
    }
    wpt_number *v = malloc((n ? n : 1) * sizeof *v);
    if (v == NULL) {
        stop(s, WPT_FAIL, "%s: out of memory for %zu values", what, n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!wpt_json_number(json_array_get(data, i), &v[i])) {
            free(v);
            stop(s, WPT_FAIL, "%s: data[%zu] is not a number (nor \"NaN\", \"Infinity\", \"123n\")", what, i);
            return false;
        }
    }
    *values = v;
    *value_count = n;
    return true;
}

/* Stores one value as element i of a buffer of type t. */
static void encode_element(wnn_data_type t, const wpt_number *n, uint8_t *out, uint64_t i)
{
    uint64_t w;
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: {
        float f = (float)n->d;
        memcpy(out + i * 4u, &f, 4);
        break;
    }
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h = wpt_half_from_double(n->d);
        memcpy(out + i * 2u, &h, 2);
        break;
    }
    case WNN_DATA_TYPE_INT32:
    case WNN_DATA_TYPE_UINT32: {
        uint32_t u = (uint32_t)wpt_number_wrap64(n);
        memcpy(out + i * 4u, &u, 4);
        break;
    }
    case WNN_DATA_TYPE_INT64:
    case WNN_DATA_TYPE_UINT64:
        w = wpt_number_wrap64(n);
        memcpy(out + i * 8u, &w, 8);
        break;
    case WNN_DATA_TYPE_INT8:
    case WNN_DATA_TYPE_UINT8:
        out[i] = (uint8_t)wpt_number_wrap64(n);
        break;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4: {
        /* value & 0xF, two per byte, element 2k in the low nibble. */
        uint8_t nib = (uint8_t)(wpt_number_wrap64(n) & 0x0fu);
        if (i % 2u == 0)
            out[i / 2u] = (uint8_t)((out[i / 2u] & 0xf0u) | nib);
        else
            out[i / 2u] = (uint8_t)((out[i / 2u] & 0x0fu) | (nib << 4));
        break;
    }
    default:
        break;
    }
}

/* Decodes an operand's "data" into the bytes of its descriptor. */
static bool decode_data(run_state *s, const json_t *operand, const char *what, const wnn_operand_desc *desc,
                        void **bytes, size_t *byte_length)
{
    uint64_t count = wnn__shape_count_within(desc, WNN_MAX_DIMENSION);
    if (count == UINT64_MAX) {
        stop(s, WPT_FAIL, "%s: more than 2^31-1 elements", what);
        return false;
    }
    wpt_number *values;
    size_t n;
    bool fill;
    if (!read_values(s, operand, what, count, &values, &n, &fill))
        return false;
    uint64_t len = packed_bytes(desc->data_type, count);
    uint8_t *buf = calloc(len ? (size_t)len : 1u, 1);
    if (buf == NULL) {
        free(values);
        stop(s, WPT_FAIL, "%s: out of memory for %" PRIu64 " bytes", what, len);
        return false;
    }
    for (uint64_t i = 0; i < count; i++)
        encode_element(desc->data_type, fill ? &values[0] : &values[i], buf, i);
    free(values);
    *bytes = buf;
    *byte_length = (size_t)len;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Graph inputs                                                             */
/* ------------------------------------------------------------------------ */

/* Creates a graph input's operand on its first use. */
static bool create_input(run_state *s, named *n)
{
    char what[300], display[200];
    wnn_operand_desc desc;
    void *bytes = NULL;
    size_t len = 0;
    wpt_escape_display(n->name, n->len, display, sizeof display);
    snprintf(what, sizeof what, "input '%s'", display);
    if (!json_is_object(n->input)) {
        stop(s, WPT_FAIL, "%s: must be an object with data and descriptor", what);
        return false;
    }
    if (!parse_descriptor(s, n->input, what, &desc) || !decode_data(s, n->input, what, &desc, &bytes, &len))
        return false;
    const json_t *constant = json_object_get(n->input, "constant");
    if (constant != NULL && !json_is_boolean(constant)) {
        free(bytes);
        stop(s, WPT_FAIL, "%s: \"constant\" must be true or false", what);
        return false;
    }
    if (json_is_true(constant)) {
        n->operand = wnn_graph_builder_constant(s->builder, &desc, bytes, len);
        free(bytes);
    } else {
        n->c_name = make_c_name(n->name, n->len);
        if (n->c_name == NULL) {
            free(bytes);
            stop(s, WPT_FAIL, "%s: out of memory", what);
            return false;
        }
        n->operand = wnn_graph_builder_input(s->builder, n->c_name, &desc);
        n->data = bytes;
        n->byte_length = len;
    }
    if (n->operand == NULL) {
        stop_for_builder(s, what);
        return false;
    }
    return true;
}

/* wpt_lookup_fn for the operator table: an input or an earlier output. */
static wnn_operand *lookup(void *user, const char *name, size_t len)
{
    run_state *s = user;
    named *n = find_name(s, name, len);
    if (n == NULL || s->stopped)
        return NULL;
    if (n->operand == NULL && n->input != NULL && !create_input(s, n))
        return NULL;
    n->consumed = true;
    return n->operand;
}

/* ------------------------------------------------------------------------ */
/* Operators                                                                */
/* ------------------------------------------------------------------------ */

/* Flattens "arguments" (objects, each key in order) into positional args. */
static bool collect_args(run_state *s, wpt_call *call, const json_t *args, wpt_arg *out, const char *what)
{
    if (!json_is_array(args)) {
        stop(s, WPT_FAIL, "%s: \"arguments\" must be an array", what);
        return false;
    }
    for (size_t i = 0; i < json_array_size(args); i++) {
        const json_t *obj = json_array_get(args, i);
        if (!json_is_object(obj)) {
            stop(s, WPT_FAIL, "%s: arguments[%zu] must be an object", what, i);
            return false;
        }
        for (void *it = json_object_iter((json_t *)obj); it != NULL;
             it = json_object_iter_next((json_t *)obj, it)) {
            const char *key = json_object_iter_key(it);
            const json_t *value = json_object_iter_value(it);
            if (strcmp(key, "options") == 0) {
                if (!json_is_object(value)) {
                    stop(s, WPT_FAIL, "%s: options must be an object", what);
                    return false;
                }
                call->options = value;
                continue;
            }
            if (call->arg_count == WPT_MAX_ARGS) {
                stop(s, WPT_FAIL, "%s: more than %d positional arguments", what, WPT_MAX_ARGS);
                return false;
            }
            wpt_arg *a = &out[call->arg_count++];
            a->key = key;
            a->value = value;
            /* A string naming an operand becomes that operand. */
            a->operand = json_is_string(value)
                             ? lookup(s, json_string_value(value), json_string_length(value))
                             : NULL;
            if (s->stopped)
                return false;
        }
    }
    return true;
}

/* How many results "outputs" names: 1 for a string, the length of an array;
** false when it is neither. */
static bool outputs_named(run_state *s, const json_t *outputs, const char *what, size_t *count)
{
    if (!json_is_string(outputs) && !json_is_array(outputs)) {
        stop(s, WPT_FAIL, "%s: \"outputs\" must be a string or an array of strings", what);
        return false;
    }
    *count = json_is_string(outputs) ? 1u : json_array_size(outputs);
    return true;
}

/* Names the operator's results as "outputs" says (want names, checked by
** outputs_named). */
static bool name_outputs(run_state *s, const json_t *outputs, size_t want, wnn_operand **ops, size_t count,
                         const char *what)
{
    if (want != count) {
        stop(s, WPT_FAIL, "%s: the case names %zu outputs, the operator returned %zu", what, want, count);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const json_t *name = json_is_string(outputs) ? outputs : json_array_get(outputs, i);
        if (!json_is_string(name)) {
            stop(s, WPT_FAIL, "%s: outputs[%zu] must be a string", what, i);
            return false;
        }
        if (ops[i] == NULL) {
            stop_for_builder(s, what);
            return false;
        }
        named *n = add_name(s, json_string_value(name), json_string_length(name));
        if (n == NULL)
            return false;
        n->operand = ops[i];
    }
    return true;
}

static bool build_operator(run_state *s, const json_t *op, size_t index)
{
    char what[160];
    const char *name = json_string_value(json_object_get(op, "name"));
    if (!json_is_object(op) || name == NULL) {
        stop(s, WPT_FAIL, "operators[%zu]: missing \"name\"", index);
        return false;
    }
    snprintf(what, sizeof what, "operators[%zu] %s", index, name);
    const wpt_op_entry *entry = wpt_op_find(name);
    if (entry == NULL) {
        stop(s, WPT_FAIL, "operator %s not implemented", name);
        return false;
    }
    const json_t *outputs = json_object_get(op, "outputs");
    wpt_arg args[WPT_MAX_ARGS];
    wpt_call call;
    memset(&call, 0, sizeof call);
    call.builder = s->builder;
    call.op = name;
    call.args = args;
    call.lookup = lookup;
    call.lookup_user = s;
    if (!outputs_named(s, outputs, what, &call.max_results) ||
        !collect_args(s, &call, json_object_get(op, "arguments"), args, what))
        return false;
    bool ok = wpt_op_call(entry, &call);
    if (ok) {
        ok = name_outputs(s, outputs, call.max_results, call.results, call.result_count, what);
    } else {
        /* A lookup inside the adapter may have stopped the run already. */
        stop(s, WPT_FAIL, "%s", call.error);
    }
    wpt_call_free(&call);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                  */
/* ------------------------------------------------------------------------ */

static void format_shape(const wnn_operand_desc *d, char *buf, size_t size)
{
    size_t o = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < d->rank && o < size; i++)
        o += (size_t)snprintf(buf + o, size - o, "%s%u", i ? ", " : "", d->shape[i]);
    if (o < size)
        snprintf(buf + o, size - o, "]");
}

static bool same_desc(const wnn_operand_desc *a, const wnn_operand_desc *b)
{
    if (a->data_type != b->data_type || a->rank != b->rank)
        return false;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

static bool add_output(run_state *s, named *source, const json_t *expected)
{
    output_slot *o = &s->outs[s->out_count++];
    memset(o, 0, sizeof *o);
    o->source = source;
    o->expected = expected;
    o->verdict = -1;
    wpt_escape_display(source->name, source->len, o->display, sizeof o->display);
    o->c_name = make_c_name(source->name, source->len);
    if (o->c_name == NULL) {
        stop(s, WPT_FAIL, "output '%s': out of memory", o->display);
        return false;
    }
    wnn_operand_get_desc(source->operand, &o->desc);
    if (expected == NULL)
        return true;
    /* WPT asserts the data type and shape before reading any value. */
    char what[300];
    wnn_operand_desc want;
    snprintf(what, sizeof what, "expected output '%s'", o->display);
    if (!json_is_object(expected)) {
        stop(s, WPT_FAIL, "%s: must be an object with data and descriptor", what);
        return false;
    }
    if (!parse_descriptor(s, expected, what, &want))
        return false;
    if (!same_desc(&o->desc, &want)) {
        char got[128], exp[128];
        format_shape(&o->desc, got, sizeof got);
        format_shape(&want, exp, sizeof exp);
        stop(s, WPT_FAIL, "output '%s': descriptor is %s %s, expected %s %s", o->display,
             wnn_data_type_name(o->desc.data_type), got, wnn_data_type_name(want.data_type), exp);
        return false;
    }
    uint64_t count = wnn__shape_count_within(&want, WNN_MAX_DIMENSION);
    if (count == UINT64_MAX) {
        stop(s, WPT_FAIL, "%s: more than 2^31-1 elements", what);
        return false;
    }
    return read_values(s, expected, what, count, &o->values, &o->value_count, &o->fill);
}

/* The graph's outputs: the expected outputs in order, or, for a model file
** without expectations, every operator output no later operator uses. */
static bool collect_outputs(run_state *s, const json_t *expected)
{
    size_t cap = expected ? json_object_size(expected) : s->name_count;
    s->outs = calloc(cap ? cap : 1, sizeof *s->outs);
    if (s->outs == NULL) {
        stop(s, WPT_FAIL, "out of memory for outputs");
        return false;
    }
    if (expected == NULL) {
        for (size_t i = 0; i < s->name_count; i++)
            if (s->names[i].input == NULL && !s->names[i].consumed && !add_output(s, &s->names[i], NULL))
                return false;
        if (s->out_count == 0) {
            stop(s, WPT_FAIL, "the graph has no outputs");
            return false;
        }
        return true;
    }
    for (void *it = json_object_iter((json_t *)expected); it != NULL;
         it = json_object_iter_next((json_t *)expected, it)) {
        const char *key = json_object_iter_key(it);
        size_t len = json_object_iter_key_len(it);
        named *n = find_name(s, key, len);
        if (n == NULL || n->input != NULL) {
            char display[200];
            wpt_escape_display(key, len, display, sizeof display);
            stop(s, WPT_FAIL, "expected output '%s' is not produced by any operator", display);
            return false;
        }
        if (!add_output(s, n, json_object_iter_value(it)))
            return false;
    }
    if (s->out_count == 0) {
        stop(s, WPT_FAIL, "\"expectedOutputs\" is empty");
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Build, feed, dispatch, read                                              */
/* ------------------------------------------------------------------------ */

static bool build_graph(run_state *s)
{
    wnn_named_operand *outs = calloc(s->out_count, sizeof *outs);
    if (outs == NULL) {
        stop(s, WPT_FAIL, "out of memory for build outputs");
        return false;
    }
    for (size_t i = 0; i < s->out_count; i++) {
        outs[i].name = s->outs[i].c_name;
        outs[i].operand = s->outs[i].source->operand;
    }
    wnn_status st = wnn_graph_builder_build(s->builder, outs, s->out_count, &s->graph);
    free(outs);
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE) {
        stop(s, WPT_SKIP, "unsupported data type: %s", wnn_last_error_message());
        return false;
    }
    if (st != WNN_OK) {
        stop_for_status(s, st, "wnn_graph_builder_build");
        return false;
    }
    return true;
}

/* Creates a tensor; a data type the device lacks is a skip. */
static wnn_tensor *create_tensor(run_state *s, const wnn_operand_desc *d, bool readable, bool writable,
                                 const char *what)
{
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    wnn_tensor *t = NULL;
    td.data_type = d->data_type;
    td.rank = d->rank;
    memcpy(td.shape, d->shape, sizeof td.shape);
    td.readable = readable;
    td.writable = writable;
    wnn_status st = wnn_context_create_tensor(s->ctx, &td, &t);
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE) {
        wnn_device_info info;
        const char *device = wnn_context_get_device_info(s->ctx, &info) == WNN_OK ? info.name : "?";
        stop(s, WPT_SKIP, "data type %s not supported for tensors on device %s",
             wnn_data_type_name(d->data_type), device);
        return NULL;
    }
    if (st != WNN_OK) {
        char msg[300];
        snprintf(msg, sizeof msg, "wnn_context_create_tensor for %s", what);
        stop_for_status(s, st, msg);
        return NULL;
    }
    return t;
}

/* Binds every graph input wnn reports to a writable tensor holding its data. */
static bool feed_inputs(run_state *s)
{
    uint32_t n = wnn_graph_input_count(s->graph);
    s->in_tensors = calloc(n ? n : 1, sizeof *s->in_tensors);
    s->in_bind = calloc(n ? n : 1, sizeof *s->in_bind);
    if (s->in_tensors == NULL || s->in_bind == NULL) {
        stop(s, WPT_FAIL, "out of memory for input tensors");
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name = NULL;
        wnn_operand_desc d;
        wnn_status st = wnn_graph_get_input(s->graph, i, &name, &d);
        if (st != WNN_OK) {
            stop_for_status(s, st, "wnn_graph_get_input");
            return false;
        }
        named *src = NULL;
        for (size_t k = 0; k < s->name_count && src == NULL; k++)
            if (s->names[k].c_name != NULL && s->names[k].data != NULL && strcmp(s->names[k].c_name, name) == 0)
                src = &s->names[k];
        if (src == NULL) {
            stop(s, WPT_FAIL, "graph input '%s' is not an input of the case", name);
            return false;
        }
        wnn_tensor *t = create_tensor(s, &d, false, true, name);
        if (t == NULL)
            return false;
        s->in_tensors[s->in_count] = t;
        s->in_bind[s->in_count].name = name;
        s->in_bind[s->in_count].tensor = t;
        s->in_count++;
        st = wnn_context_write_tensor(s->ctx, t, src->data, src->byte_length);
        if (st != WNN_OK) {
            stop_for_status(s, st, "wnn_context_write_tensor");
            return false;
        }
    }
    return true;
}

static bool create_outputs(run_state *s)
{
    s->out_bind = calloc(s->out_count, sizeof *s->out_bind);
    if (s->out_bind == NULL) {
        stop(s, WPT_FAIL, "out of memory for output tensors");
        return false;
    }
    for (size_t i = 0; i < s->out_count; i++) {
        output_slot *o = &s->outs[i];
        o->tensor = create_tensor(s, &o->desc, true, false, o->display);
        if (o->tensor == NULL)
            return false;
        uint64_t count = wnn__shape_count_within(&o->desc, WNN_MAX_DIMENSION);
        o->byte_length = (size_t)packed_bytes(o->desc.data_type, count);
        o->data = calloc(o->byte_length ? o->byte_length : 1, 1);
        if (o->data == NULL) {
            stop(s, WPT_FAIL, "out of memory for output '%s'", o->display);
            return false;
        }
        s->out_bind[i].name = o->c_name;
        s->out_bind[i].tensor = o->tensor;
    }
    return true;
}

/* Compares every output of one run; the first mismatch fails the case. */
static void judge(run_state *s, const wpt_tolerance *tol)
{
    for (size_t i = 0; i < s->out_count; i++) {
        output_slot *o = &s->outs[i];
        if (o->expected == NULL)
            continue;
        wpt_mismatch m;
        uint64_t count = wnn__shape_count_within(&o->desc, WNN_MAX_DIMENSION);
        bool ok = wpt_compare_values(o->desc.data_type, o->data, count, o->values, o->value_count, o->fill, tol,
                                     &m);
        if (o->verdict != 0)
            o->verdict = ok ? 1 : 0;
        if (ok || s->stopped)
            continue;
        wpt_result *r = s->result;
        r->has_mismatch = true;
        r->mismatch = m;
        snprintf(r->output, sizeof r->output, "%s", o->display);
        if (m.index == SIZE_MAX)
            stop(s, WPT_FAIL, "output '%s': got %s, expected %s", o->display, m.got, m.expected);
        else
            stop(s, WPT_FAIL, "output '%s'[%zu]: got %s, expected %s, allowed %s", o->display, m.index, m.got,
                 m.expected, m.allowed);
    }
}

static bool dispatch_and_read(run_state *s, const wpt_run_options *opt, const wpt_tolerance *tol)
{
    unsigned repeat = opt->repeat ? opt->repeat : 1u;
    double total = 0;
    for (unsigned r = 0; r < repeat; r++) {
        double t0 = now_ms();
        wnn_status st = wnn_context_dispatch(s->ctx, s->graph, s->in_bind, s->in_count, s->out_bind, s->out_count);
        if (st != WNN_OK) {
            stop_for_status(s, st, "wnn_context_dispatch");
            return false;
        }
        for (size_t i = 0; i < s->out_count; i++) {
            output_slot *o = &s->outs[i];
            st = wnn_context_read_tensor_sync(s->ctx, o->tensor, o->data, o->byte_length);
            if (st != WNN_OK) {
                char what[320];
                snprintf(what, sizeof what, "wnn_context_read_tensor_sync of output '%s'", o->display);
                stop_for_status(s, st, what);
                return false;
            }
        }
        total += now_ms() - t0;
        /* Errors the timeline met after dispatch returned surface here. */
        st = wnn_context_finish(s->ctx);
        if (st != WNN_OK) {
            stop_for_status(s, st, "the dispatch (wnn_context_finish)");
            return false;
        }
        s->result->runs = r + 1;
        if (tol != NULL)
            judge(s, tol);
        if (opt->on_run != NULL)
            opt->on_run(opt->on_run_user, r + 1, repeat);
    }
    s->result->run_ms = total / repeat;
    return true;
}

/* ------------------------------------------------------------------------ */
/* The case                                                                 */
/* ------------------------------------------------------------------------ */

static bool parse_tolerance(run_state *s, wpt_tolerance *tol)
{
    const json_t *t = json_object_get(s->tc, "tolerance");
    const char *metric = json_string_value(json_object_get(t, "metricType"));
    const json_t *value = json_object_get(t, "value");
    if (!json_is_object(t)) {
        stop(s, WPT_FAIL, "missing \"tolerance\" object");
        return false;
    }
    if (!wpt_metric_from_name(metric, &tol->metric)) {
        stop(s, WPT_FAIL, "tolerance.metricType must be \"ULP\" or \"ATOL\"");
        return false;
    }
    if (!json_is_number(value) || !(json_number_value(value) >= 0)) {
        stop(s, WPT_FAIL, "tolerance.value must be a number >= 0");
        return false;
    }
    tol->value = json_number_value(value);
    tol->check = wpt_check_from_note(json_string_value(json_object_get(s->tc, "toleranceNote")));
    return true;
}

/* Registers the graph inputs by name; operands are created on first use. */
static bool register_inputs(run_state *s, const json_t *inputs)
{
    if (inputs == NULL)
        return true;
    if (!json_is_object(inputs)) {
        stop(s, WPT_FAIL, "graph.inputs must be an object");
        return false;
    }
    for (void *it = json_object_iter((json_t *)inputs); it != NULL; it = json_object_iter_next((json_t *)inputs, it)) {
        named *n = add_name(s, json_object_iter_key(it), json_object_iter_key_len(it));
        if (n == NULL)
            return false;
        n->input = json_object_iter_value(it);
        if (has_dynamic_dims(n->input)) {
            stop(s, WPT_SKIP, "dynamic dimensions not supported");
            return false;
        }
    }
    return true;
}

static bool any_dynamic_output(const json_t *expected)
{
    for (void *it = json_object_iter((json_t *)expected); it != NULL;
         it = json_object_iter_next((json_t *)expected, it))
        if (has_dynamic_dims(json_object_iter_value(it)))
            return true;
    return false;
}

static void run_case(run_state *s, const wpt_run_options *opt)
{
    const json_t *graph = json_object_get(s->tc, "graph");
    if (!json_is_object(s->tc) || !json_is_string(json_object_get(s->tc, "name"))) {
        stop(s, WPT_FAIL, "a case must be an object with a \"name\" string");
        return;
    }
    if (!json_is_object(graph)) {
        stop(s, WPT_FAIL, "missing \"graph\" object");
        return;
    }
    const json_t *ops = json_object_get(graph, "operators");
    const json_t *expected = json_object_get(graph, "expectedOutputs");
    wpt_tolerance tol;
    if (!json_is_array(ops) || json_array_size(ops) == 0) {
        stop(s, WPT_FAIL, "graph.operators must be a non-empty array");
        return;
    }
    if (expected == NULL && !opt->allow_no_expected) {
        stop(s, WPT_FAIL, "missing graph.expectedOutputs");
        return;
    }
    if (expected != NULL && !json_is_object(expected)) {
        stop(s, WPT_FAIL, "graph.expectedOutputs must be an object");
        return;
    }
    if (expected != NULL && any_dynamic_output(expected)) {
        stop(s, WPT_SKIP, "dynamic dimensions not supported");
        return;
    }
    if (!register_inputs(s, json_object_get(graph, "inputs")))
        return;
    if (expected != NULL && !parse_tolerance(s, &tol))
        return;

    double t0 = now_ms();
    wnn_status st = wnn_graph_builder_create(s->ctx, &s->builder);
    if (st != WNN_OK) {
        stop_for_status(s, st, "wnn_graph_builder_create");
        return;
    }
    for (size_t i = 0; i < json_array_size(ops); i++)
        if (!build_operator(s, json_array_get(ops, i), i))
            return;
    if (!collect_outputs(s, expected) || !build_graph(s))
        return;
    s->result->build_ms = now_ms() - t0;

    if (!feed_inputs(s) || !create_outputs(s))
        return;
    dispatch_and_read(s, opt, expected ? &tol : NULL);
}

/* Moves the read outputs into the result for printing. */
static void keep_outputs(run_state *s)
{
    wpt_result *r = s->result;
    r->outputs = calloc(s->out_count ? s->out_count : 1, sizeof *r->outputs);
    if (r->outputs == NULL)
        return;
    for (size_t i = 0; i < s->out_count; i++) {
        output_slot *o = &s->outs[i];
        wpt_output *k = &r->outputs[r->output_count++];
        k->name = strdup(o->display);
        k->desc = o->desc;
        k->data = o->data;
        k->byte_length = o->byte_length;
        k->verdict = o->verdict;
        o->data = NULL;
    }
}

static void release_state(run_state *s)
{
    for (size_t i = 0; i < s->out_count; i++) {
        wnn_tensor_release(s->outs[i].tensor);
        free(s->outs[i].c_name);
        free(s->outs[i].values);
        free(s->outs[i].data);
    }
    for (size_t i = 0; i < s->in_count; i++)
        wnn_tensor_release(s->in_tensors[i]);
    for (size_t i = 0; i < s->name_count; i++) {
        free(s->names[i].c_name);
        free(s->names[i].data);
    }
    wnn_graph_release(s->graph);
    wnn_graph_builder_release(s->builder);
    free(s->outs);
    free(s->in_tensors);
    free(s->in_bind);
    free(s->out_bind);
    free(s->names);
}

void wpt_case_run(wnn_context *ctx, const json_t *test_case, const wpt_run_options *options,
                  wpt_result *result)
{
    wpt_run_options defaults = WPT_RUN_OPTIONS_INIT;
    run_state s;
    memset(result, 0, sizeof *result);
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.tc = test_case;
    s.result = result;
    if (options == NULL)
        options = &defaults;
    result->outcome = WPT_PASS;

    run_case(&s, options);

    /* A failing case the vectors mark as a known issue is reported apart,
    ** never as a pass (data/wpt/FORMAT.md, "Known issues in the data"). */
    const char *issue = json_string_value(json_object_get(test_case, "knownIssue"));
    if (result->outcome == WPT_FAIL && issue != NULL) {
        result->outcome = WPT_SKIP;
        result->known_issue = true;
        snprintf(result->reason, sizeof result->reason, "known issue: %s", issue);
    }
    if (options->keep_outputs && result->runs > 0)
        keep_outputs(&s);
    release_state(&s);
}

void wpt_result_free(wpt_result *result)
{
    if (result == NULL)
        return;
    for (size_t i = 0; i < result->output_count; i++) {
        free(result->outputs[i].name);
        free(result->outputs[i].data);
    }
    free(result->outputs);
    result->outputs = NULL;
    result->output_count = 0;
}

#else
/* Without jansson there are no cases to run; keep the unit non-empty. */
typedef int wpt_case_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
