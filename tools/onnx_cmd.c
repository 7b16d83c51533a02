/*
** onnx_cmd.c -- the wnn program's ONNX commands: `run MODEL.onnx` (inputs
** and outputs as .npy files), `check MODEL.onnx` (every node that cannot be
** lowered), and `onnx-test` (ONNX's own test suite: each folder's model.onnx
** run on each test data set's input_N.pb and compared with output_N.pb, with
** per-operator counts and every skip's reason).
*/
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "onnx_cmd.h"
#include "wnn/wnn.h"

bool onnx_cmd_wants(int argc, char **argv, int first)
{
    for (int i = first; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (n > 5 && strcmp(argv[i] + n - 5, ".onnx") == 0)
            return true;
    }
    return false;
}

#ifndef WNN_HAVE_ONNX

static int no_onnx(void)
{
    fprintf(stderr, "wnn: this wnn was built without the ONNX importer (WNN_WITH_ONNX needs protobuf-c and "
                    "onnx.proto)\n");
    return 1;
}

int onnx_cmd_run(int argc, char **argv) { return (void)argc, (void)argv, no_onnx(); }
int onnx_cmd_check(int argc, char **argv) { return (void)argc, (void)argv, no_onnx(); }
int onnx_cmd_bench(int argc, char **argv) { return (void)argc, (void)argv, no_onnx(); }
int onnx_cmd_test(int argc, char **argv) { return (void)argc, (void)argv, no_onnx(); }

#else

#include "wnn/wnn_onnx.h"

#define MAX_BINDINGS 64

/* Options shared by run and check. */
typedef struct model_args {
    const char *model, *device, *output_dir, *repeat, *filter;
    bool verbose;
    const char *dirs[64];
    size_t n_dirs;
    wnn_onnx_dimension dims[MAX_BINDINGS];
    size_t n_dims;
    wnn_onnx_input_shape shapes[MAX_BINDINGS];
    size_t n_shapes;
    const char *inputs[MAX_BINDINGS]; /* NAME=FILE */
    size_t n_inputs;
} model_args;

static int usage(const char *fmt, const char *arg)
{
    fprintf(stderr, "wnn: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see wnn --help)\n");
    return 2;
}

static int parse_args(int argc, char **argv, model_args *a, bool many)
{
    memset(a, 0, sizeof *a);
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) != 0) {
            if (many && a->n_dirs < 64)
                a->dirs[a->n_dirs++] = arg;
            else if (!many && a->model == NULL)
                a->model = arg;
            else
                return usage("unexpected argument '%s'", arg);
            continue;
        }
        if (strcmp(arg, "--verbose") == 0) {
            a->verbose = true;
            continue;
        }
        size_t nl = eq ? (size_t)(eq - arg) : strlen(arg);
        const char *value = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        if (value == NULL)
            return usage("option '%s' needs a value", arg);
#define IS(name) (nl == strlen(name) && strncmp(arg, name, nl) == 0)
        if (IS("--device")) {
            a->device = value;
        } else if (IS("--output-dir")) {
            a->output_dir = value;
        } else if (IS("--repeat")) {
            a->repeat = value;
        } else if (IS("--filter")) {
            a->filter = value;
        } else if (IS("--input") && a->n_inputs < MAX_BINDINGS && strchr(value, '=')) {
            a->inputs[a->n_inputs++] = value;
        } else if (IS("--dim") && a->n_dims < MAX_BINDINGS && strchr(value, '=')) {
            wnn_onnx_dimension *d = &a->dims[a->n_dims++];
            d->name = strndup(value, (size_t)(strchr(value, '=') - value));
            d->value = (uint32_t)strtoul(strchr(value, '=') + 1, NULL, 10);
            if (d->value == 0)
                return usage("--dim wants NAME=VALUE with VALUE >= 1, not '%s'", value);
        } else if (IS("--shape") && a->n_shapes < MAX_BINDINGS && strchr(value, '=')) {
            wnn_onnx_input_shape *s = &a->shapes[a->n_shapes++];
            s->name = strndup(value, (size_t)(strchr(value, '=') - value));
            const char *p = strchr(value, '=') + 1;
            while (*p && s->rank < WNN_MAX_RANK) {
                char *end;
                s->shape[s->rank++] = (uint32_t)strtoul(p, &end, 10);
                p = *end == 'x' || *end == ',' ? end + 1 : end;
                if (end == p && *p)
                    return usage("--shape wants NAME=D1xD2..., not '%s'", value);
            }
        } else {
            return usage("unknown or malformed option '%s'", arg);
        }
#undef IS
    }
    if (!many && a->model == NULL)
        return usage("%s", "a MODEL.onnx is needed");
    if (many && a->n_dirs == 0)
        return usage("%s", "onnx-test needs a folder");
    return 0;
}

static void free_args(model_args *a)
{
    for (size_t i = 0; i < a->n_dims; i++)
        free((char *)a->dims[i].name);
    for (size_t i = 0; i < a->n_shapes; i++)
        free((char *)a->shapes[i].name);
}

static wnn_context *open_device(const char *device)
{
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    wnn_context *ctx = NULL;
    if (wnn_context_create(&o, &ctx) != WNN_OK) {
        fprintf(stderr, "wnn: cannot open device '%s': %s\n", device ? device : "(default)",
                wnn_last_error_message());
        return NULL;
    }
    return ctx;
}

static void shape_text(uint32_t rank, const uint32_t *shape, char *buf, size_t size)
{
    size_t at = (size_t)snprintf(buf, size, "[");
    for (uint32_t i = 0; i < rank && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%u", i ? ", " : "", shape[i]);
    if (at < size)
        snprintf(buf + at, size - at, "]");
}

/* The value of element i as double (for printing and comparing). */
static double element(wnn_data_type t, const void *p, size_t i)
{
    switch (t) {
    case WNN_DATA_TYPE_FLOAT32: return ((const float *)p)[i];
    case WNN_DATA_TYPE_FLOAT16: {
        uint16_t h = ((const uint16_t *)p)[i];
        int e = (h >> 10) & 31, m = h & 1023;
        double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
        return h & 0x8000 ? -v : v;
    }
    case WNN_DATA_TYPE_INT32: return ((const int32_t *)p)[i];
    case WNN_DATA_TYPE_UINT32: return ((const uint32_t *)p)[i];
    case WNN_DATA_TYPE_INT64: return (double)((const int64_t *)p)[i];
    case WNN_DATA_TYPE_UINT64: return (double)((const uint64_t *)p)[i];
    case WNN_DATA_TYPE_INT8: return ((const int8_t *)p)[i];
    case WNN_DATA_TYPE_UINT8: return ((const uint8_t *)p)[i];
    default: return 0;
    }
}

/* Fills an input with small values of its type: j = i * 7 % 13 for element
** i, as (j - 6) / 8 for floats (exact in float16) and j for integers. Floats
** are not filled with a byte pattern: as float32 the bytes 0..12 are numbers
** near 1e-31 or below, every 13th one subnormal, which Intel processors
** compute through slow assists (resnet18's 7x7 convolution on 3 channels
** took 36.7 ms on one thread of the 16-core host's Xeon with those inputs,
** 2.1 ms on the 2-core machine's EPYC). */
static void fill_input(wnn_data_type t, void *p, size_t bytes)
{
    size_t size = wnn_data_type_size(t), n = size ? bytes / size : 0;
    if (!size || t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4) { /* packed: bytes of two small values */
        for (size_t k = 0; k < bytes; k++)
            ((unsigned char *)p)[k] = (unsigned char)((k * 7 % 13 & 7) | (k * 3 % 13 & 7) << 4);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        int j = (int)(i * 7 % 13);
        float f = (float)(j - 6) / 8.0f;
        switch (t) {
        case WNN_DATA_TYPE_FLOAT32: ((float *)p)[i] = f; break;
        case WNN_DATA_TYPE_FLOAT16: { /* a normal float16 or zero: sign, rebased exponent, top mantissa bits */
            uint32_t u;
            memcpy(&u, &f, sizeof u);
            ((uint16_t *)p)[i] = f == 0.0f ? 0 : (uint16_t)((u >> 16 & 0x8000) | (((u >> 23 & 255) - 112) << 10) |
                                                            (u >> 13 & 1023));
            break;
        }
        case WNN_DATA_TYPE_INT32: ((int32_t *)p)[i] = j; break;
        case WNN_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)j; break;
        case WNN_DATA_TYPE_INT64: ((int64_t *)p)[i] = j; break;
        case WNN_DATA_TYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)j; break;
        case WNN_DATA_TYPE_INT8: ((int8_t *)p)[i] = (int8_t)j; break;
        case WNN_DATA_TYPE_UINT8: ((uint8_t *)p)[i] = (uint8_t)j; break;
        default: memset((char *)p + i * size, 0, size); break;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* run                                                                      */
/* ------------------------------------------------------------------------ */

int onnx_cmd_run(int argc, char **argv)
{
    model_args a;
    int rc = parse_args(argc, argv, &a, false);
    if (rc != 0)
        return rc;
    unsigned repeat = a.repeat ? (unsigned)strtoul(a.repeat, NULL, 10) : 1;
    if (repeat == 0)
        repeat = 1;
    wnn_onnx_array arrays[MAX_BINDINGS] = {{0}};
    size_t n_arrays = 0;
    rc = 1;
    wnn_context *ctx = NULL;
    wnn_onnx_model *m = NULL;
    void **outs = NULL;
    for (size_t i = 0; i < a.n_inputs; i++) {
        const char *eq = strchr(a.inputs[i], '=');
        if (wnn_onnx_array_read_npy(eq + 1, &arrays[i]) != WNN_OK) {
            fprintf(stderr, "wnn run: %s\n", wnn_onnx_last_error_message());
            goto done;
        }
        free(arrays[i].name);
        arrays[i].name = strndup(a.inputs[i], (size_t)(eq - a.inputs[i]));
        n_arrays++;
        /* the file's shape is the input's shape unless --shape says otherwise */
        if (a.n_shapes < MAX_BINDINGS) {
            wnn_onnx_input_shape *s = &a.shapes[a.n_shapes++];
            s->name = strdup(arrays[i].name);
            s->rank = arrays[i].rank;
            memcpy(s->shape, arrays[i].shape, sizeof s->shape);
        }
    }
    if ((ctx = open_device(a.device)) == NULL)
        goto done;
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.dimensions = a.dims;
    o.dimension_count = a.n_dims;
    o.input_shapes = a.shapes;
    o.input_shape_count = a.n_shapes;
    o.constant_inputs = arrays;
    o.constant_input_count = n_arrays;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    wnn_status st = wnn_onnx_model_load(ctx, a.model, &o, &m);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != WNN_OK) {
        fprintf(stderr, "wnn run: %s: %s: %s\n", a.model, wnn_status_string(st), wnn_onnx_last_error_message());
        goto done;
    }
    double load_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    uint32_t ni = wnn_onnx_model_input_count(m), no = wnn_onnx_model_output_count(m);
    wnn_onnx_buffer ins[MAX_BINDINGS], obufs[MAX_BINDINGS];
    void *zeros[MAX_BINDINGS] = {NULL};
    if (ni > MAX_BINDINGS || no > MAX_BINDINGS) {
        fprintf(stderr, "wnn run: more than %d inputs or outputs\n", MAX_BINDINGS);
        goto done;
    }
    for (uint32_t i = 0; i < ni; i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_onnx_model_get_input(m, i, &name, &d);
        ins[i] = (wnn_onnx_buffer){name, NULL, (size_t)wnn_operand_desc_byte_length(&d)};
        for (size_t k = 0; k < n_arrays; k++)
            if (strcmp(arrays[k].name, name) == 0)
                ins[i].data = arrays[k].data, ins[i].byte_length = arrays[k].byte_length;
        if (ins[i].data == NULL) {
            fprintf(stderr, "wnn run: no --input for '%s': using zeros\n", name);
            ins[i].data = zeros[i] = calloc(1, ins[i].byte_length);
        }
    }
    outs = calloc(no ? no : 1, sizeof *outs);
    for (uint32_t i = 0; outs && i < no; i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_onnx_model_get_output(m, i, &name, &d);
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&d);
        obufs[i] = (wnn_onnx_buffer){name, outs[i] = malloc(bytes), bytes};
    }
    double total_ms = 0;
    for (unsigned r = 0; r < repeat; r++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        st = wnn_onnx_model_run(m, ins, ni, obufs, no);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        total_ms += (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (st != WNN_OK)
            break;
    }
    for (uint32_t i = 0; i < ni; i++)
        free(zeros[i]);
    if (st != WNN_OK) {
        fprintf(stderr, "wnn run: %s: %s\n", wnn_status_string(st), wnn_onnx_last_error_message());
        goto done;
    }
    for (uint32_t i = 0; i < no; i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_onnx_model_get_output(m, i, &name, &d);
        char shape[128];
        shape_text(d.rank, d.shape, shape, sizeof shape);
        printf("output '%s': %s %s\n   ", name, wnn_data_type_name(d.data_type), shape);
        uint64_t count = wnn_operand_desc_element_count(&d);
        for (uint64_t k = 0; k < count && k < 16; k++)
            printf(" %.6g", element(d.data_type, outs[i], (size_t)k));
        printf("%s\n", count > 16 ? " ..." : "");
        if (a.output_dir != NULL) {
            char path[4096];
            mkdir(a.output_dir, 0777);
            snprintf(path, sizeof path, "%s/%s.npy", a.output_dir, name);
            for (char *p = path + strlen(a.output_dir) + 1; *p; p++)
                if (*p == '/' || *p == ':')
                    *p = '_';
            wnn_onnx_array arr = {NULL, d.data_type, d.rank, {0}, outs[i], obufs[i].byte_length};
            memcpy(arr.shape, d.shape, sizeof arr.shape);
            if (wnn_onnx_array_write_npy(path, &arr) != WNN_OK) {
                fprintf(stderr, "wnn run: %s\n", wnn_onnx_last_error_message());
                goto done;
            }
            printf("    saved %s\n", path);
        }
    }
    printf("load %.3f ms, run %.3f ms (mean of %u)\n", load_ms, total_ms / repeat, repeat);
    rc = 0;
done:
    for (uint32_t i = 0; outs && i < wnn_onnx_model_output_count(m); i++)
        free(outs[i]);
    free(outs);
    wnn_onnx_model_release(m);
    if (ctx)
        wnn_context_release(ctx);
    for (size_t i = 0; i < n_arrays; i++)
        wnn_onnx_array_free(&arrays[i]);
    free_args(&a);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* bench                                                                    */
/* ------------------------------------------------------------------------ */

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Latency of dispatch + waiting for every output, on the model's own
** tensors (inputs filled once with a fixed pattern). */
int onnx_cmd_bench(int argc, char **argv)
{
    model_args a;
    int rc = parse_args(argc, argv, &a, false);
    if (rc != 0)
        return rc;
    unsigned iterations = a.repeat ? (unsigned)strtoul(a.repeat, NULL, 10) : 100, warmup = 5;
    if (iterations == 0)
        iterations = 1;
    wnn_context *ctx = open_device(a.device);
    wnn_onnx_model *m = NULL;
    double *lat = calloc(iterations, sizeof *lat);
    rc = 1;
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.dimensions = a.dims;
    o.dimension_count = a.n_dims;
    o.input_shapes = a.shapes;
    o.input_shape_count = a.n_shapes;
    o.default_dimension = 1;
    double t0 = now_ms();
    wnn_status st = ctx && lat ? wnn_onnx_model_load(ctx, a.model, &o, &m) : WNN_STATUS_OUT_OF_MEMORY;
    if (st != WNN_OK) {
        fprintf(stderr, "wnn bench: %s: %s\n", wnn_status_string(st), wnn_onnx_last_error_message());
        goto done;
    }
    double load_ms = now_ms() - t0;
    for (uint32_t i = 0; i < wnn_onnx_model_input_count(m); i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_onnx_model_get_input(m, i, &name, &d);
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&d);
        unsigned char *fill = malloc(bytes ? bytes : 1);
        if (fill)
            fill_input(d.data_type, fill, bytes);
        if (fill == NULL || wnn_context_write_tensor(ctx, wnn_onnx_model_tensor(m, name), fill, bytes) != WNN_OK) {
            free(fill);
            fprintf(stderr, "wnn bench: cannot fill input '%s'\n", name);
            goto done;
        }
        free(fill);
    }
    bool tty = isatty(fileno(stdout));
    double start = 0;
    for (unsigned r = 0; r < warmup + iterations; r++) {
        if (r == warmup)
            start = now_ms();
        double s0 = now_ms();
        st = wnn_onnx_model_dispatch(m, NULL, 0, NULL, 0);
        if (st == WNN_OK)
            st = wnn_context_finish(ctx);
        if (st != WNN_OK) {
            fprintf(stderr, "wnn bench: %s: %s\n", wnn_status_string(st), wnn_onnx_last_error_message());
            goto done;
        }
        if (r >= warmup)
            lat[r - warmup] = now_ms() - s0;
        if (tty && (r % 10 == 0 || r + 1 == warmup + iterations))
            printf("\r  %u/%u runs", r + 1, warmup + iterations), fflush(stdout);
    }
    double total = now_ms() - start, sum = 0;
    if (tty)
        printf("\n");
    for (unsigned i = 0; i < iterations; i++)
        sum += lat[i];
    qsort(lat, iterations, sizeof *lat, by_double);
#define PCT(p) lat[(size_t)((p) / 100.0 * (iterations - 1) + 0.5)]
    printf("%s on %s: load %.2f ms; %u runs (after %u warm-up)\n", a.model, a.device ? a.device : "cpu", load_ms,
           iterations, warmup);
    printf("latency ms: min %.3f  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  mean %.3f\n", lat[0], PCT(50), PCT(90),
           PCT(99), lat[iterations - 1], sum / iterations);
    printf("throughput: %.1f runs/s\n", iterations / (total / 1e3));
#undef PCT
    rc = 0;
done:
    free(lat);
    wnn_onnx_model_release(m);
    if (ctx)
        wnn_context_release(ctx);
    free_args(&a);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* check                                                                    */
/* ------------------------------------------------------------------------ */

static void print_issue(const wnn_onnx_issue *is, void *user_data)
{
    (void)user_data;
    printf("  %s\n", is->message);
}

int onnx_cmd_check(int argc, char **argv)
{
    model_args a;
    int rc = parse_args(argc, argv, &a, false);
    if (rc != 0)
        return rc;
    wnn_context *ctx = open_device(a.device);
    if (ctx == NULL) {
        free_args(&a);
        return 1;
    }
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.dimensions = a.dims;
    o.dimension_count = a.n_dims;
    o.input_shapes = a.shapes;
    o.input_shape_count = a.n_shapes;
    size_t issues = 0;
    wnn_status st = wnn_onnx_check(ctx, a.model, &o, print_issue, NULL, &issues);
    if (st == WNN_OK)
        printf("%s: every node lowers to WebNN\n", a.model);
    else if (issues > 0)
        printf("%s: %zu node%s cannot be lowered\n", a.model, issues, issues == 1 ? "" : "s");
    else
        fprintf(stderr, "wnn check: %s: %s\n", wnn_status_string(st), wnn_onnx_last_error_message());
    wnn_context_release(ctx);
    free_args(&a);
    return st == WNN_OK ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* onnx-test                                                                */
/* ------------------------------------------------------------------------ */

typedef enum { T_PASS, T_FAIL, T_SKIP } outcome;

typedef struct op_count {
    char name[64];
    unsigned pass, fail, skip;
} op_count;

typedef struct suite {
    wnn_context *ctx;
    bool verbose;
    unsigned pass, fail, skip;
    op_count ops[512];
    size_t n_ops;
    char (*skips)[400]; /* "name: reason" */
    size_t n_skips, cap_skips;
} suite;

static void count_op(suite *s, const char *op, outcome o)
{
    op_count *c = NULL;
    for (size_t i = 0; i < s->n_ops && c == NULL; i++)
        if (strcmp(s->ops[i].name, op) == 0)
            c = &s->ops[i];
    if (c == NULL && s->n_ops < 512) {
        c = &s->ops[s->n_ops++];
        snprintf(c->name, sizeof c->name, "%s", op);
    }
    if (c != NULL)
        (*(o == T_PASS ? &c->pass : o == T_FAIL ? &c->fail : &c->skip))++;
}

static int read_arrays(const char *dir, const char *prefix, wnn_onnx_array *arrays, size_t max, size_t *count,
                       char *why, size_t why_size)
{
    *count = 0;
    for (size_t i = 0; i < max; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s_%zu.pb", dir, prefix, i);
        struct stat sb;
        if (stat(path, &sb) != 0)
            break;
        wnn_status st = wnn_onnx_array_read_tensor_proto(path, &arrays[i]);
        if (st != WNN_OK) {
            snprintf(why, why_size, "%s", wnn_onnx_last_error_message());
            return st == WNN_STATUS_NOT_SUPPORTED ? 1 : -1;
        }
        (*count)++;
    }
    return 0;
}

static bool close_enough(wnn_data_type t, double got, double want)
{
    if (isnan(want))
        return isnan(got);
    if (isinf(want))
        return got == want;
    if (t != WNN_DATA_TYPE_FLOAT32 && t != WNN_DATA_TYPE_FLOAT16)
        return got == want;
    double rtol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-2 : 1e-3, atol = t == WNN_DATA_TYPE_FLOAT16 ? 1e-3 : 1e-7;
    return fabs(got - want) <= atol + rtol * fabs(want);
}

/* Runs one data set; T_FAIL with why filled on a mismatch. */
static outcome run_set(suite *s, const char *model_path, const wnn_onnx_info *info, const char *set_dir,
                       char *why, size_t why_size)
{
    wnn_onnx_array in[MAX_BINDINGS] = {{0}}, want[MAX_BINDINGS] = {{0}};
    size_t n_in = 0, n_want = 0;
    outcome result = T_FAIL;
    wnn_onnx_model *m = NULL;
    void *got[MAX_BINDINGS] = {NULL};
    int r = read_arrays(set_dir, "input", in, MAX_BINDINGS, &n_in, why, why_size);
    if (r == 0)
        r = read_arrays(set_dir, "output", want, MAX_BINDINGS, &n_want, why, why_size);
    if (r != 0) { /* a sequence or map file: the model tells whether it takes one */
        wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
        o.default_dimension = 1;
        if (wnn_onnx_model_load(s->ctx, model_path, &o, &m) == WNN_STATUS_NOT_SUPPORTED) {
            snprintf(why, why_size, "%s", wnn_onnx_last_error_message());
            r = 1;
        }
    }
    if (r != 0) {
        result = r > 0 ? T_SKIP : T_FAIL;
        goto done;
    }
    wnn_onnx_input_shape shapes[MAX_BINDINGS];
    for (size_t i = 0; i < n_in; i++) {
        if (in[i].name[0] == '\0' && i < info->input_count) {
            free(in[i].name);
            in[i].name = strdup(info->inputs[i]);
        }
        shapes[i].name = in[i].name;
        shapes[i].rank = in[i].rank;
        memcpy(shapes[i].shape, in[i].shape, sizeof shapes[i].shape);
    }
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.input_shapes = shapes;
    o.input_shape_count = n_in;
    o.constant_inputs = in;
    o.constant_input_count = n_in;
    wnn_status st = wnn_onnx_model_load(s->ctx, model_path, &o, &m);
    if (st != WNN_OK) {
        snprintf(why, why_size, "%s", wnn_onnx_last_error_message());
        result = st == WNN_STATUS_NOT_SUPPORTED ? T_SKIP : T_FAIL;
        goto done;
    }
    wnn_onnx_buffer ins[MAX_BINDINGS], outs[MAX_BINDINGS];
    for (size_t i = 0; i < n_in; i++)
        ins[i] = (wnn_onnx_buffer){in[i].name, in[i].data, in[i].byte_length};
    for (size_t i = 0; i < n_want; i++) {
        const char *name = want[i].name[0] ? want[i].name : i < info->output_count ? info->outputs[i] : "";
        wnn_tensor *t = wnn_onnx_model_tensor(m, name);
        if (t == NULL) {
            snprintf(why, why_size, "no output '%s'", name);
            goto done;
        }
        size_t bytes = (size_t)wnn_tensor_byte_length(t);
        outs[i] = (wnn_onnx_buffer){name, got[i] = malloc(bytes), bytes};
    }
    st = wnn_onnx_model_run(m, ins, n_in, outs, n_want);
    if (st != WNN_OK) {
        snprintf(why, why_size, "run: %s: %s", wnn_status_string(st), wnn_onnx_last_error_message());
        goto done;
    }
    for (size_t i = 0; i < n_want; i++) {
        wnn_tensor_desc d;
        wnn_tensor_get_desc(wnn_onnx_model_tensor(m, outs[i].name), &d);
        bool same = d.rank == want[i].rank && d.data_type == want[i].data_type &&
                    memcmp(d.shape, want[i].shape, d.rank * sizeof d.shape[0]) == 0;
        if (!same) {
            char gs[128], ws[128];
            shape_text(d.rank, d.shape, gs, sizeof gs);
            shape_text(want[i].rank, want[i].shape, ws, sizeof ws);
            snprintf(why, why_size, "output '%s': got %s %s, expected %s %s", outs[i].name,
                     wnn_data_type_name(d.data_type), gs, wnn_data_type_name(want[i].data_type), ws);
            goto done;
        }
        size_t count = want[i].byte_length / (wnn_data_type_size(d.data_type) ? wnn_data_type_size(d.data_type) : 1);
        for (size_t k = 0; k < count; k++) {
            double g = element(d.data_type, got[i], k), w = element(d.data_type, want[i].data, k);
            if (!close_enough(d.data_type, g, w)) {
                snprintf(why, why_size, "output '%s'[%zu]: got %.9g, expected %.9g", outs[i].name, k, g, w);
                goto done;
            }
        }
    }
    result = T_PASS;
done:
    for (size_t i = 0; i < MAX_BINDINGS; i++) {
        free(got[i]);
        wnn_onnx_array_free(&in[i]);
        wnn_onnx_array_free(&want[i]);
    }
    wnn_onnx_model_release(m);
    return result;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_skip(suite *s, const char *name, const char *why)
{
    if (s->n_skips == s->cap_skips) {
        size_t cap = s->cap_skips ? 2 * s->cap_skips : 256;
        void *p = realloc(s->skips, cap * sizeof *s->skips);
        if (p == NULL)
            return;
        s->skips = p;
        s->cap_skips = cap;
    }
    char *line = s->skips[s->n_skips++];
    if (snprintf(line, sizeof s->skips[0], "%s: %s", name, why) >= (int)sizeof s->skips[0])
        memcpy(line + sizeof s->skips[0] - 4, "...", 4); /* a long reason is cut, and says so */
}

/* Test models whose reference outputs contradict their own model: skipped
** with the reason, neither passed nor failed. */
static const struct {
    const char *name, *why;
} contradicted[] = {
    {"test_adam_multiple", "the reference outputs use epsilon 1e-2, the model's Adam node leaves the default 1e-6 "
                           "(ONNX 1.12's test data)"},
};

static void run_case(suite *s, const char *dir, const char *name)
{
    char model[4096], why[600] = "";
    snprintf(model, sizeof model, "%s/%s/model.onnx", dir, name);
    wnn_onnx_info info;
    outcome o = T_FAIL;
    const char *op = "?";
    bool skip = false;
    for (size_t i = 0; i < sizeof contradicted / sizeof contradicted[0] && !skip; i++)
        if (strcmp(name, contradicted[i].name) == 0) {
            snprintf(why, sizeof why, "%s", contradicted[i].why);
            skip = true;
        }
    if (wnn_onnx_read_info(model, &info) != WNN_OK) {
        snprintf(why, sizeof why, "%s", wnn_onnx_last_error_message());
        memset(&info, 0, sizeof info);
    } else {
        op = info.op_type_count == 1 ? info.op_types[0] : info.op_type_count == 0 ? "(none)" : "(several)";
        o = skip ? T_SKIP : T_PASS;
        unsigned sets = 0;
        for (unsigned k = 0; o == T_PASS; k++) {
            char set[4200];
            snprintf(set, sizeof set, "%s/%s/test_data_set_%u", dir, name, k);
            struct stat sb;
            if (stat(set, &sb) != 0)
                break;
            o = run_set(s, model, &info, set, why, sizeof why);
            sets++;
        }
        if (sets == 0 && !skip) {
            o = T_SKIP;
            snprintf(why, sizeof why, "no test_data_set_*");
        }
    }
    if (o == T_SKIP && info.op_type_count > 1) {
        /* name the operator that was refused: "(Conv, opset" in the message */
        for (uint32_t i = 0; i < info.op_type_count; i++) {
            char key[80];
            snprintf(key, sizeof key, "(%s, opset", info.op_types[i]);
            if (strstr(why, key) != NULL)
                op = info.op_types[i];
        }
    }
    count_op(s, op, o);
    (*(o == T_PASS ? &s->pass : o == T_FAIL ? &s->fail : &s->skip))++;
    if (o == T_FAIL)
        printf("FAIL %s: %s\n", name, why);
    else if (o == T_SKIP)
        add_skip(s, name, why);
    if (s->verbose && o == T_PASS)
        printf("pass %s\n", name);
    wnn_onnx_info_free(&info);
}

int onnx_cmd_test(int argc, char **argv)
{
    model_args a;
    int rc = parse_args(argc, argv, &a, true);
    if (rc != 0)
        return rc;
    suite s;
    memset(&s, 0, sizeof s);
    s.verbose = a.verbose;
    if ((s.ctx = open_device(a.device)) == NULL)
        return 1;
    for (size_t d = 0; d < a.n_dirs; d++) {
        DIR *dp = opendir(a.dirs[d]);
        if (dp == NULL) {
            fprintf(stderr, "wnn onnx-test: cannot open '%s': %s\n", a.dirs[d], strerror(errno));
            s.fail++;
            continue;
        }
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(dp)) != NULL) {
            if (e->d_name[0] == '.' || (a.filter && strstr(e->d_name, a.filter) == NULL))
                continue;
            char model[4096];
            struct stat sb;
            snprintf(model, sizeof model, "%s/%s/model.onnx", a.dirs[d], e->d_name);
            if (stat(model, &sb) != 0)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 256;
                char **grown = realloc(names, cap * sizeof *names);
                if (grown == NULL)
                    break;
                names = grown;
            }
            names[n++] = strdup(e->d_name);
        }
        closedir(dp);
        qsort(names, n, sizeof *names, by_name);
        for (size_t i = 0; i < n; i++) {
            run_case(&s, a.dirs[d], names[i]);
            free(names[i]);
        }
        free(names);
    }
    printf("\nskipped, with reasons:\n");
    for (size_t i = 0; i < s.n_skips; i++)
        printf("  SKIP %s\n", s.skips[i]);
    printf("\nper operator (passed/failed/skipped):\n");
    for (size_t i = 0; i < s.n_ops; i++)
        printf("  %-28s %4u %4u %4u\n", s.ops[i].name, s.ops[i].pass, s.ops[i].fail, s.ops[i].skip);
    printf("\n%u passed, %u failed, %u skipped\n", s.pass, s.fail, s.skip);
    free(s.skips);
    wnn_context_release(s.ctx);
    free_args(&a);
    return s.fail > 0 ? 1 : s.pass + s.skip == 0 ? 1 : 0;
}

#endif /* WNN_HAVE_ONNX */
