/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_norm.c -- builder methods of batchNormalization, instanceNormalization
** and layerNormalization: WebNN's rules for their parameter operands and
** options. The output always has the input's descriptor. Parameter
** operands are node inputs (WNN__NONE when an optional one is absent):
** batchNormalization [input, mean, variance, scale, bias], the other two
** [input, scale, bias].
*/
#include "core/ops_spatial.h"

/* A parameter operand (NULL allowed when optional): the input's type, rank
** `rank` and shape `shape`. */
static bool check_param(wnn_graph_builder *b, const char *op, const char *name, wnn_operand *p, wnn_data_type type,
                        uint32_t rank, const uint32_t *shape)
{
    if (!p)
        return true;
    const wnn_operand_desc *d = wnn__desc(p);
    if (d->data_type != type) {
        wnn__op_error(b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s is %s but input is %s, they must match", op, name,
                      wnn_data_type_name(d->data_type), wnn_data_type_name(type));
        return false;
    }
    if (!wnn__op_check_rank(b, op, name, p, rank, rank))
        return false;
    for (uint32_t i = 0; i < rank; i++)
        if (d->shape[i] != shape[i]) {
            wnn__op_error(b, WNN_STATUS_SHAPE_MISMATCH, "%s: %s dimension %u is %u, must be %u", op, name, i,
                          d->shape[i], shape[i]);
            return false;
        }
    return true;
}

/* An epsilon option: the pointed-to value, or WebNN's default 1e-5. */
static double epsilon_of(const double *epsilon) { return epsilon ? *epsilon : 1e-5; }

wnn_operand *wnn_batch_normalization(wnn_graph_builder *b, wnn_operand *input, wnn_operand *mean,
                                     wnn_operand *variance, const wnn_batch_normalization_options *options)
{
    static const wnn_batch_normalization_options defaults = WNN_BATCH_NORMALIZATION_OPTIONS_INIT;
    const wnn_batch_normalization_options *o = options ? options : &defaults;
    const char *op = "batchNormalization";
    wnn_operand *in[5] = {input, mean, variance, o->scale, o->bias};
    static const char *const names[3] = {"input", "mean", "variance"};
    if (!wnn__op_begin(b, op, in, names, 3) || !wnn__op_check_chain(b, op, o->next_in_chain) ||
        !wnn__op_check_optional(b, op, "options.scale", o->scale) ||
        !wnn__op_check_optional(b, op, "options.bias", o->bias) ||
        !wnn__op_check_type(b, op, "input", input, WNN__TYPES_FLOAT) ||
        !wnn__op_check_rank(b, op, "input", input, 1, WNN_MAX_RANK))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(input);
    uint32_t axis = o->axis ? *o->axis : 1;
    if (axis >= d->rank)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT, "batchNormalization: options.axis %u is not below rank %u",
                             axis, d->rank);
    const uint32_t *len = &d->shape[axis];
    if (!check_param(b, op, "mean", mean, d->data_type, 1, len) ||
        !check_param(b, op, "variance", variance, d->data_type, 1, len) ||
        !check_param(b, op, "options.scale", o->scale, d->data_type, 1, len) ||
        !check_param(b, op, "options.bias", o->bias, d->data_type, 1, len))
        return NULL;
    wnn__attrs attrs = {.batch_norm = {axis, epsilon_of(o->epsilon)}};
    return wnn__op_add_node(b, WNN__OP_BATCH_NORMALIZATION, in, 5, d, 1, &attrs, NULL);
}

wnn_operand *wnn_instance_normalization(wnn_graph_builder *b, wnn_operand *input,
                                        const wnn_instance_normalization_options *options)
{
    static const wnn_instance_normalization_options defaults = WNN_INSTANCE_NORMALIZATION_OPTIONS_INIT;
    const wnn_instance_normalization_options *o = options ? options : &defaults;
    const char *op = "instanceNormalization";
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, op, &input, names, 1) || !wnn__op_check_chain(b, op, o->next_in_chain) ||
        !wnn__op_check_optional(b, op, "options.scale", o->scale) ||
        !wnn__op_check_optional(b, op, "options.bias", o->bias) ||
        !wnn__op_check_rank(b, op, "input", input, 4, 4) ||
        !wnn__op_check_type(b, op, "input", input, WNN__TYPES_FLOAT))
        return NULL;
    if ((unsigned)o->layout > WNN_INPUT_LAYOUT_NHWC)
        return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                             "instanceNormalization: options.layout %d is not nchw or nhwc", (int)o->layout);
    const wnn_operand_desc *d = wnn__desc(input);
    uint32_t channels = wnn__layout_dims_of(d, o->layout).channels;
    if (!check_param(b, op, "options.scale", o->scale, d->data_type, 1, &channels) ||
        !check_param(b, op, "options.bias", o->bias, d->data_type, 1, &channels))
        return NULL;
    wnn_operand *in[3] = {input, o->scale, o->bias};
    wnn__attrs attrs = {.instance_norm = {(uint32_t)o->layout, epsilon_of(o->epsilon)}};
    return wnn__op_add_node(b, WNN__OP_INSTANCE_NORMALIZATION, in, 3, d, 1, &attrs, NULL);
}

wnn_operand *wnn_layer_normalization(wnn_graph_builder *b, wnn_operand *input,
                                     const wnn_layer_normalization_options *options)
{
    static const wnn_layer_normalization_options defaults = WNN_LAYER_NORMALIZATION_OPTIONS_INIT;
    const wnn_layer_normalization_options *o = options ? options : &defaults;
    const char *op = "layerNormalization";
    static const char *const names[1] = {"input"};
    if (!wnn__op_begin(b, op, &input, names, 1) || !wnn__op_check_chain(b, op, o->next_in_chain) ||
        !wnn__op_check_optional(b, op, "options.scale", o->scale) ||
        !wnn__op_check_optional(b, op, "options.bias", o->bias) ||
        !wnn__op_check_type(b, op, "input", input, WNN__TYPES_FLOAT))
        return NULL;
    const wnn_operand_desc *d = wnn__desc(input);
    wnn__attrs attrs = {.layer_norm = {.epsilon = epsilon_of(o->epsilon)}};
    if (o->axes) {
        if (o->axes_count > d->rank)
            return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                 "layerNormalization: options.axes has %u entries, more than the rank %u",
                                 o->axes_count, d->rank);
        bool seen[WNN_MAX_RANK] = {false};
        for (uint32_t i = 0; i < o->axes_count; i++) {
            uint32_t a = o->axes[i];
            if (a >= d->rank)
                return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                     "layerNormalization: options.axes[%u] is %u, not below rank %u", i, a, d->rank);
            if (seen[a])
                return wnn__op_error(b, WNN_STATUS_INVALID_ARGUMENT,
                                     "layerNormalization: options.axes[%u] repeats axis %u", i, a);
            seen[a] = true;
            attrs.layer_norm.axes[i] = a;
        }
        attrs.layer_norm.axes_count = o->axes_count;
    } else {
        for (uint32_t a = 1; a < d->rank; a++)
            attrs.layer_norm.axes[a - 1] = a;
        attrs.layer_norm.axes_count = d->rank ? d->rank - 1 : 0;
    }
    uint32_t shape[WNN_MAX_RANK];
    for (uint32_t i = 0; i < attrs.layer_norm.axes_count; i++)
        shape[i] = d->shape[attrs.layer_norm.axes[i]];
    if (!check_param(b, op, "options.scale", o->scale, d->data_type, attrs.layer_norm.axes_count, shape) ||
        !check_param(b, op, "options.bias", o->bias, d->data_type, attrs.layer_norm.axes_count, shape))
        return NULL;
    wnn_operand *in[3] = {input, o->scale, o->bias};
    return wnn__op_add_node(b, WNN__OP_LAYER_NORMALIZATION, in, 3, d, 1, &attrs, NULL);
}
