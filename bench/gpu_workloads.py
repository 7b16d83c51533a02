# SPDX-License-Identifier: Apache-2.0
"""Issue 15's model-shaped workloads on wnn's cuda device beside PyTorch, in
float32 and float16, one table:

    PYTHONPATH=python python3 bench/gpu_workloads.py [--only a,b] [--dtypes float32,float16]

Each workload is one wnn graph (inputs as device tensors, weights as
constants) and the same computation in PyTorch on the same inputs: eager, and
a CUDA graph of it replayed. Times are the best of 5 rounds of back-to-back
calls, each round finished (wnn: Context.finish; PyTorch: synchronize), per
call in ms. ratio = the better of PyTorch's two / wnn, so 1.0 means as fast
and above 1 faster. err is wnn's largest difference from PyTorch's result
over PyTorch's largest magnitude. TF32 is off on both sides; PyTorch's cuDNN
runs in benchmark mode. Needs PyTorch and wnn's module built with CUDA.
"""
import argparse
import math
import time

import numpy as np
import torch
import torch.nn.functional as F

import wnn

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True

NP = {"float32": np.float32, "float16": np.float16}
TORCH = {"float32": torch.float32, "float16": torch.float16}


def rand(shape, lo=-1.0, hi=1.0, seed=0):
    g = np.random.default_rng(seed)
    return (lo + (hi - lo) * g.random(shape)).astype(np.float32)


def best_ms(call, sync, target_s=0.05):
    """Best of 5 rounds, each as many back-to-back calls as fill target_s."""
    for _ in range(3):
        call()
    sync()
    t = time.perf_counter()
    call()
    sync()
    n = max(3, min(200, int(target_s / max(time.perf_counter() - t, 1e-6))))
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            call()
        sync()
        best = min(best, (time.perf_counter() - t) / n)
    return best * 1e3


# ---- workloads: (inputs as float32 numpy, weights) -> wnn graph, torch function ---------------


def conv(dt):
    x, w = rand((32, 64, 56, 56), seed=1), rand((64, 64, 3, 3), -0.1, 0.1, seed=2)
    inputs = {"x": x}

    def build(g):
        xi = g.input("x", x.shape, dt)
        return g.conv2d(xi, g.constant(w.astype(NP[dt])), padding=[1, 1, 1, 1])

    def torch_fn(t, p):
        return F.conv2d(t["x"], p["w"], padding=1)

    return inputs, {"w": w}, build, torch_fn


def resnet_block(dt):
    """torchvision's BasicBlock in eval mode: conv-bn-relu-conv-bn-add-relu."""
    x = rand((32, 64, 56, 56), seed=1)
    p = {"w1": rand((64, 64, 3, 3), -0.1, 0.1, seed=2), "w2": rand((64, 64, 3, 3), -0.1, 0.1, seed=3)}
    for k in ("1", "2"):
        p["m" + k], p["v" + k] = rand((64,), -0.1, 0.1, seed=4), rand((64,), 0.5, 2.0, seed=5)
        p["s" + k], p["b" + k] = rand((64,), 0.5, 1.5, seed=6), rand((64,), -0.1, 0.1, seed=7)

    def build(g):
        c = {k: g.constant(v.astype(NP[dt])) for k, v in p.items()}
        xi = g.input("x", x.shape, dt)
        y = g.conv2d(xi, c["w1"], padding=[1, 1, 1, 1])
        y = g.relu(g.batchNormalization(y, c["m1"], c["v1"], scale=c["s1"], bias=c["b1"], epsilon=1e-5))
        y = g.conv2d(y, c["w2"], padding=[1, 1, 1, 1])
        y = g.batchNormalization(y, c["m2"], c["v2"], scale=c["s2"], bias=c["b2"], epsilon=1e-5)
        return g.relu(g.add(y, xi))

    def torch_fn(t, q):
        y = F.conv2d(t["x"], q["w1"], padding=1)
        y = F.relu(F.batch_norm(y, q["m1"], q["v1"], q["s1"], q["b1"], False, 0.0, 1e-5))
        y = F.conv2d(y, q["w2"], padding=1)
        y = F.batch_norm(y, q["m2"], q["v2"], q["s2"], q["b2"], False, 0.0, 1e-5)
        return F.relu(y + t["x"])

    return {"x": x}, p, build, torch_fn


def mlp(dt):
    """layerNorm, 768 -> 3072 with bias, gelu, 3072 -> 768 with bias, residual add."""
    x = rand((8, 512, 768), seed=1)
    p = {"g": rand((768,), 0.5, 1.5, seed=2), "be": rand((768,), -0.1, 0.1, seed=3),
         "w1": rand((768, 3072), -0.03, 0.03, seed=4), "b1": rand((3072,), -0.1, 0.1, seed=5),
         "w2": rand((3072, 768), -0.03, 0.03, seed=6), "b2": rand((768,), -0.1, 0.1, seed=7)}

    def build(g):
        c = {k: g.constant(v.astype(NP[dt])) for k, v in p.items()}
        xi = g.input("x", x.shape, dt)
        h = g.layerNormalization(xi, scale=c["g"], bias=c["be"], axes=[2], epsilon=1e-5)
        h = g.gelu(g.add(g.matmul(h, c["w1"]), c["b1"]))
        return g.add(g.add(g.matmul(h, c["w2"]), c["b2"]), xi)

    def torch_fn(t, q):
        h = F.layer_norm(t["x"], (768,), q["g"], q["be"], 1e-5)
        h = F.gelu(h @ q["w1"] + q["b1"])
        return h @ q["w2"] + q["b2"] + t["x"]

    return {"x": x}, p, build, torch_fn


def attention(dt):
    """softmax(q k^T / 8) v, unfused."""
    shape = (8, 12, 512, 64)
    inputs = {"q": rand(shape, seed=1), "k": rand(shape, seed=2), "v": rand(shape, seed=3)}

    def build(g):
        q, k, v = (g.input(n, shape, dt) for n in ("q", "k", "v"))
        s = g.mul(g.matmul(q, g.transpose(k, permutation=[0, 1, 3, 2])), g.constant(0.125, dtype=dt))
        return g.matmul(g.softmax(s, 3), v)

    def torch_fn(t, q):
        s = torch.matmul(t["q"], t["k"].transpose(-1, -2)) * 0.125
        return torch.matmul(torch.softmax(s, -1), t["v"])

    return inputs, {}, build, torch_fn


def attention_sdpa(dt):
    """The same graph against PyTorch's fused scaled_dot_product_attention."""
    inputs, params, build, _ = attention(dt)

    def torch_fn(t, q):
        return F.scaled_dot_product_attention(t["q"], t["k"], t["v"], scale=0.125)

    return inputs, params, build, torch_fn


def attention_bert(dt):
    """BERT's spelling at batch 32: heads split by reshape and transposes, q scaled, a padding mask."""
    seq, heads, width = 128, 12, 64
    inputs = {n: rand((seq, 32 * heads, width), seed=i + 1) for i, n in enumerate(("q", "k", "v"))}
    mask = np.where(np.arange(seq) % 9 == 8, -10000.0, 0.0).astype(np.float32).reshape(1, 1, seq)
    p = {"mask": mask}

    def build(g):
        q, k, v = (g.input(n, (seq, 32 * heads, width), dt) for n in ("q", "k", "v"))
        q = g.div(g.transpose(q, permutation=[1, 0, 2]), g.constant(8.0, dtype=dt))
        s = g.matmul(q, g.transpose(k, permutation=[1, 2, 0]))
        s = g.add(s, g.constant(mask.astype(NP[dt])))
        o = g.matmul(g.softmax(s, 2), g.transpose(v, permutation=[1, 0, 2]))
        return g.transpose(o, permutation=[1, 0, 2])

    def torch_fn(t, q):
        s = torch.matmul(t["q"].transpose(0, 1) / 8.0, t["k"].permute(1, 2, 0)) + q["mask"]
        return torch.matmul(torch.softmax(s, -1), t["v"].transpose(0, 1)).transpose(0, 1).contiguous()

    return inputs, p, build, torch_fn


def layer_norm(dt):
    x = rand((16384, 1024), seed=1)
    p = {"g": rand((1024,), 0.5, 1.5, seed=2), "be": rand((1024,), -0.1, 0.1, seed=3)}

    def build(g):
        return g.layerNormalization(g.input("x", x.shape, dt), scale=g.constant(p["g"].astype(NP[dt])),
                                    bias=g.constant(p["be"].astype(NP[dt])), axes=[1], epsilon=1e-5)

    def torch_fn(t, q):
        return F.layer_norm(t["x"], (1024,), q["g"], q["be"], 1e-5)

    return {"x": x}, p, build, torch_fn


def binary(name, wnn_op, torch_op):
    def workload(dt):
        a, c = rand((8192, 8192), seed=1), rand((8192, 8192), seed=2)

        def build(g):
            return wnn_op(g, g.input("a", a.shape, dt), g.input("b", c.shape, dt))

        return {"a": a, "b": c}, {}, build, lambda t, q: torch_op(t["a"], t["b"])

    workload.__name__ = name
    return workload


def unary(name, wnn_op, torch_op, lo=-4.0, hi=4.0):
    def workload(dt):
        x = rand((8192, 8192), lo, hi, seed=1)

        def build(g):
            return wnn_op(g, g.input("x", x.shape, dt))

        return {"x": x}, {}, build, lambda t, q: torch_op(t["x"])

    workload.__name__ = name
    return workload


WORKLOADS = [
    ("conv2d 3x3, [32,64,56,56] -> 64", conv),
    ("ResNet basic block (conv-bn-relu-conv-bn-add-relu), [32,64,56,56]", resnet_block),
    ("transformer MLP (layerNorm, 768->3072, gelu, 3072->768, add), [8,512,768]", mlp),
    ("attention, unfused (matmul, scale, softmax, matmul), [8,12,512,64]", attention),
    ("attention [8,12,512,64] beside PyTorch's fused scaled_dot_product_attention", attention_sdpa),
    ("attention as BERT spells it (transposes, scaled q, mask), [32x12,128,64]", attention_bert),
    ("layerNormalization [16384,1024]", layer_norm),
    ("gelu [8192,8192]", unary("gelu", lambda g, x: g.gelu(x), F.gelu)),
    ("reduceSum [8192,8192], last axis", unary("sum", lambda g, x: g.reduceSum(x, axes=[1]), lambda x: x.sum(1))),
    ("softmax [8192,8192], last axis", unary("softmax", lambda g, x: g.softmax(x, 1), lambda x: torch.softmax(x, 1))),
    ("transpose [8192,8192]", unary("transpose", lambda g, x: g.transpose(x), lambda x: x.t().contiguous())),
    ("add [8192,8192]", binary("add", lambda g, x, y: g.add(x, y), torch.add)),
    ("relu(a + b) * 2 [8192,8192] (fused in wnn)",
     binary("chain", lambda g, x, y: g.mul(g.relu(g.add(x, y)), g.constant(2.0, dtype=x.dtype)),
            lambda x, y: torch.relu(x + y) * 2)),
]


def run(ctx, workload, dt):
    inputs, params, build, torch_fn = workload(dt)
    # PyTorch first, on the same numbers
    t_in = {k: torch.from_numpy(v).to("cuda", TORCH[dt]) for k, v in inputs.items()}
    t_p = {k: torch.from_numpy(v).to("cuda", TORCH[dt]) for k, v in params.items()}
    with torch.inference_mode():
        want = torch_fn(t_in, t_p).float().cpu().numpy()
        eager = best_ms(lambda: torch_fn(t_in, t_p), torch.cuda.synchronize)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                torch_fn(t_in, t_p)
        torch.cuda.current_stream().wait_stream(s)
        cg = torch.cuda.CUDAGraph()
        with torch.cuda.graph(cg):
            torch_fn(t_in, t_p)
        graph = best_ms(cg.replay, torch.cuda.synchronize)
    del cg, t_in, t_p
    torch.cuda.empty_cache()
    g = wnn.GraphBuilder(ctx)
    out = build(g)
    graph_w = g.build({"y": out})
    ins = {}
    for k, v in inputs.items():
        ins[k] = ctx.tensor(v.shape, dt, writable=True)
        ctx.write(ins[k], v.astype(NP[dt]))
    y = ctx.tensor(out.shape, dt, readable=True)
    outs = {"y": y}
    ctx.dispatch(graph_w, ins, outs)
    got = ctx.read(y).astype(np.float32)
    err = float(np.abs(got - want).max() / max(float(np.abs(want).max()), 1e-30))
    ours = best_ms(lambda: ctx.dispatch(graph_w, ins, outs), ctx.finish)
    graph_w.destroy()
    for t in list(ins.values()) + [y]:
        t.destroy()
    return ours, eager, graph, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated workload name prefixes")
    ap.add_argument("--dtypes", default="float32,float16")
    args = ap.parse_args()
    ctx = wnn.Context("cuda")
    dtypes = args.dtypes.split(",")
    only = [s for s in args.only.split(",") if s]
    print(f"wnn {wnn.library_version} cuda vs PyTorch {torch.__version__} on {torch.cuda.get_device_name()}; "
          "ms per call, ratio = best of PyTorch eager and CUDA graph / wnn", flush=True)
    rows = []
    for name, workload in WORKLOADS:
        if only and not any(name.startswith(o) for o in only):
            continue
        cells = []
        for dt in dtypes:
            try:
                cells.append(run(ctx, workload, dt))
                o, e, gr, err = cells[-1]
                print(f"  {name} {dt}: wnn {o:.3f} ms, eager {e:.3f}, graph {gr:.3f}, "
                      f"ratio {min(e, gr) / o:.2f}, err {err:.1e}", flush=True)
            except Exception as ex:  # a workload one side cannot run: say so, go on
                cells.append(None)
                print(f"  {name} {dt}: {type(ex).__name__}: {ex}", flush=True)
        rows.append((name, cells))
    print()
    print("| workload | " + " | ".join(f"{dt} wnn ms | {dt} eager / graph ms | {dt} ratio" for dt in dtypes) + " |")
    print("|---|" + "---:|---:|---:|" * len(dtypes))
    for name, cells in rows:
        parts = []
        for c in cells:
            if c is None:
                parts.append("- | - | -")
            else:
                o, e, gr, err = c
                parts.append(f"{o:.3f} | {e:.3f} / {gr:.3f} | **{min(e, gr) / o:.2f}** (err {err:.0e})")
        print(f"| {name} | " + " | ".join(parts) + " |")


if __name__ == "__main__":
    main()
