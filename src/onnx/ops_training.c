/*
** ops_training.c -- the optimizer steps of the ai.onnx.preview.training
** domain (Adagrad, Adam, Momentum), element-wise arithmetic over each
** tensor they update, as ONNX's reference writes them
** (onnx/backend/test/case/node/{adagrad,adam,momentum}.py). R (learning
** rate) and T (step count) are scalars in the graph, so the bias
** corrections that depend on T > 0 are wheres. Gradient is reverse-mode
** differentiation of the graph's nodes between xs and y (see below).
*/
#include <stdlib.h>
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

/* ---- Gradient ---- */

/* Names reached from xs by the main graph's nodes before the Gradient node,
** and the gradient arriving at each (NULL until one does). */
typedef struct grad_var {
    const char *name;
    wnn_operand *g;
} grad_var;

typedef struct grad_set {
    grad_var *v;
    size_t n, cap;
} grad_set;

static grad_var *grad_find(grad_set *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0)
            return &s->v[i];
    return NULL;
}

static bool grad_add(grad_set *s, const char *name)
{
    if (grad_find(s, name) != NULL)
        return true;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        grad_var *v = realloc(s->v, cap * sizeof *v);
        if (v == NULL)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (grad_var){name, NULL};
    return true;
}

/* g summed over the axes along which x was broadcast to g's shape. */
static wnn_operand *unbroadcast(onx_importer *im, wnn_operand *g, wnn_operand *x)
{
    wnn_operand_desc gd, xd;
    wnn_operand_get_desc(g, &gd);
    wnn_operand_get_desc(x, &xd);
    uint32_t axes[WNN_MAX_RANK], na = 0;
    for (uint32_t i = 0; i < gd.rank; i++) {
        int64_t j = (int64_t)i - (int64_t)(gd.rank - xd.rank);
        if (j < 0 || (xd.shape[j] == 1 && gd.shape[i] != 1))
            axes[na++] = i;
    }
    if (na == 0)
        return g;
    wnn_reduce_options ro = {.axes = axes, .axes_count = na, .keep_dimensions = true};
    return wnn_reshape(im->b, wnn_reduce_sum(im->b, g, &ro), xd.rank, xd.shape);
}

static void grad_flow(onx_importer *im, grad_set *s, const Onnx__NodeProto *m, size_t i, wnn_operand *g)
{
    grad_var *v = i < m->n_input && m->input[i] ? grad_find(s, m->input[i]) : NULL;
    onx_value *x = v ? onx_lookup(im, v->name) : NULL;
    wnn_operand *xo = x ? onx_operand(im, x) : NULL;
    if (xo == NULL || g == NULL)
        return;
    g = unbroadcast(im, g, xo);
    v->g = v->g == NULL ? g : wnn_add(im->b, v->g, g);
}

/* The gradient of the sum of y with respect to each of xs (ONNX's
** Gradient): the nodes between xs and y differentiated in reverse order
** (Add, Sub, Mul, Div, Neg, Identity), each gradient reduced over the axes
** its input was broadcast along; an x that y does not depend on gets zeros. */
static wnn_status lower_gradient(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    const Onnx__AttributeProto *xs = onx_attr(n, "xs");
    char y[256];
    onx_attr_string(n, "y", "", y, sizeof y);
    const Onnx__GraphProto *gr = im->graph;
    size_t at = 0;
    while (at < gr->n_node && gr->node[at] != n)
        at++;
    if (xs == NULL || xs->n_strings != n->n_output || y[0] == '\0')
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "xs must name one input per output, and y the output");
    if (at == gr->n_node)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a Gradient inside a subgraph");
    grad_set s = {NULL, 0, 0};
    bool ok = true;
    for (size_t i = 0; ok && i < xs->n_strings; i++) {
        char *name = strndup((const char *)xs->strings[i].data, xs->strings[i].len);
        ok = name != NULL && grad_add(&s, onx_lookup(im, name) ? onx_lookup(im, name)->name : "");
        free(name);
    }
    for (size_t k = 0; ok && k < at; k++) { /* forward: what depends on xs */
        const Onnx__NodeProto *m = gr->node[k];
        bool active = false;
        for (size_t i = 0; i < m->n_input && !active; i++)
            active = m->input[i] && m->input[i][0] && grad_find(&s, m->input[i]) != NULL;
        for (size_t o = 0; ok && active && o < m->n_output; o++)
            ok = m->output[o] == NULL || m->output[o][0] == '\0' || grad_add(&s, m->output[o]);
    }
    wnn_status st = ok ? WNN_OK : onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    grad_var *top = st == WNN_OK ? grad_find(&s, y) : NULL;
    onx_value *yv = onx_lookup(im, y);
    if (st == WNN_OK && top != NULL && yv != NULL) {
        wnn_operand *yo = onx_operand(im, yv);
        wnn_operand_desc yd;
        if (yo != NULL) {
            wnn_operand_get_desc(yo, &yd);
            top->g = wnn_expand(b, onx_scalar(im, yd.data_type, 1.0), yd.rank, yd.shape);
        }
    }
    for (size_t k = at; st == WNN_OK && k-- > 0;) { /* reverse: the chain rule */
        const Onnx__NodeProto *m = gr->node[k];
        grad_var *out = m->n_output > 0 && m->output[0] ? grad_find(&s, m->output[0]) : NULL;
        if (out == NULL || out->g == NULL)
            continue;
        wnn_operand *g = out->g;
        const char *op = m->op_type ? m->op_type : "";
        onx_value *av = m->n_input > 0 && m->input[0] ? onx_lookup(im, m->input[0]) : NULL;
        onx_value *bv = m->n_input > 1 && m->input[1] ? onx_lookup(im, m->input[1]) : NULL;
        wnn_operand *a = av ? onx_operand(im, av) : NULL, *bo = bv ? onx_operand(im, bv) : NULL;
        bool binary = strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0 || strcmp(op, "Mul") == 0 ||
                      strcmp(op, "Div") == 0;
        if ((binary && (a == NULL || bo == NULL || m->n_input != 2)) || (!binary && a == NULL)) {
            st = im->status != WNN_OK ? im->status
                                      : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "node %zu's inputs are missing", k);
        } else if (strcmp(op, "Add") == 0 || strcmp(op, "Sub") == 0) {
            grad_flow(im, &s, m, 0, g);
            grad_flow(im, &s, m, 1, op[0] == 'S' ? wnn_neg(b, g) : g);
        } else if (strcmp(op, "Mul") == 0) {
            grad_flow(im, &s, m, 0, wnn_mul(b, g, bo));
            grad_flow(im, &s, m, 1, wnn_mul(b, g, a));
        } else if (strcmp(op, "Div") == 0) {
            grad_flow(im, &s, m, 0, wnn_div(b, g, bo));
            grad_flow(im, &s, m, 1, wnn_neg(b, wnn_div(b, wnn_mul(b, g, a), wnn_mul(b, bo, bo))));
        } else if (strcmp(op, "Neg") == 0) {
            grad_flow(im, &s, m, 0, wnn_neg(b, g));
        } else if (strcmp(op, "Identity") == 0) {
            grad_flow(im, &s, m, 0, g);
        } else {
            st = onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "the gradient through node %zu (%s) is not supported: Add, "
                          "Sub, Mul, Div, Neg and Identity are", k, op);
        }
    }
    for (size_t i = 0; st == WNN_OK && i < n->n_output; i++) {
        onx_value *x = i < s.n ? onx_lookup(im, s.v[i].name) : NULL;
        wnn_operand *xo = x ? onx_operand(im, x) : NULL, *g = i < s.n ? s.v[i].g : NULL;
        if (xo == NULL) {
            st = im->status != WNN_OK ? im->status : onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "xs[%zu] is unknown", i);
            break;
        }
        if (g == NULL) { /* y does not depend on it */
            wnn_operand_desc xd;
            wnn_operand_get_desc(xo, &xd);
            g = wnn_expand(b, onx_scalar(im, xd.data_type, 0.0), xd.rank, xd.shape);
        }
        st = onx_out(im, n, i, g);
    }
    free(s.v);
    return st;
}

static const onx_op_entry training_ops[] = {
    {"Gradient", lower_gradient},
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
