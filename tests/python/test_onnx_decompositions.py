# SPDX-License-Identifier: Apache-2.0
"""ONNX operators WebNN has no operator for, lowered by decomposition
(docs/onnx.md's table), checked here over more inputs than ONNX's own test
models: Acos, Asin and Atan (a Cephes-style atan polynomial) against NumPy
over their whole domains.
"""
import numpy as np
import pytest

import wnn

onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed")
from onnx import TensorProto, helper  # noqa: E402

pytestmark = pytest.mark.skipif(not wnn.onnx.onnx_available,
                                reason="the extension was built without the ONNX importer (libwnn_onnx)")


def unary(tmp_path, op, x, device):
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return wnn.onnx.load(path, device=device).run({"x": x})["y"]


ONE = np.linspace(-1, 1, 20001, dtype=np.float32)
WIDE = np.concatenate([np.linspace(-50, 50, 20001), np.geomspace(1e-30, 1e30, 2001), -np.geomspace(1e-30, 1e30, 2001),
                       [0.0, 1.0, -1.0, np.inf, -np.inf]]).astype(np.float32)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("op,x,ref", [("Acos", ONE, np.arccos), ("Asin", ONE, np.arcsin), ("Atan", WIDE, np.arctan)])
def test_inverse_trigonometry(tmp_path, device, op, x, ref):
    got = unary(tmp_path, op, x, device).astype(np.float64)
    want = ref(x.astype(np.float64))
    # within 4 float32 ulps of the exact value, or 1e-7 where it is near 0
    np.testing.assert_allclose(got, want, rtol=4 * 2.0**-23, atol=1e-7)
