/* SPDX-License-Identifier: Apache-2.0 */
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
    /* Bounds as doubles, and for int64/uint64 inputs also cast exactly to
    ** the input's type (lo/hi, as int64_t or uint64_t bit patterns). */
    struct { double min_value, max_value; uint64_t lo, hi; } clamp;
    struct { wnn_data_type to; } cast;
    struct { uint32_t perm[WNN_MAX_RANK]; } transpose;
    struct { uint32_t axis; } axis; /* concat, softmax */
    struct {
        uint32_t starts[WNN_MAX_RANK];
        uint32_t sizes[WNN_MAX_RANK];
        uint32_t strides[WNN_MAX_RANK];
    } slice;
    struct { double alpha, beta; bool a_transpose, b_transpose; } gemm;
    /* element-wise math and activations, comparisons, reductions, quantization */
    struct { double alpha, beta; } activation; /* elu, hardSigmoid, leakyRelu, linear */
    struct { uint32_t axes_mask; bool keep_dimensions; } reduction; /* bit i: axis i reduced */
    struct { uint32_t axis; bool keep_dimensions; } arg_min_max;
    struct { uint32_t axis; bool exclusive, reversed; } cumulative_sum;
    /* convolution, pooling, resampling, normalization */
    struct {
        uint32_t padding[4]; /* begin height, end height, begin width, end width */
        uint32_t strides[2], dilations[2];
        uint32_t groups;
        uint32_t input_layout;  /* wnn_input_layout */
        uint32_t filter_layout; /* wnn_conv2d_filter_layout or wnn_conv_transpose2d_filter_layout */
    } conv; /* conv2d, convTranspose2d; output sizes are the output's shape */
    struct {
        uint32_t window[2], padding[4], strides[2], dilations[2];
        uint32_t layout; /* wnn_input_layout */
    } pool2d; /* averagePool2d, l2Pool2d, maxPool2d */
    struct { uint32_t mode; uint32_t axes[2]; } resample2d; /* sizes are the output's shape */
    struct { uint32_t axis; double epsilon; } batch_norm;
    struct { uint32_t layout; double epsilon; } instance_norm;
    struct { uint32_t axes_count; uint32_t axes[WNN_MAX_RANK]; double epsilon; } layer_norm;
    /* movement, gather and scatter, recurrent */
    /* gather, gatherElements, scatterElements and split use axis; expand,
    ** tile, gatherND and scatterND need none (their shapes say it all) */
    struct { uint32_t begin[WNN_MAX_RANK]; wnn_pad_mode mode; double value; } pad;
    struct { uint32_t mask; } reverse; /* bit i: axis i is reversed */
    struct { bool upper; int32_t diagonal; } triangular;
    struct {
        wnn_recurrent_direction direction;
        int layout; /* wnn_gru_weight_layout or wnn_lstm_weight_layout */
        wnn_recurrent_activation activations[3];
        bool reset_after;
    } rnn; /* gru, gruCell, lstm, lstmCell */
} wnn__attrs;

#endif
