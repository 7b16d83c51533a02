# SPDX-License-Identifier: Apache-2.0
"""torch_models -- the PyTorch models wnn's ONNX importer is checked and timed on.

Architectures from torchvision (random weights from a fixed seed, batch
normalization statistics randomized too so that they matter), a small
vision transformer (torchvision's VisionTransformer class, 4 layers) and a
BERT-style encoder built from torch.nn.TransformerEncoderLayer. Each entry
says how to build the module, its example input, and whether it is large
(run by the tests only with WNN_TEST_LARGE=1).

export(name, folder) writes NAME.onnx (opset 17, a free "batch" dimension)
and returns (path, inputs, expected outputs) with PyTorch's outputs in
eval mode. Used by tests/python/test_models.py and bench/bench_models*.py.
"""
import inspect
import os
from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np


@dataclass
class Spec:
    build: Callable[[], "torch.nn.Module"]  # noqa: F821
    input_shape: Tuple[int, ...]
    large: bool = False
    tokens: int = 0  # > 0: integer token ids below this, not images


def _tv(name, **kw):
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kw)
    return build


def _small_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=96, patch_size=16, num_layers=4, num_heads=4, hidden_dim=192,
                             mlp_dim=768, num_classes=100)


def _encoder():
    import torch

    class Encoder(torch.nn.Module):
        """BERT's shape: token and position embeddings, layer norm, N post-norm
        encoder layers with GELU, a tanh pooler over the first token."""

        def __init__(self, vocab=8000, seq=128, d=256, heads=4, layers=4, ff=1024):
            super().__init__()
            self.tok = torch.nn.Embedding(vocab, d)
            self.pos = torch.nn.Parameter(torch.randn(1, seq, d) * 0.02)
            self.norm = torch.nn.LayerNorm(d)
            layer = torch.nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation="gelu", batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
            self.pool = torch.nn.Linear(d, d)

        def forward(self, ids):
            h = self.encoder(self.norm(self.tok(ids) + self.pos))
            return h, torch.tanh(self.pool(h[:, 0]))

    return Encoder()


MODELS = {
    "resnet18": Spec(_tv("resnet18"), (1, 3, 224, 224)),
    "resnet50": Spec(_tv("resnet50"), (1, 3, 224, 224), large=True),
    "mobilenet_v2": Spec(_tv("mobilenet_v2"), (1, 3, 224, 224)),
    "mobilenet_v3_large": Spec(_tv("mobilenet_v3_large"), (1, 3, 224, 224)),
    "squeezenet1_1": Spec(_tv("squeezenet1_1"), (1, 3, 224, 224)),
    "efficientnet_b0": Spec(_tv("efficientnet_b0"), (1, 3, 224, 224)),
    "shufflenet_v2_x1_0": Spec(_tv("shufflenet_v2_x1_0"), (1, 3, 224, 224)),
    "vit_small": Spec(_small_vit, (1, 3, 96, 96)),
    "vit_b_16": Spec(_tv("vit_b_16"), (1, 3, 224, 224), large=True),
    "bert_encoder": Spec(_encoder, (1, 128), tokens=8000),
}


def _randomize(model, torch):
    """Random batch-norm statistics and affine parameters: with the defaults
    (mean 0, variance 1) normalization would be the identity and go
    unchecked. Weights left at zero (torchvision's ViT head) get random
    values, or the output would be all zeros."""
    g = torch.Generator().manual_seed(1)
    for p in model.parameters():
        if p.dim() >= 2 and not p.any():  # zero-initialized heads (torchvision's ViT)
            p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)


def build(name):
    """The eval-mode module and its example input (fixed seeds)."""
    import torch
    spec = MODELS[name]
    torch.manual_seed(0)
    model = spec.build().eval()
    with torch.no_grad():
        _randomize(model, torch)
    g = torch.Generator().manual_seed(2)
    if spec.tokens:
        x = torch.randint(0, spec.tokens, spec.input_shape, generator=g, dtype=torch.int64)
    else:
        x = torch.randn(spec.input_shape, generator=g)
    return model, x


def export(name, folder, half=False, device="cpu"):
    """Exports the model to folder/NAME.onnx (reused when there) and returns
    (path, {input name: array}, {output name: PyTorch's array}). half: in
    float16 (NAME-fp16.onnx), traced on device."""
    import torch
    model, x = build(name)
    if half:
        model, x = model.half().to(device), x.to(device) if x.dtype == torch.int64 else x.half().to(device)
        name += "-fp16"
    with torch.no_grad():
        want = model(x)
    want = want if isinstance(want, tuple) else (want,)
    outputs = ["output"] if len(want) == 1 else ["output%d" % i for i in range(len(want))]
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".onnx")
    if not os.path.exists(path):
        tmp = path + ".%d.tmp" % os.getpid()
        axes = {"input": {0: "batch"}}
        axes.update({o: {0: "batch"} for o in outputs})
        # with gradients on: eval-mode attention would take PyTorch's fused
        # fast path (_native_multi_head_attention), which has no ONNX export
        # PyTorch 2.9 and later export through dynamo by default: keep the
        # TorchScript exporter, the one PyTorch 1.13 has
        legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
        with torch.enable_grad():
            torch.onnx.export(model, (x,), tmp, input_names=["input"], output_names=outputs, opset_version=17,
                              dynamic_axes=axes, do_constant_folding=True, **legacy)
        os.replace(tmp, path)
    return path, {"input": x.cpu().numpy()}, {o: w.cpu().numpy() for o, w in zip(outputs, want)}
