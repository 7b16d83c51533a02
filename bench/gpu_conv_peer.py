# SPDX-License-Identifier: Apache-2.0
"""PyTorch's conv2d 3x3 [32,64,56,56] -> 64 on the GPU (cuDNN, TF32 off, benchmark mode) in
TFLOP/s: the peer of `bench-cuda conv`, to run in the same session (run-gpu.sh bench)."""
import time, torch
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.benchmark = True
flops = 2 * 32 * 64 * 56 * 56 * 64 * 9
for dt in (torch.float32, torch.float16):
    for fused in (False, True):
        x = torch.randn(32, 64, 56, 56, device="cuda", dtype=dt)
        w = torch.randn(64, 64, 3, 3, device="cuda", dtype=dt)
        b = torch.randn(64, device="cuda", dtype=dt)
        f = (lambda: torch.relu(torch.nn.functional.conv2d(x, w, b, padding=1))) if fused else \
            (lambda: torch.nn.functional.conv2d(x, w, padding=1))
        for _ in range(20): f()
        torch.cuda.synchronize()
        best = 1e9
        for _ in range(5):
            t = time.perf_counter()
            for _ in range(50): f()
            torch.cuda.synchronize()
            best = min(best, (time.perf_counter() - t) / 50)
        print(f"torch conv2d 3x3 [32,64,56,56] {'+bias+relu ' if fused else ''}{str(dt)[6:]}: {flops / best / 1e12:.1f} TFLOP/s")
