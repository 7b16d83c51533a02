# SPDX-License-Identifier: Apache-2.0
"""DLPack on the GPU: wnn's cuda tensors and PyTorch, CuPy and JAX arrays
share memory both ways (same device pointer), and the stream handshake
orders a producer's still-running work before the consumer reads.

Skips, with the reason, when wnn has no cuda device (the in-tree module
links libwnn.a, which leaves the cuda backend out: build it with
WNN_LINK=shared), or torch.cuda, CuPy or JAX are absent. Runs under pytest
or as a plain script."""
import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
from conftest import data_pointer, has_device  # noqa: E402  (puts the in-tree module first)

import wnn  # noqa: E402

HAS_CUDA = has_device("cuda")
needs_wnn_cuda = pytest.mark.skipif(not HAS_CUDA, reason="wnn has no cuda device (no GPU, or a module built "
                                    "without the cuda backend: WNN_LINK=shared)")


def _import(name):
    try:
        return __import__(name), ""
    except Exception as e:  # ImportError, or a broken CUDA runtime inside it
        return None, f"{name} is not usable: {e}"


torch, TORCH_WHY = _import("torch")
if torch is not None and not torch.cuda.is_available():
    torch, TORCH_WHY = None, "torch.cuda is not available"
cupy, CUPY_WHY = _import("cupy")
if cupy is not None:
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        cupy, CUPY_WHY = None, f"cupy sees no GPU: {e}"
jax, JAX_WHY = _import("jax")
if jax is not None:
    try:
        GPU = jax.devices("gpu")[0]
        import jax.dlpack  # noqa: F401
        import jax.numpy as jnp
    except Exception as e:
        jax, JAX_WHY = None, f"jax has no GPU: {e}"

needs_torch = pytest.mark.skipif(torch is None, reason=TORCH_WHY or "torch")
needs_cupy = pytest.mark.skipif(cupy is None, reason=CUPY_WHY or "cupy")
needs_jax = pytest.mark.skipif(jax is None, reason=JAX_WHY or "jax")


@pytest.fixture
def cuda():
    if not HAS_CUDA:
        pytest.skip("wnn has no cuda device")
    return wnn.Context("cuda")


def values(shape, base=1.0):
    n = int(np.prod(shape))
    return (base + np.arange(n, dtype=np.float32) % 13).reshape(shape)


def wnn_tensor(ctx, a):
    t = ctx.tensor(a.shape, readable=True, writable=True)
    ctx.write(t, a)
    return t


@needs_wnn_cuda
def test_device_of_cuda_tensors(cuda):
    t = cuda.tensor((2, 3), readable=True)
    assert tuple(t.__dlpack_device__())[0] == 2


@needs_wnn_cuda
@needs_torch
def test_torch_shares_wnn_memory(cuda):
    a = values((64, 48))
    t = wnn_tensor(cuda, a)
    x = torch.from_dlpack(t)
    assert x.is_cuda
    assert x.data_ptr() == data_pointer(t)
    np.testing.assert_array_equal(x.cpu().numpy(), a)


@needs_wnn_cuda
@needs_torch
def test_wnn_shares_torch_memory(cuda):
    x = torch.arange(96, dtype=torch.float32, device="cuda").reshape(8, 12)
    w = wnn.from_dlpack(x)
    assert data_pointer(w) == x.data_ptr()
    np.testing.assert_array_equal(w.context.read(w), x.cpu().numpy())
    # wnn writes into torch's memory
    w.context.write(w, np.full((8, 12), 5, np.float32))
    w.context.finish()
    torch.cuda.synchronize()
    assert bool((x == 5).all())


@needs_wnn_cuda
@needs_cupy
def test_cupy_both_ways(cuda):
    a = values((32, 5))
    t = wnn_tensor(cuda, a)
    c = cupy.from_dlpack(t)
    assert c.data.ptr == data_pointer(t)
    np.testing.assert_array_equal(cupy.asnumpy(c), a)
    d = cupy.arange(60, dtype=cupy.float32).reshape(6, 10)
    w = wnn.from_dlpack(d)
    assert data_pointer(w) == d.data.ptr
    np.testing.assert_array_equal(w.context.read(w), cupy.asnumpy(d))


@needs_wnn_cuda
@needs_jax
def test_jax_both_ways(cuda):
    a = values((16, 16))
    t = wnn_tensor(cuda, a)
    j = jax.dlpack.from_dlpack(t)
    assert j.unsafe_buffer_pointer() == data_pointer(t)
    np.testing.assert_array_equal(np.asarray(j), a)
    k = jax.device_put(jnp.arange(40, dtype=jnp.float32).reshape(5, 8), GPU)
    k.block_until_ready()
    w = wnn.from_dlpack(k)
    assert data_pointer(w) == k.unsafe_buffer_pointer()
    np.testing.assert_array_equal(w.context.read(w), np.asarray(k))


N = 4096


@needs_wnn_cuda
@needs_torch
def test_stream_handshake_torch_producer(cuda):
    """A long torch chain on a side stream, still running when wnn imports
    its result: wnn's read must see the finished values."""
    a = values((N, N))
    eye = torch.eye(N, device="cuda")
    x0 = torch.from_numpy(a).cuda()
    s = torch.cuda.Stream()

    def chain():
        x = x0
        for _ in range(40):
            x = x @ eye
        return x + 1

    with torch.cuda.stream(s):
        chain()  # warm-up: cuBLAS's workspace and the allocator's blocks (cudaMalloc may synchronize)
    torch.cuda.synchronize()
    with torch.cuda.stream(s):
        y = chain()
        still_running = not s.query()
        w = wnn.from_dlpack(y)  # torch orders s before the stream wnn names
        got = w.context.read(w)
    print(f"torch producer still running at import: {still_running}")
    np.testing.assert_array_equal(got, a + 1)


@needs_wnn_cuda
@needs_torch
def test_stream_handshake_wnn_producer(cuda):
    """A long wnn chain still queued when torch imports its output on a
    stream of its own: torch's reads are ordered after it."""
    a = values((N, N))
    b = wnn.GraphBuilder(cuda)
    x = b.input("x", (N, N))
    eye = b.constant(np.eye(N, dtype=np.float32))
    for _ in range(40):
        x = b.matmul(x, eye)
    g = b.build({"y": x})
    inp = wnn_tensor(cuda, a)
    out = wnn_tensor(cuda, np.full((N, N), -1, np.float32))
    cuda.finish()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        cuda.dispatch(g, {"x": inp}, {"y": out})
        y = torch.from_dlpack(out)  # passes s: wnn's event is waited on there
        z = y + 0  # a torch kernel on s
        got = z.cpu()  # synchronizes s only
    np.testing.assert_array_equal(got.numpy(), a)


def _main():
    failed = 0
    for name, fn in sorted(globals().items()):
        if not name.startswith("test_") or not callable(fn):
            continue
        try:
            marks = getattr(fn, "pytestmark", [])
            skip = next((m.kwargs.get("reason") for m in marks if m.name == "skipif" and m.args[0]), None)
            if skip:
                print(f"SKIP {name}: {skip}")
                continue
            args = [wnn.Context("cuda")] if fn.__code__.co_argcount else []
            fn(*args)
            print(f"PASS {name}")
        except pytest.skip.Exception as e:
            print(f"SKIP {name}: {e}")
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(_main())
