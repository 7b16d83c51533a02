/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_c.c -- WPT adapters of family C: expand, pad, split, tile,
** reverse, triangular, gather, gatherElements, gatherND, scatterElements,
** scatterND, gru, gruCell, lstm and lstmCell.
**
** Adapters do argument plumbing only and let the library judge the values.
** What the C API cannot see is checked here, as WebNN's IDL layer would: the
** length of arrays the library reads rank entries of, the length of the
** activations list, and enum strings (which have no C value to pass on).
** Multi-output operators report the number of outputs the call asked for
** even when the builder refused, so the runner reports the builder's error.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_ops_c.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static uint32_t rank_of(wnn_operand *x)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(x, &d);
    return d.rank;
}

/* Arrays the library reads exactly rank entries of. */
static bool rank_length(wpt_call *call, const char *what, size_t length, wnn_operand *x)
{
    uint32_t rank = rank_of(x);
    if (length != rank)
        return wpt_call_fail(call, "%s has %zu entries, the input's rank is %u (must be equal)", what, length,
                             rank);
    return true;
}

static const char *const activation_names[3] = {"relu", "sigmoid", "tanh"};
static const char *const direction_names[3] = {"forward", "backward", "both"};

/* options.activations: a list of exactly want activation names. */
static bool opt_activations(wpt_call *call, size_t want, bool *has, wnn_recurrent_activation *acts)
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
    *has = true;
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

/* After a multi-output builder call into wpt_call_many's room: the builder
** returned the count asked for, or 0 when it refused; then every result is
** NULL, so the runner reports the builder's error. */
static bool many(wpt_call *call, size_t returned)
{
    if (returned == 0)
        memset(call->results, 0, call->result_count * sizeof *call->results);
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

/* ------------------------------------------------------------------------ */
/* Data movement                                                             */
/* ------------------------------------------------------------------------ */

bool wpt_adapt_expand(wpt_call *call)
{
    wnn_operand *x;
    uint32_t shape[WNN_MAX_RANK] = {0};
    size_t rank;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, shape, WNN_MAX_RANK, &rank))
        return false;
    return wpt_call_one(call, wnn_expand(call->builder, x, (uint32_t)rank, shape));
}

bool wpt_adapt_pad(wpt_call *call)
{
    static const char *const modes[3] = {"constant", "edge", "reflection"};
    wnn_operand *x;
    uint32_t begin[WNN_MAX_RANK] = {0}, end[WNN_MAX_RANK] = {0};
    size_t n_begin, n_end;
    wnn_pad_options o = WNN_PAD_OPTIONS_INIT;
    int mode = (int)o.mode;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, begin, WNN_MAX_RANK, &n_begin) ||
        !wpt_arg_u32_list(call, 2, end, WNN_MAX_RANK, &n_end) || !wpt_opt_enum(call, "mode", modes, 3, &mode) ||
        !wpt_opt_double(call, "value", NULL, &o.value))
        return false;
    if (!rank_length(call, "beginningPadding", n_begin, x) || !rank_length(call, "endingPadding", n_end, x))
        return false;
    o.mode = (wnn_pad_mode)mode;
    return wpt_call_one(call, wnn_pad(call->builder, x, begin, end, &o));
}

bool wpt_adapt_split(wpt_call *call)
{
    wnn_operand *x;
    wnn_split_options o = WNN_SPLIT_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    if (json_is_array(call->args[1].value)) {
        uint32_t *sizes;
        size_t n;
        if (!wpt_arg_u32_array(call, 1, &sizes, &n))
            return false;
        wnn_operand **out = wpt_call_many(call, n);
        bool ok = out != NULL && many(call, wnn_split_sizes(call->builder, x, sizes, n, &o, out));
        free(sizes);
        return ok;
    }
    uint32_t count;
    if (!wpt_arg_u32(call, 1, &count))
        return false;
    wnn_operand **out = wpt_call_many(call, count);
    return out != NULL && many(call, wnn_split(call->builder, x, count, &o, out));
}

bool wpt_adapt_tile(wpt_call *call)
{
    wnn_operand *x;
    uint32_t reps[WNN_MAX_RANK] = {0};
    size_t n;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_arg_u32_list(call, 1, reps, WNN_MAX_RANK, &n) || !rank_length(call, "repetitions", n, x))
        return false;
    return wpt_call_one(call, wnn_tile(call->builder, x, reps));
}

bool wpt_adapt_reverse(wpt_call *call)
{
    wnn_operand *x;
    wnn_reverse_options o = WNN_REVERSE_OPTIONS_INIT;
    size_t n = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) ||
        !wpt_opt_u32_list(call, "axes", &o.has_axes, o.axes, WNN_MAX_RANK, &n))
        return false;
    o.axes_count = (uint32_t)n;
    return wpt_call_one(call, wnn_reverse(call->builder, x, &o));
}

bool wpt_adapt_triangular(wpt_call *call)
{
    wnn_operand *x;
    wnn_triangular_options o = WNN_TRIANGULAR_OPTIONS_INIT;
    bool has_diagonal = false;
    double diagonal = 0;
    if (!wpt_args_between(call, 1, 1) || !wpt_arg_operand(call, 0, &x) || !wpt_opt_bool(call, "upper", &o.upper) ||
        !wpt_opt_double(call, "diagonal", &has_diagonal, &diagonal))
        return false;
    if (has_diagonal && (trunc(diagonal) != diagonal || diagonal < INT32_MIN || diagonal > INT32_MAX))
        return wpt_call_fail(call, "options.diagonal must be an integer in the range of a long");
    o.diagonal = (int32_t)diagonal;
    return wpt_call_one(call, wnn_triangular(call->builder, x, &o));
}

/* ------------------------------------------------------------------------ */
/* Gather and scatter                                                        */
/* ------------------------------------------------------------------------ */

bool wpt_adapt_gather(wpt_call *call)
{
    wnn_operand *x, *indices;
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_gather(call->builder, x, indices, &o));
}

bool wpt_adapt_gather_elements(wpt_call *call)
{
    wnn_operand *x, *indices;
    wnn_gather_options o = WNN_GATHER_OPTIONS_INIT;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_gather_elements(call->builder, x, indices, &o));
}

bool wpt_adapt_gather_nd(wpt_call *call)
{
    wnn_operand *x, *indices;
    if (!wpt_args_between(call, 2, 2) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices))
        return false;
    return wpt_call_one(call, wnn_gather_nd(call->builder, x, indices));
}

bool wpt_adapt_scatter_elements(wpt_call *call)
{
    wnn_operand *x, *indices, *updates;
    wnn_scatter_options o = WNN_SCATTER_OPTIONS_INIT;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_arg_operand(call, 2, &updates) || !wpt_opt_u32(call, "axis", NULL, &o.axis))
        return false;
    return wpt_call_one(call, wnn_scatter_elements(call->builder, x, indices, updates, &o));
}

bool wpt_adapt_scatter_nd(wpt_call *call)
{
    wnn_operand *x, *indices, *updates;
    if (!wpt_args_between(call, 3, 3) || !wpt_arg_operand(call, 0, &x) || !wpt_arg_operand(call, 1, &indices) ||
        !wpt_arg_operand(call, 2, &updates))
        return false;
    return wpt_call_one(call, wnn_scatter_nd(call->builder, x, indices, updates));
}

/* ------------------------------------------------------------------------ */
/* Recurrent networks                                                        */
/* ------------------------------------------------------------------------ */

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
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_u32(call, 3, &steps) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "initialHiddenState", &o.initial_hidden_state) ||
        !wpt_opt_bool(call, "resetAfter", &o.reset_after) ||
        !wpt_opt_bool(call, "returnSequence", &o.return_sequence) || !opt_direction(call, &o.direction) ||
        !wpt_opt_enum(call, "layout", gru_layouts, 2, &layout) ||
        !opt_activations(call, 2, &o.has_activations, o.activations))
        return false;
    o.layout = (wnn_gru_weight_layout)layout;
    wnn_operand *room[2];
    size_t n = wnn_gru(call->builder, ops[0], ops[1], ops[2], steps, hidden, &o, room);
    return recurrent_results(call, room, n, o.return_sequence ? 2 : 1);
}

bool wpt_adapt_gru_cell(wpt_call *call)
{
    wnn_operand *ops[3], *hidden_state;
    uint32_t hidden;
    wnn_gru_cell_options o = WNN_GRU_CELL_OPTIONS_INIT;
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_operand(call, 3, &hidden_state) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_bool(call, "resetAfter", &o.reset_after) || !wpt_opt_enum(call, "layout", gru_layouts, 2, &layout) ||
        !opt_activations(call, 2, &o.has_activations, o.activations))
        return false;
    o.layout = (wnn_gru_weight_layout)layout;
    return wpt_call_one(call, wnn_gru_cell(call->builder, ops[0], ops[1], ops[2], hidden_state, hidden, &o));
}

bool wpt_adapt_lstm(wpt_call *call)
{
    wnn_operand *ops[3];
    uint32_t steps, hidden;
    wnn_lstm_options o = WNN_LSTM_OPTIONS_INIT;
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 5, 5) || !three_operands(call, ops) || !wpt_arg_u32(call, 3, &steps) ||
        !wpt_arg_u32(call, 4, &hidden) || !wpt_opt_operand(call, "bias", &o.bias) ||
        !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "peepholeWeight", &o.peephole_weight) ||
        !wpt_opt_operand(call, "initialHiddenState", &o.initial_hidden_state) ||
        !wpt_opt_operand(call, "initialCellState", &o.initial_cell_state) ||
        !wpt_opt_bool(call, "returnSequence", &o.return_sequence) || !opt_direction(call, &o.direction) ||
        !wpt_opt_enum(call, "layout", lstm_layouts, 2, &layout) ||
        !opt_activations(call, 3, &o.has_activations, o.activations))
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
    int layout = (int)o.layout;
    if (!wpt_args_between(call, 6, 6) || !three_operands(call, ops) || !wpt_arg_operand(call, 3, &hidden_state) ||
        !wpt_arg_operand(call, 4, &cell_state) || !wpt_arg_u32(call, 5, &hidden) ||
        !wpt_opt_operand(call, "bias", &o.bias) || !wpt_opt_operand(call, "recurrentBias", &o.recurrent_bias) ||
        !wpt_opt_operand(call, "peepholeWeight", &o.peephole_weight) ||
        !wpt_opt_enum(call, "layout", lstm_layouts, 2, &layout) ||
        !opt_activations(call, 3, &o.has_activations, o.activations))
        return false;
    o.layout = (wnn_lstm_weight_layout)layout;
    wnn_operand *room[2];
    size_t n = wnn_lstm_cell(call->builder, ops[0], ops[1], ops[2], hidden_state, cell_state, hidden, &o, room);
    return recurrent_results(call, room, n, 2);
}

#else
/* Without jansson there are no cases to adapt; keep the unit non-empty. */
typedef int wpt_ops_c_needs_jansson;
#endif /* WNN_HAVE_JANSSON */
