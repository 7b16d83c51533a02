/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case.c -- runs one WPT-format case through wnn's public API.
**
** Owns: the run and its outcome (the first failure or skip wins), the
** checks of the case's shape, writable input tensors and readable output
** tensors, one dispatch per run, the reads, and judging outputs with
** wpt_compare.h. Reading descriptors and data is wpt_case_data.c's, the
** name table and building the graph wpt_case_graph.c's
** (wpt_case_internal.h).
**
** The case's JSON must outlive the run: names point into it.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/shape.h"
#include "wpt_case_internal.h"

/* ------------------------------------------------------------------------ */
/* The run's outcome                                                        */
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

void wpt__stop(run_state *s, wpt_outcome outcome, const char *fmt, ...)
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

void wpt__stop_for_builder(run_state *s, const char *what)
{
    wnn_status st = wnn_graph_builder_status(s->builder);
    const char *msg = wnn_graph_builder_error_message(s->builder);
    if (st == WNN_STATUS_UNSUPPORTED_DATA_TYPE)
        wpt__stop(s, WPT_SKIP, "unsupported data type: %s", msg ? msg : "");
    else if (st == WNN_STATUS_NOT_SUPPORTED)
        wpt__stop(s, WPT_SKIP, "operator not supported on this device: %s", msg ? msg : "");
    else
        wpt__stop(s, WPT_FAIL, "%s: builder refused it: %s: %s", what, wnn_status_string(st), msg ? msg : "");
}

void wpt__stop_for_status(run_state *s, wnn_status st, const char *what)
{
    wpt__stop(s, WPT_FAIL, "%s failed: %s: %s", what, wnn_status_string(st), wnn_last_error_message());
}

/* ------------------------------------------------------------------------ */
/* Feed, dispatch, read, judge                                              */
/* ------------------------------------------------------------------------ */

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
        wpt__stop(s, WPT_SKIP, "data type %s not supported for tensors on device %s",
             wnn_data_type_name(d->data_type), device);
        return NULL;
    }
    if (st != WNN_OK) {
        char msg[300];
        snprintf(msg, sizeof msg, "wnn_context_create_tensor for %s", what);
        wpt__stop_for_status(s, st, msg);
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
        wpt__stop(s, WPT_FAIL, "out of memory for input tensors");
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const char *name = NULL;
        wnn_operand_desc d;
        wnn_status st = wnn_graph_get_input(s->graph, i, &name, &d);
        if (st != WNN_OK) {
            wpt__stop_for_status(s, st, "wnn_graph_get_input");
            return false;
        }
        named *src = NULL;
        for (size_t k = 0; k < s->name_count && src == NULL; k++)
            if (s->names[k].c_name != NULL && s->names[k].data != NULL && strcmp(s->names[k].c_name, name) == 0)
                src = &s->names[k];
        if (src == NULL) {
            wpt__stop(s, WPT_FAIL, "graph input '%s' is not an input of the case", name);
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
            wpt__stop_for_status(s, st, "wnn_context_write_tensor");
            return false;
        }
    }
    return true;
}

static bool create_outputs(run_state *s)
{
    s->out_bind = calloc(s->out_count, sizeof *s->out_bind);
    if (s->out_bind == NULL) {
        wpt__stop(s, WPT_FAIL, "out of memory for output tensors");
        return false;
    }
    for (size_t i = 0; i < s->out_count; i++) {
        output_slot *o = &s->outs[i];
        o->tensor = create_tensor(s, &o->desc, true, false, o->display);
        if (o->tensor == NULL)
            return false;
        uint64_t count = wnn__shape_count_within(&o->desc, WNN_MAX_DIMENSION);
        o->byte_length = (size_t)wpt__packed_bytes(o->desc.data_type, count);
        o->data = calloc(o->byte_length ? o->byte_length : 1, 1);
        if (o->data == NULL) {
            wpt__stop(s, WPT_FAIL, "out of memory for output '%s'", o->display);
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
            wpt__stop(s, WPT_FAIL, "output '%s': got %s, expected %s", o->display, m.got, m.expected);
        else
            wpt__stop(s, WPT_FAIL, "output '%s'[%zu]: got %s, expected %s, allowed %s", o->display, m.index, m.got,
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
            wpt__stop_for_status(s, st, "wnn_context_dispatch");
            return false;
        }
        for (size_t i = 0; i < s->out_count; i++) {
            output_slot *o = &s->outs[i];
            st = wnn_context_read_tensor_sync(s->ctx, o->tensor, o->data, o->byte_length);
            if (st != WNN_OK) {
                char what[320];
                snprintf(what, sizeof what, "wnn_context_read_tensor_sync of output '%s'", o->display);
                wpt__stop_for_status(s, st, what);
                return false;
            }
        }
        total += now_ms() - t0;
        /* Errors the timeline met after dispatch returned surface here. */
        st = wnn_context_finish(s->ctx);
        if (st != WNN_OK) {
            wpt__stop_for_status(s, st, "the dispatch (wnn_context_finish)");
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
        wpt__stop(s, WPT_FAIL, "missing \"tolerance\" object");
        return false;
    }
    if (!wpt_metric_from_name(metric, &tol->metric)) {
        wpt__stop(s, WPT_FAIL, "tolerance.metricType must be \"ULP\" or \"ATOL\"");
        return false;
    }
    if (!json_is_number(value) || !(json_number_value(value) >= 0)) {
        wpt__stop(s, WPT_FAIL, "tolerance.value must be a number >= 0");
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
        wpt__stop(s, WPT_FAIL, "graph.inputs must be an object");
        return false;
    }
    for (void *it = json_object_iter((json_t *)inputs); it != NULL; it = json_object_iter_next((json_t *)inputs, it)) {
        named *n = wpt__add_name(s, json_object_iter_key(it), json_object_iter_key_len(it));
        if (n == NULL)
            return false;
        n->input = json_object_iter_value(it);
        if (wpt__has_dynamic_dims(n->input)) {
            wpt__stop(s, WPT_SKIP, "dynamic dimensions not supported");
            return false;
        }
    }
    return true;
}

static bool any_dynamic_output(const json_t *expected)
{
    for (void *it = json_object_iter((json_t *)expected); it != NULL;
         it = json_object_iter_next((json_t *)expected, it))
        if (wpt__has_dynamic_dims(json_object_iter_value(it)))
            return true;
    return false;
}

static void run_case(run_state *s, const wpt_run_options *opt)
{
    const json_t *graph = json_object_get(s->tc, "graph");
    if (!json_is_object(s->tc) || !json_is_string(json_object_get(s->tc, "name"))) {
        wpt__stop(s, WPT_FAIL, "a case must be an object with a \"name\" string");
        return;
    }
    if (!json_is_object(graph)) {
        wpt__stop(s, WPT_FAIL, "missing \"graph\" object");
        return;
    }
    const json_t *ops = json_object_get(graph, "operators");
    const json_t *expected = json_object_get(graph, "expectedOutputs");
    wpt_tolerance tol;
    if (!json_is_array(ops) || json_array_size(ops) == 0) {
        wpt__stop(s, WPT_FAIL, "graph.operators must be a non-empty array");
        return;
    }
    if (expected == NULL && !opt->allow_no_expected) {
        wpt__stop(s, WPT_FAIL, "missing graph.expectedOutputs");
        return;
    }
    if (expected != NULL && !json_is_object(expected)) {
        wpt__stop(s, WPT_FAIL, "graph.expectedOutputs must be an object");
        return;
    }
    if (expected != NULL && any_dynamic_output(expected)) {
        wpt__stop(s, WPT_SKIP, "dynamic dimensions not supported");
        return;
    }
    if (!register_inputs(s, json_object_get(graph, "inputs")))
        return;
    if (expected != NULL && !parse_tolerance(s, &tol))
        return;

    double t0 = now_ms();
    wnn_status st = wnn_graph_builder_create(s->ctx, &s->builder);
    if (st != WNN_OK) {
        wpt__stop_for_status(s, st, "wnn_graph_builder_create");
        return;
    }
    for (size_t i = 0; i < json_array_size(ops); i++)
        if (!wpt__build_operator(s, json_array_get(ops, i), i))
            return;
    if (!wpt__collect_outputs(s, expected) || !wpt__build_graph(s))
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
