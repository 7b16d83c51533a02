/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_ops_c.h -- WPT adapters of the operators of family C: data movement
** (expand, pad, split, tile, reverse, triangular), gather/scatter and the
** recurrent networks. Each has wpt_adapter's signature (wpt_ops.h) and gets
** one row in wpt_ops.c's table.
*/
#ifndef WNN_TOOLS_WPT_OPS_C_H
#define WNN_TOOLS_WPT_OPS_C_H

#ifdef WNN_HAVE_JANSSON

#include "wpt_ops.h"

bool wpt_adapt_expand(wpt_call *call);
bool wpt_adapt_pad(wpt_call *call);
bool wpt_adapt_split(wpt_call *call);
bool wpt_adapt_tile(wpt_call *call);
bool wpt_adapt_reverse(wpt_call *call);
bool wpt_adapt_triangular(wpt_call *call);
bool wpt_adapt_gather(wpt_call *call);
bool wpt_adapt_gather_elements(wpt_call *call);
bool wpt_adapt_gather_nd(wpt_call *call);
bool wpt_adapt_scatter_elements(wpt_call *call);
bool wpt_adapt_scatter_nd(wpt_call *call);
bool wpt_adapt_gru(wpt_call *call);
bool wpt_adapt_gru_cell(wpt_call *call);
bool wpt_adapt_lstm(wpt_call *call);
bool wpt_adapt_lstm_cell(wpt_call *call);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_OPS_C_H */
