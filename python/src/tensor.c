/* SPDX-License-Identifier: Apache-2.0 */
/*
** tensor.c -- wnn.Tensor: a handle on one wnn_tensor (WebNN's MLTensor).
** Tensors are made by Context.tensor(), Context.constant() and
** wnn.from_dlpack(); their DLPack methods live in dlpack.c.
*/
#include "wnnpy.h"

PyObject *wnnpy_tensor_new(WnnContextObject *ctx, wnn_tensor *tensor)
{
    WnnTensorObject *self = PyObject_New(WnnTensorObject, &WnnTensor_Type);
    if (!self) {
        wnn_tensor_release(tensor);
        return NULL;
    }
    self->ctx = (WnnContextObject *)Py_NewRef((PyObject *)ctx);
    self->tensor = tensor;
    return (PyObject *)self;
}

static void tensor_dealloc(WnnTensorObject *self)
{
    wnn_tensor_release(self->tensor);
    Py_DECREF(self->ctx);
    PyObject_Free(self);
}

static PyObject *tensor_repr(WnnTensorObject *self)
{
    wnn_tensor_desc d;
    wnn_tensor_get_desc(self->tensor, &d);
    PyObject *shape = wnnpy_shape_tuple(d.shape, d.rank);
    if (!shape) return NULL;
    PyObject *r = PyUnicode_FromFormat("<wnn.Tensor %s %R on %U%s%s%s%s>", wnn_data_type_name(d.data_type), shape,
                                       self->ctx->device, d.readable ? " readable" : "",
                                       d.writable ? " writable" : "",
                                       wnn_tensor_is_constant(self->tensor) ? " constant" : "",
                                       wnn_tensor_is_destroyed(self->tensor) ? " destroyed" : "");
    Py_DECREF(shape);
    return r;
}

static PyObject *tensor_destroy(WnnTensorObject *self, PyObject *unused)
{
    wnn_tensor_destroy(self->tensor);
    Py_RETURN_NONE;
}

static PyObject *tensor_get_dtype(WnnTensorObject *self, void *c)
{
    return wnnpy_data_type_name(wnn_tensor_data_type(self->tensor));
}

static PyObject *tensor_get_shape(WnnTensorObject *self, void *c)
{
    wnn_tensor_desc d;
    wnn_tensor_get_desc(self->tensor, &d);
    return wnnpy_shape_tuple(d.shape, d.rank);
}

static PyObject *tensor_get_ndim(WnnTensorObject *self, void *c)
{
    return PyLong_FromUnsignedLong(wnn_tensor_rank(self->tensor));
}

static PyObject *tensor_get_byte_length(WnnTensorObject *self, void *c)
{
    return PyLong_FromUnsignedLongLong(wnn_tensor_byte_length(self->tensor));
}

static PyObject *tensor_get_flag(WnnTensorObject *self, void *which)
{
    bool (*get)(const wnn_tensor *) = (bool (*)(const wnn_tensor *))which;
    return PyBool_FromLong(get(self->tensor));
}

static PyObject *tensor_get_context(WnnTensorObject *self, void *c) { return Py_NewRef((PyObject *)self->ctx); }

static PyObject *tensor_get_device(WnnTensorObject *self, void *c) { return Py_NewRef(self->ctx->device); }

static PyObject *tensor_get_size(WnnTensorObject *self, void *c)
{
    wnn_tensor_desc d;
    wnn_tensor_get_desc(self->tensor, &d);
    unsigned long long n = 1;
    for (uint32_t i = 0; i < d.rank; i++) n *= d.shape[i];
    return PyLong_FromUnsignedLongLong(n);
}

static Py_ssize_t tensor_len(WnnTensorObject *self)
{
    wnn_tensor_desc d;
    wnn_tensor_get_desc(self->tensor, &d);
    if (d.rank == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
        return -1;
    }
    return (Py_ssize_t)d.shape[0];
}

/* numpy(): Context.read(self), a copy. */
static PyObject *tensor_numpy(WnnTensorObject *self, PyObject *unused)
{
    if (!wnnpy_numpy()) return PyErr_Format(PyExc_ImportError, "Tensor.numpy() needs NumPy");
    return PyObject_CallMethod((PyObject *)self->ctx, "read", "O", (PyObject *)self);
}

/* __array__(dtype=None, copy=None): NumPy's conversion protocol. Reading is
** always a copy, so copy=False cannot be honoured (NumPy 2's rule). */
static PyObject *tensor_array(WnnTensorObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"dtype", "copy", NULL};
    PyObject *v[2] = {NULL, NULL};
    if (wnnpy_parse_kwargs("__array__", args, nargs, kwnames, 2, names, v) < 0) return NULL;
    if (v[1] && v[1] != Py_None) {
        int copy = PyObject_IsTrue(v[1]);
        if (copy < 0) return NULL;
        if (!copy)
            return PyErr_Format(PyExc_ValueError, "a wnn.Tensor reaches NumPy only as a copy (Context.read); for "
                                                  "shared memory use numpy.from_dlpack(tensor)");
    }
    PyObject *arr = tensor_numpy(self, NULL);
    if (!arr || !v[0] || v[0] == Py_None) return arr;
    PyObject *r = PyObject_CallMethod(arr, "astype", "O", v[0]);
    Py_DECREF(arr);
    return r;
}

static PyObject *tensor_tolist(WnnTensorObject *self, PyObject *unused)
{
    PyObject *arr = tensor_numpy(self, NULL);
    if (!arr) return NULL;
    PyObject *r = PyObject_CallMethod(arr, "tolist", NULL);
    Py_DECREF(arr);
    return r;
}

static PyMethodDef tensor_methods[] = {
    {"destroy", (PyCFunction)tensor_destroy, METH_NOARGS,
     "destroy($self, /)\n--\n\nWebNN's MLTensor.destroy(): the tensor is unusable at once. Memory lent through "
     "DLPack stays valid until its consumer lets go."},
    {"numpy", (PyCFunction)tensor_numpy, METH_NOARGS,
     "numpy($self, /)\n--\n\nA NumPy array holding a copy of the contents: context.read(self), which waits for "
     "the tensor's pending work. The tensor must be readable. numpy.from_dlpack(self) shares the memory "
     "instead."},
    {"tolist", (PyCFunction)tensor_tolist, METH_NOARGS,
     "tolist($self, /)\n--\n\nThe contents as nested Python lists (self.numpy().tolist())."},
    {"__array__", (PyCFunction)(void (*)(void))tensor_array, METH_FASTCALL | METH_KEYWORDS,
     "__array__($self, /, dtype=None, copy=None)\n--\n\nNumPy's conversion: numpy.asarray(tensor) is "
     "self.numpy(), a copy (copy=False raises ValueError)."},
    {"__dlpack__", (PyCFunction)(void (*)(void))wnnpy_tensor_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__($self, /, *, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\nExports the "
     "tensor as a DLPack capsule: \"dltensor_versioned\" when max_version's major is >= 1, else the legacy "
     "\"dltensor\". stream: None or -1 for host memory; a device with queues (null) also takes >= 1. "
     "dl_device=(1, 0) asks for host memory (a copy from a discrete device); copy=True always copies, "
     "copy=False never does (BufferError where a copy is needed)."},
    {"__dlpack_device__", wnnpy_tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__($self, /)\n--\n\nReturns (device_type, device_id): the DLPack device of the tensor's memory (1, 0 = CPU)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef tensor_getset[] = {
    {"dtype", (getter)tensor_get_dtype, NULL, "the WebNN data type name, e.g. \"float32\"", NULL},
    {"shape", (getter)tensor_get_shape, NULL, "the shape, a tuple of ints", NULL},
    {"ndim", (getter)tensor_get_ndim, NULL, "the rank", NULL},
    {"byte_length", (getter)tensor_get_byte_length, NULL, "the size in bytes", NULL},
    {"readable", (getter)tensor_get_flag, NULL, "created readable", (void *)wnn_tensor_is_readable},
    {"writable", (getter)tensor_get_flag, NULL, "created writable", (void *)wnn_tensor_is_writable},
    {"constant", (getter)tensor_get_flag, NULL, "a constant tensor", (void *)wnn_tensor_is_constant},
    {"destroyed", (getter)tensor_get_flag, NULL, "destroy() was called (or its context lost)",
     (void *)wnn_tensor_is_destroyed},
    {"context", (getter)tensor_get_context, NULL, "the Context the tensor belongs to", NULL},
    {"device", (getter)tensor_get_device, NULL, "the name of its context's device, e.g. \"cpu\"", NULL},
    {"size", (getter)tensor_get_size, NULL, "the number of elements", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* A handle is true whatever its contents, as other objects are; reading them
** is a choice the caller makes (numpy(), read()). */
static int tensor_bool(PyObject *self) { return 1; }

static PySequenceMethods tensor_as_sequence = {.sq_length = (lenfunc)tensor_len};
static PyNumberMethods tensor_as_number = {.nb_bool = tensor_bool};

PyTypeObject WnnTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.Tensor",
    .tp_basicsize = sizeof(WnnTensorObject),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_repr = (reprfunc)tensor_repr,
    .tp_as_number = &tensor_as_number,
    .tp_as_sequence = &tensor_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WebNN's MLTensor: typed storage on a context's device. Made by Context.tensor(), "
              "Context.constant() and wnn.from_dlpack().",
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};
