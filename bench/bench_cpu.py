# SPDX-License-Identifier: Apache-2.0
"""The cpu device beside PyTorch's CPU backend, one run, same inputs, same
thread count (issue 14's workloads).

    /usr/bin/python3 bench/bench_cpu.py [--threads N] [--dtypes float32,float16]
                                        [--only NAME,...] [--wnn-path DIR]

Each workload is built once as a wnn graph and as a PyTorch function over the
same random inputs; both run until a measurement lasts --min-time seconds,
--reps times, and the table prints the median milliseconds per run and the
ratio torch / wnn (above 1: wnn is faster). The outputs are compared first
(max |wnn - torch| against a tolerance scaled by the output's size), so a
fast wrong answer shows as MISMATCH.

Threads: wnn reads WNN_NUM_THREADS when its worker pool starts (and oneDNN,
where wnn uses it, OMP_NUM_THREADS), so both are set before the module is
imported; PyTorch gets torch.set_num_threads. Where PyTorch has no float16
kernel on the CPU, its peer runs in float32 on the same (rounded) inputs and
the row says so ("torch f32").

Processes: PyTorch is timed in a child process of its own and wnn in this one
(where PyTorch, on one thread, only computes the outputs wnn's are checked
against). Two OpenMP teams in one process (PyTorch's and wnn's, both on the
system libgomp) make libgomp stop spinning between regions, which slows both
(docs/backends.md, "Threads on the cpu device"); --together times both here
in turns, as a program that uses both would see them.

The wnn module comes from --wnn-path (a folder holding the wnn package, e.g.
a `setup.py build` output), else from python/ beside this folder.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)), help="threads for both (default: the CPUs this process may run on)")
    p.add_argument("--dtypes", default="float32,float16")
    p.add_argument("--only", default="", help="comma-separated workload names")
    p.add_argument("--wnn-path", default=os.path.join(os.path.dirname(HERE), "python"))
    p.add_argument("--min-time", type=float, default=0.1, help="seconds per measurement")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--together", action="store_true",
                   help="time PyTorch in this process too, in turns with wnn (see above)")
    p.add_argument("--side", default="", help=argparse.SUPPRESS)  # "torch": the child process
    return p.parse_args()


ARGS = parse_args()
os.environ["WNN_NUM_THREADS"] = str(ARGS.threads)
os.environ["OMP_NUM_THREADS"] = str(ARGS.threads)
sys.path.insert(0, os.path.abspath(ARGS.wnn_path))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import wnn  # noqa: E402

torch.set_num_threads(ARGS.threads)
_CTX = []


def context():
    """The cpu context, made on first use (the child process that times
    PyTorch never starts wnn's threads)."""
    if not _CTX:
        _CTX.append(wnn.Context("cpu"))
    return _CTX[0]


def calibrate(fn):
    """Calls of fn that last about min_time seconds."""
    fn()
    iters = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        t = time.perf_counter() - t0
        if t >= ARGS.min_time / 4:
            return max(1, int(iters * ARGS.min_time / t))
        iters *= 4


def timed_ms(fns):
    """Median milliseconds per call of each fn, over ARGS.reps measurements
    taken in turn (wnn, torch, wnn, ...) so that a busy moment of the machine
    falls on both sides."""
    iters = [calibrate(fn) for fn in fns]
    times = [[] for _ in fns]
    for _ in range(ARGS.reps):
        for fn, n, ts in zip(fns, iters, times):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            ts.append((time.perf_counter() - t0) * 1e3 / n)
    return [statistics.median(ts) for ts in times]


# ---------------------------------------------------------------------------
# Workloads: each returns (inputs, constants, build, torch_fn).
#   inputs     dict name -> NumPy array (float32; cast to the dtype later)
#   constants  dict name -> NumPy array, baked into both sides
#   build(b, x, c) -> wnn output operand, from input operands x and constant
#                     operands c (dicts by name)
#   torch_fn(x, c) -> torch tensor, from torch tensors
# ---------------------------------------------------------------------------
RNG = np.random.default_rng(14)


def rand(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def w_conv2d():
    inputs = {"x": rand(1, 64, 56, 56)}
    consts = {"w": rand(64, 64, 3, 3, scale=0.05), "b": rand(64, scale=0.1)}

    def build(b, x, c):
        return b.conv2d(x["x"], c["w"], padding=[1, 1, 1, 1], bias=c["b"])

    def tfn(x, c):
        return F.conv2d(x["x"], c["w"], c["b"], padding=1)
    return inputs, consts, build, tfn


def w_resnet_block():
    inputs = {"x": rand(1, 64, 56, 56)}
    consts = {}
    for i in (1, 2):
        consts[f"w{i}"] = rand(64, 64, 3, 3, scale=0.05)
        consts[f"b{i}"] = rand(64, scale=0.1)
        consts[f"mean{i}"] = rand(64, scale=0.1)
        consts[f"var{i}"] = np.abs(rand(64)) + 0.5
        consts[f"gamma{i}"] = rand(64, scale=0.1) + 1
        consts[f"beta{i}"] = rand(64, scale=0.1)

    def build(b, x, c):
        def bn(h, i):
            return b.batchNormalization(h, c[f"mean{i}"], c[f"var{i}"], scale=c[f"gamma{i}"],
                                        bias=c[f"beta{i}"], epsilon=1e-5)
        h = b.conv2d(x["x"], c["w1"], padding=[1, 1, 1, 1], bias=c["b1"])
        h = b.relu(bn(h, 1))
        h = b.conv2d(h, c["w2"], padding=[1, 1, 1, 1], bias=c["b2"])
        return b.relu(b.add(bn(h, 2), x["x"]))

    def tfn(x, c):
        def bn(h, i):
            return F.batch_norm(h, c[f"mean{i}"], c[f"var{i}"], c[f"gamma{i}"], c[f"beta{i}"], False, 0.0, 1e-5)
        h = F.relu(bn(F.conv2d(x["x"], c["w1"], c["b1"], padding=1), 1))
        h = bn(F.conv2d(h, c["w2"], c["b2"], padding=1), 2)
        return F.relu(h + x["x"])
    return inputs, consts, build, tfn


def w_mlp():
    inputs = {"x": rand(1, 128, 768)}
    consts = {"g": rand(768, scale=0.1) + 1, "be": rand(768, scale=0.1),
              "w1": rand(768, 3072, scale=0.03), "b1": rand(3072, scale=0.1),
              "w2": rand(3072, 768, scale=0.02), "b2": rand(768, scale=0.1)}

    def build(b, x, c):
        h = b.layerNormalization(x["x"], scale=c["g"], bias=c["be"], axes=[2], epsilon=1e-5)
        h = b.gelu(b.add(b.matmul(h, c["w1"]), c["b1"]))
        return b.add(b.add(b.matmul(h, c["w2"]), c["b2"]), x["x"])

    def tfn(x, c):
        h = F.layer_norm(x["x"], (768,), c["g"], c["be"], 1e-5)
        h = F.gelu(torch.matmul(h, c["w1"]) + c["b1"])
        return torch.matmul(h, c["w2"]) + c["b2"] + x["x"]
    return inputs, consts, build, tfn


def w_attention():
    inputs = {n: rand(1, 12, 128, 64) for n in ("q", "k", "v")}

    def build(b, x, c):
        s = b.matmul(x["q"], b.transpose(x["k"], permutation=[0, 1, 3, 2]))
        s = b.mul(s, b.constant(0.125, dtype=s.dtype))
        return b.matmul(b.softmax(s, 3), x["v"])

    def tfn(x, c):
        s = torch.matmul(x["q"], x["k"].transpose(2, 3)) * 0.125
        return torch.matmul(torch.softmax(s, 3), x["v"])
    return inputs, {}, build, tfn


def w_softmax():
    return ({"x": rand(1024, 1024)}, {}, lambda b, x, c: b.softmax(x["x"], 1),
            lambda x, c: torch.softmax(x["x"], 1))


def w_layer_norm():
    consts = {"g": rand(1024, scale=0.1) + 1, "be": rand(1024, scale=0.1)}
    return ({"x": rand(2048, 1024)}, consts,
            lambda b, x, c: b.layerNormalization(x["x"], scale=c["g"], bias=c["be"], axes=[1], epsilon=1e-5),
            lambda x, c: F.layer_norm(x["x"], (1024,), c["g"], c["be"], 1e-5))


def w_gelu():
    return {"x": rand(1024, 1024)}, {}, lambda b, x, c: b.gelu(x["x"]), lambda x, c: F.gelu(x["x"])


def w_reduce_sum():
    return ({"x": rand(1024, 1024)}, {}, lambda b, x, c: b.reduceSum(x["x"], axes=[1]),
            lambda x, c: torch.sum(x["x"], 1))


def w_transpose():
    # contiguous() so that PyTorch moves the bytes, as wnn does
    return ({"x": rand(1024, 1024)}, {}, lambda b, x, c: b.transpose(x["x"]),
            lambda x, c: x["x"].t().contiguous())


def pos(*shape):
    """Inputs for log and sqrt: positive."""
    return np.abs(rand(*shape)) + np.float32(0.05)


def w_unary(op, torch_fn, positive=False):
    def make():
        return ({"x": pos(1024, 1024) if positive else rand(1024, 1024)}, {},
                lambda b, x, c: getattr(b, op)(x["x"]), lambda x, c: torch_fn(x["x"]))
    return make


def w_norm_tail():
    # layerNormalization's last four steps as exporters spell it out: one
    # chain on the cpu device (ew_chain.h), four passes in PyTorch's eager mode
    inputs = {"x": rand(2048, 1024), "m": rand(2048, 1, scale=0.1), "s": pos(2048, 1) + 1}
    consts = {"g": rand(1024, scale=0.1) + 1, "be": rand(1024, scale=0.1)}
    return (inputs, consts,
            lambda b, x, c: b.add(b.mul(b.div(b.sub(x["x"], x["m"]), x["s"]), c["g"]), c["be"]),
            lambda x, c: (x["x"] - x["m"]) / x["s"] * c["g"] + c["be"])


def w_conv_transpose():
    inputs = {"x": rand(1, 64, 56, 56)}
    consts = {"w": rand(64, 32, 4, 4, scale=0.05), "b": rand(32, scale=0.1)}
    return (inputs, consts,
            lambda b, x, c: b.convTranspose2d(x["x"], c["w"], strides=[2, 2], padding=[1, 1, 1, 1], bias=c["b"]),
            lambda x, c: F.conv_transpose2d(x["x"], c["w"], c["b"], stride=2, padding=1))


WORKLOADS = [
    ("conv2d 3x3 [1,64,56,56]->64", "conv2d", w_conv2d),
    ("resnet block", "resnet", w_resnet_block),
    ("mlp [1,128,768]", "mlp", w_mlp),
    ("attention [1,12,128,64]", "attention", w_attention),
    ("softmax [1024,1024]", "softmax", w_softmax),
    ("layerNorm [2048,1024]", "layernorm", w_layer_norm),
    ("gelu [1024,1024]", "gelu", w_gelu),
    ("reduceSum [1024,1024]", "reducesum", w_reduce_sum),
    ("transpose [1024,1024]", "transpose", w_transpose),
    ("tanh [1024,1024]", "tanh", w_unary("tanh", lambda t: torch.tanh(t))),
    ("log [1024,1024]", "log", w_unary("log", lambda t: torch.log(t), positive=True)),
    ("sqrt [1024,1024]", "sqrt", w_unary("sqrt", lambda t: torch.sqrt(t), positive=True)),
    ("sin [1024,1024]", "sin", w_unary("sin", lambda t: torch.sin(t))),
    ("softplus [1024,1024]", "softplus", w_unary("softplus", lambda t: F.softplus(t))),
    ("elu [1024,1024]", "elu", w_unary("elu", lambda t: F.elu(t))),
    ("norm tail [2048,1024]", "normtail", w_norm_tail),
    ("convT 4x4/2 [1,64,56,56]->32", "convtranspose", w_conv_transpose),
]


def wnn_side(inputs, consts, build, dtype):
    """The workload as a wnn graph: (run, output as float32)."""
    ctx = context()
    b = wnn.GraphBuilder(ctx)
    xo = {k: b.input(k, v.shape, dtype) for k, v in inputs.items()}
    co = {k: b.constant(v) for k, v in consts.items()}
    out = build(b, xo, co)
    graph = b.build({"y": out})
    xt = {}
    for k, v in inputs.items():
        xt[k] = ctx.tensor(v.shape, dtype, writable=True)
        ctx.write(xt[k], v)
    yt = ctx.tensor(tuple(out.shape), dtype, readable=True)

    def wnn_run():
        ctx.dispatch(graph, xt, {"y": yt})
        ctx.finish()

    wnn_run()
    return wnn_run, ctx.read(yt).astype(np.float32)


def torch_side(inputs, consts, tfn, dtype):
    """The workload in PyTorch: (run, output as float32, peer's name)."""
    tt = torch.float16 if dtype == "float16" else torch.float32
    tx = {k: torch.from_numpy(v).to(tt) for k, v in inputs.items()}
    tc = {k: torch.from_numpy(v).to(tt) for k, v in consts.items()}
    peer = "torch"
    try:
        with torch.no_grad():
            want = tfn(tx, tc)
    except RuntimeError:  # no float16 kernel on the CPU
        tx = {k: v.float() for k, v in tx.items()}
        tc = {k: v.float() for k, v in tc.items()}
        peer = "torch f32"
        with torch.no_grad():
            want = tfn(tx, tc)

    def torch_run():
        with torch.no_grad():
            tfn(tx, tc)
    return torch_run, want.float().numpy(), peer


def prepared(make, dtype):
    inputs, consts, build, tfn = make()
    np_t = np.float16 if dtype == "float16" else np.float32
    inputs = {k: v.astype(np_t) for k, v in inputs.items()}
    consts = {k: v.astype(np_t) for k, v in consts.items()}
    return inputs, consts, build, tfn


def run_workload(make, dtype, torch_ms=None):
    """(wnn ms, torch ms, peer, check). torch_ms given (timed in the child
    process): PyTorch here only computes the output that wnn's is checked
    against, and only wnn is timed."""
    inputs, consts, build, tfn = prepared(make, dtype)
    wnn_run, got = wnn_side(inputs, consts, build, dtype)
    torch_run, want, peer = torch_side(inputs, consts, tfn, dtype)
    err = float(np.max(np.abs(got - want))) if got.size else 0.0
    scale = float(np.max(np.abs(want))) + 1.0
    tol = (3e-2 if dtype == "float16" else 1e-3) * scale
    check = "ok" if err <= tol and got.shape == want.shape else f"MISMATCH {err:.3g}"
    if torch_ms is not None:
        return timed_ms([wnn_run])[0], torch_ms, peer, check
    wnn_ms, torch_ms = timed_ms([wnn_run, torch_run])
    return wnn_ms, torch_ms, peer, check


def selected():
    only = {s for s in ARGS.only.split(",") if s}
    for dtype in ARGS.dtypes.split(","):
        for title, key, make in WORKLOADS:
            if not only or key in only:
                yield dtype, title, key, make


def torch_child():
    """--side torch: PyTorch's times alone in this process, one JSON line each."""
    for dtype, _, key, make in selected():
        inputs, consts, _, tfn = prepared(make, dtype)
        torch_run, _, peer = torch_side(inputs, consts, tfn, dtype)
        print(json.dumps({"key": key, "dtype": dtype, "ms": timed_ms([torch_run])[0]}), flush=True)


def torch_times():
    """PyTorch's times from a child process, by (key, dtype)."""
    argv = [sys.executable, os.path.abspath(__file__), "--side", "torch", "--threads", str(ARGS.threads),
            "--dtypes", ARGS.dtypes, "--only", ARGS.only, "--wnn-path", ARGS.wnn_path,
            "--min-time", str(ARGS.min_time), "--reps", str(ARGS.reps)]
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return {(r["key"], r["dtype"]): r["ms"] for r in rows}


def main():
    if ARGS.side == "torch":
        torch_child()
        return
    apart = not ARGS.together
    times = torch_times() if apart else None
    if apart:
        torch.set_num_threads(1)  # here PyTorch only checks outputs: no OpenMP team of its own
    where = "PyTorch timed in a child process" if apart else "both timed in this process, in turns"
    print(f"wnn cpu vs PyTorch {torch.__version__} CPU, {ARGS.threads} threads, "
          f"{os.cpu_count()} cores, median of {ARGS.reps}; {where}; ratio = torch / wnn")
    print(f"{'workload':<30} {'dtype':<8} {'wnn ms':>9} {'torch ms':>9} {'ratio':>7}  peer       check")
    for dtype, title, key, make in selected():
        wnn_ms, torch_ms, peer, check = run_workload(make, dtype, times[(key, dtype)] if apart else None)
        print(f"{title:<30} {dtype:<8} {wnn_ms:9.3f} {torch_ms:9.3f} {torch_ms / wnn_ms:7.2f}  "
              f"{peer:<10} {check}", flush=True)


if __name__ == "__main__":
    main()
