#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_models.py -- model latency on wnn's cpu device beside ONNX Runtime.

    python3 bench/bench_models.py [--threads N] [--repeat N] [--blocks K] [--models a,b] [--large] [--peer node|python]

Times each model of tests/models (the torchvision architectures, the small
ViT and the BERT-style encoder exported with fixed-seed weights; the npm
models PP-OCRv4, Silero VAD and openWakeWord) on wnn's cpu device and on
onnxruntime-node's CPU execution provider, with the same number of threads,
in one run, on the same inputs, and prints one table: the median of N runs
after 5 warm-up runs, each a whole run with host inputs and outputs
(wnn.onnx.Model.run; InferenceSession.run), and the ratio ORT / wnn (above 1:
wnn is faster). Models wnn cannot load are listed with the reason.

The two are timed in alternating blocks (--blocks K, default 4: K blocks of
N/K runs each, wnn then ORT, with a pause between), so that both see the
same state of the machine; each model's line and the table's footer give the
host's load average and the share of CPU time stolen from this machine (by
its hypervisor) while it ran: on a shared or oversubscribed host those move,
and with them both figures.

Needs the wnn module with wnn.onnx (make test-python builds it in place, or
pip install ./python), python3-torch and python3-torchvision, and the npm
peers (tests/models/install-npm-peers.sh). WNN_MODEL_CACHE=DIR keeps the
exported models (default: /tmp/wnn-model-cache).

--peer python times ONNX Runtime's Python package (onnxruntime, its CPU
execution provider, intra-op threads = --threads, the same median of N runs)
instead of onnxruntime-node, for machines with that package and no Node
(the GPU machine's host), in a child process of its own (OrtPython says
why); the npm models are then left out unless their files are installed.
"""
import argparse
import glob
import os
import platform
import subprocess
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


def export_apart(name, cache):
    """torch_models.export in a child process: (path, inputs). PyTorch's
    forward pass there would leave its OpenMP team in this process, and with
    two teams in one libgomp (PyTorch's on this thread, wnn's on its master)
    libgomp counts more threads than cores and stops spinning between
    regions, so wnn would run 2-3 times slower than alone (docs/backends.md,
    "Threads on the cpu device"); ONNX Runtime's own pool would not notice."""
    feeds = os.path.join(cache, f"{name}.inputs.{os.getpid()}.npz")
    code = ("import sys, numpy as np; sys.path.insert(0, sys.argv[1]); import torch_models; "
            "path, x, _ = torch_models.export(sys.argv[2], sys.argv[3]); np.savez(sys.argv[4], **x); print(path)")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "tests", "models"), name, cache, feeds],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    with np.load(feeds) as z:
        inputs = {k: z[k] for k in z.files}
    os.remove(feeds)
    return out.strip().splitlines()[-1], inputs


def timed(run, n):
    """n runs of run(), each timed alone, in ms."""
    ms = []
    for _ in range(n):
        t = time.perf_counter()
        run()
        ms.append((time.perf_counter() - t) * 1e3)
    return ms


class OrtPython:
    """ONNX Runtime's Python package: one session in a child process, timed
    in blocks on request. In one process its intra-op pool and wnn's OpenMP
    team shared it: vit_small took 9.45 ms a run there on the GPU machine's
    16-core host against 0.85 ms from `wnn bench` alone (the cause was not
    pinned down); apart, each sees the machine as it would alone, like
    onnxruntime-node's process per block."""

    def __init__(self, path, feeds, threads):
        self.tmp = tempfile.TemporaryDirectory()
        npz = os.path.join(self.tmp.name, "feeds.npz")
        np.savez(npz, **feeds)
        self.child = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--ort-child", path, npz,
                                       str(threads)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ask(0)  # loaded and warmed up

    def ask(self, n):
        self.child.stdin.write(f"{n}\n")
        self.child.stdin.flush()
        line = self.child.stdout.readline()
        if not line:
            raise RuntimeError("bench_models: the ONNX Runtime child process ended")
        return [float(t) for t in line.split()]

    def block(self, n):
        return self.ask(n)

    def __del__(self):
        if getattr(self, "child", None) and self.child.poll() is None:
            self.child.stdin.close()
            self.child.wait()


def ort_child(path, npz, threads):
    """The child of OrtPython: load, warm up, then time a block of n runs
    for each n read from stdin, printing the times on one line."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    with np.load(npz) as z:
        feeds = {k: z[k] for k in z.files if k in names}
    timed(lambda: sess.run(None, feeds), 5)
    for line in sys.stdin:
        print(" ".join(f"{t:.6f}" for t in timed(lambda: sess.run(None, feeds), int(line))), flush=True)


class OrtNode:
    """onnxruntime-node: one process per block (5 warm-up runs each)."""

    def __init__(self, path, feeds, threads):
        self.path, self.feeds, self.threads = path, feeds, threads

    def block(self, n):
        with tempfile.TemporaryDirectory() as tmp:
            _, t = npm_models.run_ort(self.path, self.feeds, tmp, threads=self.threads, repeat=n)
        return t["ms"]


def host_state():
    """(1-minute load average, stolen and total CPU ticks since boot) of this
    machine, from /proc; (None, 0, 0) where it has none."""
    try:
        load = os.getloadavg()[0]
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return load, (v[7] if len(v) > 7 else 0), sum(v)
    except (OSError, ValueError):
        return None, 0, 0


def stolen(a, b):
    """Share of CPU time stolen between two host_state() readings, in %."""
    return 100.0 * (b[1] - a[1]) / (b[2] - a[2]) if b[2] > a[2] else 0.0


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
    if len(sys.argv) == 5 and sys.argv[1] == "--ort-child":
        ort_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=0,
                    help="threads for both (default: wnn's default, the CPUs this process may use)")
    ap.add_argument("--repeat", type=int, default=20, help="timed runs per model (default 20)")
    ap.add_argument("--blocks", type=int, default=4, help="alternating blocks per model (default 4)")
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
    args.threads = wnn.get_num_threads()
    blocks = max(1, min(args.blocks, args.repeat))
    peer_of = OrtPython if args.peer == "python" else OrtNode
    cache = os.environ.get("WNN_MODEL_CACHE", os.path.join(tempfile.gettempdir(), "wnn-model-cache"))
    wanted = set(filter(None, args.models.split(",")))

    rows, loads = [], []
    start = host_state()
    names = [("torch", n) for n, s in torch_models.MODELS.items() if args.large or not s.large]
    if not why:
        names += [("npm", n) for n in npm_models.MODELS]
    peer = "onnxruntime-node"
    if args.peer == "python":
        import onnxruntime
        peer = f"onnxruntime {onnxruntime.__version__} (Python)"
    print(f"wnn {wnn.library_version} cpu vs {peer}, {args.threads} threads, median of {args.repeat} "
          f"runs in {blocks} alternating blocks; {cpu_name()}, {os.cpu_count()} cores",
          flush=True)
    for kind, name in names:
        if wanted and name not in wanted:
            continue
        constants = {}
        if kind == "torch":
            path, inputs = export_apart(name, cache)
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
        before = host_state()
        timed(lambda: model.run(feeds), 5)
        ort_peer = peer_of(path, inputs, args.threads)
        wnn_runs, ort_runs = [], []
        for b in range(blocks):
            n = args.repeat // blocks + (1 if b < args.repeat % blocks else 0)
            wnn_runs += timed(lambda: model.run(feeds), n)
            time.sleep(0.05)  # both pools' spinning threads go idle before the other runs
            ort_runs += ort_peer.block(n)
            time.sleep(0.05)
        after = host_state()
        del model, ort_peer
        wnn_ms, ort_ms = float(np.median(wnn_runs)), float(np.median(ort_runs))
        rows.append((name, wnn_ms, ort_ms, ""))
        loads.append(after[0])
        print(f"  {name}: wnn {wnn_ms:.2f} ms, ORT {ort_ms:.2f} ms (load {after[0]:.1f}, "
              f"{stolen(before, after):.1f}% stolen)", flush=True)

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
    if start[0] is not None:
        end = host_state()
        print(f"host: load average {start[0]:.1f} at the start, {min(loads + [end[0]]):.1f}-{max(loads + [end[0]]):.1f} "
              f"during; {stolen(start, end):.1f}% of CPU time stolen ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
