# SPDX-License-Identifier: Apache-2.0
"""wnn.onnx: ONNX models on wnn's devices, the way ONNX Runtime users work.

    import numpy as np, wnn
    model = wnn.onnx.load("resnet18.onnx", device="cpu", shapes={"batch": 1})
    print(model.inputs)    # (TensorInfo(name='input', shape=(1, 3, 224, 224), dtype='float32'),)
    y = model.run({"input": np.zeros((1, 3, 224, 224), np.float32)})["output"]

Inputs are NumPy arrays (or any buffer), Python data, any DLPack producer (a
torch tensor) or wnn tensors; types and shapes must be the input's exactly.
run(..., return_tensors=True) returns wnn tensors without waiting, for
torch.from_dlpack() or another model's run. check(path) lists the nodes a
model cannot lower. docs/onnx.md in wnn's source tree is the guide: the
operators, the decompositions and the limits.
"""
from ._wnn import onnx_available
from ._wnn import onnx_check as check
from ._wnn import onnx_load as load

if onnx_available:
    from ._wnn import OnnxModel as Model
    from ._wnn import OnnxTensorInfo as TensorInfo

__all__ = ["check", "load", "onnx_available"] + (["Model", "TensorInfo"] if onnx_available else [])
