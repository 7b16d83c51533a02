# SPDX-License-Identifier: Apache-2.0
"""GridSample and RoiAlign through wnn.onnx (src/onnx/ops_gridsample.c: taps
gathered from the flattened input) against PyTorch's grid_sample, whose
semantics ONNX's operator follows (every mode, padding mode and
align_corners, with grid points inside, on and beyond the input's edges),
and torchvision's roi_align (both coordinate modes, regions partly outside).
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

F = TensorProto.FLOAT


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sample(tmp_path, device, mode, padding, align):
    rng = np.random.default_rng(41)
    x = rng.standard_normal((2, 3, 5, 7)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (2, 4, 6, 2)).astype(np.float32)
    grid[0, 0, 0] = [-1, -1]
    grid[0, 0, 1] = [1, 1]
    node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding, align_corners=align)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, x.shape),
                                            helper.make_tensor_value_info("grid", F, grid.shape)],
                              [helper.make_tensor_value_info("y", F, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": x, "grid": grid})["y"]
    want = torch.nn.functional.grid_sample(torch.from_numpy(x), torch.from_numpy(grid), mode=mode,
                                           padding_mode=padding, align_corners=bool(align))
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


def roi_model(tmp_path, x, rois, **attrs):
    node = helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, x.shape),
                                            helper.make_tensor_value_info("rois", F, rois.shape),
                                            helper.make_tensor_value_info("idx", TensorProto.INT64, [rois.shape[0]])],
                              [helper.make_tensor_value_info("y", F, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), path)
    return path


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("ratio", [1, 2, 3])
def test_roi_align(tmp_path, device, aligned, ratio):
    torchvision = pytest.importorskip("torchvision", reason="python3-torchvision is not installed")
    rng = np.random.default_rng(42)
    x = rng.standard_normal((2, 3, 12, 10)).astype(np.float32)
    rois = np.array([[0, 0, 9, 11], [2.5, 1.2, 7.7, 6.1], [-1.5, 3, 4, 14], [6, 6, 6.5, 7]], np.float32) * 1.5
    idx = np.array([0, 1, 1, 0], np.int64)
    path = roi_model(tmp_path, x, rois, output_height=4, output_width=3, sampling_ratio=ratio, spatial_scale=0.7,
                     coordinate_transformation_mode="half_pixel" if aligned else "output_half_pixel")
    got = wnn.onnx.load(path, device=device).run({"x": x, "rois": rois, "idx": idx})["y"]
    boxes = torch.from_numpy(np.concatenate([idx[:, None].astype(np.float32), rois], axis=1))
    want = torchvision.ops.roi_align(torch.from_numpy(x), boxes, (4, 3), 0.7, ratio, aligned)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
