# SPDX-License-Identifier: Apache-2.0
"""DLPack with NumPy (Debian's 1.24) in both directions on the cpu device:
zero copy proven by pointers and by writes seen on the other side, every
data type both sides have, shapes, layouts NumPy can produce, constants."""
import numpy as np
import pytest

import wnn
from conftest import NUMPY_TYPES, data_pointer, sample


@pytest.mark.parametrize("dtype", NUMPY_TYPES)
def test_numpy_to_wnn_shares_memory(dtype):
    a = sample(dtype, (3, 4))
    w = wnn.from_dlpack(a)
    assert (w.dtype, w.shape) == (dtype, (3, 4))
    assert w.context is wnn.default_context("cpu")
    assert data_pointer(w) == data_pointer(a)
    np.testing.assert_array_equal(w.context.read(w), a)
    a[1, 2] = 42  # the wnn tensor sees NumPy's write
    assert w.context.read(w)[1, 2] == 42


@pytest.mark.parametrize("dtype", NUMPY_TYPES)
def test_wnn_to_numpy_shares_memory(ctx, dtype):
    a = sample(dtype, (3, 4))
    t = ctx.tensor(a.shape, dtype, readable=True, writable=True)
    ctx.write(t, a)
    v = np.from_dlpack(t)
    assert v.dtype == a.dtype and v.shape == a.shape
    assert data_pointer(v) == data_pointer(t)
    np.testing.assert_array_equal(v, a)
    ctx.write(t, np.full(a.shape, 7, dtype))  # NumPy sees wnn's write once it ran
    ctx.finish()
    np.testing.assert_array_equal(v, np.full(a.shape, 7, dtype))


def test_numpy_wnn_numpy_is_one_buffer():
    a = np.arange(10, dtype=np.float32)
    b = np.from_dlpack(wnn.from_dlpack(a))
    assert data_pointer(b) == data_pointer(a)
    a[0] = -1
    assert b[0] == -1


@pytest.mark.parametrize("shape", [(), (1,), (1, 7), (7, 1), (1,) * 8, (2, 3, 4, 5)])
def test_shapes(ctx, shape):
    a = sample("float32", shape)
    w = wnn.from_dlpack(a, device=ctx)
    assert w.shape == shape
    np.testing.assert_array_equal(np.from_dlpack(w), a)


@pytest.mark.parametrize("view", [
    lambda a: a[:, ::2], lambda a: a.T, lambda a: a[::-1], lambda a: a[1:, 1:], lambda a: np.broadcast_to(a[0], (3, 4)),
])
def test_layouts_numpy_produces(ctx, view):
    base = np.arange(12, dtype=np.int32).reshape(3, 4)
    a = view(base)
    try:
        w = wnn.from_dlpack(a, device=ctx)
    except BufferError:  # NumPy 1.24 refuses some (e.g. read-only broadcasts)
        return
    np.testing.assert_array_equal(ctx.read(w), a)
    if a.flags.c_contiguous:
        assert data_pointer(w) == data_pointer(a)  # wrapped in place, byte offset or not
    else:
        assert data_pointer(w) != data_pointer(a)  # copied into wnn's layout
        with pytest.raises(BufferError):
            wnn.from_dlpack(a, device=ctx, copy=False)


def test_misaligned_buffer_is_copied(ctx):
    raw = bytearray(4 * 5 + 1)
    a = np.frombuffer(raw, dtype=np.float32, offset=1, count=5)
    w = wnn.from_dlpack(a, device=ctx)
    np.testing.assert_array_equal(ctx.read(w), a)
    assert data_pointer(w) != data_pointer(a)


@pytest.mark.parametrize("a", [np.zeros(0, np.float32), np.zeros((2, 0), np.float32), np.zeros(3, np.float64),
                               np.zeros(3, np.complex64), np.zeros(3, np.int16)])
def test_what_webnn_cannot_hold_is_a_buffer_error(a):
    with pytest.raises(BufferError):
        wnn.from_dlpack(a)


def test_copy_argument():
    a = np.arange(4, dtype=np.float32)
    shared = wnn.from_dlpack(a, copy=False)
    private = wnn.from_dlpack(a, copy=True)
    assert data_pointer(shared) == data_pointer(a)
    assert data_pointer(private) != data_pointer(a)
    a[:] = 0
    ctx = shared.context
    np.testing.assert_array_equal(ctx.read(shared), 0)
    np.testing.assert_array_equal(ctx.read(private), [0, 1, 2, 3])


def test_numpy_reads_constants_by_copy(ctx):
    a = np.float32([1, 2, 3])
    c = ctx.constant(a)
    v = np.from_dlpack(c)  # NumPy 1.24 asks for a legacy capsule: wnn copies a constant
    np.testing.assert_array_equal(v, a)
    assert not v.flags.writeable


def test_dispatch_reads_and_writes_numpy_memory(ctx):
    """Graph inputs and outputs over NumPy buffers: results land in the
    NumPy array with no read."""
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    g = b.build({"y": b.mul(x, b.constant(3.0))})
    src = np.float32([[1, 2], [3, 4]])
    dst = np.zeros((2, 2), np.float32)
    ctx.dispatch(g, {"x": wnn.from_dlpack(src, device=ctx)}, {"y": wnn.from_dlpack(dst, device=ctx)})
    ctx.finish()
    np.testing.assert_array_equal(dst, src * 3)


def test_many_dtypes_round_trip_through_a_graph(ctx):
    for dtype in NUMPY_TYPES:
        a = sample(dtype, (4,))
        b = wnn.GraphBuilder(ctx)
        g = b.build({"y": b.identity(b.input("x", (4,), dtype))})
        out = np.zeros(4, dtype)
        ctx.dispatch(g, {"x": wnn.from_dlpack(a, device=ctx)}, {"y": wnn.from_dlpack(out, device=ctx)})
        ctx.finish()
        np.testing.assert_array_equal(out, a)
