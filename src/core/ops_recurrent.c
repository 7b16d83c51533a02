/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_recurrent.c -- builder methods of the recurrent operators: gru,
** gruCell, lstm and lstmCell. The arguments fix every operand's shape, so
** validation is mostly "this operand must be exactly [..]"; the checks run
** in the specification's order (data types, ranks, then shapes, then
** options) so that the first failure reported is the one WebNN names.
*/
#include <stdio.h>

#include "core/builder.h"

/* What every check needs: the builder, the operator's name and the data
** type all operands must share (input's). */
typedef struct rnn_ctx {
    wnn_graph_builder *b;
    const char *op;
    wnn_data_type type;
} rnn_ctx;

static void shape_text(const uint32_t *shape, uint32_t rank, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%u", i ? ", " : "", shape[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

/* input is float32 or float16 and the other required operands match it. */
static bool check_types(rnn_ctx *c, wnn_operand *const *ops, const char *const *names, size_t n)
{
    if (!wnn__op_check_type(c->b, c->op, names[0], ops[0], WNN__TYPES_FLOAT))
        return false;
    c->type = wnn__desc(ops[0])->data_type;
    for (size_t i = 1; i < n; i++) {
        wnn_data_type t = wnn__desc(ops[i])->data_type;
        if (t != c->type) {
            wnn__op_error(c->b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s is %s, input is %s, they must match", c->op,
                          names[i], wnn_data_type_name(t), wnn_data_type_name(c->type));
            return false;
        }
    }
    return true;
}

static bool check_ranks(rnn_ctx *c, wnn_operand *const *ops, const char *const *names, size_t n, uint32_t rank)
{
    for (size_t i = 0; i < n; i++)
        if (!wnn__op_check_rank(c->b, c->op, names[i], ops[i], rank, rank))
            return false;
    return true;
}

/* x (already type- and rank-checked) has exactly the shape want. */
static bool check_shape(rnn_ctx *c, const wnn_operand *x, const char *name, const uint32_t *want, uint32_t rank)
{
    const wnn_operand_desc *d = wnn__desc(x);
    bool same = d->rank == rank;
    for (uint32_t i = 0; same && i < rank; i++)
        same = d->shape[i] == want[i];
    if (same)
        return true;
    char got[96], need[96];
    shape_text(d->shape, d->rank, got, sizeof got);
    shape_text(want, rank, need, sizeof need);
    wnn__op_error(c->b, WNN_STATUS_SHAPE_MISMATCH, "%s: %s has shape %s, must be %s", c->op, name, got, need);
    return false;
}

/* An optional operand: absent, or of input's type and exactly shape want. */
static bool check_option(rnn_ctx *c, const wnn_operand *x, const char *name, const uint32_t *want, uint32_t rank)
{
    if (!x)
        return true;
    wnn_data_type t = wnn__desc(x)->data_type;
    if (t != c->type) {
        wnn__op_error(c->b, WNN_STATUS_UNSUPPORTED_DATA_TYPE, "%s: %s is %s, input is %s, they must match", c->op,
                      name, wnn_data_type_name(t), wnn_data_type_name(c->type));
        return false;
    }
    if (!wnn__op_check_rank(c->b, c->op, name, x, rank, rank))
        return false;
    return check_shape(c, x, name, want, rank);
}

static bool check_optionals(rnn_ctx *c, wnn_operand *const *ops, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!wnn__op_check_optional(c->b, c->op, names[i], ops[i]))
            return false;
    return true;
}

/* gates * hidden_size and twice that (a fused bias) are valid dimensions. */
static bool check_hidden_size(rnn_ctx *c, uint32_t hidden_size, uint32_t gates)
{
    uint64_t fused = (uint64_t)hidden_size * gates * 2;
    if (hidden_size > 0 && fused <= WNN_MAX_DIMENSION)
        return true;
    wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: hiddenSize %u, hiddenSize * %u must be 1 to 2^31-1", c->op,
                  hidden_size, gates * 2);
    return false;
}

/* Copies the n activations, given (given_count of them, which must be n)
** or WebNN's defaults when given is NULL, after checking each is known. */
static bool check_activations(rnn_ctx *c, const wnn_recurrent_activation *given, uint32_t given_count, size_t n,
                              wnn_recurrent_activation *out)
{
    static const wnn_recurrent_activation defaults[3] = {
        WNN_RECURRENT_ACTIVATION_SIGMOID, WNN_RECURRENT_ACTIVATION_TANH, WNN_RECURRENT_ACTIVATION_TANH};
    if (given && given_count != n) {
        wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: activations has %u entries, must be %zu", c->op,
                      given_count, n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        wnn_recurrent_activation a = given ? given[i] : defaults[i];
        if (a != WNN_RECURRENT_ACTIVATION_RELU && a != WNN_RECURRENT_ACTIVATION_SIGMOID &&
            a != WNN_RECURRENT_ACTIVATION_TANH) {
            wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: activations[%zu] = %d is not an activation", c->op,
                          i, (int)a);
            return false;
        }
        out[i] = a;
    }
    return true;
}

static bool check_direction(rnn_ctx *c, wnn_recurrent_direction d)
{
    if (d == WNN_RECURRENT_DIRECTION_FORWARD || d == WNN_RECURRENT_DIRECTION_BACKWARD ||
        d == WNN_RECURRENT_DIRECTION_BOTH)
        return true;
    wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: direction %d is not a direction", c->op, (int)d);
    return false;
}

static bool check_layout(rnn_ctx *c, int layout)
{
    if (layout == 0 || layout == 1)
        return true;
    wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: layout %d is not a weight layout", c->op, layout);
    return false;
}

static bool check_outputs_arg(rnn_ctx *c, wnn_operand **outputs)
{
    if (outputs)
        return true;
    wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: outputs is NULL", c->op);
    return false;
}

static bool check_result(rnn_ctx *c, const wnn_operand_desc *out)
{
    wnn_status s = wnn__check_desc(c->op, out);
    if (s == WNN_OK)
        return true;
    wnn__op_error(c->b, s, "%s", wnn_last_error_message());
    return false;
}

/* ------------------------------------------------------------------------ */
/* Networks: gru and lstm                                                    */
/* ------------------------------------------------------------------------ */

/* What gru and lstm share: the checks of input, the two weights, steps and
** hiddenSize for a network of `gates` gates. Fills dims with numDirections,
** batchSize, inputSize. */
static bool network_begin(rnn_ctx *c, wnn_operand *const *req, uint32_t steps, uint32_t hidden_size, uint32_t gates,
                          wnn_recurrent_direction direction, uint32_t *nd, uint32_t *batch)
{
    static const char *const names[3] = {"input", "weight", "recurrentWeight"};
    if (!check_types(c, req, names, 3) || !check_ranks(c, req, names, 3, 3) || !check_direction(c, direction))
        return false;
    const wnn_operand_desc *in = wnn__desc(req[0]);
    if (steps == 0) {
        wnn__op_error(c->b, WNN_STATUS_INVALID_ARGUMENT, "%s: steps is 0, must be > 0", c->op);
        return false;
    }
    if (in->shape[0] != steps) {
        wnn__op_error(c->b, WNN_STATUS_SHAPE_MISMATCH, "%s: input.shape[0] is %u, steps is %u", c->op, in->shape[0],
                      steps);
        return false;
    }
    *nd = direction == WNN_RECURRENT_DIRECTION_BOTH ? 2 : 1;
    *batch = in->shape[1];
    uint64_t rows = (uint64_t)gates * hidden_size;
    uint32_t w[3] = {*nd, (uint32_t)rows, in->shape[2]}, r[3] = {*nd, (uint32_t)rows, hidden_size};
    if (rows > WNN_MAX_DIMENSION)
        return check_hidden_size(c, hidden_size, gates);
    return check_shape(c, req[1], "weight", w, 3) && check_shape(c, req[2], "recurrentWeight", r, 3) &&
           check_hidden_size(c, hidden_size, gates);
}

size_t wnn_gru(wnn_graph_builder *b, wnn_operand *input, wnn_operand *weight, wnn_operand *recurrent_weight,
               uint32_t steps, uint32_t hidden_size, const wnn_gru_options *options, wnn_operand **outputs)
{
    static const wnn_gru_options defaults = WNN_GRU_OPTIONS_INIT;
    static const char *const req_names[3] = {"input", "weight", "recurrentWeight"};
    static const char *const opt_names[3] = {"bias", "recurrentBias", "initialHiddenState"};
    const wnn_gru_options *o = options ? options : &defaults;
    rnn_ctx c = {b, "gru", WNN_DATA_TYPE_INVALID};
    wnn_operand *in[6] = {input, weight, recurrent_weight, o->bias, o->recurrent_bias, o->initial_hidden_state};
    uint32_t nd, batch;
    wnn__attrs attrs = {.rnn = {o->direction, (int)o->layout, {0}, !o->reset_before}};
    if (!wnn__op_begin(b, "gru", in, req_names, 3) || !check_optionals(&c, in + 3, opt_names, 3) ||
        !check_outputs_arg(&c, outputs) ||
        !network_begin(&c, in, steps, hidden_size, 3, o->direction, &nd, &batch))
        return 0;
    uint32_t bias[2] = {nd, 3 * hidden_size}, state[3] = {nd, batch, hidden_size};
    if (!check_option(&c, o->bias, "bias", bias, 2) || !check_option(&c, o->recurrent_bias, "recurrentBias", bias, 2) ||
        !check_option(&c, o->initial_hidden_state, "initialHiddenState", state, 3) ||
        !check_layout(&c, (int)o->layout) || !wnn__op_check_chain(b, c.op, o->next_in_chain) ||
        !check_activations(&c, o->activations, o->activations_count, 2, attrs.rnn.activations))
        return 0;
    wnn_operand_desc out[2] = {{c.type, 3, {nd, batch, hidden_size}}, {c.type, 4, {steps, nd, batch, hidden_size}}};
    uint32_t n_out = o->return_sequence ? 2 : 1;
    for (uint32_t i = 0; i < n_out; i++)
        if (!check_result(&c, &out[i]))
            return 0;
    return wnn__op_add_node(b, WNN__OP_GRU, in, 6, out, n_out, &attrs, outputs) ? n_out : 0;
}

size_t wnn_lstm(wnn_graph_builder *b, wnn_operand *input, wnn_operand *weight, wnn_operand *recurrent_weight,
                uint32_t steps, uint32_t hidden_size, const wnn_lstm_options *options, wnn_operand **outputs)
{
    static const wnn_lstm_options defaults = WNN_LSTM_OPTIONS_INIT;
    static const char *const req_names[3] = {"input", "weight", "recurrentWeight"};
    static const char *const opt_names[5] = {"bias", "recurrentBias", "peepholeWeight", "initialHiddenState",
                                             "initialCellState"};
    const wnn_lstm_options *o = options ? options : &defaults;
    rnn_ctx c = {b, "lstm", WNN_DATA_TYPE_INVALID};
    wnn_operand *in[8] = {input,           weight, recurrent_weight, o->bias, o->recurrent_bias, o->peephole_weight,
                          o->initial_hidden_state, o->initial_cell_state};
    uint32_t nd, batch;
    wnn__attrs attrs = {.rnn = {o->direction, (int)o->layout, {0}, false}};
    if (!wnn__op_begin(b, "lstm", in, req_names, 3) || !check_optionals(&c, in + 3, opt_names, 5) ||
        !check_outputs_arg(&c, outputs) ||
        !network_begin(&c, in, steps, hidden_size, 4, o->direction, &nd, &batch))
        return 0;
    uint32_t bias[2] = {nd, 4 * hidden_size}, peep[2] = {nd, 3 * hidden_size}, state[3] = {nd, batch, hidden_size};
    if (!check_option(&c, o->bias, "bias", bias, 2) || !check_option(&c, o->recurrent_bias, "recurrentBias", bias, 2) ||
        !check_option(&c, o->peephole_weight, "peepholeWeight", peep, 2) ||
        !check_option(&c, o->initial_hidden_state, "initialHiddenState", state, 3) ||
        !check_option(&c, o->initial_cell_state, "initialCellState", state, 3) || !check_layout(&c, (int)o->layout) ||
        !wnn__op_check_chain(b, c.op, o->next_in_chain) ||
        !check_activations(&c, o->activations, o->activations_count, 3, attrs.rnn.activations))
        return 0;
    wnn_operand_desc out[3] = {{c.type, 3, {nd, batch, hidden_size}},
                               {c.type, 3, {nd, batch, hidden_size}},
                               {c.type, 4, {steps, nd, batch, hidden_size}}};
    uint32_t n_out = o->return_sequence ? 3 : 2;
    for (uint32_t i = 0; i < n_out; i++)
        if (!check_result(&c, &out[i]))
            return 0;
    return wnn__op_add_node(b, WNN__OP_LSTM, in, 8, out, n_out, &attrs, outputs) ? n_out : 0;
}

/* ------------------------------------------------------------------------ */
/* Cells: gruCell and lstmCell                                               */
/* ------------------------------------------------------------------------ */

/* What the cells share: n required operands (input, weight, recurrentWeight
** and the states) of rank 2, the weights [gates * hiddenSize, inputSize] and
** [gates * hiddenSize, hiddenSize], the states [batchSize, hiddenSize]. */
static bool cell_begin(rnn_ctx *c, wnn_operand *const *req, const char *const *names, size_t n,
                       uint32_t hidden_size, uint32_t gates, uint32_t *batch)
{
    if (!check_types(c, req, names, n) || !check_ranks(c, req, names, n, 2))
        return false;
    const wnn_operand_desc *in = wnn__desc(req[0]);
    *batch = in->shape[0];
    uint64_t rows = (uint64_t)gates * hidden_size;
    if (rows > WNN_MAX_DIMENSION)
        return check_hidden_size(c, hidden_size, gates);
    uint32_t w[2] = {(uint32_t)rows, in->shape[1]}, r[2] = {(uint32_t)rows, hidden_size};
    uint32_t state[2] = {*batch, hidden_size};
    if (!check_shape(c, req[1], names[1], w, 2) || !check_shape(c, req[2], names[2], r, 2))
        return false;
    for (size_t i = 3; i < n; i++)
        if (!check_shape(c, req[i], names[i], state, 2))
            return false;
    return check_hidden_size(c, hidden_size, gates);
}

wnn_operand *wnn_gru_cell(wnn_graph_builder *b, wnn_operand *input, wnn_operand *weight,
                          wnn_operand *recurrent_weight, wnn_operand *hidden_state, uint32_t hidden_size,
                          const wnn_gru_cell_options *options)
{
    static const wnn_gru_cell_options defaults = WNN_GRU_CELL_OPTIONS_INIT;
    static const char *const req_names[4] = {"input", "weight", "recurrentWeight", "hiddenState"};
    static const char *const opt_names[2] = {"bias", "recurrentBias"};
    const wnn_gru_cell_options *o = options ? options : &defaults;
    rnn_ctx c = {b, "gruCell", WNN_DATA_TYPE_INVALID};
    wnn_operand *in[6] = {input, weight, recurrent_weight, hidden_state, o->bias, o->recurrent_bias};
    uint32_t batch;
    wnn__attrs attrs = {.rnn = {WNN_RECURRENT_DIRECTION_FORWARD, (int)o->layout, {0}, !o->reset_before}};
    if (!wnn__op_begin(b, "gruCell", in, req_names, 4) || !check_optionals(&c, in + 4, opt_names, 2) ||
        !cell_begin(&c, in, req_names, 4, hidden_size, 3, &batch))
        return NULL;
    uint32_t bias[1] = {3 * hidden_size};
    if (!check_option(&c, o->bias, "bias", bias, 1) || !check_option(&c, o->recurrent_bias, "recurrentBias", bias, 1) ||
        !check_layout(&c, (int)o->layout) || !wnn__op_check_chain(b, c.op, o->next_in_chain) ||
        !check_activations(&c, o->activations, o->activations_count, 2, attrs.rnn.activations))
        return NULL;
    wnn_operand_desc out = {c.type, 2, {batch, hidden_size}};
    return wnn__op_add_node(b, WNN__OP_GRU_CELL, in, 6, &out, 1, &attrs, NULL);
}

size_t wnn_lstm_cell(wnn_graph_builder *b, wnn_operand *input, wnn_operand *weight, wnn_operand *recurrent_weight,
                     wnn_operand *hidden_state, wnn_operand *cell_state, uint32_t hidden_size,
                     const wnn_lstm_cell_options *options, wnn_operand **outputs)
{
    static const wnn_lstm_cell_options defaults = WNN_LSTM_CELL_OPTIONS_INIT;
    static const char *const req_names[5] = {"input", "weight", "recurrentWeight", "hiddenState", "cellState"};
    static const char *const opt_names[3] = {"bias", "recurrentBias", "peepholeWeight"};
    const wnn_lstm_cell_options *o = options ? options : &defaults;
    rnn_ctx c = {b, "lstmCell", WNN_DATA_TYPE_INVALID};
    wnn_operand *in[8] = {input, weight, recurrent_weight, hidden_state, cell_state,
                          o->bias, o->recurrent_bias, o->peephole_weight};
    uint32_t batch;
    wnn__attrs attrs = {.rnn = {WNN_RECURRENT_DIRECTION_FORWARD, (int)o->layout, {0}, false}};
    if (!wnn__op_begin(b, "lstmCell", in, req_names, 5) || !check_optionals(&c, in + 5, opt_names, 3) ||
        !check_outputs_arg(&c, outputs) || !cell_begin(&c, in, req_names, 5, hidden_size, 4, &batch))
        return 0;
    uint32_t bias[1] = {4 * hidden_size}, peep[1] = {3 * hidden_size};
    if (!check_option(&c, o->bias, "bias", bias, 1) || !check_option(&c, o->recurrent_bias, "recurrentBias", bias, 1) ||
        !check_option(&c, o->peephole_weight, "peepholeWeight", peep, 1) || !check_layout(&c, (int)o->layout) ||
        !wnn__op_check_chain(b, c.op, o->next_in_chain) ||
        !check_activations(&c, o->activations, o->activations_count, 3, attrs.rnn.activations))
        return 0;
    wnn_operand_desc out[2] = {{c.type, 2, {batch, hidden_size}}, {c.type, 2, {batch, hidden_size}}};
    return wnn__op_add_node(b, WNN__OP_LSTM_CELL, in, 8, out, 2, &attrs, outputs) ? 2 : 0;
}
