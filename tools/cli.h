/* SPDX-License-Identifier: Apache-2.0 */
/*
** cli.h -- what the wnn program's commands share (cli.c): the exit codes,
** the table-driven option parser, usage errors, opening a device with the
** right exit code, and the progress bar shown on a terminal.
*/
#ifndef WNN_TOOLS_CLI_H
#define WNN_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "wnn/wnn.h"

/* The exit codes, as `wnn --help` and wnn(1) document them. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILED 1 /* a case or check failed, an input could not be read or run */
#define CLI_EXIT_USAGE 2  /* the command line is wrong */

typedef struct cli_option {
    const char *name;   /* "--device" */
    bool takes_value;
    const char **value; /* where a value goes */
    bool *flag;         /* where a flag goes */
} cli_option;

/* Parses argv[first..] for `command`: options from specs (as "--x V" or
** "--x=V") and at most max_positional positional arguments. On a mistake
** prints it with a pointer to the command's help and returns
** CLI_EXIT_USAGE; else 0. */
int cli_parse_options(const char *command, int argc, char **argv, int first, const cli_option *specs,
                      size_t spec_count, const char **positional, size_t max_positional,
                      size_t *positional_count);

/* Prints "wnn <command>: <message>" and "(see wnn help <command>)" to
** stderr; returns CLI_EXIT_USAGE. command may be NULL (the program). */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Whether path names a directory. */
bool cli_is_directory(const char *path);

/* A context on device (NULL: wnn's default). On failure prints why and
** stores the exit code: CLI_EXIT_USAGE for a device name wnn does not have
** (the library's message lists those it has), CLI_EXIT_FAILED otherwise. */
wnn_context *cli_open_context(const char *command, const char *device, int *exit_code);

/* A one-line progress bar on stderr, drawn only when stderr is a terminal
** and at most ten times a second, so it costs nothing measurable inside a
** timed loop. Clear it before printing anything else. */
typedef struct cli_progress {
    bool enabled;
    bool shown;
    double last_ms;
} cli_progress;

void cli_progress_init(cli_progress *p);
/* "[#####.....] done/total label"; done == total always draws. */
void cli_progress_show(cli_progress *p, size_t done, size_t total, const char *label);
void cli_progress_clear(cli_progress *p);

#endif /* WNN_TOOLS_CLI_H */
