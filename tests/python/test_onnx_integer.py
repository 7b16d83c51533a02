# SPDX-License-Identifier: Apache-2.0
"""MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv through wnn.onnx
(src/onnx/ops_integer.c): float32 products summed in chunks that stay below
2^24 and added in int32 must equal the int32 arithmetic exactly, here with
reductions long enough to need several chunks, against NumPy (and PyTorch's
float64 convolution, exact at these magnitudes).
"""
import numpy as np
import pytest

import wnn
from conftest import torch

# onnx.helper, not onnx: libonnx-testdata alone leaves an empty onnx namespace
pytest.importorskip("onnx.helper", reason="python3-onnx is not installed")
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.skipif(not wnn.onnx.onnx_available,
                                reason="the extension was built without the ONNX importer (libwnn_onnx)")

U8, I8 = TensorProto.UINT8, TensorProto.INT8


def model(tmp_path, node, inputs, outputs, inits=()):
    graph = helper.make_graph([node], "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("k", [7, 1000])
def test_matmul_integer_is_exact(tmp_path, device, k):
    rng = np.random.default_rng(31)
    a = rng.integers(0, 256, (3, 5, k), dtype=np.uint8)
    b = rng.integers(-128, 128, (k, 4), dtype=np.int8)
    azp, bzp = np.array(3, np.uint8), np.array([-3, 0, 5, 127], np.int8)  # b per column
    node = helper.make_node("MatMulInteger", ["a", "b", "azp", "bzp"], ["y"])
    path = model(tmp_path, node, [helper.make_tensor_value_info("a", U8, a.shape),
                                  helper.make_tensor_value_info("b", I8, b.shape)],
                 [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [("azp", azp), ("bzp", bzp)])
    got = wnn.onnx.load(path, device=device).run({"a": a, "b": b})["y"]
    want = (a.astype(np.int64) - azp) @ (b.astype(np.int64) - bzp)
    np.testing.assert_array_equal(got, want.astype(np.int32))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")
@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("channels", [3, 64])
def test_conv_integer_is_exact(tmp_path, device, channels):
    rng = np.random.default_rng(32)
    x = rng.integers(0, 256, (2, channels, 9, 8), dtype=np.uint8)
    w = rng.integers(0, 256, (5, channels, 3, 3), dtype=np.uint8)
    xzp, wzp = np.array(128, np.uint8), np.array(7, np.uint8)
    node = helper.make_node("ConvInteger", ["x", "w", "xzp", "wzp"], ["y"], pads=[1, 0, 1, 2], strides=[2, 1])
    path = model(tmp_path, node, [helper.make_tensor_value_info("x", U8, x.shape)],
                 [helper.make_tensor_value_info("y", TensorProto.INT32, None)], [("w", w), ("xzp", xzp), ("wzp", wzp)])
    got = wnn.onnx.load(path, device=device).run({"x": x})["y"]
    xc = torch.nn.functional.pad(torch.from_numpy(x.astype(np.float64) - 128), (0, 2, 1, 1))
    want = torch.nn.functional.conv2d(xc, torch.from_numpy(w.astype(np.float64) - 7), stride=(2, 1))
    np.testing.assert_array_equal(got, want.numpy().astype(np.int32))


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_qlinear_matmul_requantizes_like_onnx_runtime(tmp_path, device):
    rng = np.random.default_rng(33)
    a = rng.integers(0, 256, (6, 700), dtype=np.uint8)
    b = rng.integers(0, 256, (700, 5), dtype=np.uint8)
    sa, za, sb, zb = np.float32(0.02), np.uint8(120), np.float32(0.003), np.uint8(131)
    sy, zy = np.float32(0.7), np.uint8(100)
    inits = [("sa", np.array(sa)), ("za", np.array(za)), ("b", b), ("sb", np.array(sb)), ("zb", np.array(zb)),
             ("sy", np.array(sy)), ("zy", np.array(zy))]
    node = helper.make_node("QLinearMatMul", ["a", "sa", "za", "b", "sb", "zb", "sy", "zy"], ["y"])
    path = model(tmp_path, node, [helper.make_tensor_value_info("a", U8, a.shape)],
                 [helper.make_tensor_value_info("y", U8, None)], inits)
    got = wnn.onnx.load(path, device=device).run({"a": a})["y"]
    acc = (a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)
    m = np.float32(np.float32(sa * sb) / sy)
    want = np.clip(np.rint(acc.astype(np.float32) * m) + zy, 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(got, want)
