# SPDX-License-Identifier: Apache-2.0
"""DLPack exchange cost per call on the GPU, wnn beside the peers measured
in the same run: torch.from_dlpack(wnn cuda tensor) and
wnn.from_dlpack(torch cuda tensor) beside torch.from_dlpack(cupy array) and
cupy.from_dlpack(torch tensor), then DLPack 1.3's C exchange API
(__dlpack_c_exchange_api__) of wnn and of PyTorch called through ctypes,
with ctypes' own cost per call (current_work_stream) beside it. Needs the
wnn module built with the cuda device (bench/run-gpu.sh test builds it)."""
import os
import sys
import time

import cupy
import torch
import wnn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dlpack_exchange import Exchange  # noqa: E402


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
    # the C exchange API: export + deleter, and ctypes' floor
    for name, cls, obj in (("wnn", wnn.Tensor, wt), ("torch", torch.Tensor, tt)):
        try:
            ex = Exchange(cls)
        except (AttributeError, ValueError) as e:
            print(f"# {name} has no __dlpack_c_exchange_api__: {e}")
            continue
        rows.append((f"{name} exchange API export+delete", per_call_us(lambda: ex.export_and_delete(obj))))
        rows.append((f"{name} exchange API current_work_stream", per_call_us(lambda: ex.stream(2, 0))))
    try:  # and the plain protocol's export alone, without a consumer
        rows.append(("wnn_tensor.__dlpack__(stream=1)", per_call_us(lambda: wt.__dlpack__(stream=1, max_version=(1, 3)))))
    except Exception as e:  # noqa: BLE001
        print(f"# wnn_tensor.__dlpack__(stream=1) FAILED: {e!r}")
    peer = rows[2][1]
    print(f"{'call':42} {'us/call':>9} {'vs torch.from_dlpack(cupy)':>28}")
    for name, us in rows:
        print(f"{name:42} {us:9.2f} {us / peer:28.2f}")
    # the table's round trip must give the same memory back
    ex = Exchange(wnn.Tensor)
    back = ex.to_object(ex.export(wt))
    same = torch.from_dlpack(back).data_ptr() == torch.from_dlpack(wt).data_ptr()
    print(f"exchange API round trip on cuda: {'ok' if same else 'FAILED (another pointer)'}")


if __name__ == "__main__":
    main()
