/*
** ops.h -- the operator enumeration and the attributes each operator keeps.
**
** Operands named in options (gemm's c, conv2d's bias ...) are node inputs, not
** attributes; attributes hold only plain values, so a node copies by value.
*/
#ifndef WNN_CORE_OPS_H
#define WNN_CORE_OPS_H

#include "wnn/wnn.h"

typedef enum wnn__op {
#define WNN__OP_DEF(e, name) WNN__OP_##e,
#include "core/ops.def"
#undef WNN__OP_DEF
    WNN__OP_COUNT
} wnn__op;

/* WebNN's builder method name of op ("add", "gemm" ...). */
const char *wnn__op_name(wnn__op op);

typedef union wnn__attrs {
    struct { double min_value, max_value; } clamp;
    struct { wnn_data_type to; } cast;
    struct { uint32_t perm[WNN_MAX_RANK]; } transpose;
    struct { uint32_t axis; } axis; /* concat, softmax */
    struct {
        uint32_t starts[WNN_MAX_RANK];
        uint32_t sizes[WNN_MAX_RANK];
        uint32_t strides[WNN_MAX_RANK];
    } slice;
    struct { double alpha, beta; bool a_transpose, b_transpose; } gemm;
    /* family A */
    /* end of family A */
    /* family B */
    /* end of family B */
    /* family C */
    /* end of family C */
} wnn__attrs;

#endif
