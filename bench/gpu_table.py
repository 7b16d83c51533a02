# SPDX-License-Identifier: Apache-2.0
"""Sets wnn's GPU figures (bench-cuda's output) beside the PyTorch peers
(gpu_peers.py's output) measured in the same run, and prints one table:
what, ours, peer, ratio (ours / peer for rates, peer / ours for times, so a
ratio >= 1 always means wnn is at least as good).

Usage: python3 gpu_table.py BENCH_CUDA_OUTPUT GPU_PEERS_OUTPUT
"""
import re
import sys

# (row-name prefix in bench-cuda, peer key, peer description, higher is better)
PAIRS = [
    ("add f32, 1 GiB per operand", "add_1gib_tbps", "torch.add", True),
    ("add f32, 1 GiB per operand", "d2d_copy_1gib_tbps", "torch copy_ (D2D)", True),
    ("10-op chain [1024] f32, dispatch+finish", "chain10_eager_us", "PyTorch eager", False),
    ("10-op chain [1024] f32, dispatch+finish", "chain10_cudagraph_us", "PyTorch CUDA graph replay", False),
    ("10-op chain [1024] f32, queued", "chain10_cudagraph_us", "PyTorch CUDA graph replay", False),
    ("matmul 8192^3 f32", "matmul8192_f32_tflops", "torch.matmul f32 (no TF32)", True),
    ("matmul 8192^3 f16", "matmul8192_f16_tflops", "torch.matmul f16", True),
    ("create+destroy tensor 4 KiB", "empty_4kib_us", "torch.empty (Python)", False),
    ("write 256 MiB pageable", "write_256mib_gbps", "pinned copy_ H2D (target 0.8)", True),
    ("write 256 MiB pageable", "write_256mib_pageable_gbps", "pageable copy_ H2D", True),
    ("read 256 MiB pageable", "read_256mib_gbps", "pinned copy_ D2H (target 0.8)", True),
    ("read 256 MiB pageable", "read_256mib_pageable_gbps", "pageable copy_ D2H", True),
    ("write 256 MiB alloc_host", "write_256mib_gbps", "pinned copy_ H2D (target 0.95)", True),
    ("read 256 MiB alloc_host", "read_256mib_gbps", "pinned copy_ D2H (target 0.95)", True),
    ("write 256 MiB register_host", "write_256mib_gbps", "pinned copy_ H2D (target 0.95)", True),
    ("read 256 MiB register_host", "read_256mib_gbps", "pinned copy_ D2H (target 0.95)", True),
]


def ours(lines):
    """bench-cuda rows: name (unit) value unit ..."""
    rows = {}
    for line in lines:
        m = re.match(r"(.+?\))\s+([0-9.]+)\s+(\S+)", line)
        if m:
            rows[m.group(1)] = (float(m.group(2)), m.group(3))
    return rows


def peers(lines):
    out = {}
    for line in lines:
        parts = line.split()
        if len(parts) == 4 and parts[0] == "peer":
            out[parts[1]] = (float(parts[2]), parts[3])
    return out


def main():
    mine = ours(open(sys.argv[1]).read().splitlines())
    theirs = peers(open(sys.argv[2]).read().splitlines())
    print(f"{'what':46} {'ours':>14} {'peer':>14}  {'peer is':28} {'ratio':>7}")
    for prefix, key, desc, higher in PAIRS:
        row = next(((k, v) for k, v in mine.items() if k.startswith(prefix)), None)
        if row is None or key not in theirs:
            print(f"{prefix:46} {'(missing)':>14}")
            continue
        (name, (value, unit)), (peer, peer_unit) = row, theirs[key]
        if unit == "ns" and peer_unit == "us":
            peer, peer_unit = peer * 1000.0, "ns"
        ratio = value / peer if higher else peer / value
        print(f"{name[:46]:46} {value:10.3f} {unit:3} {peer:10.3f} {peer_unit:3}  {desc:28} {ratio:7.3f}")


if __name__ == "__main__":
    main()
