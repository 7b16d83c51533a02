/* SPDX-License-Identifier: Apache-2.0 */
/*
** convert.c -- Python data without a buffer (numbers, nested lists and
** tuples) turned into the packed elements of a wnn data type, for writes and
** constants. The rule: each element is converted to the destination's data
** type, with no silent loss -- an integer type takes only integers within its
** range, and a float type takes any real number. Arrays are never converted
** here: an array of a type wnn lacks (float64, ...) is refused with a message
** that names astype (wnnpy_check_buffer_type, wnnpy_buffer_desc).
*/
#include "wnnpy.h"

#include <string.h>

bool wnnpy_is_python_data(PyObject *obj)
{
    return PyList_Check(obj) || PyTuple_Check(obj) || PyLong_Check(obj) || PyFloat_Check(obj);
}

void wnnpy_shape_text(const uint32_t *shape, uint32_t rank, char *buf, size_t size)
{
    size_t len = (size_t)PyOS_snprintf(buf, size, "[");
    for (uint32_t i = 0; i < rank && len < size; i++)
        len += (size_t)PyOS_snprintf(buf + len, size - len, "%s%u", i ? ", " : "", shape[i]);
    if (len < size) PyOS_snprintf(buf + len, size - len, "]");
}

/* The shape the nesting of obj describes: each list or tuple level is one
** dimension, as long as its first element's. */
static int nested_shape(PyObject *obj, const char *what, wnn_operand_desc *desc)
{
    desc->rank = 0;
    while (PyList_Check(obj) || PyTuple_Check(obj)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
        if (desc->rank == WNN_MAX_RANK) {
            char msg[128];
            PyOS_snprintf(msg, sizeof msg, "%s: the lists nest deeper than wnn's largest rank, %d", what,
                          WNN_MAX_RANK);
            wnnpy_raise(WNN_STATUS_INVALID_RANK, msg);
            return -1;
        }
        if (n > (Py_ssize_t)WNN_MAX_DIMENSION) {
            wnnpy_raise(WNN_STATUS_INVALID_DIMENSION, "the lists are longer than 2^31-1");
            return -1;
        }
        desc->shape[desc->rank++] = (uint32_t)n;
        if (n == 0) break; /* a 0 dimension: the library refuses it with its rule */
        obj = PySequence_Fast_GET_ITEM(obj, 0);
    }
    return 0;
}

/* Stores one element of type t at dst. */
static int put(PyObject *item, wnn_data_type t, unsigned char *dst, const char *what)
{
    bool integer = PyLong_Check(item) || (!PyFloat_Check(item) && PyIndex_Check(item));
    if (!integer && !PyFloat_Check(item) && !(Py_TYPE(item)->tp_as_number && Py_TYPE(item)->tp_as_number->nb_float)) {
        PyErr_Format(PyExc_TypeError, "%s: %.100s is not a number", what, Py_TYPE(item)->tp_name);
        return -1;
    }
    if (t == WNN_DATA_TYPE_FLOAT32 || t == WNN_DATA_TYPE_FLOAT16) {
        double v = PyFloat_AsDouble(item);
        if (v == -1.0 && PyErr_Occurred()) return -1;
        if (t == WNN_DATA_TYPE_FLOAT16) return PyFloat_Pack2(v, (char *)dst, 1);
        float f = (float)v;
        memcpy(dst, &f, sizeof f);
        return 0;
    }
    if (!integer) {
        PyErr_Format(PyExc_TypeError, "%s: %R is not an integer, and the data type is %s", what, item,
                     wnn_data_type_name(t));
        return -1;
    }
    PyObject *i = PyNumber_Index(item);
    if (!i) return -1;
    int overflow = 0;
    long long s = PyLong_AsLongLongAndOverflow(i, &overflow);
    unsigned long long u = 0;
    if (overflow > 0) {
        u = PyLong_AsUnsignedLongLong(i);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 2;
        }
    }
    Py_DECREF(i);
    if (s == -1 && PyErr_Occurred()) return -1;
    long long lo;
    unsigned long long hi;
    switch (t) {
    case WNN_DATA_TYPE_INT8: lo = INT8_MIN, hi = INT8_MAX; break;
    case WNN_DATA_TYPE_UINT8: lo = 0, hi = UINT8_MAX; break;
    case WNN_DATA_TYPE_INT32: lo = INT32_MIN, hi = INT32_MAX; break;
    case WNN_DATA_TYPE_UINT32: lo = 0, hi = UINT32_MAX; break;
    case WNN_DATA_TYPE_INT64: lo = INT64_MIN, hi = INT64_MAX; break;
    default: lo = 0, hi = UINT64_MAX; break;
    }
    bool fits = overflow == 0 ? s >= lo && (s < 0 || (unsigned long long)s <= hi) : overflow == 1 && u <= hi;
    if (!fits) {
        wnnpy_argument_error_obj("%s: %R is out of the range of %s", what, item, wnn_data_type_name(t));
        return -1;
    }
    size_t size = wnn_data_type_size(t);
    if (overflow == 1) {
        memcpy(dst, &u, size);
    } else {
        /* the low bytes of a little-endian two's complement value */
        memcpy(dst, &s, size);
    }
    return 0;
}

/* Converts the elements of obj, level by level, into *dst. */
static int fill(PyObject *obj, const wnn_operand_desc *desc, uint32_t level, wnn_data_type t, unsigned char **dst,
                const char *what)
{
    bool seq = PyList_Check(obj) || PyTuple_Check(obj);
    if (level == desc->rank) {
        if (seq) {
            wnnpy_argument_error("%s: the lists are ragged: a list where a number belongs at depth %u", what,
                                 level);
            return -1;
        }
        if (put(obj, t, *dst, what) < 0) return -1;
        *dst += wnn_data_type_size(t);
        return 0;
    }
    if (!seq) {
        wnnpy_argument_error("%s: the lists are ragged: a number where a list of %u belongs at depth %u", what,
                             desc->shape[level], level);
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(obj) != (Py_ssize_t)desc->shape[level]) {
        wnnpy_argument_error("%s: the lists are ragged: a list of %zd where the first at depth %u has %u", what,
                             PySequence_Fast_GET_SIZE(obj), level, desc->shape[level]);
        return -1;
    }
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(obj); i++)
        if (fill(PySequence_Fast_GET_ITEM(obj, i), desc, level + 1, t, dst, what) < 0) return -1;
    return 0;
}

PyObject *wnnpy_convert_python_data(PyObject *obj, wnn_data_type t, const char *what, wnn_operand_desc *desc)
{
    if (t == WNN_DATA_TYPE_INT4 || t == WNN_DATA_TYPE_UINT4)
        return PyErr_Format(PyExc_TypeError, "%s: lists and numbers cannot fill %s, which packs two elements a "
                                             "byte; pass the packed bytes",
                            what, wnn_data_type_name(t));
    desc->data_type = t;
    if (nested_shape(obj, what, desc) < 0) return NULL;
    uint64_t count = 1;
    for (uint32_t i = 0; i < desc->rank; i++) count *= desc->shape[i];
    size_t size = (size_t)count * wnn_data_type_size(t);
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (!bytes) return NULL;
    unsigned char *dst = (unsigned char *)PyBytes_AS_STRING(bytes);
    if (count && fill(obj, desc, 0, t, &dst, what) < 0) Py_CLEAR(bytes);
    return bytes;
}
