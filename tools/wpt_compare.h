/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_compare.h -- the values and comparison rules of the WPT WebNN
** conformance vectors (data/wpt/FORMAT.md, "Tolerance and comparison").
**
** Owns: how an expected value is held (wpt_number: the double a script would
** hold, plus the exact integer for int64/uint64 BigInts), WPT's toHalf()
** float16 rounding, reading one element of an output buffer of any data type,
** and the per-element pass rule (ULP per data type, ATOL, the stricter checks
** some files name, the fill-rule cap). It knows nothing about JSON or graphs,
** so that tests can exercise the rules alone.
*/
#ifndef WNN_TOOLS_WPT_COMPARE_H
#define WNN_TOOLS_WPT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wnn/wnn.h"

/* WPT compares only this many elements of an expected output written with
** the fill rule (utils.js kMaximumIndexToValidate). */
#define WPT_FILL_COMPARE_LIMIT 1000u

/* A value as a WPT case writes it. d is the number a script would hold (for a
** BigInt, its nearest double). When exact is true, the value is the integer
** (neg ? -mag : mag), so int64/uint64 compare with all 64 bits. */
typedef struct wpt_number {
    double d;
    bool exact;
    bool neg;
    uint64_t mag;
} wpt_number;

void wpt_number_from_double(double d, wpt_number *out);
void wpt_number_from_int64(int64_t v, wpt_number *out);

/* Parses the string spellings of the vectors: "NaN", "Infinity",
** "-Infinity", integer digits with an optional '-' and an optional BigInt
** suffix 'n' ("45", "-9007199254740993n"), or any complete decimal number.
** Returns false when text is none of these. */
bool wpt_number_from_text(const char *text, size_t len, wpt_number *out);

/* The value reduced modulo 2^64, as JavaScript's typed arrays and
** BigInt.asUintN(64) store it into an integer element (non-finite -> 0,
** fractions truncated toward zero). Narrower types keep the low bits. */
uint64_t wpt_number_wrap64(const wpt_number *n);

/* WPT's toHalf(): double -> float32 -> binary16, round to nearest with ties
** away from zero in magnitude, subnormals kept, below 2^-24 -> signed zero,
** overflow -> signed infinity. */
uint16_t wpt_half_from_double(double value);
double wpt_half_to_double(uint16_t half);

/* Which rule checks an element.
**   TOLERANCE   the case's metric only;
**   SAME_VALUE  Object.is per element first (cast_rounding; assert_array_equals
**               in scalars/inputs_with_special_names): -0 differs from +0;
**   BITS        raw bit patterns of the output type first (cast_storage).
** In every mode an expected NaN is matched by any NaN. */
typedef enum wpt_check {
    WPT_CHECK_TOLERANCE = 0,
    WPT_CHECK_SAME_VALUE = 1,
    WPT_CHECK_BITS = 2
} wpt_check;

typedef enum wpt_metric {
    WPT_METRIC_ULP = 0,
    WPT_METRIC_ATOL = 1
} wpt_metric;

typedef struct wpt_tolerance {
    wpt_metric metric;
    double value;
    wpt_check check;
} wpt_tolerance;

/* Parses a metricType name ("ULP", "ATOL"). */
bool wpt_metric_from_name(const char *name, wpt_metric *out);

/* The stricter check a toleranceNote names, WPT_CHECK_TOLERANCE if none. */
wpt_check wpt_check_from_note(const char *note);

/* The first element that failed. index is SIZE_MAX when the counts differ
** (got/expected then hold the counts). */
typedef struct wpt_mismatch {
    size_t index;
    char got[64];
    char expected[64];
    char allowed[96];
} wpt_mismatch;

/* Number of elements to compare: every element of an array, at most
** WPT_FILL_COMPARE_LIMIT of an output written with the fill rule. */
uint64_t wpt_compare_count(uint64_t element_count, bool fill);

/* Compares an output buffer (element_count elements of type, packed as the
** device stores them: two per byte for int4/uint4) with expected values.
** expected holds one value when fill is true, else element_count values
** (expected_count says how many it holds). Returns true when every compared
** element passes; otherwise fills *mismatch (may be NULL) with the first
** failure. */
bool wpt_compare_values(wnn_data_type type, const void *actual, uint64_t element_count,
                        const wpt_number *expected, size_t expected_count, bool fill,
                        const wpt_tolerance *tolerance, wpt_mismatch *mismatch);

/* Writes element index of a buffer of type as text: "1.5", "-0", "NaN",
** "-9007199254740993"; float16 adds its bits, e.g. "1 (0x3c00)". */
void wpt_format_element(wnn_data_type type, const void *data, uint64_t index, char *buf, size_t size);

/* Writes a wpt_number as text. */
void wpt_format_number(const wpt_number *n, char *buf, size_t size);

#endif /* WNN_TOOLS_WPT_COMPARE_H */
