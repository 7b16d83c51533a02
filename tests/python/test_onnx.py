# SPDX-License-Identifier: Apache-2.0
"""wnn.onnx: loading ONNX models from Python and running them with NumPy
arrays, torch tensors and wnn tensors (python/src/onnx.c, docs/onnx.md).

The models are small: ONNX's own test models (Debian's libonnx-testdata) and
a two-layer network exported by PyTorch with a free batch dimension. Each
test that needs something absent skips and says what.
"""
import os

import numpy as np
import pytest

import wnn
from conftest import has_device, needs_torch, torch

pytestmark = pytest.mark.skipif(not wnn.onnx.onnx_available,
                                reason="the extension was built without the ONNX importer (libwnn_onnx)")

NODE = "/usr/share/libonnx-testdata/data/node"


def model_file(name):
    path = os.path.join(NODE, name, "model.onnx")
    if not os.path.exists(path):
        pytest.skip(f"{path} is missing: apt-get install libonnx-testdata")
    return path


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    """x [batch, 4] -> relu(linear) -> linear -> y [batch, 3], exported by PyTorch."""
    if torch is None:
        pytest.skip("PyTorch is not installed; apt-get install python3-torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3)).eval()
    path = str(tmp_path_factory.mktemp("onnx") / "mlp.onnx")
    torch.onnx.export(net, (torch.zeros(2, 4),), path, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}}, opset_version=13)
    return path, net


def test_load_describes_inputs_and_outputs():
    m = wnn.onnx.load(model_file("test_add"))
    assert [i.name for i in m.inputs] == ["x", "y"] and [o.name for o in m.outputs] == ["sum"]
    assert m.inputs[0] == ("x", (3, 4, 5), "float32")
    assert m.inputs[0].shape == (3, 4, 5) and m.outputs[0].dtype == "float32"
    assert isinstance(m.inputs[0], wnn.onnx.TensorInfo)
    assert m.device == "cpu" and m.context is wnn.default_context("cpu")
    assert "test_add" in repr(m) and "2 inputs, 1 output" in repr(m)


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_run_numpy(device):
    if not has_device(device):
        pytest.skip(f"the {device} device is not compiled in")
    m = wnn.onnx.load(model_file("test_add"), device=device)
    x, y = np.random.default_rng(0).standard_normal((2, 3, 4, 5), dtype=np.float32)
    out = m.run({"x": x, "y": y})
    assert list(out) == ["sum"] and isinstance(out["sum"], np.ndarray)
    np.testing.assert_array_equal(out["sum"], x + y)
    # a second run reuses the model's tensors
    np.testing.assert_array_equal(m.run({"x": y, "y": y})["sum"], y + y)


def test_run_takes_strided_arrays_and_python_data():
    m = wnn.onnx.load(model_file("test_relu"))
    x = np.arange(-60, 60, dtype=np.float32).reshape(3, 4, 10)[:, :, ::2]
    assert m.inputs[0].shape == x.shape and not x.flags.c_contiguous
    np.testing.assert_array_equal(m.run({"x": x})["y"], np.maximum(x, 0))
    np.testing.assert_array_equal(m.run({"x": x.tolist()})["y"], np.maximum(x, 0))


def test_context_argument():
    ctx = wnn.Context("cpu")
    m = wnn.onnx.load(model_file("test_relu"), device=ctx)
    assert m.context is ctx
    x = np.ones((3, 4, 5), np.float32)
    np.testing.assert_array_equal(m.run({"x": -x})["y"], 0 * x)


def test_shapes_bind_free_dimensions(mlp):
    path, net = mlp
    x = np.random.default_rng(1).standard_normal((5, 4), dtype=np.float32)
    want = net(torch.from_numpy(x)).detach().numpy()
    by_dim = wnn.onnx.load(path, shapes={"batch": 5})
    assert by_dim.inputs[0].shape == (5, 4) and by_dim.outputs[0].shape == (5, 3)
    np.testing.assert_allclose(by_dim.run({"x": x})["y"], want, rtol=1e-5, atol=1e-6)
    by_input = wnn.onnx.load(path, shapes={"x": (2, 4)})
    assert by_input.outputs[0].shape == (2, 3)
    np.testing.assert_allclose(by_input.run({"x": x[:2]})["y"], want[:2], rtol=1e-5, atol=1e-6)
    assert wnn.onnx.load(path, default_dimension=7).inputs[0].shape == (7, 4)
    with pytest.raises(wnn.NotSupportedError, match="batch"):
        wnn.onnx.load(path)


@needs_torch
def test_run_takes_torch_tensors_through_dlpack(mlp):
    path, net = mlp
    m = wnn.onnx.load(path, shapes={"batch": 3})
    x = torch.randn(3, 4)
    np.testing.assert_allclose(m.run({"x": x})["y"], net(x).detach().numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
def test_return_tensors_chain_without_copies(mlp):
    path, net = mlp
    relu = wnn.onnx.load(model_file("test_relu"))
    m = wnn.onnx.load(path, shapes={"batch": 3})
    x = np.random.default_rng(2).standard_normal((3, 4, 5), dtype=np.float32)
    first = relu.run({"x": x}, return_tensors=True)
    assert isinstance(first["y"], wnn.Tensor) and first["y"].shape == (3, 4, 5)
    second = relu.run({"x": -x}, return_tensors=True)
    assert first["y"] is not second["y"]  # each run returns fresh tensors
    np.testing.assert_array_equal(torch.from_dlpack(first["y"]).numpy(), np.maximum(x, 0))
    np.testing.assert_array_equal(np.from_dlpack(second["y"]), np.maximum(-x, 0))
    # a wnn tensor feeds another model's run as it is
    t = m.run({"x": np.ones((3, 4), np.float32)}, return_tensors=True)["y"]
    again = relu.run({"x": relu.run({"x": x}, return_tensors=True)["y"]})["y"]
    np.testing.assert_array_equal(again, np.maximum(x, 0))
    np.testing.assert_allclose(t.numpy(), net(torch.ones(3, 4)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_outputs_subset(mlp):
    path, _ = mlp
    m = wnn.onnx.load(path, shapes={"batch": 1})
    x = np.zeros((1, 4), np.float32)
    assert list(m.run({"x": x}, ["y"])) == ["y"]
    assert list(m.run({"x": x}, outputs=None)) == ["y"]
    with pytest.raises(wnn.ArgumentError, match="no output 'z'"):
        m.run({"x": x}, ["z"])
    with pytest.raises(TypeError, match="list of names"):
        m.run({"x": x}, "y")


def test_run_refuses_what_does_not_match():
    m = wnn.onnx.load(model_file("test_add"))
    x = np.zeros((3, 4, 5), np.float32)
    with pytest.raises(wnn.ArgumentError, match=r"input 'x' is float64 \[3, 4, 5\], the model takes float32"):
        m.run({"x": x.astype(np.float64), "y": x})
    with pytest.raises(wnn.ArgumentError, match=r"input 'y' is float32 \[3, 4\]"):
        m.run({"x": x, "y": x[:, :, 0]})
    with pytest.raises(wnn.ArgumentError, match="input 'y' is missing"):
        m.run({"x": x})
    with pytest.raises(wnn.ArgumentError, match="no input 'z'"):
        m.run({"x": x, "y": x, "z": x})
    with pytest.raises(TypeError, match="dict"):
        m.run([x, x])
    if torch is not None:
        with pytest.raises(wnn.ArgumentError, match="input 'x' is int64"):
            m.run({"x": torch.zeros(3, 4, 5, dtype=torch.int64), "y": x})


def test_load_errors(tmp_path):
    with pytest.raises(wnn.OperationError):
        wnn.onnx.load(str(tmp_path / "missing.onnx"))
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12\xff\xff\xff not a model")
    with pytest.raises(wnn.OperationError):
        wnn.onnx.load(bad)  # os.PathLike too
    with pytest.raises(TypeError, match="shapes must be a dict"):
        wnn.onnx.load(model_file("test_relu"), shapes=[1])
    with pytest.raises(TypeError, match="device"):
        wnn.onnx.load(model_file("test_relu"), device=3)


def test_check_lists_unsupported_nodes():
    assert wnn.onnx.check(model_file("test_relu")) == []
    issues = wnn.onnx.check(model_file("test_top_k"))
    assert len(issues) == 1 and issues[0]["op_type"] == "TopK" and issues[0]["status"] == "WNN_STATUS_NOT_SUPPORTED"
    assert issues[0]["message"] and issues[0]["opset"] > 0
    with pytest.raises(wnn.NotSupportedError, match="TopK"):
        wnn.onnx.load(model_file("test_top_k"))
