# SPDX-License-Identifier: Apache-2.0
"""DLPack exchange cost per call on the GPU, wnn beside the peers measured
in the same run: torch.from_dlpack(wnn cuda tensor) and
wnn.from_dlpack(torch cuda tensor) beside torch.from_dlpack(cupy array) and
cupy.from_dlpack(torch tensor). Needs the wnn module built with the cuda
device (bench/run-gpu.sh test builds it)."""
import time

import cupy
import torch
import wnn


def per_call_us(fn, iters=5000, reps=5):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters * 1e6)
    return best


def main():
    ctx = wnn.Context("cuda")
    wt = ctx.tensor((1024,), "float32", readable=True, writable=True)
    ctx.finish()
    tt = torch.zeros(1024, device="cuda")
    ca = cupy.zeros(1024, dtype=cupy.float32)
    torch.cuda.synchronize()
    rows = [
        ("torch.from_dlpack(wnn_tensor)", per_call_us(lambda: torch.from_dlpack(wt))),
        ("wnn.from_dlpack(torch_tensor)", per_call_us(lambda: wnn.from_dlpack(tt, device=ctx))),
        ("torch.from_dlpack(cupy_array)", per_call_us(lambda: torch.from_dlpack(ca))),
        ("cupy.from_dlpack(torch_tensor)", per_call_us(lambda: cupy.from_dlpack(tt))),
    ]
    peer = rows[2][1]
    print(f"{'call':34} {'us/call':>9} {'vs torch.from_dlpack(cupy)':>28}")
    for name, us in rows:
        print(f"{name:34} {us:9.2f} {us / peer:28.2f}")


if __name__ == "__main__":
    main()
