# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the wnn Python tests.

The tests use the extension built in place (python/wnn/_wnn*.so, what
`make test-python` builds) when it is there, else an installed wnn.
"""
import ctypes
import glob
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(ROOT, "python")
if glob.glob(os.path.join(PYTHON_DIR, "wnn", "_wnn*.so")):
    sys.path.insert(0, PYTHON_DIR)

import wnn  # noqa: E402

try:
    import numpy as np
except ImportError:  # pragma: no cover - Debian's python3-numpy is a test dependency
    np = None

try:
    import torch
except ImportError as e:  # pragma: no cover
    torch = None
    TORCH_MISSING = f"PyTorch is not installed ({e}); apt-get install python3-torch"
else:
    TORCH_MISSING = ""

needs_torch = pytest.mark.skipif(torch is None, reason=TORCH_MISSING or "torch")

#: WebNN data types NumPy can hold, with their NumPy names (the same).
NUMPY_TYPES = ["float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8"]
#: Those PyTorch 1.13 can take through DLPack (no uint32/uint64 before 2.3).
TORCH_TYPES = ["float32", "float16", "int32", "int64", "int8", "uint8"]


def has_device(name):
    return any(d["name"] == name for d in wnn.devices())


needs_null = pytest.mark.skipif(not has_device("null"), reason="the null device is not compiled in")


@pytest.fixture
def ctx():
    c = wnn.Context("cpu")
    yield c
    c.destroy()


@pytest.fixture
def null_ctx():
    if not has_device("null"):
        pytest.skip("the null device is not compiled in")
    c = wnn.Context("null")
    yield c
    c.destroy()


def sample(dtype, shape, seed=0):
    """Deterministic values of a dtype, inside every type's range."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        return rng.uniform(-4, 4, size=shape).astype(dtype)
    lo = 0 if dtype.startswith("uint") else -100
    return rng.integers(lo, 100, size=shape).astype(dtype)


# ---- reading DLPack capsules with ctypes -------------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER_V = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


READ_ONLY = 1
IS_COPIED = 2

_api = ctypes.pythonapi
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capsule_name(capsule):
    return _api.PyCapsule_GetName(capsule).decode()


def capsule_info(capsule):
    """What a capsule's managed tensor says, as a dict (without consuming it)."""
    name = capsule_name(capsule)
    ptr = _api.PyCapsule_GetPointer(capsule, name.encode())
    if name.endswith("versioned"):
        m = DLManagedTensorVersioned.from_address(ptr)
        info = {"version": (m.major, m.minor), "flags": m.flags}
    else:
        m = DLManagedTensor.from_address(ptr)
        info = {"version": None, "flags": 0}
    t = m.dl_tensor
    info.update(
        name=name,
        data=t.data,
        device=(t.device.device_type, t.device.device_id),
        ndim=t.ndim,
        dtype=(t.dtype.code, t.dtype.bits, t.dtype.lanes),
        shape=tuple(t.shape[i] for i in range(t.ndim)),
        strides=tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None,
        byte_offset=t.byte_offset,
        deleter=m.deleter,
    )
    return info


# A capsule keeps the pointer to its name: these bytes must live on.
_USED_NAMES = {"dltensor": b"used_dltensor", "dltensor_versioned": b"used_dltensor_versioned"}


def consume_capsule(capsule):
    """Takes the managed tensor as a consumer would: rename, then call the
    deleter. Returns what the tensor said before."""
    info = capsule_info(capsule)
    name = info["name"]
    ptr = _api.PyCapsule_GetPointer(capsule, name.encode())
    _api.PyCapsule_SetName(capsule, _USED_NAMES[name])
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(info["deleter"])(ptr)
    return info


def data_pointer(obj):
    """The address of the first element of a NumPy array, torch tensor or
    wnn tensor (the last through a versioned DLPack export)."""
    if np is not None and isinstance(obj, np.ndarray):
        return obj.__array_interface__["data"][0]
    if torch is not None and isinstance(obj, torch.Tensor):
        return obj.data_ptr()
    return capsule_info(obj.__dlpack__(max_version=(1, 0)))["data"]
