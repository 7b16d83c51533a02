# SPDX-License-Identifier: Apache-2.0
"""Resize samplings that WebNN's resample2d does not do, lowered to gathers
of constant taps (src/onnx/ops_resize.c), against PyTorch's interpolate on
the same inputs: bicubic (half_pixel and align_corners), trilinear over
three axes of a rank-5 input, nearest (asymmetric, floor) to sizes that are
no multiple of the input's.
"""
import numpy as np
import pytest

import wnn
from conftest import torch

# onnx.helper, not onnx: libonnx-testdata alone leaves an empty onnx namespace
pytest.importorskip("onnx.helper", reason="python3-onnx is not installed")
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

pytestmark = [pytest.mark.skipif(not wnn.onnx.onnx_available,
                                 reason="the extension was built without the ONNX importer (libwnn_onnx)"),
              pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")]


def resize(tmp_path, x, sizes, device, **attrs):
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [helper.make_tensor("sizes", TensorProto.INT64, [x.ndim], list(sizes))])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return wnn.onnx.load(path, device=device).run({"x": x})["y"]


X4 = np.random.default_rng(21).standard_normal((2, 3, 7, 9)).astype(np.float32)
X5 = np.random.default_rng(22).standard_normal((1, 2, 5, 6, 4)).astype(np.float32)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("out", [(12, 20), (5, 4), (7, 13)])
@pytest.mark.parametrize("align", [False, True])
def test_bicubic(tmp_path, device, out, align):
    got = resize(tmp_path, X4, (2, 3) + out, device, mode="cubic",
                 coordinate_transformation_mode="align_corners" if align else "half_pixel")
    want = torch.nn.functional.interpolate(torch.from_numpy(X4), size=out, mode="bicubic", align_corners=align)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("out", [(9, 11, 8), (3, 4, 7)])
def test_trilinear(tmp_path, device, out):
    got = resize(tmp_path, X5, (1, 2) + out, device, mode="linear")
    want = torch.nn.functional.interpolate(torch.from_numpy(X5), size=out, mode="trilinear", align_corners=False)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("out", [(10, 14), (4, 5)])
def test_nearest_asymmetric_floor(tmp_path, device, out):
    got = resize(tmp_path, X4, (2, 3) + out, device, mode="nearest", coordinate_transformation_mode="asymmetric",
                 nearest_mode="floor")
    want = torch.nn.functional.interpolate(torch.from_numpy(X4), size=out, mode="nearest")
    np.testing.assert_array_equal(got, want.numpy())
