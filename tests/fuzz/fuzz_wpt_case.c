/*
** fuzz_wpt_case.c -- libFuzzer harness for the WPT case reader and runner
** behind `wnn run` and `wnn conformance` (tools/wpt_*.c, docs/fuzzing.md).
**
** Each input is a case file's text. It goes through wpt_load_file (the
** U+0000 rewrite and jansson) from a memory file, then every case of its
** "tests" array (at most MAX_CASES) runs on the cpu device as `wnn run` runs
** it. The oracle: no crash, leak or sanitizer report, and every case that
** does not pass says why.
**
** Byte mutation of JSON mostly yields text that does not parse, so the
** harness brings its own mutator (LLVMFuzzerCustomMutator): it parses the
** input, changes a few nodes the way a case can go wrong -- numbers to edge
** values, strings to other names, data types and number spellings, arrays
** grown, shrunk and shuffled, keys dropped or added, subtrees spliced from
** elsewhere in the file -- and writes the tree back compactly. Text that
** does not parse gets libFuzzer's byte mutations instead.
*/
#include <jansson.h>
#include <math.h>

#define FUZZ_NAME "fuzz_wpt_case"
#include "fuzz_common.h"
#include "wpt_case.h"

/* libFuzzer's optional entry point (this file defines it) */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAX_CASES 4
#define RUN_ELEMENTS 65536 /* a descriptor of more elements (but a valid count) is not run */
#define MAX_NODES 4096

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static wnn_context *g_ctx;
static int g_fd = -1;
static char g_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_one_thread();
    g_ctx = fuzz_context("cpu", 0);
    /* the reader takes a path: a memory file stands in for the case file */
    g_fd = fuzz_memory_file("wpt-case", g_path);
    return 0;
}

/* Whether a descriptor in the case has a valid element count too large to
** run quickly: such a case is legitimate, only slow (the fill rule makes a
** 36-million-element tensor of a few bytes). Invalid counts still run: they
** must be refused before anything is allocated. */
static bool too_big(const json_t *node)
{
    if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            if (too_big(json_array_get(node, i)))
                return true;
        return false;
    }
    if (!json_is_object(node))
        return false;
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)node, key, value) {
        if ((strcmp(key, "shape") == 0 || strcmp(key, "dimensions") == 0) && json_is_array(value)) {
            double n = 1;
            for (size_t i = 0; i < json_array_size(value); i++) {
                const json_t *d = json_array_get(value, i);
                n *= json_is_integer(d) ? (double)json_integer_value(d) : 1.0;
            }
            if (n > RUN_ELEMENTS && n <= (double)WNN_MAX_DIMENSION)
                return true;
        } else if (too_big(value)) {
            return true;
        }
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_memory_file_write(g_fd, data, size);
    char err[600];
    json_t *root = wpt_load_file(g_path, err, sizeof err);
    if (root == NULL) {
        if (err[0] == '\0')
            fail("wpt_load_file failed without a message");
        return 0;
    }
    const json_t *tests = json_object_get(root, "tests");
    for (size_t i = 0; i < json_array_size(tests) && i < MAX_CASES; i++) {
        const json_t *tc = json_array_get(tests, i);
        if (too_big(tc))
            continue;
        wpt_run_options ro = WPT_RUN_OPTIONS_INIT;
        ro.keep_outputs = true;
        ro.allow_no_expected = (size + i) % 2 == 0;
        wpt_result res;
        wpt_case_run(g_ctx, tc, &ro, &res);
        if ((unsigned)res.outcome > WPT_SKIP)
            fail("case %zu: outcome %d", i, (int)res.outcome);
        if (res.outcome != WPT_PASS && res.reason[0] == '\0')
            fail("case %zu: %s without a reason", i, wpt_outcome_name(res.outcome));
        if (memchr(res.reason, '\0', sizeof res.reason) == NULL)
            fail("case %zu: the reason is not terminated", i);
        wpt_result_free(&res);
    }
    json_decref(root);
    fuzz_check_memory(g_ctx, "cpu", false); /* a case's own errors were judged above */
    return 0;
}

/* ---- the structure-aware mutator -------------------------------------------------- */

/* Where a node sits, so that it can be replaced. */
typedef struct place {
    json_t *parent; /* NULL for the root */
    const char *key; /* in an object */
    size_t index;   /* in an array */
    json_t *node;
} place;

typedef struct tree {
    place nodes[MAX_NODES];
    size_t count;
} tree;

static void walk(tree *t, json_t *parent, const char *key, size_t index, json_t *node)
{
    if (t->count == MAX_NODES)
        return;
    t->nodes[t->count++] = (place){parent, key, index, node};
    if (json_is_object(node)) {
        const char *k;
        json_t *v;
        json_object_foreach(node, k, v) walk(t, node, k, 0, v);
    } else if (json_is_array(node)) {
        for (size_t i = 0; i < json_array_size(node); i++)
            walk(t, node, NULL, i, json_array_get(node, i));
    }
}

/* Puts value (a new reference, stolen) where p is. False at the root. */
static bool replace(const place *p, json_t *value)
{
    if (value == NULL)
        return false;
    if (p->parent == NULL) {
        json_decref(value);
        return false;
    }
    if (json_is_object(p->parent))
        return json_object_set_new(p->parent, p->key, value) == 0;
    return json_array_set_new(p->parent, p->index, value) == 0;
}

static const char *const data_types[] = {"float32", "float16", "int32", "uint32", "int64", "uint64",
                                         "int8",    "uint8",   "int4",  "uint4",  "bool",  "float64", ""};
static const char *const spellings[] = {"NaN", "Infinity", "-Infinity", "100n", "-1n", "18446744073709551615",
                                        "-9223372036854775809", "0x10", "1e400", "-0", " 1", "", "n"};
static const char *const operators[] = {
    "add", "matmul", "gemm", "conv2d", "convTranspose2d", "reshape", "transpose", "concat", "slice", "split",
    "expand", "pad", "tile", "gather", "gatherElements", "gatherND", "scatterElements", "scatterND", "where",
    "cast", "clamp", "softmax", "reduceSum", "argMax", "cumulativeSum", "quantizeLinear", "dequantizeLinear",
    "averagePool2d", "maxPool2d", "l2Pool2d", "resample2d", "batchNormalization", "layerNormalization",
    "instanceNormalization", "lstm", "gru", "lstmCell", "gruCell", "triangular", "reverse", "identity", "relu",
    "prelu", "logicalNot", "equal", "isNaN", "noSuchOp"};
static const char *const keys[] = {"name", "graph", "inputs", "operators", "expectedOutputs", "arguments",
                                   "outputs", "data", "descriptor", "shape", "dataType", "dimensions",
                                   "constant", "options", "axis", "axes", "tolerance", "metricType", "value",
                                   "knownIssue", "keepDimensions", "padding", "strides", "groups", "bias"};


static json_t *edge_integer(json_int_t v)
{
    static const json_int_t edges[] = {0, 1, -1, 2, 3, 4, 7, 8, 16, 255, 256, 65535, 65536, 2147483647,
                                       (json_int_t)2147483648ll, (json_int_t)4294967296ll, -2147483648ll,
                                       INT64_MAX, INT64_MIN, 46341, 100000};
    switch (rnd(4)) {
    case 0: return json_integer((json_int_t)((uint64_t)v + 1)); /* wraps, never overflows */
    case 1: return json_integer((json_int_t)((uint64_t)v - 1));
    default: return json_integer(edges[rnd(COUNT(edges))]);
    }
}

static json_t *edge_real(double v)
{
    static const double edges[] = {0.0, -0.0, 1e308, -1e308, 5e-324, 0.5, 1.0 / 3, 65504.0, 65520.0, 3.4e38,
                                   3.5e38, 1e-8, -2.5};
    return rnd(3) == 0 && isfinite(v * 2) ? json_real(-v * 2) : json_real(edges[rnd(COUNT(edges))]);
}

static json_t *other_string(const tree *t, const char *s)
{
    switch (rnd(6)) {
    case 0: return json_string(data_types[rnd(COUNT(data_types))]);
    case 1: return json_string(spellings[rnd(COUNT(spellings))]);
    case 2: return json_string(operators[rnd(COUNT(operators))]);
    case 3: { /* a string of the same file: another input's name, say */
        for (int tries = 0; tries < 8; tries++) {
            const json_t *n = t->nodes[rnd((uint32_t)t->count)].node;
            if (json_is_string(n))
                return json_deep_copy(n);
            if (t->nodes[rnd((uint32_t)t->count)].key)
                return json_string(t->nodes[rnd((uint32_t)t->count)].key);
        }
        return json_string("");
    }
    case 4: {
        size_t len = strlen(s);
        return json_stringn(s, len ? rnd((uint32_t)len) : 0);
    }
    default: {
        char buf[64];
        snprintf(buf, sizeof buf, "%s%s", s, rnd(2) ? "x" : "\\u0000");
        return json_string(buf);
    }
    }
}

static void mutate_array(const tree *t, json_t *a)
{
    size_t n = json_array_size(a);
    switch (rnd(7)) {
    case 0:
        if (n)
            json_array_remove(a, rnd((uint32_t)n));
        break;
    case 1:
        if (n)
            json_array_insert_new(a, rnd((uint32_t)n + 1), json_deep_copy(json_array_get(a, rnd((uint32_t)n))));
        break;
    case 2:
        json_array_append_new(a, rnd(2) ? edge_integer(1) : json_deep_copy(t->nodes[rnd((uint32_t)t->count)].node));
        break;
    case 3:
        if (n > 1) {
            size_t i = rnd((uint32_t)n), j = rnd((uint32_t)n);
            json_t *x = json_incref(json_array_get(a, i));
            json_array_set(a, i, json_array_get(a, j));
            json_array_set_new(a, j, x);
        }
        break;
    case 4:
        json_array_clear(a);
        break;
    case 5: /* grow a short array many times over */
        for (size_t i = 0, k = 1 + rnd(64); n && i < k; i++)
            json_array_append_new(a, json_deep_copy(json_array_get(a, i % n)));
        break;
    default:
        while (json_array_size(a) > 1 && rnd(2))
            json_array_remove(a, json_array_size(a) - 1);
        break;
    }
}

static void mutate_object(const tree *t, json_t *o)
{
    size_t n = json_object_size(o);
    const char *victim = NULL;
    size_t k = n ? rnd((uint32_t)n) : 0;
    const char *key;
    json_t *value;
    json_object_foreach(o, key, value) {
        if (k-- == 0) {
            victim = key;
            break;
        }
    }
    switch (rnd(3)) {
    case 0:
        if (victim)
            json_object_del(o, victim);
        break;
    case 1:
        json_object_set_new(o, keys[rnd(COUNT(keys))], json_deep_copy(t->nodes[rnd((uint32_t)t->count)].node));
        break;
    default:
        if (victim) {
            json_t *v = json_incref(json_object_get(o, victim));
            json_object_del(o, victim);
            json_object_set_new(o, keys[rnd(COUNT(keys))], v);
        }
        break;
    }
}

static void mutate_node(tree *t)
{
    const place *p = &t->nodes[rnd((uint32_t)t->count)];
    json_t *n = p->node;
    if (rnd(8) == 0) { /* splice: a copy of another subtree */
        const json_t *src = t->nodes[rnd((uint32_t)t->count)].node;
        if (src != n)
            replace(p, json_deep_copy(src));
        return;
    }
    switch (json_typeof(n)) {
    case JSON_INTEGER: replace(p, edge_integer(json_integer_value(n))); break;
    case JSON_REAL: replace(p, edge_real(json_real_value(n))); break;
    case JSON_STRING: replace(p, other_string(t, json_string_value(n))); break;
    case JSON_ARRAY: mutate_array(t, n); break;
    case JSON_OBJECT: mutate_object(t, n); break;
    case JSON_TRUE:
    case JSON_FALSE: replace(p, json_boolean(json_is_false(n))); break;
    default: replace(p, edge_integer(0)); break;
    }
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    g_rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull | 1;
    if (rnd(10) == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    json_t *root = json_loadb((const char *)data, size, JSON_ALLOW_NUL, NULL);
    if (root == NULL)
        return LLVMFuzzerMutate(data, size, max_size);
    static tree t;
    for (uint32_t edits = 1 + rnd(3); edits > 0; edits--) {
        t.count = 0;
        walk(&t, NULL, NULL, 0, root);
        mutate_node(&t);
    }
    size_t need = json_dumpb(root, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY);
    size_t out = 0;
    if (need > 0 && need <= max_size)
        out = json_dumpb(root, (char *)data, max_size, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(root);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
