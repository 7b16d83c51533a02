/* SPDX-License-Identifier: Apache-2.0 */
/*
** limits.c -- MLOpSupportLimits: per operator and operand, the data types
** and ranks the builder accepts, masked by what the context's device can
** hold. One table row per operand, in the member names of the spec's
** per-operator dictionaries (reference/webnn.md §6-7). Operators wnn does
** not implement are left out by the operator list of ops.def, so a query
** never claims support the builder would refuse.
*/
#include <string.h>

#include "core/builder.h"

#define N WNN_MAX_RANK
#define B(t) WNN__T(t)
#define ANY WNN__TYPES_ALL
#define F WNN__TYPES_FLOAT
#define SIGNED (F | B(INT64) | B(INT32) | B(INT8))       /* abs, neg, sign, relu, prelu */
#define REDUCIBLE (F | B(INT32) | B(UINT32) | B(INT64) | B(UINT64))
#define INDICES (B(INT32) | B(UINT32) | B(INT64))
#define QUANTIZED (B(UINT8) | B(INT8) | B(UINT32) | B(INT32) | B(INT4) | B(UINT4))

typedef struct row {
    const char *op, *operand;
    uint32_t types, min_rank, max_rank;
} row;

static const row table[] = {
#define BIN(op, t, out) {op, "a", t, 0, N}, {op, "b", t, 0, N}, {op, "output", out, 0, N}
    BIN("add", ANY, ANY), BIN("sub", ANY, ANY), BIN("mul", ANY, ANY), BIN("div", ANY, ANY),
    BIN("max", ANY, ANY), BIN("min", ANY, ANY), BIN("pow", ANY, ANY),
    BIN("equal", ANY, B(UINT8)), BIN("notEqual", ANY, B(UINT8)), BIN("greater", ANY, B(UINT8)),
    BIN("greaterOrEqual", ANY, B(UINT8)), BIN("lesser", ANY, B(UINT8)), BIN("lesserOrEqual", ANY, B(UINT8)),
    BIN("logicalAnd", B(UINT8), B(UINT8)), BIN("logicalOr", B(UINT8), B(UINT8)),
    BIN("logicalXor", B(UINT8), B(UINT8)),
#undef BIN
    {"matmul", "a", F, 2, N}, {"matmul", "b", F, 2, N}, {"matmul", "output", F, 2, N},
#define LNOT(op, t) {op, "a", t, 0, N}, {op, "output", B(UINT8), 0, N}
    LNOT("logicalNot", B(UINT8)), LNOT("isNaN", ANY), LNOT("isInfinite", ANY),
#undef LNOT
#define UN(op, t, lo) {op, "input", t, lo, N}, {op, "output", t, lo, N}
    UN("abs", SIGNED, 0), UN("neg", SIGNED, 0), UN("sign", SIGNED, 0), UN("relu", SIGNED, 0),
    UN("ceil", F, 0), UN("cos", F, 0), UN("erf", F, 0), UN("exp", F, 0), UN("floor", F, 0),
    UN("log", F, 0), UN("reciprocal", F, 0), UN("roundEven", F, 0), UN("sin", F, 0), UN("sqrt", F, 0),
    UN("tan", F, 0), UN("identity", ANY, 0), UN("clamp", ANY, 0),
    UN("elu", F, 0), UN("gelu", F, 0), UN("hardSigmoid", F, 0), UN("hardSwish", F, 0),
    UN("leakyRelu", F, 0), UN("linear", F, 0), UN("sigmoid", F, 0), UN("softplus", F, 0),
    UN("softsign", F, 0), UN("tanh", F, 0), UN("softmax", F, 1),
    UN("reduceL1", REDUCIBLE, 0), UN("reduceSum", REDUCIBLE, 0), UN("reduceSumSquare", REDUCIBLE, 0),
    UN("reduceProduct", REDUCIBLE, 0), UN("reduceL2", F, 0), UN("reduceLogSum", F, 0),
    UN("reduceLogSumExp", F, 0), UN("reduceMean", F, 0), UN("reduceMax", ANY, 0), UN("reduceMin", ANY, 0),
    UN("cumulativeSum", REDUCIBLE, 1), UN("expand", ANY, 0), UN("pad", ANY, 0), UN("reshape", ANY, 0),
    UN("slice", ANY, 0), UN("reverse", ANY, 0), UN("tile", ANY, 0), UN("transpose", ANY, 0),
    UN("triangular", ANY, 2),
#undef UN
    {"cast", "input", ANY, 0, N}, {"cast", "output", ANY, 0, N},
    {"prelu", "input", SIGNED, 0, N}, {"prelu", "slope", SIGNED, 0, N}, {"prelu", "output", SIGNED, 0, N},
    {"argMin", "input", ANY, 1, N}, {"argMin", "output", B(INT32) | B(INT64), 0, N},
    {"argMax", "input", ANY, 1, N}, {"argMax", "output", B(INT32) | B(INT64), 0, N},
    {"gemm", "a", F, 2, 2}, {"gemm", "b", F, 2, 2}, {"gemm", "c", F, 0, 2}, {"gemm", "output", F, 2, 2},
#define CONV(op) {op, "input", F, 4, 4}, {op, "filter", F, 4, 4}, {op, "bias", F, 1, 1}, {op, "output", F, 4, 4}
    CONV("conv2d"), CONV("convTranspose2d"),
#undef CONV
    {"averagePool2d", "input", F, 4, 4}, {"averagePool2d", "output", F, 4, 4},
    {"l2Pool2d", "input", F, 4, 4}, {"l2Pool2d", "output", F, 4, 4},
    {"maxPool2d", "input", ANY, 4, 4}, {"maxPool2d", "output", ANY, 4, 4},
    {"resample2d", "input", F | B(UINT8) | B(INT8), 4, 4}, {"resample2d", "output", F | B(UINT8) | B(INT8), 4, 4},
    {"batchNormalization", "input", F, 1, N}, {"batchNormalization", "mean", F, 1, 1},
    {"batchNormalization", "variance", F, 1, 1}, {"batchNormalization", "scale", F, 1, 1},
    {"batchNormalization", "bias", F, 1, 1}, {"batchNormalization", "output", F, 1, N},
    {"instanceNormalization", "input", F, 4, 4}, {"instanceNormalization", "scale", F, 1, 1},
    {"instanceNormalization", "bias", F, 1, 1}, {"instanceNormalization", "output", F, 4, 4},
    {"layerNormalization", "input", F, 0, N}, {"layerNormalization", "scale", F, 0, N},
    {"layerNormalization", "bias", F, 0, N}, {"layerNormalization", "output", F, 0, N},
    {"quantizeLinear", "input", F, 0, N}, {"quantizeLinear", "scale", F, 0, N},
    {"quantizeLinear", "zeroPoint", QUANTIZED, 0, N}, {"quantizeLinear", "output", QUANTIZED, 0, N},
    {"dequantizeLinear", "input", QUANTIZED, 0, N}, {"dequantizeLinear", "scale", F, 0, N},
    {"dequantizeLinear", "zeroPoint", QUANTIZED, 0, N}, {"dequantizeLinear", "output", F, 0, N},
    {"concat", "inputs", ANY, 1, N}, {"concat", "output", ANY, 1, N},
    {"split", "input", ANY, 1, N}, {"split", "outputs", ANY, 1, N},
#define GATHER(op, lo) {op, "input", ANY, 1, N}, {op, "indices", INDICES, lo, N}, {op, "output", ANY, 0, N}
    GATHER("gather", 0), GATHER("gatherElements", 1), GATHER("gatherND", 1),
#undef GATHER
#define SCATTER(op) {op, "input", ANY, 1, N}, {op, "indices", INDICES, 1, N}, {op, "updates", ANY, 0, N}, \
                    {op, "output", ANY, 1, N}
    SCATTER("scatterElements"), SCATTER("scatterND"),
#undef SCATTER
    {"where", "condition", B(UINT8), 0, N}, {"where", "trueValue", ANY, 0, N},
    {"where", "falseValue", ANY, 0, N}, {"where", "output", ANY, 0, N},
    {"gru", "input", F, 3, 3}, {"gru", "weight", F, 3, 3}, {"gru", "recurrentWeight", F, 3, 3},
    {"gru", "bias", F, 2, 2}, {"gru", "recurrentBias", F, 2, 2}, {"gru", "initialHiddenState", F, 3, 3},
    {"gru", "output0", F, 3, 3}, {"gru", "output1", F, 4, 4},
    {"gruCell", "input", F, 2, 2}, {"gruCell", "weight", F, 2, 2}, {"gruCell", "recurrentWeight", F, 2, 2},
    {"gruCell", "hiddenState", F, 2, 2}, {"gruCell", "bias", F, 1, 1}, {"gruCell", "recurrentBias", F, 1, 1},
    {"gruCell", "output", F, 2, 2},
    {"lstm", "input", F, 3, 3}, {"lstm", "weight", F, 3, 3}, {"lstm", "recurrentWeight", F, 3, 3},
    {"lstm", "bias", F, 2, 2}, {"lstm", "recurrentBias", F, 2, 2}, {"lstm", "peepholeWeight", F, 2, 2},
    {"lstm", "initialHiddenState", F, 3, 3}, {"lstm", "initialCellState", F, 3, 3},
    {"lstm", "output0", F, 3, 3}, {"lstm", "output1", F, 3, 3}, {"lstm", "output2", F, 4, 4},
    {"lstmCell", "input", F, 2, 2}, {"lstmCell", "weight", F, 2, 2}, {"lstmCell", "recurrentWeight", F, 2, 2},
    {"lstmCell", "hiddenState", F, 2, 2}, {"lstmCell", "cellState", F, 2, 2}, {"lstmCell", "bias", F, 1, 1},
    {"lstmCell", "recurrentBias", F, 1, 1}, {"lstmCell", "peepholeWeight", F, 1, 1},
    {"lstmCell", "output0", F, 2, 2}, {"lstmCell", "output1", F, 2, 2},
};

#define ROWS (sizeof table / sizeof table[0])

uint32_t wnn_operator_count(void) { return WNN__OP_COUNT; }

const char *wnn_operator_name(uint32_t index)
{
    return index < WNN__OP_COUNT ? wnn__op_name((wnn__op)index) : NULL;
}

/* The operator named op, or WNN__OP_COUNT when wnn has none. */
static wnn__op op_of(const char *op)
{
    uint32_t i = 0;
    while (i < WNN__OP_COUNT && strcmp(wnn__op_name((wnn__op)i), op) != 0)
        i++;
    return (wnn__op)i;
}

static bool implemented(const char *op) { return op_of(op) != WNN__OP_COUNT; }

/* Whether ctx's device has a kernel for op (the backend's supports_op). */
static bool device_has(const wnn_context *ctx, const char *op)
{
    wnn__op o = op_of(op);
    return o != WNN__OP_COUNT && (!ctx->backend->supports_op || ctx->backend->supports_op(ctx->device, o));
}

const char *wnn_operator_operand_name(const char *op, uint32_t index)
{
    if (!op || !implemented(op))
        return NULL;
    for (size_t i = 0; i < ROWS; i++)
        if (strcmp(table[i].op, op) == 0 && index-- == 0)
            return table[i].operand;
    return NULL;
}

/* The data types ctx's device can hold, as a bit set. */
uint32_t wnn__device_types(const wnn_context *ctx)
{
    uint32_t types = 0;
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++)
        if (ctx->backend->supports_data_type(ctx->device, (wnn_data_type)t))
            types |= 1u << t;
    return types;
}

bool wnn__operand_limits(const wnn_context *ctx, const char *op, const char *operand, wnn_tensor_limits *out)
{
    static const char prefix[] = "options.";
    if (strncmp(operand, prefix, sizeof prefix - 1) == 0)
        operand += sizeof prefix - 1;
    for (size_t i = 0; i < ROWS; i++) {
        if (strcmp(table[i].op, op) != 0 || strcmp(table[i].operand, operand) != 0)
            continue;
        uint32_t types = device_has(ctx, op) ? table[i].types & wnn__device_types(ctx) : 0;
        wnn__op o = op_of(op);
        for (int t = WNN_DATA_TYPE_FLOAT32; ctx->backend->supports_op_type && t <= WNN_DATA_TYPE_UINT4; t++)
            if (types >> t & 1 && !ctx->backend->supports_op_type(ctx->device, o, (wnn_data_type)t))
                types &= ~(1u << t);
        *out = (wnn_tensor_limits){types, table[i].min_rank, table[i].max_rank};
        return true;
    }
    return false;
}

wnn_status wnn_context_get_limits(wnn_context *ctx, wnn_context_limits *out)
{
    if (!ctx || !out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_context_get_limits: NULL argument");
    wnn_tensor_limits all = {wnn__device_types(ctx), 0, WNN_MAX_RANK};
    *out = (wnn_context_limits){"nchw", ctx->info.max_tensor_byte_length, all, all, all};
    return WNN_OK;
}

wnn_status wnn_context_get_operand_limits(wnn_context *ctx, const char *op, const char *operand,
                                          wnn_tensor_limits *out)
{
    static const char fn[] = "wnn_context_get_operand_limits";
    if (!ctx || !op || !operand || !out)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: NULL argument", fn);
    if (!implemented(op) || !device_has(ctx, op))
        return wnn__fail(WNN_STATUS_NOT_SUPPORTED, "%s: no operator \"%s\" on \"%s\"", fn, op, ctx->info.name);
    if (strncmp(operand, "options.", 8) != 0 && wnn__operand_limits(ctx, op, operand, out))
        return WNN_OK;
    return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "%s: %s has no operand \"%s\"", fn, op, operand);
}
