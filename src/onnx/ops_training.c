/*
** ops_training.c -- the optimizer steps of the ai.onnx.preview.training
** domain (Adagrad, Adam, Momentum), element-wise arithmetic over each
** tensor they update, as ONNX's reference writes them
** (onnx/backend/test/case/node/{adagrad,adam,momentum}.py). R (learning
** rate) and T (step count) are scalars in the graph, so the bias
** corrections that depend on T > 0 are wheres. Gradient, which needs the
** gradient graph of its inputs, is not lowered.
*/
#include <string.h>

#include "onnx_internal.h"

typedef struct step {
    onx_importer *im;
    wnn_data_type t;
    wnn_operand *r, *positive; /* learning rate; T > 0 (uint8) */
    wnn_operand *tf;           /* T as the tensors' type */
} step;

static wnn_operand *k(const step *s, double v) { return onx_scalar(s->im, s->t, v); }

/* R and T, and the number of tensors each of the n groups holds. */
static wnn_status read_step(onx_importer *im, const Onnx__NodeProto *n, size_t groups, step *s, size_t *count)
{
    wnn_graph_builder *b = im->b;
    if (n->n_input < 2 + groups || (n->n_input - 2) % groups != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%zu inputs: R, T and %zu groups of tensors", n->n_input,
                        groups);
    *count = (n->n_input - 2) / groups;
    if (n->n_output != *count * (groups - 1))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%zu outputs for %zu tensors", n->n_output, *count);
    wnn_operand *r = onx_in_op(im, n, 0), *t = onx_in_op(im, n, 1), *x = onx_in_op(im, n, 2);
    if (r == NULL || t == NULL || x == NULL)
        return im->status;
    wnn_operand_desc xd;
    wnn_operand_get_desc(x, &xd);
    if (!onx_type_is_float(xd.data_type))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%s tensors: float only", wnn_data_type_name(xd.data_type));
    s->im = im;
    s->t = xd.data_type;
    s->r = wnn_cast(b, r, s->t);
    s->tf = wnn_cast(b, t, s->t);
    s->positive = wnn_greater(b, s->tf, k(s, 0.0));
    return WNN_OK;
}

static wnn_status lower_adagrad(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    step s;
    size_t count;
    if (read_step(im, n, 3, &s, &count) != WNN_OK)
        return im->status;
    double decay = onx_attr_float(n, "decay_factor", 0.0f), eps = onx_attr_float(n, "epsilon", 1e-6f),
           norm = onx_attr_float(n, "norm_coefficient", 0.0f);
    wnn_operand *rate = wnn_div(b, s.r, wnn_add(b, k(&s, 1.0), wnn_mul(b, s.tf, k(&s, decay))));
    for (size_t i = 0; i < count; i++) {
        wnn_operand *x = onx_in_op(im, n, 2 + i), *g = onx_in_op(im, n, 2 + count + i);
        wnn_operand *h = onx_in_op(im, n, 2 + 2 * count + i);
        if (x == NULL || g == NULL || h == NULL)
            return im->status;
        wnn_operand *reg = wnn_add(b, wnn_mul(b, x, k(&s, norm)), g);
        wnn_operand *h_new = wnn_add(b, h, wnn_mul(b, reg, reg));
        wnn_operand *scaled = wnn_div(b, reg, wnn_add(b, wnn_sqrt(b, h_new), k(&s, eps)));
        wnn_status st = onx_out(im, n, i, wnn_sub(b, x, wnn_mul(b, rate, scaled)));
        if (st == WNN_OK)
            st = onx_out(im, n, count + i, h_new);
        if (st != WNN_OK)
            return st;
    }
    return WNN_OK;
}

static wnn_status lower_adam(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    step s;
    size_t count;
    if (read_step(im, n, 4, &s, &count) != WNN_OK)
        return im->status;
    double alpha = onx_attr_float(n, "alpha", 0.9f), beta = onx_attr_float(n, "beta", 0.999f),
           eps = onx_attr_float(n, "epsilon", 1e-6f), norm = onx_attr_float(n, "norm_coefficient", 0.0f),
           post = onx_attr_float(n, "norm_coefficient_post", 0.0f);
    /* r sqrt(1 - beta^T) / (1 - alpha^T) once T > 0 */
    wnn_operand *corr = wnn_div(b, wnn_sqrt(b, wnn_sub(b, k(&s, 1.0), wnn_pow(b, k(&s, beta), s.tf))),
                                wnn_sub(b, k(&s, 1.0), wnn_pow(b, k(&s, alpha), s.tf)));
    wnn_operand *rate = wnn_where(b, s.positive, wnn_mul(b, s.r, corr), s.r);
    for (size_t i = 0; i < count; i++) {
        wnn_operand *x = onx_in_op(im, n, 2 + i), *g = onx_in_op(im, n, 2 + count + i);
        wnn_operand *v = onx_in_op(im, n, 2 + 2 * count + i), *h = onx_in_op(im, n, 2 + 3 * count + i);
        if (x == NULL || g == NULL || v == NULL || h == NULL)
            return im->status;
        wnn_operand *reg = wnn_add(b, wnn_mul(b, x, k(&s, norm)), g);
        wnn_operand *v_new = wnn_add(b, wnn_mul(b, v, k(&s, alpha)), wnn_mul(b, reg, k(&s, 1 - alpha)));
        wnn_operand *h_new = wnn_add(b, wnn_mul(b, h, k(&s, beta)), wnn_mul(b, wnn_mul(b, reg, reg), k(&s, 1 - beta)));
        wnn_operand *step_ = wnn_div(b, v_new, wnn_add(b, wnn_sqrt(b, h_new), k(&s, eps)));
        wnn_operand *x_new = wnn_mul(b, wnn_sub(b, x, wnn_mul(b, rate, step_)), k(&s, 1 - post));
        wnn_status st = onx_out(im, n, i, x_new);
        if (st == WNN_OK)
            st = onx_out(im, n, count + i, v_new);
        if (st == WNN_OK)
            st = onx_out(im, n, 2 * count + i, h_new);
        if (st != WNN_OK)
            return st;
    }
    return WNN_OK;
}

static wnn_status lower_momentum(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    step s;
    size_t count;
    if (read_step(im, n, 3, &s, &count) != WNN_OK)
        return im->status;
    char mode[16];
    onx_attr_string(n, "mode", "standard", mode, sizeof mode);
    bool nesterov = strcmp(mode, "nesterov") == 0;
    if (!nesterov && strcmp(mode, "standard") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "mode '%s' is not standard or nesterov", mode);
    double alpha = onx_attr_float(n, "alpha", 0.0f), beta = onx_attr_float(n, "beta", 0.0f),
           norm = onx_attr_float(n, "norm_coefficient", 0.0f);
    wnn_operand *beta_t = wnn_where(b, s.positive, k(&s, beta), k(&s, 1.0)); /* 1 at the first step */
    for (size_t i = 0; i < count; i++) {
        wnn_operand *x = onx_in_op(im, n, 2 + i), *g = onx_in_op(im, n, 2 + count + i);
        wnn_operand *v = onx_in_op(im, n, 2 + 2 * count + i);
        if (x == NULL || g == NULL || v == NULL)
            return im->status;
        wnn_operand *reg = wnn_add(b, wnn_mul(b, x, k(&s, norm)), g);
        wnn_operand *v_new = wnn_add(b, wnn_mul(b, v, k(&s, alpha)), wnn_mul(b, beta_t, reg));
        wnn_operand *dir = nesterov ? wnn_add(b, reg, wnn_mul(b, v_new, k(&s, alpha))) : v_new;
        wnn_status st = onx_out(im, n, i, wnn_sub(b, x, wnn_mul(b, s.r, dir)));
        if (st == WNN_OK)
            st = onx_out(im, n, count + i, v_new);
        if (st != WNN_OK)
            return st;
    }
    return WNN_OK;
}

static const onx_op_entry training_ops[] = {
    {"Adagrad", lower_adagrad},
    {"Adam", lower_adam},
    {"Momentum", lower_momentum},
    {NULL, NULL},
};

onx_lower_fn onx_find_training(const char *op)
{
    for (const onx_op_entry *e = training_ops; e->name != NULL; e++)
        if (strcmp(e->name, op) == 0)
            return e->fn;
    return NULL;
}
