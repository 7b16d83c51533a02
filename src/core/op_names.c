/* SPDX-License-Identifier: Apache-2.0 */
/*
** op_names.c -- the operator name table, generated from ops.def.
*/
#include "core/ops.h"

static const char *const names[WNN__OP_COUNT] = {
#define WNN__OP_DEF(e, name) [WNN__OP_##e] = name,
#include "core/ops.def"
#undef WNN__OP_DEF
};

const char *wnn__op_name(wnn__op op) { return (unsigned)op < WNN__OP_COUNT ? names[op] : "?"; }
