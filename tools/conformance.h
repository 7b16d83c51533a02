/* SPDX-License-Identifier: Apache-2.0 */
/*
** conformance.h -- `wnn conformance`: runs every case of every WPT vectors
** file in a directory and reports what failed and why.
**
** Owns: walking the directory (*.json in sorted order), the filter, the
** progress bar, the per-case failure lines, the closing count line, skip
** reasons grouped with counts, the folder and per-operator counts
** (--verbose) and the slowest cases (--slowest).
*/
#ifndef WNN_TOOLS_CONFORMANCE_H
#define WNN_TOOLS_CONFORMANCE_H

#include <stdbool.h>

typedef struct wpt_conformance_options {
    const char *dir;      /* directory of *.json vectors files */
    const char *device;   /* NULL: wnn's default device */
    const char *filter;   /* substring of "file/case name" (file without .json); NULL: all */
    bool verbose;         /* the folder used, every case's line and per-operator counts */
    bool slowest;         /* the 10 slowest cases */
} wpt_conformance_options;

/* Runs the suite. Returns the process exit code: 0 when nothing failed, 1
** when a case failed, 2 when the directory cannot be read. */
int wpt_conformance_run(const wpt_conformance_options *options);

#endif /* WNN_TOOLS_CONFORMANCE_H */
