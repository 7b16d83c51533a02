# SPDX-License-Identifier: Apache-2.0
"""3-D Conv, ConvTranspose, MaxPool and AveragePool through wnn.onnx, which
lowers them to sums over the depth of WebNN's 2-D operators
(src/onnx/ops_spatial3d.c), against PyTorch's conv3d, conv_transpose3d,
max_pool3d and avg_pool3d on the same inputs: strides, dilations, padding
(count_include_pad both ways), groups and output_padding along every axis.
"""
import numpy as np
import pytest

import wnn
from conftest import torch

# onnx.helper, not onnx: libonnx-testdata alone leaves an empty onnx namespace
pytest.importorskip("onnx.helper", reason="python3-onnx is not installed")
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = [pytest.mark.skipif(not wnn.onnx.onnx_available,
                                 reason="the extension was built without the ONNX importer (libwnn_onnx)"),
              pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")]

F = TensorProto.FLOAT


def run(tmp_path, node, x, inits=(), device="cpu"):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, list(x.shape))],
                              [helper.make_tensor_value_info("y", F, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return wnn.onnx.load(path, device=device).run({"x": x})["y"]


def close(got, want):
    want = want.detach().numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(want).max())))


CONVS = [  # stride, dilation, pads (d, h, w), groups
    ((1, 1, 1), (1, 1, 1), (0, 0, 0), 1),
    ((2, 1, 2), (1, 1, 1), (1, 0, 1), 1),
    ((1, 2, 1), (2, 1, 1), (2, 1, 0), 2),
    ((3, 2, 1), (1, 2, 2), (0, 1, 2), 2),
]


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("stride,dilation,pads,groups", CONVS)
def test_conv3d(tmp_path, device, stride, dilation, pads, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 9, 8, 7), dtype=np.float32)
    w = rng.standard_normal((6, 4 // groups, 3, 2, 3), dtype=np.float32)
    bias = rng.standard_normal(6, dtype=np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], strides=stride, dilations=dilation,
                            pads=list(pads) * 2, group=groups)
    got = run(tmp_path, node, x, [("w", w), ("b", bias)], device)
    close(got, torch.nn.functional.conv3d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias),
                                          stride, pads, dilation, groups))


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("stride,dilation,pads,groups", CONVS)
def test_conv_transpose3d(tmp_path, device, stride, dilation, pads, groups):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 4, 5, 3), dtype=np.float32)
    w = rng.standard_normal((4, 6 // groups, 3, 2, 3), dtype=np.float32)
    bias = rng.standard_normal(6, dtype=np.float32)
    out_pad = tuple(1 if s > 1 else 0 for s in stride)
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=stride, dilations=dilation,
                            pads=list(pads) * 2, group=groups, output_padding=out_pad)
    got = run(tmp_path, node, x, [("w", w), ("b", bias)], device)
    close(got, torch.nn.functional.conv_transpose3d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(bias),
                                                    stride, pads, out_pad, groups, dilation))


POOLS = [  # kernel, stride, pads (d, h, w)
    ((2, 2, 2), (2, 2, 2), (0, 0, 0)),
    ((3, 2, 3), (2, 1, 2), (1, 1, 0)),
    ((3, 3, 3), (1, 2, 1), (1, 0, 1)),
]


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("kernel,stride,pads", POOLS)
def test_max_pool3d(tmp_path, device, kernel, stride, pads):
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 6, 8), dtype=np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=kernel, strides=stride, pads=list(pads) * 2)
    close(run(tmp_path, node, x, device=device),
          torch.nn.functional.max_pool3d(torch.from_numpy(x), kernel, stride, pads))


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("kernel,stride,pads", POOLS)
@pytest.mark.parametrize("include_pad", [0, 1])
def test_average_pool3d(tmp_path, device, kernel, stride, pads, include_pad):
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 6, 8), dtype=np.float32)
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=kernel, strides=stride, pads=list(pads) * 2,
                            count_include_pad=include_pad)
    close(run(tmp_path, node, x, device=device),
          torch.nn.functional.avg_pool3d(torch.from_numpy(x), kernel, stride, pads, count_include_pad=bool(include_pad)))
