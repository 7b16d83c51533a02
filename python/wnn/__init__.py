# SPDX-License-Identifier: Apache-2.0
"""wnn: the W3C WebNN API for Python, over the native wnn library.

    import numpy as np, wnn
    ctx = wnn.Context("cpu")
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    g = b.build({"y": b.relu(b.matmul(x, x))})
    t = ctx.tensor((2, 2), writable=True); y = ctx.tensor((2, 2), readable=True)
    ctx.write(t, np.array([[1, -2], [3, 4]], np.float32))
    ctx.dispatch(g, {"x": t}, {"y": y})
    print(ctx.read(y))

Tensors exchange memory with NumPy and PyTorch through DLPack:
numpy.from_dlpack(t), torch.from_dlpack(t), wnn.from_dlpack(array, device=ctx).
help(wnn.Context), help(wnn.GraphBuilder) and help(wnn.Tensor) describe each call;
the guide is docs/python.md in wnn's source tree. python -m wnn runs the wnn program.
"""
from ._wnn import (
    ArgumentError,
    Context,
    DLPackError,
    Error,
    Graph,
    GraphBuilder,
    InvalidStateError,
    NotSupportedError,
    Operand,
    OperationError,
    OutOfMemoryError,
    Tensor,
    UnknownError,
    _shutdown,
    data_types,
    default_context,
    devices,
    exception_for_status,
    from_dlpack,
    get_num_threads,
    library_version,
    operators,
    set_num_threads,
)

__version__ = library_version

__all__ = [
    "ArgumentError", "Context", "DLPackError", "Error", "Graph", "GraphBuilder", "InvalidStateError",
    "NotSupportedError", "Operand", "OperationError", "OutOfMemoryError", "Tensor", "UnknownError",
    "data_types", "default_context", "devices", "exception_for_status", "from_dlpack", "get_num_threads",
    "library_version", "operators", "set_num_threads",
]

from . import onnx  # noqa: E402  (wnn.onnx.load; docs/onnx.md)

import atexit as _atexit

_atexit.register(_shutdown)
