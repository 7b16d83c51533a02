/* SPDX-License-Identifier: Apache-2.0 */
/*
** wg_wgsl.c -- WGSL for the operators the webgpu device runs (see
** wg_wgsl.h for the packing and the word-per-invocation rule).
**
** Four shapes of kernel cover them:
**   map      out[e] = f(x[ix(e)], y[iy(e)], z[iz(e)]): element-wise operators
**            with broadcasting, cast, clamp, where, and the pure movements
**            (transpose, slice, expand, reverse, reshape), whose index
**            functions are strided walks of the output's coordinates in
**            wrapping u32 arithmetic (a reversed axis is a stride of -s);
**   region   a map that writes only a box of the output and keeps the rest
**            (concat: one kernel per input);
**   reduce   a loop over the reduced coordinates of each output (the ten
**            reductions, argMin/argMax, softmax along one axis;
**            wg_wgsl_reduce.c);
**   matmul   the tiled product of wg_wgsl_tile.c (matmul with batch
**            broadcasting, gemm; float16 where N is even); else a loop over k
**            (both in wg_wgsl_matmul.c).
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/webgpu/wg_wgsl.h"
#include "platform/config.h"

void wg_text_printf(wg_text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->n + (size_t)n < t->cap) {
            t->n += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap : 1024) * 2;
        while (cap <= t->n + (size_t)n)
            cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

#define P(...) wg_text_printf(t, __VA_ARGS__)

/* ---- element types ----------------------------------------------------------------- */

uint32_t wg_per_word(wnn_data_type d)
{
    switch (d) {
    case WNN_DATA_TYPE_FLOAT16: return 2;
    case WNN_DATA_TYPE_INT8:
    case WNN_DATA_TYPE_UINT8: return 4;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4: return 8;
    default: return 1;
    }
}

/* The type elements are computed in. */
const char *wg_ctype(wnn_data_type d)
{
    switch (d) {
    case WNN_DATA_TYPE_FLOAT32:
    case WNN_DATA_TYPE_FLOAT16: return "f32";
    case WNN_DATA_TYPE_INT32:
    case WNN_DATA_TYPE_INT8:
    case WNN_DATA_TYPE_INT4: return "i32";
    case WNN_DATA_TYPE_INT64:
    case WNN_DATA_TYPE_UINT64: return "vec2<u32>"; /* (low word, high word) */
    default: return "u32";
    }
}

bool wg_is64(wnn_data_type d) { return d == WNN_DATA_TYPE_INT64 || d == WNN_DATA_TYPE_UINT64; }

bool wg_is_float(wnn_data_type d) { return d == WNN_DATA_TYPE_FLOAT32 || d == WNN_DATA_TYPE_FLOAT16; }

/* fn ld<k>(e: u32) -> ctype: element e of binding k, which holds the
** value's elements from base on (a chunk's window). */
static void emit_load_at(wg_text *t, uint32_t k, wnn_data_type d, const char *base)
{
    P("fn ld%u(e: u32) -> %s { let i = e - %s; ", k, wg_ctype(d), base);
    switch (d) {
    case WNN_DATA_TYPE_FLOAT32: P("return bitcast<f32>(b%u[i]); }\n", k); break;
    case WNN_DATA_TYPE_FLOAT16: P("return unpack2x16float(b%u[i >> 1u])[i & 1u]; }\n", k); break;
    case WNN_DATA_TYPE_INT32: P("return bitcast<i32>(b%u[i]); }\n", k); break;
    case WNN_DATA_TYPE_INT8: P("return bitcast<i32>(b%u[i >> 2u] << (24u - 8u * (i & 3u))) >> 24u; }\n", k); break;
    case WNN_DATA_TYPE_UINT8: P("return (b%u[i >> 2u] >> (8u * (i & 3u))) & 0xffu; }\n", k); break;
    case WNN_DATA_TYPE_INT64:
    case WNN_DATA_TYPE_UINT64: P("return vec2<u32>(b%u[2u * i], b%u[2u * i + 1u]); }\n", k, k); break;
    /* 4-bit: element 2k in the low nibble of its byte, so nibble i & 7 of word i >> 3 */
    case WNN_DATA_TYPE_INT4: P("return bitcast<i32>(b%u[i >> 3u] << (28u - 4u * (i & 7u))) >> 28u; }\n", k); break;
    case WNN_DATA_TYPE_UINT4: P("return (b%u[i >> 3u] >> (4u * (i & 7u))) & 0xfu; }\n", k); break;
    default: P("return b%u[i]; }\n", k); break;
    }
}

void wg_emit_load(wg_text *t, uint32_t k, wnn_data_type d) { emit_load_at(t, k, d, "0u"); }

/* fn pk(v: array<ctype, per>) -> u32: one output word (64-bit elements
** are written a word at a time by main() itself). */
static void emit_pack(wg_text *t, wnn_data_type d)
{
    if (wg_is64(d))
        return;
    uint32_t per = wg_per_word(d);
    P("fn pk(v: array<%s, %u>) -> u32 { ", wg_ctype(d), per);
    switch (d) {
    case WNN_DATA_TYPE_FLOAT32:
    case WNN_DATA_TYPE_INT32: P("return bitcast<u32>(v[0]); }\n"); break;
    case WNN_DATA_TYPE_FLOAT16: P("return h16(v[0]) | (h16(v[1]) << 16u); }\n"); break;
    case WNN_DATA_TYPE_INT8:
        P("return (bitcast<u32>(v[0]) & 0xffu) | ((bitcast<u32>(v[1]) & 0xffu) << 8u) | "
          "((bitcast<u32>(v[2]) & 0xffu) << 16u) | (bitcast<u32>(v[3]) << 24u); }\n");
        break;
    case WNN_DATA_TYPE_UINT8:
        P("return (v[0] & 0xffu) | ((v[1] & 0xffu) << 8u) | ((v[2] & 0xffu) << 16u) | (v[3] << 24u); }\n");
        break;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4:
        P("var w = 0u; for (var j = 0u; j < 8u; j++) { w = w | ((%s & 0xfu) << (4u * j)); } return w; }\n",
          d == WNN_DATA_TYPE_INT4 ? "bitcast<u32>(v[j])" : "v[j]");
        break;
    default: P("return v[0]; }\n"); break;
    }
}

/* Helpers every kernel may call; WGSL drops the unused ones. */
const char *const wg_helpers =
    /* private, not constant: a constant expression may not be infinite */
    "var<private> INF: u32 = 0x7f800000u;\n"
    "var<private> QNAN: u32 = 0x7fc00000u;\n"
    "fn h16(x: f32) -> u32 {\n"
    "  let b = bitcast<u32>(x);\n"
    "  if ((b & 0x7fffffffu) > 0x7f800000u) { return 0x7e00u; }\n"
    "  if (abs(x) >= 65520.0) { return ((b >> 16u) & 0x8000u) | 0x7c00u; }\n"
    "  return pack2x16float(vec2<f32>(x, 0.0)) & 0xffffu;\n"
    "}\n"
    "fn isnan_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }\n"
    "fn isinf_(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }\n"
    "fn erf_(x: f32) -> f32 {\n"
    "  let a = abs(x);\n"
    "  if (a < 0.5) { let z = x * x;\n"
    "    return x * (1.128379167 + z * (-0.3761263890 + z * (0.1128379165 + z * (-0.02686617064 + z * 0.005223977)))); }\n"
    "  let t = 1.0 / (1.0 + 0.5 * a);\n"
    "  let y = t * exp(-a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +\n"
    "          t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));\n"
    "  return select(y - 1.0, 1.0 - y, x >= 0.0);\n"
    "}\n"
    /* tan by reduction to [-pi/4, pi/4] with pi/4 in three parts, an odd
    ** polynomial there and -1/t past it: drivers' tan loses the cos near
    ** pi/2 (NVIDIA: 0.0024 off at tan = -23.7, WebNN allows 1/1024) */
    "fn tan_(x: f32) -> f32 {\n"
    "  let a = abs(x);\n"
    "  var j = floor(a * 1.2732395447351628);\n"
    "  j = j + select(0.0, 1.0, (u32(j) & 1u) == 1u);\n"
    "  let r = ((a - j * 0.78515625) - j * 2.4187564849853515625e-4) - j * 3.77489497744594108e-8;\n"
    "  let z = r * r;\n"
    "  var t = ((((((9.38540185543e-3 * z + 3.11992232697e-3) * z + 2.44301354525e-2) * z + 5.34112807005e-2) * z +\n"
    "          1.33387994085e-1) * z + 3.33331568548e-1) * z) * r + r;\n"
    "  if ((u32(j) & 2u) != 0u) { t = -1.0 / t; }\n"
    "  return select(t, -t, x < 0.0);\n"
    "}\n"
    "fn tanh_(x: f32) -> f32 {\n"
    "  let a = abs(x);\n"
    "  if (a < 0.55) { let z = x * x;\n"
    "    return x * (1.0 + z * (-0.33333334 + z * (0.13333334 + z * (-0.053968254 + z * (0.021869488 + z * (-0.0088632355 + z * (0.0035921280 + z * -0.0014558344))))))); }\n"
    "  let e = exp(-2.0 * a);\n"
    "  return sign(x) * (1.0 - e) / (1.0 + e);\n"
    "}\n"
    "fn pow_(x: f32, y: f32) -> f32 {\n"
    "  if (y == 0.0) { return 1.0; }\n"
    "  if (x == 0.0) { return select(0.0, bitcast<f32>(INF), y < 0.0); }\n"
    "  if (x < 0.0) {\n"
    "    if (y != floor(y)) { return bitcast<f32>(QNAN); }\n"
    "    let r = exp2(y * log2(-x));\n"
    "    return select(r, -r, abs(y) % 2.0 == 1.0);\n"
    "  }\n"
    "  return exp2(y * log2(x));\n"
    "}\n"
    "fn ipow_i(x: i32, y: i32) -> i32 { var r = 1; var b = x; var e = y; while (e > 0) { if ((e & 1) != 0) { r = r * b; } b = b * b; e = e >> 1u; } return r; }\n"
    "fn ipow_u(x: u32, y: u32) -> u32 { var r = 1u; var b = x; var e = y; while (e > 0u) { if ((e & 1u) != 0u) { r = r * b; } b = b * b; e = e >> 1u; } return r; }\n"
    /* 64-bit integers as vec2<u32> (low, high), two's complement */
    "fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x)); }\n"
    "fn neg64(x: vec2<u32>) -> vec2<u32> { return sub64(vec2<u32>(0u, 0u), x); }\n"
    "fn isneg64(x: vec2<u32>) -> bool { return (x.y >> 31u) == 1u; }\n"
    "fn lts64(a: vec2<u32>, b: vec2<u32>) -> bool { let p = bitcast<i32>(a.y); let q = bitcast<i32>(b.y); return p < q || (p == q && a.x < b.x); }\n"
    "fn ltu64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }\n"
    "fn mul32(a: u32, b: u32) -> vec2<u32> {\n"
    "  let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;\n"
    "  let p00 = a0 * b0; let p01 = a0 * b1; let p10 = a1 * b0;\n"
    "  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);\n"
    "  return vec2<u32>((p00 & 0xffffu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));\n"
    "}\n"
    "fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { let p = mul32(a.x, b.x); return vec2<u32>(p.x, p.y + a.x * b.y + a.y * b.x); }\n"
    /* magnitudes only: f32 holds a small negative low word badly */
    "fn u64f(x: vec2<u32>) -> f32 { return f32(x.y) * 4294967296.0 + f32(x.x); }\n"
    "fn i64f(x: vec2<u32>) -> f32 { return select(u64f(x), -u64f(neg64(x)), isneg64(x)); }\n"
    /* float to 64-bit: truncated, saturated, NaN is 0 (k_elementwise.c's
    ** from_double); a whole f32 of 2^32 or more has a low word of at most 24
    ** significant bits, so the split is exact */
    "fn fmag64(t: f32) -> vec2<u32> { let hi = floor(t / 4294967296.0); return vec2<u32>(u32(t - hi * 4294967296.0), u32(hi)); }\n"
    "fn f2i64(x: f32) -> vec2<u32> {\n"
    "  if (isnan_(x)) { return vec2<u32>(0u, 0u); }\n"
    "  if (x >= 9223372036854775807.0) { return vec2<u32>(0xffffffffu, 0x7fffffffu); }\n"
    "  if (x <= -9223372036854775808.0) { return vec2<u32>(0u, 0x80000000u); }\n"
    "  let t = trunc(x);\n"
    "  return select(fmag64(t), neg64(fmag64(-t)), t < 0.0);\n"
    "}\n"
    "fn f2u64(x: f32) -> vec2<u32> {\n"
    "  if (isnan_(x) || x <= 0.0) { return vec2<u32>(0u, 0u); }\n"
    "  if (x >= 18446744073709551615.0) { return vec2<u32>(0xffffffffu, 0xffffffffu); }\n"
    "  return fmag64(trunc(x));\n"
    "}\n";

/* ---- the kernel wg_frame --------------------------------------------------------------- */


/* Declarations, loads and helpers; then the caller writes
** fn val(e: u32) -> wg_ctype(out), then frame_end. */
void wg_frame_begin(wg_frame *f, wg_kernel *k, const wnn__ir *ir, const wnn__node *n, const uint32_t *ins,
                        uint32_t n_in)
{
    wg_text *t = &k->text;
    f->ir = ir;
    f->n = n;
    f->k = k;
    k->out_value = n->out[k->out_slot];
    f->out = ir->values[k->out_value].desc.data_type;
    f->count = wnn_operand_desc_element_count(&ir->values[k->out_value].desc);
    k->n_in = n_in;
    memcpy(k->in_values, ins, n_in * sizeof *ins);
    k->words = wg_is64(f->out) ? 2 * f->count : (f->count + wg_per_word(f->out) - 1) / wg_per_word(f->out);
    P("@group(0) @binding(0) var<storage, read_write> b0: array<u32>;\n");
    for (uint32_t i = 0; i < n_in; i++)
        P("@group(0) @binding(%u) var<storage, read> b%u: array<u32>;\n", i + 1, i + 1);
    P("%s", wg_helpers);
    emit_pack(t, f->out);
    /* a chunk's first element, set by main() from the chunk binding */
    if (k->chunk_words)
        P("var<private> CBE: u32;\n");
    for (uint32_t i = 0; i < n_in; i++)
        emit_load_at(t, i + 1, ir->values[ins[i]].desc.data_type,
                     k->chunk_words && k->identity_mask >> i & 1 ? "CBE" : "0u");
}

/* main(): one word per invocation; region kernels keep the elements
** keep(e) says are not theirs. */
void wg_frame_end(wg_frame *f, const char *keep)
{
    wg_text *t = &f->k->text;
    uint32_t per = wg_per_word(f->out);
    if (f->k->uses_params)
        P("@group(0) @binding(%u) var<storage, read> prm: array<f32>;\n", f->k->n_in + 1);
    if (keep)
        wg_emit_load(t, 0, f->out);
    /* A chunk's words are numbered from chunk[0] to chunk[1], its output
    ** bound from chunk[0]: the text is the same for every chunk, so they
    ** share one pipeline. */
    bool chunked = f->k->chunk_words != 0;
    /* 64-bit words and kept elements (read from the output) do not window */
    f->k->windowed = chunked && !keep && !wg_is64(f->out);
    char end[32];
    snprintf(end, sizeof end, "%lluu", (unsigned long long)f->k->words);
    if (chunked)
        P("@group(0) @binding(%u) var<storage, read> chunk: array<u32>;\n",
          f->k->n_in + 1 + (f->k->uses_params ? 1 : 0));
    P("@compute @workgroup_size(%u)\n"
      "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n",
      WG_WORKGROUP);
    if (chunked)
        P("  CBE = chunk[0] * %uu;\n", per);
    if (wg_is64(f->out)) { /* a word is half an element: the low one first */
        P("  let w = gid.x + gid.y * nwg.x * %uu;\n"
          "  if (w >= %s) { return; }\n"
          "  let v = val(w >> 1u);\n"
          "  b0[w] = select(v.y, v.x, (w & 1u) == 0u);\n}\n",
          WG_WORKGROUP, end);
        return;
    }
    P("  let w = gid.x + gid.y * nwg.x * %uu + %s;\n"
      "  if (w >= %s) { return; }\n"
      "  var v: array<%s, %u>;\n"
      "  for (var j = 0u; j < %uu; j++) {\n"
      "    let e = w * %uu + j;\n",
      WG_WORKGROUP, chunked ? "chunk[0]" : "0u", chunked ? "chunk[1]" : end, wg_ctype(f->out), per, per, per);
    if (keep)
        P("    if (e < %lluu && !(%s)) { v[j] = val(e); } else { v[j] = ld0(e); }\n", (unsigned long long)f->count,
          keep);
    else
        P("    if (e < %lluu) { v[j] = val(e); }\n", (unsigned long long)f->count);
    P("  }\n  b0[w - %s] = pk(v);\n}\n", chunked ? "chunk[0]" : "0u");
}

uint32_t wg_param(wg_kernel *k, double v)
{
    k->uses_params = true;
    k->params[k->n_params] = (float)v;
    return k->n_params++;
}

/* Emits "var i<k> = base;" updates over the coordinates of dims (rank r)
** for each source's strides; t_ is consumed. */
void wg_emit_walk(wg_text *t, const char *from, uint32_t r, const uint32_t *dims, uint32_t n_src,
                      const uint32_t *base, uint32_t strides[][WNN_MAX_RANK])
{
    P("  var t_ = %s;\n", from);
    for (uint32_t s = 0; s < n_src; s++)
        P("  var i%u = %uu;\n", s + 1, base[s]);
    for (uint32_t d = r; d-- > 0;) {
        if (dims[d] == 1)
            continue;
        bool used = false;
        for (uint32_t s = 0; s < n_src; s++)
            used |= strides[s][d] != 0;
        if (!used) {
            P("  t_ = t_ / %uu;\n", dims[d]);
            continue;
        }
        P("  { let c = t_ %% %uu; t_ = t_ / %uu;", dims[d], dims[d]);
        for (uint32_t s = 0; s < n_src; s++)
            if (strides[s][d])
                P(" i%u += c * %uu;", s + 1, strides[s][d]);
        P(" }\n");
    }
}

/* Row-major strides of desc, broadcast to rank r (right-aligned; size-1
** dimensions get stride 0). */
void wg_broadcast_strides(const wnn_operand_desc *in, uint32_t r, const uint32_t *out_dims, uint32_t *st)
{
    uint32_t s = 1;
    for (uint32_t d = r; d-- > 0;) {
        int32_t di = (int32_t)d - (int32_t)(r - in->rank);
        uint32_t dim = di >= 0 ? in->shape[di] : 1;
        st[d] = dim == 1 && out_dims[d] != 1 ? 0 : (dim == 1 ? 0 : s);
        s *= dim;
    }
}

/* ---- element-wise -------------------------------------------------------------------- */

/* map_expr for 64-bit operands (vec2<u32>), and casts to them. */
static const char *map_expr64(wg_frame *f, wnn_data_type in, char *buf, size_t len)
{
    const wnn__node *n = f->n;
    bool s64 = in == WNN_DATA_TYPE_INT64;
#define E(...) (snprintf(buf, len, __VA_ARGS__), buf)
    switch (n->op) {
    case WNN__OP_SUB: return "sub64(x, y)";
    case WNN__OP_NEG: return "neg64(x)";
    case WNN__OP_ABS: return s64 ? "select(x, neg64(x), isneg64(x))" : "x";
    case WNN__OP_RELU: return s64 ? "select(x, vec2<u32>(0u, 0u), isneg64(x))" : "x";
    case WNN__OP_PRELU: return s64 ? "select(x, mul64(x, y), isneg64(x))" : "x";
    case WNN__OP_SIGN:
        return s64 ? "select(select(vec2<u32>(1u, 0u), vec2<u32>(0u, 0u), all(x == vec2<u32>(0u, 0u))), "
                     "vec2<u32>(0xffffffffu, 0xffffffffu), isneg64(x))"
                   : "select(vec2<u32>(1u, 0u), vec2<u32>(0u, 0u), all(x == vec2<u32>(0u, 0u)))";
    case WNN__OP_IDENTITY: return "x";
    case WNN__OP_CLAMP: {
        /* the bounds cast exactly to the input's type (ops.h) */
        uint64_t lo = n->attrs.clamp.lo, hi = n->attrs.clamp.hi;
        const char *lt = s64 ? "lts64" : "ltu64";
        return E("select(select(x, vec2<u32>(%uu, %uu), %s(vec2<u32>(%uu, %uu), x)), vec2<u32>(%uu, %uu), "
                 "%s(x, vec2<u32>(%uu, %uu)))",
                 (unsigned)hi, (unsigned)(hi >> 32), lt, (unsigned)hi, (unsigned)(hi >> 32), (unsigned)lo,
                 (unsigned)(lo >> 32), lt, (unsigned)lo, (unsigned)(lo >> 32));
    }
    case WNN__OP_CAST: {
        wnn_data_type to = f->out;
        if (wg_is64(in) && wg_is64(to))
            return "x";
        if (wg_is64(in)) { /* to a narrower type: float by value, integers keep the low bits */
            if (wg_is_float(to))
                return s64 ? "i64f(x)" : "u64f(x)";
            return strcmp(wg_ctype(to), "i32") == 0 ? "bitcast<i32>(x.x)" : "x.x";
        }
        if (wg_is_float(in))
            return to == WNN_DATA_TYPE_INT64 ? "f2i64(x)" : "f2u64(x)";
        if (strcmp(wg_ctype(in), "i32") == 0) /* sign-extended */
            return "vec2<u32>(bitcast<u32>(x), select(0u, 0xffffffffu, x < 0))";
        return "vec2<u32>(x, 0u)";
    }
    default: return NULL;
    }
#undef E
}

/* The expression of op on x (and y, z) in the compute types; NULL if none. */
static const char *map_expr(wg_frame *f, wnn_data_type in, char *buf, size_t len)
{
    const wnn__node *n = f->n;
    const wnn__attrs *a = &n->attrs;
    bool fl = wg_is_float(in);
    bool sg = in == WNN_DATA_TYPE_INT32 || in == WNN_DATA_TYPE_INT8;
    const char *ct = wg_ctype(in);
#define E(...) (snprintf(buf, len, __VA_ARGS__), buf)
    if (wg_is64(in) || (n->op == WNN__OP_CAST && wg_is64(f->out)))
        return map_expr64(f, in, buf, len);
    switch (n->op) {
    case WNN__OP_ADD: return "x + y";
    case WNN__OP_SUB: return "x - y";
    case WNN__OP_MUL: return "x * y";
    /* integers: by zero gives 0 (WGSL gives x) */
    case WNN__OP_DIV: return fl ? "x / y" : sg ? "select(x / y, 0, y == 0)" : "select(x / y, 0u, y == 0u)";
    case WNN__OP_MAX: return "max(x, y)";
    case WNN__OP_MIN: return "min(x, y)";
    case WNN__OP_POW:
        return fl ? "pow_(x, y)" : sg ? "ipow_i(x, y)" : "ipow_u(x, y)";
    /* NaN tested by its bits: the driver's compiler may assume no NaNs */
    case WNN__OP_EQUAL: return fl ? "select(0u, 1u, x == y && !isnan_(x) && !isnan_(y))" : "select(0u, 1u, x == y)";
    case WNN__OP_NOT_EQUAL: return fl ? "select(0u, 1u, !(x == y) || isnan_(x) || isnan_(y))" : "select(0u, 1u, x != y)";
    case WNN__OP_GREATER: return fl ? "select(0u, 1u, x > y && !isnan_(x) && !isnan_(y))" : "select(0u, 1u, x > y)";
    case WNN__OP_GREATER_OR_EQUAL:
        return fl ? "select(0u, 1u, x >= y && !isnan_(x) && !isnan_(y))" : "select(0u, 1u, x >= y)";
    case WNN__OP_LESSER: return fl ? "select(0u, 1u, x < y && !isnan_(x) && !isnan_(y))" : "select(0u, 1u, x < y)";
    case WNN__OP_LESSER_OR_EQUAL:
        return fl ? "select(0u, 1u, x <= y && !isnan_(x) && !isnan_(y))" : "select(0u, 1u, x <= y)";
    case WNN__OP_LOGICAL_AND: return "select(0u, 1u, x != 0u && y != 0u)";
    case WNN__OP_LOGICAL_OR: return "select(0u, 1u, x != 0u || y != 0u)";
    case WNN__OP_LOGICAL_XOR: return "select(0u, 1u, (x != 0u) != (y != 0u))";
    case WNN__OP_LOGICAL_NOT: return "select(0u, 1u, x == 0u)";
    case WNN__OP_IS_NAN: return fl ? "select(0u, 1u, isnan_(x))" : "0u";
    case WNN__OP_IS_INFINITE: return fl ? "select(0u, 1u, isinf_(x))" : "0u";
    case WNN__OP_WHERE: return "select(z, y, x != 0u)";
    case WNN__OP_IDENTITY:
    case WNN__OP_EXPAND:
    case WNN__OP_TRANSPOSE:
    case WNN__OP_SLICE:
    case WNN__OP_REVERSE:
    case WNN__OP_CONCAT: return "x";
    case WNN__OP_ABS: return "abs(x)";
    case WNN__OP_NEG: return "-x";
    case WNN__OP_SIGN: return fl ? "select(sign(x), x, isnan_(x))" : sg ? "sign(x)" : "select(0u, 1u, x > 0u)";
    case WNN__OP_RELU: return fl ? "max(x, 0.0)" : "max(x, 0)";
    case WNN__OP_CEIL: return "ceil(x)";
    case WNN__OP_FLOOR: return "floor(x)";
    case WNN__OP_COS: return "cos(x)";
    case WNN__OP_SIN: return "sin(x)";
    case WNN__OP_TAN: return "tan_(x)";
    case WNN__OP_EXP: return "exp(x)";
    case WNN__OP_LOG: return "log(x)";
    case WNN__OP_SQRT: return "sqrt(x)";
    case WNN__OP_ERF: return "erf_(x)";
    case WNN__OP_RECIPROCAL: return "1.0 / x";
    case WNN__OP_ROUND_EVEN: return "round(x)";
    case WNN__OP_SIGMOID: return "1.0 / (1.0 + exp(-x))";
    case WNN__OP_TANH: return "tanh_(x)";
    case WNN__OP_SOFTSIGN: return "x / (1.0 + abs(x))";
    case WNN__OP_SOFTPLUS: return "max(x, 0.0) + log(1.0 + exp(-abs(x)))";
    case WNN__OP_GELU: return "0.5 * x * (1.0 + erf_(x * 0.70710678118654752))";
    case WNN__OP_HARD_SWISH: return "x * max(0.0, min(6.0, x + 3.0)) / 6.0";
    case WNN__OP_PRELU: return fl ? "select(x * y, x, x >= 0.0)" : "select(x * y, x, x >= 0)";
    case WNN__OP_ELU:
        return E("select(prm[%u] * (exp(x) - 1.0), x, x > 0.0)", wg_param(f->k, a->activation.alpha));
    case WNN__OP_LEAKY_RELU:
        return E("select(prm[%u] * x, x, x >= 0.0)", wg_param(f->k, a->activation.alpha));
    case WNN__OP_LINEAR: {
        uint32_t al = wg_param(f->k, a->activation.alpha), be = wg_param(f->k, a->activation.beta);
        return E("prm[%u] * x + prm[%u]", al, be);
    }
    case WNN__OP_HARD_SIGMOID: {
        uint32_t al = wg_param(f->k, a->activation.alpha), be = wg_param(f->k, a->activation.beta);
        return E("max(0.0, min(1.0, prm[%u] * x + prm[%u]))", al, be);
    }
    case WNN__OP_CLAMP:
        if (fl) {
            uint32_t lo = wg_param(f->k, a->clamp.min_value), hi = wg_param(f->k, a->clamp.max_value);
            return E("select(select(x, prm[%u], x > prm[%u]), prm[%u], x < prm[%u])", hi, hi, lo, lo);
        } else {
            /* bounds saturated to the input's own range, like the cpu */
            double lo = a->clamp.min_value, hi = a->clamp.max_value;
            double tmin = in == WNN_DATA_TYPE_INT32 ? -2147483648.0 : in == WNN_DATA_TYPE_INT8 ? -128 : 0;
            double tmax = in == WNN_DATA_TYPE_INT32 ? 2147483647.0 : in == WNN_DATA_TYPE_INT8 ? 127
                          : in == WNN_DATA_TYPE_UINT8 ? 255 : 4294967295.0;
            lo = isnan(lo) ? tmin : fmax(tmin, fmin(tmax, ceil(lo)));
            hi = isnan(hi) ? tmax : fmax(tmin, fmin(tmax, floor(hi)));
            if (sg)
                return E("clamp(x, i32(%.0f) - %d, i32(%.0f) - %d)", lo + (lo < 0), lo < 0, hi + (hi < 0), hi < 0);
            return E("clamp(x, %.0fu, %.0fu)", lo, hi);
        }
    case WNN__OP_CAST: {
        wnn_data_type to = f->out;
        const char *cto = wg_ctype(to);
        if (strcmp(ct, cto) == 0)
            return "x";
        if (strcmp(cto, "f32") == 0)
            return "f32(x)";
        if (fl) { /* float to integer: truncation, saturated to the type's range, NaN to 0 (WGSL
                   ** saturates to the largest float under the type's bound: 2^31 - 128) */
            switch (to) {
            case WNN_DATA_TYPE_INT8: return "select(i32(clamp(x, -128.0, 127.0)), 0, isnan_(x))";
            case WNN_DATA_TYPE_UINT8: return "select(u32(clamp(x, 0.0, 255.0)), 0u, isnan_(x))";
            case WNN_DATA_TYPE_INT32: return "select(select(i32(x), 2147483647, x >= 2147483648.0), 0, isnan_(x))";
            default: return "select(select(u32(x), 4294967295u, x >= 4294967296.0), 0u, isnan_(x))";
            }
        }
        return E("bitcast<%s>(x)", cto);
    }
    default: return NULL;
    }
#undef E
}

/* A 32-bit type the vec4 kernels load and store a word an element. */
static bool is_word(wnn_data_type d)
{
    return d == WNN_DATA_TYPE_FLOAT32 || d == WNN_DATA_TYPE_INT32 || d == WNN_DATA_TYPE_UINT32;
}

static const char *from_word(wnn_data_type d)
{
    return d == WNN_DATA_TYPE_FLOAT32 ? "bitcast<f32>" : d == WNN_DATA_TYPE_INT32 ? "bitcast<i32>" : "";
}

/* An element-wise kernel whose operands are all 32-bit and of the output's
** shape, over a whole number of vec4<u32>: each invocation reads and writes
** 16 bytes of every binding instead of 4 (WNN_WEBGPU_VEC4=0: the word
** kernel). False, with k untouched, where that does not hold. */
static bool map_kernel_vec4(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, const uint32_t *ins,
                            uint32_t n_in)
{
    const wnn_operand_desc *od = &ir->values[n->out[0]].desc;
    uint64_t count = wnn_operand_desc_element_count(od);
    if (!wnn__config_get()->webgpu_vec4 || k->chunk_words || !is_word(od->data_type) || count % 4 != 0 ||
        count == 0 || k->identity_mask != (1u << n_in) - 1u)
        return false;
    for (uint32_t i = 0; i < n_in; i++)
        if (!is_word(ir->values[ins[i]].desc.data_type))
            return false;
    wnn_data_type in_type = ir->values[ins[n_in > 1 && n->op == WNN__OP_WHERE ? 1 : 0]].desc.data_type;
    wg_frame f = {ir, n, k, od->data_type, count};
    char buf[256];
    /* map_expr may add parameters: it runs on a copy until the text is kept */
    wg_kernel saved = *k;
    const char *expr = map_expr(&f, in_type, buf, sizeof buf);
    if (!expr) {
        *k = saved;
        return false;
    }
    if (n->op == WNN__OP_CAST && !wg_is_float(in_type) && wg_is_float(od->data_type))
        expr = "f32(x)";
    wg_text *t = &k->text;
    k->out_value = n->out[0];
    k->n_in = n_in;
    memcpy(k->in_values, ins, n_in * sizeof *ins);
    k->words = count;
    k->lanes = 4;
    P("@group(0) @binding(0) var<storage, read_write> b0: array<vec4<u32>>;\n");
    for (uint32_t i = 0; i < n_in; i++)
        P("@group(0) @binding(%u) var<storage, read> b%u: array<vec4<u32>>;\n", i + 1, i + 1);
    if (k->uses_params)
        P("@group(0) @binding(%u) var<storage, read> prm: array<f32>;\n", n_in + 1);
    P("%s", wg_helpers);
    P("@compute @workgroup_size(%u)\n"
      "fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n"
      "  let w = gid.x + gid.y * nwg.x * %uu;\n"
      "  if (w >= %lluu) { return; }\n",
      WG_WORKGROUP, WG_WORKGROUP, (unsigned long long)(count / 4));
    static const char names[3] = {'x', 'y', 'z'};
    for (uint32_t i = 0; i < n_in; i++)
        P("  let a%u = b%u[w];\n", i + 1, i + 1);
    P("  var o: vec4<u32>;\n  for (var j = 0u; j < 4u; j++) {\n");
    for (uint32_t i = 0; i < n_in; i++)
        P("    let %c = %s(a%u[j]);\n", names[i], from_word(ir->values[ins[i]].desc.data_type), i + 1);
    P("    o[j] = bitcast<u32>(%s);\n  }\n  b0[w] = o;\n}\n", expr);
    return !t->failed;
}

static bool map_kernel(const wnn__ir *ir, const wnn__node *n, wg_kernel *k, const char *keep_region,
                       uint32_t region_input)
{
    wg_frame f;
    wg_text *t = &k->text;
    const wnn_operand_desc *od = &ir->values[n->out[0]].desc;
    uint32_t ins[3] = {0, 0, 0}, n_in = 0;
    if (keep_region)
        ins[n_in++] = n->in[region_input];
    else
        for (uint32_t i = 0; i < n->n_in && n_in < 3; i++)
            if (n->in[i] != WNN__NONE)
                ins[n_in++] = n->in[i];
    /* element-wise: an input of the output's shape is read at the output's
    ** own index, so a split can window it */
    bool elementwise = !keep_region && n->op != WNN__OP_TRANSPOSE && n->op != WNN__OP_SLICE &&
                       n->op != WNN__OP_REVERSE;
    bool wide = wg_is64(od->data_type);
    for (uint32_t i = 0; i < n_in; i++)
        wide |= wg_is64(ir->values[ins[i]].desc.data_type);
    for (uint32_t i = 0; elementwise && !wide && i < n_in; i++) {
        const wnn_operand_desc *id = &ir->values[ins[i]].desc;
        if (id->rank == od->rank && memcmp(id->shape, od->shape, od->rank * sizeof *od->shape) == 0)
            k->identity_mask |= 1u << i;
    }
    if (elementwise && !wide && map_kernel_vec4(ir, n, k, ins, n_in))
        return true;
    wg_frame_begin(&f, k, ir, n, ins, n_in);
    wnn_data_type in_type = ir->values[ins[n_in > 1 && n->op == WNN__OP_WHERE ? 1 : 0]].desc.data_type;
    char buf[256];
    const char *expr = map_expr(&f, in_type, buf, sizeof buf);
    if (!expr)
        return false;
    uint32_t r = od->rank, dims[WNN_MAX_RANK], base[3] = {0, 0, 0}, st[3][WNN_MAX_RANK];
    memcpy(dims, od->shape, sizeof dims);
    memset(st, 0, sizeof st);
    const wnn__attrs *a = &n->attrs;
    const wnn_operand_desc *id = &ir->values[ins[0]].desc;
    uint32_t in_st[WNN_MAX_RANK], s = 1;
    for (uint32_t d = id->rank; d-- > 0;) {
        in_st[d] = s;
        s *= id->shape[d];
    }
    switch (n->op) {
    case WNN__OP_TRANSPOSE:
        for (uint32_t d = 0; d < r; d++)
            st[0][d] = in_st[a->transpose.perm[d]];
        break;
    case WNN__OP_SLICE:
        for (uint32_t d = 0; d < r; d++) {
            base[0] += a->slice.starts[d] * in_st[d];
            st[0][d] = a->slice.strides[d] * in_st[d];
        }
        break;
    case WNN__OP_REVERSE:
        for (uint32_t d = 0; d < r; d++) {
            bool rev = a->reverse.mask >> d & 1;
            base[0] += rev ? (dims[d] - 1) * in_st[d] : 0;
            st[0][d] = rev ? 0u - in_st[d] : in_st[d];
        }
        break;
    case WNN__OP_CONCAT: {
        /* the input's box starts at lo along the axis: i = (c - lo) * stride */
        uint32_t axis = a->axis.axis, lo = 0;
        for (uint32_t i = 0; i < region_input; i++)
            lo += ir->values[n->in[i]].desc.shape[axis];
        for (uint32_t d = 0; d < r; d++)
            st[0][d] = in_st[d];
        base[0] = 0u - lo * in_st[axis];
        break;
    }
    default:
        for (uint32_t i = 0; i < n_in; i++)
            wg_broadcast_strides(&ir->values[ins[i]].desc, r, dims, st[i]);
        break;
    }
    P("fn val(e: u32) -> %s {\n", wg_ctype(f.out));
    wg_emit_walk(t, "e", r, dims, n_in, base, st);
    P("  let x = ld1(i1);\n");
    if (n_in > 1)
        P("  let y = ld2(i2);\n");
    if (n_in > 2)
        P("  let z = ld3(i3);\n");
    if (n->op == WNN__OP_CAST && !wg_is_float(in_type) && !wg_is64(in_type) && wg_is_float(f.out))
        P("  return f32(x);\n}\n");
    else
        P("  return %s;\n}\n", expr);
    wg_frame_end(&f, keep_region);
    return !t->failed;
}

/* ---- the node table ------------------------------------------------------------------------- */

static uint32_t node_kernels(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *kernels,
                             uint32_t max, char *why, size_t why_len);

void wg_kernel_clear(wg_kernel *k)
{
    uint64_t word = k->chunk_word, words = k->chunk_words;
    memset(k, 0, sizeof *k);
    k->chunk_word = word;
    k->chunk_words = words;
}

bool wg_wgsl_chunk(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *k)
{
    uint64_t word = k->chunk_word, words = k->chunk_words;
    wg_kernel ks[2];
    memset(ks, 0, sizeof ks);
    ks[0].chunk_word = word;
    ks[0].chunk_words = words;
    char why[160];
    uint32_t nk = node_kernels(ir, n, caps, ks, 2, why, sizeof why);
    bool ok = nk == 1 && ks[0].windowed && ks[0].chunk_words == words && ks[0].chunk_word == word;
    for (uint32_t i = ok ? 1 : 0; i < nk; i++)
        free(ks[i].text.s);
    if (ok)
        *k = ks[0];
    return ok;
}

uint32_t wg_wgsl_node(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *kernels, uint32_t max,
                      char *why, size_t why_len)
{
    memset(kernels, 0, sizeof *kernels);
    return node_kernels(ir, n, caps, kernels, max, why, why_len);
}

/* kernels[0] arrives cleared but for a chunk's fields (wg_wgsl_chunk). */
static uint32_t node_kernels(const wnn__ir *ir, const wnn__node *n, const wg_caps *caps, wg_kernel *kernels,
                             uint32_t max, char *why, size_t why_len)
{
    switch (n->op) {
    case WNN__OP_REDUCE_L1: case WNN__OP_REDUCE_L2: case WNN__OP_REDUCE_LOG_SUM:
    case WNN__OP_REDUCE_LOG_SUM_EXP: case WNN__OP_REDUCE_MAX: case WNN__OP_REDUCE_MEAN:
    case WNN__OP_REDUCE_MIN: case WNN__OP_REDUCE_PRODUCT: case WNN__OP_REDUCE_SUM:
    case WNN__OP_REDUCE_SUM_SQUARE: case WNN__OP_ARG_MIN: case WNN__OP_ARG_MAX: case WNN__OP_SOFTMAX:
        return wg_wgsl_reduce(ir, n, kernels) ? 1 : 0;
    case WNN__OP_MATMUL:
    case WNN__OP_GEMM:
        return wg_wgsl_matmul(ir, n, caps, kernels) ? 1 : 0;
    case WNN__OP_CONV2D: case WNN__OP_CONV_TRANSPOSE2D: case WNN__OP_AVERAGE_POOL2D:
    case WNN__OP_L2_POOL2D: case WNN__OP_MAX_POOL2D: case WNN__OP_RESAMPLE2D:
        return wg_wgsl_conv(ir, n, caps, kernels, why, why_len);
    case WNN__OP_BATCH_NORMALIZATION: case WNN__OP_INSTANCE_NORMALIZATION: case WNN__OP_LAYER_NORMALIZATION:
        return wg_wgsl_norm(ir, n, kernels, why, why_len);
    case WNN__OP_GATHER: case WNN__OP_GATHER_ELEMENTS: case WNN__OP_GATHER_ND: case WNN__OP_SCATTER_ELEMENTS:
    case WNN__OP_SCATTER_ND: case WNN__OP_PAD: case WNN__OP_SPLIT: case WNN__OP_TILE: case WNN__OP_TRIANGULAR:
    case WNN__OP_QUANTIZE_LINEAR: case WNN__OP_DEQUANTIZE_LINEAR: case WNN__OP_CUMULATIVE_SUM:
        return wg_wgsl_data(ir, n, kernels, max, why, why_len);
    case WNN__OP_GRU: case WNN__OP_GRU_CELL: case WNN__OP_LSTM: case WNN__OP_LSTM_CELL:
        return wg_wgsl_rnn(ir, n, kernels, max, why, why_len);
    case WNN__OP_CONCAT: {
        if (n->n_in > max) {
            snprintf(why, why_len, "concat of %u inputs (at most %u)", n->n_in, max);
            return 0;
        }
        uint32_t axis = n->attrs.axis.axis, lo = 0;
        for (uint32_t i = 0; i < n->n_in; i++) {
            memset(&kernels[i], 0, sizeof kernels[i]);
            uint32_t hi = lo + ir->values[n->in[i]].desc.shape[axis];
            const wnn_operand_desc *od = &ir->values[n->out[0]].desc;
            /* the axis coordinate of output element e */
            uint32_t inner = 1;
            for (uint32_t d = od->rank; d-- > axis + 1;)
                inner *= od->shape[d];
            char keep[96];
            snprintf(keep, sizeof keep, "(e / %uu) %% %uu < %uu || (e / %uu) %% %uu >= %uu", inner, od->shape[axis],
                     lo, inner, od->shape[axis], hi);
            if (!map_kernel(ir, n, &kernels[i], keep, i))
                return 0;
            lo = hi;
        }
        return n->n_in;
    }
    default: {
        char buf[256];
        wg_frame f = {ir, n, kernels, ir->values[n->out[0]].desc.data_type, 0};
        wg_kernel probe = {0};
        f.k = &probe;
        wnn_data_type in = ir->values[n->in[n->op == WNN__OP_WHERE ? 1 : 0]].desc.data_type;
        bool known = map_expr(&f, in, buf, sizeof buf) != NULL;
        if (!known) {
            snprintf(why, why_len, "no WGSL kernel for %s", wnn__op_name(n->op));
            return 0;
        }
        return map_kernel(ir, n, kernels, NULL, 0) ? 1 : 0;
    }
    }
}
