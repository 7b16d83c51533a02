/* SPDX-License-Identifier: Apache-2.0 */
/*
** wpt_json.c -- reading WPT case files: the file itself (with the U+0000
** escape jansson refuses), numbers in every spelling the vectors use, the
** operator names of a case, and names made printable for messages.
*/
#ifdef WNN_HAVE_JANSSON

#include "wpt_case.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wpt_escape_display(const char *text, size_t len, char *buf, size_t size)
{
    size_t o = 0;
    if (size == 0)
        return;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        char piece[8];
        size_t n;
        if (c < 0x20 || c == 0x7f) {
            snprintf(piece, sizeof piece, "\\x%02x", c);
            n = 4;
        } else {
            piece[0] = (char)c;
            n = 1;
        }
        if (o + n + 4 > size) {
            /* Leave room for "..." and the terminator. */
            if (o + 4 <= size) {
                memcpy(buf + o, "...", 3);
                o += 3;
            }
            break;
        }
        memcpy(buf + o, piece, n);
        o += n;
    }
    buf[o < size ? o : size - 1] = '\0';
}

/* Rewrites every "\u0000" escape of a JSON text as "\\u0000", so U+0000
** reads as the six characters \u0000. jansson refuses U+0000 in object keys
** (inputs_with_special_names.json has one), and wnn's names could not carry
** it anyway; spelled this way, a name still matches every use of itself.
** Other escapes are copied untouched, so "\\u0000" in the text stays as is. */
static char *escape_nul_escapes(const char *text, size_t len, size_t *out_len)
{
    size_t hits = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (text[i] != '\\')
            continue;
        if (len - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0)
            hits++;
        i++; /* skip the escaped character */
    }
    char *out = malloc(len + hits + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\\' && i + 1 < len) {
            if (len - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0)
                out[o++] = '\\';
            out[o++] = text[i++];
        }
        out[o++] = text[i];
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

/* The whole file in memory; NULL with err set on failure. */
static char *read_file(const char *path, size_t *len, char *err, size_t err_size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        char *grown = realloc(buf, cap * 2);
        if (grown == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    bool failed = buf == NULL || ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        snprintf(err, err_size, "%s: cannot read (out of memory or I/O error)", path);
        return NULL;
    }
    *len = n;
    return buf;
}

json_t *wpt_load_file(const char *path, char *err, size_t err_size)
{
    size_t len, escaped_len;
    char *text = read_file(path, &len, err, err_size);
    if (text == NULL)
        return NULL;
    char *escaped = escape_nul_escapes(text, len, &escaped_len);
    free(text);
    if (escaped == NULL) {
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    json_error_t e;
    json_t *root = json_loadb(escaped, escaped_len, JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &e);
    free(escaped);
    if (root == NULL)
        snprintf(err, err_size, "%s:%d:%d: %s", path, e.line, e.column, e.text);
    return root;
}

bool wpt_json_number(const json_t *value, wpt_number *out)
{
    if (json_is_integer(value)) {
        wpt_number_from_int64((int64_t)json_integer_value(value), out);
        return true;
    }
    if (json_is_real(value)) {
        wpt_number_from_double(json_real_value(value), out);
        return true;
    }
    if (json_is_string(value))
        return wpt_number_from_text(json_string_value(value), json_string_length(value), out);
    return false;
}

size_t wpt_case_operator_names(const json_t *test_case, const char **names, size_t cap)
{
    const json_t *ops = json_object_get(json_object_get(test_case, "graph"), "operators");
    size_t count = 0;
    for (size_t i = 0; i < json_array_size(ops); i++) {
        const char *name = json_string_value(json_object_get(json_array_get(ops, i), "name"));
        bool seen = name == NULL;
        for (size_t j = 0; j < count && !seen; j++)
            seen = strcmp(names[j], name) == 0;
        if (!seen && count < cap)
            names[count++] = name;
    }
    return count;
}

#endif /* WNN_HAVE_JANSSON */
