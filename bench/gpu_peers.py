# SPDX-License-Identifier: Apache-2.0
"""Peer measurements for the GPU benchmarks, taken with PyTorch (and CuPy)
in the same run as wnn's own figures (bench/run-gpu.sh runs both).

Prints one line per figure: "peer <key> <value> <unit>", the keys matching
the ones bench-cuda prints for wnn, so bench/gpu_table.py can set them side
by side. Times are medians over repetitions, measured with CUDA events for
device work and with a host clock for per-call costs.
"""
import statistics
import sys
import time

import torch


def device_ms(fn, reps=20, warmup=3):
    """Median milliseconds of fn() on the GPU, timed with CUDA events."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def host_us(fn, iters=2000, reps=5):
    """Best-of-reps mean microseconds per call of fn(), host clock."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / iters * 1e6)
    return best


def emit(key, value, unit):
    print(f"peer {key} {value:.6g} {unit}", flush=True)


def main():
    dev = torch.device("cuda")
    # element-wise add, float32, 1 GiB per operand: bytes moved = 3 GiB
    n = (1 << 30) // 4
    a = torch.rand(n, device=dev)
    b = torch.rand(n, device=dev)
    c = torch.empty_like(a)
    ms = device_ms(lambda: torch.add(a, b, out=c))
    emit("add_1gib_tbps", 3 * (1 << 30) / (ms * 1e-3) / 1e12, "TB/s")
    ms = device_ms(lambda: c.copy_(a))
    emit("d2d_copy_1gib_tbps", 2 * (1 << 30) / (ms * 1e-3) / 1e12, "TB/s")
    del a, b, c

    # a 10-operator element-wise chain on small tensors, end to end per call
    x = torch.rand(1024, device=dev)
    y = torch.empty_like(x)

    def chain():
        t = x
        for i in range(5):
            t = torch.add(t, x)
            t = torch.relu(t)
        y.copy_(t)

    emit("chain10_eager_us", host_us(chain, iters=2000), "us")
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            chain()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        chain()
    emit("chain10_cudagraph_us", host_us(g.replay, iters=5000), "us")

    # matmul 8192^3, float32 (true fp32: no TF32) and float16
    torch.backends.cuda.matmul.allow_tf32 = False
    m = 8192
    for dtype, key in ((torch.float32, "matmul8192_f32_tflops"), (torch.float16, "matmul8192_f16_tflops")):
        p = torch.rand(m, m, device=dev, dtype=dtype)
        q = torch.rand(m, m, device=dev, dtype=dtype)
        r = torch.empty(m, m, device=dev, dtype=dtype)
        ms = device_ms(lambda: torch.matmul(p, q, out=r), reps=10)
        emit(key, 2 * m**3 / (ms * 1e-3) / 1e12, "TFLOP/s")
        del p, q, r

    # create + destroy a small tensor
    emit("empty_4kib_us", host_us(lambda: torch.empty(1024, device=dev), iters=20000), "us")

    # 256 MiB host <-> device through pinned memory
    nbytes = 256 << 20
    host = torch.empty(nbytes // 4, dtype=torch.float32, pin_memory=True)
    devt = torch.empty(nbytes // 4, dtype=torch.float32, device=dev)
    ms = device_ms(lambda: devt.copy_(host, non_blocking=True), reps=10)
    emit("write_256mib_gbps", nbytes / (ms * 1e-3) / 1e9, "GB/s")
    ms = device_ms(lambda: host.copy_(devt, non_blocking=True), reps=10)
    emit("read_256mib_gbps", nbytes / (ms * 1e-3) / 1e9, "GB/s")
    # and from ordinary (pageable) memory, which the driver stages itself;
    # wall time, since a pageable copy_ blocks the host
    pageable = torch.ones(nbytes // 4, dtype=torch.float32)
    emit("write_256mib_pageable_gbps", nbytes / (host_us(lambda: devt.copy_(pageable), iters=5) * 1e-6) / 1e9, "GB/s")
    emit("read_256mib_pageable_gbps", nbytes / (host_us(lambda: pageable.copy_(devt), iters=5) * 1e-6) / 1e9, "GB/s")
    del pageable

    # DLPack between the peers themselves
    try:
        import cupy

        ca = cupy.zeros(1024, dtype=cupy.float32)
        ta = torch.zeros(1024, device=dev)
        emit("torch_from_cupy_us", host_us(lambda: torch.from_dlpack(ca), iters=5000), "us")
        emit("cupy_from_torch_us", host_us(lambda: cupy.from_dlpack(ta), iters=5000), "us")
    except ImportError as e:
        print(f"# cupy unavailable: {e}", file=sys.stderr)


if __name__ == "__main__":
    main()
