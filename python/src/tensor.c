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

static PyMethodDef tensor_methods[] = {
    {"destroy", (PyCFunction)tensor_destroy, METH_NOARGS,
     "destroy()\n\nWebNN's MLTensor.destroy(): the tensor is unusable at once. Memory lent through DLPack "
     "stays valid until its consumer lets go."},
    {"__dlpack__", (PyCFunction)(void (*)(void))wnnpy_tensor_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule\n\nExports the "
     "tensor as a DLPack capsule: \"dltensor_versioned\" when max_version's major is >= 1, else the legacy "
     "\"dltensor\". stream: None or -1 for host memory; a device with queues (null) also takes >= 1. "
     "dl_device=(1, 0) asks for host memory (a copy from a discrete device); copy=True always copies, "
     "copy=False never does (BufferError where a copy is needed)."},
    {"__dlpack_device__", wnnpy_tensor_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id)\n\nThe DLPack device of the tensor's memory (1, 0 = CPU)."},
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
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject WnnTensor_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "wnn.Tensor",
    .tp_basicsize = sizeof(WnnTensorObject),
    .tp_dealloc = (destructor)tensor_dealloc,
    .tp_repr = (reprfunc)tensor_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "WebNN's MLTensor: typed storage on a context's device. Made by Context.tensor(), "
              "Context.constant() and wnn.from_dlpack().",
    .tp_methods = tensor_methods,
    .tp_getset = tensor_getset,
};
