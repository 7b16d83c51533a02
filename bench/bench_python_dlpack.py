# SPDX-License-Identifier: Apache-2.0
"""What a DLPack exchange costs from Python, beside the peers in the same run.

    numpy.from_dlpack(wnn_tensor)   wnn exports, NumPy imports
    wnn.from_dlpack(numpy_array)    NumPy exports, wnn imports
    numpy.from_dlpack(numpy_array)  the peer: NumPy to NumPy

and, when PyTorch is installed, torch.from_dlpack(wnn_tensor),
wnn.from_dlpack(torch_tensor) and torch.from_dlpack(numpy_array). Each figure
is the median over rounds of the mean time of one call (µs); ratios are to
numpy.from_dlpack(numpy_array). Run from the repository root after
`make test-python` (or with wnn installed):

    /usr/bin/python3 bench/bench_python_dlpack.py [--rounds N] [--number N]
"""
import argparse
import glob
import os
import platform
import statistics
import sys
import timeit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if glob.glob(os.path.join(ROOT, "python", "wnn", "_wnn*.so")):
    sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import wnn  # noqa: E402

try:
    import torch
except ImportError:
    torch = None


def measure(stmt, number, rounds):
    times = timeit.repeat(stmt, number=number, repeat=rounds)
    return statistics.median(times) / number * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args()

    ctx = wnn.default_context("cpu")
    shape = (64, 64)
    t = ctx.tensor(shape, "float32", readable=True, writable=True)
    a = np.zeros(shape, np.float32)
    cases = [
        ("numpy.from_dlpack(numpy_array)", lambda: np.from_dlpack(a)),
        ("numpy.from_dlpack(wnn_tensor)", lambda: np.from_dlpack(t)),
        ("wnn.from_dlpack(numpy_array)", lambda: wnn.from_dlpack(a)),
        ("wnn.from_dlpack(wnn_tensor)", lambda: wnn.from_dlpack(t)),
        ("wnn_tensor.__dlpack__()", lambda: t.__dlpack__()),
    ]
    if torch is not None:
        x = torch.zeros(shape)
        cases += [
            ("torch.from_dlpack(numpy_array)", lambda: torch.from_dlpack(a)),
            ("torch.from_dlpack(wnn_tensor)", lambda: torch.from_dlpack(t)),
            ("wnn.from_dlpack(torch_tensor)", lambda: wnn.from_dlpack(x)),
        ]
    # DLPack 1.3's C exchange API through ctypes, and ctypes' floor per call
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from dlpack_exchange import Exchange

    ex = Exchange(wnn.Tensor)
    cases += [
        ("wnn exchange API export+delete (ctypes)", lambda: ex.export_and_delete(t)),
        ("wnn exchange API current_work_stream (ctypes floor)", lambda: ex.stream(1, 0)),
    ]
    for _, fn in cases:  # warm up: imports, caches, the legacy-producer memo
        for _ in range(1000):
            fn()

    print(f"wnn {wnn.__version__}, NumPy {np.__version__}" + (f", PyTorch {torch.__version__}" if torch else "")
          + f", Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"float32 {shape}, cpu device; median of {args.rounds} rounds of {args.number} calls")
    peer = None
    rows = []
    for name, fn in cases:
        us = measure(fn, args.number, args.rounds)
        peer = peer or us
        rows.append((name, us))
    width = max(len(n) for n, _ in rows)
    print(f"{'call':<{width}}  {'µs/call':>8}  {'× peer':>7}")
    for name, us in rows:
        print(f"{name:<{width}}  {us:8.3f}  {us / peer:7.2f}")


if __name__ == "__main__":
    main()
