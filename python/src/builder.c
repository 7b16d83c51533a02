/* SPDX-License-Identifier: Apache-2.0 */
/*
** builder.c -- wnn.GraphBuilder (inputs, constants, build), wnn.Operand and
** wnn.Graph. The operator methods come from the table in ops.c.
*/
#include "wnnpy.h"

/* ------------------------------------------------------------------------ */
/* Operand                                                                   */
/* ------------------------------------------------------------------------ */

PyObject *wnnpy_operand_new(WnnBuilderObject *builder, wnn_operand *operand)
{
    WnnOperandObject *self = PyObject_New(WnnOperandObject, &WnnOperand_Type);
    if (!self) return NULL;
    self->builder = (WnnBuilderObject *)Py_NewRef((PyObject *)builder);
    self->operand = operand;
    return (PyObject *)self;
}

int wnnpy_operand_check(PyObject *obj, const char *what, wnn_operand **out)
{
    if (!PyObject_TypeCheck(obj, &WnnOperand_Type)) {
        PyErr_Format(PyExc_TypeError, "%s must be a wnn.Operand, not %.100s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = ((WnnOperandObject *)obj)->operand;
    return 0;
}

static void operand_dealloc(WnnOperandObject *self)
{
    Py_DECREF(self->builder);
    PyObject_Free(self);
}

static PyObject *operand_get_dtype(WnnOperandObject *self, void *c)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(self->operand, &d);
    return wnnpy_data_type_name(d.data_type);
}

static PyObject *operand_get_shape(WnnOperandObject *self, void *c)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(self->operand, &d);
    return wnnpy_shape_tuple(d.shape, d.rank);
}

static PyObject *operand_repr(WnnOperandObject *self)
{
    wnn_operand_desc d;
    wnn_operand_get_desc(self->operand, &d);
    PyObject *shape = wnnpy_shape_tuple(d.shape, d.rank);
    if (!shape) return NULL;
    PyObject *r = PyUnicode_FromFormat("<wnn.Operand %s %R>", wnn_data_type_name(d.data_type), shape);
    Py_DECREF(shape);
    return r;
}

static PyObject *operand_get_builder(WnnOperandObject *self, void *c) { return Py_NewRef((PyObject *)self->builder); }

static PyGetSetDef operand_getset[] = {
    {"dtype", (getter)operand_get_dtype, NULL, "the inferred data type", NULL},
    {"shape", (getter)operand_get_shape, NULL, "the inferred shape", NULL},
    {"builder", (getter)operand_get_builder, NULL, "the GraphBuilder that owns it", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* Operators: x + y is builder.add(x, y), and so on. A Python number becomes
** a 0-D constant of the operand's data type (WebNN broadcasts it); a float
** next to an integer operand is refused rather than truncated. */

/* The operand of obj, a wnn.Operand or a number made a constant of b for
** the data type of other; NULL with Py_NotImplemented in *unsupported when
** obj is neither. */
static wnn_operand *as_operand(PyObject *obj, WnnOperandObject *other, bool *unsupported)
{
    *unsupported = false;
    if (PyObject_TypeCheck(obj, &WnnOperand_Type)) return ((WnnOperandObject *)obj)->operand;
    wnn_graph_builder *b = other->builder->builder;
    wnn_operand_desc d;
    wnn_operand_get_desc(other->operand, &d);
    bool is_float = d.data_type == WNN_DATA_TYPE_FLOAT32 || d.data_type == WNN_DATA_TYPE_FLOAT16;
    if (PyLong_Check(obj)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (overflow) {
            wnnpy_argument_error_obj("%R does not fit in 64 bits", obj);
            return NULL;
        }
        return is_float ? wnn_graph_builder_constant_scalar(b, d.data_type, (double)v)
                        : wnn_graph_builder_constant_scalar_int64(b, d.data_type, v);
    }
    if (PyFloat_Check(obj)) {
        if (!is_float) {
            PyErr_Format(PyExc_TypeError,
                         "%R is a float and the operand is %s; make the constant yourself "
                         "(builder.constant(value, dtype=...)) or cast the operand",
                         obj, wnn_data_type_name(d.data_type));
            return NULL;
        }
        return wnn_graph_builder_constant_scalar(b, d.data_type, PyFloat_AS_DOUBLE(obj));
    }
    *unsupported = true;
    return NULL;
}

typedef wnn_operand *(*binary_fn)(wnn_graph_builder *, wnn_operand *, wnn_operand *);

static PyObject *operand_binary(PyObject *x, PyObject *y, binary_fn fn, bool numbers)
{
    WnnOperandObject *o = (WnnOperandObject *)(PyObject_TypeCheck(x, &WnnOperand_Type) ? x : y);
    if (!numbers && !(PyObject_TypeCheck(x, &WnnOperand_Type) && PyObject_TypeCheck(y, &WnnOperand_Type)))
        Py_RETURN_NOTIMPLEMENTED;
    bool unsupported;
    wnn_operand *a = as_operand(x, o, &unsupported);
    if (unsupported) Py_RETURN_NOTIMPLEMENTED;
    if (!a) return PyErr_Occurred() ? NULL : wnnpy_builder_raise(o->builder);
    wnn_operand *b = as_operand(y, o, &unsupported);
    if (unsupported) Py_RETURN_NOTIMPLEMENTED;
    if (!b) return PyErr_Occurred() ? NULL : wnnpy_builder_raise(o->builder);
    wnn_operand *r = fn(o->builder->builder, a, b);
    return r ? wnnpy_operand_new(o->builder, r) : wnnpy_builder_raise(o->builder);
}

static PyObject *operand_add(PyObject *x, PyObject *y) { return operand_binary(x, y, wnn_add, true); }
static PyObject *operand_sub(PyObject *x, PyObject *y) { return operand_binary(x, y, wnn_sub, true); }
static PyObject *operand_mul(PyObject *x, PyObject *y) { return operand_binary(x, y, wnn_mul, true); }
static PyObject *operand_div(PyObject *x, PyObject *y) { return operand_binary(x, y, wnn_div, true); }
static PyObject *operand_matmul(PyObject *x, PyObject *y) { return operand_binary(x, y, wnn_matmul, false); }

static PyObject *operand_pow(PyObject *x, PyObject *y, PyObject *mod)
{
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return operand_binary(x, y, wnn_pow, true);
}

static PyObject *operand_neg(WnnOperandObject *self)
{
    wnn_operand *r = wnn_neg(self->builder->builder, self->operand);
    return r ? wnnpy_operand_new(self->builder, r) : wnnpy_builder_raise(self->builder);
}

static PyObject *operand_pos(PyObject *self) { return Py_NewRef(self); }

static PyNumberMethods operand_as_number = {
    .nb_add = operand_add,
    .nb_subtract = operand_sub,
    .nb_multiply = operand_mul,
    .nb_true_divide = operand_div,
    .nb_matrix_multiply = operand_matmul,
    .nb_power = operand_pow,
    .nb_negative = (unaryfunc)operand_neg,
    .nb_positive = operand_pos,
};

PyTypeObject WnnOperand_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.Operand",
    .tp_basicsize = sizeof(WnnOperandObject),
    .tp_dealloc = (destructor)operand_dealloc,
    .tp_repr = (reprfunc)operand_repr,
    .tp_as_number = &operand_as_number,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WebNN's MLOperand: a node of a graph under construction, owned by its GraphBuilder.\n\n"
              "x + y, x - y, x * y, x / y, x ** y, x @ y and -x call the builder's add, sub, mul, div, pow, "
              "matmul and neg. A Python number next to an operand becomes a 0-D constant of the operand's data "
              "type (a float next to an integer operand is refused, never truncated).",
    .tp_getset = operand_getset,
};

/* ------------------------------------------------------------------------ */
/* GraphBuilder                                                              */
/* ------------------------------------------------------------------------ */

PyObject *wnnpy_builder_raise(WnnBuilderObject *b)
{
    wnn_status s = wnn_graph_builder_status(b->builder);
    wnnpy_raise(s != WNN_OK ? s : WNN_STATUS_UNKNOWN, wnn_graph_builder_error_message(b->builder));
    wnn_graph_builder_clear_error(b->builder); /* each call raises its own error */
    return NULL;
}

static PyObject *builder_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"context", NULL};
    PyObject *ctx;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!:GraphBuilder", names, &WnnContext_Type, &ctx)) return NULL;
    WnnBuilderObject *self = (WnnBuilderObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->ctx = (WnnContextObject *)Py_NewRef(ctx);
    wnn_status s = wnn_graph_builder_create(self->ctx->ctx, &self->builder);
    if (s != WNN_OK) {
        wnnpy_raise(s, NULL);
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static void builder_dealloc(WnnBuilderObject *self)
{
    wnn_graph_builder_release(self->builder);
    Py_XDECREF(self->ctx);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* input(name, shape, dtype="float32") */
static PyObject *builder_input(WnnBuilderObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"name", "shape", "dtype", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("input", args, nargs, kwnames, 3, names, v) < 0) return NULL;
    if (!v[0] || !v[1]) return PyErr_Format(PyExc_TypeError, "input() takes name, shape and dtype");
    const char *name = PyUnicode_Check(v[0]) ? PyUnicode_AsUTF8(v[0]) : NULL;
    if (!name) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_TypeError, "input: name must be a str");
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    if (wnnpy_shape(v[1], "shape", d.shape, &d.rank) < 0) return NULL;
    if (v[2] && (d.data_type = wnnpy_data_type(v[2])) == WNN_DATA_TYPE_INVALID) return NULL;
    wnn_operand *op = wnn_graph_builder_input(self->builder, name, &d);
    return op ? wnnpy_operand_new(self, op) : wnnpy_builder_raise(self);
}

/* constant(value, *, dtype=None, shape=None): value is a wnn constant
** Tensor, a Python number (a 0-D constant, dtype default float32) or a
** buffer (shape and dtype default to the buffer's). */
static PyObject *builder_constant(WnnBuilderObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    static const char *const names[] = {"value", "dtype", "shape", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("constant", args, nargs, kwnames, 3, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "constant() missing required argument 'value'");
    wnn_operand *op;
    if (PyObject_TypeCheck(v[0], &WnnTensor_Type)) {
        op = wnn_graph_builder_constant_tensor(self->builder, ((WnnTensorObject *)v[0])->tensor);
    } else if (PyLong_Check(v[0]) || PyFloat_Check(v[0]) || PyBool_Check(v[0])) {
        wnn_data_type t = WNN_DATA_TYPE_FLOAT32;
        if (v[1] && v[1] != Py_None && (t = wnnpy_data_type(v[1])) == WNN_DATA_TYPE_INVALID) return NULL;
        if (PyLong_Check(v[0])) {
            int overflow = 0;
            long long i = PyLong_AsLongLongAndOverflow(v[0], &overflow);
            if (i == -1 && PyErr_Occurred()) return NULL;
            if (overflow > 0 && t == WNN_DATA_TYPE_UINT64) {
                /* beyond int64: the exact bytes of a 0-D uint64 */
                uint64_t u = PyLong_AsUnsignedLongLong(v[0]);
                if (u == (uint64_t)-1 && PyErr_Occurred()) return NULL;
                wnn_operand_desc d = {WNN_DATA_TYPE_UINT64, 0, {0}};
                op = wnn_graph_builder_constant(self->builder, &d, &u, sizeof u);
            } else if (overflow) {
                return wnnpy_argument_error_obj("constant: %R does not fit in 64 bits", v[0]);
            } else {
                op = wnn_graph_builder_constant_scalar_int64(self->builder, t, i);
            }
        } else {
            double d = PyFloat_AsDouble(v[0]);
            if (d == -1.0 && PyErr_Occurred()) return NULL;
            op = wnn_graph_builder_constant_scalar(self->builder, t, d);
        }
    } else {
        wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
        Py_buffer view;
        void *bytes, *copy;
        if (wnnpy_buffer_desc(v[0], v[2], v[1], "constant", &d, &view, &bytes, &copy) < 0) return NULL;
        op = wnn_graph_builder_constant(self->builder, &d, bytes, (size_t)view.len);
        PyMem_Free(copy);
        PyBuffer_Release(&view);
    }
    return op ? wnnpy_operand_new(self, op) : wnnpy_builder_raise(self);
}

/* build(outputs) with outputs a dict name -> Operand */
static PyObject *builder_build(WnnBuilderObject *self, PyObject *outputs)
{
    if (!PyDict_Check(outputs)) return PyErr_Format(PyExc_TypeError, "build: outputs must be a dict name -> Operand");
    Py_ssize_t n = PyDict_Size(outputs), pos = 0, i = 0;
    wnn_named_operand *named = PyMem_Calloc(n ? (size_t)n : 1, sizeof *named);
    if (!named) return PyErr_NoMemory();
    PyObject *key, *value;
    while (PyDict_Next(outputs, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !(named[i].name = PyUnicode_AsUTF8(key)) ||
            wnnpy_operand_check(value, "build: output", &named[i].operand) < 0) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "build: output names must be str");
            PyMem_Free(named);
            return NULL;
        }
        i++;
    }
    wnn_graph *g;
    wnn_status s = wnn_graph_builder_build(self->builder, named, (size_t)n, &g);
    PyMem_Free(named);
    if (s != WNN_OK) {
        const char *msg = wnn_graph_builder_error_message(self->builder);
        wnnpy_raise(s, wnn_graph_builder_status(self->builder) == s ? msg : NULL);
        wnn_graph_builder_clear_error(self->builder);
        return NULL;
    }
    WnnGraphObject *go = PyObject_New(WnnGraphObject, &WnnGraph_Type);
    if (!go) {
        wnn_graph_release(g);
        return NULL;
    }
    go->ctx = (WnnContextObject *)Py_NewRef((PyObject *)self->ctx);
    go->graph = g;
    return (PyObject *)go;
}

static PyObject *builder_repr(WnnBuilderObject *self)
{
    return PyUnicode_FromFormat("<wnn.GraphBuilder on %U>", self->ctx->device);
}

static PyMethodDef builder_methods[] = {
    {"input", (PyCFunction)(void (*)(void))builder_input, METH_FASTCALL | METH_KEYWORDS,
     "input($self, /, name, shape, dtype=\"float32\")\n--\n\nA named graph input of the given shape (a "
     "tuple of ints, () for a scalar) and data type; returns an Operand."},
    {"constant", (PyCFunction)(void (*)(void))builder_constant, METH_FASTCALL | METH_KEYWORDS,
     "constant($self, /, value, dtype=None, shape=None)\n--\n\nA constant Operand from a buffer such as a "
     "NumPy array (copied now; dtype and shape default to the buffer's, and an array of a type wnn lacks, "
     "such as float64, is refused: convert it with astype), from Python data -- a number (0-D) or nested "
     "lists -- converted to dtype (default float32; shape may reshape it), or from a constant Tensor."},
    {"build", (PyCFunction)builder_build, METH_O,
     "build($self, outputs, /)\n--\n\nCompiles the Graph computing outputs, a dict name -> Operand. A "
     "builder builds one graph; a call refused for its outputs (an input or constant as an output, an "
     "operand of another builder, no outputs) leaves it usable, as in WebNN."},
    {NULL, NULL, 0, NULL},
};

static PyObject *builder_get_context(WnnBuilderObject *self, void *c) { return Py_NewRef((PyObject *)self->ctx); }

static PyGetSetDef builder_getset[] = {
    {"context", (getter)builder_get_context, NULL, "the Context the graph is built for", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

int wnnpy_builder_type_init(void)
{
    if (!WnnBuilder_Type.tp_methods) WnnBuilder_Type.tp_methods = wnnpy_op_methods(builder_methods);
    return WnnBuilder_Type.tp_methods ? 0 : -1;
}

PyTypeObject WnnBuilder_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.GraphBuilder",
    .tp_basicsize = sizeof(WnnBuilderObject),
    .tp_dealloc = (destructor)builder_dealloc,
    .tp_repr = (reprfunc)builder_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "GraphBuilder(context)\n--\n\nWebNN's MLGraphBuilder. Every WebNN operator is a method, under its "
              "WebNN name (leakyRelu) and in snake case (leaky_relu); options are keywords, in either spelling "
              "(keep_dimensions or keepDimensions). Errors raise at the call.",
    .tp_getset = builder_getset,
    .tp_new = builder_new,
};

/* ------------------------------------------------------------------------ */
/* Graph                                                                     */
/* ------------------------------------------------------------------------ */

static void graph_dealloc(WnnGraphObject *self)
{
    wnn_graph_release(self->graph);
    Py_DECREF(self->ctx);
    PyObject_Free(self);
}

static PyObject *graph_destroy(WnnGraphObject *self, PyObject *unused)
{
    wnn_graph_destroy(self->graph);
    Py_RETURN_NONE;
}

/* A dict name -> (dtype, shape) of the graph's inputs or outputs. */
static PyObject *graph_names(WnnGraphObject *self, void *outputs)
{
    uint32_t n = outputs ? wnn_graph_output_count(self->graph) : wnn_graph_input_count(self->graph);
    PyObject *dict = PyDict_New();
    for (uint32_t i = 0; dict && i < n; i++) {
        const char *name;
        wnn_operand_desc d;
        wnn_status s = outputs ? wnn_graph_get_output(self->graph, i, &name, &d)
                               : wnn_graph_get_input(self->graph, i, &name, &d);
        if (s != WNN_OK) {
            Py_CLEAR(dict);
            return wnnpy_raise(s, NULL);
        }
        PyObject *shape = wnnpy_shape_tuple(d.shape, d.rank);
        PyObject *desc = shape ? Py_BuildValue("(sO)", wnn_data_type_name(d.data_type), shape) : NULL;
        if (!desc || PyDict_SetItemString(dict, name, desc) < 0) Py_CLEAR(dict);
        Py_XDECREF(shape);
        Py_XDECREF(desc);
    }
    return dict;
}

static PyObject *graph_repr(WnnGraphObject *self)
{
    PyObject *in = graph_names(self, NULL), *out = in ? graph_names(self, (void *)1) : NULL;
    PyObject *r = out ? PyUnicode_FromFormat("<wnn.Graph inputs=%R outputs=%R on %U>", in, out, self->ctx->device)
                      : NULL;
    Py_XDECREF(in);
    Py_XDECREF(out);
    return r;
}

static PyMethodDef graph_methods[] = {
    {"destroy", (PyCFunction)graph_destroy, METH_NOARGS, "destroy($self, /)\n--\n\nWebNN's MLGraph.destroy()."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef graph_getset[] = {
    {"inputs", (getter)graph_names, NULL, "dict name -> (dtype, shape) of the inputs", NULL},
    {"outputs", (getter)graph_names, NULL, "dict name -> (dtype, shape) of the outputs", (void *)1},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject WnnGraph_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.Graph",
    .tp_basicsize = sizeof(WnnGraphObject),
    .tp_dealloc = (destructor)graph_dealloc,
    .tp_repr = (reprfunc)graph_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WebNN's MLGraph: compiled for its context's device; run with Context.dispatch().",
    .tp_methods = graph_methods,
    .tp_getset = graph_getset,
};
