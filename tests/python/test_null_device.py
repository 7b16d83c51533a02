# SPDX-License-Identifier: Apache-2.0
"""DLPack with a device whose memory host code cannot read: the null device
(an emulated discrete accelerator). Its tensors reach NumPy and PyTorch as
host copies (dl_device=(1, 0)), counted by its memory statistics; host
memory reaches it as a copy; null to null shares."""
import numpy as np
import pytest

import wnn
from conftest import IS_COPIED, capsule_info, needs_torch, torch


@pytest.fixture
def nt(null_ctx):
    t = null_ctx.tensor((2, 3), readable=True, writable=True)
    null_ctx.write(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    return t


class Host:
    """Hands a wnn tensor to a consumer as host memory (NumPy 1.24's
    from_dlpack has no device argument)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(dl_device=(1, 0))

    def __dlpack_device__(self):
        return (1, 0)


def test_device_of_null_tensors(nt):
    assert nt.__dlpack_device__() == (12, 0)  # kDLExtDev: nobody else reads it
    info = capsule_info(nt.__dlpack__(max_version=(1, 0)))
    assert info["device"] == (12, 0) and info["flags"] == 0


def test_copy_to_host_on_request(null_ctx, nt):
    before = null_ctx.memory_stats()["copies_to_host"]
    info = capsule_info(nt.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))
    assert info["device"] == (1, 0)
    assert info["flags"] & IS_COPIED
    assert null_ctx.memory_stats()["copies_to_host"] == before + 1
    with pytest.raises(BufferError):
        nt.__dlpack__(dl_device=(1, 0), copy=False)


def test_numpy_gets_a_host_copy(null_ctx, nt):
    a = np.from_dlpack(Host(nt))
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
    null_ctx.write(nt, np.zeros((2, 3), np.float32))
    null_ctx.finish()
    assert a[1, 2] == 5  # a copy: later device writes do not reach it
    with pytest.raises((BufferError, RuntimeError)):  # device memory as such: refused by NumPy
        np.from_dlpack(nt)


@needs_torch
def test_torch_gets_a_host_copy(nt):
    x = torch.utils.dlpack.from_dlpack(nt.__dlpack__(dl_device=(1, 0)))
    np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(2, 3))
    with pytest.raises((BufferError, RuntimeError)):
        torch.from_dlpack(nt)


def test_wnn_from_null_to_cpu_and_back(null_ctx, nt):
    h = wnn.from_dlpack(nt, device="cpu")
    assert h.context.device == "cpu"
    np.testing.assert_array_equal(h.context.read(h), np.arange(6).reshape(2, 3))
    with pytest.raises(BufferError):
        wnn.from_dlpack(nt, device="cpu", copy=False)
    before = null_ctx.memory_stats()["copies_to_device"]
    back = wnn.from_dlpack(np.float32([7, 8]), device=null_ctx)
    assert back.context is null_ctx
    np.testing.assert_array_equal(null_ctx.read(back), [7, 8])
    assert null_ctx.memory_stats()["copies_to_device"] == before + 1
    with pytest.raises(BufferError):
        wnn.from_dlpack(np.float32([7, 8]), device=null_ctx, copy=False)


def test_null_to_null_shares(null_ctx, nt):
    stats = null_ctx.memory_stats()
    w = wnn.from_dlpack(nt)
    assert w.context is null_ctx
    assert capsule_info(w.__dlpack__(max_version=(1, 0)))["data"] == capsule_info(
        nt.__dlpack__(max_version=(1, 0)))["data"]
    null_ctx.write(nt, np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(null_ctx.read(w), np.ones((2, 3)))
    after = null_ctx.memory_stats()
    assert after["copies_on_device"] == stats["copies_on_device"]


def test_graph_on_null_over_numpy_input(null_ctx):
    b = wnn.GraphBuilder(null_ctx)
    x = b.input("x", (3,))
    g = b.build({"y": b.add(x, x)})
    out = null_ctx.tensor((3,), readable=True)
    null_ctx.dispatch(g, {"x": wnn.from_dlpack(np.float32([1, 2, 3]), device=null_ctx)}, {"y": out})
    np.testing.assert_array_equal(null_ctx.read(out), [2, 4, 6])
    host = wnn.from_dlpack(out, device="cpu")
    np.testing.assert_array_equal(np.from_dlpack(host), [2, 4, 6])
