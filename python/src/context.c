/* SPDX-License-Identifier: Apache-2.0 */
/*
** context.c -- wnn.Context: creating tensors and constants, writing and
** reading them, dispatching graphs, and the context's life cycle.
*/
#include "wnnpy.h"

#include <string.h>

static int check_tensor(PyObject *obj, const char *what)
{
    if (PyObject_TypeCheck(obj, &WnnTensor_Type)) return 0;
    PyErr_Format(PyExc_TypeError, "%s must be a wnn.Tensor, not %.100s", what, Py_TYPE(obj)->tp_name);
    return -1;
}

static const struct {
    const char *name;
    int value;
} power_preferences[] = {{"default", WNN_POWER_PREFERENCE_DEFAULT},
                         {"high-performance", WNN_POWER_PREFERENCE_HIGH_PERFORMANCE},
                         {"low-power", WNN_POWER_PREFERENCE_LOW_POWER}},
  policies[] = {{"chromium", WNN_POLICY_CHROMIUM}, {"spec", WNN_POLICY_SPEC}};

static PyObject *context_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *names[] = {"device", "power_preference", "policy", "memory_limit", NULL};
    const char *device = NULL, *power = "default", *policy = "chromium";
    PyObject *limit = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|z$ssO:Context", names, &device, &power, &policy, &limit))
        return NULL;
    /* an int in [0, 2^64-1]: never wrapped, never a bool or a float */
    unsigned long long memory_limit = 0;
    if (limit && limit != Py_None) {
        if (!PyLong_Check(limit) || PyBool_Check(limit)) {
            PyErr_Format(PyExc_TypeError, "Context: memory_limit must be an int, not %s", Py_TYPE(limit)->tp_name);
            return NULL;
        }
        memory_limit = PyLong_AsUnsignedLongLong(limit);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return wnnpy_argument_error("Context: memory_limit is out of range (0 to 2**64 - 1 bytes)");
        }
    }
    wnn_context_options o = WNN_CONTEXT_OPTIONS_INIT;
    o.device = device;
    o.memory_limit = memory_limit;
    size_t i;
    for (i = 0; i < 3 && strcmp(power_preferences[i].name, power) != 0; i++) {}
    if (i == 3) return wnnpy_argument_error("Context: unknown power_preference '%s'", power);
    o.power_preference = (wnn_power_preference)power_preferences[i].value;
    for (i = 0; i < 2 && strcmp(policies[i].name, policy) != 0; i++) {}
    if (i == 2) return wnnpy_argument_error("Context: unknown policy '%s' (chromium or spec)", policy);
    o.policy = (wnn_policy)policies[i].value;

    WnnContextObject *self = (WnnContextObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    wnn_status s = wnn_context_create(&o, &self->ctx);
    wnn_device_info info;
    if (s == WNN_OK) s = wnn_context_get_device_info(self->ctx, &info);
    if (s != WNN_OK) {
        wnnpy_raise(s, NULL);
        Py_DECREF(self);
        return NULL;
    }
    self->device = PyUnicode_FromString(info.name);
    if (!self->device) Py_CLEAR(self);
    return (PyObject *)self;
}

static void context_dealloc(WnnContextObject *self)
{
    if (self->ctx) {
        Py_BEGIN_ALLOW_THREADS wnn_context_release(self->ctx); /* waits for queued work */
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(self->device);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *context_repr(WnnContextObject *self)
{
    return PyUnicode_FromFormat("<wnn.Context device=%R%s>", self->device,
                                wnn_context_is_lost(self->ctx) ? " lost" : "");
}

/* tensor(shape, dtype="float32", *, readable=False, writable=False) */
static PyObject *context_tensor(WnnContextObject *self, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"shape", "dtype", "readable", "writable", NULL};
    PyObject *v[4] = {NULL, NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("tensor", args, nargs, kwnames, 2, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "tensor() missing required argument 'shape'");
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    int readable = 0, writable = 0;
    if (wnnpy_shape(v[0], "shape", d.shape, &d.rank) < 0) return NULL;
    if (v[1] && (d.data_type = wnnpy_data_type(v[1])) == WNN_DATA_TYPE_INVALID) return NULL;
    if ((v[2] && (readable = PyObject_IsTrue(v[2])) < 0) || (v[3] && (writable = PyObject_IsTrue(v[3])) < 0))
        return NULL;
    d.readable = readable;
    d.writable = writable;
    wnn_tensor *t;
    wnn_status s = wnn_context_create_tensor(self->ctx, &d, &t);
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    return wnnpy_tensor_new(self, t);
}

/* wnnpy_buffer_desc() for Python data: converted to dtype (float32 when
** None); shape, when given, must hold as many elements as the data. */
static int python_data_desc(PyObject *data, PyObject *shape, PyObject *dtype, const char *what,
                            wnn_operand_desc *desc, Py_buffer *view, void **bytes, void **copy)
{
    wnn_data_type t = WNN_DATA_TYPE_FLOAT32;
    if (dtype && dtype != Py_None && (t = wnnpy_data_type(dtype)) == WNN_DATA_TYPE_INVALID) return -1;
    PyObject *packed = wnnpy_convert_python_data(data, t, what, desc);
    if (!packed) return -1;
    if (shape && shape != Py_None) {
        wnn_operand_desc given = *desc;
        if (wnnpy_shape(shape, "shape", given.shape, &given.rank) < 0) {
            Py_DECREF(packed);
            return -1;
        }
        if (wnn_operand_desc_element_count(&given) != wnn_operand_desc_element_count(desc)) {
            char got[128], want[128];
            wnnpy_shape_text(desc->shape, desc->rank, got, sizeof got);
            wnnpy_shape_text(given.shape, given.rank, want, sizeof want);
            Py_DECREF(packed);
            wnnpy_argument_error("%s: the data has shape %s, which does not fill shape %s", what, got, want);
            return -1;
        }
        *desc = given;
    }
    *copy = NULL;
    int rc = PyObject_GetBuffer(packed, view, PyBUF_SIMPLE); /* the view keeps packed alive */
    Py_DECREF(packed);
    *bytes = view->buf;
    return rc;
}

/* Fills desc from data's buffer and the optional shape and dtype: the
** buffer's own shape and element type unless given. Sets *view (released by
** the caller) and *bytes (maybe a contiguous copy in *copy). */
int wnnpy_buffer_desc(PyObject *data, PyObject *shape, PyObject *dtype, const char *what, wnn_operand_desc *desc,
                      Py_buffer *view, void **bytes, void **copy)
{
    if (wnnpy_is_python_data(data)) return python_data_desc(data, shape, dtype, what, desc, view, bytes, copy);
    if (wnnpy_get_buffer(data, view, bytes, copy) < 0) return -1;
    wnn_data_type own = wnnpy_format_data_type(view->format, view->itemsize);
    desc->data_type = own;
    if (dtype && dtype != Py_None) {
        if ((desc->data_type = wnnpy_data_type(dtype)) == WNN_DATA_TYPE_INVALID ||
            wnnpy_check_buffer_type(view, desc->data_type, what) < 0)
            goto fail;
    } else if (own == WNN_DATA_TYPE_INVALID) {
        PyErr_Format(PyExc_TypeError,
                     "%s: the buffer's format '%s' is no wnn data type (WebNN has no float64 or int16); convert "
                     "it first, e.g. array.astype(numpy.float32)",
                     what, view->format ? view->format : "B");
        goto fail;
    }
    if (shape && shape != Py_None) {
        if (wnnpy_shape(shape, "shape", desc->shape, &desc->rank) < 0) goto fail;
    } else if (own == desc->data_type && view->ndim <= WNN_MAX_RANK) {
        desc->rank = (uint32_t)view->ndim;
        for (int i = 0; i < view->ndim; i++) {
            if (view->shape[i] > (Py_ssize_t)WNN_MAX_DIMENSION) {
                wnnpy_raise(WNN_STATUS_INVALID_DIMENSION, "the buffer's dimensions exceed 2^31-1");
                goto fail;
            }
            desc->shape[i] = (uint32_t)view->shape[i];
        }
    } else {
        PyErr_Format(PyExc_TypeError, "%s: shape= is needed to read these bytes as %s", what,
                     wnn_data_type_name(desc->data_type));
        goto fail;
    }
    return 0;
fail:
    PyMem_Free(*copy);
    PyBuffer_Release(view);
    return -1;
}

/* constant(data, *, shape=None, dtype=None) */
static PyObject *context_constant(WnnContextObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    static const char *const names[] = {"data", "shape", "dtype", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("constant", args, nargs, kwnames, 1, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "constant() missing required argument 'data'");
    wnn_operand_desc d = WNN_OPERAND_DESC_INIT;
    Py_buffer view;
    void *bytes, *copy;
    if (wnnpy_buffer_desc(v[0], v[1], v[2], "constant", &d, &view, &bytes, &copy) < 0) return NULL;
    wnn_tensor *t;
    wnn_status s = wnn_context_create_constant_tensor(self->ctx, &d, bytes, (size_t)view.len, &t);
    PyMem_Free(copy);
    PyBuffer_Release(&view);
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    return wnnpy_tensor_new(self, t);
}

/* Raises the exception of a failed call on this context. A tensor of another
** context most often comes from wnn.from_dlpack() without device=, which
** imports into the module's default context: the message says so. */
static PyObject *raise_status(wnn_status s)
{
    const char *msg = wnn_last_error_message();
    if (s != WNN_STATUS_WRONG_CONTEXT || !strstr(msg, "tensor") || !strstr(msg, "another context"))
        return wnnpy_raise(s, NULL);
    char buf[768];
    PyOS_snprintf(buf, sizeof buf,
                  "%s (a tensor belongs to the Context that made it: make it with this context's tensor(), or "
                  "import an array into this context with wnn.from_dlpack(x, device=ctx))",
                  msg);
    return wnnpy_raise(s, buf);
}

/* Checks data's shape against the tensor's: a buffer of elements must have
** the tensor's shape; raw bytes (one dimension of single bytes: bytes,
** bytearray, a uint8 vector) are taken by byte count alone. */
static int check_write_shape(const Py_buffer *view, const wnn_tensor_desc *d)
{
    const char *f = view->format ? view->format : "B";
    if (view->itemsize == 1 && view->ndim <= 1 && (strcmp(f, "B") == 0 || strcmp(f, "@B") == 0)) return 0;
    bool same = view->ndim == (int)d->rank;
    for (int i = 0; same && i < view->ndim; i++) same = view->shape[i] == (Py_ssize_t)d->shape[i];
    if (same) return 0;
    char got[160], want[160];
    size_t len = (size_t)PyOS_snprintf(got, sizeof got, "[");
    for (int i = 0; i < view->ndim && len < sizeof got; i++)
        len += (size_t)PyOS_snprintf(got + len, sizeof got - len, "%s%zd", i ? ", " : "", view->shape[i]);
    if (len < sizeof got) PyOS_snprintf(got + len, sizeof got - len, "]");
    wnnpy_shape_text(d->shape, d->rank, want, sizeof want);
    wnn_operand_desc od = {d->data_type, d->rank, {0}};
    memcpy(od.shape, d->shape, sizeof od.shape);
    char msg[400];
    PyOS_snprintf(msg, sizeof msg, "write: the data has shape %s, the tensor has shape %s", got, want);
    wnnpy_raise((uint64_t)view->len == wnn_operand_desc_byte_length(&od) ? WNN_STATUS_DESCRIPTOR_MISMATCH
                                                                          : WNN_STATUS_BYTE_LENGTH_MISMATCH,
                msg);
    return -1;
}

/* write(tensor, data) */
static PyObject *context_write(WnnContextObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "write() takes 2 arguments (tensor, data)");
    if (check_tensor(args[0], "write: tensor") < 0) return NULL;
    wnn_tensor *t = ((WnnTensorObject *)args[0])->tensor;
    wnn_tensor_desc d;
    wnn_tensor_get_desc(t, &d);
    PyObject *packed = NULL;
    PyObject *data = args[1];
    if (wnnpy_is_python_data(data)) {
        wnn_operand_desc pd;
        if (!(data = packed = wnnpy_convert_python_data(data, d.data_type, "write", &pd))) return NULL;
        bool same = pd.rank == d.rank && memcmp(pd.shape, d.shape, sizeof(uint32_t) * d.rank) == 0;
        if (!same) {
            char got[160], want[160];
            wnnpy_shape_text(pd.shape, pd.rank, got, sizeof got);
            wnnpy_shape_text(d.shape, d.rank, want, sizeof want);
            Py_DECREF(packed);
            char msg[400];
            PyOS_snprintf(msg, sizeof msg, "write: the data has shape %s, the tensor has shape %s", got, want);
            return wnnpy_raise(WNN_STATUS_DESCRIPTOR_MISMATCH, msg);
        }
    }
    Py_buffer view;
    void *bytes, *copy;
    if (wnnpy_get_buffer(data, &view, &bytes, &copy) < 0) {
        Py_XDECREF(packed);
        return NULL;
    }
    wnn_status s = WNN_OK;
    if ((packed || wnnpy_check_buffer_type(&view, d.data_type, "write") == 0) &&
        (packed || check_write_shape(&view, &d) == 0)) {
        Py_BEGIN_ALLOW_THREADS s = wnn_context_write_tensor(self->ctx, t, bytes, (size_t)view.len);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(copy);
    PyBuffer_Release(&view);
    Py_XDECREF(packed);
    if (PyErr_Occurred()) return NULL;
    if (s != WNN_OK) return raise_status(s);
    Py_RETURN_NONE;
}

static wnn_status read_into(WnnContextObject *self, wnn_tensor *t, void *buf, size_t size)
{
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_read_tensor_sync(self->ctx, t, buf, size);
    Py_END_ALLOW_THREADS
    return s;
}

/* read(tensor, *, out=None) -> numpy.ndarray, bytes, or out */
static PyObject *context_read(WnnContextObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"tensor", "out", NULL};
    PyObject *v[2] = {NULL, NULL};
    if (wnnpy_parse_kwargs("read", args, nargs, kwnames, 1, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "read() missing required argument 'tensor'");
    if (check_tensor(v[0], "read: tensor") < 0) return NULL;
    wnn_tensor *t = ((WnnTensorObject *)v[0])->tensor;
    wnn_tensor_desc d;
    wnn_tensor_get_desc(t, &d);
    size_t size = (size_t)wnn_tensor_byte_length(t);
    wnn_status s;

    if (v[1] && v[1] != Py_None) {
        Py_buffer view;
        if (PyObject_GetBuffer(v[1], &view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return NULL;
        if (wnnpy_check_buffer_type(&view, d.data_type, "read") < 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
        s = read_into(self, t, view.buf, (size_t)view.len);
        PyBuffer_Release(&view);
        return s == WNN_OK ? Py_NewRef(v[1]) : raise_status(s);
    }

    PyObject *np = d.data_type == WNN_DATA_TYPE_INT4 || d.data_type == WNN_DATA_TYPE_UINT4 ? NULL : wnnpy_numpy();
    if (!np) {
        PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
        if (!bytes) return NULL;
        s = read_into(self, t, PyBytes_AS_STRING(bytes), size);
        if (s != WNN_OK) {
            Py_DECREF(bytes);
            return raise_status(s);
        }
        return bytes;
    }
    PyObject *shape = wnnpy_shape_tuple(d.shape, d.rank);
    PyObject *arr = shape ? PyObject_CallMethod(np, "empty", "Os", shape, wnn_data_type_name(d.data_type)) : NULL;
    Py_XDECREF(shape);
    if (!arr) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    s = read_into(self, t, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    if (s != WNN_OK) {
        Py_DECREF(arr);
        return raise_status(s);
    }
    return arr;
}

/* Fills bindings from a dict name -> Tensor. */
static int named_tensors(PyObject *dict, const char *what, wnn_named_tensor **out, size_t *count)
{
    if (!PyDict_Check(dict)) {
        PyErr_Format(PyExc_TypeError, "dispatch: %s must be a dict of name -> wnn.Tensor", what);
        return -1;
    }
    Py_ssize_t n = PyDict_Size(dict), pos = 0, i = 0;
    wnn_named_tensor *b = PyMem_Calloc(n ? (size_t)n : 1, sizeof *b);
    if (!b) return PyErr_NoMemory(), -1;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !(b[i].name = PyUnicode_AsUTF8(key))) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "dispatch: %s names must be str", what);
            PyMem_Free(b);
            return -1;
        }
        if (check_tensor(value, what) < 0) {
            PyMem_Free(b);
            return -1;
        }
        b[i++].tensor = ((WnnTensorObject *)value)->tensor;
    }
    *out = b;
    *count = (size_t)n;
    return 0;
}

/* dispatch(graph, inputs, outputs) */
static PyObject *context_dispatch(WnnContextObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames)
{
    static const char *const names[] = {"graph", "inputs", "outputs", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("dispatch", args, nargs, kwnames, 3, names, v) < 0) return NULL;
    if (!v[0] || !v[1] || !v[2]) return PyErr_Format(PyExc_TypeError, "dispatch() takes graph, inputs, outputs");
    if (!PyObject_TypeCheck(v[0], &WnnGraph_Type))
        return PyErr_Format(PyExc_TypeError, "dispatch: graph must be a wnn.Graph");
    wnn_named_tensor *in = NULL, *out = NULL;
    size_t nin, nout;
    if (named_tensors(v[1], "inputs", &in, &nin) < 0) return NULL;
    if (named_tensors(v[2], "outputs", &out, &nout) < 0) {
        PyMem_Free(in);
        return NULL;
    }
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_dispatch(self->ctx, ((WnnGraphObject *)v[0])->graph, in, nin, out, nout);
    Py_END_ALLOW_THREADS
    PyMem_Free(in);
    PyMem_Free(out);
    if (s != WNN_OK) return raise_status(s);
    Py_RETURN_NONE;
}

static PyObject *context_finish(WnnContextObject *self, PyObject *unused)
{
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_finish(self->ctx);
    Py_END_ALLOW_THREADS
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    Py_RETURN_NONE;
}

static PyObject *context_destroy(WnnContextObject *self, PyObject *unused)
{
    wnn_context_destroy(self->ctx);
    Py_RETURN_NONE;
}

static PyObject *context_graph_builder(WnnContextObject *self, PyObject *unused)
{
    return PyObject_CallOneArg((PyObject *)&WnnBuilder_Type, (PyObject *)self);
}

static PyObject *context_memory_stats(WnnContextObject *self, PyObject *unused)
{
    wnn_memory_stats m;
    wnn_status s = wnn_context_get_memory_stats(self->ctx, &m);
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "in_use_bytes", m.in_use_bytes,
                         "cached_bytes", m.cached_bytes, "peak_bytes", m.peak_bytes, "device_allocations",
                         m.device_allocations, "device_frees", m.device_frees, "copies_to_device",
                         m.copies_to_device, "bytes_to_device", m.bytes_to_device, "copies_to_host",
                         m.copies_to_host, "bytes_to_host", m.bytes_to_host, "copies_on_device",
                         m.copies_on_device, "bytes_on_device", m.bytes_on_device);
}

static PyObject *context_trim_memory(WnnContextObject *self, PyObject *unused)
{
    wnn_context_trim_memory(self->ctx);
    Py_RETURN_NONE;
}

static PyObject *context_get_device_info(WnnContextObject *self, void *closure)
{
    wnn_device_info info;
    wnn_status s = wnn_context_get_device_info(self->ctx, &info);
    return s == WNN_OK ? wnnpy_device_info_dict(&info) : wnnpy_raise(s, NULL);
}

static PyObject *context_get_lost(WnnContextObject *self, void *closure)
{
    return PyBool_FromLong(wnn_context_is_lost(self->ctx));
}

static PyObject *context_enter(PyObject *self, PyObject *unused) { return Py_NewRef(self); }

static PyObject *context_exit(WnnContextObject *self, PyObject *args)
{
    wnn_context_destroy(self->ctx);
    Py_RETURN_FALSE;
}

#define FASTKW(f) (PyCFunction)(void (*)(void))(f), METH_FASTCALL | METH_KEYWORDS
static PyMethodDef context_methods[] = {
    {"tensor", FASTKW(context_tensor),
     "tensor($self, /, shape, dtype=\"float32\", *, readable=False, writable=False)\n--\n\nA new Tensor "
     "that reads as zeros (WebNN's createTensor)."},
    {"constant", FASTKW(context_constant),
     "constant($self, /, data, *, shape=None, dtype=None)\n--\n\nA constant Tensor holding a copy of data: "
     "a buffer (NumPy array, bytes, memoryview; shape and dtype default to the buffer's, and an array of a "
     "type wnn lacks, such as float64, is refused: convert it with astype), or Python data -- a number or "
     "nested lists -- converted to dtype (default float32; shape may reshape it). Constants feed "
     "GraphBuilder.constant(); they cannot be read, written or dispatched; their DLPack exports are read-only."},
    {"write", (PyCFunction)(void (*)(void))context_write, METH_FASTCALL,
     "write($self, tensor, data, /)\n--\n\nCopies data into tensor (WebNN's writeTensor): a buffer of the "
     "tensor's data type and shape (an array of another type is refused: convert it with astype), raw bytes "
     "(bytes, bytearray, a 1-D uint8 buffer) of its byte length, or Python data -- a number or nested lists "
     "of the tensor's shape -- converted to its data type."},
    {"read", FASTKW(context_read),
     "read($self, /, tensor, *, out=None)\n--\n\nWaits for the tensor's pending work and returns "
     "its contents: a NumPy array of its dtype and shape when NumPy is installed (bytes for int4/uint4 and "
     "without NumPy), or fills the writable buffer out and returns it (WebNN's readTensor)."},
    {"dispatch", FASTKW(context_dispatch),
     "dispatch($self, /, graph, inputs, outputs)\n--\n\nRecords an execution of graph; inputs and outputs "
     "are dicts of name -> Tensor of this context. Returns at once; read() waits."},
    {"finish", (PyCFunction)context_finish, METH_NOARGS,
     "finish($self, /)\n--\n\nWaits for every recorded piece of work; raises the first error the timeline met."},
    {"destroy", (PyCFunction)context_destroy, METH_NOARGS,
     "destroy($self, /)\n--\n\nLoses the context (WebNN's MLContext.destroy()); its tensors and graphs become unusable."},
    {"graph_builder", (PyCFunction)context_graph_builder, METH_NOARGS,
     "graph_builder($self, /)\n--\n\nThe same as GraphBuilder(self)."},
    {"memory_stats", (PyCFunction)context_memory_stats, METH_NOARGS,
     "memory_stats($self, /)\n--\n\nA dict: the device allocator's statistics."},
    {"trim_memory", (PyCFunction)context_trim_memory, METH_NOARGS,
     "trim_memory($self, /)\n--\n\nGives cached device blocks back."},
    {"__enter__", context_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)context_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef context_getset[] = {
    {"device_info", (getter)context_get_device_info, NULL, "dict describing the context's device", NULL},
    {"lost", (getter)context_get_lost, NULL, "True once the context is destroyed", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef context_members[] = {
    {"device", T_OBJECT_EX, offsetof(WnnContextObject, device), READONLY, "the device's name"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject WnnContext_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.Context",
    .tp_basicsize = sizeof(WnnContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_repr = (reprfunc)context_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(device=None, *, power_preference=\"default\", policy=\"chromium\", memory_limit=0)\n--\n\n"
              "WebNN's MLContext, bound to one device (\"cpu\", \"null\", ...; None picks by "
              "power_preference). Usable as a with-block, which destroys it at the end.",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_members = context_members,
    .tp_new = context_new,
};
