/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-conformance-runner.c -- proves the WPT runner of tools/ judges
** correctly: the comparison rules one by one (float32 ULP and signed zeros,
** float16 raw distance, NaN, ATOL, the fill-rule cap, int64 strings, the
** stricter checks), and on a real case of add.json that a result off by more
** than the tolerance fails (what a wrong kernel would produce), while the
** unchanged case passes. Malformed cases must fail cleanly, not crash. An
** operator returns as many results as WebNN gives it (a split into 31).
**
** The tools' sources are linked in when the build defines
** WNN_TEST_TOOLS_LINKED, else compiled in directly (they have no main). The
** real-case part needs jansson (WNN_HAVE_JANSSON) and the vectors directory:
** argv[1], else $WNN_WPT_DIR, else the repository's data/wpt/conformance.
** Without them it reports why and exits 77 (skip) once the unit tests have
** passed.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef WNN_TEST_TOOLS_LINKED
/* The build links tools/wpt_*.c into this test: use them as they are. */
#include "wpt_compare.h"
#ifdef WNN_HAVE_JANSSON
#include "wpt_case.h"
#include "wpt_ops.h"
#endif
#else
/* Otherwise compile the runner in here. The full operator table cannot come
** along: wpt_ops.c names adapters in the topic files (wpt_ops_conv.c ...)
** whose private helpers share names, so they cannot share one translation
** unit. A two-row table below stands in for it; it is enough for add.json. */
#include "../tools/wpt_compare.c"
#ifdef WNN_HAVE_JANSSON
#include "../tools/wpt_json.c"
#include "../tools/wpt_case.c"
#include "../tools/wpt_case_data.c"
#include "../tools/wpt_case_graph.c"
#define WNN_TEST_OWN_OP_TABLE 1
#endif
#endif

static int passed, failed;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            passed++;                                                                \
        } else {                                                                     \
            failed++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#ifdef WNN_TEST_OWN_OP_TABLE
/* The stand-in operator table: add and abs, adapted as wpt_ops.c does. */
static wnn_operand *own_result;

static bool own_adapt(wpt_call *call)
{
    size_t want = call->entry->binary != NULL ? 2u : 1u;
    if (call->arg_count != want || call->args[0].operand == NULL ||
        (want == 2 && call->args[1].operand == NULL)) {
        snprintf(call->error, sizeof call->error, "%s: needs %zu operand arguments", call->op, want);
        return false;
    }
    own_result = want == 2 ? call->entry->binary(call->builder, call->args[0].operand, call->args[1].operand)
                           : call->entry->unary(call->builder, call->args[0].operand);
    call->results = &own_result;
    call->result_count = 1;
    return true;
}

static const wpt_op_entry own_table[] = {
    {"add", own_adapt, NULL, wnn_add},
    {"abs", own_adapt, wnn_abs, NULL},
};

const wpt_op_entry *wpt_op_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof own_table / sizeof own_table[0]; i++)
        if (strcmp(own_table[i].name, name) == 0)
            return &own_table[i];
    return NULL;
}

bool wpt_op_call(const wpt_op_entry *entry, wpt_call *call)
{
    call->entry = entry;
    return entry->adapter(call);
}

void wpt_call_free(wpt_call *call)
{
    call->results = NULL;
    call->result_count = 0;
}
#endif /* WNN_TEST_OWN_OP_TABLE */

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static wpt_tolerance tol(wpt_metric metric, double value, wpt_check check)
{
    wpt_tolerance t = {metric, value, check};
    return t;
}

static wpt_number num(double d)
{
    wpt_number n;
    wpt_number_from_double(d, &n);
    return n;
}

static bool f32_matches(float actual, double expected, wpt_tolerance t)
{
    wpt_number e = num(expected);
    return wpt_compare_values(WNN_DATA_TYPE_FLOAT32, &actual, 1, &e, 1, false, &t, NULL);
}

static bool f16_matches(uint16_t actual, double expected, wpt_tolerance t)
{
    wpt_number e = num(expected);
    return wpt_compare_values(WNN_DATA_TYPE_FLOAT16, &actual, 1, &e, 1, false, &t, NULL);
}

static float f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ------------------------------------------------------------------------ */
/* Unit tests of the rules                                                  */
/* ------------------------------------------------------------------------ */

static void test_float32_ulp(void)
{
    wpt_tolerance ulp0 = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp1 = tol(WPT_METRIC_ULP, 1, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp2 = tol(WPT_METRIC_ULP, 2, WPT_CHECK_TOLERANCE);
    float next = nextafterf(1.0f, 2.0f);
    CHECK(f32_matches(-0.0f, 0.0, ulp0));   /* +0 and -0 are both bits 0 */
    CHECK(f32_matches(0.0f, -0.0, ulp0));
    CHECK(f32_matches(1.0f, 1.0, ulp0));
    CHECK(!f32_matches(next, 1.0, ulp0));
    CHECK(f32_matches(next, 1.0, ulp1));
    CHECK(!f32_matches(nextafterf(next, 2.0f), 1.0, ulp1));
    /* A sign change costs both magnitudes: -denorm_min vs +denorm_min is 2. */
    float tiny = f32_from_bits(1);
    CHECK(!f32_matches(-tiny, (double)tiny, ulp1));
    CHECK(f32_matches(-tiny, (double)tiny, ulp2));
    /* The expected value is rounded to float32 before the distance. */
    CHECK(f32_matches(0.1f, 0.1, ulp0));
    wpt_mismatch m;
    wpt_number e = num(1.0);
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_FLOAT32, &next, 1, &e, 1, false, &ulp0, &m));
    CHECK(m.index == 0 && strstr(m.allowed, "distance 1") != NULL);
}

static void test_float16(void)
{
    wpt_tolerance ulp0 = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp1 = tol(WPT_METRIC_ULP, 1, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp100 = tol(WPT_METRIC_ULP, 100, WPT_CHECK_TOLERANCE);
    CHECK(f16_matches(0x3c00, 1.0, ulp0));
    CHECK(!f16_matches(0x3c01, 1.0, ulp0));
    CHECK(f16_matches(0x3c01, 1.0, ulp1));
    CHECK(f16_matches(0x8000, 0.0, ulp0)); /* -0 and +0 distance 0 */
    CHECK(f16_matches(0x0000, -0.0, ulp0));
    /* Raw uint16 distance, not sign-adjusted: -2^-24 vs +2^-24 is 0x8000 apart. */
    CHECK(!f16_matches(0x8001, ldexp(1, -24), ulp100));
    /* toHalf: ties round away from zero in magnitude, not to even. */
    CHECK(wpt_half_from_double(1.00048828125) == 0x3c01);
    CHECK(wpt_half_from_double(-1.00048828125) == 0xbc01);
    CHECK(wpt_half_from_double(1.0004) == 0x3c00);
    CHECK(wpt_half_from_double(65504) == 0x7bff);
    CHECK(wpt_half_from_double(65519) == 0x7bff);
    CHECK(wpt_half_from_double(65520) == 0x7c00);
    CHECK(wpt_half_from_double(1e6) == 0x7c00);
    CHECK(wpt_half_from_double(-INFINITY) == 0xfc00);
    CHECK(wpt_half_from_double(ldexp(1, -24)) == 0x0001);       /* smallest subnormal kept */
    CHECK(wpt_half_from_double(ldexp(1.5, -24)) == 0x0002);     /* subnormal tie goes up */
    CHECK(wpt_half_from_double(ldexp(1, -25)) == 0x0000);       /* below 2^-24: zero */
    CHECK(wpt_half_from_double(-ldexp(1, -26)) == 0x8000);      /* signed zero */
    CHECK(wpt_half_from_double(6.103515625e-05) == 0x0400);     /* smallest normal */
    CHECK((wpt_half_from_double(NAN) & 0x7c00) == 0x7c00 && (wpt_half_from_double(NAN) & 0x3ff) != 0);
    /* float64 -> float32 -> float16: the double rounding of WPT. */
    CHECK(wpt_half_from_double(-2.402) == 0xc0ce);
    CHECK(wpt_half_to_double(0x3c00) == 1.0);
    CHECK(wpt_half_to_double(0x0001) == ldexp(1, -24));
    CHECK(wpt_half_to_double(0xfbff) == -65504.0);
    CHECK(isnan(wpt_half_to_double(0x7e00)));
}

static void test_nan(void)
{
    wpt_tolerance ulp0 = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp_big = tol(WPT_METRIC_ULP, 1e9, WPT_CHECK_TOLERANCE);
    wpt_tolerance atol = tol(WPT_METRIC_ATOL, 1, WPT_CHECK_TOLERANCE);
    wpt_number e;
    CHECK(wpt_number_from_text("NaN", 3, &e) && isnan(e.d));
    /* Any NaN matches an expected NaN, payload and sign aside. */
    float payload_nan = f32_from_bits(0xffc00123u);
    CHECK(wpt_compare_values(WNN_DATA_TYPE_FLOAT32, &payload_nan, 1, &e, 1, false, &ulp0, NULL));
    uint16_t h = 0xfe01;
    CHECK(wpt_compare_values(WNN_DATA_TYPE_FLOAT16, &h, 1, &e, 1, false, &ulp0, NULL));
    CHECK(wpt_compare_values(WNN_DATA_TYPE_FLOAT32, &payload_nan, 1, &e, 1, false, &atol, NULL));
    float one = 1.0f;
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_FLOAT32, &one, 1, &e, 1, false, &ulp_big, NULL));
    /* A NaN where a number is expected fails, however wide the tolerance. */
    float qnan = NAN;
    CHECK(!f32_matches(qnan, 1.0, tol(WPT_METRIC_ULP, 1000, WPT_CHECK_TOLERANCE)));
    CHECK(!f32_matches(qnan, 1.0, atol));
    /* An expected NaN never matches an integer output. */
    int32_t i = 0;
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_INT32, &i, 1, &e, 1, false, &ulp_big, NULL));
}

static void test_atol(void)
{
    CHECK(f32_matches(1.0f, 1.0009, tol(WPT_METRIC_ATOL, 0.001, WPT_CHECK_TOLERANCE)));
    CHECK(!f32_matches(1.0f, 1.0009, tol(WPT_METRIC_ATOL, 0.0005, WPT_CHECK_TOLERANCE)));
    /* float16 actuals are decoded to numbers: 0x3c01 is 1.0009765625. */
    CHECK(f16_matches(0x3c01, 1.0, tol(WPT_METRIC_ATOL, 1.0 / 1024, WPT_CHECK_TOLERANCE)));
    CHECK(!f16_matches(0x3c01, 1.0, tol(WPT_METRIC_ATOL, 0.0009, WPT_CHECK_TOLERANCE)));
    /* ATOL compares with the unrounded expected value. */
    CHECK(!f32_matches(0.1f, 0.1, tol(WPT_METRIC_ATOL, 1e-12, WPT_CHECK_TOLERANCE)));
}

static void test_fill_cap(void)
{
    enum { N = 2000 };
    static float out[N];
    static wpt_number values[N];
    wpt_tolerance ulp0 = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    wpt_number five = num(5.0);
    wpt_mismatch m;
    for (int i = 0; i < N; i++) {
        out[i] = 5.0f;
        values[i] = five;
    }
    CHECK(wpt_compare_count(N, true) == WPT_FILL_COMPARE_LIMIT);
    CHECK(wpt_compare_count(N, false) == N);
    out[1500] = 6.0f;
    /* A fill-rule expectation checks the first 1000 elements only ... */
    CHECK(wpt_compare_values(WNN_DATA_TYPE_FLOAT32, out, N, &five, 1, true, &ulp0, NULL));
    /* ... an array expectation checks all of them. */
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_FLOAT32, out, N, values, N, false, &ulp0, &m));
    CHECK(m.index == 1500);
    out[999] = 6.0f;
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_FLOAT32, out, N, &five, 1, true, &ulp0, &m));
    CHECK(m.index == 999);
    /* Counts that differ are a failure, not an overrun. */
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_FLOAT32, out, N, values, 10, false, &ulp0, &m));
    CHECK(m.index == SIZE_MAX);
}

static void test_integers(void)
{
    wpt_tolerance ulp0 = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp1 = tol(WPT_METRIC_ULP, 1, WPT_CHECK_TOLERANCE);
    wpt_tolerance ulp5 = tol(WPT_METRIC_ULP, 5, WPT_CHECK_TOLERANCE);
    wpt_number e;
    /* 2^53 + 1: a double cannot tell it from 2^53, the int64 rule must. */
    CHECK(wpt_number_from_text("9007199254740993n", 17, &e) && e.exact && e.mag == 9007199254740993ull);
    int64_t a = 9007199254740993LL;
    CHECK(wpt_compare_values(WNN_DATA_TYPE_INT64, &a, 1, &e, 1, false, &ulp0, NULL));
    a = 9007199254740992LL;
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_INT64, &a, 1, &e, 1, false, &ulp0, NULL));
    CHECK(wpt_compare_values(WNN_DATA_TYPE_INT64, &a, 1, &e, 1, false, &ulp1, NULL));
    CHECK(wpt_number_from_text("-9223372036854775808n", 21, &e) && e.neg && e.mag == 9223372036854775808ull);
    a = INT64_MIN;
    CHECK(wpt_compare_values(WNN_DATA_TYPE_INT64, &a, 1, &e, 1, false, &ulp0, NULL));
    CHECK(wpt_number_wrap64(&e) == 0x8000000000000000ull);
    /* Plain digit strings (cast.json) and uint64's top value. */
    CHECK(wpt_number_from_text("45", 2, &e) && e.exact && e.mag == 45 && !e.neg);
    CHECK(wpt_number_from_text("18446744073709551615", 20, &e) && e.mag == UINT64_MAX);
    uint64_t u = UINT64_MAX;
    CHECK(wpt_compare_values(WNN_DATA_TYPE_UINT64, &u, 1, &e, 1, false, &ulp0, NULL));
    /* 2^64 is still a number, only no longer an exact 64-bit integer. */
    CHECK(wpt_number_from_text("18446744073709551616", 20, &e) && !e.exact);
    CHECK(!wpt_number_from_text("12x", 3, &e));
    CHECK(!wpt_number_from_text("", 0, &e));
    CHECK(wpt_number_from_text("-Infinity", 9, &e) && isinf(e.d) && e.d < 0);
    CHECK(wpt_number_from_text("1.5e3", 5, &e) && e.d == 1500 && e.exact);
    /* int8 distance is |a - e|. */
    int8_t i8 = -3;
    e = num(2);
    wpt_tolerance ulp4 = tol(WPT_METRIC_ULP, 4, WPT_CHECK_TOLERANCE);
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_INT8, &i8, 1, &e, 1, false, &ulp4, NULL));
    CHECK(wpt_compare_values(WNN_DATA_TYPE_INT8, &i8, 1, &e, 1, false, &ulp5, NULL));
    /* int4: two per byte, low nibble first, sign-extended; 16 for uint4 is one away from 15. */
    uint8_t packed = 0xf7;
    wpt_number pair[2] = {num(7), num(-1)};
    CHECK(wpt_compare_values(WNN_DATA_TYPE_INT4, &packed, 2, pair, 2, false, &ulp0, NULL));
    packed = 0x0f;
    wpt_number sixteen[2] = {num(16), num(0)};
    CHECK(!wpt_compare_values(WNN_DATA_TYPE_UINT4, &packed, 2, sixteen, 2, false, &ulp0, NULL));
    CHECK(wpt_compare_values(WNN_DATA_TYPE_UINT4, &packed, 2, sixteen, 2, false, &ulp1, NULL));
    /* Typed-array stores wrap modulo 2^N and truncate. */
    e = num(-1);
    CHECK(wpt_number_wrap64(&e) == UINT64_MAX);
    e = num(1.7);
    CHECK(wpt_number_wrap64(&e) == 1);
    e = num(NAN);
    CHECK(wpt_number_wrap64(&e) == 0);
    e = num(-2.5);
    CHECK((int8_t)wpt_number_wrap64(&e) == -2);
}

static void test_strict_checks(void)
{
    wpt_tolerance same = tol(WPT_METRIC_ULP, 0, WPT_CHECK_SAME_VALUE);
    wpt_tolerance bits = tol(WPT_METRIC_ULP, 0, WPT_CHECK_BITS);
    wpt_tolerance plain = tol(WPT_METRIC_ULP, 0, WPT_CHECK_TOLERANCE);
    CHECK(f32_matches(-0.0f, 0.0, plain));
    CHECK(!f32_matches(-0.0f, 0.0, same)); /* Object.is(-0, 0) is false */
    CHECK(f32_matches(-0.0f, -0.0, same));
    CHECK(!f16_matches(0x8000, 0.0, bits));
    CHECK(f16_matches(0x8000, -0.0, bits));
    CHECK(f16_matches(0x7e00, NAN, bits));
    CHECK(f16_matches(0xfd00, NAN, same));
    CHECK(wpt_check_from_note("ULP 0 ... first requires Object.is equality per element") == WPT_CHECK_SAME_VALUE);
    CHECK(wpt_check_from_note("BIT-EXACT in WPT: compare output bit patterns") == WPT_CHECK_BITS);
    CHECK(wpt_check_from_note("The WPT file compares with assert_array_equals (exact)") == WPT_CHECK_SAME_VALUE);
    CHECK(wpt_check_from_note("tolerance from WPT per-op value (ULP 0)") == WPT_CHECK_TOLERANCE);
    CHECK(wpt_check_from_note(NULL) == WPT_CHECK_TOLERANCE);
}

/* ------------------------------------------------------------------------ */
/* A real case                                                              */
/* ------------------------------------------------------------------------ */

#ifdef WNN_HAVE_JANSSON

/* Moves the first expected value of the first expected output well past any
** tolerance, as a wrong kernel would. Returns false if the case has no
** number to move. */
static bool perturb_first_expected(json_t *tc)
{
    json_t *outs = json_object_get(json_object_get(tc, "graph"), "expectedOutputs");
    void *it = json_object_iter(outs);
    json_t *out = it ? json_object_iter_value(it) : NULL;
    json_t *data = json_object_get(out, "data");
    json_t *target = json_is_array(data) ? json_array_get(data, 0) : data;
    if (!json_is_number(target))
        return false;
    double v = json_number_value(target);
    json_t *moved = json_real(v + fabs(v) + 1.0);
    if (json_is_array(data))
        return json_array_set_new(data, 0, moved) == 0;
    return json_object_set_new(out, "data", moved) == 0;
}

static json_t *parse(const char *text)
{
    json_error_t e;
    json_t *j = json_loads(text, JSON_ALLOW_NUL, &e);
    if (j == NULL)
        fprintf(stderr, "test JSON does not parse: %s\n", e.text);
    return j;
}

/* Cases that must end as a clean failure or skip with a reason. */
static void test_malformed(wnn_context *ctx)
{
    static const struct {
        const char *json;
        wpt_outcome outcome;
        const char *reason_part;
    } cases[] = {
        {"{\"name\": \"no graph\"}", WPT_FAIL, "graph"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {}, \"operators\": [], \"expectedOutputs\": {}}}", WPT_FAIL,
         "operators"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {\"a\": {\"data\": [1], \"descriptor\": {\"shape\": [1], "
         "\"dataType\": \"float32\"}}}, \"operators\": [{\"name\": \"fooBar\", \"arguments\": [{\"input\": "
         "\"a\"}], \"outputs\": \"o\"}], \"expectedOutputs\": {\"o\": {\"data\": [1], \"descriptor\": "
         "{\"shape\": [1], \"dataType\": \"float32\"}}}}, \"tolerance\": {\"metricType\": \"ULP\", \"value\": 0}}",
         WPT_FAIL, "operator fooBar not implemented"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {\"a\": {\"data\": [1, 2], \"descriptor\": {\"shape\": [3], "
         "\"dataType\": \"float32\"}}}, \"operators\": [{\"name\": \"abs\", \"arguments\": [{\"input\": "
         "\"a\"}], \"outputs\": \"o\"}], \"expectedOutputs\": {\"o\": {\"data\": [1, 2, 3], \"descriptor\": "
         "{\"shape\": [3], \"dataType\": \"float32\"}}}}, \"tolerance\": {\"metricType\": \"ULP\", \"value\": 0}}",
         WPT_FAIL, "has 2 values"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {\"a\": {\"data\": [1], \"descriptor\": {\"shape\": [1], "
         "\"dataType\": \"float99\"}}}, \"operators\": [{\"name\": \"abs\", \"arguments\": [{\"input\": "
         "\"a\"}], \"outputs\": \"o\"}], \"expectedOutputs\": {\"o\": {\"data\": [1], \"descriptor\": "
         "{\"shape\": [1], \"dataType\": \"float32\"}}}}, \"tolerance\": {\"metricType\": \"ULP\", \"value\": 0}}",
         WPT_FAIL, "float99"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {\"a\": {\"data\": [1], \"descriptor\": {\"shape\": [1], "
         "\"dataType\": \"float32\"}}}, \"operators\": [{\"name\": \"abs\", \"arguments\": [{\"input\": "
         "\"a\"}], \"outputs\": \"o\"}], \"expectedOutputs\": {\"o\": {\"data\": [1], \"descriptor\": "
         "{\"shape\": [1], \"dataType\": \"float32\"}}}}}",
         WPT_FAIL, "tolerance"},
        {"{\"name\": \"x\", \"graph\": {\"inputs\": {\"a\": {\"data\": [1, 2], \"shape\": [2], \"descriptor\": "
         "{\"shape\": [{\"name\": \"b\", \"maxSize\": 4}], \"dataType\": \"float32\"}}}, \"operators\": "
         "[{\"name\": \"abs\", \"arguments\": [{\"input\": \"a\"}], \"outputs\": \"o\"}], \"expectedOutputs\": "
         "{\"o\": {\"data\": [1, 2], \"descriptor\": {\"shape\": [2], \"dataType\": \"float32\"}}}}, "
         "\"tolerance\": {\"metricType\": \"ULP\", \"value\": 0}}",
         WPT_SKIP, "dynamic dimensions not supported"},
        {"{\"name\": \"x\", \"knownIssue\": \"bad data\", \"graph\": {\"inputs\": {}, \"operators\": "
         "[{\"name\": \"fooBar\", \"arguments\": [], \"outputs\": \"o\"}], \"expectedOutputs\": {}}, "
         "\"tolerance\": {\"metricType\": \"ULP\", \"value\": 0}}",
         WPT_SKIP, "known issue: bad data"},
        {"[1, 2, 3]", WPT_FAIL, "name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *tc = parse(cases[i].json);
        CHECK(tc != NULL);
        if (tc == NULL)
            continue;
        wpt_result r;
        wpt_case_run(ctx, tc, NULL, &r);
        bool ok = r.outcome == cases[i].outcome && strstr(r.reason, cases[i].reason_part) != NULL;
        if (!ok)
            fprintf(stderr, "malformed case %zu: got %s \"%s\", want %s with \"%s\"\n", i,
                    wpt_outcome_name(r.outcome), r.reason, wpt_outcome_name(cases[i].outcome),
                    cases[i].reason_part);
        CHECK(ok);
        wpt_result_free(&r);
        json_decref(tc);
    }
}

#ifndef WNN_TEST_OWN_OP_TABLE
/* A split of x = [0, 1, ..., length - 1] (float32) into count pieces, given
** as the count or, with as_sizes, as a list of count sizes of 1; the case
** names `named` outputs piece0, piece1 ..., piece i expecting [i]. */
static json_t *split_case(size_t length, json_int_t count, size_t named, bool as_sizes)
{
    json_t *data = json_array(), *names = json_array(), *expected = json_object();
    json_t *splits = as_sizes ? json_array() : json_integer(count);
    for (size_t i = 0; i < length; i++)
        json_array_append_new(data, json_integer((json_int_t)i));
    for (json_int_t i = 0; as_sizes && i < count; i++)
        json_array_append_new(splits, json_integer(1));
    for (size_t i = 0; i < named; i++) {
        char name[32];
        snprintf(name, sizeof name, "piece%zu", i);
        json_array_append_new(names, json_string(name));
        json_object_set_new(expected, name, json_pack("{s:[I], s:{s:[i], s:s}}", "data", (json_int_t)i,
                                                      "descriptor", "shape", 1, "dataType", "float32"));
    }
    return json_pack("{s:s, s:{s:{s:{s:o, s:{s:[I], s:s}}}, s:[{s:s, s:[{s:s}, {s:o}], s:o}], s:o}, "
                     "s:{s:s, s:i}}",
                     "name", "split into many", "graph", "inputs", "x", "data", data, "descriptor", "shape",
                     (json_int_t)length, "dataType", "float32", "operators", "name", "split", "arguments",
                     "input", "x", "splits", splits, "outputs", names, "expectedOutputs", expected,
                     "tolerance", "metricType", "ULP", "value", 0);
}

/* Runs a split case; true when it ends as `outcome` with reason_part in its
** reason. */
static bool split_ends(wnn_context *ctx, json_t *tc, wpt_outcome outcome, const char *reason_part)
{
    if (tc == NULL)
        return false;
    wpt_result r;
    wpt_case_run(ctx, tc, NULL, &r);
    bool ok = r.outcome == outcome && strstr(r.reason, reason_part) != NULL;
    if (!ok)
        fprintf(stderr, "split case: got %s \"%s\", want %s with \"%s\"\n", wpt_outcome_name(r.outcome), r.reason,
                wpt_outcome_name(outcome), reason_part);
    wpt_result_free(&r);
    json_decref(tc);
    return ok;
}

/* The runner takes as many results as the operator returns: WebNN sets no
** bound on split's count, so neither does the runner. A count over the
** outputs the case names fails before anything is sized from it. */
static void test_many_outputs(void)
{
    wnn_context *ctx = NULL;
    wnn_status st = wnn_context_create(NULL, &ctx);
    CHECK(st == WNN_OK);
    if (st != WNN_OK)
        return;
    CHECK(split_ends(ctx, split_case(31, 31, 31, false), WPT_PASS, ""));
    CHECK(split_ends(ctx, split_case(31, 31, 31, true), WPT_PASS, ""));
    CHECK(split_ends(ctx, split_case(200, 200, 200, false), WPT_PASS, ""));
    CHECK(split_ends(ctx, split_case(31, 31, 30, false), WPT_FAIL, "returns 31 results, the case names 30"));
    CHECK(split_ends(ctx, split_case(31, 31, 32, false), WPT_FAIL, "the case names 32 outputs"));
    CHECK(split_ends(ctx, split_case(2, 4294967295, 1, false), WPT_FAIL,
                     "returns 4294967295 results, the case names 1"));
    /* The builder's refusal (31 does not divide 32) is reported as its own. */
    CHECK(split_ends(ctx, split_case(32, 31, 31, false), WPT_FAIL, "split"));
    wnn_context_release(ctx);
}
#endif /* !WNN_TEST_OWN_OP_TABLE */

/* Returns false (skip) when the case cannot be run here. */
static bool test_real_case(const char *dir)
{
    char path[4200], err[600];
    snprintf(path, sizeof path, "%.4096s/add.json", dir);
    json_t *root = wpt_load_file(path, err, sizeof err);
    if (root == NULL) {
        printf("skip: cannot load a real case: %s\n", err);
        return false;
    }
    wnn_context *ctx = NULL;
    wnn_status st = wnn_context_create(NULL, &ctx);
    CHECK(st == WNN_OK);
    if (st != WNN_OK) {
        json_decref(root);
        return true;
    }
    json_t *tc = json_array_get(json_object_get(root, "tests"), 0);
    CHECK(tc != NULL);

    wpt_result r;
    wpt_case_run(ctx, tc, NULL, &r);
    if (r.outcome != WPT_PASS)
        fprintf(stderr, "add.json case 0 did not pass: %s\n", r.reason);
    CHECK(r.outcome == WPT_PASS);
    wpt_result_free(&r);

    /* The same case with one expected value off by more than the tolerance:
    ** exactly what a wrong kernel looks like to the runner. */
    json_t *bad = json_deep_copy(tc);
    CHECK(bad != NULL && perturb_first_expected(bad));
    wpt_case_run(ctx, bad, NULL, &r);
    CHECK(r.outcome == WPT_FAIL);
    CHECK(r.has_mismatch && r.mismatch.index == 0);
    printf("perturbed case: %s %s\n", wpt_outcome_name(r.outcome), r.reason);
    wpt_result_free(&r);
    json_decref(bad);

    /* Repeats judge every run and keep the outputs for printing. */
    wpt_run_options o = WPT_RUN_OPTIONS_INIT;
    o.repeat = 3;
    o.keep_outputs = true;
    wpt_case_run(ctx, tc, &o, &r);
    CHECK(r.outcome == WPT_PASS && r.runs == 3 && r.output_count == 1 && r.outputs[0].verdict == 1);
    wpt_result_free(&r);

    test_malformed(ctx);
    wnn_context_release(ctx);
    json_decref(root);
    return true;
}

#endif /* WNN_HAVE_JANSSON */

/* argv[1], $WNN_WPT_DIR, or data/wpt/conformance of the source tree. */
static const char *wpt_dir(int argc, char **argv, char *buf, size_t size)
{
    if (argc > 1)
        return argv[1];
    const char *env = getenv("WNN_WPT_DIR");
    if (env != NULL && env[0] != '\0')
        return env;
    /* __FILE__ is <source>/tests/test-conformance-runner.c in CMake builds. */
    const char *file = __FILE__;
    const char *cut = strstr(file, "tests/test-conformance-runner.c");
    int prefix = cut ? (int)(cut - file) : 0;
    snprintf(buf, size, "%.*sdata/wpt/conformance", prefix, file);
    return buf;
}

int main(int argc, char **argv)
{
    test_float32_ulp();
    test_float16();
    test_nan();
    test_atol();
    test_fill_cap();
    test_integers();
    test_strict_checks();
#if defined(WNN_HAVE_JANSSON) && !defined(WNN_TEST_OWN_OP_TABLE)
    test_many_outputs();
#endif

    bool skipped = false;
    char buf[4096];
    const char *dir = wpt_dir(argc, argv, buf, sizeof buf);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        printf("skip: the WPT vectors directory '%s' is missing (pass it as argv[1] or WNN_WPT_DIR)\n", dir);
        skipped = true;
    } else {
#ifdef WNN_HAVE_JANSSON
        skipped = !test_real_case(dir);
#else
        printf("skip: built without jansson (WNN_HAVE_JANSSON), so no real case can be loaded\n");
        skipped = true;
#endif
    }
    printf("%d passed, %d failed\n", passed, failed);
    if (failed > 0)
        return 1;
    return skipped ? 77 : 0;
}
