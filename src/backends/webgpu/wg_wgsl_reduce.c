/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl_reduce.c -- WGSL for the ten reductions, argMin/argMax and
** softmax along one axis: each invocation loops over the reduced
** coordinates of its output element (float sums in blocks of 256).
*/
#include <stdio.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"

#define P(...) wg_text_printf(t, __VA_ARGS__)

/* Splits the input's axes into kept (the output's walk) and reduced. */
typedef struct split {
    uint32_t nk, nr, kdims[WNN_MAX_RANK], kst[1][WNN_MAX_RANK], rdims[WNN_MAX_RANK], rst[1][WNN_MAX_RANK];
    uint32_t rcount;
} split;

static void split_axes(const wnn_operand_desc *in, uint32_t mask, split *sp)
{
    uint32_t st[WNN_MAX_RANK], s = 1;
    for (uint32_t d = in->rank; d-- > 0;) {
        st[d] = s;
        s *= in->shape[d];
    }
    memset(sp, 0, sizeof *sp);
    sp->rcount = 1;
    for (uint32_t d = 0; d < in->rank; d++) {
        if (mask >> d & 1) {
            sp->rdims[sp->nr] = in->shape[d];
            sp->rst[0][sp->nr++] = st[d];
            sp->rcount *= in->shape[d];
        } else {
            sp->kdims[sp->nk] = in->shape[d];
            sp->kst[0][sp->nk++] = st[d];
        }
    }
}

/* "var <var> = 0.0;" then <var> += term over j in [0, rc), term an f32
** expression of v = at(j, base), in blocks of 256 added one block sum at a
** time: a sum of n floats in one running total loses about n/2 ulp at worst
** (a million exponentials were 7e-4 off in log), in blocks about
** (256 + n/256)/2. */
static void emit_float_sum(wg_text *t, const char *var, const char *term, uint32_t rc)
{
    if (rc <= 256) {
        P("  var %s = 0.0;\n  for (var j = 0u; j < %uu; j++) { let v = at(j, base); %s += %s; }\n", var, rc, var,
          term);
        return;
    }
    P("  var %s = 0.0;\n"
      "  for (var j0 = 0u; j0 < %uu; j0 += 256u) {\n"
      "    var p = 0.0;\n"
      "    for (var j = j0; j < min(j0 + 256u, %uu); j++) { let v = at(j, base); p += %s; }\n"
      "    %s += p;\n  }\n",
      var, rc, rc, term, var);
}

bool wg_wgsl_reduce(const wnn__ir *ir, const wnn__node *n, wg_kernel *k)
{
    wg_frame f;
    wg_text *t = &k->text;
    uint32_t in = n->in[0];
    const wnn_operand_desc *id = &ir->values[in].desc;
    wg_frame_begin(&f, k, ir, n, &in, 1);
    const char *ct = wg_ctype(id->data_type), *oct = wg_ctype(f.out);
    uint32_t mask;
    switch (n->op) {
    case WNN__OP_ARG_MIN:
    case WNN__OP_ARG_MAX: mask = 1u << n->attrs.arg_min_max.axis; break;
    case WNN__OP_SOFTMAX: mask = 1u << n->attrs.axis.axis; break;
    default: mask = n->attrs.reduction.axes_mask; break;
    }
    split sp;
    split_axes(id, mask, &sp);
    uint32_t zero = 0;
    P("fn at(j: u32, base: u32) -> %s {\n", ct);
    wg_emit_walk(t, "j", sp.nr, sp.rdims, 1, &zero, sp.rst);
    P("  return ld1(base + i1);\n}\n");
    P("fn val(e: u32) -> %s {\n", oct);
    if (n->op == WNN__OP_SOFTMAX) {
        /* the output walks the input's shape: strip the axis coordinate */
        uint32_t axis = n->attrs.axis.axis, st[1][WNN_MAX_RANK], s = 1, dims[WNN_MAX_RANK];
        for (uint32_t d = id->rank; d-- > 0;) {
            st[0][d] = d == axis ? 0 : s;
            dims[d] = id->shape[d];
            s *= id->shape[d];
        }
        wg_emit_walk(t, "e", id->rank, dims, 1, &zero, st);
        P("  let base = i1;\n"
          "  var m = at(0u, base);\n"
          "  for (var j = 1u; j < %uu; j++) { m = max(m, at(j, base)); }\n",
          sp.rcount);
        emit_float_sum(t, "s", "exp(v - m)", sp.rcount);
        P("  return exp(ld1(e) - m) / s;\n}\n");
        wg_frame_end(&f, NULL);
        return !t->failed;
    }
    wg_emit_walk(t, "e", sp.nk, sp.kdims, 1, &zero, sp.kst);
    P("  let base = i1;\n");
    uint32_t rc = sp.rcount;
    switch (n->op) {
    case WNN__OP_ARG_MIN:
    case WNN__OP_ARG_MAX:
    {
        /* 64-bit inputs compare as (low, high) pairs; a 64-bit index is (mi, 0) */
        char better[48];
        bool min = n->op == WNN__OP_ARG_MIN;
        if (wg_is64(id->data_type))
            snprintf(better, sizeof better, "%s(%s)", id->data_type == WNN_DATA_TYPE_INT64 ? "lts64" : "ltu64",
                     min ? "v, m" : "m, v");
        else
            snprintf(better, sizeof better, "v %s m", min ? "<" : ">");
        P("  var m = at(0u, base); var mi = 0u;\n"
          "  for (var j = 1u; j < %uu; j++) { let v = at(j, base); if (%s) { m = v; mi = j; } }\n",
          rc, better);
        if (wg_is64(f.out))
            P("  return vec2<u32>(mi, 0u);\n}\n");
        else
            P("  return %s(mi);\n}\n", oct);
    }
        break;
    case WNN__OP_REDUCE_MAX:
    case WNN__OP_REDUCE_MIN:
        P("  var m = at(0u, base);\n"
          "  for (var j = 1u; j < %uu; j++) { m = %s(m, at(j, base)); }\n  return m;\n}\n",
          rc, n->op == WNN__OP_REDUCE_MAX ? "max" : "min");
        break;
    case WNN__OP_REDUCE_LOG_SUM_EXP:
        P("  var m = at(0u, base);\n"
          "  for (var j = 1u; j < %uu; j++) { m = max(m, at(j, base)); }\n"
          "  if (isinf_(m)) { return m; }\n",
          rc);
        emit_float_sum(t, "s", "exp(v - m)", rc);
        P("  return m + log(s);\n}\n");
        break;
    default: {
        /* the term each element adds (or multiplies, for the product) */
        const char *term = n->op == WNN__OP_REDUCE_L1 ? "abs(v)"
                           : n->op == WNN__OP_REDUCE_L2 || n->op == WNN__OP_REDUCE_SUM_SQUARE ? "v * v"
                                                                                                : "v";
        if (n->op == WNN__OP_REDUCE_PRODUCT)
            P("  var a = %s(1);\n  for (var j = 0u; j < %uu; j++) { let v = at(j, base); a = a * v; }\n", ct, rc);
        else if (strcmp(ct, "f32") == 0)
            emit_float_sum(t, "a", term, rc);
        else /* integers: exact, wrapping */
            P("  var a = %s(0);\n  for (var j = 0u; j < %uu; j++) { let v = at(j, base); a = a + %s; }\n", ct, rc,
              term);
        switch (n->op) {
        case WNN__OP_REDUCE_L2: P("  return sqrt(a);\n}\n"); break;
        case WNN__OP_REDUCE_MEAN: P("  return a / %u.0;\n}\n", rc); break;
        case WNN__OP_REDUCE_LOG_SUM: P("  return log(a);\n}\n"); break;
        default: P("  return a;\n}\n"); break;
        }
        break;
    }
    }
    wg_frame_end(&f, NULL);
    return !t->failed;
}
