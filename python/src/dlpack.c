/* SPDX-License-Identifier: Apache-2.0 */
/*
** dlpack.c -- the Python DLPack protocol over wnn's C DLPack API:
** Tensor.__dlpack__, Tensor.__dlpack_device__ and wnn.from_dlpack.
**
** Capsules follow the Python specification of DLPack: "dltensor_versioned"
** holds a DLManagedTensorVersioned, "dltensor" the legacy DLManagedTensor;
** a consumer renames the capsule "used_..." when it takes the tensor, and
** the capsule's destructor gives back only what nobody took. A capsule keeps
** its Tensor referenced while it lives; the memory itself is kept by the C
** export until the consumer calls the deleter.
**
** Imported tensors are handed to wnn, which calls their deleter when the
** wnn tensor's storage goes, possibly on a wnn worker thread without the
** GIL. Foreign deleters may touch Python objects (NumPy's and PyTorch's do),
** so wnn gets a wrapper that takes the GIL around them and does nothing once
** the interpreter is gone. For that reason every call below that may wait
** for a context's timeline releases the GIL first.
*/
#include "wnnpy.h"

#include <stdlib.h>
#include <string.h>

#include <wnn/dlpack.h>

#if PY_VERSION_HEX >= 0x030D0000
#define PYTHON_FINALIZING() Py_IsFinalizing()
#else
#define PYTHON_FINALIZING() _Py_IsFinalizing()
#endif

static const char NAME_VERSIONED[] = "dltensor_versioned";
static const char USED_VERSIONED[] = "used_dltensor_versioned";
static const char NAME_LEGACY[] = "dltensor";
static const char USED_LEGACY[] = "used_dltensor";

/* wnn's own deleters, learnt from its exports: a managed tensor that has one
** came from wnn, needs no GIL, and must reach wnn unwrapped (wnn recognises
** its own exports, e.g. to share the null device's memory). */
static void (*wnn_deleter_versioned)(DLManagedTensorVersioned *);
static void (*wnn_deleter_legacy)(DLManagedTensor *);

/* Producer types whose __dlpack__ refused max_version (NumPy 1.x, PyTorch
** 1.x): called without keywords from then on, sparing a TypeError per call. */
static PyObject *legacy_producers;

static PyObject *max_version_arg; /* (WNN_DLPACK_VERSION_MAJOR, WNN_DLPACK_VERSION_MINOR) */
static PyObject *host_device_arg; /* (kDLCPU, 0) */

/* DLPack failures are BufferError where the Array API says so (memory that
** cannot be described, given or reached; a copy forbidden), ValueError for a
** bad argument value (TypeError would make consumers retry without keywords),
** and the usual mapping otherwise. */
static PyObject *dlpack_raise(wnn_status s)
{
    switch (s) {
    case WNN_STATUS_UNSUPPORTED_DEVICE:
    case WNN_STATUS_COPY_FORBIDDEN:
    case WNN_STATUS_UNSUPPORTED_VERSION:
    case WNN_STATUS_UNSUPPORTED_DATA_TYPE:
    case WNN_STATUS_INVALID_RANK:
    case WNN_STATUS_INVALID_DIMENSION:
    case WNN_STATUS_TOO_MANY_ELEMENTS:
    case WNN_STATUS_TENSOR_TOO_LARGE: return wnnpy_raise_as(wnnpy_DLPackError, s, NULL);
    case WNN_STATUS_INVALID_ARGUMENT:
        PyErr_SetString(PyExc_ValueError, wnn_last_error_message());
        return NULL;
    default: return wnnpy_raise(s, NULL);
    }
}

/* ------------------------------------------------------------------------ */
/* Export                                                                    */
/* ------------------------------------------------------------------------ */

/* The capsule destructors: give back an unconsumed tensor, keep any
** exception in flight, and drop the capsule's reference to its Tensor. */
static void free_capsule(PyObject *capsule, const char *name, const char *used, bool legacy)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (!PyCapsule_IsValid(capsule, used)) {
        void *m = PyCapsule_GetPointer(capsule, name);
        if (!m) PyErr_WriteUnraisable(capsule);
        else if (legacy && ((DLManagedTensor *)m)->deleter) ((DLManagedTensor *)m)->deleter(m);
        else if (!legacy && ((DLManagedTensorVersioned *)m)->deleter) ((DLManagedTensorVersioned *)m)->deleter(m);
    }
    Py_XDECREF(PyCapsule_GetContext(capsule));
    PyErr_Restore(type, value, tb);
}

static void free_versioned_capsule(PyObject *c) { free_capsule(c, NAME_VERSIONED, USED_VERSIONED, false); }
static void free_legacy_capsule(PyObject *c) { free_capsule(c, NAME_LEGACY, USED_LEGACY, true); }

static void call_deleter(void *managed, bool legacy)
{
    if (legacy) {
        DLManagedTensor *m = managed;
        if (m->deleter) m->deleter(m);
    } else {
        DLManagedTensorVersioned *m = managed;
        if (m->deleter) m->deleter(m);
    }
}

/* Exports t with GIL released (the export may wait for the timeline). */
static wnn_status export(wnn_tensor *t, const wnn_dlpack_export_options *o, void **managed)
{
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_tensor_export_dlpack(t, o, managed);
    Py_END_ALLOW_THREADS
    if (s == WNN_OK) {
        if (o->legacy) wnn_deleter_legacy = ((DLManagedTensor *)*managed)->deleter;
        else wnn_deleter_versioned = ((DLManagedTensorVersioned *)*managed)->deleter;
    }
    return s;
}

/* A (type, id) pair of ints. */
static int device_pair(PyObject *obj, const char *what, int32_t *type, int32_t *id)
{
    long v[2];
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple (device_type, device_id), not %.100s", what,
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        PyObject *idx = PyNumber_Index(PyTuple_GET_ITEM(obj, i));
        v[i] = idx ? PyLong_AsLong(idx) : -1;
        Py_XDECREF(idx);
        if (v[i] == -1 && PyErr_Occurred()) return -1;
        if (v[i] < INT32_MIN || v[i] > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: %ld is out of range", what, v[i]);
            return -1;
        }
    }
    *type = (int32_t)v[0];
    *id = (int32_t)v[1];
    return 0;
}

/* copy=None/True/False as a wnn_dlpack_copy. */
static int copy_mode(PyObject *obj, wnn_dlpack_copy *out)
{
    *out = WNN_DLPACK_COPY_IF_NEEDED;
    if (!obj || obj == Py_None) return 0;
    int b = PyObject_IsTrue(obj);
    if (b < 0) return -1;
    *out = b ? WNN_DLPACK_COPY_ALWAYS : WNN_DLPACK_COPY_NEVER;
    return 0;
}

/* __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) */
PyObject *wnnpy_tensor_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *v[4] = {NULL, NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("__dlpack__", args, nargs, kwnames, 0, names, v) < 0) return NULL;
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    o.legacy = true;
    if (v[0] && v[0] != Py_None) {
        if (!PyLong_Check(v[0]) || PyBool_Check(v[0]))
            return PyErr_Format(PyExc_TypeError, "__dlpack__: stream must be an int or None, not %.100s",
                                Py_TYPE(v[0])->tp_name);
        int overflow;
        long long stream = PyLong_AsLongLongAndOverflow(v[0], &overflow);
        if (stream == -1 && PyErr_Occurred()) return NULL;
        if (overflow) return PyErr_Format(PyExc_ValueError, "__dlpack__: stream %R is out of range", v[0]);
        o.has_stream = true;
        o.stream = stream;
    }
    if (v[1] && v[1] != Py_None) {
        int32_t major, minor;
        if (device_pair(v[1], "__dlpack__: max_version", &major, &minor) < 0) return NULL;
        o.legacy = major < 1;
    }
    if (v[2] && v[2] != Py_None && device_pair(v[2], "__dlpack__: dl_device", &o.device_type, &o.device_id) < 0)
        return NULL;
    if (copy_mode(v[3], &o.copy) < 0) return NULL;

    void *managed;
    wnn_status s = export(((WnnTensorObject *)self)->tensor, &o, &managed);
    if (s != WNN_OK) return dlpack_raise(s);
    PyObject *capsule = o.legacy ? PyCapsule_New(managed, NAME_LEGACY, free_legacy_capsule)
                                 : PyCapsule_New(managed, NAME_VERSIONED, free_versioned_capsule);
    if (!capsule || PyCapsule_SetContext(capsule, self) < 0) {
        if (capsule) PyCapsule_SetDestructor(capsule, NULL);
        Py_XDECREF(capsule);
        call_deleter(managed, o.legacy);
        return NULL;
    }
    Py_INCREF(self); /* the capsule's context */
    return capsule;
}

PyObject *wnnpy_tensor_dlpack_device(PyObject *self, PyObject *unused)
{
    wnn_device_info info;
    wnn_status s = wnn_context_get_device_info(((WnnTensorObject *)self)->ctx->ctx, &info);
    if (s != WNN_OK) return wnnpy_raise(s, NULL);
    return Py_BuildValue("(ii)", (int)info.dlpack_device_type, (int)info.dlpack_device_id);
}

/* ------------------------------------------------------------------------ */
/* Import                                                                    */
/* ------------------------------------------------------------------------ */

/* A foreign managed tensor seen by wnn through a copy of its struct whose
** deleter takes the GIL around the producer's. */
typedef struct {
    DLManagedTensorVersioned outer;
    DLManagedTensorVersioned *inner;
} wrapped_versioned;

typedef struct {
    DLManagedTensor outer;
    DLManagedTensor *inner;
} wrapped_legacy;

/* Runs a foreign deleter with the GIL; after the interpreter's end (or
** during it, on a thread that does not hold the GIL, which could not get it)
** leaks rather than crash. */
static void call_foreign(void *inner, bool legacy)
{
    if (!Py_IsInitialized()) return;
    if (PyGILState_Check()) {
        call_deleter(inner, legacy);
        return;
    }
    if (PYTHON_FINALIZING()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    call_deleter(inner, legacy);
    PyGILState_Release(g);
}

static void delete_wrapped_versioned(DLManagedTensorVersioned *outer)
{
    wrapped_versioned *w = outer->manager_ctx;
    DLManagedTensorVersioned *inner = w->inner;
    free(w);
    call_foreign(inner, false);
}

static void delete_wrapped_legacy(DLManagedTensor *outer)
{
    wrapped_legacy *w = outer->manager_ctx;
    DLManagedTensor *inner = w->inner;
    free(w);
    call_foreign(inner, true);
}

/* Returns what to hand wnn for managed: itself when wnn made it or it has
** no deleter, else a wrapper; NULL when out of memory. */
static void *wrap_foreign(void *managed, bool legacy)
{
    if (legacy) {
        DLManagedTensor *m = managed;
        if (!m->deleter || m->deleter == wnn_deleter_legacy) return m;
        wrapped_legacy *w = malloc(sizeof *w);
        if (!w) return NULL;
        w->outer = (DLManagedTensor){m->dl_tensor, w, delete_wrapped_legacy};
        w->inner = m;
        return &w->outer;
    }
    DLManagedTensorVersioned *m = managed;
    if (!m->deleter || m->deleter == wnn_deleter_versioned) return m;
    wrapped_versioned *w = malloc(sizeof *w);
    if (!w) return NULL;
    /* past flags, only major version 1's layout is known (wnn refuses others) */
    DLTensor dl = m->version.major == 1 ? m->dl_tensor : (DLTensor){0};
    w->outer = (DLManagedTensorVersioned){m->version, w, delete_wrapped_versioned, m->flags, dl};
    w->inner = m;
    return &w->outer;
}

/* The context that holds memory of a DLPack device: the default context of
** "cpu" for host memory, else of the wnn device of that DLPack device. A
** new reference. */
static WnnContextObject *context_for_device(int32_t type, int32_t id)
{
    if (type == kDLCPU || type == kDLCUDAHost || type == kDLROCMHost) return wnnpy_default_context("cpu");
    for (uint32_t i = 0, n = wnn_device_count(); i < n; i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) == WNN_OK && info.dlpack_device_type == type && info.dlpack_device_id == id)
            return wnnpy_default_context(info.name);
    }
    PyErr_Format(wnnpy_DLPackError, "from_dlpack: no wnn device holds memory of DLPack device (%d, %d)", (int)type,
                 (int)id);
    return NULL;
}

/* from_dlpack's device=: None (NULL out), a Context, a device name or a
** DLPack (type, id) pair. *out is a new reference. */
static int resolve_device(PyObject *device, WnnContextObject **out)
{
    *out = NULL;
    if (!device || device == Py_None) return 0;
    if (PyObject_TypeCheck(device, &WnnContext_Type)) {
        *out = (WnnContextObject *)Py_NewRef(device);
        return 0;
    }
    if (PyUnicode_Check(device)) {
        const char *name = PyUnicode_AsUTF8(device);
        return name && (*out = wnnpy_default_context(name)) ? 0 : -1;
    }
    if (PyTuple_Check(device)) {
        int32_t type, id;
        if (device_pair(device, "from_dlpack: device", &type, &id) < 0) return -1;
        return (*out = context_for_device(type, id)) ? 0 : -1;
    }
    PyErr_Format(PyExc_TypeError, "from_dlpack: device must be a wnn.Context, a device name or None, not %.100s",
                 Py_TYPE(device)->tp_name);
    return -1;
}

static bool is_host_context(WnnContextObject *ctx)
{
    wnn_device_info info;
    return wnn_context_get_device_info(ctx->ctx, &info) == WNN_OK && info.dlpack_device_type == kDLCPU;
}

/* Imports managed (ownership passes to wnn whatever happens) into ctx. */
static PyObject *import(WnnContextObject *ctx, void *managed, bool legacy, wnn_dlpack_copy copy)
{
    void *given = wrap_foreign(managed, legacy);
    if (!given) {
        call_foreign(managed, legacy);
        return PyErr_NoMemory();
    }
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    o.legacy = legacy;
    o.copy = copy;
    o.bool_as_uint8 = true;
    wnn_tensor *t;
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_import_dlpack(ctx->ctx, given, &o, &t);
    Py_END_ALLOW_THREADS
    return s == WNN_OK ? wnnpy_tensor_new(ctx, t) : dlpack_raise(s);
}

/* Takes the managed tensor out of a capsule and imports it into ctx, or with
** ctx NULL into the default context of the memory's device. */
static PyObject *import_capsule(PyObject *capsule, WnnContextObject *ctx, wnn_dlpack_copy copy)
{
    bool legacy;
    if (PyCapsule_IsValid(capsule, NAME_VERSIONED)) legacy = false;
    else if (PyCapsule_IsValid(capsule, NAME_LEGACY)) legacy = true;
    else if (PyCapsule_IsValid(capsule, USED_VERSIONED) || PyCapsule_IsValid(capsule, USED_LEGACY))
        return PyErr_Format(PyExc_ValueError, "from_dlpack: the DLPack capsule was consumed already");
    else
        return PyErr_Format(PyExc_TypeError, "from_dlpack: expected a \"%s\" or \"%s\" capsule, got %R",
                            NAME_VERSIONED, NAME_LEGACY, capsule);
    void *managed = PyCapsule_GetPointer(capsule, legacy ? NAME_LEGACY : NAME_VERSIONED);
    if (ctx) {
        Py_INCREF(ctx);
    } else {
        /* only version 1 has a known layout past flags; wnn refuses others */
        const DLTensor *dl = legacy ? &((DLManagedTensor *)managed)->dl_tensor
                             : ((DLManagedTensorVersioned *)managed)->version.major == 1
                                 ? &((DLManagedTensorVersioned *)managed)->dl_tensor
                                 : NULL;
        ctx = dl ? context_for_device((int32_t)dl->device.device_type, dl->device.device_id)
                 : wnnpy_default_context("cpu");
        if (!ctx) return NULL;
    }
    PyObject *r = PyCapsule_SetName(capsule, legacy ? USED_LEGACY : USED_VERSIONED) < 0
                      ? NULL
                      : import(ctx, managed, legacy, copy);
    Py_DECREF(ctx);
    return r;
}

/* The stream x.__dlpack__ should order its work before, as the Array API
** has a consumer pick it from x.__dlpack_device__(): for CUDA memory 1, the
** legacy default stream (wnn's import makes its own stream wait for that
** one); None for everything else. A new reference, or NULL with an
** exception. */
static PyObject *consumer_stream(PyObject *x)
{
    PyObject *dev = PyObject_HasAttrString(x, "__dlpack_device__")
                        ? PyObject_CallMethod(x, "__dlpack_device__", NULL)
                        : NULL;
    if (!dev) {
        PyErr_Clear(); /* no device: let __dlpack__ decide */
        Py_RETURN_NONE;
    }
    int32_t type = 0, id = 0;
    int r = device_pair(dev, "__dlpack_device__()", &type, &id);
    Py_DECREF(dev);
    if (r < 0) return NULL;
    if (type == kDLCUDA) return PyLong_FromLong(1);
    Py_RETURN_NONE;
}

/* Calls x.__dlpack__ as a consumer: with max_version, the consumer's stream
** (device memory), and dl_device=(1, 0) when host memory is wanted,
** copy=False when no copy is allowed; on TypeError again without keywords,
** for producers older than DLPack 1.0. */
static PyObject *call_producer(PyObject *x, bool want_host, wnn_dlpack_copy copy)
{
    PyObject *method = PyObject_GetAttrString(x, "__dlpack__");
    if (!method) return NULL;
    PyObject *type = (PyObject *)Py_TYPE(x), *capsule = NULL;
    int known_legacy = PySet_Contains(legacy_producers, type);
    if (known_legacy < 0) goto done;
    if (!known_legacy) {
        PyObject *stream = want_host ? Py_NewRef(Py_None) : consumer_stream(x);
        if (!stream) goto done;
        PyObject *kw = PyDict_New();
        int bad = !kw || (stream != Py_None && PyDict_SetItemString(kw, "stream", stream) < 0);
        Py_DECREF(stream);
        if (bad || PyDict_SetItemString(kw, "max_version", max_version_arg) < 0 ||
            (want_host && PyDict_SetItemString(kw, "dl_device", host_device_arg) < 0) ||
            (copy == WNN_DLPACK_COPY_NEVER && PyDict_SetItemString(kw, "copy", Py_False) < 0)) {
            Py_XDECREF(kw);
            goto done;
        }
        capsule = PyObject_VectorcallDict(method, NULL, 0, kw);
        Py_DECREF(kw);
        if (capsule || !PyErr_ExceptionMatches(PyExc_TypeError)) goto done;
        PyErr_Clear();
    }
    capsule = PyObject_CallNoArgs(method);
    if (capsule && !known_legacy && PySet_Add(legacy_producers, type) < 0) Py_CLEAR(capsule);
done:
    Py_DECREF(method);
    return capsule;
}

/* The DLPack 1.3 C exchange table of x's type (the
** __dlpack_c_exchange_api__ attribute, a "dlpack_exchange_api" capsule),
** when it has a usable one of major version 1; NULL otherwise, with no
** exception. */
static const DLPackExchangeAPI *exchange_table_of(PyObject *x)
{
    PyObject *cap = PyObject_GetAttrString((PyObject *)Py_TYPE(x), "__dlpack_c_exchange_api__");
    if (!cap) {
        PyErr_Clear();
        return NULL;
    }
    const DLPackExchangeAPI *api =
        PyCapsule_IsValid(cap, "dlpack_exchange_api") ? PyCapsule_GetPointer(cap, "dlpack_exchange_api") : NULL;
    Py_DECREF(cap);
    if (!api || api->header.version.major != 1 || !api->managed_tensor_from_py_object_no_sync ||
        !api->current_work_stream)
        return NULL;
    return api;
}

/* x through its type's C exchange table, without Python calls: the
** producer's tensor unsynchronized, then wnn's queue ordered after the
** producer's current work stream. Returns the new wnn tensor; NULL with an
** exception on failure; NULL with none (*declined) when the memory is not
** of the target context's device, after giving it back, for the caller to
** take the Python protocol instead. */
static PyObject *from_exchange(const DLPackExchangeAPI *api, PyObject *x, WnnContextObject *ctx,
                               wnn_dlpack_copy copy, bool *declined)
{
    *declined = false;
    DLManagedTensorVersioned *managed = NULL;
    if (api->managed_tensor_from_py_object_no_sync(x, &managed) != 0 || !managed) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "the producer's DLPack exchange API failed");
        return NULL;
    }
    DLDevice dev = managed->dl_tensor.device;
    WnnContextObject *target = ctx ? (WnnContextObject *)Py_NewRef(ctx)
                                   : context_for_device((int32_t)dev.device_type, dev.device_id);
    wnn_device_info info;
    bool same = target && wnn_context_get_device_info(target->ctx, &info) == WNN_OK &&
                (int32_t)info.dlpack_device_type == (int32_t)dev.device_type &&
                info.dlpack_device_id == dev.device_id;
    if (!same) { /* another device, or host memory wanted: the Python protocol knows how */
        PyErr_Clear();
        Py_XDECREF(target);
        if (managed->deleter) managed->deleter(managed);
        *declined = true;
        return NULL;
    }
    void *stream = NULL;
    if (dev.device_type == kDLCUDA && api->current_work_stream(dev.device_type, dev.device_id, &stream) != 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_BufferError, "the producer's current_work_stream failed");
        Py_DECREF(target);
        if (managed->deleter) managed->deleter(managed);
        return NULL;
    }
    void *given = wrap_foreign(managed, false);
    if (!given) {
        call_foreign(managed, false);
        Py_DECREF(target);
        return PyErr_NoMemory();
    }
    wnn_dlpack_import_options o = WNN_DLPACK_IMPORT_OPTIONS_INIT;
    o.copy = copy;
    o.bool_as_uint8 = true;
    if (dev.device_type == kDLCUDA) {
        o.has_stream = true;
        o.stream = stream ? (int64_t)(intptr_t)stream : 1; /* NULL: the legacy default stream */
    }
    wnn_tensor *t;
    wnn_status s;
    Py_BEGIN_ALLOW_THREADS s = wnn_context_import_dlpack(target->ctx, given, &o, &t);
    Py_END_ALLOW_THREADS
    PyObject *r = s == WNN_OK ? wnnpy_tensor_new(target, t) : dlpack_raise(s);
    Py_DECREF(target);
    return r;
}

/* wnn to wnn: the C calls directly, no capsule. */
static PyObject *from_wnn(WnnTensorObject *x, WnnContextObject *ctx, wnn_dlpack_copy copy)
{
    wnn_dlpack_export_options eo = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    if (ctx != x->ctx && is_host_context(ctx) && !is_host_context(x->ctx)) {
        eo.device_type = kDLCPU;
        eo.device_id = 0;
    }
    eo.copy = copy == WNN_DLPACK_COPY_NEVER ? WNN_DLPACK_COPY_NEVER : WNN_DLPACK_COPY_IF_NEEDED;
    void *managed;
    wnn_status s = export(x->tensor, &eo, &managed);
    if (s != WNN_OK) return dlpack_raise(s);
    if (((DLManagedTensorVersioned *)managed)->flags & DLPACK_FLAG_BITMASK_IS_COPIED)
        copy = WNN_DLPACK_COPY_IF_NEEDED; /* the export's copy is private already */
    return import(ctx, managed, false, copy);
}

/* from_dlpack(x, /, *, device=None, copy=None) */
PyObject *wnnpy_from_dlpack(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"x", "device", "copy", NULL};
    PyObject *v[3] = {NULL, NULL, NULL};
    if (wnnpy_parse_kwargs("from_dlpack", args, nargs, kwnames, 1, names, v) < 0) return NULL;
    if (!v[0]) return PyErr_Format(PyExc_TypeError, "from_dlpack() missing required argument 'x'");
    PyObject *x = v[0];
    wnn_dlpack_copy copy;
    WnnContextObject *ctx;
    if (copy_mode(v[2], &copy) < 0 || resolve_device(v[1], &ctx) < 0) return NULL;

    PyObject *r = NULL;
    if (PyObject_TypeCheck(x, &WnnTensor_Type)) {
        r = from_wnn((WnnTensorObject *)x, ctx ? ctx : ((WnnTensorObject *)x)->ctx, copy);
    } else {
        const DLPackExchangeAPI *api = PyCapsule_CheckExact(x) ? NULL : exchange_table_of(x);
        bool declined = true;
        if (api) r = from_exchange(api, x, ctx, copy, &declined);
        if (declined) {
            PyObject *capsule = PyCapsule_CheckExact(x) ? Py_NewRef(x)
                                                        : call_producer(x, ctx && is_host_context(ctx), copy);
            r = capsule ? import_capsule(capsule, ctx, copy) : NULL;
            Py_XDECREF(capsule);
        }
    }
    Py_XDECREF(ctx);
    return r;
}

/* ------------------------------------------------------------------------ */
/* DLPack 1.3's C exchange API (Tensor.__dlpack_c_exchange_api__)            */
/* ------------------------------------------------------------------------ */

/* "No sync" means the consumer orders itself after the producer's current
** work stream. wnn's work runs on a stream of its own, which it does not
** lend, so exports here order it before the one it names instead: CUDA
** memory before the legacy default stream (an event, no host wait), other
** memory by completing the recorded work (host consumers have no stream). */
static int exchange_export(WnnTensorObject *t, DLManagedTensorVersioned **out)
{
    wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
    wnn_device_info info;
    if (wnn_context_get_device_info(t->ctx->ctx, &info) == WNN_OK && info.dlpack_device_type == kDLCUDA) {
        o.has_stream = true;
        o.stream = 1;
    }
    void *managed;
    wnn_status s = export(t->tensor, &o, &managed);
    if (s != WNN_OK) {
        dlpack_raise(s);
        return -1;
    }
    *out = managed;
    return 0;
}

static int exchange_from_py_object(void *py_object, DLManagedTensorVersioned **out)
{
    PyObject *obj = py_object;
    if (!PyObject_TypeCheck(obj, &WnnTensor_Type)) {
        PyErr_Format(PyExc_TypeError, "__dlpack_c_exchange_api__: expected a wnn.Tensor, not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    return exchange_export((WnnTensorObject *)obj, out);
}

static int exchange_to_py_object(DLManagedTensorVersioned *tensor, void **out_py_object)
{
    if (!tensor) {
        PyErr_SetString(PyExc_ValueError, "__dlpack_c_exchange_api__: tensor is NULL");
        return -1;
    }
    WnnContextObject *ctx = tensor->version.major == 1
                                ? context_for_device((int32_t)tensor->dl_tensor.device.device_type,
                                                     tensor->dl_tensor.device.device_id)
                                : wnnpy_default_context("cpu");
    if (!ctx) {
        if (tensor->deleter) call_foreign(tensor, false);
        return -1;
    }
    PyObject *r = import(ctx, tensor, false, WNN_DLPACK_COPY_IF_NEEDED);
    Py_DECREF(ctx);
    if (!r) return -1;
    *out_py_object = r;
    return 0;
}

/* The WebNN type of a DLPack one (the export's mapping, backwards). */
static wnn_data_type data_type_of(DLDataType t)
{
    static const struct {
        uint8_t code, bits;
        wnn_data_type type;
    } map[] = {{kDLFloat, 32, WNN_DATA_TYPE_FLOAT32}, {kDLFloat, 16, WNN_DATA_TYPE_FLOAT16},
               {kDLInt, 32, WNN_DATA_TYPE_INT32},     {kDLUInt, 32, WNN_DATA_TYPE_UINT32},
               {kDLInt, 64, WNN_DATA_TYPE_INT64},     {kDLUInt, 64, WNN_DATA_TYPE_UINT64},
               {kDLInt, 8, WNN_DATA_TYPE_INT8},       {kDLUInt, 8, WNN_DATA_TYPE_UINT8}};
    for (size_t i = 0; t.lanes == 1 && i < sizeof map / sizeof *map; i++)
        if (map[i].code == t.code && map[i].bits == t.bits) return map[i].type;
    return WNN_DATA_TYPE_INVALID;
}

/* A new tensor shaped like the prototype, in the default context of its
** device. May be called without the GIL. */
static int exchange_allocate(DLTensor *prototype, DLManagedTensorVersioned **out, void *error_ctx,
                             void (*set_error)(void *, const char *, const char *))
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = -1;
    wnn_tensor_desc d = WNN_TENSOR_DESC_INIT;
    d.readable = d.writable = true;
    d.data_type = prototype ? data_type_of(prototype->dtype) : WNN_DATA_TYPE_INVALID;
    const char *why = !prototype ? "prototype is NULL"
                      : d.data_type == WNN_DATA_TYPE_INVALID ? "data type has no WebNN equivalent"
                      : prototype->ndim < 0 || prototype->ndim > WNN_MAX_RANK ? "rank out of range"
                      : prototype->ndim > 0 && !prototype->shape ? "shape is NULL"
                                                                 : NULL;
    for (int32_t i = 0; !why && i < prototype->ndim; i++) {
        if (prototype->shape[i] < 1 || prototype->shape[i] > INT32_MAX) why = "dimension out of range";
        else d.shape[i] = (uint32_t)prototype->shape[i];
    }
    if (why) {
        set_error(error_ctx, "BufferError", why);
        goto done;
    }
    d.rank = (uint32_t)prototype->ndim;
    WnnContextObject *ctx = context_for_device((int32_t)prototype->device.device_type, prototype->device.device_id);
    if (!ctx) {
        PyErr_Clear();
        set_error(error_ctx, "BufferError", "no wnn device holds memory of that DLPack device");
        goto done;
    }
    wnn_tensor *t;
    wnn_status s = wnn_context_create_tensor(ctx->ctx, &d, &t);
    void *managed = NULL;
    if (s == WNN_OK) {
        wnn_dlpack_export_options o = WNN_DLPACK_EXPORT_OPTIONS_INIT;
        s = export(t, &o, &managed);
        wnn_tensor_release(t); /* the export keeps the memory */
    }
    Py_DECREF(ctx);
    if (s != WNN_OK) {
        set_error(error_ctx, s == WNN_STATUS_OUT_OF_MEMORY ? "MemoryError" : "RuntimeError", wnn_last_error_message());
        goto done;
    }
    *out = managed;
    rc = 0;
done:
    PyGILState_Release(g);
    return rc;
}

/* The stream the consumer should use: the legacy default stream (NULL) for
** CUDA, after which exchange_export orders wnn's work; NULL elsewhere. */
static int exchange_current_stream(DLDeviceType device_type, int32_t device_id, void **out_current_stream)
{
    (void)device_type;
    (void)device_id;
    *out_current_stream = NULL;
    return 0;
}

static DLPackExchangeAPI exchange_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, NULL},
    exchange_allocate,
    exchange_from_py_object,
    exchange_to_py_object,
    NULL, /* no non-owning fill: a Tensor keeps no int64 shape to point at */
    exchange_current_stream,
};

int wnnpy_dlpack_add_exchange_api(PyTypeObject *type)
{
    PyObject *capsule = PyCapsule_New(&exchange_api, "dlpack_exchange_api", NULL);
    if (!capsule) return -1;
    int rc = PyDict_SetItemString(type->tp_dict, "__dlpack_c_exchange_api__", capsule);
    Py_DECREF(capsule);
    PyType_Modified(type);
    return rc;
}

int wnnpy_dlpack_init(void)
{
    legacy_producers = PySet_New(NULL);
    max_version_arg = Py_BuildValue("(ii)", WNN_DLPACK_VERSION_MAJOR, WNN_DLPACK_VERSION_MINOR);
    host_device_arg = Py_BuildValue("(ii)", kDLCPU, 0);
    return legacy_producers && max_version_arg && host_device_arg ? 0 : -1;
}
