#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_models.py -- model latency on wnn's cpu device beside ONNX Runtime.

    python3 bench/bench_models.py [--threads N] [--repeat N] [--models a,b] [--large] [--peer node|python]

Times each model of tests/models (the torchvision architectures, the small
ViT and the BERT-style encoder exported with fixed-seed weights; the npm
models PP-OCRv4, Silero VAD and openWakeWord) on wnn's cpu device and on
onnxruntime-node's CPU execution provider, with the same number of threads,
in one run, on the same inputs, and prints one table: the median of N runs
after 5 warm-up runs, each a whole run with host inputs and outputs
(wnn.onnx.Model.run; InferenceSession.run), and the ratio ORT / wnn (above 1:
wnn is faster). Models wnn cannot load are listed with the reason.

Needs the wnn module with wnn.onnx (make test-python builds it in place, or
pip install ./python), python3-torch and python3-torchvision, and the npm
peers (tests/models/install-npm-peers.sh). WNN_MODEL_CACHE=DIR keeps the
exported models (default: /tmp/wnn-model-cache).

--peer python times ONNX Runtime's Python package (onnxruntime, its CPU
execution provider, intra-op threads = --threads, the same median of N runs)
instead of onnxruntime-node, for machines with that package and no Node
(the GPU machine's host); the npm models are then left out unless their
files are installed.
"""
import argparse
import glob
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if glob.glob(os.path.join(ROOT, "python", "wnn", "_wnn*.so")):
    sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))

import numpy as np  # noqa: E402

import npm_models  # noqa: E402
import torch_models  # noqa: E402
import wnn  # noqa: E402


def time_wnn(model, feeds, repeat):
    for _ in range(5):
        model.run(feeds)
    ms = []
    for _ in range(repeat):
        t = time.perf_counter()
        model.run(feeds)
        ms.append((time.perf_counter() - t) * 1e3)
    return float(np.median(ms))


def time_ort_python(path, feeds, threads, repeat):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    feeds = {k: v for k, v in feeds.items() if k in names}
    for _ in range(5):
        sess.run(None, feeds)
    ms = []
    for _ in range(repeat):
        t = time.perf_counter()
        sess.run(None, feeds)
        ms.append((time.perf_counter() - t) * 1e3)
    return float(np.median(ms)), ort.__version__


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for both (default: all cores)")
    ap.add_argument("--repeat", type=int, default=20, help="timed runs per model (default 20)")
    ap.add_argument("--models", default="", help="comma-separated names (default: all)")
    ap.add_argument("--large", action="store_true", help="include ResNet-50 and ViT-B/16")
    ap.add_argument("--peer", choices=["node", "python"], default="node",
                    help="ONNX Runtime from npm (onnxruntime-node, default) or its Python package")
    args = ap.parse_args()
    if not wnn.onnx.onnx_available:
        sys.exit("bench_models: this wnn module has no ONNX importer")
    why = npm_models.missing()
    if why and args.peer == "node":
        sys.exit("bench_models: " + why)
    wnn.set_num_threads(args.threads)
    cache = os.environ.get("WNN_MODEL_CACHE", os.path.join(tempfile.gettempdir(), "wnn-model-cache"))
    wanted = set(filter(None, args.models.split(",")))

    rows = []
    names = [("torch", n) for n, s in torch_models.MODELS.items() if args.large or not s.large]
    if not why:
        names += [("npm", n) for n in npm_models.MODELS]
    peer = "onnxruntime-node"
    if args.peer == "python":
        import onnxruntime
        peer = f"onnxruntime {onnxruntime.__version__} (Python)"
    print(f"wnn {wnn.library_version} cpu vs {peer}, {args.threads} threads, median of {args.repeat} "
          f"runs; {cpu_name()}, {os.cpu_count()} cores", flush=True)
    for kind, name in names:
        if wanted and name not in wanted:
            continue
        constants = {}
        if kind == "torch":
            path, inputs, _ = torch_models.export(name, cache)
            shapes = {"batch": 1}
        else:
            path, inputs = npm_models.path_of(name), npm_models.inputs_of(name)
            constants = npm_models.constants_of(name)
            shapes = {k: v.shape for k, v in inputs.items() if k not in constants}
        try:
            model = wnn.onnx.load(path, device="cpu", shapes=shapes, constants=constants)
        except wnn.Error as e:
            rows.append((name, None, None, str(e)))
            print(f"  {name}: not loaded: {e}", flush=True)
            continue
        feeds = {i.name: inputs[i.name] for i in model.inputs}
        wnn_ms = time_wnn(model, feeds, args.repeat)
        del model
        if args.peer == "python":
            ort_ms, _ = time_ort_python(path, inputs, args.threads, args.repeat)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                _, t = npm_models.run_ort(path, inputs, tmp, threads=args.threads, repeat=args.repeat)
            ort_ms = t["ms_p50"]
        rows.append((name, wnn_ms, ort_ms, ""))
        print(f"  {name}: wnn {wnn_ms:.2f} ms, ORT {ort_ms:.2f} ms", flush=True)

    print()
    print(f"| model | wnn ms | ORT ms | ORT/wnn |")
    print(f"|---|---:|---:|---:|")
    for name, w, o, why in rows:
        if w is None:
            print(f"| {name} | - | - | not loaded: {why} |")
        else:
            print(f"| {name} | {w:.2f} | {o:.2f} | {o / w:.2f} |")
    ratios = [o / w for _, w, o, _ in rows if w]
    if ratios:
        print(f"\ngeometric mean ORT/wnn: {float(np.exp(np.mean(np.log(ratios)))):.2f} over {len(ratios)} models")


if __name__ == "__main__":
    main()
