# SPDX-License-Identifier: Apache-2.0
"""Large element-wise operators on the cpu device against the machine's
memcpy bandwidth (issue 14: at least 70 % of it), with PyTorch beside them.

    /usr/bin/python3 bench/bench_bandwidth.py [--threads N] [--mib M] [--reps R]

The machine's memcpy bandwidth is the best of three copies of an M MiB
float32 buffer into another: glibc's memcpy through NumPy on one thread and
on N threads (a slice each, NumPy lets go of the GIL while it copies), and
PyTorch's Tensor.copy_ on N threads. A copy moves 2 M MiB (read and write).

Each operator runs on device tensors of M MiB of float32 per operand (the
float16 cast's result is half that; the int32 cast's, float32 -> int32, as
much), dispatch and finish timed from Python,
the median of R measurements; its bytes are those it must read and write
(relu: 2 M, add: 3 M, cast to float16: 1.5 M), and its bandwidth is bytes
over time. The table prints wnn's and PyTorch's bandwidth (PyTorch timed in
a child process of its own, the same thread count, `out=` tensors, so that
neither side allocates) and wnn's share of the memcpy bandwidth.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OPS = ["relu", "add", "mul 1.5", "clamp [0,6]", "neg", "exp", "sigmoid", "cast f16", "cast i32"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--mib", type=int, default=128, help="MiB per float32 operand (default 128)")
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--side", default="", help=argparse.SUPPRESS)
    return p.parse_args()


ARGS = parse_args()
os.environ["WNN_NUM_THREADS"] = str(ARGS.threads)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)
import numpy as np  # noqa: E402

N = ARGS.mib * (1 << 20) // 4


def bytes_moved(op):
    if op == "add":
        return 3 * 4 * N
    if op == "cast f16":
        return 4 * N + 2 * N
    return 2 * 4 * N


def median_s(fn):
    fn()
    times = []
    for _ in range(ARGS.reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def torch_side():
    import torch
    torch.set_num_threads(ARGS.threads)
    x, y = torch.rand(N) - 0.5, torch.rand(N)
    out, half, i32 = torch.empty(N), torch.empty(N, dtype=torch.float16), torch.empty(N, dtype=torch.int32)
    with torch.no_grad():
        fns = {"relu": lambda: torch.clamp(x, min=0, out=out),  # torch.relu has no out=
               "add": lambda: torch.add(x, y, out=out), "mul 1.5": lambda: torch.mul(x, 1.5, out=out),
               "clamp [0,6]": lambda: torch.clamp(x, 0, 6, out=out), "neg": lambda: torch.neg(x, out=out),
               "exp": lambda: torch.exp(x, out=out), "sigmoid": lambda: torch.sigmoid(x, out=out),
               "cast f16": lambda: half.copy_(x), "cast i32": lambda: i32.copy_(x)}
        result = {op: median_s(fn) for op, fn in fns.items()}
        result["copy"] = median_s(lambda: out.copy_(x))
    print(json.dumps(result))


def wnn_side():
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    import wnn
    ctx = wnn.Context("cpu")
    rng = np.random.default_rng(0)
    host = {"x": (rng.random(N, dtype=np.float32) - 0.5), "y": rng.random(N, dtype=np.float32)}
    tensors = {}
    for name, data in host.items():
        tensors[name] = ctx.tensor((N,), "float32", writable=True)
        ctx.write(tensors[name], data)
    result = {}
    for op in OPS:
        b = wnn.GraphBuilder(ctx)
        x = b.input("x", (N,), "float32")
        feeds = {"x": tensors["x"]}
        if op == "add":
            y = b.add(x, b.input("y", (N,), "float32"))
            feeds["y"] = tensors["y"]
        elif op == "mul 1.5":
            y = b.mul(x, b.constant(np.array(1.5, np.float32)))
        elif op == "clamp [0,6]":
            y = b.clamp(x, min_value=0.0, max_value=6.0)
        elif op == "cast f16":
            y = b.cast(x, "float16")
        elif op == "cast i32":
            y = b.cast(x, "int32")
        else:
            y = getattr(b, op)(x)
        g = b.build({"y": y})
        out = ctx.tensor((N,), {"cast f16": "float16", "cast i32": "int32"}.get(op, "float32"), readable=True)

        def run():
            ctx.dispatch(g, feeds, {"y": out})
            ctx.finish()
        result[op] = median_s(run)
    return result


def main():
    if ARGS.side == "torch":
        torch_side()
        return
    src, dst = np.random.default_rng(1).random(N, dtype=np.float32), np.empty(N, np.float32)
    numpy_copy = median_s(lambda: np.copyto(dst, src))
    from concurrent.futures import ThreadPoolExecutor
    cuts = [N * i // ARGS.threads for i in range(ARGS.threads + 1)]
    with ThreadPoolExecutor(ARGS.threads) as pool:
        def threaded():
            list(pool.map(lambda i: np.copyto(dst[cuts[i]:cuts[i + 1]], src[cuts[i]:cuts[i + 1]]),
                          range(ARGS.threads)))
        numpy_threads = median_s(threaded)
    child = subprocess.run([sys.executable, os.path.abspath(__file__), "--side", "torch", "--threads",
                            str(ARGS.threads), "--mib", str(ARGS.mib), "--reps", str(ARGS.reps)],
                           capture_output=True, text=True)
    torch_times = json.loads(child.stdout) if child.returncode == 0 else {}
    if child.returncode != 0:
        print(f"PyTorch side failed: {child.stderr.strip().splitlines()[-1:]}")
    wnn_times = wnn_side()
    gbs = lambda moved, s: moved / s / 1e9  # noqa: E731
    copies = {"numpy memcpy (1 thread)": gbs(8 * N, numpy_copy),
              f"numpy memcpy ({ARGS.threads} threads)": gbs(8 * N, numpy_threads)}
    if "copy" in torch_times:
        copies[f"torch copy_ ({ARGS.threads} threads)"] = gbs(8 * N, torch_times["copy"])
    best = max(copies.values())
    print(f"wnn cpu, {ARGS.threads} threads, {ARGS.mib} MiB per float32 operand, median of {ARGS.reps}; "
          f"{os.cpu_count()} cores")
    for name, v in copies.items():
        print(f"memcpy bandwidth, {name}: {v:.1f} GB/s")
    print(f"{'operator':<14} {'MiB moved':>9} {'wnn ms':>8} {'wnn GB/s':>9} {'torch GB/s':>10} {'wnn/memcpy':>10}")
    for op in OPS:
        moved = bytes_moved(op)
        w = gbs(moved, wnn_times[op])
        t = f"{gbs(moved, torch_times[op]):10.1f}" if op in torch_times else f"{'-':>10}"
        print(f"{op:<14} {moved / (1 << 20):9.0f} {wnn_times[op] * 1e3:8.2f} {w:9.1f} {t} {100 * w / best:9.0f}%")


if __name__ == "__main__":
    main()
