# SPDX-License-Identifier: Apache-2.0
"""Ownership across DLPack: reference counts, either side deleted first,
deleters (exactly once, from wnn's threads, after the interpreter's end),
many round trips without memory growth, and imports from a producer written
with ctypes, which can build managed tensors NumPy and PyTorch never make."""
import ctypes
import gc
import subprocess
import sys
import textwrap
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import wnn
from conftest import (PYTHON_DIR, READ_ONLY, DLManagedTensor, DLManagedTensorVersioned, capsule_info, data_pointer,
                      torch)

# ---- reference counts and lifetimes --------------------------------------------


def test_numpy_array_referenced_while_wnn_tensor_lives():
    a = np.arange(16, dtype=np.float32)
    before = sys.getrefcount(a)
    w = wnn.from_dlpack(a)
    assert sys.getrefcount(a) == before + 1  # NumPy's export holds the array
    del w
    assert sys.getrefcount(a) == before


def test_numpy_array_outlives_its_name_inside_wnn():
    a = np.arange(16, dtype=np.float32)
    ref = weakref.ref(a)
    w = wnn.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None
    np.testing.assert_array_equal(w.context.read(w), np.arange(16))
    del w
    gc.collect()
    assert ref() is None


def test_wnn_tensor_deleted_before_numpy_view(ctx):
    t = ctx.tensor((4,), readable=True, writable=True)
    ctx.write(t, np.float32([1, 2, 3, 4]))
    ctx.finish()
    v = np.from_dlpack(t)
    before = sys.getrefcount(t)
    assert before == 2  # the view does not hold the Python object: the C export holds the memory
    del t
    ctx.destroy()
    del ctx
    gc.collect()
    np.testing.assert_array_equal(v, [1, 2, 3, 4])


def test_memory_comes_back_when_both_sides_are_gone(ctx):
    base = ctx.memory_stats()["in_use_bytes"]
    t = ctx.tensor((1 << 16,), readable=True)
    v = np.from_dlpack(t)
    del t
    assert ctx.memory_stats()["in_use_bytes"] > base  # still lent
    del v
    gc.collect()
    assert ctx.memory_stats()["in_use_bytes"] == base


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def round_trips(n, ctx):
    a = np.arange(256, dtype=np.float32)
    t = ctx.tensor((256,), readable=True)
    for _ in range(n):
        w = wnn.from_dlpack(a, device=ctx)
        b = np.from_dlpack(w)
        c = np.from_dlpack(t)
        d = wnn.from_dlpack(t)
        del w, b, c, d
        if torch is not None:
            x = torch.from_dlpack(t)
            y = wnn.from_dlpack(x, device=ctx)
            del x, y


def test_many_round_trips_do_not_grow_memory(ctx):
    round_trips(2000, ctx)  # warm up allocator caches
    gc.collect()
    before_rss, before_wnn = rss_bytes(), ctx.memory_stats()["in_use_bytes"]
    round_trips(20000, ctx)
    gc.collect()
    assert ctx.memory_stats()["in_use_bytes"] == before_wnn
    assert rss_bytes() - before_rss < 4 << 20, "memory grew over 20000 round trips"


def traced_growth(fn, n):
    """Bytes of Python memory that n more calls of fn keep (after warm-up)."""
    for _ in range(n // 10):
        fn()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(n):
            fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def api_calls(ctx):
    t = ctx.tensor((4, 4), readable=True, writable=True)
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (4, 4))
    y = b.conv2d(b.reshape(x, (1, 1, 4, 4)), b.constant(np.ones((1, 1, 3, 3), np.float32)), padding=[1, 1, 1, 1])
    try:
        b.matmul(x, b.input("z", (3, 3)))
    except wnn.ArgumentError:
        pass
    g = b.build({"y": b.split(b.reduce_sum(y, axes=[1], keepDimensions=False), 2, axis=1)[0]})
    (g.inputs, g.outputs, t.shape, t.dtype, repr(t), y.shape)
    ctx.write(t, np.ones((4, 4), np.float32))
    ctx.read(t)


@pytest.mark.parametrize("what", ["api", "dlpack"])
def test_no_python_objects_are_kept(ctx, what):
    """A leaked reference per call would show here: tracemalloc sees every
    Python allocation the calls keep."""
    fn = (lambda: api_calls(ctx)) if what == "api" else (lambda: round_trips(1, ctx))
    assert traced_growth(fn, 3000) < 16 << 10


def test_round_trips_from_threads():
    errors = []

    def work():
        try:
            round_trips(500, wnn.default_context())
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not any(th.is_alive() for th in threads), "a thread hangs"
    assert not errors


def test_interpreter_exit_with_live_exchanges():
    """Tensors lent both ways, a queued dispatch over NumPy memory and
    unconsumed capsules are alive at exit: no crash, no hang."""
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {PYTHON_DIR!r})
        import numpy as np, wnn
        try:
            import torch
        except ImportError:
            torch = None
        ctx = wnn.Context("cpu")
        a = np.ones((256, 256), np.float32)
        w = wnn.from_dlpack(a, device=ctx)
        b = wnn.GraphBuilder(ctx)
        x = b.input("x", (256, 256))
        g = b.build({{"y": b.matmul(x, x)}})
        out = ctx.tensor((256, 256), readable=True)
        for _ in range(20):
            ctx.dispatch(g, {{"x": w}}, {{"y": out}})
        view = np.from_dlpack(out)
        cap = out.__dlpack__(max_version=(1, 0))
        kept = [w, view, cap, wnn.from_dlpack(np.arange(3.0, dtype=np.float32))]
        if torch is not None:
            kept += [torch.from_dlpack(out), wnn.from_dlpack(torch.ones(3))]
        del w
        print("ok", flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
    assert "Fatal" not in out.stderr and "Error" not in out.stderr, out.stderr


# ---- a producer written with ctypes --------------------------------------------

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
NAME_V = b"dltensor_versioned"  # module constants: a capsule keeps the pointer to its name
NAME_L = b"dltensor"
DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class CProducer:
    """A managed tensor over a NumPy buffer, with whatever fields a test
    wants, and a deleter (a ctypes callback: it takes the GIL) that records
    the threads it ran on."""

    def __init__(self, array, legacy=False, major=1, flags=0, strides=None, byte_offset=0, dtype=None,
                 shape=None, device=(1, 0)):
        self.array = array
        self.deleted = []
        self.deleter = DELETER(lambda ptr: self.deleted.append(threading.get_ident()))
        shape = array.shape if shape is None else shape
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        kind = {"f": 2, "i": 0, "u": 1, "b": 6}[array.dtype.kind]
        self.m = DLManagedTensor() if legacy else DLManagedTensorVersioned()
        if not legacy:
            self.m.major, self.m.minor, self.m.flags = major, 0, flags
        t = self.m.dl_tensor
        t.data = array.ctypes.data
        t.device.device_type, t.device.device_id = device
        t.ndim = len(shape)
        t.dtype.code, t.dtype.bits, t.dtype.lanes = dtype or (kind, array.dtype.itemsize * 8, 1)
        t.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            t.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        t.byte_offset = byte_offset
        self.m.deleter = ctypes.cast(self.deleter, ctypes.c_void_p).value
        self.legacy = legacy

    def capsule(self):
        return _api.PyCapsule_New(ctypes.addressof(self.m), NAME_L if self.legacy else NAME_V, None)


def test_foreign_deleter_runs_once_when_the_tensor_goes(ctx):
    p = CProducer(np.arange(6, dtype=np.float32))
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    assert data_pointer(w) == p.array.ctypes.data
    assert p.deleted == []
    del w
    ctx.finish()
    assert p.deleted == [threading.get_ident()]


def test_foreign_deleter_from_a_wnn_thread(ctx):
    """The storage goes when queued work is done with it, on wnn's worker:
    the deleter (which needs the GIL) still runs, exactly once."""
    n = 384
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (n, n))
    y = x
    for _ in range(8):
        y = b.matmul(y, x)
    g = b.build({"y": y})
    p = CProducer(np.full((n, n), 1e-3, np.float32))
    out = ctx.tensor((n, n), readable=True)
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    ctx.dispatch(g, {"x": w}, {"y": out})
    del w  # the dispatch still holds the storage
    ctx.read(out)
    ctx.finish()
    assert len(p.deleted) == 1


def test_unknown_major_version_only_calls_the_deleter(ctx):
    p = CProducer(np.arange(4, dtype=np.float32), major=2)
    with pytest.raises(BufferError):
        wnn.from_dlpack(p.capsule(), device=ctx)
    assert len(p.deleted) == 1


def test_legacy_producer_without_strides(ctx):
    p = CProducer(np.arange(6, dtype=np.int64).reshape(2, 3), legacy=True)
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    assert data_pointer(w) == p.array.ctypes.data  # compact: wrapped
    np.testing.assert_array_equal(ctx.read(w), p.array)
    del w
    assert len(p.deleted) == 1


def test_byte_offset_is_honoured(ctx):
    a = np.arange(8, dtype=np.float32)
    p = CProducer(a, byte_offset=8, shape=(6,))
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    np.testing.assert_array_equal(ctx.read(w), a[2:])
    ctx.finish()
    assert len(p.deleted) == 1  # copied: the source went back at once


def test_negative_and_zero_strides_are_copied(ctx):
    a = np.arange(6, dtype=np.int32)
    p = CProducer(a, shape=(6,), strides=(-1,), byte_offset=20)
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    np.testing.assert_array_equal(ctx.read(w), a[::-1])
    p = CProducer(a, shape=(2, 3), strides=(0, 1))
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    np.testing.assert_array_equal(ctx.read(w), [a[:3], a[:3]])


def test_bool_is_taken_as_uint8(ctx):
    p = CProducer(np.array([True, False, True]))
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    assert w.dtype == "uint8"
    np.testing.assert_array_equal(ctx.read(w), [1, 0, 1])


def test_read_only_memory_becomes_a_constant(ctx):
    p = CProducer(np.float32([1, 2, 3]), flags=READ_ONLY)
    w = wnn.from_dlpack(p.capsule(), device=ctx)
    assert w.constant and not w.writable
    with pytest.raises(wnn.ArgumentError):
        ctx.write(w, np.float32([0, 0, 0]))
    assert capsule_info(w.__dlpack__(max_version=(1, 0)))["flags"] == READ_ONLY


@pytest.mark.parametrize("kwargs", [
    {"flags": 4}, {"dtype": (2, 64, 1)}, {"dtype": (2, 32, 4)}, {"dtype": (4, 16, 1)}, {"device": (2, 0)},
    {"shape": (0,)}, {"shape": (1,) * 9},
])
def test_what_wnn_cannot_take_is_refused_and_given_back(ctx, kwargs):
    p = CProducer(np.zeros(4, np.float32), **kwargs)
    with pytest.raises(BufferError):
        wnn.from_dlpack(p.capsule(), device=ctx)
    assert len(p.deleted) == 1
