# SPDX-License-Identifier: Apache-2.0
"""Exercises the wnn module's paths for test_asan.py, which runs it under
the address sanitizer's leak checker: contexts, tensors, graphs with every
kind of operator argument, errors, DLPack both ways (capsules consumed and
not, deleters on wnn's threads), the null device. Checks its own results and
prints "ok"; leaves everything to be freed by the interpreter's end."""
import gc

import numpy as np

import wnn


def check(cond, what):
    if not cond:
        raise SystemExit(f"asan_exercise: {what}")


def graphs(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (1, 2, 4, 4))
    w = b.constant(np.ones((3, 2, 3, 3), np.float32))
    y = b.conv2d(x, w, padding=[1, 1, 1, 1], bias=b.constant(np.zeros(3, np.float32)), inputLayout="nchw")
    y = b.max_pool2d(y, window_dimensions=[2, 2], strides=[2, 2])
    y = b.reduce_mean(y, axes=[2, 3], keep_dimensions=False)
    parts = b.split(y, [1, 2], axis=1)
    h = b.lstm(b.reshape(x, (4, 2, 4)), b.constant(np.zeros((1, 8, 4), np.float32)),
               b.constant(np.zeros((1, 8, 2), np.float32)), 4, 2, return_sequence=True)
    z = b.concat([parts[0], parts[1]], 1)
    g = b.build({"z": b.clamp(z, min_value=0), "h": h[0]})
    for bad in (lambda: b.matmul(x, x), lambda: b.relu(1), lambda: b.slice(x, [0], [1]),
                lambda: b.conv2d(x, w, padding=[1]), lambda: b.build({"q": x})):
        try:
            bad()
        except (wnn.Error, TypeError):
            pass
    t = ctx.tensor((1, 2, 4, 4), writable=True)
    ctx.write(t, np.ones((1, 2, 4, 4), np.float32))
    z, hh = ctx.tensor((1, 3), readable=True), ctx.tensor((1, 2, 2), readable=True)
    ctx.dispatch(g, {"x": t}, {"z": z, "h": hh})
    check(np.allclose(ctx.read(z), [[18.0, 18.0, 18.0]]), "conv2d graph")
    try:
        ctx.dispatch(g, {"x": t}, {"z": z})
    except wnn.ArgumentError:
        pass


def dlpack(ctx, null):
    a = np.arange(64, dtype=np.float32)
    for _ in range(50):
        w = wnn.from_dlpack(a, device=ctx)
        v = np.from_dlpack(w)
        check(v[5] == 5, "numpy round trip")
        w.__dlpack__(max_version=(1, 0))  # never consumed
        w.__dlpack__(copy=True)
        c = w.__dlpack__(max_version=(1, 0))
        wnn.from_dlpack(c)
        try:
            wnn.from_dlpack(c)
        except ValueError:
            pass
        try:
            w.__dlpack__(stream=3)
        except ValueError:
            pass
    const = ctx.constant(a)
    np.from_dlpack(const)
    wnn.from_dlpack(const)
    # a deleter that runs on wnn's worker: the storage goes after the dispatch
    b = wnn.GraphBuilder(ctx)
    g = b.build({"y": b.matmul(b.input("x", (64, 64)), b.constant(np.eye(64, dtype=np.float32)))})
    out = ctx.tensor((64, 64), readable=True)
    for _ in range(10):
        src = wnn.from_dlpack(np.ones((64, 64), np.float32), device=ctx)
        ctx.dispatch(g, {"x": src}, {"y": out})
        del src
    check(ctx.read(out).sum() == 64 * 64, "dispatch over numpy memory")
    if null is not None:
        nt = wnn.from_dlpack(a, device=null)
        h = wnn.from_dlpack(nt, device=ctx)
        check(ctx.read(h)[63] == 63, "null to cpu")
        nt.__dlpack__(dl_device=(1, 0))
        nt.__dlpack__(max_version=(1, 0), stream=2)
        wnn.from_dlpack(nt)
        try:
            np.from_dlpack(nt)
        except (BufferError, RuntimeError):
            pass


def main():
    ctx = wnn.Context("cpu")
    null = wnn.Context("null") if any(d["name"] == "null" for d in wnn.devices()) else None
    for _ in range(3):
        graphs(ctx)
        dlpack(ctx, null)
    keep = [np.from_dlpack(ctx.tensor((8,), readable=True)), wnn.from_dlpack(np.ones(8, np.float32))]
    ctx.destroy()
    del ctx
    gc.collect()
    check(len(keep) == 2, "kept")
    print("ok")


if __name__ == "__main__":
    main()
