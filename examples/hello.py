# SPDX-License-Identifier: Apache-2.0
"""hello.py -- the C example hello.c in Python: y = relu(x @ x) on the cpu
device, with NumPy arrays in and out through DLPack (no copies).

    pip install ./python        # from the repository root (README.md)
    python examples/hello.py
"""
import numpy as np

import wnn

print("wnn", wnn.__version__, "devices:", ", ".join(d["name"] for d in wnn.devices()))
with wnn.Context("cpu") as ctx:
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    g = b.build({"y": b.relu(b.matmul(x, x))})

    a = wnn.from_dlpack(np.float32([[1, -2], [3, 4]]), device=ctx)  # NumPy's memory, no copy
    y = ctx.tensor((2, 2), readable=True)
    ctx.dispatch(g, {"x": a}, {"y": y})
    r = ctx.read(y)
    print(r)  # [[ 0.  0.] [15. 10.]]
    assert r.tolist() == [[0, 0], [15, 10]]

    try:
        b2 = wnn.GraphBuilder(ctx)
        b2.matmul(b2.input("a", (2, 3)), b2.input("b", (2, 3)))
    except wnn.ArgumentError as e:  # also a TypeError and a ValueError
        print(type(e).__name__, e.status_name, e)
