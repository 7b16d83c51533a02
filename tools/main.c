/* SPDX-License-Identifier: Apache-2.0 */
/*
** main.c -- the `wnn` command-line program.
**
** Owns: the subcommands and their options (devices, run, conformance,
** --help, --version), printing `run`'s results, and the exit codes: 0
** success, 1 failures, 2 usage errors. The work itself lives in
** wpt_case.c (one case) and conformance.c (a directory of cases).
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance.h"
#include "onnx_cmd.h"
#include "wnn/wnn.h"
#include "wpt_case.h"
#include "wpt_compare.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2

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

static const char usage_text[] =
    "usage: wnn <command> [options]\n"
    "\n"
    "commands:\n"
    "  devices [--limits]            list the devices wnn can use\n"
    "  run FILE.json [--device D] [--case SUBSTRING] [--repeat N]\n"
    "                                run the cases of a WPT-format file and print\n"
    "                                their outputs, timings and verdicts\n"
    "  conformance [--device D] [--filter PATTERN] [--verbose] [--slowest] [DIR]\n"
    "                                run every case of DIR/*.json; PATTERN is a substring\n"
    "                                of \"file/case name\" (file without .json). DIR\n"
    "                                defaults to $WNN_WPT_DIR, else the vectors installed\n"
    "                                with wnn (<prefix>/share/wnn/wpt/conformance), else\n"
    "                                those of the source tree wnn was built from\n"
    ONNX_CMD_USAGE
    "  --help, -h                    show this text\n"
    "  --version                     show wnn's version\n"
    "\n"
    "exit status: 0 success, 1 failures, 2 usage error\n";

static int usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints "wnn: <message>" and a pointer to --help; returns EXIT_USAGE. */
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "wnn: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see wnn --help)\n");
    return EXIT_USAGE;
}

/* ------------------------------------------------------------------------ */
/* Option parsing (table-driven, one table per command)                     */
/* ------------------------------------------------------------------------ */

typedef struct option_spec {
    const char *name;       /* "--device" */
    bool takes_value;
    const char **value;     /* where a value goes */
    bool *flag;             /* where a flag goes */
} option_spec;

/* Parses argv[first..]: options from specs (as "--x V" or "--x=V") and at
** most max_positional positional arguments. Returns 0 or EXIT_USAGE. */
static int parse_options(int argc, char **argv, int first, const option_spec *specs, size_t spec_count,
                         const char **positional, size_t max_positional, size_t *positional_count)
{
    *positional_count = 0;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || strcmp(arg, "--") == 0) {
            if (*positional_count == max_positional)
                return usage_error("unexpected argument '%s'", arg);
            positional[(*positional_count)++] = arg;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const option_spec *spec = NULL;
        for (size_t k = 0; k < spec_count && spec == NULL; k++)
            if (strlen(specs[k].name) == name_len && strncmp(specs[k].name, arg, name_len) == 0)
                spec = &specs[k];
        if (spec == NULL)
            return usage_error("unknown option '%s'", arg);
        if (!spec->takes_value) {
            if (eq != NULL)
                return usage_error("option '%s' takes no value", arg);
            *spec->flag = true;
        } else if (eq != NULL) {
            *spec->value = eq + 1;
        } else if (i + 1 < argc) {
            *spec->value = argv[++i];
        } else {
            return usage_error("option '%s' needs a value", arg);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* devices                                                                  */
/* ------------------------------------------------------------------------ */

static const char *kind_name(wnn_device_kind kind)
{
    static const char *const names[] = {
        [WNN_DEVICE_KIND_CPU] = "cpu",
        [WNN_DEVICE_KIND_DISCRETE] = "discrete",
        [WNN_DEVICE_KIND_EMULATED] = "emulated",
    };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static void format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    if (bytes == 0) {
        snprintf(buf, size, "unknown");
        return;
    }
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.4g %s", v, units[u]);
}

/* "float32 float16 ... ranks 0-8" for one operand's limits. */
static void print_tensor_limits(const char *label, const wnn_tensor_limits *l)
{
    printf("       %-20s", label);
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++)
        if (l->data_types & WNN_DATA_TYPE_BIT(t))
            printf(" %s", wnn_data_type_name((wnn_data_type)t));
    printf("  ranks %u-%u\n", l->min_rank, l->max_rank);
}

/* The device's opSupportLimits: context-wide members, then every operand of
** every operator. */
static void print_limits(const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_context *ctx;
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        printf("     opSupportLimits: cannot open: %s\n", wnn_last_error_message());
        return;
    }
    wnn_context_limits cl = WNN_CONTEXT_LIMITS_INIT;
    wnn_context_get_limits(ctx, &cl);
    printf("     preferredInputLayout %s, maxTensorByteLength %llu\n", cl.preferred_input_layout,
           (unsigned long long)cl.max_tensor_byte_length);
    print_tensor_limits("input", &cl.input);
    print_tensor_limits("constant", &cl.constant);
    print_tensor_limits("output", &cl.output);
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i);
        printf("     %s\n", op);
        const char *operand;
        for (uint32_t k = 0; (operand = wnn_operator_operand_name(op, k)); k++) {
            wnn_tensor_limits l;
            if (wnn_context_get_operand_limits(ctx, op, operand, &l) == WNN_OK)
                print_tensor_limits(operand, &l);
        }
    }
    wnn_context_release(ctx);
}

static int cmd_devices(int argc, char **argv)
{
    bool limits = false;
    const option_spec specs[] = {{"--limits", false, NULL, &limits}};
    size_t npos;
    if (parse_options(argc, argv, 2, specs, 1, NULL, 0, &npos) != 0)
        return EXIT_USAGE;
    uint32_t count = wnn_device_count();
    printf("%u device%s\n", count, count == 1 ? "" : "s");
    for (uint32_t i = 0; i < count; i++) {
        wnn_device_info info;
        wnn_status st = wnn_device_get_info(i, &info);
        if (st != WNN_OK) {
            printf("  %u  (cannot read: %s: %s)\n", i, wnn_status_string(st), wnn_last_error_message());
            continue;
        }
        char max_bytes[32], memory[32];
        format_bytes(info.max_tensor_byte_length, max_bytes, sizeof max_bytes);
        format_bytes(info.memory_bytes, memory, sizeof memory);
        printf("  %u  %-8s %-9s accelerated=%s  max tensor %s  memory %s  dlpack %d:%d  %s\n", i,
               info.name ? info.name : "?", kind_name(info.kind), info.accelerated ? "yes" : "no", max_bytes,
               memory, (int)info.dlpack_device_type, (int)info.dlpack_device_id,
               info.description ? info.description : "");
        if (limits)
            print_limits(info.name);
    }
    return 0;
}

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

static bool print_run(const char *case_name, const wpt_result *res)
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
    return res->outcome != WPT_FAIL;
}

static wnn_context *open_context(const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    wnn_context *ctx = NULL;
    o.device = device;
    wnn_status st = wnn_context_create(&o, &ctx);
    if (st != WNN_OK) {
        fprintf(stderr, "wnn: cannot create a context on device '%s': %s: %s\n", device ? device : "(default)",
                wnn_status_string(st), wnn_last_error_message());
        return NULL;
    }
    return ctx;
}

static int cmd_run(int argc, char **argv)
{
    const char *device = NULL, *case_filter = NULL, *repeat_text = NULL, *file = NULL;
    const option_spec specs[] = {
        {"--device", true, &device, NULL},
        {"--case", true, &case_filter, NULL},
        {"--repeat", true, &repeat_text, NULL},
    };
    size_t npos;
    if (parse_options(argc, argv, 2, specs, 3, &file, 1, &npos) != 0)
        return EXIT_USAGE;
    if (npos == 0)
        return usage_error("%s", "run needs a FILE.json");
    wpt_run_options ro = WPT_RUN_OPTIONS_INIT;
    ro.keep_outputs = true;
    ro.allow_no_expected = true;
    if (repeat_text != NULL) {
        char *end;
        unsigned long n = strtoul(repeat_text, &end, 10);
        if (*repeat_text == '\0' || *end != '\0' || n == 0 || n > 1000000ul || repeat_text[0] == '-')
            return usage_error("--repeat must be an integer in 1..1000000, not '%s'", repeat_text);
        ro.repeat = (unsigned)n;
    }
    char err[600];
    json_t *root = wpt_load_file(file, err, sizeof err);
    if (root == NULL) {
        fprintf(stderr, "wnn run: %s\n", err);
        return EXIT_FAILED;
    }
    const json_t *tests = json_object_get(root, "tests");
    if (!json_is_array(tests)) {
        fprintf(stderr, "wnn run: %s: missing \"tests\" array\n", file);
        json_decref(root);
        return EXIT_FAILED;
    }
    wnn_context *ctx = open_context(device);
    if (ctx == NULL) {
        json_decref(root);
        return EXIT_FAILED;
    }
    size_t matched = 0, failed = 0;
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
        matched++;
        wpt_result res;
        wpt_case_run(ctx, tc, &ro, &res);
        if (!print_run(display, &res))
            failed++;
        wpt_result_free(&res);
    }
    wnn_context_release(ctx);
    json_decref(root);
    if (matched == 0) {
        fprintf(stderr, "wnn run: no case of %s matches '%s'\n", file, case_filter ? case_filter : "");
        return EXIT_FAILED;
    }
    return failed > 0 ? EXIT_FAILED : 0;
}

#else /* !WNN_HAVE_JANSSON */

static int cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "wnn run: this wnn was built without jansson, which reading cases needs\n");
    return EXIT_FAILED;
}

#endif /* WNN_HAVE_JANSSON */

/* ------------------------------------------------------------------------ */
/* conformance                                                              */
/* ------------------------------------------------------------------------ */

static bool is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

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
        if (len > 0 && (size_t)len < size && is_directory(buf))
            return buf;
    }
    return is_directory(WNN_WPT_SOURCE_DIR) ? WNN_WPT_SOURCE_DIR : NULL;
}

static int cmd_conformance(int argc, char **argv)
{
    wpt_conformance_options o = {NULL, NULL, NULL, false, false};
    const option_spec specs[] = {
        {"--device", true, &o.device, NULL},
        {"--filter", true, &o.filter, NULL},
        {"--verbose", false, NULL, &o.verbose},
        {"--slowest", false, NULL, &o.slowest},
    };
    size_t npos;
    if (parse_options(argc, argv, 2, specs, 4, &o.dir, 1, &npos) != 0)
        return EXIT_USAGE;
    char dir[4096];
    if (npos == 0 && (o.dir = default_wpt_dir(dir, sizeof dir)) == NULL) {
        fprintf(stderr, "wnn conformance: no WPT vectors in '%s' or '%s'; pass DIR or set WNN_WPT_DIR\n", dir,
                WNN_WPT_SOURCE_DIR);
        return EXIT_USAGE;
    }
    return wpt_conformance_run(&o);
}

/* ------------------------------------------------------------------------ */
/* main                                                                     */
/* ------------------------------------------------------------------------ */

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
} command;

static const command commands[] = {
    {"devices", cmd_devices},
    {"run", cmd_run},
    {"conformance", cmd_conformance},
    {"check", onnx_cmd_check},
    {"bench", onnx_cmd_bench},
    {"onnx-test", onnx_cmd_test},
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("%s", "missing command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("wnn %s (library %s)\n", WNN_VERSION_STRING, wnn_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(commands[i].name, cmd) != 0)
            continue;
        /* "wnn run --help" and the like print the usage too. */
        for (int k = 2; k < argc; k++) {
            if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) {
                fputs(usage_text, stdout);
                return 0;
            }
        }
        if (strcmp(cmd, "run") == 0 && onnx_cmd_wants(argc, argv, 2))
            return onnx_cmd_run(argc, argv);
        return commands[i].fn(argc, argv);
    }
    return usage_error("unknown command '%s'", cmd);
}
