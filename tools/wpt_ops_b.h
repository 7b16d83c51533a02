/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_b.h -- WPT adapters of the operators of family B: convolution
** (conv2d, convTranspose2d), pooling (averagePool2d, l2Pool2d, maxPool2d),
** resample2d and the normalizations (batchNormalization,
** instanceNormalization, layerNormalization). Each has wpt_adapter's
** signature (wpt_ops.h) and gets one row in wpt_ops.c's table.
*/
#ifndef WNN_TOOLS_WPT_OPS_B_H
#define WNN_TOOLS_WPT_OPS_B_H

#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_conv2d(wpt_call *call);
bool wpt_adapt_conv_transpose2d(wpt_call *call);
bool wpt_adapt_average_pool2d(wpt_call *call);
bool wpt_adapt_l2_pool2d(wpt_call *call);
bool wpt_adapt_max_pool2d(wpt_call *call);
bool wpt_adapt_resample2d(wpt_call *call);
bool wpt_adapt_batch_normalization(wpt_call *call);
bool wpt_adapt_instance_normalization(wpt_call *call);
bool wpt_adapt_layer_normalization(wpt_call *call);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_OPS_B_H */
