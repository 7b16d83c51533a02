/* SPDX-License-Identifier: Apache-2.0 */
/*
** onnx.c -- wnn.onnx: ONNX models from Python over libwnn_onnx
** (include/wnn/wnn_onnx.h). load() reads a model for a context's device and
** returns a wnn.onnx.Model; Model.run() takes NumPy arrays, any DLPack
** producer (torch tensors) or wnn tensors and returns NumPy arrays, or wnn
** tensors with return_tensors=True for zero-copy chaining. check() lists the
** nodes a model cannot lower. Without WNN_HAVE_ONNX (an extension built
** without the importer) the same names exist and raise NotSupportedError.
**
** Inputs. Buffer-protocol objects (NumPy arrays, bytes) and Python data are
** written into the model's own input tensor: one copy, done before run()
** returns, so the caller may reuse the array at once. Other objects with
** __dlpack__ are imported into the model's context (no copy where the memory
** is the device's) and bound directly; wnn tensors are bound as they are.
** Outputs. By default each requested output is read into a new NumPy array.
** With return_tensors=True each run gets fresh output tensors (never the
** model's own, so a later run cannot overwrite what an earlier one returned)
** and run() returns without waiting.
*/
#include "wnnpy.h"

#include <string.h>

#ifdef WNN_HAVE_ONNX
#include <wnn/wnn_onnx.h>

typedef struct {
    PyObject_HEAD
    WnnContextObject *ctx;
    wnn_onnx_model *model;
    PyObject *path;    /* str */
    PyObject *inputs;  /* tuple of TensorInfo */
    PyObject *outputs; /* tuple of TensorInfo */
} WnnOnnxModelObject;

static PyTypeObject WnnOnnxModel_Type;
static PyTypeObject *TensorInfo_Type;

static PyStructSequence_Field tensor_info_fields[] = {
    {"name", "the input's or output's name in the model"},
    {"shape", "the static shape chosen at load time, a tuple of ints"},
    {"dtype", "the WebNN data type name (ONNX bool is \"uint8\")"},
    {NULL, NULL},
};

static PyStructSequence_Desc tensor_info_desc = {
    "wnn.onnx.TensorInfo", "A model input or output: (name, shape, dtype).", tensor_info_fields, 3,
};

static PyObject *raise_onnx(wnn_status s) { return wnnpy_raise(s, wnn_onnx_last_error_message()); }

/* ------------------------------------------------------------------------ */
/* Load options                                                              */
/* ------------------------------------------------------------------------ */

/* The device argument: a Context, a device name, or None ("cpu"). A name
** gives the module's default context of that device, the one wnn.from_dlpack
** imports into, so its tensors bind without copies. A new reference. */
static WnnContextObject *resolve_context(PyObject *device, const char *func)
{
    if (!device || device == Py_None) return wnnpy_default_context("cpu");
    if (PyObject_TypeCheck(device, &WnnContext_Type)) return (WnnContextObject *)Py_NewRef(device);
    if (PyUnicode_Check(device)) {
        const char *name = PyUnicode_AsUTF8(device);
        return name ? wnnpy_default_context(name) : NULL;
    }
    PyErr_Format(PyExc_TypeError, "%s: device must be a wnn.Context, a device name or None, not %.100s", func,
                 Py_TYPE(device)->tp_name);
    return NULL;
}

/* Load options filled from shapes= (a dict: a free dimension's name -> int,
** or an input's name -> a sequence of ints), owning their arrays. The names
** point into the dict's keys, which outlive the load. */
typedef struct {
    wnn_onnx_options o;
    wnn_onnx_dimension *dims;
    wnn_onnx_input_shape *shapes;
    wnn_onnx_array *constants;
    Py_buffer *views; /* one per constant, holding its bytes */
    Py_ssize_t n_views;
    void **copies;
} load_options;

static void load_options_free(load_options *lo)
{
    for (Py_ssize_t i = 0; i < lo->n_views; i++) {
        PyBuffer_Release(&lo->views[i]);
        PyMem_Free(lo->copies[i]);
    }
    PyMem_Free(lo->views);
    PyMem_Free(lo->copies);
    PyMem_Free(lo->constants);
    PyMem_Free(lo->dims);
    PyMem_Free(lo->shapes);
}

/* constants= (a dict: an input's name -> an array), the values of inputs
** that an operator needs as constants (a shape, or a condition such as a
** sample rate that picks an If branch). */
static int add_constants(load_options *lo, PyObject *constants, const char *func)
{
    if (!PyDict_Check(constants)) {
        PyErr_Format(PyExc_TypeError, "%s: constants must be a dict of input name -> array, not %.100s", func,
                     Py_TYPE(constants)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyDict_Size(constants), pos = 0;
    lo->constants = PyMem_Calloc(n ? (size_t)n : 1, sizeof *lo->constants);
    lo->views = PyMem_Calloc(n ? (size_t)n : 1, sizeof *lo->views);
    lo->copies = PyMem_Calloc(n ? (size_t)n : 1, sizeof *lo->copies);
    if (!lo->constants || !lo->views || !lo->copies) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *value;
    while (PyDict_Next(constants, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: constants keys must be str", func);
            return -1;
        }
        Py_buffer *view = &lo->views[lo->n_views];
        void *bytes;
        if (wnnpy_get_buffer(value, view, &bytes, &lo->copies[lo->n_views]) < 0) return -1;
        lo->n_views++;
        wnn_onnx_array *a = &lo->constants[lo->o.constant_input_count++];
        a->name = (char *)name;
        a->data_type = wnnpy_format_data_type(view->format, view->itemsize);
        if (a->data_type == WNN_DATA_TYPE_INVALID || view->ndim > WNN_MAX_RANK) {
            PyErr_Format(PyExc_TypeError, "%s: constants['%s'] has no wnn data type or too many dimensions", func,
                         name);
            return -1;
        }
        a->rank = (uint32_t)view->ndim;
        for (int i = 0; i < view->ndim; i++) a->shape[i] = (uint32_t)view->shape[i];
        a->data = bytes;
        a->byte_length = (size_t)view->len;
    }
    lo->o.constant_inputs = lo->constants;
    return 0;
}

static int load_options_init(load_options *lo, PyObject *shapes, PyObject *default_dimension, PyObject *constants,
                             const char *func)
{
    memset(lo, 0, sizeof *lo);
    lo->o = (wnn_onnx_options)WNN_ONNX_OPTIONS_INIT;
    if (default_dimension && default_dimension != Py_None &&
        wnnpy_uint32(default_dimension, "default_dimension", &lo->o.default_dimension) < 0)
        return -1;
    if (constants && constants != Py_None && add_constants(lo, constants, func) < 0) return -1;
    if (!shapes || shapes == Py_None) return 0;
    if (!PyDict_Check(shapes)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: shapes must be a dict of dimension name -> int or input name -> shape, not %.100s", func,
                     Py_TYPE(shapes)->tp_name);
        return -1;
    }
    Py_ssize_t n = PyDict_Size(shapes), pos = 0;
    lo->dims = PyMem_Calloc(n ? (size_t)n : 1, sizeof *lo->dims);
    lo->shapes = PyMem_Calloc(n ? (size_t)n : 1, sizeof *lo->shapes);
    if (!lo->dims || !lo->shapes) {
        PyErr_NoMemory();
        return -1;
    }
    PyObject *key, *value;
    while (PyDict_Next(shapes, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        if (!name) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s: shapes keys must be str", func);
            return -1;
        }
        char what[160];
        PyOS_snprintf(what, sizeof what, "%s: shapes['%s']", func, name);
        if (PyLong_Check(value)) {
            wnn_onnx_dimension *d = &lo->dims[lo->o.dimension_count++];
            d->name = name;
            if (wnnpy_uint32(value, what, &d->value) < 0) return -1;
        } else {
            wnn_onnx_input_shape *s = &lo->shapes[lo->o.input_shape_count++];
            s->name = name;
            if (wnnpy_shape(value, what, s->shape, &s->rank) < 0) return -1;
        }
    }
    lo->o.dimensions = lo->dims;
    lo->o.input_shapes = lo->shapes;
    return 0;
}

/* ------------------------------------------------------------------------ */
/* load()                                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *tensor_info(const char *name, const wnn_operand_desc *d)
{
    PyObject *info = PyStructSequence_New(TensorInfo_Type);
    if (!info) return NULL;
    PyObject *items[3] = {PyUnicode_FromString(name), wnnpy_shape_tuple(d->shape, d->rank),
                          wnnpy_data_type_name(d->data_type)};
    for (int i = 0; i < 3; i++) {
        if (!items[i]) {
            for (int j = 0; j < 3; j++) Py_XDECREF(items[j]);
            Py_DECREF(info);
            return NULL;
        }
        PyStructSequence_SET_ITEM(info, i, items[i]);
    }
    return info;
}

/* A tuple of TensorInfo for the model's inputs or outputs. */
static PyObject *tensor_infos(const wnn_onnx_model *m, bool input)
{
    uint32_t n = input ? wnn_onnx_model_input_count(m) : wnn_onnx_model_output_count(m);
    PyObject *t = PyTuple_New(n);
    for (uint32_t i = 0; t && i < n; i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_status s = input ? wnn_onnx_model_get_input(m, i, &name, &d) : wnn_onnx_model_get_output(m, i, &name, &d);
        PyObject *info = s == WNN_OK ? tensor_info(name, &d) : raise_onnx(s);
        if (!info) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, info);
    }
    return t;
}

/* load(path, device="cpu", shapes=None, *, default_dimension=0, constants=None) */
static PyObject *onnx_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "device", "shapes", "default_dimension", "constants", NULL};
    PyObject *v[5] = {NULL, NULL, NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("load", args, nargs, kwnames, 3, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "load() missing required argument 'path'");
    PyObject *path_bytes = NULL;
    if (!PyUnicode_FSConverter(v[0], &path_bytes)) return NULL;
    WnnContextObject *ctx = resolve_context(v[1], "load");
    load_options lo;
    if (!ctx || load_options_init(&lo, v[2], v[3], v[4], "load") < 0) {
        if (ctx) load_options_free(&lo);
        Py_XDECREF(ctx);
        Py_DECREF(path_bytes);
        return NULL;
    }
    wnn_onnx_model *m = NULL;
    wnn_status s;
    const char *path = PyBytes_AS_STRING(path_bytes);
    Py_BEGIN_ALLOW_THREADS s = wnn_onnx_model_load(ctx->ctx, path, &lo.o, &m);
    Py_END_ALLOW_THREADS
    load_options_free(&lo);
    WnnOnnxModelObject *self = NULL;
    if (s != WNN_OK) {
        raise_onnx(s);
    } else if ((self = PyObject_New(WnnOnnxModelObject, &WnnOnnxModel_Type))) {
        self->ctx = (WnnContextObject *)Py_NewRef((PyObject *)ctx);
        self->model = m;
        m = NULL;
        self->path = PyUnicode_DecodeFSDefault(path);
        self->inputs = tensor_infos(self->model, true);
        self->outputs = self->inputs ? tensor_infos(self->model, false) : NULL;
        if (!self->path || !self->inputs || !self->outputs) Py_CLEAR(self);
    }
    wnn_onnx_model_release(m);
    Py_DECREF(ctx);
    Py_DECREF(path_bytes);
    return (PyObject *)self;
}

/* ------------------------------------------------------------------------ */
/* check()                                                                   */
/* ------------------------------------------------------------------------ */

/* Collects issues as dicts; after a Python failure the rest are dropped. */
static void collect_issue(const wnn_onnx_issue *issue, void *user_data)
{
    PyObject *list = user_data;
    if (PyErr_Occurred()) return;
    PyObject *d = Py_BuildValue("{s:I,s:s,s:s,s:s,s:L,s:s,s:s}", "node_index", (unsigned)issue->node_index,
                                "node_name", issue->node_name, "op_type", issue->op_type, "domain", issue->domain,
                                "opset", (long long)issue->opset, "status", wnn_status_string(issue->status),
                                "message", issue->message);
    if (d) PyList_Append(list, d);
    Py_XDECREF(d);
}

/* check(path, device="cpu", shapes=None, *, default_dimension=0, constants=None) -> list */
static PyObject *onnx_check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"path", "device", "shapes", "default_dimension", "constants", NULL};
    PyObject *v[5] = {NULL, NULL, NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("check", args, nargs, kwnames, 3, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "check() missing required argument 'path'");
    PyObject *path_bytes = NULL;
    if (!PyUnicode_FSConverter(v[0], &path_bytes)) return NULL;
    WnnContextObject *ctx = resolve_context(v[1], "check");
    PyObject *list = ctx ? PyList_New(0) : NULL;
    load_options lo;
    if (!list || load_options_init(&lo, v[2], v[3], v[4], "check") < 0) {
        if (list) load_options_free(&lo);
        Py_XDECREF(list);
        Py_XDECREF(ctx);
        Py_DECREF(path_bytes);
        return NULL;
    }
    /* the callback builds Python objects, so the GIL stays held */
    wnn_status s = wnn_onnx_check(ctx->ctx, PyBytes_AS_STRING(path_bytes), &lo.o, collect_issue, list, NULL);
    load_options_free(&lo);
    Py_DECREF(ctx);
    Py_DECREF(path_bytes);
    if (PyErr_Occurred() || (s != WNN_OK && s != WNN_STATUS_NOT_SUPPORTED)) {
        Py_DECREF(list);
        return PyErr_Occurred() ? NULL : raise_onnx(s);
    }
    return list;
}

/* ------------------------------------------------------------------------ */
/* Model.run()                                                               */
/* ------------------------------------------------------------------------ */

/* The model's input or output index of name, or -1. */
static Py_ssize_t find_info(PyObject *infos, const char *name)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(infos); i++) {
        const char *n = PyUnicode_AsUTF8(PyStructSequence_GET_ITEM(PyTuple_GET_ITEM(infos, i), 0));
        if (n && strcmp(n, name) == 0) return i;
    }
    return -1;
}

static void info_desc(PyObject *info, wnn_operand_desc *d)
{
    PyObject *shape = PyStructSequence_GET_ITEM(info, 1);
    d->rank = (uint32_t)PyTuple_GET_SIZE(shape);
    for (uint32_t i = 0; i < d->rank; i++) d->shape[i] = (uint32_t)PyLong_AsUnsignedLong(PyTuple_GET_ITEM(shape, i));
    d->data_type = wnn_data_type_from_name(PyUnicode_AsUTF8(PyStructSequence_GET_ITEM(info, 2)));
}

/* Raises ArgumentError: what the caller gave for an input, and what the
** model wants. Returns -1. */
static int mismatch(const char *name, const char *got_type, const char *got_shape, const wnn_operand_desc *want)
{
    char want_shape[160];
    wnnpy_shape_text(want->shape, want->rank, want_shape, sizeof want_shape);
    wnnpy_argument_error("run: input '%s' is %s %s, the model takes %s %s (convert it first; wnn never casts "
                         "silently)",
                         name, got_type, got_shape, wnn_data_type_name(want->data_type), want_shape);
    return -1;
}

/* Writes a buffer or Python data into the model's own tensor for input. */
static int write_input(WnnOnnxModelObject *self, const char *name, PyObject *value, const wnn_operand_desc *want)
{
    PyObject *packed = NULL;
    if (wnnpy_is_python_data(value)) {
        wnn_operand_desc pd;
        if (!(value = packed = wnnpy_convert_python_data(value, want->data_type, "run", &pd))) return -1;
        if (pd.rank != want->rank || memcmp(pd.shape, want->shape, sizeof(uint32_t) * pd.rank) != 0) {
            char got[160];
            wnnpy_shape_text(pd.shape, pd.rank, got, sizeof got);
            Py_DECREF(packed);
            return mismatch(name, wnn_data_type_name(want->data_type), got, want);
        }
    }
    Py_buffer view;
    void *bytes, *copy;
    if (wnnpy_get_buffer(value, &view, &bytes, &copy) < 0) {
        Py_XDECREF(packed);
        return -1;
    }
    wnn_data_type t = packed ? want->data_type : wnnpy_format_data_type(view.format, view.itemsize);
    bool same = t == want->data_type && view.ndim == (int)want->rank;
    for (int i = 0; same && i < view.ndim; i++) same = view.shape[i] == (Py_ssize_t)want->shape[i];
    int rc = 0;
    if (!same && !packed) {
        char got[160];
        size_t len = (size_t)PyOS_snprintf(got, sizeof got, "[");
        for (int i = 0; i < view.ndim && len < sizeof got; i++)
            len += (size_t)PyOS_snprintf(got + len, sizeof got - len, "%s%zd", i ? ", " : "", view.shape[i]);
        if (len < sizeof got) PyOS_snprintf(got + len, sizeof got - len, "]");
        /* a type wnn has not: NumPy's name for it ("float64") where there is one */
        PyObject *dtype = t == WNN_DATA_TYPE_INVALID ? PyObject_GetAttrString(value, "dtype") : NULL;
        PyObject *dtype_name = dtype ? PyObject_Str(dtype) : NULL;
        const char *type_name = dtype_name ? PyUnicode_AsUTF8(dtype_name) : NULL;
        PyErr_Clear();
        if (!type_name) type_name = t != WNN_DATA_TYPE_INVALID ? wnn_data_type_name(t) : view.format ? view.format : "B";
        rc = mismatch(name, type_name, got, want);
        Py_XDECREF(dtype_name);
        Py_XDECREF(dtype);
    } else {
        wnn_status s;
        wnn_tensor *tensor = wnn_onnx_model_tensor(self->model, name);
        Py_BEGIN_ALLOW_THREADS s = wnn_context_write_tensor(self->ctx->ctx, tensor, bytes, (size_t)view.len);
        Py_END_ALLOW_THREADS
        if (s != WNN_OK) rc = (wnnpy_raise(s, NULL), -1);
    }
    PyMem_Free(copy);
    PyBuffer_Release(&view);
    Py_XDECREF(packed);
    return rc;
}

/* A wnn tensor for a DLPack producer or a wnn.Tensor, checked against the
** input's descriptor. A new reference. */
static PyObject *bind_tensor(WnnOnnxModelObject *self, const char *name, PyObject *value,
                             const wnn_operand_desc *want)
{
    PyObject *t;
    if (PyObject_TypeCheck(value, &WnnTensor_Type)) {
        t = Py_NewRef(value);
    } else {
        static PyObject *kwnames;
        if (!kwnames && !(kwnames = Py_BuildValue("(s)", "device"))) return NULL;
        PyObject *args[2] = {value, (PyObject *)self->ctx};
        if (!(t = wnnpy_from_dlpack(NULL, args, 1, kwnames))) return NULL;
    }
    wnn_tensor_desc d;
    wnn_tensor_get_desc(((WnnTensorObject *)t)->tensor, &d);
    if (d.data_type != want->data_type || d.rank != want->rank ||
        memcmp(d.shape, want->shape, sizeof(uint32_t) * d.rank) != 0) {
        char got[160];
        wnnpy_shape_text(d.shape, d.rank, got, sizeof got);
        mismatch(name, wnn_data_type_name(d.data_type), got, want);
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

/* Which outputs run() returns: a tuple of indexes into self->outputs. */
static PyObject *requested_outputs(WnnOnnxModelObject *self, PyObject *names)
{
    Py_ssize_t n = PyTuple_GET_SIZE(self->outputs);
    if (!names || names == Py_None) {
        PyObject *all = PyTuple_New(n);
        for (Py_ssize_t i = 0; all && i < n; i++) PyTuple_SET_ITEM(all, i, PyLong_FromSsize_t(i));
        return all;
    }
    if (PyUnicode_Check(names)) return PyErr_Format(PyExc_TypeError, "run: outputs must be a list of names, not a str");
    PyObject *seq = PySequence_Fast(names, "run: outputs must be a list of names or None");
    if (!seq) return NULL;
    PyObject *r = PyTuple_New(PySequence_Fast_GET_SIZE(seq));
    for (Py_ssize_t i = 0; r && i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        const char *name = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        Py_ssize_t k = name ? find_info(self->outputs, name) : -1;
        if (k < 0) {
            if (!PyErr_Occurred())
                wnnpy_argument_error_obj("run: the model has no output %R (its outputs: %R)", item, self->outputs);
            Py_CLEAR(r);
            break;
        }
        PyTuple_SET_ITEM(r, i, PyLong_FromSsize_t(k));
    }
    Py_DECREF(seq);
    return r;
}

/* Reads the model's own tensor of an output into a new NumPy array. */
static PyObject *read_output(WnnOnnxModelObject *self, PyObject *info)
{
    wnn_operand_desc d;
    info_desc(info, &d);
    PyObject *np = wnnpy_numpy();
    if (!np) return PyErr_Format(PyExc_ImportError, "Model.run() returns NumPy arrays (or pass return_tensors=True)");
    PyObject *arr = PyObject_CallMethod(np, "empty", "OO", PyStructSequence_GET_ITEM(info, 1),
                                        PyStructSequence_GET_ITEM(info, 2));
    Py_buffer view;
    if (!arr || PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_XDECREF(arr);
        return NULL;
    }
    wnn_tensor *t = wnn_onnx_model_tensor(self->model, PyUnicode_AsUTF8(PyStructSequence_GET_ITEM(info, 0)));
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_read_tensor_sync(self->ctx->ctx, t, view.buf, (size_t)view.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    if (s != WNN_OK) {
        Py_DECREF(arr);
        return wnnpy_raise(s, NULL);
    }
    return arr;
}

/* A new readable tensor for an output, for return_tensors=True. */
static PyObject *fresh_output(WnnOnnxModelObject *self, PyObject *info)
{
    wnn_operand_desc d;
    info_desc(info, &d);
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.data_type = d.data_type;
    td.rank = d.rank;
    memcpy(td.shape, d.shape, sizeof td.shape);
    td.readable = true;
    wnn_tensor *t;
    wnn_status s = wnn_context_create_tensor(self->ctx->ctx, &td, &t);
    return s == WNN_OK ? wnnpy_tensor_new(self->ctx, t) : wnnpy_raise(s, NULL);
}

/* Binds every input: a list of (name, tensor) for those bound as tensors,
** the others written into the model's own tensors. */
static PyObject *bind_inputs(WnnOnnxModelObject *self, PyObject *feeds)
{
    if (!PyDict_Check(feeds))
        return PyErr_Format(PyExc_TypeError, "run: inputs must be a dict of input name -> array, not %.100s",
                            Py_TYPE(feeds)->tp_name);
    PyObject *bound = PyList_New(0);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (bound && PyDict_Next(feeds, &pos, &key, &value)) {
        const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
        Py_ssize_t k = name ? find_info(self->inputs, name) : -1;
        if (k < 0) {
            if (!PyErr_Occurred())
                wnnpy_argument_error_obj("run: the model has no input %R (its inputs: %R)", key, self->inputs);
            Py_CLEAR(bound);
            break;
        }
        wnn_operand_desc want;
        info_desc(PyTuple_GET_ITEM(self->inputs, k), &want);
        if (PyObject_TypeCheck(value, &WnnTensor_Type) ||
            (!PyObject_CheckBuffer(value) && !wnnpy_is_python_data(value))) {
            PyObject *t = bind_tensor(self, name, value, &want);
            PyObject *pair = t ? PyTuple_Pack(2, key, t) : NULL;
            if (!pair || PyList_Append(bound, pair) < 0) Py_CLEAR(bound);
            Py_XDECREF(pair);
            Py_XDECREF(t);
        } else if (write_input(self, name, value, &want) < 0) {
            Py_CLEAR(bound);
        }
    }
    if (bound && PyDict_Size(feeds) != PyTuple_GET_SIZE(self->inputs)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->inputs); i++) {
            PyObject *name = PyStructSequence_GET_ITEM(PyTuple_GET_ITEM(self->inputs, i), 0);
            if (!PyDict_Contains(feeds, name)) {
                wnnpy_argument_error_obj("run: input %R is missing (the model takes %R)", name, self->inputs);
                Py_CLEAR(bound);
                break;
            }
        }
    }
    return bound;
}

/* Model.run(inputs, outputs=None, *, return_tensors=False) -> dict */
static PyObject *model_run(WnnOnnxModelObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"inputs", "outputs", "return_tensors", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("run", args, nargs, kwnames, 2, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "run() missing required argument 'inputs'");
    int as_tensors = v[2] ? PyObject_IsTrue(v[2]) : 0;
    if (as_tensors < 0) return NULL;
    PyObject *wanted = requested_outputs(self, v[1]);
    PyObject *bound = wanted ? bind_inputs(self, v[0]) : NULL;
    PyObject *fresh = bound ? PyList_New(0) : NULL;
    wnn_named_tensor *in = NULL, *out = NULL;
    PyObject *result = NULL;
    if (!fresh) goto done;
    Py_ssize_t nin = PyList_GET_SIZE(bound), nout = as_tensors ? PyTuple_GET_SIZE(wanted) : 0;
    in = PyMem_Calloc((size_t)nin + 1, sizeof *in);
    out = PyMem_Calloc((size_t)nout + 1, sizeof *out);
    if (!in || !out) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nin; i++) {
        PyObject *pair = PyList_GET_ITEM(bound, i);
        in[i].name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(pair, 0));
        in[i].tensor = ((WnnTensorObject *)PyTuple_GET_ITEM(pair, 1))->tensor;
    }
    for (Py_ssize_t i = 0; i < nout; i++) {
        PyObject *info = PyTuple_GET_ITEM(self->outputs, PyLong_AsSsize_t(PyTuple_GET_ITEM(wanted, i)));
        PyObject *t = fresh_output(self, info);
        if (!t || PyList_Append(fresh, t) < 0) {
            Py_XDECREF(t);
            goto done;
        }
        Py_DECREF(t);
        out[i].name = PyUnicode_AsUTF8(PyStructSequence_GET_ITEM(info, 0));
        out[i].tensor = ((WnnTensorObject *)t)->tensor;
    }
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_onnx_model_dispatch(self->model, in, (size_t)nin, out, (size_t)nout);
    Py_END_ALLOW_THREADS
    if (s != WNN_OK) {
        wnnpy_raise(s, NULL);
        goto done;
    }
    if (!(result = PyDict_New())) goto done;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(wanted); i++) {
        PyObject *info = PyTuple_GET_ITEM(self->outputs, PyLong_AsSsize_t(PyTuple_GET_ITEM(wanted, i)));
        PyObject *value = as_tensors ? Py_NewRef(PyList_GET_ITEM(fresh, i)) : read_output(self, info);
        if (!value || PyDict_SetItem(result, PyStructSequence_GET_ITEM(info, 0), value) < 0) {
            Py_XDECREF(value);
            Py_CLEAR(result);
            break;
        }
        Py_DECREF(value);
    }
done:
    PyMem_Free(in);
    PyMem_Free(out);
    Py_XDECREF(fresh);
    Py_XDECREF(bound);
    Py_XDECREF(wanted);
    return result;
}

/* ------------------------------------------------------------------------ */
/* The Model type                                                            */
/* ------------------------------------------------------------------------ */

static void model_dealloc(WnnOnnxModelObject *self)
{
    if (self->model) {
        Py_BEGIN_ALLOW_THREADS wnn_onnx_model_release(self->model); /* may wait for its runs */
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(self->inputs);
    Py_XDECREF(self->outputs);
    Py_XDECREF(self->path);
    Py_XDECREF(self->ctx);
    PyObject_Free(self);
}

static PyObject *model_repr(WnnOnnxModelObject *self)
{
    return PyUnicode_FromFormat("<wnn.onnx.Model %R on %U: %zd input%s, %zd output%s>", self->path,
                                self->ctx->device, PyTuple_GET_SIZE(self->inputs),
                                PyTuple_GET_SIZE(self->inputs) == 1 ? "" : "s", PyTuple_GET_SIZE(self->outputs),
                                PyTuple_GET_SIZE(self->outputs) == 1 ? "" : "s");
}

static PyObject *model_get_context(WnnOnnxModelObject *self, void *c) { return Py_NewRef((PyObject *)self->ctx); }
static PyObject *model_get_device(WnnOnnxModelObject *self, void *c) { return Py_NewRef(self->ctx->device); }

static PyMethodDef model_methods[] = {
    {"run", (PyCFunction)(void (*)(void))model_run, METH_FASTCALL | METH_KEYWORDS,
     "run($self, inputs, outputs=None, *, return_tensors=False)\n--\n\nRuns the model once. inputs: a dict "
     "giving every model input: a NumPy array or other buffer (written into the model's tensor; one copy), "
     "Python data, any DLPack producer such as a torch tensor (imported into the model's context, no copy "
     "where the memory is already the device's), or a wnn.Tensor of the model's context. Types and shapes "
     "must be the input's exactly. outputs: names to return (None: all). Returns a dict name -> NumPy array "
     "(waits for the result), or with return_tensors=True name -> a new wnn.Tensor (returns at once; "
     "torch.from_dlpack(t) or numpy.from_dlpack(t) share it)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef model_getset[] = {
    {"context", (getter)model_get_context, NULL, "the wnn.Context the model runs in", NULL},
    {"device", (getter)model_get_device, NULL, "the name of its context's device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef model_members[] = {
    {"inputs", T_OBJECT_EX, offsetof(WnnOnnxModelObject, inputs), READONLY,
     "the graph inputs, a tuple of TensorInfo (name, shape, dtype), in model order"},
    {"outputs", T_OBJECT_EX, offsetof(WnnOnnxModelObject, outputs), READONLY,
     "the graph outputs, a tuple of TensorInfo (name, shape, dtype), in model order"},
    {"path", T_OBJECT_EX, offsetof(WnnOnnxModelObject, path), READONLY, "the model file"},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject WnnOnnxModel_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.onnx.Model",
    .tp_basicsize = sizeof(WnnOnnxModelObject),
    .tp_dealloc = (destructor)model_dealloc,
    .tp_repr = (reprfunc)model_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An ONNX model loaded for one context (wnn.onnx.load): its graph and one tensor per input and "
              "output, made once and reused by every run. Run it from one thread at a time.",
    .tp_methods = model_methods,
    .tp_getset = model_getset,
    .tp_members = model_members,
};

static int add_types(PyObject *m)
{
    TensorInfo_Type = PyStructSequence_NewType(&tensor_info_desc);
    if (!TensorInfo_Type || PyType_Ready(&WnnOnnxModel_Type) < 0) return -1;
    return PyModule_AddObjectRef(m, "OnnxModel", (PyObject *)&WnnOnnxModel_Type) < 0 ||
                   PyModule_AddObjectRef(m, "OnnxTensorInfo", (PyObject *)TensorInfo_Type) < 0 ||
                   PyModule_AddObjectRef(m, "onnx_available", Py_True) < 0
               ? -1
               : 0;
}

#else /* no ONNX importer in this build */

static PyObject *unavailable(void)
{
    return wnnpy_raise(WNN_STATUS_NOT_SUPPORTED,
                       "wnn.onnx: this wnn extension was built without the ONNX importer (libwnn_onnx needs "
                       "protobuf-c and onnx.proto: apt-get install protobuf-c-compiler libprotobuf-c-dev "
                       "libonnx-dev, then rebuild)");
}

static PyObject *onnx_load(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return unavailable();
}

static PyObject *onnx_check(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    return unavailable();
}

static int add_types(PyObject *m) { return PyModule_AddObjectRef(m, "onnx_available", Py_False); }

#endif

static PyMethodDef onnx_functions[] = {
    {"onnx_load", (PyCFunction)(void (*)(void))onnx_load, METH_FASTCALL | METH_KEYWORDS,
     "onnx_load(path, device=\"cpu\", shapes=None, *, default_dimension=0, constants=None)\n--\n\nLoads the ONNX model at "
     "path for a device and returns a wnn.onnx.Model. device: a device name (its default context, the one "
     "wnn.from_dlpack imports into) or a wnn.Context. shapes binds the free dimensions: a dict of a dimension "
     "name -> int ({\"batch\": 1}) and/or an input name -> a whole shape ({\"input\": (1, 3, 224, 224)}); "
     "default_dimension (when not 0) binds any dimension left free. constants: a dict of an input name -> an "
     "array, used where an operator needs that input as a constant (a shape, an If condition). Raises NotSupportedError naming the node, "
     "the operator and the reason for what WebNN cannot express, OperationError for a bad file."},
    {"onnx_check", (PyCFunction)(void (*)(void))onnx_check, METH_FASTCALL | METH_KEYWORDS,
     "onnx_check(path, device=\"cpu\", shapes=None, *, default_dimension=0, constants=None)\n--\n\nImports the model without "
     "building it and returns a list of dicts, one per node that cannot be lowered (node_index, node_name, "
     "op_type, domain, opset, status, message); [] when every node lowers."},
    {NULL, NULL, 0, NULL},
};

int wnnpy_onnx_init(PyObject *m)
{
    return PyModule_AddFunctions(m, onnx_functions) < 0 ? -1 : add_types(m);
}
