# SPDX-License-Identifier: Apache-2.0
"""DLPack with PyTorch (Debian's 1.13, CPU) in both directions: zero copy
proven by pointers and by writes on either side, every data type both have
(PyTorch 1.13 has no uint32/uint64), constants, layouts, lifetimes."""
import numpy as np
import pytest

import wnn
from conftest import TORCH_TYPES, data_pointer, needs_torch, sample, torch

pytestmark = needs_torch


@pytest.mark.parametrize("dtype", TORCH_TYPES)
def test_torch_to_wnn_shares_memory(ctx, dtype):
    x = torch.from_numpy(sample(dtype, (3, 4)))
    w = wnn.from_dlpack(x, device=ctx)  # torch 1.13 knows no max_version: legacy capsule
    assert (w.dtype, w.shape) == (dtype, (3, 4))
    assert data_pointer(w) == data_pointer(x)
    np.testing.assert_array_equal(ctx.read(w), x.numpy())
    x[0, 0] = 5
    assert ctx.read(w)[0, 0] == 5


@pytest.mark.parametrize("dtype", TORCH_TYPES)
def test_wnn_to_torch_shares_memory(ctx, dtype):
    a = sample(dtype, (3, 4))
    t = ctx.tensor(a.shape, dtype, readable=True, writable=True)
    ctx.write(t, a)
    ctx.finish()
    x = torch.from_dlpack(t)
    assert str(x.dtype) == f"torch.{dtype}"
    assert data_pointer(x) == data_pointer(t)
    np.testing.assert_array_equal(x.numpy(), a)
    x[1, 1] = 3  # torch tensors are writable: wnn sees the write
    assert ctx.read(t)[1, 1] == 3
    ctx.write(t, np.zeros(a.shape, dtype))
    ctx.finish()
    assert int(x.abs().sum()) == 0


def test_torch_capsule_directly(ctx):
    x = torch.arange(6, dtype=torch.float32)
    w = wnn.from_dlpack(torch.utils.dlpack.to_dlpack(x), device=ctx)
    np.testing.assert_array_equal(ctx.read(w), np.arange(6))
    y = torch.utils.dlpack.from_dlpack(w.__dlpack__())
    assert y.data_ptr() == x.data_ptr()


def test_torch_layouts(ctx):
    x = torch.arange(12, dtype=torch.int64).reshape(3, 4)
    for view in (x.t(), x[:, 1:3], x[1:], x.flip(0)):
        w = wnn.from_dlpack(view, device=ctx)
        np.testing.assert_array_equal(ctx.read(w), view.numpy())
        assert (data_pointer(w) == data_pointer(view)) == view.is_contiguous()


def test_unsupported_torch_tensors(ctx):
    with pytest.raises(BufferError):
        wnn.from_dlpack(torch.zeros(3, dtype=torch.float64), device=ctx)
    with pytest.raises(BufferError):
        wnn.from_dlpack(torch.zeros(0), device=ctx)
    with pytest.raises((BufferError, RuntimeError)):  # torch refuses to export these itself
        wnn.from_dlpack(torch.zeros(3, requires_grad=True), device=ctx)


def test_torch_reads_constants_by_copy(ctx):
    c = ctx.constant(np.float32([1, 2, 3]))
    x = torch.from_dlpack(c)  # legacy: a private copy, writable
    x[0] = 100
    b = wnn.GraphBuilder(ctx)
    g = b.build({"y": b.identity(b.constant(c))})
    out = ctx.tensor((3,), readable=True)
    ctx.dispatch(g, {}, {"y": out})
    np.testing.assert_array_equal(ctx.read(out), [1, 2, 3])


def test_lifetimes_either_side_first(ctx):
    t = ctx.tensor((1000,), readable=True, writable=True)
    ctx.write(t, np.arange(1000, dtype=np.float32))
    ctx.finish()
    x = torch.from_dlpack(t)
    t.destroy()
    del t
    assert float(x.sum()) == sum(range(1000))  # the memory outlives the wnn tensor
    ctx.destroy()
    assert float(x[999]) == 999  # and its context

    y = torch.arange(10, dtype=torch.float32)
    w = wnn.from_dlpack(y)
    del y
    np.testing.assert_array_equal(w.context.read(w), np.arange(10))  # wnn keeps the torch storage


def test_numpy_torch_wnn_triangle():
    a = np.arange(8, dtype=np.int32)
    w = wnn.from_dlpack(a)
    x = torch.from_dlpack(w)
    b = np.from_dlpack(wnn.from_dlpack(x))
    assert data_pointer(a) == data_pointer(w) == data_pointer(x) == data_pointer(b)
    x[3] = -3
    assert a[3] == -3 and b[3] == -3
