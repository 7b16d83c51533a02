/* SPDX-License-Identifier: Apache-2.0 */
/*
** fuzz_onnx.c -- libFuzzer harness for the ONNX importer (src/onnx,
** include/wnn/wnn_onnx.h, docs/onnx.md, docs/fuzzing.md).
**
** Each input is a serialized ModelProto. It is loaded from memory on the cpu
** device with its free dimensions bound (a few names, then a default of 1 to
** 3), external data looked up in a folder of this harness, and a context
** memory limit that turns huge tensors into clean refusals. A model that
** loads is checked (its inputs and outputs, their tensors) and, when small,
** run twice on deterministic inputs: both runs must agree bit for bit. The
** same bytes then go through the path-based calls (wnn_onnx_read_info and
** check mode, from a memory file). The oracle:
**   - every failure is a known status with a message, and leaves no model;
**   - a model that loads has no issue in check mode, and read_info agrees
**     with it on the outputs;
**   - check mode reports issues only with NOT_SUPPORTED, each with a message;
**   - no crash, leak or sanitizer report, no device memory left in use.
**
** Bytes alone rarely make a ModelProto that gets past the first nodes, so
** the harness brings its own mutator (LLVMFuzzerCustomMutator): it unpacks
** the model with the protobuf-c code generated for the importer, changes a
** few fields the way models go wrong -- operator types from the supported
** list, attributes (edge integers and floats, mode strings, lists grown and
** shrunk, new attributes by known names), inputs and outputs rewired,
** tensors' dimensions, types, raw bytes, typed values and external-data
** entries, graph inputs' types and shapes (fixed, free, absent), opset and
** IR versions, nodes copied, dropped and swapped -- and packs it again. A
** crossover copies nodes, initializers and inputs between two models. Bytes
** that do not unpack get libFuzzer's byte mutations.
*/
#include <float.h>
#include <math.h>
#include <sys/stat.h>

#define FUZZ_NAME "fuzz_onnx"
#include "fuzz_common.h"
#include "onnx.pb-c.h"
#include "wnn/wnn_onnx.h"

#define MEMORY_LIMIT ((uint64_t)64 << 20) /* the context's: larger tensors are refused */
#define RUN_BYTES ((uint64_t)1 << 20)     /* a model holding more device memory is not run */
#define MAX_NAMES 256

/* libFuzzer's optional entry points (this file defines them) and its byte mutator */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static wnn_context *g_ctx;
static bool g_verbose; /* FUZZ_ONNX_VERBOSE=1: print why each model loads or not, for triage */
static int g_fd = -1;
static char g_path[64];
static char g_dir[64] = "/tmp/fuzz_onnx.XXXXXX";

static void write_file(const char *name, size_t bytes)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        fail("cannot write %s", path);
    for (size_t i = 0; i < bytes; i++)
        fputc((int)(i * 37 % 251), f);
    fclose(f);
}

static void remove_dir(void)
{
    char path[128];
    static const char *const files[] = {"weights.bin", "small.bin"};
    for (size_t i = 0; i < COUNT(files); i++) {
        snprintf(path, sizeof path, "%s/%s", g_dir, files[i]);
        unlink(path);
    }
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_one_thread();
    g_verbose = getenv("FUZZ_ONNX_VERBOSE") != NULL && strcmp(getenv("FUZZ_ONNX_VERBOSE"), "0") != 0;
    g_ctx = fuzz_context("cpu", MEMORY_LIMIT);
    /* the path-based calls read the model from a memory file */
    g_fd = fuzz_memory_file("onnx-model", g_path);
    /* external data: a folder with one file of weights and one short file */
    if (mkdtemp(g_dir) == NULL)
        fail("mkdtemp failed");
    write_file("weights.bin", 4096);
    write_file("small.bin", 3);
    atexit(remove_dir);
    return 0;
}

/* ---- the oracle --------------------------------------------------------------------- */

static void expect_failure(const char *what, wnn_status s)
{
    if (s == WNN_OK || s == WNN_STATUS_UNKNOWN || !known_status(s))
        fail("%s: status %d (%s) is no known failure", what, (int)s, wnn_status_string(s));
    const char *msg = wnn_onnx_last_error_message();
    if (msg == NULL || msg[0] == '\0')
        fail("%s: %s without a message", what, wnn_status_string(s));
}

static bool valid_desc(const wnn_operand_desc *d)
{
    if (wnn_data_type_name(d->data_type) == NULL || d->rank > WNN_MAX_RANK)
        return false;
    uint64_t n = 1;
    for (uint32_t i = 0; i < d->rank; i++) {
        if (d->shape[i] == 0 || d->shape[i] > WNN_MAX_DIMENSION)
            return false;
        n *= d->shape[i];
        if (n > WNN_MAX_DIMENSION)
            return false;
    }
    return true;
}

/* Deterministic input values: small numbers (indices stay mostly in range),
** signed zeros, and now and then a NaN or an infinity. */
static void fill(void *p, wnn_data_type t, size_t bytes, uint32_t seed)
{
    static const float f32[16] = {0.5f, -1.25f, 2.0f, 0.0f, -0.0f, 3.0f, 1e-3f, -7.5f,
                                  1.0f, 0.25f, -2.0f, 4.0f, 1.5f, -0.5f, NAN, INFINITY};
    static const uint16_t f16[16] = {0x3800, 0xbd00, 0x4000, 0x0000, 0x8000, 0x4200, 0x1419, 0xc780,
                                     0x3c00, 0x3400, 0xc000, 0x4400, 0x3e00, 0xb800, 0x7e00, 0x7c00};
    static const int8_t ints[16] = {0, 1, 2, -1, 3, 1, 0, 2, 1, 0, -2, 1, 2, 0, 1, 4};
    size_t size = wnn_data_type_size(t);
    unsigned char *b = p;
    for (size_t i = 0; size && i < bytes / size; i++) {
        uint32_t k = (uint32_t)(i * 7 + seed) % 16;
        if (seed % 4 != 0 && k >= 14)
            k -= 8; /* NaN and infinity in one input of four */
        int8_t v = ints[k];
        switch (t) {
        case WNN_DATA_TYPE_FLOAT32: memcpy(b + i * 4, &f32[k], 4); break;
        case WNN_DATA_TYPE_FLOAT16: memcpy(b + i * 2, &f16[k], 2); break;
        case WNN_DATA_TYPE_INT32: ((int32_t *)p)[i] = v; break;
        case WNN_DATA_TYPE_UINT32: ((uint32_t *)p)[i] = (uint32_t)(v < 0 ? -v : v); break;
        case WNN_DATA_TYPE_INT64: ((int64_t *)p)[i] = v; break;
        case WNN_DATA_TYPE_UINT64: ((uint64_t *)p)[i] = (uint64_t)(v < 0 ? -v : v); break;
        case WNN_DATA_TYPE_INT8: ((int8_t *)p)[i] = v; break;
        case WNN_DATA_TYPE_UINT8: b[i] = (unsigned char)(k % 2); break; /* also ONNX bool */
        default: b[i] = (unsigned char)(k | (k ^ 5) << 4); break;    /* int4, uint4 */
        }
    }
}

typedef struct buffers {
    wnn_onnx_buffer *list;
    size_t count;
} buffers;

static void free_buffers(buffers *b)
{
    for (size_t i = 0; i < b->count; i++)
        free(b->list[i].data);
    free(b->list);
}

/* One buffer per model input or output, inputs filled. */
static void make_buffers(const wnn_onnx_model *m, bool input, uint32_t seed, buffers *out)
{
    uint32_t n = input ? wnn_onnx_model_input_count(m) : wnn_onnx_model_output_count(m);
    out->list = calloc(n ? n : 1, sizeof *out->list);
    out->count = n;
    if (out->list == NULL)
        fail("out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const char *name;
        wnn_operand_desc d;
        if ((input ? wnn_onnx_model_get_input(m, i, &name, &d) : wnn_onnx_model_get_output(m, i, &name, &d)) !=
            WNN_OK)
            fail("get_%s %u: %s", input ? "input" : "output", i, wnn_onnx_last_error_message());
        size_t bytes = (size_t)wnn_operand_desc_byte_length(&d);
        out->list[i] = (wnn_onnx_buffer){name, malloc(bytes ? bytes : 1), bytes};
        if (out->list[i].data == NULL)
            fail("out of memory");
        if (input)
            fill(out->list[i].data, d.data_type, bytes, seed + i);
        else
            memset(out->list[i].data, 0xa5, bytes);
    }
}

/* The model's inputs and outputs are well formed; returns the device bytes
** it holds (constants, intermediates, its tensors). */
static uint64_t check_model(const wnn_onnx_model *m)
{
    uint32_t counts[2] = {wnn_onnx_model_input_count(m), wnn_onnx_model_output_count(m)};
    if (counts[1] == 0)
        fail("a model with no outputs loaded");
    for (int io = 0; io < 2; io++) {
        for (uint32_t i = 0; i < counts[io]; i++) {
            const char *name = NULL;
            wnn_operand_desc d;
            wnn_status s = io == 0 ? wnn_onnx_model_get_input(m, i, &name, &d)
                                   : wnn_onnx_model_get_output(m, i, &name, &d);
            if (s != WNN_OK || name == NULL)
                fail("%s %u: %s", io ? "output" : "input", i, wnn_status_string(s));
            if (!valid_desc(&d))
                fail("%s '%s': invalid descriptor (type %d, rank %u)", io ? "output" : "input", name,
                     (int)d.data_type, d.rank);
            wnn_tensor *t = wnn_onnx_model_tensor(m, name);
            if (t == NULL || wnn_tensor_byte_length(t) != wnn_operand_desc_byte_length(&d))
                fail("%s '%s': no tensor of its descriptor", io ? "output" : "input", name);
        }
        wnn_status s = io == 0 ? wnn_onnx_model_get_input(m, counts[0], NULL, NULL)
                               : wnn_onnx_model_get_output(m, counts[1], NULL, NULL);
        if (s != WNN_STATUS_INVALID_ARGUMENT)
            fail("get_%s past the end: %s", io ? "output" : "input", wnn_status_string(s));
    }
    wnn_memory_stats st;
    if (wnn_context_get_memory_stats(g_ctx, &st) != WNN_OK)
        fail("memory stats: %s", wnn_last_error_message());
    return st.in_use_bytes;
}

/* Runs the model twice on the same inputs: both runs fail alike or agree
** bit for bit. */
static void run_model(wnn_onnx_model *m, uint32_t seed)
{
    buffers in, out[2];
    make_buffers(m, true, seed, &in);
    wnn_status s[2];
    for (int r = 0; r < 2; r++) {
        make_buffers(m, false, 0, &out[r]);
        s[r] = wnn_onnx_model_run(m, in.list, in.count, out[r].list, out[r].count);
        if (s[r] != WNN_OK)
            expect_failure("run", s[r]);
    }
    if (s[0] != s[1])
        fail("two runs of the same model: %s, then %s", wnn_status_string(s[0]), wnn_status_string(s[1]));
    for (size_t i = 0; s[0] == WNN_OK && i < out[0].count; i++)
        if (memcmp(out[0].list[i].data, out[1].list[i].data, out[0].list[i].byte_length) != 0)
            fail("output '%s' differs between two runs on the same inputs", out[0].list[i].name);
    free_buffers(&in);
    free_buffers(&out[0]);
    free_buffers(&out[1]);
}

typedef struct issues {
    size_t count;
} issues;

static void on_issue(const wnn_onnx_issue *is, void *user_data)
{
    issues *n = user_data;
    n->count++;
    if (is->status == WNN_OK || is->message == NULL || is->message[0] == '\0' || is->op_type == NULL ||
        is->node_name == NULL || is->domain == NULL)
        fail("check: issue of node %u (%s) without a status or message", is->node_index,
             is->op_type ? is->op_type : "(null)");
}

/* read_info and check mode, on the same bytes through a path. */
static void check_paths(const uint8_t *data, size_t size, const wnn_onnx_options *o, bool loaded,
                        uint32_t outputs)
{
    fuzz_memory_file_write(g_fd, data, size);
    wnn_onnx_info info;
    memset(&info, 0x5a, sizeof info);
    wnn_status s = wnn_onnx_read_info(g_path, &info);
    if (s != WNN_OK) {
        expect_failure("read_info", s);
        if (loaded)
            fail("read_info: %s for a model that loads (%s)", wnn_status_string(s), wnn_onnx_last_error_message());
    } else {
        if (loaded && info.output_count != outputs)
            fail("read_info: %u outputs, the loaded model has %u", info.output_count, outputs);
        for (uint32_t i = 0; i < info.input_count; i++)
            if (info.inputs[i] == NULL)
                fail("read_info: input %u has no name", i);
        for (uint32_t i = 0; i < info.op_type_count; i++)
            if (info.op_types[i] == NULL)
                fail("read_info: operator %u has no name", i);
        wnn_onnx_info_free(&info);
    }
    issues n = {0};
    size_t count = 12345;
    s = wnn_onnx_check(g_ctx, g_path, o, on_issue, &n, &count);
    if (count != n.count)
        fail("check: %zu issues counted, %zu reported", count, n.count);
    if (s == WNN_OK) {
        if (count != 0)
            fail("check: WNN_OK with %zu issues", count);
    } else {
        expect_failure("check", s);
        if (count != 0 && s != WNN_STATUS_NOT_SUPPORTED)
            fail("check: %zu issues with %s", count, wnn_status_string(s));
    }
    if (loaded && count != 0)
        fail("check: %zu issues in a model that loads (%s)", count, wnn_onnx_last_error_message());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t empty[1];
    if (data == NULL)
        data = empty;
    static const wnn_onnx_dimension dims[] = {{"N", 1}, {"batch", 2}, {"batch_size", 1}, {"seq", 3},
                                              {"sequence_length", 2}, {"M", 2}};
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.dimensions = dims;
    o.dimension_count = COUNT(dims);
    o.default_dimension = 1 + (uint32_t)(size % 3);
    o.base_dir = g_dir;
    /* now and then a constant feed for an input named "shape" or "axes" */
    int64_t feed_values[2] = {1, -1};
    wnn_onnx_array feeds[2] = {{"shape", WNN_DATA_TYPE_INT64, 1, {2}, feed_values, sizeof feed_values},
                               {"axes", WNN_DATA_TYPE_INT64, 1, {1}, feed_values, sizeof feed_values[0]}};
    if (size % 5 == 0) {
        o.constant_inputs = feeds;
        o.constant_input_count = COUNT(feeds);
    }

    wnn_onnx_model *m = (wnn_onnx_model *)&o; /* must be cleared on failure */
    wnn_status s = wnn_onnx_model_load_memory(g_ctx, data, size, &o, &m);
    uint32_t outputs = 0;
    if (g_verbose)
        fprintf(stderr, "fuzz_onnx: load: %s %s\n", wnn_status_string(s), wnn_onnx_last_error_message());
    if (s != WNN_OK) {
        expect_failure("load", s);
        if (m != NULL)
            fail("load: %s left a model", wnn_status_string(s));
    } else {
        if (m == NULL)
            fail("load: WNN_OK without a model");
        outputs = wnn_onnx_model_output_count(m);
        if (check_model(m) <= RUN_BYTES)
            run_model(m, (uint32_t)size);
        wnn_onnx_model_release(m);
    }
    check_paths(data, size, &o, s == WNN_OK, outputs);

    fuzz_check_memory(g_ctx, "cpu", false); /* the runs' own errors were judged above */
    return 0;
}

/* ---- the structure-aware mutator ---------------------------------------------------- */

#define PICK(a) ((a)[rnd(COUNT(a))])

/* The operators the importer lowers or folds (docs/onnx.md), and a few it
** does not. */
static const char *const ops[] = {
    "Abs", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asinh", "Atanh", "AveragePool", "BatchNormalization",
    "BlackmanWindow", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Concat", "Constant", "ConstantOfShape",
    "Conv", "ConvTranspose", "Cos", "Cosh", "CumSum", "DepthToSpace", "DequantizeLinear", "Div", "Dropout",
    "DynamicQuantizeLinear", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten", "Floor",
    "GRU", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool", "GlobalLpPool",
    "GlobalMaxPool", "Greater", "GreaterOrEqual", "GroupNormalization", "HammingWindow", "HannWindow",
    "HardSigmoid", "HardSwish", "Hardmax", "Identity", "InstanceNormalization", "IsInf", "IsNaN", "LRN",
    "LSTM", "LayerNormalization", "LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "LpNormalization",
    "LpPool", "MatMul", "Max", "MaxPool", "Mean", "MeanVarianceNormalization", "Min", "Mish", "Mod", "Mul",
    "Neg", "NegativeLogLikelihoodLoss", "Not", "OneHot", "Or", "PRelu", "Pad", "Pow", "QuantizeLinear", "RNN",
    "Range", "Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Relu", "Reshape", "Resize",
    "Round", "Scatter", "ScatterElements", "ScatterND", "Selu", "Shape", "Shrink", "Sigmoid", "Sign", "Sin",
    "Sinh", "Size", "Slice", "Softmax", "SoftmaxCrossEntropyLoss", "Softplus", "Softsign", "SpaceToDepth",
    "Split", "Sqrt", "Squeeze", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Tile", "Transpose", "Trilu",
    "Unsqueeze", "Upsample", "Where", "Xor", "TopK", "NonZero", "Loop", ""};

static const int64_t edge_ints[] = {0, 1, -1, 2, 3, -2, 4, 7, -8, 16, 255, 65536, INT32_MAX, INT32_MIN,
                                    (int64_t)1 << 32, INT64_MAX, INT64_MIN, 9, 1, 0};
static const float edge_floats[] = {0.0f,  -0.0f, 1.0f,    -1.0f, 0.5f, 2.0f,     1e-5f, NAN,
                                    INFINITY, -INFINITY, FLT_MAX, 1e-40f, 1e30f, 3.0f};
static const char *const strings[] = {
    "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID", "linear", "nearest", "cubic", "bilinear", "constant",
    "reflect", "edge", "wrap", "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
    "tf_crop_and_resize", "half_pixel_symmetric", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
    "forward", "reverse", "bidirectional", "Sigmoid", "Tanh", "Relu", "none", "tanh", "add", "mul", "max",
    "DCR", "CRD", "mean", "sum", "ij,jk->ik", "ii->i", ""};

typedef struct attr_name {
    const char *name;
    Onnx__AttributeProto__AttributeType type;
} attr_name;

#define A_INT ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT
#define A_INTS ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS
#define A_FLOAT ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT
#define A_FLOATS ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS
#define A_STRING ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING
#define A_STRINGS ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS
#define A_TENSOR ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR

static const attr_name attr_names[] = {
    {"axis", A_INT}, {"axes", A_INTS}, {"perm", A_INTS}, {"keepdims", A_INT}, {"kernel_shape", A_INTS},
    {"pads", A_INTS}, {"strides", A_INTS}, {"dilations", A_INTS}, {"group", A_INT}, {"alpha", A_FLOAT},
    {"beta", A_FLOAT}, {"gamma", A_FLOAT}, {"epsilon", A_FLOAT}, {"transA", A_INT}, {"transB", A_INT},
    {"mode", A_STRING}, {"auto_pad", A_STRING}, {"to", A_INT}, {"value", A_TENSOR}, {"value_float", A_FLOAT},
    {"value_int", A_INT}, {"value_ints", A_INTS}, {"value_floats", A_FLOATS}, {"ceil_mode", A_INT},
    {"count_include_pad", A_INT}, {"storage_order", A_INT}, {"p", A_INT}, {"direction", A_STRING},
    {"hidden_size", A_INT}, {"activations", A_STRINGS}, {"layout", A_INT}, {"blocksize", A_INT},
    {"coordinate_transformation_mode", A_STRING}, {"nearest_mode", A_STRING}, {"cubic_coeff_a", A_FLOAT},
    {"exclude_outside", A_INT}, {"upper", A_INT}, {"exclusive", A_INT}, {"reverse", A_INT},
    {"select_last_index", A_INT}, {"noop_with_empty_axes", A_INT}, {"allowzero", A_INT},
    {"batch_dims", A_INT}, {"reduction", A_STRING}, {"stash_type", A_INT}, {"approximate", A_STRING},
    {"output_padding", A_INTS}, {"output_shape", A_INTS}, {"min", A_FLOAT}, {"max", A_FLOAT},
    {"dtype", A_INT}, {"split", A_INTS}, {"num_outputs", A_INT}, {"broadcast", A_INT}, {"scales", A_FLOATS},
    {"equation", A_STRING}, {"k", A_INT}, {"size", A_INT}, {"bias", A_FLOAT}, {"lambd", A_FLOAT},
    {"fmod", A_INT}, {"periodic", A_INT}, {"output_datatype", A_INT}, {"saturate", A_INT},
    {"linear_before_reset", A_INT}, {"clip", A_FLOAT}, {"input_forget", A_INT}, {"detect_negative", A_INT},
    {"ignore_index", A_INT}, {"num_groups", A_INT}, {"antialias", A_INT}, {"keep_aspect_ratio_policy", A_STRING}};

/* ONNX data types: WebNN's, and some it has not (string, double, bfloat16 ...). */
static const int32_t onnx_types[] = {1, 1, 1, 10, 6, 7, 7, 3, 2, 9, 12, 13, 11, 5, 4, 8, 16, 0, 21, 22, 99};
static const int64_t edge_dims[] = {0, 1, 1, 2, 2, 3, 4, 5, -1, 7, 16, 1 << 20, INT32_MAX, (int64_t)1 << 31};
static const char *const dim_params[] = {"N", "batch", "seq", "unk__0", "", "M"};

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (d == NULL)
        abort();
    return d;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        abort();
    return p;
}

/* Replaces a string field; v may point into the field itself. */
static void set_str(char **field, const char *v)
{
    char *d = xstrdup(v);
    free(*field);
    *field = d;
}

/* Grows a repeated field of n items of size bytes by one, at the end. */
static void *grow(void *array, size_t n, size_t size)
{
    void *p = realloc(array, (n + 1) * size);
    if (p == NULL)
        abort();
    return p;
}

static Onnx__GraphProto *g_graph;
static const char *g_names[MAX_NAMES]; /* value names of g_graph, valid until it changes */
static size_t g_name_count;

static void add_name(const char *s)
{
    if (s != NULL && s[0] != '\0' && g_name_count < MAX_NAMES)
        g_names[g_name_count++] = s;
}

static void collect_names(void)
{
    g_name_count = 0;
    const Onnx__GraphProto *g = g_graph;
    for (size_t i = 0; i < g->n_input; i++)
        add_name(g->input[i]->name);
    for (size_t i = 0; i < g->n_initializer; i++)
        add_name(g->initializer[i]->name);
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t k = 0; k < g->node[i]->n_output; k++)
            add_name(g->node[i]->output[k]);
}

static const char *some_name(void)
{
    static char fresh[16];
    if (g_name_count == 0 || rnd(10) == 0) {
        snprintf(fresh, sizeof fresh, "v%u", rnd(8));
        return fresh;
    }
    return g_names[rnd((uint32_t)g_name_count)];
}

/* ---- tensors ---- */

static size_t onnx_type_size(int32_t t)
{
    switch (t) {
    case 1: case 6: case 12: return 4;
    case 7: case 11: case 13: return 8;
    case 10: case 16: case 4: case 5: return 2;
    case 2: case 3: case 9: case 21: case 22: return 1;
    default: return 4;
    }
}

static int64_t element_count(const Onnx__TensorProto *t)
{
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0 || t->dims[i] > 4096)
            return -1;
        n *= t->dims[i];
        if (n > 4096)
            return -1;
    }
    return n;
}

static void clear_data(Onnx__TensorProto *t)
{
    free(t->float_data);
    free(t->int32_data);
    free(t->int64_data);
    free(t->double_data);
    free(t->uint64_data);
    t->float_data = NULL;
    t->int32_data = NULL;
    t->int64_data = NULL;
    t->double_data = NULL;
    t->uint64_data = NULL;
    t->n_float_data = t->n_int32_data = t->n_int64_data = t->n_double_data = t->n_uint64_data = 0;
    free(t->raw_data.data);
    t->raw_data = (ProtobufCBinaryData){0, NULL};
    t->has_raw_data = 0;
}

/* raw_data of n bytes, the old bytes kept and the rest drawn. */
static void resize_raw(Onnx__TensorProto *t, size_t n)
{
    uint8_t *p = realloc(t->raw_data.data, n ? n : 1);
    if (p == NULL)
        abort();
    for (size_t i = t->raw_data.data ? t->raw_data.len : 0; i < n; i++)
        p[i] = (uint8_t)(rnd(4) ? rnd(4) : rnd(256));
    t->raw_data = (ProtobufCBinaryData){n, p};
    t->has_raw_data = 1;
}

/* Typed values (int64_data, float_data ...) for the tensor's type. */
static void set_typed(Onnx__TensorProto *t, size_t n)
{
    clear_data(t);
    switch (t->data_type) {
    case 1:
        t->float_data = xcalloc(n, sizeof(float));
        for (size_t i = 0; i < n; i++)
            t->float_data[i] = rnd(3) ? (float)rnd(5) - 2.0f : PICK(edge_floats);
        t->n_float_data = n;
        break;
    case 7:
        t->int64_data = xcalloc(n, sizeof(int64_t));
        for (size_t i = 0; i < n; i++)
            t->int64_data[i] = rnd(3) ? (int64_t)rnd(5) - 1 : PICK(edge_ints);
        t->n_int64_data = n;
        break;
    case 11:
        t->double_data = xcalloc(n, sizeof(double));
        for (size_t i = 0; i < n; i++)
            t->double_data[i] = rnd(2) ? (double)rnd(5) : (double)PICK(edge_floats);
        t->n_double_data = n;
        break;
    case 12:
    case 13:
        t->uint64_data = xcalloc(n, sizeof(uint64_t));
        for (size_t i = 0; i < n; i++)
            t->uint64_data[i] = rnd(3) ? rnd(5) : (uint64_t)PICK(edge_ints);
        t->n_uint64_data = n;
        break;
    default:
        t->int32_data = xcalloc(n, sizeof(int32_t));
        for (size_t i = 0; i < n; i++)
            t->int32_data[i] = rnd(3) ? (int32_t)rnd(5) - 1 : (int32_t)PICK(edge_ints);
        t->n_int32_data = n;
        break;
    }
}

static void set_external(Onnx__TensorProto *t)
{
    static const char *const locations[] = {"weights.bin", "small.bin", "missing.bin", "../weights.bin",
                                            "/etc/hostname", "", ".", "weights.bin/x"};
    static const char *const numbers[] = {"0", "1", "16", "4096", "4095", "-1", "18446744073709551616", "x",
                                          "", "64"};
    static const char *const keys[] = {"location", "offset", "length", "checksum", "offset"};
    for (size_t i = 0; i < t->n_external_data; i++)
        onnx__string_string_entry_proto__free_unpacked(t->external_data[i], NULL);
    free(t->external_data);
    size_t n = 1 + rnd(3);
    t->external_data = xcalloc(n, sizeof *t->external_data);
    for (size_t i = 0; i < n; i++) {
        Onnx__StringStringEntryProto *e = malloc(sizeof *e);
        if (e == NULL)
            abort();
        onnx__string_string_entry_proto__init(e);
        e->key = xstrdup(i == 0 ? "location" : PICK(keys));
        e->value = xstrdup(i == 0 ? PICK(locations) : PICK(numbers));
        t->external_data[i] = e;
    }
    t->n_external_data = n;
    clear_data(t);
    t->has_data_location = 1;
    t->data_location = rnd(8) ? ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL
                              : ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
}

/* n - 1, n or n + 1, never below 0 */
static size_t off_by_one(size_t n)
{
    uint32_t k = rnd(3);
    return n + k > 0 ? n + k - 1 : 0;
}

static void mutate_tensor(Onnx__TensorProto *t)
{
    switch (rnd(9)) {
    case 0: /* a dimension */
        if (t->n_dims > 0) {
            t->dims[rnd((uint32_t)t->n_dims)] = PICK(edge_dims);
            break;
        }
        /* fall through */
    case 1: /* a dimension more or less */
        if (t->n_dims > 0 && rnd(2)) {
            t->n_dims--;
        } else if (t->n_dims < 10) {
            t->dims = grow(t->dims, t->n_dims, sizeof *t->dims);
            t->dims[t->n_dims++] = 1 + rnd(3);
        }
        break;
    case 2: /* the data type */
        t->has_data_type = 1;
        t->data_type = PICK(onnx_types);
        break;
    case 3: { /* the raw bytes fit the shape */
        int64_t n = element_count(t);
        size_t bytes = n < 0 ? rnd(64) : (size_t)n * onnx_type_size(t->data_type);
        if (!t->has_raw_data) {
            clear_data(t);
            t->has_raw_data = 1;
        }
        resize_raw(t, rnd(8) ? bytes : off_by_one(bytes));
        break;
    }
    case 4: /* raw bytes changed */
        if (t->has_raw_data && t->raw_data.len > 0) {
            for (uint32_t k = 1 + rnd(4); k > 0; k--) {
                size_t i = rnd((uint32_t)t->raw_data.len);
                t->raw_data.data[i] = rnd(2) ? (uint8_t)rnd(256) : (uint8_t)(t->raw_data.data[i] ^ (1u << rnd(8)));
            }
            break;
        }
        /* fall through */
    case 5: { /* typed values that fit the shape, or nearly */
        int64_t n = element_count(t);
        size_t count = n < 0 ? rnd(8) : (size_t)n;
        set_typed(t, rnd(8) ? count : off_by_one(count));
        break;
    }
    case 6: /* a small new shape, the data made to fit */
        free(t->dims);
        t->n_dims = rnd(4);
        t->dims = xcalloc(t->n_dims, sizeof *t->dims);
        for (size_t i = 0; i < t->n_dims; i++)
            t->dims[i] = rnd(4) + (rnd(8) != 0);
        if (rnd(2)) {
            set_typed(t, (size_t)element_count(t));
        } else {
            clear_data(t);
            resize_raw(t, (size_t)element_count(t) * onnx_type_size(t->data_type));
        }
        break;
    case 7:
        set_external(t);
        break;
    default:
        set_str(&t->name, some_name());
        break;
    }
}

/* ---- attributes ---- */

static void set_ints(int64_t **ints, size_t *n, size_t count, int64_t base)
{
    free(*ints);
    *ints = xcalloc(count, sizeof **ints);
    for (size_t i = 0; i < count; i++)
        (*ints)[i] = rnd(6) ? base + (int64_t)rnd(2) : PICK(edge_ints);
    *n = count;
}

static Onnx__TensorProto *new_tensor(void)
{
    Onnx__TensorProto *t = malloc(sizeof *t);
    if (t == NULL)
        abort();
    onnx__tensor_proto__init(t);
    t->has_data_type = 1;
    t->data_type = rnd(2) ? 7 : 1;
    t->n_dims = rnd(2);
    t->dims = xcalloc(1, sizeof *t->dims);
    t->dims[0] = 1 + rnd(4);
    set_typed(t, (size_t)element_count(t));
    return t;
}

static void mutate_attribute(Onnx__AttributeProto *a)
{
    if (rnd(24) == 0) { /* a type that does not match the value */
        static const Onnx__AttributeProto__AttributeType types[] = {A_INT, A_INTS, A_FLOAT, A_FLOATS,
                                                                    A_STRING, A_TENSOR};
        a->has_type = 1;
        a->type = PICK(types);
        return;
    }
    switch (a->type) {
    case A_INT:
        a->has_i = 1;
        a->i = rnd(3) ? (int64_t)rnd(6) - 1 : PICK(edge_ints);
        break;
    case A_FLOAT:
        a->has_f = 1;
        a->f = rnd(3) ? (float)rnd(5) * 0.5f : PICK(edge_floats);
        break;
    case A_STRING:
        free(a->s.data);
        a->s.data = (uint8_t *)xstrdup(PICK(strings));
        a->s.len = strlen((char *)a->s.data);
        a->has_s = 1;
        break;
    case A_INTS:
        if (a->n_ints > 0 && rnd(3)) {
            a->ints[rnd((uint32_t)a->n_ints)] = rnd(3) ? (int64_t)rnd(5) - 1 : PICK(edge_ints);
        } else if (a->n_ints > 0 && rnd(2)) {
            a->n_ints--;
        } else {
            set_ints(&a->ints, &a->n_ints, rnd(9), rnd(2) ? 0 : 1);
        }
        break;
    case A_FLOATS:
        if (a->n_floats > 0 && rnd(2)) {
            a->floats[rnd((uint32_t)a->n_floats)] = PICK(edge_floats);
        } else {
            a->n_floats = rnd(9);
            free(a->floats);
            a->floats = xcalloc(a->n_floats, sizeof *a->floats);
            for (size_t i = 0; i < a->n_floats; i++)
                a->floats[i] = rnd(3) ? 1.0f + (float)rnd(3) : PICK(edge_floats);
        }
        break;
    case A_STRINGS:
        a->strings = grow(a->strings, a->n_strings, sizeof *a->strings);
        a->strings[a->n_strings].data = (uint8_t *)xstrdup(PICK(strings));
        a->strings[a->n_strings].len = strlen((char *)a->strings[a->n_strings].data);
        a->n_strings++;
        break;
    case A_TENSOR:
        if (a->t == NULL)
            a->t = new_tensor();
        else
            mutate_tensor(a->t);
        break;
    default:
        break;
    }
}

static Onnx__AttributeProto *new_attribute(void)
{
    const attr_name *an = &PICK(attr_names);
    Onnx__AttributeProto *a = malloc(sizeof *a);
    if (a == NULL)
        abort();
    onnx__attribute_proto__init(a);
    a->name = xstrdup(an->name);
    a->has_type = 1;
    a->type = an->type;
    if (a->type == A_INTS)
        set_ints(&a->ints, &a->n_ints, 1 + rnd(4), rnd(2));
    else
        mutate_attribute(a);
    return a;
}

/* ---- nodes, inputs, the model ---- */

static Onnx__NodeProto *copy_node(const Onnx__NodeProto *n)
{
    size_t len = onnx__node_proto__get_packed_size(n);
    uint8_t *buf = malloc(len ? len : 1);
    if (buf == NULL)
        abort();
    onnx__node_proto__pack(n, buf);
    Onnx__NodeProto *c = onnx__node_proto__unpack(NULL, len, buf);
    free(buf);
    return c;
}

static void insert_node(Onnx__GraphProto *g, Onnx__NodeProto *n)
{
    if (n == NULL)
        return;
    g->node = grow(g->node, g->n_node, sizeof *g->node);
    size_t at = rnd((uint32_t)g->n_node + 1);
    memmove(&g->node[at + 1], &g->node[at], (g->n_node - at) * sizeof *g->node);
    g->node[at] = n;
    g->n_node++;
}

static void mutate_node_io(Onnx__NodeProto *n)
{
    bool out = rnd(4) == 0;
    char ***list = out ? &n->output : &n->input;
    size_t *count = out ? &n->n_output : &n->n_input;
    const char *name = rnd(10) == 0 ? "" : some_name();
    if (*count == 0 || rnd(4) == 0) {
        if (*count < 8) {
            *list = grow(*list, *count, sizeof **list);
            (*list)[(*count)++] = xstrdup(name);
        }
    } else if (rnd(6) == 0) {
        free((*list)[--*count]);
    } else {
        set_str(&(*list)[rnd((uint32_t)*count)], name);
    }
}

static void mutate_node(Onnx__GraphProto *g)
{
    if (g->n_node == 0) {
        Onnx__NodeProto *n = malloc(sizeof *n);
        if (n == NULL)
            abort();
        onnx__node_proto__init(n);
        n->op_type = xstrdup(PICK(ops));
        insert_node(g, n);
        return;
    }
    size_t i = rnd((uint32_t)g->n_node);
    Onnx__NodeProto *n = g->node[i];
    switch (rnd(8)) {
    case 0:
        set_str(&n->op_type, PICK(ops));
        break;
    case 1:
    case 2:
        mutate_node_io(n);
        break;
    case 3:
    case 4:
        if (n->n_attribute > 0 && rnd(4)) {
            mutate_attribute(n->attribute[rnd((uint32_t)n->n_attribute)]);
        } else if (n->n_attribute > 0 && rnd(2)) {
            size_t k = rnd((uint32_t)n->n_attribute);
            onnx__attribute_proto__free_unpacked(n->attribute[k], NULL);
            n->attribute[k] = n->attribute[--n->n_attribute];
        } else if (n->n_attribute < 16) {
            n->attribute = grow(n->attribute, n->n_attribute, sizeof *n->attribute);
            n->attribute[n->n_attribute++] = new_attribute();
        }
        break;
    case 5: /* a copy elsewhere, its outputs renamed now and then */
        if (g->n_node < 64) {
            Onnx__NodeProto *c = copy_node(n);
            for (size_t k = 0; c && k < c->n_output && rnd(2); k++)
                set_str(&c->output[k], some_name());
            insert_node(g, c);
        }
        break;
    case 6:
        onnx__node_proto__free_unpacked(n, NULL);
        memmove(&g->node[i], &g->node[i + 1], (g->n_node - i - 1) * sizeof *g->node);
        g->n_node--;
        break;
    default: {
        size_t j = rnd((uint32_t)g->n_node);
        g->node[i] = g->node[j];
        g->node[j] = n;
        break;
    }
    }
}

static Onnx__TypeProto__Tensor *tensor_type(Onnx__ValueInfoProto *vi)
{
    if (vi->type == NULL) {
        vi->type = malloc(sizeof *vi->type);
        if (vi->type == NULL)
            abort();
        onnx__type_proto__init(vi->type);
    }
    Onnx__TypeProto *tp = vi->type;
    if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || tp->tensor_type == NULL) {
        if (rnd(16) == 0)
            return NULL; /* leave a sequence or map type alone now and then */
        protobuf_c_message_free_unpacked(&tp->base, NULL);
        vi->type = NULL;
        vi->type = malloc(sizeof *vi->type);
        if (vi->type == NULL)
            abort();
        onnx__type_proto__init(vi->type);
        tp = vi->type;
        tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        tp->tensor_type = malloc(sizeof *tp->tensor_type);
        if (tp->tensor_type == NULL)
            abort();
        onnx__type_proto__tensor__init(tp->tensor_type);
        tp->tensor_type->has_elem_type = 1;
        tp->tensor_type->elem_type = 1;
    }
    return tp->tensor_type;
}

static void set_dim(Onnx__TensorShapeProto__Dimension *d)
{
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
        free(d->dim_param);
    d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
    uint32_t k = rnd(8);
    if (k < 5) {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
        d->dim_value = k < 4 ? 1 + (int64_t)rnd(4) : PICK(edge_dims);
    } else if (k < 7) {
        d->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
        d->dim_param = xstrdup(PICK(dim_params));
    }
}

static void mutate_value_info(Onnx__ValueInfoProto *vi)
{
    Onnx__TypeProto__Tensor *tt = tensor_type(vi);
    if (tt == NULL)
        return;
    switch (rnd(6)) {
    case 0:
        tt->has_elem_type = 1;
        tt->elem_type = PICK(onnx_types);
        break;
    case 1:
        if (tt->shape != NULL && rnd(4) == 0) { /* no shape at all */
            onnx__tensor_shape_proto__free_unpacked(tt->shape, NULL);
            tt->shape = NULL;
            break;
        }
        /* fall through */
    case 2:
    case 3: {
        if (tt->shape == NULL) {
            tt->shape = malloc(sizeof *tt->shape);
            if (tt->shape == NULL)
                abort();
            onnx__tensor_shape_proto__init(tt->shape);
        }
        Onnx__TensorShapeProto *s = tt->shape;
        if (s->n_dim > 0 && rnd(3)) {
            set_dim(s->dim[rnd((uint32_t)s->n_dim)]);
        } else if (s->n_dim > 0 && rnd(2)) {
            protobuf_c_message_free_unpacked(&s->dim[--s->n_dim]->base, NULL);
        } else if (s->n_dim < 10) {
            Onnx__TensorShapeProto__Dimension *d = malloc(sizeof *d);
            if (d == NULL)
                abort();
            onnx__tensor_shape_proto__dimension__init(d);
            set_dim(d);
            s->dim = grow(s->dim, s->n_dim, sizeof *s->dim);
            s->dim[s->n_dim++] = d;
        }
        break;
    }
    default:
        set_str(&vi->name, some_name());
        break;
    }
}

static Onnx__ValueInfoProto *new_value_info(const char *name)
{
    Onnx__ValueInfoProto *vi = malloc(sizeof *vi);
    if (vi == NULL)
        abort();
    onnx__value_info_proto__init(vi);
    vi->name = xstrdup(name);
    return vi;
}

static void mutate_io(Onnx__GraphProto *g)
{
    bool out = rnd(3) == 0;
    Onnx__ValueInfoProto ***list = out ? &g->output : &g->input;
    size_t *count = out ? &g->n_output : &g->n_input;
    if (*count == 0 || rnd(6) == 0) {
        if (*count < 16) {
            Onnx__ValueInfoProto *vi = new_value_info(some_name());
            mutate_value_info(vi);
            *list = grow(*list, *count, sizeof **list);
            (*list)[(*count)++] = vi;
        }
    } else if (rnd(8) == 0) {
        size_t i = rnd((uint32_t)*count);
        onnx__value_info_proto__free_unpacked((*list)[i], NULL);
        (*list)[i] = (*list)[--*count];
    } else {
        mutate_value_info((*list)[rnd((uint32_t)*count)]);
    }
}

static void mutate_initializer(Onnx__GraphProto *g)
{
    if (g->n_initializer == 0 || rnd(6) == 0) {
        if (g->n_initializer < 32) {
            Onnx__TensorProto *t = new_tensor();
            set_str(&t->name, some_name());
            g->initializer = grow(g->initializer, g->n_initializer, sizeof *g->initializer);
            g->initializer[g->n_initializer++] = t;
        }
    } else if (rnd(8) == 0) {
        size_t i = rnd((uint32_t)g->n_initializer);
        onnx__tensor_proto__free_unpacked(g->initializer[i], NULL);
        g->initializer[i] = g->initializer[--g->n_initializer];
    } else {
        mutate_tensor(g->initializer[rnd((uint32_t)g->n_initializer)]);
    }
}

/* A Constant node's tensor, or an initializer's. */
static void mutate_constant(Onnx__GraphProto *g)
{
    for (size_t tries = 0; tries < 4 && g->n_node > 0; tries++) {
        Onnx__NodeProto *n = g->node[rnd((uint32_t)g->n_node)];
        for (size_t k = 0; k < n->n_attribute; k++) {
            if (n->attribute[k]->t != NULL) {
                mutate_tensor(n->attribute[k]->t);
                return;
            }
        }
    }
    mutate_initializer(g);
}

static void mutate_versions(Onnx__ModelProto *m)
{
    static const char *const domains[] = {"", "ai.onnx", "com.microsoft", "ai.onnx.ml", "ai.onnx.preview.training"};
    if (rnd(4) == 0) {
        static const int64_t ir[] = {3, 4, 6, 7, 8, 9, 10, 0, -1, 1000};
        m->has_ir_version = rnd(16) != 0;
        m->ir_version = PICK(ir);
        return;
    }
    if (m->n_opset_import == 0 || rnd(8) == 0) {
        if (m->n_opset_import < 4) {
            Onnx__OperatorSetIdProto *o = malloc(sizeof *o);
            if (o == NULL)
                abort();
            onnx__operator_set_id_proto__init(o);
            o->domain = xstrdup(PICK(domains));
            o->has_version = 1;
            o->version = 1 + rnd(21);
            m->opset_import = grow(m->opset_import, m->n_opset_import, sizeof *m->opset_import);
            m->opset_import[m->n_opset_import++] = o;
        }
        return;
    }
    Onnx__OperatorSetIdProto *o = m->opset_import[rnd((uint32_t)m->n_opset_import)];
    if (rnd(8) == 0) {
        set_str(&o->domain, PICK(domains));
    } else {
        static const int64_t odd[] = {0, -1, 22, 23, 100, INT64_MAX};
        o->has_version = 1;
        o->version = rnd(6) ? 1 + rnd(21) : PICK(odd);
    }
}

static void mutate_model(Onnx__ModelProto *m)
{
    collect_names();
    Onnx__GraphProto *g = m->graph;
    switch (rnd(16)) {
    case 0: case 1: case 2: case 3: case 4: mutate_node(g); break;
    case 5: case 6: mutate_constant(g); break;
    case 7: case 8: mutate_initializer(g); break;
    case 9: case 10: case 11: mutate_io(g); break;
    case 12: mutate_versions(m); break;
    default: { /* rewire a graph output to a value */
        if (g->n_output > 0)
            set_str(&g->output[rnd((uint32_t)g->n_output)]->name, some_name());
        else
            mutate_io(g);
        break;
    }
    }
}

/* The model packed into data (at most max_size bytes); 0 when it does not fit. */
static size_t repack(Onnx__ModelProto *m, uint8_t *data, size_t max_size)
{
    size_t need = onnx__model_proto__get_packed_size(m);
    return need > 0 && need <= max_size ? onnx__model_proto__pack(m, data) : 0;
}

/* An unpacked model with a graph, or NULL. */
static Onnx__ModelProto *unpack(const uint8_t *data, size_t size)
{
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, size, data);
    if (m != NULL && m->graph == NULL) {
        onnx__model_proto__free_unpacked(m, NULL);
        return NULL;
    }
    return m;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    g_rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull | 1;
    if (rnd(16) == 0)
        return LLVMFuzzerMutate(data, size, max_size);
    Onnx__ModelProto *m = unpack(data, size);
    if (m == NULL)
        return LLVMFuzzerMutate(data, size, max_size);
    g_graph = m->graph;
    for (uint32_t edits = 1 + rnd(3); edits > 0; edits--)
        mutate_model(m);
    size_t out = repack(m, data, max_size);
    onnx__model_proto__free_unpacked(m, NULL);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}

/* Copies a node, an initializer or a graph input of the second model into
** the first. */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2, size_t size2,
                                 uint8_t *out, size_t max_out_size, unsigned int seed)
{
    g_rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull | 1;
    Onnx__ModelProto *a = unpack(data1, size1), *b = a ? unpack(data2, size2) : NULL;
    size_t n = 0;
    if (a != NULL && b != NULL) {
        Onnx__GraphProto *ga = a->graph, *gb = b->graph;
        uint32_t k = rnd(3);
        if (k == 0 && gb->n_node > 0 && ga->n_node < 64) {
            g_graph = ga;
            insert_node(ga, copy_node(gb->node[rnd((uint32_t)gb->n_node)]));
        } else if (k == 1 && gb->n_initializer > 0 && ga->n_initializer < 32) {
            size_t i = rnd((uint32_t)gb->n_initializer);
            ga->initializer = grow(ga->initializer, ga->n_initializer, sizeof *ga->initializer);
            ga->initializer[ga->n_initializer++] = gb->initializer[i];
            gb->initializer[i] = gb->initializer[--gb->n_initializer];
        } else if (gb->n_input > 0 && ga->n_input < 16) {
            size_t i = rnd((uint32_t)gb->n_input);
            ga->input = grow(ga->input, ga->n_input, sizeof *ga->input);
            ga->input[ga->n_input++] = gb->input[i];
            gb->input[i] = gb->input[--gb->n_input];
        }
        n = repack(a, out, max_out_size);
    }
    if (a != NULL)
        onnx__model_proto__free_unpacked(a, NULL);
    if (b != NULL)
        onnx__model_proto__free_unpacked(b, NULL);
    if (n == 0 && size1 <= max_out_size) {
        memcpy(out, data1, size1);
        n = size1;
    }
    return n;
}
