/* SPDX-License-Identifier: Apache-2.0 */
/*
** devices_cmd.h -- `wnn devices` (devices_cmd.c): the device list and each
** device's opSupportLimits, as text or JSON, filtered by device and
** operator.
*/
#ifndef WNN_TOOLS_DEVICES_CMD_H
#define WNN_TOOLS_DEVICES_CMD_H

/* argv[1] is "devices"; returns the exit code. */
int devices_cmd(int argc, char **argv);

#endif /* WNN_TOOLS_DEVICES_CMD_H */
