/* SPDX-License-Identifier: Apache-2.0 */
/*
** layout.h -- the cpu device's layout step: an IR in which the regions
** between oneDNN's convolutions run in nhwc (layout.c says how and why).
*/
#ifndef WNN_BACKENDS_CPU_LAYOUT_H
#define WNN_BACKENDS_CPU_LAYOUT_H

#include "core/ir.h"

/* The nhwc form of ir in *out (free it with wnn__cpu_layout_free), or NULL
** when ir has no nchw convolution for oneDNN, the step is off
** (WNN_CPU_NHWC=0), or nothing would change. *out keeps ir's value ids for
** ir's values (inputs, constants and outputs included; constants[v] bound
** for ir binds it too) and shares ir's constant bytes and names: ir must
** outlive it. */
wnn_status wnn__cpu_layout_nhwc(const wnn__ir *ir, wnn__ir **out);
void wnn__cpu_layout_free(wnn__ir *ir);

#endif
