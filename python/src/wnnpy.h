/* SPDX-License-Identifier: Apache-2.0 */
/*
** wnnpy.h -- what the files of the wnn Python extension share: the object
** layouts, the type objects, the exception classes and the small helpers that
** turn Python values into wnn values and wnn statuses into exceptions.
*/
#ifndef WNNPY_H
#define WNNPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <wnn/wnn.h>

/* A wnn.Context: one wnn_context. */
typedef struct {
    PyObject_HEAD
    wnn_context *ctx;
    PyObject *device; /* str: the device's name */
} WnnContextObject;

/* A wnn.Tensor: one wnn_tensor handle; keeps its context object alive. */
typedef struct {
    PyObject_HEAD
    WnnContextObject *ctx;
    wnn_tensor *tensor;
} WnnTensorObject;

/* A wnn.GraphBuilder. */
typedef struct {
    PyObject_HEAD
    WnnContextObject *ctx;
    wnn_graph_builder *builder;
} WnnBuilderObject;

/* A wnn.Operand: owned by its builder, which it keeps alive. */
typedef struct {
    PyObject_HEAD
    WnnBuilderObject *builder;
    wnn_operand *operand;
} WnnOperandObject;

/* A wnn.Graph. */
typedef struct {
    PyObject_HEAD
    WnnContextObject *ctx;
    wnn_graph *graph;
} WnnGraphObject;

extern PyTypeObject WnnContext_Type;
extern PyTypeObject WnnTensor_Type;
extern PyTypeObject WnnBuilder_Type;
extern PyTypeObject WnnOperand_Type;
extern PyTypeObject WnnGraph_Type;

/* Exception classes (module.c). */
extern PyObject *wnnpy_Error;
extern PyObject *wnnpy_ArgumentError;
extern PyObject *wnnpy_DLPackError;

/* Raises the exception of status s with message msg (NULL: the thread's
** wnn_last_error_message()). Always returns NULL. */
PyObject *wnnpy_raise(wnn_status s, const char *msg);

/* The same with the exception class chosen by the caller. */
PyObject *wnnpy_raise_as(PyObject *cls, wnn_status s, const char *msg);

/* Raises wnn.ArgumentError (WNN_STATUS_INVALID_ARGUMENT) with a formatted
** message (printf's conversions, no %R). Returns NULL. */
PyObject *wnnpy_argument_error(const char *fmt, ...);

/* The same with PyUnicode_FromFormat's conversions (%R, %U, ...). */
PyObject *wnnpy_argument_error_obj(const char *fmt, ...);

/* The numpy module, imported once on first use; NULL without an exception
** when NumPy is not installed. Borrowed. */
PyObject *wnnpy_numpy(void);

/* Data types. wnnpy_data_type() accepts a WebNN name ("float32"), a NumPy
** dtype or scalar type, or a torch dtype; raises TypeError and returns
** WNN_DATA_TYPE_INVALID otherwise. */
wnn_data_type wnnpy_data_type(PyObject *obj);
PyObject *wnnpy_data_type_name(wnn_data_type t);

/* The wnn data type a PEP 3118 format string with the given item size
** describes, or WNN_DATA_TYPE_INVALID (float64, int16, big-endian, ...). */
wnn_data_type wnnpy_format_data_type(const char *format, Py_ssize_t itemsize);

/* A uint32 from a Python int; raises (TypeError, wnn.ArgumentError for a
** value out of range) and returns -1 on failure. what names the argument. */
int wnnpy_uint32(PyObject *obj, const char *what, uint32_t *out);

/* A shape: a sequence of ints (at most WNN_MAX_RANK). Returns -1 on failure. */
int wnnpy_shape(PyObject *obj, const char *what, uint32_t shape[WNN_MAX_RANK], uint32_t *rank);
PyObject *wnnpy_shape_tuple(const uint32_t *shape, uint32_t rank);

/* Gets the bytes of a buffer-protocol object in C order: view holds the
** exporter, *data points at its bytes, or at a contiguous copy in *copy (to
** be freed with PyMem_Free) when the exporter is strided. Returns -1 on
** failure. */
int wnnpy_get_buffer(PyObject *obj, Py_buffer *view, void **data, void **copy);

/* Fills desc from data's buffer and the optional shape and dtype (None or
** NULL: the buffer's own). On success *view must be released and *copy freed
** by the caller; *bytes points at view->len contiguous bytes. */
int wnnpy_buffer_desc(PyObject *data, PyObject *shape, PyObject *dtype, const char *what, wnn_operand_desc *desc,
                      Py_buffer *view, void **bytes, void **copy);

/* Checks that the elements of view can be t's: raw bytes ("B") always can,
** anything else must have t's kind and size. Raises TypeError. */
int wnnpy_check_buffer_type(const Py_buffer *view, wnn_data_type t, const char *what);

/* Python data without a buffer (convert.c): true for a list, a tuple, an int
** or a float (bool included). */
bool wnnpy_is_python_data(PyObject *obj);

/* The packed elements of obj (a number, or nested lists or tuples) as data
** type t, in a new bytes object; fills desc with t and the nesting's shape.
** Raises (TypeError for a non-number or a non-integer into an integer type,
** wnn.ArgumentError for ragged lists or a value out of range). */
PyObject *wnnpy_convert_python_data(PyObject *obj, wnn_data_type t, const char *what, wnn_operand_desc *desc);

/* "[3, 2]" into buf. */
void wnnpy_shape_text(const uint32_t *shape, uint32_t rank, char *buf, size_t size);

/* Objects. */
PyObject *wnnpy_tensor_new(WnnContextObject *ctx, wnn_tensor *tensor); /* steals tensor */
PyObject *wnnpy_operand_new(WnnBuilderObject *builder, wnn_operand *operand);
/* The operand of a wnn.Operand (TypeError otherwise). One of another builder
** passes: the library refuses it with WNN_STATUS_WRONG_CONTEXT. */
int wnnpy_operand_check(PyObject *obj, const char *what, wnn_operand **out);

/* A dict describing a device (module.c). */
PyObject *wnnpy_device_info_dict(const wnn_device_info *info);

/* The default context of a device (module.c), created on first use and kept
** until the interpreter's exit. A new reference. */
WnnContextObject *wnnpy_default_context(const char *device);

/* Raises the builder's recorded error and clears it (builder.c). */
PyObject *wnnpy_builder_raise(WnnBuilderObject *b);

/* Readies GraphBuilder's method table: its own methods and one method per
** operator of the table in ops.c (builder.c, called before PyType_Ready). */
int wnnpy_builder_type_init(void);

/* Returns a new method table (never freed): base's entries, then a method per
** operator, under its snake_case and its WebNN name (ops.c). */
PyMethodDef *wnnpy_op_methods(const PyMethodDef *base);

/* DLPack (dlpack.c). wnnpy_dlpack_add_exchange_api puts DLPack 1.3's
** __dlpack_c_exchange_api__ capsule on type (after PyType_Ready). */
int wnnpy_dlpack_add_exchange_api(PyTypeObject *type);
PyObject *wnnpy_tensor_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *wnnpy_tensor_dlpack_device(PyObject *self, PyObject *unused);
PyObject *wnnpy_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
int wnnpy_dlpack_init(void);

/* Adds wnn.onnx's functions and types to the module (onnx.c). */
int wnnpy_onnx_init(PyObject *m);

/* Argument parsing for METH_FASTCALL | METH_KEYWORDS: fills values[i]
** (borrowed, or left untouched) for each of the NULL-terminated names, the
** first npos of which may also come by position. Returns -1 on error. */
int wnnpy_parse_kwargs(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                       Py_ssize_t npos, const char *const *names, PyObject **values);

#endif
