/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_case.h -- running one WPT-format case (data/wpt/FORMAT.md, "Case
** format") through wnn's public API.
**
** Owns: reading a case's JSON (descriptors, data with the fill rule, every
** data type's encoding), building its graph through the operator table of
** wpt_ops.h, feeding, dispatching and reading it, checking output
** descriptors, and judging the values with wpt_compare.h. A case ends as a
** wpt_result: pass, fail (with the reason or the first mismatch), or skip
** (with the reason).
*/
#ifndef WNN_TOOLS_WPT_CASE_H
#define WNN_TOOLS_WPT_CASE_H

#ifdef WNN_HAVE_JANSSON

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "wnn/wnn.h"
#include "wpt_compare.h"

typedef enum wpt_outcome {
    WPT_PASS = 0,
    WPT_FAIL = 1,
    WPT_SKIP = 2
} wpt_outcome;

/* One graph output as read back, kept when wpt_run_options.keep_outputs. */
typedef struct wpt_output {
    char *name;             /* printable form of the output's name */
    wnn_operand_desc desc;
    void *data;             /* the bytes the last run read */
    size_t byte_length;
    int verdict;            /* 1 matched, 0 did not, -1 nothing expected */
} wpt_output;

typedef struct wpt_result {
    wpt_outcome outcome;
    bool known_issue;       /* a failing case marked knownIssue: a skip */
    char reason[1024];      /* why it failed or was skipped; "" on a pass */
    bool has_mismatch;      /* the failure is a value mismatch: */
    char output[256];       /*   the output's printable name */
    wpt_mismatch mismatch;  /*   and the first failing element */
    double build_ms;        /* graph construction and build */
    double run_ms;          /* mean of dispatch + reads over the runs */
    unsigned runs;
    wpt_output *outputs;
    size_t output_count;
} wpt_result;

typedef struct wpt_run_options {
    unsigned repeat;        /* dispatch + read this many times (>= 1) */
    bool keep_outputs;      /* fill wpt_result.outputs */
    bool allow_no_expected; /* a model file without expectedOutputs runs (its
                            ** unused operator outputs become the outputs)
                            ** instead of failing as malformed */
    /* Called after each of the repeat runs (done of repeat), outside the
    ** timed part; NULL: none. `wnn run --repeat` draws its progress bar. */
    void (*on_run)(void *user, unsigned done, unsigned repeat);
    void *on_run_user;
} wpt_run_options;

#define WPT_RUN_OPTIONS_INIT {1u, false, false, NULL, NULL}

/* Runs one case (an element of a file's "tests") on ctx. Never fails as a
** call: malformed cases end as WPT_FAIL with the reason. options may be NULL.
** Release the result with wpt_result_free(). */
void wpt_case_run(wnn_context *ctx, const json_t *test_case, const wpt_run_options *options,
                  wpt_result *result);

void wpt_result_free(wpt_result *result);

const char *wpt_outcome_name(wpt_outcome outcome);

/* Loads a vectors file keeping key order and U+0000 in strings. On failure
** returns NULL and writes "<path>:<line>:<column>: <jansson's text>" to err. */
json_t *wpt_load_file(const char *path, char *err, size_t err_size);

/* A JSON number, or a string spelling one (see wpt_number_from_text). */
bool wpt_json_number(const json_t *value, wpt_number *out);

/* A counted string made printable: control characters (U+0000 included)
** become \xNN; always terminated, truncated with "..." when too long. */
void wpt_escape_display(const char *text, size_t len, char *buf, size_t size);

/* The distinct builder method names a case's operators use, in order of
** first use (for per-operator counts): fills up to cap, returns the count. */
size_t wpt_case_operator_names(const json_t *test_case, const char **names, size_t cap);

#endif /* WNN_HAVE_JANSSON */

#endif /* WNN_TOOLS_WPT_CASE_H */
