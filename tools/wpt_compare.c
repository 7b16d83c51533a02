/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_compare.c -- WPT's value handling and comparison rules, as written in
** data/wpt/FORMAT.md ("Tolerance and comparison") and WPT's utils.js.
**
** Owns: expected values (wpt_number), toHalf() and float16 decoding, reading
** output elements of every data type, and the per-element pass rule. Each
** rule is a small function so that the README's bullets can be checked one
** by one against this file.
*/
#include "wpt_compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TWO_POW_64 18446744073709551616.0

/* ------------------------------------------------------------------------ */
/* Numbers                                                                  */
/* ------------------------------------------------------------------------ */

void wpt_number_from_double(double d, wpt_number *out)
{
    out->d = d;
    out->neg = d < 0;
    /* Integral values inside the 64-bit range keep an exact integer so that
    ** integer outputs compare as integers. */
    out->exact = isfinite(d) && trunc(d) == d && fabs(d) < TWO_POW_64;
    out->mag = out->exact ? (uint64_t)fabs(d) : 0;
}

void wpt_number_from_int64(int64_t v, wpt_number *out)
{
    out->d = (double)v;
    out->exact = true;
    out->neg = v < 0;
    /* -(v + 1) + 1 avoids overflowing on INT64_MIN. */
    out->mag = v < 0 ? (uint64_t)(-(v + 1)) + 1u : (uint64_t)v;
}

/* Digits with an optional sign and BigInt suffix; false if text is not that
** form or does not fit 64 bits of magnitude. */
static bool parse_integer_text(const char *text, size_t len, wpt_number *out)
{
    size_t i = 0;
    bool neg = false;
    if (i < len && (text[i] == '-' || text[i] == '+')) {
        neg = text[i] == '-';
        i++;
    }
    if (len > 0 && text[len - 1] == 'n')
        len--;
    if (i >= len)
        return false;
    uint64_t mag = 0;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        unsigned digit = (unsigned)(text[i] - '0');
        if (mag > (UINT64_MAX - digit) / 10u)
            return false;
        mag = mag * 10u + digit;
    }
    out->exact = true;
    out->neg = neg && mag != 0;
    out->mag = mag;
    out->d = neg ? -(double)mag : (double)mag;
    return true;
}

bool wpt_number_from_text(const char *text, size_t len, wpt_number *out)
{
    static const struct {
        const char *name;
        double value;
    } specials[] = {
        {"NaN", NAN}, {"Infinity", INFINITY}, {"+Infinity", INFINITY}, {"-Infinity", -INFINITY},
    };
    if (text == NULL || len == 0)
        return false;
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        if (strlen(specials[i].name) == len && memcmp(specials[i].name, text, len) == 0) {
            wpt_number_from_double(specials[i].value, out);
            return true;
        }
    }
    if (parse_integer_text(text, len, out))
        return true;
    /* Any other complete decimal number; strtod needs a terminated copy. */
    char buf[128];
    if (len >= sizeof buf || memchr(text, '\0', len) != NULL)
        return false;
    memcpy(buf, text, len);
    buf[len] = '\0';
    char *end = NULL;
    double d = strtod(buf, &end);
    if (end != buf + len || buf[0] == ' ' || buf[0] == '\t')
        return false;
    wpt_number_from_double(d, out);
    return true;
}

uint64_t wpt_number_wrap64(const wpt_number *n)
{
    if (n->exact)
        return n->neg ? (uint64_t)0 - n->mag : n->mag;
    if (!isfinite(n->d))
        return 0;
    /* fmod is exact and |m| < 2^64; a negative m is negated in integers,
    ** because 2^64 + m would round in double. */
    double m = fmod(trunc(n->d), TWO_POW_64);
    if (m < 0)
        return (uint64_t)0 - (uint64_t)(-m);
    return (uint64_t)m;
}

/* ------------------------------------------------------------------------ */
/* float16                                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

uint16_t wpt_half_from_double(double value)
{
    /* WPT stores the number into a Float32Array first: two roundings. */
    uint32_t x = float_bits((float)value);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;

    if (exp == 0xffu)
        /* A quiet NaN (what Float16Array stores); infinities keep their sign. */
        return mant != 0 ? (uint16_t)0x7e00u : (uint16_t)(sign | 0x7c00u);
    if (exp < 103u)
        /* Below 2^-24 WPT returns signed zero, even for [2^-25, 2^-24). */
        return sign;
    if (exp > 142u)
        /* 2^16 and above: infinity. */
        return (uint16_t)(sign | 0x7c00u);
    if (exp < 113u) {
        /* A half subnormal: k * 2^-24 with k = sig * 2^(exp - 126). Adding
        ** the first dropped bit rounds halves away from zero. */
        uint32_t sig = mant | 0x800000u;
        uint32_t shift = 126u - exp;
        uint32_t k = (sig >> shift) + ((sig >> (shift - 1u)) & 1u);
        return (uint16_t)(sign | k);
    }
    /* A normal half; a carry out of the mantissa bumps the exponent, and out
    ** of the largest exponent gives infinity, both as IEEE wants. */
    uint32_t h = ((exp - 112u) << 10) | (mant >> 13);
    h += (mant >> 12) & 1u;
    return (uint16_t)(sign | h);
}

double wpt_half_to_double(uint16_t half)
{
    int sign = (half & 0x8000u) ? -1 : 1;
    unsigned exp = (half >> 10) & 0x1fu;
    unsigned mant = half & 0x3ffu;
    if (exp == 0)
        return sign * ldexp((double)mant, -24);
    if (exp == 31)
        return mant ? NAN : sign * INFINITY;
    return sign * ldexp((double)(mant | 0x400u), (int)exp - 25);
}

/* ------------------------------------------------------------------------ */
/* Output elements                                                          */
/* ------------------------------------------------------------------------ */

/* One element of an output buffer: its number, its raw bits (float types) and
** its exact integer (integer types). */
typedef struct element {
    double d;
    uint32_t bits;
    bool exact;
    bool neg;
    uint64_t mag;
} element;

static bool is_float_type(wnn_data_type t)
{
    return t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16;
}

static void element_from_signed(int64_t v, element *e)
{
    wpt_number n;
    wpt_number_from_int64(v, &n);
    e->d = n.d;
    e->exact = true;
    e->neg = n.neg;
    e->mag = n.mag;
}

static void element_from_unsigned(uint64_t v, element *e)
{
    e->d = (double)v;
    e->exact = true;
    e->neg = false;
    e->mag = v;
}

static void read_element(wnn_data_type type, const void *data, uint64_t i, element *e)
{
    const uint8_t *p = data;
    memset(e, 0, sizeof *e);
    switch (type) {
    case WNN_DATA_TYPE_FLOAT32: {
        float f;
        memcpy(&f, p + i * 4u, 4);
        e->d = f;
        e->bits = float_bits(f);
        break;
    }
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h;
        memcpy(&h, p + i * 2u, 2);
        e->d = wpt_half_to_double(h);
        e->bits = h;
        break;
    }
    case WNN_DATA_TYPE_INT32: {
        int32_t v;
        memcpy(&v, p + i * 4u, 4);
        element_from_signed(v, e);
        break;
    }
    case WNN_DATA_TYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p + i * 4u, 4);
        element_from_unsigned(v, e);
        break;
    }
    case WNN_DATA_TYPE_INT64: {
        int64_t v;
        memcpy(&v, p + i * 8u, 8);
        element_from_signed(v, e);
        break;
    }
    case WNN_DATA_TYPE_UINT64: {
        uint64_t v;
        memcpy(&v, p + i * 8u, 8);
        element_from_unsigned(v, e);
        break;
    }
    case WNN_DATA_TYPE_INT8:
        element_from_signed((int8_t)p[i], e);
        break;
    case WNN_DATA_TYPE_UINT8:
        element_from_unsigned(p[i], e);
        break;
    case WNN_DATA_TYPE_INT4:
    case WNN_DATA_TYPE_UINT4: {
        /* Two per byte, element 2k in the low nibble. */
        unsigned nib = (i % 2u == 0) ? (p[i / 2u] & 0x0fu) : (p[i / 2u] >> 4);
        if (type == WNN_DATA_TYPE_INT4)
            element_from_signed((nib & 0x8u) ? (int64_t)nib - 16 : (int64_t)nib, e);
        else
            element_from_unsigned(nib, e);
        break;
    }
    default:
        e->d = NAN;
        break;
    }
}

/* ------------------------------------------------------------------------ */
/* Rules                                                                    */
/* ------------------------------------------------------------------------ */

bool wpt_metric_from_name(const char *name, wpt_metric *out)
{
    if (name != NULL && strcmp(name, "ULP") == 0) {
        *out = WPT_METRIC_ULP;
        return true;
    }
    if (name != NULL && strcmp(name, "ATOL") == 0) {
        *out = WPT_METRIC_ATOL;
        return true;
    }
    return false;
}

wpt_check wpt_check_from_note(const char *note)
{
    /* The phrases the vectors' toleranceNote fields use for a stricter check. */
    static const struct {
        const char *phrase;
        wpt_check check;
    } phrases[] = {
        {"BIT-EXACT", WPT_CHECK_BITS},
        {"Object.is", WPT_CHECK_SAME_VALUE},
        {"assert_array_equals", WPT_CHECK_SAME_VALUE},
    };
    if (note == NULL)
        return WPT_CHECK_TOLERANCE;
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++)
        if (strstr(note, phrases[i].phrase) != NULL)
            return phrases[i].check;
    return WPT_CHECK_TOLERANCE;
}

uint64_t wpt_compare_count(uint64_t element_count, bool fill)
{
    if (fill && element_count > WPT_FILL_COMPARE_LIMIT)
        return WPT_FILL_COMPARE_LIMIT;
    return element_count;
}

/* |a - e| of two exact integers, saturating at UINT64_MAX. */
static uint64_t integer_distance(bool a_neg, uint64_t a_mag, bool e_neg, uint64_t e_mag)
{
    if (a_neg == e_neg)
        return a_mag > e_mag ? a_mag - e_mag : e_mag - a_mag;
    return a_mag > UINT64_MAX - e_mag ? UINT64_MAX : a_mag + e_mag;
}

/* The sign-magnitude ordering WPT's float32 ULP uses: the bits of |x|,
** negated for x < 0, so +0 and -0 are both 0. NaN reads as the canonical
** 0x7FC00000 a Float32Array stores. */
static int64_t float32_ordered(float x)
{
    if (isnan(x))
        return 0x7fc00000;
    int64_t b = (int64_t)float_bits(fabsf(x));
    return x < 0 ? -b : b;
}

static double ulp_float32(const element *a, const wpt_number *e)
{
    float af;
    uint32_t bits = a->bits;
    memcpy(&af, &bits, sizeof af);
    int64_t d = float32_ordered(af) - float32_ordered((float)e->d);
    return (double)(d < 0 ? -d : d);
}

static double ulp_float16(const element *a, const wpt_number *e)
{
    uint32_t A = a->bits, B = wpt_half_from_double(e->d);
    if ((A & 0x7fffu) == 0 && (B & 0x7fffu) == 0)
        return 0;
    /* Raw uint16 distance, not sign-adjusted: WPT's rule. */
    return A > B ? (double)(A - B) : (double)(B - A);
}

static double ulp_integer(const element *a, const wpt_number *e)
{
    if (e->exact)
        return (double)integer_distance(a->neg, a->mag, e->neg, e->mag);
    return fabs(a->d - e->d);
}

/* Object.is(actual, expected). */
static bool same_value(wnn_data_type type, const element *a, const wpt_number *e)
{
    if (!is_float_type(type))
        return e->exact && a->neg == e->neg && a->mag == e->mag;
    if (isnan(e->d))
        return isnan(a->d);
    return a->d == e->d && signbit(a->d) == signbit(e->d);
}

/* The output's raw bits equal the expected value stored in the output type. */
static bool same_bits(wnn_data_type type, const element *a, const wpt_number *e)
{
    if (type == WNN_DATA_TYPE_FLOAT32)
        return isnan(e->d) ? isnan(a->d) : a->bits == float_bits((float)e->d);
    if (type == WNN_DATA_TYPE_FLOAT16)
        return isnan(e->d) ? isnan(a->d) : a->bits == wpt_half_from_double(e->d);
    return same_value(type, a, e);
}

/* JavaScript's actual === expected. */
static bool strictly_equal(wnn_data_type type, const element *a, const wpt_number *e)
{
    if (!is_float_type(type) && e->exact)
        return a->neg == e->neg && a->mag == e->mag;
    return a->d == e->d;
}

/* Whether one element passes; *distance gets the metric's distance. */
static bool element_passes(wnn_data_type type, const element *a, const wpt_number *e,
                           const wpt_tolerance *tol, double *distance)
{
    *distance = 0;
    if (isnan(e->d) && !e->exact)
        /* An expected NaN is matched by any NaN, whatever its payload. */
        return is_float_type(type) && isnan(a->d);
    if (tol->check == WPT_CHECK_SAME_VALUE && !same_value(type, a, e))
        return false;
    if (tol->check == WPT_CHECK_BITS && !same_bits(type, a, e))
        return false;
    if (strictly_equal(type, a, e))
        return true;
    if (tol->metric == WPT_METRIC_ATOL) {
        if (!is_float_type(type) && e->exact)
            *distance = (double)integer_distance(a->neg, a->mag, e->neg, e->mag);
        else
            *distance = fabs(a->d - e->d);
        return *distance <= tol->value;
    }
    if (type == WNN_DATA_TYPE_FLOAT32)
        *distance = ulp_float32(a, e);
    else if (type == WNN_DATA_TYPE_FLOAT16)
        *distance = ulp_float16(a, e);
    else
        *distance = ulp_integer(a, e);
    return *distance <= tol->value;
}

/* ------------------------------------------------------------------------ */
/* Formatting                                                               */
/* ------------------------------------------------------------------------ */

static void format_double(double d, int digits, char *buf, size_t size)
{
    if (isnan(d))
        snprintf(buf, size, "NaN");
    else if (isinf(d))
        snprintf(buf, size, d < 0 ? "-Infinity" : "Infinity");
    else if (d == 0)
        snprintf(buf, size, signbit(d) ? "-0" : "0");
    else
        snprintf(buf, size, "%.*g", digits, d);
}

void wpt_format_element(wnn_data_type type, const void *data, uint64_t index, char *buf, size_t size)
{
    element e;
    read_element(type, data, index, &e);
    if (type == WNN_DATA_TYPE_FLOAT32) {
        format_double(e.d, 9, buf, size);
    } else if (type == WNN_DATA_TYPE_FLOAT16) {
        char num[40];
        format_double(e.d, 5, num, sizeof num);
        snprintf(buf, size, "%s (0x%04x)", num, (unsigned)e.bits);
    } else {
        snprintf(buf, size, "%s%" PRIu64, e.neg ? "-" : "", e.mag);
    }
}

void wpt_format_number(const wpt_number *n, char *buf, size_t size)
{
    if (n->exact && n->mag > (1ull << 53))
        snprintf(buf, size, "%s%" PRIu64, n->neg ? "-" : "", n->mag);
    else
        format_double(n->d, 17, buf, size);
}

static void describe_allowed(wnn_data_type type, const wpt_tolerance *tol, double distance, char *buf,
                             size_t size)
{
    static const char *const check_names[] = {
        [WPT_CHECK_TOLERANCE] = "",
        [WPT_CHECK_SAME_VALUE] = "Object.is, then ",
        [WPT_CHECK_BITS] = "bit-exact, then ",
    };
    const char *metric = tol->metric == WPT_METRIC_ATOL ? "ATOL" : "ULP";
    snprintf(buf, size, "%s%s %g (%s distance %g)", check_names[tol->check], metric, tol->value,
             wnn_data_type_name(type) ? wnn_data_type_name(type) : "?", distance);
}

/* ------------------------------------------------------------------------ */
/* Whole outputs                                                            */
/* ------------------------------------------------------------------------ */

bool wpt_compare_values(wnn_data_type type, const void *actual, uint64_t element_count,
                        const wpt_number *expected, size_t expected_count, bool fill,
                        const wpt_tolerance *tolerance, wpt_mismatch *mismatch)
{
    uint64_t needed = fill ? 1u : element_count;
    if (expected_count < needed || (!fill && expected_count != element_count) || actual == NULL) {
        if (mismatch != NULL) {
            mismatch->index = SIZE_MAX;
            snprintf(mismatch->got, sizeof mismatch->got, "%" PRIu64 " elements", element_count);
            snprintf(mismatch->expected, sizeof mismatch->expected, "%zu values", expected_count);
            snprintf(mismatch->allowed, sizeof mismatch->allowed, "the same count");
        }
        return false;
    }
    uint64_t n = wpt_compare_count(element_count, fill);
    for (uint64_t i = 0; i < n; i++) {
        const wpt_number *e = fill ? &expected[0] : &expected[i];
        element a;
        double distance;
        read_element(type, actual, i, &a);
        if (element_passes(type, &a, e, tolerance, &distance))
            continue;
        if (mismatch != NULL) {
            mismatch->index = (size_t)i;
            wpt_format_element(type, actual, i, mismatch->got, sizeof mismatch->got);
            wpt_format_number(e, mismatch->expected, sizeof mismatch->expected);
            if (isnan(e->d) && !e->exact)
                snprintf(mismatch->allowed, sizeof mismatch->allowed, "any NaN");
            else
                describe_allowed(type, tolerance, distance, mismatch->allowed, sizeof mismatch->allowed);
        }
        return false;
    }
    return true;
}
