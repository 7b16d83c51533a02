# SPDX-License-Identifier: Apache-2.0
"""DLPack 1.3's C exchange API of wnn.Tensor, called through ctypes."""
import ctypes
import os
import sys

import numpy as np
import pytest

import wnn

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from dlpack_exchange import DLTensor, Exchange, SET_ERROR  # noqa: E402


@pytest.fixture(scope="module")
def ex():
    return Exchange(wnn.Tensor)


def test_capsule_on_the_type(ex):
    capsule = wnn.Tensor.__dlpack_c_exchange_api__
    assert type(capsule).__name__ == "PyCapsule"
    assert "dlpack_exchange_api" in repr(capsule)
    assert ex.version == (1, 3)
    assert not ex.api.header.prev_api
    assert ex.api.managed_tensor_allocator and ex.api.current_work_stream
    assert ex.api.dltensor_from_py_object_no_sync is None  # optional, not provided


def test_export_import_round_trip(ex):
    ctx = wnn.default_context("cpu")
    t = ctx.tensor((2, 3), "float32", readable=True, writable=True)
    ctx.write(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    m = ex.export(t)
    dl = m.contents.dl_tensor
    assert (m.contents.version.major, m.contents.version.minor) == (1, 3)
    assert dl.ndim == 2 and [dl.shape[0], dl.shape[1]] == [2, 3] and [dl.strides[0], dl.strides[1]] == [3, 1]
    assert (dl.device.device_type, dl.dtype.code, dl.dtype.bits) == (1, 2, 32)
    back = ex.to_object(m)  # takes ownership
    assert isinstance(back, wnn.Tensor) and back.shape == (2, 3)
    assert np.array_equal(np.from_dlpack(back), np.arange(6, dtype=np.float32).reshape(2, 3))
    assert np.array_equal(np.from_dlpack(t), np.from_dlpack(back))  # the same memory


def test_export_of_a_foreign_object_raises(ex):
    with pytest.raises(TypeError, match="expected a wnn.Tensor"):  # the entry's exception, through ctypes
        ex.export(np.zeros(3, np.float32))


def test_allocator(ex):
    shape = (ctypes.c_int64 * 2)(4, 5)
    proto = DLTensor(None, (1, 0), 2, (2, 32, 1), shape, None, 0)
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind, msg)))
    from dlpack_exchange import DLManagedTensorVersioned
    out = ctypes.POINTER(DLManagedTensorVersioned)()
    assert ex.allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == 0
    dl = out.contents.dl_tensor
    assert (dl.ndim, dl.shape[0], dl.shape[1], dl.dtype.bits) == (2, 4, 5, 32)
    out.contents.deleter(out)
    proto.dtype.bits = 64  # float64: no WebNN type
    assert ex.allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == -1
    assert errors and errors[0][0] == b"BufferError"


def test_current_work_stream(ex):
    assert ex.stream(1, 0) is None
    assert ex.stream(2, 0) is None  # the legacy default stream: exports order wnn's work before it


class _Producer:
    """A foreign type with a C exchange table of its own (built here with
    ctypes): its entries hand out the wrapped wnn tensor through wnn's table
    and count the calls, so wnn.from_dlpack's consumer side is seen to take
    the table instead of the Python protocol."""

    calls = {"from_py": 0, "stream": 0}
    fail = False

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, **kw):  # the Python protocol, for what the table declines
        return self.t.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def _install_table():
    from dlpack_exchange import CURRENT_STREAM, FROM_PY, DLPackExchangeAPI
    inner = Exchange(wnn.Tensor)

    def from_py(obj, out):
        _Producer.calls["from_py"] += 1
        if _Producer.fail:
            return -1
        return inner.from_py(obj.t, out)

    def stream(device_type, device_id, out):
        _Producer.calls["stream"] += 1
        out[0] = None
        return 0

    keep = [FROM_PY(from_py), CURRENT_STREAM(stream)]
    api = DLPackExchangeAPI()
    api.header.version.major, api.header.version.minor = 1, 3
    api.managed_tensor_from_py_object_no_sync = ctypes.cast(keep[0], ctypes.c_void_p).value
    api.current_work_stream = ctypes.cast(keep[1], ctypes.c_void_p).value
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    _Producer.__dlpack_c_exchange_api__ = new(ctypes.addressof(api), b"dlpack_exchange_api", None)
    _Producer._keep = (keep, api)


def test_from_dlpack_takes_a_producers_exchange_table():
    _install_table()
    ctx = wnn.default_context("cpu")
    t = ctx.tensor((2, 3), "float32", readable=True, writable=True)
    ctx.write(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    before = dict(_Producer.calls)
    w = wnn.from_dlpack(_Producer(t))
    assert _Producer.calls["from_py"] == before["from_py"] + 1
    assert isinstance(w, wnn.Tensor) and w.shape == (2, 3)
    assert np.from_dlpack(w).__array_interface__["data"][0] == np.from_dlpack(t).__array_interface__["data"][0]
    ctx.write(t, np.full((2, 3), 7, np.float32))
    assert np.array_equal(np.from_dlpack(w), np.full((2, 3), 7, np.float32))  # the same memory


def test_exchange_table_declines_another_device_and_the_protocol_copies():
    _install_table()
    t = wnn.default_context("cpu").tensor((4,), "float32", readable=True, writable=True)
    wnn.default_context("cpu").write(t, np.arange(4, dtype=np.float32))
    before = dict(_Producer.calls)
    w = wnn.from_dlpack(_Producer(t), device="null")  # host memory into the null device: a copy
    assert _Producer.calls["from_py"] == before["from_py"] + 1  # asked, then given back
    assert np.array_equal(w.numpy(), np.arange(4, dtype=np.float32))


def test_exchange_table_failure_raises():
    _install_table()
    t = wnn.default_context("cpu").tensor((4,), "float32", readable=True, writable=True)
    _Producer.fail = True
    try:
        with pytest.raises(BufferError):
            wnn.from_dlpack(_Producer(t))
    finally:
        _Producer.fail = False
