/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case_graph.c -- the graph of a WPT case: the name table of graph
** inputs and operator outputs, graph inputs created on first use (as WPT
** creates them, so an input no operator names never becomes one), each
** operator built through the operator table of wpt_ops.h, the outputs with
** their expected descriptors checked first, and the build.
*/
#ifdef WNN_HAVE_JANSSON

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shape.h"
#include "wpt_case_internal.h"
#include "wpt_ops.h"

/* ------------------------------------------------------------------------ */
/* The name table                                                           */
/* ------------------------------------------------------------------------ */

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

named *wpt__find_name(run_state *s, const char *name, size_t len)
{
    /* The last entry wins, so an operator output may shadow an earlier name. */
    for (size_t i = s->name_count; i-- > 0;)
        if (s->names[i].len == len && memcmp(s->names[i].name, name, len) == 0)
            return &s->names[i];
    return NULL;
}

named *wpt__add_name(run_state *s, const char *name, size_t len)
{
    if (s->name_count == s->name_cap) {
        size_t cap = s->name_cap ? s->name_cap * 2 : 16;
        named *grown = realloc(s->names, cap * sizeof *grown);
        if (grown == NULL) {
            wpt__stop(s, WPT_FAIL, "out of memory for the name table");
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
        wpt__stop(s, WPT_FAIL, "%s: must be an object with data and descriptor", what);
        return false;
    }
    if (!wpt__parse_descriptor(s, n->input, what, &desc) || !wpt__decode_data(s, n->input, what, &desc, &bytes, &len))
        return false;
    const json_t *constant = json_object_get(n->input, "constant");
    if (constant != NULL && !json_is_boolean(constant)) {
        free(bytes);
        wpt__stop(s, WPT_FAIL, "%s: \"constant\" must be true or false", what);
        return false;
    }
    if (json_is_true(constant)) {
        n->operand = wnn_graph_builder_constant(s->builder, &desc, bytes, len);
        free(bytes);
    } else {
        n->c_name = make_c_name(n->name, n->len);
        if (n->c_name == NULL) {
            free(bytes);
            wpt__stop(s, WPT_FAIL, "%s: out of memory", what);
            return false;
        }
        n->operand = wnn_graph_builder_input(s->builder, n->c_name, &desc);
        n->data = bytes;
        n->byte_length = len;
    }
    if (n->operand == NULL) {
        wpt__stop_for_builder(s, what);
        return false;
    }
    return true;
}

/* wpt_lookup_fn for the operator table: an input or an earlier output. */
static wnn_operand *lookup(void *user, const char *name, size_t len)
{
    run_state *s = user;
    named *n = wpt__find_name(s, name, len);
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
        wpt__stop(s, WPT_FAIL, "%s: \"arguments\" must be an array", what);
        return false;
    }
    for (size_t i = 0; i < json_array_size(args); i++) {
        const json_t *obj = json_array_get(args, i);
        if (!json_is_object(obj)) {
            wpt__stop(s, WPT_FAIL, "%s: arguments[%zu] must be an object", what, i);
            return false;
        }
        for (void *it = json_object_iter((json_t *)obj); it != NULL;
             it = json_object_iter_next((json_t *)obj, it)) {
            const char *key = json_object_iter_key(it);
            const json_t *value = json_object_iter_value(it);
            if (strcmp(key, "options") == 0) {
                if (!json_is_object(value)) {
                    wpt__stop(s, WPT_FAIL, "%s: options must be an object", what);
                    return false;
                }
                call->options = value;
                continue;
            }
            if (call->arg_count == WPT_MAX_ARGS) {
                wpt__stop(s, WPT_FAIL, "%s: more than %d positional arguments", what, WPT_MAX_ARGS);
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
        wpt__stop(s, WPT_FAIL, "%s: \"outputs\" must be a string or an array of strings", what);
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
        wpt__stop(s, WPT_FAIL, "%s: the case names %zu outputs, the operator returned %zu", what, want, count);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const json_t *name = json_is_string(outputs) ? outputs : json_array_get(outputs, i);
        if (!json_is_string(name)) {
            wpt__stop(s, WPT_FAIL, "%s: outputs[%zu] must be a string", what, i);
            return false;
        }
        if (ops[i] == NULL) {
            wpt__stop_for_builder(s, what);
            return false;
        }
        named *n = wpt__add_name(s, json_string_value(name), json_string_length(name));
        if (n == NULL)
            return false;
        n->operand = ops[i];
    }
    return true;
}

bool wpt__build_operator(run_state *s, const json_t *op, size_t index)
{
    char what[160];
    const char *name = json_string_value(json_object_get(op, "name"));
    if (!json_is_object(op) || name == NULL) {
        wpt__stop(s, WPT_FAIL, "operators[%zu]: missing \"name\"", index);
        return false;
    }
    snprintf(what, sizeof what, "operators[%zu] %s", index, name);
    const wpt_op_entry *entry = wpt_op_find(name);
    if (entry == NULL) {
        wpt__stop(s, WPT_FAIL, "operator %s not implemented", name);
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
        wpt__stop(s, WPT_FAIL, "%s", call.error);
    }
    wpt_call_free(&call);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Outputs and the build                                                    */
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
        wpt__stop(s, WPT_FAIL, "output '%s': out of memory", o->display);
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
        wpt__stop(s, WPT_FAIL, "%s: must be an object with data and descriptor", what);
        return false;
    }
    if (!wpt__parse_descriptor(s, expected, what, &want))
        return false;
    if (!same_desc(&o->desc, &want)) {
        char got[128], exp[128];
        format_shape(&o->desc, got, sizeof got);
        format_shape(&want, exp, sizeof exp);
        wpt__stop(s, WPT_FAIL, "output '%s': descriptor is %s %s, expected %s %s", o->display,
             wnn_data_type_name(o->desc.data_type), got, wnn_data_type_name(want.data_type), exp);
        return false;
    }
    uint64_t count = wnn__shape_count_within(&want, WNN_MAX_DIMENSION);
    if (count == UINT64_MAX) {
        wpt__stop(s, WPT_FAIL, "%s: more than 2^31-1 elements", what);
        return false;
    }
    return wpt__read_values(s, expected, what, count, &o->values, &o->value_count, &o->fill);
}

bool wpt__collect_outputs(run_state *s, const json_t *expected)
{
    size_t cap = expected ? json_object_size(expected) : s->name_count;
    s->outs = calloc(cap ? cap : 1, sizeof *s->outs);
    if (s->outs == NULL) {
        wpt__stop(s, WPT_FAIL, "out of memory for outputs");
        return false;
    }
    if (expected == NULL) {
        for (size_t i = 0; i < s->name_count; i++)
            if (s->names[i].input == NULL && !s->names[i].consumed && !add_output(s, &s->names[i], NULL))
                return false;
        if (s->out_count == 0) {
            wpt__stop(s, WPT_FAIL, "the graph has no outputs");
            return false;
        }
        return true;
    }
    for (void *it = json_object_iter((json_t *)expected); it != NULL;
         it = json_object_iter_next((json_t *)expected, it)) {
        const char *key = json_object_iter_key(it);
        size_t len = json_object_iter_key_len(it);
        named *n = wpt__find_name(s, key, len);
        if (n == NULL || n->input != NULL) {
            char display[200];
            wpt_escape_display(key, len, display, sizeof display);
            wpt__stop(s, WPT_FAIL, "expected output '%s' is not produced by any operator", display);
            return false;
        }
        if (!add_output(s, n, json_object_iter_value(it)))
            return false;
    }
    if (s->out_count == 0) {
        wpt__stop(s, WPT_FAIL, "\"expectedOutputs\" is empty");
        return false;
    }
    return true;
}

bool wpt__build_graph(run_state *s)
{
    wnn_named_operand *outs = calloc(s->out_count, sizeof *outs);
    if (outs == NULL) {
        wpt__stop(s, WPT_FAIL, "out of memory for build outputs");
        return false;
    }
    for (size_t i = 0; i < s->out_count; i++) {
        outs[i].name = s->outs[i].c_name;
        outs[i].operand = s->outs[i].source->operand;
    }
    wnn_status st = wnn_graph_builder_build(s->builder, outs, s->out_count, &s->graph);
    free(outs);
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE) {
        wpt__stop(s, WPT_SKIP, "unsupported data type: %s", wnn_last_error_message());
        return false;
    }
    if (st != WNN_OK) {
        wpt__stop_for_status(s, st, "wnn_graph_builder_build");
        return false;
    }
    return true;
}

#else
/* Without jansson there are no cases to build; keep the unit non-empty. */
typedef int wpt_case_graph_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
