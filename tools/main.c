/* SPDX-License-Identifier: Apache-2.0 */
/*
** main.c -- the `wnn` command-line program.
**
** Owns: finding the command and its help (--help, -h, `wnn help TOPIC`),
** --version, the `run` and `conformance` commands' options and `run`'s
** report, and handing the ONNX commands to onnx_cmd.c. Exit codes are
** cli.h's: 0 success, 1 failures, 2 usage errors. Help texts live in
** cli_help.c, `devices` in devices_cmd.c, one case's work in wpt_case.c and
** a directory of cases in conformance.c.
*/
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_help.h"
#include "conformance.h"
#include "devices_cmd.h"
#include "onnx_cmd.h"
#include "wnn/wnn.h"
#include "wpt_case.h"
#include "wpt_compare.h"

/* Where `wnn conformance` looks for the WPT vectors when given no DIR and no
** $WNN_WPT_DIR (CMake sets both): installed with the program, as a path
** relative to the program's directory, then the source tree it was built
** from (a build-tree run). */
#ifndef WNN_WPT_FROM_BIN
#define WNN_WPT_FROM_BIN "../share/wnn/wpt/conformance"
#endif
#ifndef WNN_WPT_SOURCE_DIR
#define WNN_WPT_SOURCE_DIR "data/wpt/conformance"
#endif
#define RUN_VALUES_SHOWN 32u

/* ------------------------------------------------------------------------ */
/* run                                                                      */
/* ------------------------------------------------------------------------ */

#ifdef WNN_HAVE_JANSSON

static void print_output(const wpt_output *o)
{
    static const char *const verdicts[] = {"not compared", "MISMATCH", "matches"};
    char shape[160];
    size_t at = (size_t)snprintf(shape, sizeof shape, "[");
    for (uint32_t i = 0; i < o->desc.rank && at < sizeof shape; i++)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%u", i ? ", " : "", o->desc.shape[i]);
    if (at < sizeof shape)
        snprintf(shape + at, sizeof shape - at, "]");
    printf("  output '%s': %s %s, %s\n", o->name, wnn_data_type_name(o->desc.data_type), shape,
           verdicts[o->verdict + 1]);
    uint64_t count = wnn_operand_desc_element_count(&o->desc);
    uint64_t shown = count < RUN_VALUES_SHOWN ? count : RUN_VALUES_SHOWN;
    printf("    ");
    for (uint64_t i = 0; i < shown; i++) {
        char value[64];
        wpt_format_element(o->desc.data_type, o->data, i, value, sizeof value);
        printf("%s%s", i ? ", " : "", value);
    }
    printf("%s\n", count > shown ? ", ..." : "");
}

static void print_run(const char *case_name, const wpt_result *res)
{
    printf("case \"%s\"\n", case_name);
    for (size_t i = 0; i < res->output_count; i++)
        print_output(&res->outputs[i]);
    if (res->runs > 0)
        printf("  build %.3f ms, dispatch+read %.3f ms (mean of %u run%s)\n", res->build_ms, res->run_ms,
               res->runs, res->runs == 1 ? "" : "s");
    bool compared = false;
    for (size_t i = 0; i < res->output_count; i++)
        compared = compared || res->outputs[i].verdict >= 0;
    const char *tag = wpt_outcome_name(res->outcome);
    if (res->outcome == WPT_PASS && !compared)
        tag = "DONE (no expectedOutputs to compare)";
    if (res->reason[0] != '\0')
        printf("  %s: %s\n", tag, res->reason);
    else
        printf("  %s\n", tag);
    if (res->known_issue && res->has_mismatch)
        printf("  (output '%s'[%zu]: got %s, expected %s, allowed %s)\n", res->output, res->mismatch.index,
               res->mismatch.got, res->mismatch.expected, res->mismatch.allowed);
}

/* The progress of `run`: case k of n, and run r of --repeat N inside it. */
typedef struct run_progress {
    cli_progress bar;
    size_t case_index, case_count;
} run_progress;

static void on_run(void *user, unsigned done, unsigned repeat)
{
    run_progress *p = user;
    char label[64];
    snprintf(label, sizeof label, "runs (case %zu of %zu)", p->case_index, p->case_count);
    cli_progress_show(&p->bar, done, repeat, label);
}

static int cmd_run(int argc, char **argv)
{
    const char *device = NULL, *case_filter = NULL, *repeat_text = NULL, *file = NULL;
    const cli_option specs[] = {
        {"--device", true, &device, NULL},
        {"--case", true, &case_filter, NULL},
        {"--repeat", true, &repeat_text, NULL},
    };
    size_t npos;
    int rc = cli_parse_options("run", argc, argv, 2, specs, sizeof specs / sizeof specs[0], &file, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos == 0)
        return cli_usage_error("run", "%s", "a FILE.json (or MODEL.onnx) is needed");
    if (cli_is_directory(file))
        return cli_usage_error("run", "'%s' is a directory; give a FILE.json (wnn conformance DIR runs a folder)",
                               file);
    wpt_run_options ro = WPT_RUN_OPTIONS_INIT;
    ro.keep_outputs = true;
    ro.allow_no_expected = true;
    if (repeat_text != NULL) {
        char *end;
        unsigned long n = strtoul(repeat_text, &end, 10);
        if (*repeat_text == '\0' || *end != '\0' || n == 0 || n > 1000000ul || repeat_text[0] == '-')
            return cli_usage_error("run", "--repeat must be an integer in 1..1000000, not '%s'", repeat_text);
        ro.repeat = (unsigned)n;
    }
    char err[600];
    json_t *root = wpt_load_file(file, err, sizeof err);
    if (root == NULL) {
        fprintf(stderr, "wnn run: %s\n", err);
        return CLI_EXIT_FAILED;
    }
    const json_t *tests = json_object_get(root, "tests");
    if (!json_is_array(tests)) {
        fprintf(stderr, "wnn run: %s: missing \"tests\" array (data/wpt/FORMAT.md describes the format)\n", file);
        json_decref(root);
        return CLI_EXIT_FAILED;
    }
    wnn_context *ctx = cli_open_context("run", device, &rc);
    if (ctx == NULL) {
        json_decref(root);
        return rc;
    }
    run_progress progress;
    cli_progress_init(&progress.bar);
    progress.case_count = json_array_size(tests);
    if (ro.repeat > 1) {
        ro.on_run = on_run;
        ro.on_run_user = &progress;
    }
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; i < json_array_size(tests); i++) {
        const json_t *tc = json_array_get(tests, i);
        const json_t *name = json_object_get(tc, "name");
        char display[300];
        if (json_is_string(name))
            wpt_escape_display(json_string_value(name), json_string_length(name), display, sizeof display);
        else
            snprintf(display, sizeof display, "tests[%zu]", i);
        if (case_filter != NULL && strstr(display, case_filter) == NULL)
            continue;
        progress.case_index = i + 1;
        wpt_result res;
        wpt_case_run(ctx, tc, &ro, &res);
        cli_progress_clear(&progress.bar);
        print_run(display, &res);
        fflush(stdout);
        counts[res.outcome]++;
        wpt_result_free(&res);
    }
    wnn_context_release(ctx);
    json_decref(root);
    size_t matched = counts[WPT_PASS] + counts[WPT_FAIL] + counts[WPT_SKIP];
    if (matched == 0) {
        fprintf(stderr, "wnn run: no case of %s matches '%s'\n", file, case_filter ? case_filter : "");
        return CLI_EXIT_FAILED;
    }
    printf("%zu passed, %zu failed, %zu skipped\n", counts[WPT_PASS], counts[WPT_FAIL], counts[WPT_SKIP]);
    return counts[WPT_FAIL] > 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

#else /* !WNN_HAVE_JANSSON */

static int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "wnn run: this wnn was built without jansson, which reading cases needs\n");
    return CLI_EXIT_FAILED;
}

#endif /* WNN_HAVE_JANSSON */

/* ------------------------------------------------------------------------ */
/* conformance                                                              */
/* ------------------------------------------------------------------------ */

/* $WNN_WPT_DIR, else the installed vectors (WNN_WPT_FROM_BIN from the
** program's directory), else the source tree's. Returns NULL when none is a
** directory; buf then holds the installed path that was tried. */
static const char *default_wpt_dir(char *buf, size_t size)
{
    const char *env = getenv("WNN_WPT_DIR");
    if (env != NULL && env[0] != '\0')
        return env;
    buf[0] = '\0';
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL)
            *slash = '\0';
        int len = snprintf(buf, size, "%s/%s", exe, WNN_WPT_FROM_BIN);
        if (len > 0 && (size_t)len < size && cli_is_directory(buf))
            return buf;
    }
    return cli_is_directory(WNN_WPT_SOURCE_DIR) ? WNN_WPT_SOURCE_DIR : NULL;
}

static int cmd_conformance(int argc, char **argv)
{
    wpt_conformance_options o = {NULL, NULL, NULL, false, false};
    const cli_option specs[] = {
        {"--device", true, &o.device, NULL},
        {"--filter", true, &o.filter, NULL},
        {"--verbose", false, NULL, &o.verbose},
        {"--slowest", false, NULL, &o.slowest},
    };
    size_t npos;
    int rc = cli_parse_options("conformance", argc, argv, 2, specs, sizeof specs / sizeof specs[0], &o.dir, 1,
                               &npos);
    if (rc != 0)
        return rc;
    char dir[4096];
    if (npos == 0 && (o.dir = default_wpt_dir(dir, sizeof dir)) == NULL)
        return cli_usage_error("conformance", "no WPT vectors in '%s' or '%s'; pass DIR or set WNN_WPT_DIR", dir,
                               WNN_WPT_SOURCE_DIR);
    if (!cli_is_directory(o.dir))
        return cli_usage_error("conformance", "'%s' is not a directory of *.json vectors%s", o.dir,
                               access(o.dir, F_OK) == 0 ? " (wnn run FILE.json runs one file)" : "");
    /* A device name wnn does not have is a usage error before any case runs. */
    wnn_context *probe = cli_open_context("conformance", o.device, &rc);
    if (probe == NULL)
        return rc;
    wnn_context_release(probe);
    return wpt_conformance_run(&o);
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

static int cmd_run_any(int argc, char **argv)
{
    return onnx_cmd_wants(argc, argv, 2) ? onnx_cmd_run(argc, argv) : cmd_run(argc, argv);
}

static int cmd_help(int argc, char **argv)
{
    if (argc > 3)
        return cli_usage_error("help", "one topic at a time, not '%s'", argv[3]);
    return cli_help(argc == 3 ? argv[2] : NULL);
}

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"devices", devices_cmd},  {"run", cmd_run_any},      {"conformance", cmd_conformance},
    {"check", onnx_cmd_check}, {"bench", onnx_cmd_bench}, {"onnx-test", onnx_cmd_test},
    {"help", cmd_help},
};

static bool is_help_flag(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(NULL, "%s", "missing command");
    const char *cmd = argv[1];
    if (is_help_flag(cmd))
        return cli_help(argc > 2 ? argv[2] : NULL);
    if (strcmp(cmd, "--version") == 0) {
        printf("wnn %s (library %s)\n", WNN_VERSION_STRING, wnn_version());
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, cmd) != 0)
            continue;
        /* "wnn run --help" and the like print that command's help; so does
        ** "--help" anywhere before a lone "--". */
        for (int k = 2; k < argc && strcmp(argv[k], "--") != 0; k++)
            if (is_help_flag(argv[k]))
                return cli_help(cmd);
        return commands[i].fn(argc, argv);
    }
    if (cmd[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s'; a command comes first", cmd);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
