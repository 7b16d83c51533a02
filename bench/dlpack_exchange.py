# SPDX-License-Identifier: Apache-2.0
"""DLPack 1.3's C exchange API (__dlpack_c_exchange_api__) reached from Python
through ctypes: the table of a type, and calls of its entries. Used by
tests/python/test_dlpack_exchange.py and by the DLPack benchmarks to time the
table's export beside the plain protocol (ctypes' own cost per call is
measured too, with current_work_stream, and printed beside)."""
import ctypes


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
# the entries take and give Python objects as void *: py_object keeps the GIL
ALLOCATOR = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor),
                              ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)), ctypes.c_void_p, SET_ERROR)
FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)))
TO_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLManagedTensorVersioned), ctypes.POINTER(ctypes.py_object))
DLTENSOR_FROM_PY = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
CURRENT_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class DLPackExchangeAPIHeader(ctypes.Structure):
    pass


DLPackExchangeAPIHeader._fields_ = [("version", DLPackVersion),
                                    ("prev_api", ctypes.POINTER(DLPackExchangeAPIHeader))]


class DLPackExchangeAPI(ctypes.Structure):
    _fields_ = [("header", DLPackExchangeAPIHeader), ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", ctypes.c_void_p), ("current_work_stream", ctypes.c_void_p)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Exchange:
    """The table of cls.__dlpack_c_exchange_api__ with callable entries."""

    def __init__(self, cls):
        capsule = cls.__dlpack_c_exchange_api__
        self.api = DLPackExchangeAPI.from_address(_get_pointer(capsule, b"dlpack_exchange_api"))
        a = self.api
        self.version = (a.header.version.major, a.header.version.minor)
        self.allocator = ALLOCATOR(a.managed_tensor_allocator) if a.managed_tensor_allocator else None
        self.from_py = FROM_PY(a.managed_tensor_from_py_object_no_sync)
        self.to_py = TO_PY(a.managed_tensor_to_py_object_no_sync)
        self.dltensor_from_py = (DLTENSOR_FROM_PY(a.dltensor_from_py_object_no_sync)
                                 if a.dltensor_from_py_object_no_sync else None)
        self.current_stream = CURRENT_STREAM(a.current_work_stream)

    def export(self, obj):
        """A managed tensor of obj (the caller calls its deleter)."""
        out = ctypes.POINTER(DLManagedTensorVersioned)()
        if self.from_py(obj, ctypes.byref(out)) != 0:
            raise RuntimeError("managed_tensor_from_py_object_no_sync failed")
        return out

    def export_and_delete(self, obj):
        m = self.export(obj)
        m.contents.deleter(m)

    def to_object(self, managed):
        out = ctypes.py_object()
        if self.to_py(managed, ctypes.byref(out)) != 0:
            raise RuntimeError("managed_tensor_to_py_object_no_sync failed")
        return out.value

    def stream(self, device_type=2, device_id=0):
        out = ctypes.c_void_p()
        if self.current_stream(device_type, device_id, ctypes.byref(out)) != 0:
            raise RuntimeError("current_work_stream failed")
        return out.value
