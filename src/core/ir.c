/* SPDX-License-Identifier: Apache-2.0 */
/*
** ir.c -- the graph IR (core/ir.h): extraction of the part of a builder
** reachable from the outputs, and its release.
*/
#include <stdlib.h>
#include <string.h>

#include "core/builder.h"

/* ---- IR ------------------------------------------------------------------ */

void wnn__ir_free(wnn__ir *ir)
{
    for (uint32_t i = 0; i < ir->n_values; i++)
        free(ir->values[i].data);
    for (uint32_t i = 0; i < ir->n_nodes; i++) {
        free(ir->nodes[i].in);
        free(ir->nodes[i].out);
    }
    for (uint32_t i = 0; i < ir->n_inputs; i++)
        free(ir->input_names[i]);
    for (uint32_t i = 0; i < ir->n_outputs; i++)
        free(ir->output_names[i]);
    free(ir->values);
    free(ir->nodes);
    free(ir->input_values);
    free(ir->input_names);
    free(ir->output_values);
    free(ir->output_names);
    memset(ir, 0, sizeof *ir);
}

static void *dup_bytes(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

wnn_status wnn__ir_extract(const wnn_graph_builder *b, const wnn_named_operand *outputs, size_t n_outputs,
                           wnn__ir *ir)
{
    memset(ir, 0, sizeof *ir);
    uint32_t *remap = malloc(sizeof *remap * (b->n_values ? b->n_values : 1));
    bool *live_node = calloc(b->n_nodes ? b->n_nodes : 1, sizeof *live_node);
    bool *live = calloc(b->n_values ? b->n_values : 1, sizeof *live);
    wnn_status s = WNN_STATUS_OUT_OF_MEMORY;
    if (!remap || !live_node || !live)
        goto done;

    /* Nodes are in topological order, so one backward pass marks everything
    ** the outputs depend on. */
    for (size_t i = 0; i < n_outputs; i++)
        live[outputs[i].operand->value] = true;
    for (uint32_t n = b->n_nodes; n-- > 0;) {
        const wnn__node *node = &b->nodes[n];
        for (uint32_t j = 0; j < node->n_out && !live_node[n]; j++)
            live_node[n] = live[node->out[j]];
        if (!live_node[n])
            continue;
        for (uint32_t j = 0; j < node->n_out; j++)
            live[node->out[j]] = true;
        for (uint32_t j = 0; j < node->n_in; j++)
            if (node->in[j] != WNN__NONE)
                live[node->in[j]] = true;
    }

    uint32_t nv = 0, nn = 0, ni = 0;
    for (uint32_t v = 0; v < b->n_values; v++) {
        remap[v] = live[v] ? nv++ : WNN__NONE;
        if (live[v] && b->values[v].kind == WNN__VALUE_INPUT)
            ni++;
    }
    for (uint32_t n = 0; n < b->n_nodes; n++)
        nn += live_node[n];

    ir->values = calloc(nv ? nv : 1, sizeof *ir->values);
    ir->nodes = calloc(nn ? nn : 1, sizeof *ir->nodes);
    ir->input_values = calloc(ni ? ni : 1, sizeof *ir->input_values);
    ir->input_names = calloc(ni ? ni : 1, sizeof *ir->input_names);
    ir->output_values = calloc(n_outputs, sizeof *ir->output_values);
    ir->output_names = calloc(n_outputs, sizeof *ir->output_names);
    if (!ir->values || !ir->nodes || !ir->input_values || !ir->input_names || !ir->output_values ||
        !ir->output_names)
        goto fail;

    for (uint32_t v = 0; v < b->n_values; v++) {
        if (!live[v])
            continue;
        wnn__value *dst = &ir->values[ir->n_values++];
        *dst = b->values[v];
        dst->data = NULL;
        if (dst->kind == WNN__VALUE_CONSTANT &&
            !(dst->data = dup_bytes(b->values[v].data, (size_t)wnn_operand_desc_byte_length(&dst->desc))))
            goto fail;
        if (dst->kind == WNN__VALUE_INPUT) {
            dst->index = ir->n_inputs;
            ir->input_values[ir->n_inputs] = remap[v];
            if (!(ir->input_names[ir->n_inputs++] = strdup(b->input_names[v])))
                goto fail;
        }
    }
    for (uint32_t n = 0; n < b->n_nodes; n++) {
        if (!live_node[n])
            continue;
        const wnn__node *src = &b->nodes[n];
        wnn__node *dst = &ir->nodes[ir->n_nodes];
        *dst = *src;
        dst->in = malloc(sizeof *dst->in * (src->n_in ? src->n_in : 1));
        dst->out = malloc(sizeof *dst->out * src->n_out);
        if (!dst->in || !dst->out) {
            free(dst->in);
            free(dst->out);
            goto fail;
        }
        for (uint32_t j = 0; j < src->n_in; j++)
            dst->in[j] = src->in[j] == WNN__NONE ? WNN__NONE : remap[src->in[j]];
        for (uint32_t j = 0; j < src->n_out; j++) {
            dst->out[j] = remap[src->out[j]];
            ir->values[dst->out[j]].index = ir->n_nodes;
        }
        ir->n_nodes++;
    }
    for (size_t i = 0; i < n_outputs; i++) {
        ir->output_values[i] = remap[outputs[i].operand->value];
        if (!(ir->output_names[ir->n_outputs++] = strdup(outputs[i].name)))
            goto fail;
    }
    s = WNN_OK;
    goto done;
fail:
    wnn__ir_free(ir);
done:
    free(remap);
    free(live_node);
    free(live);
    return s;
}

