#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_models_gpu.py -- model latency on wnn's cuda device beside PyTorch.

    python3 bench/bench_models_gpu.py [--repeat N] [--models a,b] [--large] [--no-half] [--batches 1,32]

For the PyTorch models of tests/models/torch_models.py (the torchvision
architectures, the small ViT, the BERT-style encoder; --large adds
ResNet-50 and ViT-B/16), in float32 and float16, at each batch size
(--batches, default 1 and 32: the model's free batch dimension, the input
repeated), one table:

  wnn       wnn.onnx on the cuda device, inputs and outputs as device tensors
            (a torch CUDA tensor in through DLPack, return_tensors=True), each
            run followed by Context.finish(): the latency of one inference;
  eager     PyTorch eager on the same GPU, each run followed by synchronize;
  graph     PyTorch with the forward captured once in a CUDA graph and
            replayed (torch.cuda.CUDAGraph), synchronized the same way;

each the median of N runs after 10 warm-up runs, in ms, and the ratios
eager/wnn and graph/wnn (above 1: wnn is faster). The wnn outputs are
checked against PyTorch's on the same batch (max relative error in the
table).

Self-contained for a GPU machine with PyTorch (2.x) and wnn's Python module
built with the cuda backend (pip install ./python); no npm. WNN_MODEL_CACHE=DIR
keeps the exported models (default: /tmp/wnn-model-cache).
"""
import argparse
import glob
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if glob.glob(os.path.join(ROOT, "python", "wnn", "_wnn*.so")):
    sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import torch_models  # noqa: E402
import wnn  # noqa: E402

# float32 is float32 on both sides: PyTorch's cuDNN convolutions default to
# TF32 (10-bit mantissas), which would make them faster and the reference looser
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False


def median_ms(fn, sync, repeat):
    for _ in range(10):
        fn()
    sync()
    ms = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        ms.append((time.perf_counter() - t) * 1e3)
    return float(np.median(ms))


def bench_torch(model, x, repeat):
    with torch.inference_mode():
        eager = median_ms(lambda: model(x), torch.cuda.synchronize, repeat)
        static_x = x.clone()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up on a side stream, as capture requires
            for _ in range(3):
                model(static_x)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            model(static_x)
        graph = median_ms(g.replay, torch.cuda.synchronize, repeat)
    return eager, graph


def bench_one(name, half, batch, cache, repeat):
    path, _, _ = torch_models.export(name, cache, half=half, device="cuda")
    model, x = torch_models.build(name)
    model = model.cuda()
    x = x.cuda().repeat(batch, *[1] * (x.dim() - 1))
    if half:
        model = model.half()
        x = x if x.dtype == torch.int64 else x.half()
    with torch.inference_mode():
        ref = model(x)
    want = [t.float().cpu().numpy().astype(np.float64) for t in (ref if isinstance(ref, (tuple, list)) else [ref])]
    eager, graph = bench_torch(model, x, repeat)
    del model
    m = wnn.onnx.load(path, device="cuda", shapes={"batch": batch})
    feeds = {"input": x}
    out = list(m.run(feeds).values())
    rel = max(float(np.abs(o.astype(np.float64) - w).max() / max(np.abs(w).max(), 1e-30)) for o, w in zip(out, want))
    ctx = m.context
    ms = median_ms(lambda: m.run(feeds, return_tensors=True), ctx.finish, repeat)
    return ms, eager, graph, rel


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--models", default="")
    ap.add_argument("--large", action="store_true")
    ap.add_argument("--no-half", action="store_true", help="float32 only")
    ap.add_argument("--batches", default="1,32", help="comma-separated batch sizes")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench_models_gpu: torch.cuda is not available")
    if not any(d["name"] == "cuda" for d in wnn.devices()):
        sys.exit("bench_models_gpu: wnn has no cuda device (build with the CUDA toolkit)")
    if not wnn.onnx.onnx_available:
        sys.exit("bench_models_gpu: this wnn module has no ONNX importer")
    cache = os.environ.get("WNN_MODEL_CACHE", os.path.join(tempfile.gettempdir(), "wnn-model-cache"))
    wanted = set(filter(None, args.models.split(",")))
    names = [n for n, s in torch_models.MODELS.items() if (args.large or not s.large) and (not wanted or n in wanted)]
    batches = [int(b) for b in args.batches.split(",")]
    print(f"wnn {wnn.library_version} cuda vs PyTorch {torch.__version__} on {torch.cuda.get_device_name()}, "
          f"median of {args.repeat} runs", flush=True)
    rows = []
    for batch, half, name in [(b, h, n) for b in batches for h in ([False] if args.no_half else [False, True])
                          for n in names]:
        label = f"{name}{' fp16' if half else ''} b{batch}"
        try:
            rows.append((label,) + bench_one(name, half, batch, cache, args.repeat))
            print(f"  {label}: wnn {rows[-1][1]:.3f} ms, eager {rows[-1][2]:.3f}, graph {rows[-1][3]:.3f}",
                  flush=True)
        except Exception as e:  # a model or type one side cannot run: say so, go on
            rows.append((label, None, None, None, f"{type(e).__name__}: {e}"))
            print(f"  {label}: {rows[-1][4]}", flush=True)
    print()
    print("| model | wnn ms | eager ms | CUDA graph ms | eager/wnn | graph/wnn | max rel err |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, w, e, g, rel in rows:
        if w is None:
            print(f"| {label} | - | - | - | - | - | {rel} |")
        else:
            print(f"| {label} | {w:.3f} | {e:.3f} | {g:.3f} | {e / w:.2f} | {g / w:.2f} | {rel:.1e} |")


if __name__ == "__main__":
    main()
