/*
** test-onnx.c -- the ONNX importer's C API (include/wnn/wnn_onnx.h) on
** small models made here with protobuf-c: loading from memory and from a
** file, free dimensions, external data, one-call and zero-copy runs, check
** mode, and the errors for truncated files, missing external data and
** unsupported operators; .npy files round trip.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "test.h"
#include "wnn/wnn_onnx.h"

/* x [batch, 2] float -> MatMul(x, w) -> op_type -> y, w = [[1, 2], [3, 4]];
** w inline, or in external_file when not NULL. */
static uint8_t *make_model(const char *op_type, const char *second_op, const char *external_file, size_t *size)
{
    static float w_data[4] = {1, 2, 3, 4};
    Onnx__TensorShapeProto__Dimension d0 = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT, d1 = d0;
    d0.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
    d0.dim_param = "batch";
    d1.value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d1.dim_value = 2;
    Onnx__TensorShapeProto__Dimension *dims[2] = {&d0, &d1};
    Onnx__TensorShapeProto shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    shape.n_dim = 2;
    shape.dim = dims;
    Onnx__TypeProto__Tensor tt = ONNX__TYPE_PROTO__TENSOR__INIT;
    tt.has_elem_type = 1;
    tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    tt.shape = &shape;
    Onnx__TypeProto type = ONNX__TYPE_PROTO__INIT;
    type.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    type.tensor_type = &tt;
    Onnx__ValueInfoProto x = ONNX__VALUE_INFO_PROTO__INIT, y = ONNX__VALUE_INFO_PROTO__INIT;
    x.name = "x";
    x.type = &type;
    y.name = "y";
    Onnx__ValueInfoProto *inputs[1] = {&x}, *outputs[1] = {&y};

    int64_t wdims[2] = {2, 2};
    Onnx__TensorProto w = ONNX__TENSOR_PROTO__INIT;
    w.name = "w";
    w.n_dims = 2;
    w.dims = wdims;
    w.has_data_type = 1;
    w.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
    Onnx__StringStringEntryProto *ext[1] = {&loc};
    if (external_file != NULL) {
        loc.key = "location";
        loc.value = (char *)external_file;
        w.n_external_data = 1;
        w.external_data = ext;
        w.has_data_location = 1;
        w.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    } else {
        w.has_raw_data = 1;
        w.raw_data.data = (uint8_t *)w_data;
        w.raw_data.len = sizeof w_data;
    }
    Onnx__TensorProto *inits[1] = {&w};

    char *mm_in[2] = {"x", "w"}, *mm_out[1] = {"m"}, *act_in[1] = {"m"}, *act_out[1] = {"a"}, *two_in[1] = {"a"},
         *two_out[1] = {"y"};
    Onnx__NodeProto mm = ONNX__NODE_PROTO__INIT, act = ONNX__NODE_PROTO__INIT, two = ONNX__NODE_PROTO__INIT;
    mm.op_type = "MatMul";
    mm.n_input = 2;
    mm.input = mm_in;
    mm.n_output = 1;
    mm.output = mm_out;
    act.op_type = (char *)op_type;
    act.name = "act";
    act.n_input = 1;
    act.input = act_in;
    act.n_output = 1;
    act.output = act_out;
    two.op_type = (char *)second_op;
    two.name = "second";
    two.n_input = 1;
    two.input = two_in;
    two.n_output = 1;
    two.output = two_out;
    Onnx__NodeProto *nodes[3] = {&mm, &act, &two};

    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.name = "test";
    g.n_node = 3;
    g.node = nodes;
    g.n_initializer = 1;
    g.initializer = inits;
    g.n_input = 1;
    g.input = inputs;
    g.n_output = 1;
    g.output = outputs;
    Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    opset.domain = "";
    opset.has_version = 1;
    opset.version = 13;
    Onnx__OperatorSetIdProto *opsets[1] = {&opset};
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.n_opset_import = 1;
    m.opset_import = opsets;
    m.graph = &g;
    *size = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = malloc(*size);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

/* A model of one node op_type(a[, b[, c]]) -> y with one attribute (a
** string, or an int when value starts with '#'), float inputs of the given
** shapes. */
static uint8_t *make_node_model(const char *op_type, const char *attr, const char *value, uint32_t n_in,
                                const int64_t *const *shapes, const uint32_t *ranks, size_t *size)
{
    Onnx__TensorShapeProto__Dimension dim[3][WNN_MAX_RANK], *dimp[3][WNN_MAX_RANK];
    Onnx__TensorShapeProto shape[3];
    Onnx__TypeProto__Tensor tt[3];
    Onnx__TypeProto type[3];
    Onnx__ValueInfoProto vi[3], y = ONNX__VALUE_INFO_PROTO__INIT, *inputs[3], *outputs[1] = {&y};
    char *names[3] = {"a", "b", "c"}, *out_names[1] = {"y"};
    for (uint32_t i = 0; i < n_in; i++) {
        for (uint32_t k = 0; k < ranks[i]; k++) {
            dim[i][k] = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
            dim[i][k].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dim[i][k].dim_value = shapes[i][k];
            dimp[i][k] = &dim[i][k];
        }
        shape[i] = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
        shape[i].n_dim = ranks[i];
        shape[i].dim = dimp[i];
        tt[i] = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
        tt[i].has_elem_type = 1;
        tt[i].elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
        tt[i].shape = &shape[i];
        type[i] = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
        type[i].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        type[i].tensor_type = &tt[i];
        vi[i] = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
        vi[i].name = names[i];
        vi[i].type = &type[i];
        inputs[i] = &vi[i];
    }
    y.name = "y";
    Onnx__AttributeProto at = ONNX__ATTRIBUTE_PROTO__INIT, *atp[1] = {&at};
    at.name = (char *)attr;
    at.has_type = 1;
    if (value[0] == '#') {
        at.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        at.has_i = 1;
        at.i = atoi(value + 1);
    } else {
        at.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
        at.has_s = 1;
        at.s.data = (uint8_t *)value;
        at.s.len = strlen(value);
    }
    Onnx__NodeProto node = ONNX__NODE_PROTO__INIT, *nodes[1] = {&node};
    node.op_type = (char *)op_type;
    node.n_input = n_in;
    node.input = names;
    node.n_output = 1;
    node.output = out_names;
    node.n_attribute = 1;
    node.attribute = atp;
    Onnx__GraphProto g = ONNX__GRAPH_PROTO__INIT;
    g.n_node = 1;
    g.node = nodes;
    g.n_input = n_in;
    g.input = inputs;
    g.n_output = 1;
    g.output = outputs;
    Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT, *opsets[1] = {&opset};
    opset.domain = "";
    opset.has_version = 1;
    opset.version = 13;
    Onnx__ModelProto m = ONNX__MODEL_PROTO__INIT;
    m.has_ir_version = 1;
    m.ir_version = 8;
    m.n_opset_import = 1;
    m.opset_import = opsets;
    m.graph = &g;
    *size = onnx__model_proto__get_packed_size(&m);
    uint8_t *buf = malloc(*size);
    onnx__model_proto__pack(&m, buf);
    return buf;
}

/* Einsum against loops: attention scores, a transpose, an inner product,
** a matrix-vector product, a sum over one operand's axis. */
static void test_einsum(wnn_context *ctx)
{
    float a[2 * 3 * 4], b[2 * 5 * 4], y[64];
    for (int i = 0; i < 24; i++)
        a[i] = (float)(i % 7) - 3;
    for (int i = 0; i < 40; i++)
        b[i] = (float)(i % 5) * 0.5f - 1;
    static const struct {
        const char *eq;
        uint32_t n_in, ra, rb;
        int64_t sa[3], sb[3];
    } cases[] = {
        {"bqd,bkd->bqk", 2, 3, 3, {2, 3, 4}, {2, 5, 4}},
        {"ij->ji", 1, 2, 0, {6, 4}, {0}},
        {"i,i->", 2, 1, 1, {24}, {24}},
        {"ij,j->i", 2, 2, 1, {6, 4}, {4}},
        {"bij->bj", 1, 3, 0, {2, 3, 4}, {0}},
        {"ik,kj->ji", 2, 2, 2, {6, 4}, {4, 10}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t *shapes[2] = {cases[c].sa, cases[c].sb};
        uint32_t ranks[2] = {cases[c].ra, cases[c].rb};
        size_t size;
        uint8_t *model = make_node_model("Einsum", "equation", cases[c].eq, cases[c].n_in, shapes, ranks, &size);
        wnn_onnx_model *m = NULL;
        wnn_status st = wnn_onnx_model_load_memory(ctx, model, size, NULL, &m);
        free(model);
        CHECK_OK(st);
        if (st != WNN_OK)
            continue;
        wnn_operand_desc od;
        wnn_onnx_model_get_output(m, 0, NULL, &od);
        size_t na = 1, nb = 1;
        for (uint32_t i = 0; i < cases[c].ra; i++)
            na *= (size_t)cases[c].sa[i];
        for (uint32_t i = 0; i < cases[c].rb; i++)
            nb *= (size_t)cases[c].sb[i];
        wnn_onnx_buffer in[2] = {{"a", a, na * 4}, {"b", b, nb * 4}};
        size_t ny = (size_t)wnn_operand_desc_element_count(&od);
        wnn_onnx_buffer out = {"y", y, ny * 4};
        CHECK_OK(wnn_onnx_model_run(m, in, cases[c].n_in, &out, 1));
        float want[64] = {0};
        switch (c) {
        case 0:
            for (int bb = 0; bb < 2; bb++)
                for (int q = 0; q < 3; q++)
                    for (int k = 0; k < 5; k++)
                        for (int d = 0; d < 4; d++)
                            want[(bb * 3 + q) * 5 + k] += a[(bb * 3 + q) * 4 + d] * b[(bb * 5 + k) * 4 + d];
            break;
        case 1:
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 4; j++)
                    want[j * 6 + i] = a[i * 4 + j];
            break;
        case 2:
            for (int i = 0; i < 24; i++)
                want[0] += a[i] * b[i];
            break;
        case 3:
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 4; j++)
                    want[i] += a[i * 4 + j] * b[j];
            break;
        case 4:
            for (int bb = 0; bb < 2; bb++)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 4; j++)
                        want[bb * 4 + j] += a[(bb * 3 + i) * 4 + j];
            break;
        case 5:
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 10; j++)
                    for (int k = 0; k < 4; k++)
                        want[j * 6 + i] += a[i * 4 + k] * b[k * 10 + j];
            break;
        }
        for (size_t i = 0; i < ny; i++)
            CHECK_NEAR(y[i], want[i], 1e-4);
        wnn_onnx_model_release(m);
    }
}

/* Every truncation and a sweep of corrupted bytes of a valid model load
** cleanly or fail with a status, never crash (ASan runs this too). */
static void test_damage(wnn_context *ctx)
{
    size_t size;
    uint8_t *model = make_model("Relu", "Identity", NULL, &size);
    uint8_t *copy = malloc(size);
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.default_dimension = 1;
    int failed = 0, loaded = 0;
    for (size_t len = 0; len < size; len++) {
        wnn_onnx_model *m = NULL;
        wnn_status st = wnn_onnx_model_load_memory(ctx, model, len, &o, &m);
        st == WNN_OK ? loaded++ : failed++;
        CHECK((st == WNN_OK) == (m != NULL));
        wnn_onnx_model_release(m);
    }
    static const uint8_t flips[] = {0x00, 0xff, 0x80, 0x7f, 0x01};
    for (size_t at = 0; at < size; at++) {
        for (size_t f = 0; f < sizeof flips; f++) {
            memcpy(copy, model, size);
            copy[at] = flips[f];
            wnn_onnx_model *m = NULL;
            wnn_status st = wnn_onnx_model_load_memory(ctx, copy, size, &o, &m);
            st == WNN_OK ? loaded++ : failed++;
            wnn_onnx_model_release(m);
        }
    }
    CHECK(failed > 0);
    free(copy);
    free(model);
}

/* GroupNormalization (opset 18: a scale and a bias per group) against loops. */
static void test_group_norm(wnn_context *ctx)
{
    enum { N = 2, C = 4, G = 2, S = 3 };
    static const int64_t sx[3] = {N, C, S}, sg[1] = {G};
    const int64_t *shapes[3] = {sx, sg, sg};
    uint32_t ranks[3] = {3, 1, 1};
    size_t size;
    uint8_t *model = make_node_model("GroupNormalization", "num_groups", "#2", 3, shapes, ranks, &size);
    wnn_onnx_model *m = NULL;
    CHECK_OK(wnn_onnx_model_load_memory(ctx, model, size, NULL, &m));
    free(model);
    float x[N * C * S], scale[G] = {2, -1}, bias[G] = {0.5f, 1}, y[N * C * S];
    for (int i = 0; i < N * C * S; i++)
        x[i] = (float)((i * 5) % 11) - 4;
    wnn_onnx_buffer in[3] = {{"a", x, sizeof x}, {"b", scale, sizeof scale}, {"c", bias, sizeof bias}};
    wnn_onnx_buffer out = {"y", y, sizeof y};
    CHECK_OK(wnn_onnx_model_run(m, in, 3, &out, 1));
    for (int n = 0; n < N; n++) {
        for (int g = 0; g < G; g++) {
            const float *p = x + (n * C + g * (C / G)) * S;
            double mean = 0, var = 0;
            for (int i = 0; i < C / G * S; i++)
                mean += p[i];
            mean /= C / G * S;
            for (int i = 0; i < C / G * S; i++)
                var += (p[i] - mean) * (p[i] - mean);
            var /= C / G * S;
            for (int i = 0; i < C / G * S; i++)
                CHECK_NEAR(y[(n * C + g * (C / G)) * S + i], scale[g] * (p[i] - mean) / sqrt(var + 1e-5) + bias[g],
                           1e-4);
        }
    }
    wnn_onnx_model_release(m);
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, size, f);
    fclose(f);
}

static int issues_seen;

static void on_issue(const wnn_onnx_issue *is, void *user_data)
{
    (void)user_data;
    issues_seen++;
    CHECK(strstr(is->message, is->op_type) != NULL);
    CHECK_STATUS(is->status, WNN_STATUS_NOT_SUPPORTED);
}

int main(void)
{
    wnn_context_options co = WNN_CONTEXT_OPTIONS_INIT;
    co.device = test_device();
    wnn_context *ctx;
    if (wnn_context_create(&co, &ctx) != WNN_OK) {
        printf("device %s is not available\n", co.device);
        return 77;
    }
    size_t size;
    uint8_t *model = make_model("Relu", "Identity", NULL, &size);

    /* a free dimension must be bound */
    wnn_onnx_model *m = (wnn_onnx_model *)1;
    CHECK_STATUS(wnn_onnx_model_load_memory(ctx, model, size, NULL, &m), WNN_STATUS_NOT_SUPPORTED);
    CHECK(m == NULL);
    CHECK(strstr(wnn_onnx_last_error_message(), "'batch'") != NULL);

    /* bound by name: one-call run */
    wnn_onnx_dimension batch = {"batch", 2};
    wnn_onnx_options o = WNN_ONNX_OPTIONS_INIT;
    o.dimensions = &batch;
    o.dimension_count = 1;
    CHECK_OK(wnn_onnx_model_load_memory(ctx, model, size, &o, &m));
    CHECK_EQ_INT(wnn_onnx_model_input_count(m), 1);
    CHECK_EQ_INT(wnn_onnx_model_output_count(m), 1);
    const char *name;
    wnn_operand_desc d;
    CHECK_OK(wnn_onnx_model_get_input(m, 0, &name, &d));
    CHECK(strcmp(name, "x") == 0);
    CHECK_EQ_INT(d.rank, 2);
    CHECK_EQ_INT(d.shape[0], 2);
    float x[4] = {1, 1, -1, -1}, y[4] = {0};
    wnn_onnx_buffer in = {"x", x, sizeof x}, out = {"y", y, sizeof y};
    CHECK_OK(wnn_onnx_model_run(m, &in, 1, &out, 1));
    CHECK_NEAR(y[0], 4, 0);
    CHECK_NEAR(y[1], 6, 0);
    CHECK_NEAR(y[2], 0, 0);
    CHECK_NEAR(y[3], 0, 0);
    /* errors of run */
    wnn_onnx_buffer bad = {"nope", x, sizeof x};
    CHECK_STATUS(wnn_onnx_model_run(m, &bad, 1, &out, 1), WNN_STATUS_INVALID_ARGUMENT);
    wnn_onnx_buffer short_out = {"y", y, 4};
    CHECK_STATUS(wnn_onnx_model_run(m, &in, 1, &short_out, 1), WNN_STATUS_BYTE_LENGTH_MISMATCH);
    CHECK_STATUS(wnn_onnx_model_run(m, NULL, 0, &out, 1), WNN_STATUS_INVALID_ARGUMENT);

    /* zero copy: the caller's input tensor, the model's output tensor */
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 2, {2, 2}, true, true, false};
    wnn_tensor *t;
    CHECK_OK(wnn_context_create_tensor(ctx, &td, &t));
    float x2[4] = {0, 1, 1, 0};
    CHECK_OK(wnn_context_write_tensor(ctx, t, x2, sizeof x2));
    wnn_named_tensor nt = {"x", t};
    CHECK_OK(wnn_onnx_model_dispatch(m, &nt, 1, NULL, 0));
    CHECK(wnn_onnx_model_tensor(m, "y") != NULL);
    CHECK(wnn_onnx_model_tensor(m, "nope") == NULL);
    CHECK_OK(wnn_context_read_tensor_sync(ctx, wnn_onnx_model_tensor(m, "y"), y, sizeof y));
    CHECK_NEAR(y[0], 3, 0);
    CHECK_NEAR(y[1], 4, 0);
    CHECK_NEAR(y[2], 1, 0);
    CHECK_NEAR(y[3], 2, 0);
    wnn_named_tensor unknown = {"q", t};
    CHECK_STATUS(wnn_onnx_model_dispatch(m, &unknown, 1, NULL, 0), WNN_STATUS_NAME_MISMATCH);
    wnn_tensor_release(t);
    wnn_onnx_model_release(m);
    wnn_onnx_model_release(NULL);

    /* the default dimension and a whole input shape */
    o = (wnn_onnx_options)WNN_ONNX_OPTIONS_INIT;
    o.default_dimension = 3;
    CHECK_OK(wnn_onnx_model_load_memory(ctx, model, size, &o, &m));
    CHECK_OK(wnn_onnx_model_get_output(m, 0, NULL, &d));
    CHECK_EQ_INT(d.shape[0], 3);
    wnn_onnx_model_release(m);
    wnn_onnx_input_shape shp = {"x", 2, {5, 3}};
    o = (wnn_onnx_options)WNN_ONNX_OPTIONS_INIT;
    o.input_shapes = &shp;
    o.input_shape_count = 1;
    CHECK_STATUS(wnn_onnx_model_load_memory(ctx, model, size, &o, &m), WNN_STATUS_INVALID_ARGUMENT);

    /* truncated and corrupt bytes */
    CHECK_STATUS(wnn_onnx_model_load_memory(ctx, model, size / 2, &o, &m), WNN_STATUS_OPERATION_ERROR);
    uint8_t junk[64];
    memset(junk, 0xff, sizeof junk);
    CHECK_STATUS(wnn_onnx_model_load_memory(ctx, junk, sizeof junk, &o, &m), WNN_STATUS_OPERATION_ERROR);
    CHECK_STATUS(wnn_onnx_model_load(ctx, "/nonexistent/model.onnx", &o, &m), WNN_STATUS_OPERATION_ERROR);
    CHECK_STATUS(wnn_onnx_model_load(NULL, "x", &o, &m), WNN_STATUS_INVALID_ARGUMENT);
    free(model);

    /* external data beside the model file, then missing */
    char dir[] = "/tmp/wnn-onnx-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char mpath[256], wpath[256];
    snprintf(mpath, sizeof mpath, "%s/model.onnx", dir);
    snprintf(wpath, sizeof wpath, "%s/w.bin", dir);
    model = make_model("Relu", "Identity", "w.bin", &size);
    write_file(mpath, model, size);
    free(model);
    float w[4] = {1, 2, 3, 4};
    write_file(wpath, w, sizeof w);
    o = (wnn_onnx_options)WNN_ONNX_OPTIONS_INIT;
    o.default_dimension = 2;
    CHECK_OK(wnn_onnx_model_load(ctx, mpath, &o, &m));
    CHECK_OK(wnn_onnx_model_run(m, &in, 1, &out, 1));
    CHECK_NEAR(y[1], 6, 0);
    wnn_onnx_model_release(m);
    write_file(wpath, w, 8); /* short */
    CHECK_STATUS(wnn_onnx_model_load(ctx, mpath, &o, &m), WNN_STATUS_OPERATION_ERROR);
    CHECK(strstr(wnn_onnx_last_error_message(), "ends early") != NULL);
    unlink(wpath);
    CHECK_STATUS(wnn_onnx_model_load(ctx, mpath, &o, &m), WNN_STATUS_OPERATION_ERROR);
    CHECK(strstr(wnn_onnx_last_error_message(), "w.bin") != NULL);

    /* info, and check mode lists both unsupported nodes */
    model = make_model("NoSuchOp", "AlsoNoSuchOp", NULL, &size);
    write_file(mpath, model, size);
    free(model);
    wnn_onnx_info info;
    CHECK_OK(wnn_onnx_read_info(mpath, &info));
    CHECK_EQ_INT(info.input_count, 1);
    CHECK_EQ_INT(info.op_type_count, 3);
    CHECK_EQ_INT(info.opset, 13);
    wnn_onnx_info_free(&info);
    size_t issues = 0;
    CHECK_STATUS(wnn_onnx_check(ctx, mpath, &o, on_issue, NULL, &issues), WNN_STATUS_NOT_SUPPORTED);
    CHECK_EQ_INT(issues, 2);
    CHECK_EQ_INT(issues_seen, 2);
    CHECK_STATUS(wnn_onnx_model_load(ctx, mpath, &o, &m), WNN_STATUS_NOT_SUPPORTED);
    CHECK(strstr(wnn_onnx_last_error_message(), "'act' (NoSuchOp, opset 13)") != NULL);
    unlink(mpath);

    /* .npy round trip */
    char npy[256];
    snprintf(npy, sizeof npy, "%s/a.npy", dir);
    int64_t vals[3] = {1, -2, 3};
    wnn_onnx_array a = {NULL, WNN_DATA_TYPE_INT64, 1, {3}, vals, sizeof vals}, back;
    CHECK_OK(wnn_onnx_array_write_npy(npy, &a));
    CHECK_OK(wnn_onnx_array_read_npy(npy, &back));
    CHECK_EQ_INT(back.data_type, WNN_DATA_TYPE_INT64);
    CHECK_EQ_INT(back.rank, 1);
    CHECK_EQ_INT(back.shape[0], 3);
    CHECK(back.byte_length == sizeof vals && memcmp(back.data, vals, sizeof vals) == 0);
    wnn_onnx_array_free(&back);
    write_file(npy, "\x93NUMPY\x01\x00", 8);
    CHECK_STATUS(wnn_onnx_array_read_npy(npy, &back), WNN_STATUS_OPERATION_ERROR);
    unlink(npy);
    rmdir(dir);

    test_einsum(ctx);
    test_damage(ctx);
    test_group_norm(ctx);
    wnn_context_release(ctx);
    TEST_DONE();
}
