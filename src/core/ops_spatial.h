/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops_spatial.h -- what the builders of the 2-D operators share (conv2d,
** convTranspose2d, the pools, resample2d, instanceNormalization): reading a
** rank-4 shape through a layout, and the sliding-window size arithmetic.
*/
#ifndef WNN_CORE_OPS_SPATIAL_H
#define WNN_CORE_OPS_SPATIAL_H

#include "core/builder.h"

typedef struct wnn__layout_dims {
    uint32_t batches, channels, height, width;
} wnn__layout_dims;

/* The four dimensions of a rank-4 descriptor in layout. */
wnn__layout_dims wnn__layout_dims_of(const wnn_operand_desc *d, wnn_input_layout layout);

/* A rank-4 descriptor of type with the four dimensions placed by layout. */
wnn_operand_desc wnn__layout_desc(wnn_data_type type, uint32_t batches, uint32_t channels, uint32_t height,
                                  uint32_t width, wnn_input_layout layout);

/* Reads a [height, width] option whose values must be >= 1 when given:
** {0, 0} is absent and leaves out as it is (the caller's default); a 0
** beside a non-zero value is INVALID_ARGUMENT (recorded, false); else the
** values are copied to out. */
bool wnn__hw_option(wnn_graph_builder *b, const char *op, const char *name, const uint32_t *values, uint32_t *out);

/* The window of k taps, dilation apart, slid by stride over in elements
** padded by pad_begin and pad_end: the number of positions, rounded down
** (*floor_out) and up (*ceil_out, may be NULL). Fails with INVALID_DIMENSION
** when the window does not fit or the size is over 2^31-1; dim names the
** dimension in the message. */
bool wnn__window_output_size(wnn_graph_builder *b, const char *op, const char *dim, uint32_t in, uint32_t k,
                             uint32_t pad_begin, uint32_t pad_end, uint32_t stride, uint32_t dilation,
                             uint32_t *floor_out, uint32_t *ceil_out);

#endif
