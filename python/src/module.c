/* SPDX-License-Identifier: Apache-2.0 */
/*
** module.c -- the wnn._wnn module: exception classes and the status mapping,
** conversions shared by the other files (data types, shapes, buffers,
** keyword arguments), devices(), operators() and the default contexts.
*/
#include "wnnpy.h"

#include <stdarg.h>
#include <string.h>

PyObject *wnnpy_Error;
PyObject *wnnpy_ArgumentError;
PyObject *wnnpy_DLPackError;
static PyObject *InvalidStateError;
static PyObject *NotSupportedError;
static PyObject *OperationError;
static PyObject *OutOfMemoryError;
static PyObject *UnknownError;

static PyObject *numpy_module; /* Py_None when NumPy is absent */
static PyObject *default_contexts; /* dict: device name -> Context */

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static PyObject *class_of(wnn_status s)
{
    switch (wnn_status_class(s)) {
    case WNN_STATUS_TYPE_ERROR: return wnnpy_ArgumentError;
    case WNN_STATUS_INVALID_STATE: return InvalidStateError;
    case WNN_STATUS_NOT_SUPPORTED: return NotSupportedError;
    case WNN_STATUS_OPERATION_ERROR: return OperationError;
    case WNN_STATUS_OUT_OF_MEMORY: return OutOfMemoryError;
    default: return UnknownError;
    }
}

PyObject *wnnpy_raise(wnn_status s, const char *msg) { return wnnpy_raise_as(class_of(s), s, msg); }

PyObject *wnnpy_raise_as(PyObject *cls, wnn_status s, const char *msg)
{
    if (!msg || !*msg) msg = wnn_last_error_message();
    const char *name = wnn_status_string(s);
    PyObject *exc = *msg ? PyObject_CallFunction(cls, "s", msg) : PyObject_CallFunction(cls, "s", name);
    if (!exc) return NULL;
    PyObject *code = PyLong_FromLong((long)s);
    PyObject *sname = PyUnicode_FromString(name);
    if (code && sname && PyObject_SetAttrString(exc, "status", code) == 0 &&
        PyObject_SetAttrString(exc, "status_name", sname) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(code);
    Py_XDECREF(sname);
    Py_DECREF(exc);
    return NULL;
}

PyObject *wnnpy_argument_error(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    PyOS_vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return wnnpy_raise(WNN_STATUS_INVALID_ARGUMENT, buf);
}

PyObject *wnnpy_argument_error_obj(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
    if (text) wnnpy_raise(WNN_STATUS_INVALID_ARGUMENT, text);
    Py_XDECREF(msg);
    return NULL;
}

/* Creates one exception class "wnn.NAME" with the given bases. */
static PyObject *add_exception(PyObject *m, const char *name, PyObject *bases, const char *doc)
{
    char full[64];
    PyOS_snprintf(full, sizeof full, "wnn.%s", name);
    PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, bases, NULL);
    Py_DECREF(bases);
    if (!cls || PyModule_AddObjectRef(m, name, cls) < 0) {
        Py_XDECREF(cls);
        return NULL;
    }
    return cls;
}

static int add_exceptions(PyObject *m)
{
    wnnpy_Error = add_exception(m, "Error", Py_BuildValue("(O)", PyExc_Exception),
                                "Base of every error wnn reports. .status is the wnn_status "
                                "value, .status_name its name.");
    if (!wnnpy_Error) return -1;
    wnnpy_ArgumentError = add_exception(m, "ArgumentError",
                                        Py_BuildValue("(OOO)", wnnpy_Error, PyExc_TypeError, PyExc_ValueError),
                                        "WebNN's TypeError: an argument breaks a rule (type, shape, "
                                        "size, name). Also a TypeError and a ValueError.");
    InvalidStateError = add_exception(m, "InvalidStateError",
                                      Py_BuildValue("(OO)", wnnpy_Error, PyExc_RuntimeError),
                                      "WebNN's InvalidStateError: destroyed object, lost context, "
                                      "builder already built.");
    NotSupportedError = add_exception(m, "NotSupportedError",
                                      Py_BuildValue("(OO)", wnnpy_Error, PyExc_RuntimeError),
                                      "WebNN's NotSupportedError: no such device or feature.");
    OperationError = add_exception(m, "OperationError", Py_BuildValue("(OO)", wnnpy_Error, PyExc_RuntimeError),
                                   "WebNN's OperationError: the device failed.");
    OutOfMemoryError = add_exception(m, "OutOfMemoryError", Py_BuildValue("(OO)", wnnpy_Error, PyExc_MemoryError),
                                     "Host or device memory ran out.");
    UnknownError = add_exception(m, "UnknownError", Py_BuildValue("(OO)", wnnpy_Error, PyExc_RuntimeError),
                                 "WebNN's UnknownError.");
    wnnpy_DLPackError = add_exception(m, "DLPackError", Py_BuildValue("(OO)", wnnpy_Error, PyExc_BufferError),
                                      "A DLPack exchange that cannot be done: memory wnn cannot describe, "
                                      "give or reach, or a copy that copy=False forbids. A BufferError.");
    return wnnpy_DLPackError && wnnpy_ArgumentError && InvalidStateError && NotSupportedError && OperationError &&
                   OutOfMemoryError && UnknownError
               ? 0
               : -1;
}

/* ------------------------------------------------------------------------ */
/* NumPy, data types, shapes, buffers                                        */
/* ------------------------------------------------------------------------ */

PyObject *wnnpy_numpy(void)
{
    if (!numpy_module) {
        numpy_module = PyImport_ImportModule("numpy");
        if (!numpy_module) {
            PyErr_Clear();
            numpy_module = Py_NewRef(Py_None);
        }
    }
    return numpy_module == Py_None ? NULL : numpy_module;
}

PyObject *wnnpy_data_type_name(wnn_data_type t)
{
    const char *name = wnn_data_type_name(t);
    return PyUnicode_FromString(name ? name : "invalid");
}

wnn_data_type wnnpy_data_type(PyObject *obj)
{
    wnn_data_type t = WNN_DATA_TYPE_INVALID;
    if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        if (!s) return WNN_DATA_TYPE_INVALID;
        t = wnn_data_type_from_name(s);
        if (t != WNN_DATA_TYPE_INVALID) return t;
    }
    /* torch.float32 prints as "torch.float32" */
    PyObject *str = PyObject_Str(obj);
    if (str) {
        const char *s = PyUnicode_AsUTF8(str);
        if (s && strncmp(s, "torch.", 6) == 0) t = wnn_data_type_from_name(s + 6);
        Py_DECREF(str);
    }
    PyErr_Clear();
    /* NumPy spellings: a type (np.float16), a dtype, a string ("f4") */
    PyObject *np = t == WNN_DATA_TYPE_INVALID ? wnnpy_numpy() : NULL;
    PyObject *dtype_type = np ? PyObject_GetAttrString(np, "dtype") : NULL;
    bool numpyish = dtype_type && (PyUnicode_Check(obj) || PyType_Check(obj) ||
                                   PyObject_IsInstance(obj, dtype_type) == 1);
    Py_XDECREF(dtype_type);
    PyErr_Clear();
    if (numpyish) {
        PyObject *dt = PyObject_CallMethod(np, "dtype", "O", obj);
        PyObject *name = dt ? PyObject_GetAttrString(dt, "name") : NULL;
        const char *s = name ? PyUnicode_AsUTF8(name) : NULL;
        if (s) t = wnn_data_type_from_name(s);
        Py_XDECREF(name);
        Py_XDECREF(dt);
        PyErr_Clear();
    }
    if (t == WNN_DATA_TYPE_INVALID)
        PyErr_Format(PyExc_TypeError,
                     "%R is not a wnn data type (float32, float16, int32, uint32, int64, uint64, int8, "
                     "uint8, int4, uint4)",
                     obj);
    return t;
}

wnn_data_type wnnpy_format_data_type(const char *format, Py_ssize_t itemsize)
{
    if (!format) format = "B";
    if (*format == '@' || *format == '=' || *format == '<') format++;
    else if (*format == '>' || *format == '!') return WNN_DATA_TYPE_INVALID; /* x86-64 and arm64 are little-endian */
    if (format[0] == '\0' || format[1] != '\0') return WNN_DATA_TYPE_INVALID;
    switch (format[0]) {
    case 'e': return itemsize == 2 ? WNN_DATA_TYPE_FLOAT16 : WNN_DATA_TYPE_INVALID;
    case 'f': return itemsize == 4 ? WNN_DATA_TYPE_FLOAT32 : WNN_DATA_TYPE_INVALID;
    case 'b': return WNN_DATA_TYPE_INT8;
    case 'B':
    case '?': return WNN_DATA_TYPE_UINT8;
    case 'i':
    case 'l':
    case 'q':
        return itemsize == 4 ? WNN_DATA_TYPE_INT32 : itemsize == 8 ? WNN_DATA_TYPE_INT64 : WNN_DATA_TYPE_INVALID;
    case 'I':
    case 'L':
    case 'Q':
        return itemsize == 4 ? WNN_DATA_TYPE_UINT32 : itemsize == 8 ? WNN_DATA_TYPE_UINT64 : WNN_DATA_TYPE_INVALID;
    default: return WNN_DATA_TYPE_INVALID;
    }
}

int wnnpy_check_buffer_type(const Py_buffer *view, wnn_data_type t, const char *what)
{
    const char *f = view->format ? view->format : "B";
    if (strcmp(f, "B") == 0 || strcmp(f, "@B") == 0) return 0; /* raw bytes */
    wnn_data_type got = wnnpy_format_data_type(f, view->itemsize);
    if (got == t) return 0;
    PyErr_Format(PyExc_TypeError,
                 "%s: the buffer holds elements of format '%s' (%s), the tensor is %s; convert it first, e.g. "
                 "array.astype(numpy.%s) (wnn never narrows an array silently)",
                 what, f, got == WNN_DATA_TYPE_INVALID ? "no wnn data type" : wnn_data_type_name(got),
                 wnn_data_type_name(t), wnn_data_type_name(t));
    return -1;
}

int wnnpy_get_buffer(PyObject *obj, Py_buffer *view, void **data, void **copy)
{
    *copy = NULL;
    if (PyObject_GetBuffer(obj, view, PyBUF_FULL_RO) < 0) return -1;
    if (PyBuffer_IsContiguous(view, 'C')) {
        *data = view->buf;
        return 0;
    }
    *copy = PyMem_Malloc(view->len ? (size_t)view->len : 1);
    if (!*copy || PyBuffer_ToContiguous(*copy, view, view->len, 'C') < 0) {
        if (!*copy) PyErr_NoMemory();
        PyMem_Free(*copy);
        *copy = NULL;
        PyBuffer_Release(view);
        return -1;
    }
    *data = *copy;
    return 0;
}

int wnnpy_uint32(PyObject *obj, const char *what, uint32_t *out)
{
    if (!PyLong_Check(obj) && !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyObject *i = PyNumber_Index(obj);
    if (!i) return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < 0 || v > 0xffffffffLL) {
        wnnpy_argument_error("%s is out of the range of an unsigned 32-bit integer", what);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

int wnnpy_shape(PyObject *obj, const char *what, uint32_t shape[WNN_MAX_RANK], uint32_t *rank)
{
    if (PyLong_Check(obj)) {
        *rank = 1;
        return wnnpy_uint32(obj, what, &shape[0]);
    }
    PyObject *seq = PySequence_Fast(obj, "shape must be a sequence of ints");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int rc = 0;
    if (n > WNN_MAX_RANK) {
        Py_DECREF(seq);
        char msg[128];
        PyOS_snprintf(msg, sizeof msg, "%s has rank %zd, wnn allows at most %d", what, n, WNN_MAX_RANK);
        wnnpy_raise(WNN_STATUS_INVALID_RANK, msg);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n && rc == 0; i++)
        rc = wnnpy_uint32(PySequence_Fast_GET_ITEM(seq, i), what, &shape[i]);
    Py_DECREF(seq);
    *rank = (uint32_t)n;
    return rc;
}

PyObject *wnnpy_shape_tuple(const uint32_t *shape, uint32_t rank)
{
    PyObject *t = PyTuple_New(rank);
    for (uint32_t i = 0; t && i < rank; i++) {
        PyObject *d = PyLong_FromUnsignedLong(shape[i]);
        if (!d) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, d);
    }
    return t;
}

int wnnpy_parse_kwargs(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                       Py_ssize_t npos, const char *const *names, PyObject **values)
{
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional argument%s but %zd were given", func, npos,
                     npos == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) values[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        if (!key) return -1;
        Py_ssize_t i = 0;
        while (names[i] && strcmp(names[i], key) != 0) i++;
        if (!names[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
            return -1;
        }
        if (i < nargs) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, key);
            return -1;
        }
        values[i] = args[nargs + k];
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Module functions                                                          */
/* ------------------------------------------------------------------------ */

static const char *device_kind_name(wnn_device_kind k)
{
    switch (k) {
    case WNN_DEVICE_KIND_CPU: return "cpu";
    case WNN_DEVICE_KIND_DISCRETE: return "discrete";
    case WNN_DEVICE_KIND_EMULATED: return "emulated";
    }
    return "unknown";
}

PyObject *wnnpy_device_info_dict(const wnn_device_info *info)
{
    return Py_BuildValue("{s:s,s:s,s:s,s:O,s:K,s:K,s:(ii)}", "name", info->name, "description",
                         info->description ? info->description : "", "kind", device_kind_name(info->kind),
                         "accelerated", info->accelerated ? Py_True : Py_False, "max_tensor_byte_length",
                         (unsigned long long)info->max_tensor_byte_length, "memory_bytes",
                         (unsigned long long)info->memory_bytes, "dlpack_device", (int)info->dlpack_device_type,
                         (int)info->dlpack_device_id);
}

static PyObject *devices(PyObject *m, PyObject *unused)
{
    uint32_t n = wnn_device_count();
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list && i < n; i++) {
        wnn_device_info info;
        wnn_status s = wnn_device_get_info(i, &info);
        PyObject *d = s == WNN_OK ? wnnpy_device_info_dict(&info) : wnnpy_raise(s, NULL);
        if (!d) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, d);
    }
    return list;
}

static PyObject *operators(PyObject *m, PyObject *unused)
{
    uint32_t n = wnn_operator_count();
    PyObject *list = PyList_New(n);
    for (uint32_t i = 0; list && i < n; i++) {
        PyObject *s = PyUnicode_FromString(wnn_operator_name(i));
        if (!s) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, s);
    }
    return list;
}

WnnContextObject *wnnpy_default_context(const char *device)
{
    PyObject *c = PyDict_GetItemString(default_contexts, device);
    if (c) return (WnnContextObject *)Py_NewRef(c);
    c = PyObject_CallFunction((PyObject *)&WnnContext_Type, "s", device);
    if (c && PyDict_SetItemString(default_contexts, device, c) < 0) Py_CLEAR(c);
    return (WnnContextObject *)c;
}

static PyObject *default_context(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"device", NULL};
    PyObject *device = NULL;
    if (wnnpy_parse_kwargs("default_context", args, nargs, kwnames, 1, names, &device) < 0) return NULL;
    const char *name = "cpu";
    if (device && device != Py_None && !(name = PyUnicode_AsUTF8(device))) return NULL;
    return (PyObject *)wnnpy_default_context(name);
}

/* Releases the default contexts before the interpreter goes (registered with
** atexit), so that their worker threads are joined while Python still runs. */
static PyObject *shutdown(PyObject *m, PyObject *unused)
{
    PyDict_Clear(default_contexts);
    Py_RETURN_NONE;
}

static PyObject *status_class(PyObject *m, PyObject *arg)
{
    long s = PyLong_AsLong(arg);
    if (s == -1 && PyErr_Occurred()) return NULL;
    return Py_NewRef(class_of((wnn_status)s));
}

static PyObject *set_num_threads(PyObject *m, PyObject *arg)
{
    uint32_t n;
    if (wnnpy_uint32(arg, "set_num_threads: n", &n) < 0) return NULL;
    wnn_status s = wnn_set_num_threads(n);
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    Py_RETURN_NONE;
}

static PyObject *get_num_threads(PyObject *m, PyObject *unused) { return PyLong_FromUnsignedLong(wnn_num_threads()); }

static PyMethodDef module_methods[] = {
    {"devices", devices, METH_NOARGS,
     "devices()\n--\n\nA list of dicts: the devices usable now (\"cpu\" first): name, description, kind, "
     "accelerated, max_tensor_byte_length, memory_bytes, dlpack_device."},
    {"operators", operators, METH_NOARGS,
     "operators()\n--\n\nA list of str: the WebNN names of every builder operator the library implements."},
    {"default_context", (PyCFunction)(void (*)(void))default_context, METH_FASTCALL | METH_KEYWORDS,
     "default_context(device=\"cpu\")\n--\n\nThe module's shared context for a device (what "
     "from_dlpack imports into by default)."},
    {"from_dlpack", (PyCFunction)(void (*)(void))wnnpy_from_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "from_dlpack(x, /, *, device=None, copy=None)\n--\n\nA wnn Tensor sharing the memory of x, an "
     "object with __dlpack__ (NumPy array, torch tensor, wnn tensor) or a DLPack capsule. device: None (x's "
     "device, in its default context), a Context, or a device name. copy: None (share when possible), True "
     "(always copy), False (never copy; BufferError when a copy would be needed)."},
    {"exception_for_status", status_class, METH_O,
     "exception_for_status(status, /)\n--\n\nThe exception class wnn raises for a wnn_status value."},
    {"set_num_threads", set_num_threads, METH_O,
     "set_num_threads(n, /)\n--\n\nSets how many threads the cpu device's kernels use, the caller's "
     "included, for the whole process (like torch.set_num_threads); OpenBLAS's count follows. Work that "
     "starts afterwards uses it. 0 restores the default: WNN_NUM_THREADS when set, else the cores online."},
    {"get_num_threads", get_num_threads, METH_NOARGS,
     "get_num_threads()\n--\n\nThe number of threads the cpu device's kernels use now."},
    {"_shutdown", shutdown, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "wnn._wnn",
    "The wnn C extension: WebNN contexts, tensors and graphs, with DLPack exchange.", -1, module_methods,
};

static int add_type(PyObject *m, PyTypeObject *t, const char *name)
{
    if (PyType_Ready(t) < 0) return -1;
    return PyModule_AddObjectRef(m, name, (PyObject *)t);
}

static int add_data_types(PyObject *m)
{
    PyObject *list = PyList_New(0);
    for (int t = WNN_DATA_TYPE_FLOAT32; list && t <= WNN_DATA_TYPE_UINT4; t++) {
        PyObject *s = PyUnicode_FromString(wnn_data_type_name((wnn_data_type)t));
        if (!s || PyList_Append(list, s) < 0) Py_CLEAR(list);
        Py_XDECREF(s);
    }
    if (!list) return -1;
    PyObject *tuple = PyList_AsTuple(list);
    Py_DECREF(list);
    int rc = PyModule_AddObjectRef(m, "data_types", tuple);
    Py_XDECREF(tuple);
    return rc;
}

/* The one symbol the extension exports; Python finds it by name. */
PyMODINIT_FUNC PyInit__wnn(void);

PyMODINIT_FUNC PyInit__wnn(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    default_contexts = PyDict_New();
    if (!default_contexts || wnnpy_dlpack_init() < 0 || add_exceptions(m) < 0 ||
        add_type(m, &WnnContext_Type, "Context") < 0 || add_type(m, &WnnTensor_Type, "Tensor") < 0 ||
        wnnpy_dlpack_add_exchange_api(&WnnTensor_Type) < 0 ||
        wnnpy_builder_type_init() < 0 ||
        add_type(m, &WnnBuilder_Type, "GraphBuilder") < 0 ||
        add_type(m, &WnnOperand_Type, "Operand") < 0 || add_type(m, &WnnGraph_Type, "Graph") < 0 ||
        add_data_types(m) < 0 || wnnpy_onnx_init(m) < 0 ||
        PyModule_AddStringConstant(m, "library_version", wnn_version()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
