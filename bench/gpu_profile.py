#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gpu_profile.py -- where one model's GPU time goes, in wnn and in PyTorch.

    python3 bench/gpu_profile.py MODEL [--half] [--batch N] [--runs N] [--top N]

Runs the model of tests/models/torch_models.py (as bench_models_gpu.py
exports it) on wnn's cuda device and in PyTorch eager, each N times after a
warm-up, under torch.profiler, and prints for each side the kernels grouped
by name: calls per inference, device microseconds per inference, and the
share of the side's total. The totals line says how many kernels one
inference launches and how long they keep the GPU busy, the figure that
the wall-clock ratio of bench_models_gpu.py cannot split into launch gaps
and kernel time. Needs what bench_models_gpu.py needs.
"""
import argparse
import collections
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bench_models_gpu  # noqa: E402  (sets up the paths, TF32 off)
import torch  # noqa: E402
import torch_models  # noqa: E402
import wnn  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402


def kernels(fn, runs):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    table = collections.defaultdict(lambda: [0, 0.0])
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA and e.device_time_total > 0:
            row = table[e.name[:90]]
            row[0] += 1
            row[1] += e.device_time_total
    return {k: (c / runs, us / runs) for k, (c, us) in table.items()}


def show(title, table, top):
    total = sum(us for _, us in table.values())
    count = sum(c for c, _ in table.values())
    print(f"\n{title}: {count:.0f} kernels, {total:.1f} us of device time per inference")
    print("| kernel | calls | us | share |")
    print("|---|---:|---:|---:|")
    for name, (c, us) in sorted(table.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"| {name} | {c:.0f} | {us:.1f} | {100 * us / max(total, 1e-9):.0f}% |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--half", action="store_true")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    cache = os.environ.get("WNN_MODEL_CACHE", os.path.join(tempfile.gettempdir(), "wnn-model-cache"))
    path, _, _ = torch_models.export(args.model, cache, half=args.half, device="cuda")
    model, x = torch_models.build(args.model)
    model = model.cuda()
    x = x.cuda().repeat(args.batch, *[1] * (x.dim() - 1))
    if args.half:
        model = model.half()
        x = x if x.dtype == torch.int64 else x.half()
    m = wnn.onnx.load(path, device="cuda", shapes={"batch": args.batch})
    feeds = {"input": x}
    label = f"{args.model}{' fp16' if args.half else ''} b{args.batch}"
    with torch.inference_mode():
        show(f"{label}, PyTorch eager", kernels(lambda: model(x), args.runs), args.top)
    show(f"{label}, wnn cuda", kernels(lambda: (m.run(feeds, return_tensors=True), m.context.finish()), args.runs),
         args.top)


if __name__ == "__main__":
    main()
