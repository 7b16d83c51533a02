/*
** ops_einsum.c -- ONNX's Einsum for the common equations, onto reductions,
** transposes, reshapes and a batched matmul.
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* One or two operands without ellipsis or repeated letters in an operand:
** letters only in one operand and not in the output are summed first; for
** two operands the rest become a batched matmul [batch, M, K] x [batch, K,
** N], reshaped and transposed to the output's order. */
typedef struct term {
    char letters[WNN_MAX_RANK + 1];
    uint32_t rank;
} term;

static int parse_term(const char *s, size_t len, term *t)
{
    t->rank = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ')
            continue;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) || t->rank == WNN_MAX_RANK ||
            memchr(t->letters, c, t->rank) != NULL)
            return -1;
        t->letters[t->rank++] = c;
    }
    t->letters[t->rank] = '\0';
    return 0;
}

static bool has(const term *t, char c) { return memchr(t->letters, c, t->rank) != NULL; }

/* Sums x over the letters of t absent from keep1 and keep2; t shrinks. */
static wnn_operand *sum_unused(onx_importer *im, wnn_operand *x, term *t, const term *keep1, const term *keep2)
{
    wnn_reduce_options o = WNN_REDUCE_OPTIONS_INIT;
    uint32_t axes[WNN_MAX_RANK];
    o.axes = axes;
    term kept = {{0}, 0};
    for (uint32_t i = 0; i < t->rank; i++) {
        if (has(keep1, t->letters[i]) || (keep2 && has(keep2, t->letters[i])))
            kept.letters[kept.rank++] = t->letters[i];
        else
            axes[o.axes_count++] = i;
    }
    kept.letters[kept.rank] = '\0';
    *t = kept;
    return o.axes_count ? wnn_reduce_sum(im->b, x, &o) : x;
}

/* x transposed so that its letters follow order (a permutation of t). */
static wnn_operand *to_order(onx_importer *im, wnn_operand *x, const term *t, const char *order)
{
    uint32_t perm[WNN_MAX_RANK];
    bool same = true;
    for (uint32_t i = 0; i < t->rank; i++) {
        perm[i] = (uint32_t)((const char *)memchr(t->letters, order[i], t->rank) - t->letters);
        same = same && perm[i] == i;
    }
    return same ? x : wnn_transpose(im->b, x, perm);
}

static uint32_t dim_of(wnn_operand *x, const term *t, char c)
{
    wnn_operand_desc d = onx_desc_of(x);
    return d.shape[(const char *)memchr(t->letters, c, t->rank) - t->letters];
}

static wnn_status lower_einsum(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    char eq[128];
    onx_attr_string(n, "equation", "", eq, sizeof eq);
    const char *arrow = strstr(eq, "->"), *comma = strchr(eq, ',');
    if (arrow == NULL || strstr(eq, "...") != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "equation '%s': only explicit outputs without ellipsis", eq);
    size_t k = comma && comma < arrow ? 2 : 1;
    if (k != n->n_input || (comma && strchr(comma + 1, ',') != NULL))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "equation '%s': one or two operands", eq);
    term a, bt, out;
    if (parse_term(eq, (size_t)((k == 2 ? comma : arrow) - eq), &a) < 0 ||
        (k == 2 && parse_term(comma + 1, (size_t)(arrow - comma - 1), &bt) < 0) ||
        parse_term(arrow + 2, strlen(arrow + 2), &out) < 0)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "equation '%s': repeated letters (diagonals) or bad terms", eq);
    for (uint32_t i = 0; i < out.rank; i++)
        if (!has(&a, out.letters[i]) && (k == 1 || !has(&bt, out.letters[i])))
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "equation '%s': output letter '%c' is in no operand", eq,
                            out.letters[i]);
    wnn_operand *x = onx_in_op(im, n, 0), *y = k == 2 ? onx_in_op(im, n, 1) : NULL;
    if (x == NULL || (k == 2 && y == NULL))
        return im->status;
    if (onx_desc_of(x).rank != a.rank || (k == 2 && onx_desc_of(y).rank != bt.rank))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "equation '%s' does not match the operand ranks", eq);
    x = sum_unused(im, x, &a, &out, k == 2 ? &bt : NULL);
    if (k == 1)
        return onx_out(im, n, 0, wnn_identity(b, to_order(im, x, &a, out.letters)));
    y = sum_unused(im, y, &bt, &out, &a);
    /* batch: in a, b and out; left: a and out; right: b and out; contracted: a and b only */
    char order_a[WNN_MAX_RANK + 1] = "", order_b[WNN_MAX_RANK + 1] = "", res[3 * WNN_MAX_RANK + 1] = "";
    uint32_t na = 0, nb = 0, nr = 0, batch = 1, m = 1, kk = 1, nn = 1, res_shape[3 * WNN_MAX_RANK];
    for (int pass = 0; pass < 4; pass++) {
        for (uint32_t i = 0; i < (pass == 2 ? bt.rank : a.rank); i++) {
            char c = pass == 2 ? bt.letters[i] : a.letters[i];
            bool in_a = has(&a, c), in_b = has(&bt, c), in_o = has(&out, c);
            if (pass == 0 && in_a && in_b && in_o) { /* batch */
                order_a[na++] = c, order_b[nb++] = c;
                res_shape[nr] = dim_of(x, &a, c), res[nr++] = c;
                batch *= dim_of(x, &a, c);
            } else if (pass == 1 && in_a && !in_b) { /* left */
                order_a[na++] = c;
                res_shape[nr] = dim_of(x, &a, c), res[nr++] = c;
                m *= dim_of(x, &a, c);
            } else if (pass == 2 && in_b && !in_a) { /* right */
                res_shape[nr] = dim_of(y, &bt, c), res[nr++] = c;
                nn *= dim_of(y, &bt, c);
            } else if (pass == 3 && in_a && in_b && !in_o) { /* contracted */
                order_a[na++] = c;
                kk *= dim_of(x, &a, c);
            }
        }
    }
    for (uint32_t i = 0; i < a.rank; i++) /* contracted, then right, for b */
        if (has(&bt, a.letters[i]) && !has(&out, a.letters[i]))
            order_b[nb++] = a.letters[i];
    for (uint32_t i = 0; i < bt.rank; i++)
        if (!has(&a, bt.letters[i]))
            order_b[nb++] = bt.letters[i];
    if (nr > WNN_MAX_RANK)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "equation '%s': rank over %d", eq, WNN_MAX_RANK);
    uint32_t sa[3] = {batch, m, kk}, sb[3] = {batch, kk, nn};
    wnn_operand *p = wnn_matmul(b, wnn_reshape(b, to_order(im, x, &a, order_a), 3, sa),
                                wnn_reshape(b, to_order(im, y, &bt, order_b), 3, sb));
    term rt;
    memcpy(rt.letters, res, nr);
    rt.letters[nr] = '\0';
    rt.rank = nr;
    p = wnn_reshape(b, p, nr, res_shape);
    if (p == NULL)
        return onx_builder_failed(im);
    return onx_out(im, n, 0, wnn_identity(b, to_order(im, p, &rt, out.letters)));
}

const onx_op_entry onx_ops_einsum[] = {
    {"Einsum", lower_einsum},
    {NULL, NULL},
};
