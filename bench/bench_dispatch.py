#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a dispatch costs on the cpu device, against PyTorch, by thread count.

    /usr/bin/python3 bench/bench_dispatch.py [--threads 1,4,16]

For each thread count, five small-to-mid operators (relu of 2^16 and 2^20
floats, reduceSum [1024,1024] over the last axis, layerNormalization
[2048,1024], softmax [1024,1024]) are timed as wnn's dispatch + finish from
Python and as PyTorch's call, each side in a process of its own (two OpenMP
teams in one process slow each other, docs/backends.md), median
microseconds of 7 measurements. The relu of 2^16 floats computes almost
nothing: its time is the cost of a dispatch that the caller waits for.
docs/backends.md ("What a dispatch costs") has a table of it.
"""
import argparse
import os
import subprocess
import sys
import time

CASES = [("relu [65536]", (65536,)), ("relu [2^20]", (1 << 20,)), ("reduceSum [1024,1024]", (1024, 1024)),
         ("layerNorm [2048,1024]", (2048, 1024)), ("softmax [1024,1024]", (1024, 1024))]


def median_us(fn, reps=7, min_time=0.05):
    fn()
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        t = time.perf_counter() - t0
        if t > min_time / 4:
            break
        iters *= 4
    iters = max(1, int(iters * min_time / t))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        times.append((time.perf_counter() - t0) / iters * 1e6)
    return sorted(times)[reps // 2]


def side(name, threads):
    """One side's times, in this process (the child)."""
    import numpy as np
    rng = np.random.default_rng(1)
    out = []
    if name == "torch":
        import torch
        import torch.nn.functional as F
        torch.set_num_threads(threads)
        for title, shape in CASES:
            x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
            w, b = torch.ones(shape[-1]), torch.zeros(shape[-1])
            op = title.split()[0]
            fn = {"relu": lambda: torch.relu(x), "reduceSum": lambda: x.sum(dim=-1),
                  "layerNorm": lambda: F.layer_norm(x, (shape[-1],), w, b),
                  "softmax": lambda: torch.softmax(x, dim=-1)}[op]
            with torch.no_grad():
                out.append(median_us(fn))
    else:
        import wnn
        ctx = wnn.Context("cpu")
        for title, shape in CASES:
            b = wnn.GraphBuilder(ctx)
            x = b.input("x", shape, "float32")
            op = title.split()[0]
            if op == "relu":
                y = b.relu(x)
            elif op == "reduceSum":
                y = b.reduceSum(x, axes=[len(shape) - 1])
            elif op == "layerNorm":
                y = b.layerNormalization(x, scale=b.constant(np.ones(shape[-1], np.float32)),
                                         bias=b.constant(np.zeros(shape[-1], np.float32)), axes=[1])
            else:
                y = b.softmax(x, 1)
            g = b.build({"y": y})
            xt = ctx.tensor(shape, "float32", writable=True)
            ctx.write(xt, rng.standard_normal(shape).astype(np.float32))
            yt = ctx.tensor(tuple(y.shape), "float32", readable=True)

            def run():
                ctx.dispatch(g, {"x": xt}, {"y": yt})
                ctx.finish()
            out.append(median_us(run))
    print(" ".join("%.1f" % v for v in out))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", default="1,4,%d" % len(os.sched_getaffinity(0)))
    p.add_argument("--side", help=argparse.SUPPRESS)
    p.add_argument("--wnn-path", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                                      "python"))
    a = p.parse_args()
    if a.side:
        sys.path.insert(0, a.wnn_path)
        side(a.side, int(a.threads))
        return
    print("cpu dispatch + finish (wnn) and PyTorch's call, median us, each side in its own process")
    print("| threads | " + " | ".join(t for t, _ in CASES) + " |")
    print("|---|" + "---|" * len(CASES))
    for n in [int(t) for t in a.threads.split(",")]:
        env = dict(os.environ, WNN_NUM_THREADS=str(n), OMP_NUM_THREADS=str(n))
        got = {}
        for s in ("wnn", "torch"):
            r = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", s, "--threads", str(n),
                                "--wnn-path", a.wnn_path], env=env, stdout=subprocess.PIPE, text=True, check=True)
            got[s] = r.stdout.split()
        print("| %d | " % n + " | ".join("%s / %s" % (w, t) for w, t in zip(got["wnn"], got["torch"])) + " |",
              flush=True)


if __name__ == "__main__":
    main()
