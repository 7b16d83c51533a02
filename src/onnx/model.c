/*
** model.c -- a loaded model: its compiled graph, one wnn tensor per graph
** input and output (created once, reused by every run), and the one-call
** runs (host buffers, or the caller's tensors without copies).
*/
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef struct binding {
    char *name;
    wnn_operand_desc desc;
    wnn_tensor *tensor;
} binding;

struct wnn_onnx_model {
    wnn_context *ctx;
    wnn_graph *graph;
    binding *in, *out;
    uint32_t n_in, n_out;
    char **onnx_inputs; /* every declared input, used by the graph or not */
    uint32_t n_onnx_inputs;
};

void wnn_onnx_model_release(wnn_onnx_model *m)
{
    if (m == NULL)
        return;
    for (uint32_t i = 0; i < m->n_in; i++) {
        free(m->in[i].name);
        wnn_tensor_release(m->in[i].tensor);
    }
    for (uint32_t i = 0; i < m->n_out; i++) {
        free(m->out[i].name);
        wnn_tensor_release(m->out[i].tensor);
    }
    for (uint32_t i = 0; i < m->n_onnx_inputs; i++)
        free(m->onnx_inputs[i]);
    free(m->onnx_inputs);
    free(m->in);
    free(m->out);
    wnn_graph_release(m->graph);
    free(m);
}

/* Creates the n bindings of the graph's inputs (or outputs) into *list and
** counts each one made in *made, so that a failure part way leaves a list
** that wnn_onnx_model_release frees exactly. */
static wnn_status make_bindings(wnn_onnx_model *m, bool input, binding **list, uint32_t *made, uint32_t n)
{
    *made = 0;
    *list = calloc(n ? n : 1, sizeof **list);
    if (*list == NULL)
        return WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < n; i++) {
        binding *b = &(*list)[i];
        *made = i + 1;
        const char *name;
        wnn_status st = input ? wnn_graph_get_input(m->graph, i, &name, &b->desc)
                              : wnn_graph_get_output(m->graph, i, &name, &b->desc);
        if (st != WNN_OK)
            return st;
        if ((b->name = strdup(name)) == NULL)
            return WNN_STATUS_OUT_OF_MEMORY;
        wnn_tensor_desc td = {b->desc.data_type, b->desc.rank, {0}, true, true, false};
        memcpy(td.shape, b->desc.shape, sizeof td.shape);
        if ((st = wnn_context_create_tensor(m->ctx, &td, &b->tensor)) != WNN_OK) {
            onx_set_error(st, "creating the tensor of '%s': %s", name, wnn_last_error_message());
            return st;
        }
    }
    return WNN_OK;
}

wnn_status onx_model_create(wnn_context *ctx, onx_importer *im, const wnn_named_operand *outs,
                            wnn_onnx_model **out)
{
    wnn_onnx_model *m = calloc(1, sizeof *m);
    if (m == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    m->ctx = ctx;
    wnn_status st = wnn_graph_builder_build(im->b, outs, im->graph->n_output, &m->graph);
    if (st != WNN_OK) {
        onx_fail(im, st, "building the WebNN graph: %s", wnn_last_error_message());
        free(m);
        return st;
    }
    st = make_bindings(m, true, &m->in, &m->n_in, wnn_graph_input_count(m->graph));
    if (st == WNN_OK)
        st = make_bindings(m, false, &m->out, &m->n_out, wnn_graph_output_count(m->graph));
    if (st == WNN_OK && (m->onnx_inputs = calloc(im->input_count ? im->input_count : 1, sizeof(char *))) == NULL)
        st = WNN_STATUS_OUT_OF_MEMORY;
    for (uint32_t i = 0; st == WNN_OK && i < im->input_count; i++) {
        if ((m->onnx_inputs[i] = strdup(im->input_names[i])) == NULL)
            st = WNN_STATUS_OUT_OF_MEMORY;
        m->n_onnx_inputs = i + 1;
    }
    if (st != WNN_OK) {
        if (st == WNN_STATUS_OUT_OF_MEMORY)
            onx_set_error(st, "out of memory");
        wnn_onnx_model_release(m);
        return st;
    }
    *out = m;
    return WNN_OK;
}

static wnn_status bad_model(const wnn_onnx_model *m, const char *fn)
{
    if (m != NULL)
        return WNN_OK;
    onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: NULL model", fn);
    return WNN_STATUS_INVALID_ARGUMENT;
}

uint32_t wnn_onnx_model_input_count(const wnn_onnx_model *m) { return m ? m->n_in : 0; }
uint32_t wnn_onnx_model_output_count(const wnn_onnx_model *m) { return m ? m->n_out : 0; }
wnn_graph *wnn_onnx_model_graph(const wnn_onnx_model *m) { return m ? m->graph : NULL; }

static wnn_status get_binding(const wnn_onnx_model *m, uint32_t i, bool input, const char **name,
                              wnn_operand_desc *desc)
{
    const char *fn = input ? "wnn_onnx_model_get_input" : "wnn_onnx_model_get_output";
    wnn_status st = bad_model(m, fn);
    if (st != WNN_OK)
        return st;
    if (i >= (input ? m->n_in : m->n_out)) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: no %s %u", fn, input ? "input" : "output", i);
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    const binding *b = input ? &m->in[i] : &m->out[i];
    if (name != NULL)
        *name = b->name;
    if (desc != NULL)
        *desc = b->desc;
    return WNN_OK;
}

wnn_status wnn_onnx_model_get_input(const wnn_onnx_model *m, uint32_t i, const char **name, wnn_operand_desc *desc)
{
    return get_binding(m, i, true, name, desc);
}

wnn_status wnn_onnx_model_get_output(const wnn_onnx_model *m, uint32_t i, const char **name,
                                     wnn_operand_desc *desc)
{
    return get_binding(m, i, false, name, desc);
}

static binding *find(binding *list, uint32_t n, const char *name)
{
    for (uint32_t i = 0; name != NULL && i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return &list[i];
    return NULL;
}

wnn_tensor *wnn_onnx_model_tensor(const wnn_onnx_model *m, const char *name)
{
    if (m == NULL)
        return NULL;
    binding *b = find(m->in, m->n_in, name);
    if (b == NULL)
        b = find(m->out, m->n_out, name);
    return b ? b->tensor : NULL;
}

static bool declared_input(const wnn_onnx_model *m, const char *name)
{
    for (uint32_t i = 0; name != NULL && i < m->n_onnx_inputs; i++)
        if (strcmp(m->onnx_inputs[i], name) == 0)
            return true;
    return false;
}

wnn_status wnn_onnx_model_run(wnn_onnx_model *m, const wnn_onnx_buffer *inputs, size_t input_count,
                              const wnn_onnx_buffer *outputs, size_t output_count)
{
    static const char fn[] = "wnn_onnx_model_run";
    wnn_status st = bad_model(m, fn);
    if (st != WNN_OK)
        return st;
    if ((inputs == NULL && input_count) || (outputs == NULL && output_count)) {
        onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: NULL buffer array", fn);
        return WNN_STATUS_INVALID_ARGUMENT;
    }
    uint32_t given = 0;
    for (size_t i = 0; i < input_count; i++) {
        binding *b = find(m->in, m->n_in, inputs[i].name);
        if (b == NULL) {
            if (declared_input(m, inputs[i].name))
                continue; /* an input the graph does not use */
            onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: the model has no input '%s'", fn,
                          inputs[i].name ? inputs[i].name : "(null)");
            return WNN_STATUS_INVALID_ARGUMENT;
        }
        if ((st = wnn_context_write_tensor(m->ctx, b->tensor, inputs[i].data, inputs[i].byte_length)) != WNN_OK) {
            onx_set_error(st, "%s: input '%s': %s", fn, b->name, wnn_last_error_message());
            return st;
        }
        given++;
    }
    if (given < m->n_in) {
        for (uint32_t k = 0; k < m->n_in; k++) {
            bool found = false;
            for (size_t i = 0; i < input_count && !found; i++)
                found = inputs[i].name && strcmp(inputs[i].name, m->in[k].name) == 0;
            if (!found) {
                onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: input '%s' is not given", fn, m->in[k].name);
                return WNN_STATUS_INVALID_ARGUMENT;
            }
        }
    }
    if ((st = wnn_onnx_model_dispatch(m, NULL, 0, NULL, 0)) != WNN_OK)
        return st;
    for (size_t i = 0; i < output_count; i++) {
        binding *b = find(m->out, m->n_out, outputs[i].name);
        if (b == NULL) {
            onx_set_error(WNN_STATUS_INVALID_ARGUMENT, "%s: the model has no output '%s'", fn,
                          outputs[i].name ? outputs[i].name : "(null)");
            return WNN_STATUS_INVALID_ARGUMENT;
        }
        if (outputs[i].byte_length != wnn_tensor_byte_length(b->tensor)) {
            onx_set_error(WNN_STATUS_BYTE_LENGTH_MISMATCH, "%s: output '%s' needs %llu bytes, the buffer has %zu",
                          fn, b->name, (unsigned long long)wnn_tensor_byte_length(b->tensor),
                          outputs[i].byte_length);
            return WNN_STATUS_BYTE_LENGTH_MISMATCH;
        }
        st = wnn_context_read_tensor_sync(m->ctx, b->tensor, outputs[i].data, outputs[i].byte_length);
        if (st != WNN_OK) {
            onx_set_error(st, "%s: reading output '%s': %s", fn, b->name, wnn_last_error_message());
            return st;
        }
    }
    return WNN_OK;
}

wnn_status wnn_onnx_model_dispatch(wnn_onnx_model *m, const wnn_named_tensor *inputs, size_t input_count,
                                   const wnn_named_tensor *outputs, size_t output_count)
{
    static const char fn[] = "wnn_onnx_model_dispatch";
    wnn_status st = bad_model(m, fn);
    if (st != WNN_OK)
        return st;
    wnn_named_tensor *ins = calloc(m->n_in + 1, sizeof *ins), *outs = calloc(m->n_out + 1, sizeof *outs);
    if (ins == NULL || outs == NULL) {
        free(ins);
        free(outs);
        onx_set_error(WNN_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return WNN_STATUS_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < m->n_in; i++)
        ins[i] = (wnn_named_tensor){m->in[i].name, m->in[i].tensor};
    for (uint32_t i = 0; i < m->n_out; i++)
        outs[i] = (wnn_named_tensor){m->out[i].name, m->out[i].tensor};
    for (size_t k = 0; k < input_count + output_count && st == WNN_OK; k++) {
        bool is_in = k < input_count;
        const wnn_named_tensor *t = is_in ? &inputs[k] : &outputs[k - input_count];
        binding *list = is_in ? m->in : m->out;
        uint32_t n = is_in ? m->n_in : m->n_out;
        binding *b = find(list, n, t->name);
        if (b == NULL) {
            st = WNN_STATUS_NAME_MISMATCH;
            onx_set_error(st, "%s: the model has no %s '%s'", fn, is_in ? "input" : "output",
                          t->name ? t->name : "(null)");
        } else {
            (is_in ? ins : outs)[b - list].tensor = t->tensor;
        }
    }
    if (st == WNN_OK && (st = wnn_context_dispatch(m->ctx, m->graph, ins, m->n_in, outs, m->n_out)) != WNN_OK)
        onx_set_error(st, "%s: %s", fn, wnn_last_error_message());
    free(ins);
    free(outs);
    return st;
}
