/* SPDX-License-Identifier: Apache-2.0 */
/*
** cli.c -- the pieces every wnn command uses (cli.h): option parsing, usage
** errors that point at the command's own help, opening a device, and the
** terminal progress bar.
*/
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, command ? "wnn %s: " : "wnn: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (command)
        fprintf(stderr, "\n(see wnn help %s)\n", command);
    else
        fprintf(stderr, "\n(see wnn --help)\n");
    return CLI_EXIT_USAGE;
}

int cli_parse_options(const char *command, int argc, char **argv, int first, const cli_option *specs,
                      size_t spec_count, const char **positional, size_t max_positional,
                      size_t *positional_count)
{
    *positional_count = 0;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
            if (*positional_count == max_positional)
                return cli_usage_error(command, "unexpected argument '%s'", arg);
            positional[(*positional_count)++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const cli_option *spec = NULL;
        for (size_t k = 0; k < spec_count && spec == NULL; k++)
            if (strlen(specs[k].name) == name_len && strncmp(specs[k].name, arg, name_len) == 0)
                spec = &specs[k];
        if (spec == NULL)
            return cli_usage_error(command, "unknown option '%s'", arg);
        if (!spec->takes_value) {
            if (eq != NULL)
                return cli_usage_error(command, "option '%.*s' takes no value", (int)name_len, arg);
            *spec->flag = true;
        } else if (eq != NULL) {
            *spec->value = eq + 1;
        } else if (i + 1 < argc) {
            *spec->value = argv[++i];
        } else {
            return cli_usage_error(command, "option '%s' needs a value", arg);
        }
    }
    return 0;
}

bool cli_is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

wnn_context *cli_open_context(const char *command, const char *device, int *exit_code)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    wnn_context *ctx = NULL;
    o.device = device;
    wnn_status st = wnn_context_create(&o, &ctx);
    if (st == WNN_OK)
        return ctx;
    /* An unknown name is a mistake on the command line; a device that is
    ** there but fails to open is a failure of the run. */
    if (st == WNN_STATUS_NO_SUCH_DEVICE) {
        *exit_code = cli_usage_error(command, "unknown device '%s': %s", device ? device : "(default)",
                                     wnn_last_error_message());
        return NULL;
    }
    fprintf(stderr, "wnn %s: cannot open device '%s': %s: %s\n", command, device ? device : "(default)",
            wnn_status_string(st), wnn_last_error_message());
    *exit_code = CLI_EXIT_FAILED;
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Progress bar                                                             */
/* ------------------------------------------------------------------------ */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void cli_progress_init(cli_progress *p)
{
    const char *term = getenv("TERM");
    p->enabled = isatty(STDERR_FILENO) && !(term && strcmp(term, "dumb") == 0);
    p->shown = false;
    p->last_ms = 0;
}

void cli_progress_show(cli_progress *p, size_t done, size_t total, const char *label)
{
    enum { WIDTH = 30 };
    if (!p->enabled)
        return;
    double t = now_ms();
    if (done != total && p->shown && t - p->last_ms < 100.0)
        return;
    p->last_ms = t;
    size_t filled = total ? (size_t)((double)done * WIDTH / (double)total) : WIDTH;
    char bar[WIDTH + 1];
    for (size_t i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", bar, done, total, label ? label : "");
    fflush(stderr);
    p->shown = true;
}

void cli_progress_clear(cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}
