# SPDX-License-Identifier: Apache-2.0
"""wnn's Python API without DLPack: devices, contexts, tensors, reads and
writes, constants, graphs and dispatch, and how statuses become exceptions."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import wnn
from conftest import NUMPY_TYPES, PYTHON_DIR, sample


def test_devices_lists_cpu_first():
    devs = wnn.devices()
    assert devs[0]["name"] == "cpu"
    assert devs[0]["kind"] == "cpu"
    assert devs[0]["dlpack_device"] == (1, 0)
    for d in devs:
        assert set(d) == {"name", "description", "kind", "accelerated", "max_tensor_byte_length", "memory_bytes",
                          "dlpack_device"}


def test_module_constants():
    assert wnn.__version__ == wnn.library_version
    assert wnn.data_types == ("float32", "float16", "int32", "uint32", "int64", "uint64", "int8", "uint8", "int4",
                              "uint4")


def test_context_device_and_repr():
    c = wnn.Context()
    assert c.device == "cpu"
    assert c.device_info["name"] == "cpu"
    assert "cpu" in repr(c)
    assert not c.lost
    c.destroy()
    assert c.lost
    c.destroy()  # idempotent


def test_context_unknown_device():
    with pytest.raises(wnn.NotSupportedError) as e:
        wnn.Context("no-such-device")
    assert e.value.status_name == "WNN_STATUS_NO_SUCH_DEVICE"
    assert isinstance(e.value, RuntimeError)


def test_context_bad_options():
    with pytest.raises(wnn.ArgumentError):
        wnn.Context("cpu", policy="nope")
    with pytest.raises(wnn.ArgumentError):
        wnn.Context("cpu", power_preference="fast")
    with pytest.raises(TypeError):
        wnn.Context(3)


def test_context_memory_limit_range():
    # integers are taken whole or refused: never wrapped modulo 2**64 (audit D5)
    for bad in (2**64 + 256, 2**70, -1):
        with pytest.raises(wnn.ArgumentError):
            wnn.Context("cpu", memory_limit=bad)
    with pytest.raises(TypeError):
        wnn.Context("cpu", memory_limit=1.5)
    wnn.Context("cpu", memory_limit=2**64 - 1).destroy()
    small = wnn.Context("cpu", memory_limit=256)
    with pytest.raises(wnn.Error):
        small.tensor((1024,))


def test_builder_refuses_what_limits_deny(ctx):
    # a uint4 slice (audit D1) and a 2**32-element broadcast (audit D3) raise
    # at the call instead of building
    b = wnn.GraphBuilder(ctx)
    q = b.constant(np.arange(6, dtype=np.uint8), dtype="uint4", shape=(3, 4))
    with pytest.raises(wnn.Error):
        b.slice(q, [0, 0], [3, 4])
    with pytest.raises(wnn.Error):
        b.add(b.input("a", (65536, 1)), b.input("c", (1, 65536)))


def test_context_as_with_block():
    with wnn.Context("cpu") as c:
        t = c.tensor((2,), readable=True)
    assert c.lost
    with pytest.raises(wnn.InvalidStateError):
        c.read(t)


def test_tensor_attributes(ctx):
    t = ctx.tensor((2, 3, 4), "int32", readable=True)
    assert t.dtype == "int32"
    assert t.shape == (2, 3, 4)
    assert t.ndim == 3
    assert t.byte_length == 96
    assert (t.readable, t.writable, t.constant, t.destroyed) == (True, False, False, False)
    assert t.context is ctx
    assert "int32" in repr(t) and "(2, 3, 4)" in repr(t)
    t.destroy()
    assert t.destroyed
    assert t.shape == (2, 3, 4)  # attributes stay readable


def test_tensor_scalar_and_defaults(ctx):
    t = ctx.tensor([], readable=True)
    assert t.shape == () and t.dtype == "float32"
    assert ctx.read(t) == np.float32(0)
    assert ctx.tensor(5).shape == (5,)


@pytest.mark.parametrize("dtype", [np.float16, np.dtype("int64"), "uint8"])
def test_tensor_dtype_spellings(ctx, dtype):
    assert ctx.tensor((1,), dtype).dtype == np.dtype(dtype).name


def test_tensor_dtype_of_torch(ctx):
    torch = pytest.importorskip("torch")
    assert ctx.tensor((1,), torch.int8).dtype == "int8"


def test_tensor_invalid_descriptors(ctx):
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.tensor((2, 0))
    assert e.value.status_name == "WNN_STATUS_INVALID_DIMENSION"
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.tensor((1,) * 9)
    assert e.value.status_name == "WNN_STATUS_INVALID_RANK"
    with pytest.raises(TypeError):
        ctx.tensor((2,), "float64")
    with pytest.raises(wnn.ArgumentError):
        ctx.tensor((-1,))
    with pytest.raises(TypeError):
        ctx.tensor(("a",))
    with pytest.raises(TypeError):
        ctx.tensor()


@pytest.mark.parametrize("dtype", NUMPY_TYPES)
def test_write_read_round_trip(ctx, dtype):
    a = sample(dtype, (3, 5))
    t = ctx.tensor(a.shape, dtype, readable=True, writable=True)
    ctx.write(t, a)
    r = ctx.read(t)
    assert r.dtype == a.dtype and r.shape == a.shape
    np.testing.assert_array_equal(r, a)


def test_write_accepts_raw_bytes_and_strided_buffers(ctx):
    t = ctx.tensor((2, 2), readable=True, writable=True)
    a = np.array([[1, 2], [3, 4]], np.float32)
    ctx.write(t, a.tobytes())
    np.testing.assert_array_equal(ctx.read(t), a)
    ctx.write(t, bytearray(a.T.tobytes()))
    np.testing.assert_array_equal(ctx.read(t), a.T)
    big = np.arange(16, dtype=np.float32).reshape(4, 4)
    ctx.write(t, big[::2, ::2])  # not contiguous: copied first
    np.testing.assert_array_equal(ctx.read(t), big[::2, ::2])
    ctx.write(t, memoryview(a))


def test_write_checks_type_and_size(ctx):
    t = ctx.tensor((4,), writable=True)
    with pytest.raises(TypeError, match="format 'd'"):
        ctx.write(t, np.zeros(2, np.float64))  # same byte length, wrong type
    with pytest.raises(TypeError):
        ctx.write(t, np.zeros(4, np.int32))
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(t, np.zeros(3, np.float32))
    assert e.value.status_name == "WNN_STATUS_BYTE_LENGTH_MISMATCH"
    with pytest.raises(TypeError):
        ctx.write(t, "not a buffer")
    with pytest.raises(TypeError):
        ctx.write(np.zeros(4), np.zeros(4))
    r = ctx.tensor((4,), readable=True)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(r, np.zeros(4, np.float32))
    assert e.value.status_name == "WNN_STATUS_NOT_WRITABLE"


def test_read_errors(ctx):
    t = ctx.tensor((4,), writable=True)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.read(t)
    assert e.value.status_name == "WNN_STATUS_NOT_READABLE"
    r = ctx.tensor((4,), readable=True)
    r.destroy()
    with pytest.raises(wnn.InvalidStateError) as e:
        ctx.read(r)
    assert e.value.status_name == "WNN_STATUS_DESTROYED"
    other = wnn.Context("cpu")
    with pytest.raises(wnn.ArgumentError) as e:
        other.read(ctx.tensor((1,), readable=True))
    assert e.value.status_name == "WNN_STATUS_WRONG_CONTEXT"


def test_read_into_out(ctx):
    t = ctx.tensor((3,), "int32", readable=True, writable=True)
    ctx.write(t, np.array([1, 2, 3], np.int32))
    out = np.zeros(3, np.int32)
    assert ctx.read(t, out=out) is out
    np.testing.assert_array_equal(out, [1, 2, 3])
    buf = bytearray(12)
    ctx.read(t, out=buf)
    assert bytes(buf) == np.array([1, 2, 3], np.int32).tobytes()
    with pytest.raises(TypeError):
        ctx.read(t, out=np.zeros(3, np.float32))
    with pytest.raises(wnn.ArgumentError):
        ctx.read(t, out=bytearray(4))
    with pytest.raises((TypeError, BufferError)):
        ctx.read(t, out=b"immutable!!!")


def test_read_int4_gives_bytes(ctx):
    t = ctx.tensor((3,), "int4", readable=True)
    assert ctx.read(t) == b"\x00\x00"


def test_read_without_numpy_gives_bytes():
    code = textwrap.dedent(f"""
        import sys
        sys.modules["numpy"] = None  # import numpy fails
        sys.path.insert(0, {PYTHON_DIR!r})
        import wnn
        c = wnn.Context("cpu")
        t = c.tensor((2,), "int32", readable=True, writable=True)
        c.write(t, (7).to_bytes(4, "little") + (9).to_bytes(4, "little"))
        r = c.read(t)
        assert isinstance(r, bytes) and r == bytes([7, 0, 0, 0, 9, 0, 0, 0]), r
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_constant_tensor(ctx):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = ctx.constant(a)
    assert (c.shape, c.dtype, c.constant, c.readable, c.writable) == ((2, 3), "float32", True, False, False)
    with pytest.raises(wnn.ArgumentError):
        ctx.read(c)
    with pytest.raises(wnn.ArgumentError):
        ctx.write(c, a)
    c2 = ctx.constant(a.tobytes(), shape=(3, 2), dtype="float32")
    assert c2.shape == (3, 2)
    with pytest.raises(TypeError):
        ctx.constant(a.tobytes(), dtype="float32")  # raw bytes need a shape
    with pytest.raises(TypeError):
        ctx.constant(np.zeros(2, np.float64))
    with pytest.raises(TypeError):
        ctx.constant(a, dtype="int32")


def test_graph_dispatch_and_chaining(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    w = b.constant(np.array([[1, 0], [0, 2]], np.float32))
    g = b.build({"y": b.add(b.matmul(x, w), b.constant(1.0))})
    assert g.inputs == {"x": ("float32", (2, 2))}
    assert g.outputs == {"y": ("float32", (2, 2))}
    a = ctx.tensor((2, 2), writable=True)
    mid = ctx.tensor((2, 2))
    out = ctx.tensor((2, 2), readable=True)
    ctx.write(a, np.array([[1, 2], [3, 4]], np.float32))
    ctx.dispatch(g, {"x": a}, {"y": mid})
    ctx.dispatch(g, {"x": mid}, {"y": out})  # an output feeds the next dispatch
    ctx.finish()
    np.testing.assert_array_equal(ctx.read(out), [[3, 11], [5, 19]])


def test_dispatch_errors(ctx):
    b = wnn.GraphBuilder(ctx)
    g = b.build({"y": b.relu(b.input("x", (2,)))})
    t = ctx.tensor((2,), writable=True, readable=True)
    u = ctx.tensor((3,), readable=True)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.dispatch(g, {"x": t}, {"z": u})
    assert e.value.status_name == "WNN_STATUS_NAME_MISMATCH"
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.dispatch(g, {"x": t}, {"y": u})
    assert e.value.status_name == "WNN_STATUS_DESCRIPTOR_MISMATCH"
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.dispatch(g, {"x": t}, {"y": t})
    assert e.value.status_name == "WNN_STATUS_DUPLICATE_TENSOR"
    with pytest.raises(TypeError):
        ctx.dispatch(g, {"x": 1}, {"y": t})
    with pytest.raises(TypeError):
        ctx.dispatch(g, [t], {"y": t})
    with pytest.raises(TypeError):
        ctx.dispatch("graph", {}, {})
    g.destroy()
    with pytest.raises(wnn.InvalidStateError):
        ctx.dispatch(g, {"x": t}, {"y": ctx.tensor((2,))})


def test_lost_context_errors(ctx):
    t = ctx.tensor((2,), readable=True, writable=True)
    ctx.destroy()
    with pytest.raises(wnn.InvalidStateError) as e:
        ctx.tensor((2,))
    assert e.value.status_name == "WNN_STATUS_CONTEXT_LOST"
    with pytest.raises(wnn.InvalidStateError):
        ctx.write(t, np.zeros(2, np.float32))
    with pytest.raises(wnn.InvalidStateError):
        wnn.GraphBuilder(ctx)


def test_exception_classes():
    assert issubclass(wnn.ArgumentError, wnn.Error)
    assert issubclass(wnn.ArgumentError, TypeError) and issubclass(wnn.ArgumentError, ValueError)
    for cls in (wnn.InvalidStateError, wnn.NotSupportedError, wnn.OperationError, wnn.UnknownError):
        assert issubclass(cls, wnn.Error) and issubclass(cls, RuntimeError)
    assert issubclass(wnn.OutOfMemoryError, MemoryError)
    assert issubclass(wnn.DLPackError, BufferError)
    assert wnn.exception_for_status(101) is wnn.ArgumentError
    assert wnn.exception_for_status(201) is wnn.InvalidStateError
    assert wnn.exception_for_status(301) is wnn.NotSupportedError
    assert wnn.exception_for_status(400) is wnn.OperationError
    assert wnn.exception_for_status(500) is wnn.OutOfMemoryError
    assert wnn.exception_for_status(600) is wnn.UnknownError


def test_memory_stats_and_trim(ctx):
    s = ctx.memory_stats()
    t = ctx.tensor((1024,))
    assert ctx.memory_stats()["in_use_bytes"] >= s["in_use_bytes"] + 4096
    t.destroy()
    del t
    ctx.trim_memory()
    assert ctx.memory_stats()["cached_bytes"] == 0


def test_default_context_is_shared():
    assert wnn.default_context() is wnn.default_context("cpu")
    assert wnn.default_context().device == "cpu"
