/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_recurrent.c -- WPT adapters of the recurrent networks: gru,
** gruCell, lstm and lstmCell.
**
** Adapters do argument plumbing only and let the library judge the values.
** What the C API cannot see is checked here, as WebNN's IDL layer would: the
** length of the activations list, and enum strings (direction, layout,
** activation names). A refused call still reports the number of outputs it
** would have had, so the runner reports the builder's error.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

#include <string.h>

static const char *const activation_names[3] = {"relu", "sigmoid", "tanh"};
static const char *const direction_names[3] = {"forward", "backward", "both"};

/* options.activations: a list of exactly want activation names, read into
** acts; *out points at acts and *count is want when the key is present. */
static bool opt_activations(wpt_call *call, size_t want, wnn_recurrent_activation *acts,
                            const wnn_recurrent_activation **out, uint32_t *count)
{
    const json_t *v = wpt_opt_value(call, "activations");
    if (v == NULL)
        return true;
    if (!json_is_array(v))
        return wpt_call_fail(call, "options.activations must be an array of strings");
    if (json_array_size(v) != want)
        return wpt_call_fail(call, "options.activations has %zu entries, must have %zu", json_array_size(v), want);
    for (size_t i = 0; i < want; i++) {
        const char *text = json_string_value(json_array_get(v, i));
        size_t k = 0;
        while (text != NULL && k < 3 && strcmp(text, activation_names[k]) != 0)
            k++;
        if (text == NULL || k == 3)
            return wpt_call_fail(call, "options.activations[%zu] must be \"relu\", \"sigmoid\" or \"tanh\"", i);
        acts[i] = (wnn_recurrent_activation)k;
    }
    *out = acts;
    *count = (uint32_t)want;
    return true;
}

static bool opt_direction(wpt_call *call, wnn_recurrent_direction *out)
{
    int v = (int)*out;
    if (!wpt_opt_enum(call, "direction", direction_names, 3, &v))
        return false;
    *out = (wnn_recurrent_direction)v;
    return true;
}

/* The recurrent operators write at most 3 results into room (the builder's
** fixed room): returned of them, or want NULL ones when the builder refused. */
static bool recurrent_results(wpt_call *call, wnn_operand *const *room, size_t returned, size_t want)
{
    size_t count = returned ? returned : want;
    wnn_operand **out = wpt_call_many(call, count);
    if (out == NULL)
        return false;
    for (size_t i = 0; i < returned; i++)
        out[i] = room[i];
    return true;
}

static const char *const gru_layouts[2] = {"zrn", "rzn"};
static const char *const lstm_layouts[2] = {"iofg", "ifgo"};

/* input, weight, recurrentWeight in args 0..2. */
static bool three_operands(wpt_call *call, wnn_operand **ops)
{
    return wpt_arg_operand(call, 0, &ops[0]) && wpt_arg_operand(call, 1, &ops[1]) &&
           wpt_arg_operand(call, 2, &ops[2]);
}

bool wpt_adapt_gru(wpt_call *call)
{
    wnn_operand *ops[3];
    uint32_t steps, hidden;
    wnn_gru_options o = WNN_GRU_OPTIONS_INIT;
    wnn_recurrent_activation acts[2];
    bool reset_after = true;
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_u32(call, 3, &steps) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "initialHiddenState", &o.initial_hidden_state) ||
        !wpt_opt_bool(call, "resetAfter", &reset_after) ||
        !wpt_opt_bool(call, "returnSequence", &o.return_sequence) || !opt_direction(call, &o.direction) ||
        !wpt_opt_enum(call, "layout", gru_layouts, 2, &layout) ||
        !opt_activations(call, 2, acts, &o.activations, &o.activations_count))
        return false;
    o.layout = (wnn_gru_weight_layout)layout;
    o.reset_before = !reset_after;
    wnn_operand *room[2];
    size_t n = wnn_gru(call->builder, ops[0], ops[1], ops[2], steps, hidden, &o, room);
    return recurrent_results(call, room, n, o.return_sequence ? 2 : 1);
}

bool wpt_adapt_gru_cell(wpt_call *call)
{
    wnn_operand *ops[3], *hidden_state;
    uint32_t hidden;
    wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
    wnn_recurrent_activation acts[2];
    bool reset_after = true;
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_operand(call, 3, &hidden_state) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_bool(call, "resetAfter", &reset_after) || !wpt_opt_enum(call, "layout", gru_layouts, 2, &layout) ||
        !opt_activations(call, 2, acts, &o.activations, &o.activations_count))
        return false;
    o.layout = (wnn_gru_weight_layout)layout;
    o.reset_before = !reset_after;
    return wpt_call_one(call, wnn_gru_cell(call->builder, ops[0], ops[1], ops[2], hidden_state, hidden, &o));
}

bool wpt_adapt_lstm(wpt_call *call)
{
    wnn_operand *ops[3];
    uint32_t steps, hidden;
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    wnn_recurrent_activation acts[3];
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_u32(call, 3, &steps) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "peepholeWeight", &o.peephole_weight) ||
        !wpt_opt_operand(call, "initialHiddenState", &o.initial_hidden_state) ||
        !wpt_opt_operand(call, "initialCellState", &o.initial_cell_state) ||
        !wpt_opt_bool(call, "returnSequence", &o.return_sequence) || !opt_direction(call, &o.direction) ||
        !wpt_opt_enum(call, "layout", lstm_layouts, 2, &layout) ||
        !opt_activations(call, 3, acts, &o.activations, &o.activations_count))
        return false;
    o.layout = (wnn_lstm_weight_layout)layout;
    wnn_operand *room[3];
    size_t n = wnn_lstm(call->builder, ops[0], ops[1], ops[2], steps, hidden, &o, room);
    return recurrent_results(call, room, n, o.return_sequence ? 3 : 2);
}

bool wpt_adapt_lstm_cell(wpt_call *call)
{
    wnn_operand *ops[3], *hidden_state, *cell_state;
    uint32_t hidden;
    wnn_lstm_cell_options o = WNN_LSTM_CELL_OPTIONS_INIT;
    wnn_recurrent_activation acts[3];
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 6, 6) || !three_operands(call, ops) || !wpt_arg_operand(call, 3, &hidden_state) ||
        !wpt_arg_operand(call, 4, &cell_state) || !wpt_arg_u32(call, 5, &hidden) ||
        !wpt_opt_operand(call, "bias", &o.bias) || !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "peepholeWeight", &o.peephole_weight) ||
        !wpt_opt_enum(call, "layout", lstm_layouts, 2, &layout) ||
        !opt_activations(call, 3, acts, &o.activations, &o.activations_count))
        return false;
    o.layout = (wnn_lstm_weight_layout)layout;
    wnn_operand *room[2];
    size_t n = wnn_lstm_cell(call->builder, ops[0], ops[1], ops[2], hidden_state, cell_state, hidden, &o, room);
    return recurrent_results(call, room, n, 2);
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_recurrent_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
