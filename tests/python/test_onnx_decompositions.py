# SPDX-License-Identifier: Apache-2.0
"""ONNX operators WebNN has no operator for, lowered by decomposition
(docs/onnx.md's table), checked here over more inputs than ONNX's own test
models: Acos, Asin and Atan (a Cephes-style atan polynomial) against NumPy
over their whole domains; TopK (ranks by pairwise comparison) with ties,
largest and smallest, on inner and outer axes, against a stable sort;
BitShift on every shift of each unsigned type; DFT (a matmul with a
constant matrix) and STFT against NumPy's FFT; GatherND with batch_dims;
MaxUnpool against PyTorch's max_unpool2d; ReverseSequence; ScatterElements
and ScatterND with every reduction and duplicate indices against NumPy's
ufunc.at; MaxPool's Indices against PyTorch's max_pool2d; Det against
NumPy's; BatchNormalization in training mode against PyTorch's;
TfIdfVectorizer's IDF and TFIDF modes against a direct count; LSTM with
peepholes (unrolled) against a NumPy LSTM; Gradient with broadcasting.
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


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("largest", [1, 0])
@pytest.mark.parametrize("axis,k", [(-1, 3), (1, 5), (0, 1), (2, 7)])
def test_topk(tmp_path, device, largest, axis, k):
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 5, (4, 6, 7)).astype(np.float32)  # many ties
    x[0, 0, 0] = -np.inf
    x[1, 2, 3] = np.inf
    graph = helper.make_graph(
        [helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=axis, largest=largest)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
        [helper.make_tensor_value_info("values", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("indices", TensorProto.INT64, None)],
        [helper.make_tensor("k", TensorProto.INT64, [1], [k])])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    out = wnn.onnx.load(path, device=device).run({"x": x})
    order = np.argsort(-x if largest else x, axis=axis, kind="stable")  # ties: the lower index first
    want_idx = np.take(order, np.arange(k), axis=axis)
    np.testing.assert_array_equal(out["indices"], want_idx)
    np.testing.assert_array_equal(out["values"], np.take_along_axis(x, want_idx, axis=axis))


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("dtype,onnx_type", [(np.uint8, TensorProto.UINT8), (np.uint32, TensorProto.UINT32),
                                             (np.uint64, TensorProto.UINT64)])
@pytest.mark.parametrize("direction", ["LEFT", "RIGHT"])
def test_bitshift(tmp_path, device, dtype, onnx_type, direction):
    bits = np.dtype(dtype).itemsize * 8
    x = np.random.default_rng(5).integers(0, np.iinfo(dtype).max, 4 * bits, dtype=dtype, endpoint=True)
    y = np.tile(np.arange(bits, dtype=dtype), 4)
    graph = helper.make_graph([helper.make_node("BitShift", ["x", "y"], ["z"], direction=direction)], "g",
                              [helper.make_tensor_value_info("x", onnx_type, [x.size]),
                               helper.make_tensor_value_info("y", onnx_type, [y.size])],
                              [helper.make_tensor_value_info("z", onnx_type, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": x, "y": y})["z"]
    want = np.left_shift(x, y) if direction == "LEFT" else np.right_shift(x, y)
    np.testing.assert_array_equal(got, want)


def signal_model(tmp_path, node, x, inits=()):
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def as_complex(y):
    return y[..., 0] + 1j * y[..., 1]


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("length", [None, 6, 16])  # the signal's own 12, truncated, zero-padded
@pytest.mark.parametrize("parts,onesided,inverse", [(1, 0, 0), (1, 1, 0), (1, 0, 1), (2, 0, 0), (2, 0, 1)])
def test_dft(tmp_path, device, parts, length, onesided, inverse):
    x = np.random.default_rng(11).standard_normal((2, 12, 3, parts)).astype(np.float32)
    inputs, inits = ["x"], []
    if length is not None:
        inputs.append("n")
        inits.append(helper.make_tensor("n", TensorProto.INT64, [], [length]))
    node = helper.make_node("DFT", inputs, ["y"], axis=1, onesided=onesided, inverse=inverse)
    got = wnn.onnx.load(signal_model(tmp_path, node, x, inits), device=device).run({"x": x})["y"]
    signal = x[..., 0] if parts == 1 else x[..., 0] + 1j * x[..., 1]
    want = (np.fft.ifft if inverse else np.fft.fft)(signal.astype(np.complex128), n=length, axis=1)
    if onesided:
        want = want[:, :(length or 12) // 2 + 1]
    np.testing.assert_allclose(as_complex(got.astype(np.float64)), want, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("parts", [1, 2])
@pytest.mark.parametrize("window", [False, True])
def test_stft(tmp_path, device, parts, window):
    x = np.random.default_rng(12).standard_normal((2, 100, parts)).astype(np.float32)
    w = np.hanning(16).astype(np.float32)
    inits = [helper.make_tensor("step", TensorProto.INT64, [], [6])]
    if window:
        inits.append(helper.make_tensor("w", TensorProto.FLOAT, [16], w))
        node = helper.make_node("STFT", ["x", "step", "w"], ["y"], onesided=0)
    else:
        inits.append(helper.make_tensor("len", TensorProto.INT64, [], [16]))
        node = helper.make_node("STFT", ["x", "step", "", "len"], ["y"], onesided=0)
    got = wnn.onnx.load(signal_model(tmp_path, node, x, inits), device=device).run({"x": x})["y"]
    signal = x[..., 0] if parts == 1 else x[..., 0] + 1j * x[..., 1]
    frames = np.stack([signal[:, s:s + 16] * (w if window else 1) for s in range(0, 100 - 16 + 1, 6)], axis=1)
    want = np.fft.fft(frames.astype(np.complex128), axis=2)
    np.testing.assert_allclose(as_complex(got.astype(np.float64)), want, atol=1e-5 * np.abs(want).max())


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("batch_dims,tuple_len", [(1, 1), (1, 2), (2, 1)])
def test_gather_nd_batch_dims(tmp_path, device, batch_dims, tuple_len):
    rng = np.random.default_rng(13)
    data = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    lead = data.shape[:batch_dims]
    idx = np.stack([rng.integers(-data.shape[batch_dims + j], data.shape[batch_dims + j], lead + (6,))
                    for j in range(tuple_len)], axis=-1).astype(np.int64)
    graph = helper.make_graph([helper.make_node("GatherND", ["x", "i"], ["y"], batch_dims=batch_dims)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(data.shape)),
                               helper.make_tensor_value_info("i", TensorProto.INT64, list(idx.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": data, "i": idx})["y"]
    flat_data = data.reshape((-1,) + data.shape[batch_dims:])
    flat_idx = idx.reshape((flat_data.shape[0], -1, tuple_len))
    want = np.stack([np.stack([flat_data[b][tuple(t)] for t in flat_idx[b]]) for b in range(flat_data.shape[0])])
    np.testing.assert_array_equal(got, want.reshape(idx.shape[:-1] + data.shape[batch_dims + tuple_len:]))


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")
@pytest.mark.parametrize("device", ["cpu", "null"])
def test_max_unpool(tmp_path, device):
    x = torch.from_numpy(np.random.default_rng(14).standard_normal((2, 3, 6, 8)).astype(np.float32))
    pooled, plane_idx = torch.nn.functional.max_pool2d(x, 2, 2, return_indices=True)
    offsets = (torch.arange(2 * 3) * 6 * 8).reshape(2, 3, 1, 1)  # ONNX's indices run over the whole tensor
    idx = (plane_idx + offsets).numpy()
    graph = helper.make_graph([helper.make_node("MaxUnpool", ["p", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
                              "g", [helper.make_tensor_value_info("p", TensorProto.FLOAT, list(pooled.shape)),
                                    helper.make_tensor_value_info("i", TensorProto.INT64, list(idx.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), path)
    got = wnn.onnx.load(path, device=device).run({"p": pooled.numpy(), "i": idx})["y"]
    np.testing.assert_array_equal(got, torch.nn.functional.max_unpool2d(pooled, plane_idx, 2, 2).numpy())


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("time_axis", [0, 1])
def test_reverse_sequence(tmp_path, device, time_axis):
    rng = np.random.default_rng(15)
    x = rng.standard_normal((6, 4, 3) if time_axis == 0 else (4, 6, 3)).astype(np.float32)
    lens = np.array([1, 6, 3, 4], np.int64)
    node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], time_axis=time_axis, batch_axis=1 - time_axis)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape)),
                                            helper.make_tensor_value_info("lens", TensorProto.INT64, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": x, "lens": lens})["y"]
    want = np.moveaxis(x, time_axis, 0).copy()
    for b, n in enumerate(lens):
        want[:n, b] = want[:n, b][::-1]
    np.testing.assert_array_equal(got, np.moveaxis(want, 0, time_axis))


UFUNC = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def scatter_model(tmp_path, op, x, idx, upd, **attrs):
    node = helper.make_node(op, ["x", "i", "u"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape)),
                                            helper.make_tensor_value_info("i", TensorProto.INT64, list(idx.shape)),
                                            helper.make_tensor_value_info("u", TensorProto.FLOAT, list(upd.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_elements_reductions(tmp_path, device, reduction):
    rng = np.random.default_rng(16)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    idx = rng.integers(-4, 4, (3, 5)).astype(np.int64)  # duplicates and negative indices along axis 0
    upd = rng.standard_normal((3, 5)).astype(np.float32)
    path = scatter_model(tmp_path, "ScatterElements", x, idx, upd, axis=0, reduction=reduction)
    got = wnn.onnx.load(path, device=device).run({"x": x, "i": idx, "u": upd})["y"]
    want = x.copy()
    cols = np.broadcast_to(np.arange(5), idx.shape)
    UFUNC[reduction].at(want, (np.where(idx < 0, idx + 4, idx), cols), upd)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_nd_reductions(tmp_path, device, reduction):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((4, 3, 2)).astype(np.float32)
    idx = np.array([[0, 1], [3, 2], [0, 1], [-1, -1], [2, 0]], np.int64)  # a duplicate, and (3, 2) again as (-1, -1)
    upd = rng.standard_normal((5, 2)).astype(np.float32)
    path = scatter_model(tmp_path, "ScatterND", x, idx, upd, reduction=reduction)
    got = wnn.onnx.load(path, device=device).run({"x": x, "i": idx, "u": upd})["y"]
    want = x.copy()
    UFUNC[reduction].at(want, (idx[:, 0] % 4, idx[:, 1] % 3), upd)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")
@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("kernel,stride,pad,dilation,ceil", [(2, 2, 0, 1, 0), (3, 2, 1, 1, 1), (3, 1, 1, 2, 0)])
def test_max_pool_indices(tmp_path, device, kernel, stride, pad, dilation, ceil):
    x = torch.from_numpy(np.random.default_rng(18).standard_normal((2, 3, 9, 10)).astype(np.float32))
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[kernel] * 2, strides=[stride] * 2,
                            pads=[pad] * 4, dilations=[dilation] * 2, ceil_mode=ceil)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("i", TensorProto.INT64, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]), path)
    out = wnn.onnx.load(path, device=device).run({"x": x.numpy()})
    y, plane_idx = torch.nn.functional.max_pool2d(x, kernel, stride, pad, dilation, bool(ceil), return_indices=True)
    offsets = (torch.arange(2 * 3) * 9 * 10).reshape(2, 3, 1, 1)  # ONNX's indices run over the whole tensor
    np.testing.assert_array_equal(out["y"], y.numpy())
    np.testing.assert_array_equal(out["i"], (plane_idx + offsets).numpy())


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("dim", [1, 2, 3, 5])
def test_det(tmp_path, device, dim):
    rng = np.random.default_rng(19)
    x = rng.standard_normal((2, 3, dim, dim)).astype(np.float32)
    x[0, 0] = np.eye(dim)[::-1]  # needs row swaps: sign -1 or 1
    if dim > 1:
        x[0, 1, 1] = x[0, 1, 0]  # singular
        x[1, 0, :, 0] = 0  # a zero first column
    graph = helper.make_graph([helper.make_node("Det", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": x})["y"]
    np.testing.assert_allclose(got, np.linalg.det(x.astype(np.float64)), rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed; apt-get install python3-torch")
@pytest.mark.parametrize("device", ["cpu", "null"])
def test_batch_norm_training(tmp_path, device):
    rng = np.random.default_rng(20)
    x = rng.standard_normal((4, 3, 5, 6)).astype(np.float32) * 3 + 1
    scale, bias = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    mean, var = rng.standard_normal(3).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], training_mode=1,
                            momentum=0.8, epsilon=1e-4)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "rm", "rv")],
                              [helper.make_tensor(k, TensorProto.FLOAT, [3], v)
                               for k, v in (("s", scale), ("b", bias), ("m", mean), ("v", var))])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)]), path)
    out = wnn.onnx.load(path, device=device).run({"x": x})
    xt = torch.from_numpy(x)
    y = torch.nn.functional.batch_norm(xt, None, None, torch.from_numpy(scale), torch.from_numpy(bias), True, 0.0, 1e-4)
    np.testing.assert_allclose(out["y"], y.numpy(), rtol=1e-4, atol=1e-5)
    batch_mean, batch_var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))  # ONNX keeps the biased variance
    np.testing.assert_allclose(out["rm"], mean * 0.8 + batch_mean * 0.2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["rv"], var * 0.8 + batch_var * 0.2, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
def test_tfidf_vectorizer(tmp_path, device, mode):
    x = np.array([[1, 2, 3, 2, 3, 4, 2, 3, 1, 2], [4, 4, 2, 3, 3, 2, 1, 2, 3, 5]], np.int32)
    pool = [2, 3, 5, 4, 2, 3, 3, 4, 1, 2, 2, 4]  # 1-grams 2 3 5 4, 2-grams (2,3) (3,4) (1,2) (2,4)
    indexes, weights = [7, 0, 1, 2, 3, 4, 6, 5], [0.5, 1, 2, 3, 4, 5, 6, 7]
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode=mode, min_gram_length=1, max_gram_length=2,
                            max_skip_count=2, ngram_counts=[0, 4], ngram_indexes=indexes, pool_int64s=pool,
                            weights=weights)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.INT32, list(x.shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)]), path)
    got = wnn.onnx.load(path, device=device).run({"x": x})["y"]
    grams = [(2,), (3,), (5,), (4,), (2, 3), (3, 4), (1, 2), (2, 4)]
    want = np.zeros((2, 8), np.float32)
    for row in range(2):
        for j, gram in enumerate(grams):
            skips = [0] if len(gram) == 1 else [0, 1, 2]
            count = sum(tuple(x[row, i + k * (s + 1)] for k in range(len(gram))) == gram
                        for s in skips for i in range(10 - (len(gram) - 1) * (s + 1)))
            value = count if mode == "TF" else (count > 0) * weights[j] if mode == "IDF" else count * weights[j]
            want[row, indexes[j]] = value
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_lstm_peepholes(tmp_path, device, direction):
    rng = np.random.default_rng(23)
    steps, batch, inp, hid = 5, 2, 3, 4
    dirs = 2 if direction == "bidirectional" else 1
    x = rng.standard_normal((steps, batch, inp)).astype(np.float32)
    w = rng.standard_normal((dirs, 4 * hid, inp)).astype(np.float32) * 0.5
    r = rng.standard_normal((dirs, 4 * hid, hid)).astype(np.float32) * 0.5
    bias = rng.standard_normal((dirs, 8 * hid)).astype(np.float32) * 0.1
    h0 = rng.standard_normal((dirs, batch, hid)).astype(np.float32)
    c0 = rng.standard_normal((dirs, batch, hid)).astype(np.float32)
    peep = rng.standard_normal((dirs, 3 * hid)).astype(np.float32)
    node = helper.make_node("LSTM", ["x", "w", "r", "b", "", "h0", "c0", "p"], ["y", "yh", "yc"], hidden_size=hid,
                            direction=direction)
    inits = [numpy_helper.from_array(v, k) for k, v in (("w", w), ("r", r), ("b", bias), ("h0", h0), ("c0", c0),
                                                        ("p", peep))]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "yh", "yc")],
                              inits)
    path = str(tmp_path / "model.onnx")
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)
    out = wnn.onnx.load(path, device=device).run({"x": x})

    def sigmoid(v):
        return 1 / (1 + np.exp(-v))
    y = np.zeros((steps, dirs, batch, hid))
    yh, yc = np.zeros((dirs, batch, hid)), np.zeros((dirs, batch, hid))
    for d in range(dirs):
        h, c = h0[d].astype(np.float64), c0[d].astype(np.float64)
        pi, po, pf = np.split(peep[d], 3)
        order = range(steps - 1, -1, -1) if direction == "reverse" or d == 1 else range(steps)
        for t in order:
            g = x[t] @ w[d].T + h @ r[d].T + bias[d, :4 * hid] + bias[d, 4 * hid:]
            gi, go, gf, gc = np.split(g, 4, axis=1)
            i, f = sigmoid(gi + pi * c), sigmoid(gf + pf * c)
            c = f * c + i * np.tanh(gc)
            h = sigmoid(go + po * c) * np.tanh(c)
            y[t, d] = h
        yh[d], yc[d] = h, c
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["yh"], yh, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["yc"], yc, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_gradient(tmp_path, device):
    """y = a * b + a / b - neg(a) with b broadcast along a's rows, differentiated
    with respect to a and b (the gradient of the sum of y)."""
    nodes = [helper.make_node("Mul", ["a", "b"], ["m"]), helper.make_node("Div", ["a", "b"], ["q"]),
             helper.make_node("Neg", ["a"], ["n"]), helper.make_node("Add", ["m", "q"], ["s"]),
             helper.make_node("Sub", ["s", "n"], ["y"]),
             helper.make_node("Gradient", ["a", "b"], ["da", "db"], domain="ai.onnx.preview.training",
                              xs=["a", "b"], y="y")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in ("y", "da", "db")])
    path = str(tmp_path / "model.onnx")
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("ai.onnx.preview.training", 1)])
    onnx.save(model, path)
    a = np.array([[1, 2, 3], [-4, 5, 0.5]], np.float32)
    b = np.array([2, -1, 4], np.float32)
    out = wnn.onnx.load(path, device=device).run({"a": a, "b": b})
    np.testing.assert_allclose(out["da"], np.broadcast_to(b + 1 / b + 1, a.shape), rtol=1e-6)
    np.testing.assert_allclose(out["db"], (a - a / (b * b)).sum(axis=0), rtol=1e-6)
