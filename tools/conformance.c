/* SPDX-License-Identifier: Apache-2.0 */
/*
** conformance.c -- `wnn conformance`: the WPT vectors directory, case by case.
**
** Owns: the file walk (sorted, so runs compare line by line), the filter, the
** report (one line per failing case, a progress bar on a terminal's stderr,
** the closing "N passed, N failed, N skipped" line and the grouped skip
** reasons), the per-operator table and the slowest cases. Running a case is
** wpt_case.c's job; this file only tallies results.
*/
#include "conformance.h"

#include <stdio.h>

#ifdef WNN_HAVE_JANSSON

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wnn/wnn.h"
#include "wpt_case.h"

#define SLOWEST_SHOWN 10

/* ------------------------------------------------------------------------ */
/* Tallies                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct op_tally {
    char *name;
    size_t counts[3]; /* by wpt_outcome */
} op_tally;

typedef struct reason_tally {
    char *reason;
    size_t count;
} reason_tally;

typedef struct timed_case {
    char label[600];
    double ms;
} timed_case;

typedef struct report {
    const wpt_conformance_options *opt;
    size_t counts[3];
    op_tally *ops;
    size_t op_count;
    reason_tally *reasons;
    size_t reason_count;
    timed_case slowest[SLOWEST_SHOWN];
    size_t slow_count;
    bool progress;      /* stderr is a terminal */
    bool progress_shown;
} report;

/* Finds or appends name in a growing array of records whose first member is
** a char* key; returns the index or SIZE_MAX when out of memory. */
static size_t tally_index(void **array, size_t *count, size_t elem_size, const char *key)
{
    for (size_t i = 0; i < *count; i++) {
        char *const *k = (char *const *)((char *)*array + i * elem_size);
        if (strcmp(*k, key) == 0)
            return i;
    }
    void *grown = realloc(*array, (*count + 1) * elem_size);
    char *copy = strdup(key);
    if (grown == NULL || copy == NULL) {
        free(copy);
        if (grown != NULL)
            *array = grown;
        return SIZE_MAX;
    }
    *array = grown;
    char *slot = (char *)grown + *count * elem_size;
    memset(slot, 0, elem_size);
    memcpy(slot, &copy, sizeof copy);
    return (*count)++;
}

static void tally_operators(report *r, const json_t *tc, wpt_outcome outcome)
{
    const char *names[64];
    size_t n = wpt_case_operator_names(tc, names, 64);
    for (size_t i = 0; i < n; i++) {
        size_t k = tally_index((void **)&r->ops, &r->op_count, sizeof *r->ops, names[i]);
        if (k != SIZE_MAX)
            r->ops[k].counts[outcome]++;
    }
}

static void tally_skip(report *r, const char *reason)
{
    size_t k = tally_index((void **)&r->reasons, &r->reason_count, sizeof *r->reasons, reason);
    if (k != SIZE_MAX)
        r->reasons[k].count++;
}

/* Keeps the SLOWEST_SHOWN slowest cases, slowest first. */
static void tally_time(report *r, const char *label, double ms)
{
    size_t pos = r->slow_count;
    while (pos > 0 && r->slowest[pos - 1].ms < ms)
        pos--;
    if (pos >= SLOWEST_SHOWN)
        return;
    size_t last = r->slow_count < SLOWEST_SHOWN ? r->slow_count : SLOWEST_SHOWN - 1;
    memmove(&r->slowest[pos + 1], &r->slowest[pos], (last - pos) * sizeof r->slowest[0]);
    snprintf(r->slowest[pos].label, sizeof r->slowest[pos].label, "%s", label);
    r->slowest[pos].ms = ms;
    if (r->slow_count < SLOWEST_SHOWN)
        r->slow_count++;
}

static void free_report(report *r)
{
    for (size_t i = 0; i < r->op_count; i++)
        free(r->ops[i].name);
    for (size_t i = 0; i < r->reason_count; i++)
        free(r->reasons[i].reason);
    free(r->ops);
    free(r->reasons);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */
/* ------------------------------------------------------------------------ */

static void clear_progress(report *r)
{
    if (r->progress_shown) {
        fputs("\r\033[K", stderr);
        r->progress_shown = false;
    }
}

static void show_progress(report *r, size_t file, size_t files, const char *name, size_t c, size_t cases)
{
    enum { WIDTH = 30 };
    if (!r->progress)
        return;
    size_t filled = files ? file * WIDTH / files : WIDTH;
    char bar[WIDTH + 1];
    for (size_t i = 0; i < WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %s %zu/%zu", bar, file, files, name, c, cases);
    fflush(stderr);
    r->progress_shown = true;
}

/* Prints one case's line: always for failures, for the rest with --verbose. */
static void print_case(report *r, const char *file, const char *case_name, const wpt_result *res)
{
    if (res->outcome != WPT_FAIL && !r->opt->verbose)
        return;
    clear_progress(r);
    const char *tag = wpt_outcome_name(res->outcome);
    if (res->reason[0] != '\0')
        printf("%s %s: \"%s\": %s\n", tag, file, case_name, res->reason);
    else
        printf("%s %s: \"%s\"\n", tag, file, case_name);
    if (res->known_issue && res->has_mismatch)
        printf("      (output '%s'[%zu]: got %s, expected %s, allowed %s)\n", res->output, res->mismatch.index,
               res->mismatch.got, res->mismatch.expected, res->mismatch.allowed);
    fflush(stdout);
}

static void print_summary(report *r)
{
    clear_progress(r);
    if (r->opt->verbose && r->op_count > 0) {
        printf("\nper operator (a case counts for every operator it uses):\n");
        printf("  %-24s %7s %7s %7s\n", "operator", "passed", "failed", "skipped");
        for (size_t i = 0; i < r->op_count; i++)
            printf("  %-24s %7zu %7zu %7zu\n", r->ops[i].name, r->ops[i].counts[WPT_PASS],
                   r->ops[i].counts[WPT_FAIL], r->ops[i].counts[WPT_SKIP]);
    }
    if (r->opt->slowest && r->slow_count > 0) {
        printf("\nslowest cases (build + mean dispatch and read):\n");
        for (size_t i = 0; i < r->slow_count; i++)
            printf("  %10.3f ms  %s\n", r->slowest[i].ms, r->slowest[i].label);
    }
    if (r->opt->verbose || r->opt->slowest)
        printf("\n");
    printf("%zu passed, %zu failed, %zu skipped\n", r->counts[WPT_PASS], r->counts[WPT_FAIL],
           r->counts[WPT_SKIP]);
    for (size_t i = 0; i < r->reason_count; i++)
        printf("  %5zu skipped: %s\n", r->reasons[i].count, r->reasons[i].reason);
}

/* ------------------------------------------------------------------------ */
/* The walk                                                                 */
/* ------------------------------------------------------------------------ */

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_json_suffix(const char *name)
{
    size_t n = strlen(name);
    return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* The sorted *.json names of dir; NULL with errno set on failure. */
static char **list_files(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!has_json_suffix(e->d_name))
            continue;
        char **grown = realloc(names, (n + 1) * sizeof *names);
        char *copy = strdup(e->d_name);
        if (grown == NULL || copy == NULL) {
            free(copy);
            names = grown ? grown : names;
            for (size_t i = 0; i < n; i++)
                free(names[i]);
            free(names);
            closedir(d);
            errno = ENOMEM;
            return NULL;
        }
        names = grown;
        names[n++] = copy;
    }
    closedir(d);
    if (n > 0)
        qsort(names, n, sizeof *names, compare_names);
    *count = n;
    return names != NULL ? names : calloc(1, sizeof *names);
}

/* A fresh context when the last case lost the one in use. */
static bool ensure_context(wnn_context **ctx, const char *device)
{
    if (*ctx != NULL && !wnn_context_is_lost(*ctx))
        return true;
    wnn_context_release(*ctx);
    *ctx = NULL;
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_status st = wnn_context_create(&o, ctx);
    if (st != WNN_OK) {
        fprintf(stderr, "wnn conformance: cannot create a context on device '%s': %s: %s\n",
                device ? device : "(default)", wnn_status_string(st), wnn_last_error_message());
        *ctx = NULL;
        return false;
    }
    return true;
}

/* A failure of the file itself (unreadable, malformed) counts as one failed case. */
static void file_failure(report *r, const char *file, const char *why)
{
    clear_progress(r);
    printf("FAIL %s: %s\n", file, why);
    r->counts[WPT_FAIL]++;
}

static bool run_file(report *r, wnn_context **ctx, const char *dir, const char *file, size_t index, size_t files)
{
    char path[4096], err[600], stem[256], label[600], display[300];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(stem, sizeof stem, "%.*s", (int)(strlen(file) - 5), file);
    json_t *root = wpt_load_file(path, err, sizeof err);
    if (root == NULL) {
        /* Only a filter that could match this file's cases counts it. */
        if (r->opt->filter == NULL || strstr(stem, r->opt->filter) != NULL)
            file_failure(r, file, err);
        return true;
    }
    const json_t *tests = json_object_get(root, "tests");
    if (!json_is_array(tests)) {
        if (r->opt->filter == NULL || strstr(stem, r->opt->filter) != NULL)
            file_failure(r, file, "missing \"tests\" array");
        json_decref(root);
        return true;
    }
    size_t cases = json_array_size(tests);
    for (size_t i = 0; i < cases; i++) {
        const json_t *tc = json_array_get(tests, i);
        const json_t *name = json_object_get(tc, "name");
        if (json_is_string(name))
            wpt_escape_display(json_string_value(name), json_string_length(name), display, sizeof display);
        else
            snprintf(display, sizeof display, "tests[%zu]", i);
        snprintf(label, sizeof label, "%s/%s", stem, display);
        if (r->opt->filter != NULL && strstr(label, r->opt->filter) == NULL)
            continue;
        show_progress(r, index + 1, files, file, i + 1, cases);
        if (!ensure_context(ctx, r->opt->device)) {
            json_decref(root);
            return false;
        }
        wpt_result res;
        wpt_case_run(*ctx, tc, NULL, &res);
        r->counts[res.outcome]++;
        if (res.outcome == WPT_SKIP)
            tally_skip(r, res.reason);
        tally_operators(r, tc, res.outcome);
        tally_time(r, label, res.build_ms + res.run_ms);
        print_case(r, file, display, &res);
        wpt_result_free(&res);
    }
    json_decref(root);
    return true;
}

int wpt_conformance_run(const wpt_conformance_options *options)
{
    size_t files = 0;
    char **names = list_files(options->dir, &files);
    if (names == NULL) {
        fprintf(stderr, "wnn conformance: cannot read directory '%s': %s\n", options->dir, strerror(errno));
        return 2;
    }
    report r;
    memset(&r, 0, sizeof r);
    r.opt = options;
    r.progress = isatty(STDERR_FILENO) != 0;
    wnn_context *ctx = NULL;
    bool ok = true;
    if (files == 0)
        fprintf(stderr, "wnn conformance: no *.json files in '%s'\n", options->dir);
    else if (options->verbose)
        printf("vectors: %zu files in %s\n", files, options->dir);
    for (size_t i = 0; i < files && ok; i++)
        ok = run_file(&r, &ctx, options->dir, names[i], i, files);
    print_summary(&r);
    wnn_context_release(ctx);
    for (size_t i = 0; i < files; i++)
        free(names[i]);
    free(names);
    free_report(&r);
    if (!ok)
        return 1;
    return r.counts[WPT_FAIL] > 0 ? 1 : 0;
}

#else /* !WNN_HAVE_JANSSON */

int wpt_conformance_run(const wpt_conformance_options *options)
{
    (void)options;
    fprintf(stderr, "wnn conformance: this wnn was built without jansson, which reading the vectors needs\n");
    return 1;
}

#endif /* WNN_HAVE_JANSSON */
