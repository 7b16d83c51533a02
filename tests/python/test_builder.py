# SPDX-License-Identifier: Apache-2.0
"""GraphBuilder: every operator of the library is a method, under its WebNN
name and in snake case, takes WebNN's options as keywords, builds and
computes; errors raise at the call and leave the builder usable."""
import math

import numpy as np
import pytest

import wnn
from conftest import sample


def run(ctx, make, **arrays):
    """Builds make(builder, **inputs), dispatches it on arrays, returns the
    output (or the list of outputs) as NumPy arrays."""
    b = wnn.GraphBuilder(ctx)
    inputs = {k: b.input(k, v.shape, v.dtype.name) for k, v in arrays.items()}
    out = make(b, **inputs)
    outs = out if isinstance(out, list) else [out]
    g = b.build({f"o{i}": o for i, o in enumerate(outs)})
    bound = {}
    for k, v in arrays.items():
        bound[k] = ctx.tensor(v.shape, v.dtype.name, writable=True)
        ctx.write(bound[k], v)
    res = {f"o{i}": ctx.tensor(o.shape, o.dtype, readable=True) for i, o in enumerate(outs)}
    ctx.dispatch(g, bound, res)
    got = [ctx.read(res[f"o{i}"]) for i in range(len(outs))]
    return got if isinstance(out, list) else got[0]


F = sample("float32", (2, 3), seed=1)
POS = np.abs(F) + 0.5
G = sample("float32", (2, 3), seed=2)
U8 = np.array([[0, 1, 2], [3, 0, 1]], np.uint8)
V8 = np.array([[1, 1, 0], [0, 0, 1]], np.uint8)
erf = np.vectorize(math.erf, otypes=[np.float32])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


# name: (make, inputs, expected) -- expected is an array, a list of shapes, or a
# callable taking the outputs
UNARY = {
    "abs": np.abs, "neg": np.negative, "exp": np.exp, "relu": lambda x: np.maximum(x, 0), "sigmoid": sigmoid,
    "tanh": np.tanh, "ceil": np.ceil, "floor": np.floor, "cos": np.cos, "sin": np.sin, "tan": np.tan, "erf": erf,
    "reciprocal": np.reciprocal, "round_even": np.round, "sign": np.sign, "identity": lambda x: x,
    "gelu": lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    "hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6, "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
}
UNARY_POSITIVE = {"log": np.log, "sqrt": np.sqrt}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "max": np.maximum, "min": np.minimum,
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater, "greater_or_equal": np.greater_equal,
    "lesser": np.less, "lesser_or_equal": np.less_equal,
}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}
REDUCE = {
    "reduce_l1": lambda x, a, k: np.abs(x).sum(a, keepdims=k),
    "reduce_l2": lambda x, a, k: np.sqrt((x * x).sum(a, keepdims=k)),
    "reduce_log_sum": lambda x, a, k: np.log(x.sum(a, keepdims=k)),
    "reduce_log_sum_exp": lambda x, a, k: np.log(np.exp(x).sum(a, keepdims=k)),
    "reduce_max": lambda x, a, k: x.max(a, keepdims=k),
    "reduce_mean": lambda x, a, k: x.mean(a, keepdims=k),
    "reduce_min": lambda x, a, k: x.min(a, keepdims=k),
    "reduce_product": lambda x, a, k: x.prod(a, keepdims=k),
    "reduce_sum": lambda x, a, k: x.sum(a, keepdims=k),
    "reduce_sum_square": lambda x, a, k: (x * x).sum(a, keepdims=k),
}

CASES = {}
for _n, _f in UNARY.items():
    CASES[_n] = (lambda b, x, n=_n: getattr(b, n)(x), {"x": F}, _f(F))
for _n, _f in UNARY_POSITIVE.items():
    CASES[_n] = (lambda b, x, n=_n: getattr(b, n)(x), {"x": POS}, _f(POS))
for _n, _f in BINARY.items():
    CASES[_n] = (lambda b, x, y, n=_n: getattr(b, n)(x, y), {"x": F, "y": G}, _f(F, G))
for _n, _f in LOGICAL.items():
    CASES[_n] = (lambda b, x, y, n=_n: getattr(b, n)(x, y), {"x": U8, "y": V8}, _f(U8, V8).astype(np.uint8))
for _n, _f in REDUCE.items():
    CASES[_n] = (lambda b, x, n=_n: getattr(b, n)(x, axes=[1], keep_dimensions=True), {"x": POS},
                 _f(POS, 1, True))
CASES.update({
    "pow": (lambda b, x, y: b.pow(x, y), {"x": POS, "y": G}, np.power(POS, G)),
    "logical_not": (lambda b, x: b.logical_not(x), {"x": U8}, (U8 == 0).astype(np.uint8)),
    "is_nan": (lambda b, x: b.is_nan(x), {"x": np.array([1, np.nan, np.inf], np.float32)},
               np.array([0, 1, 0], np.uint8)),
    "is_infinite": (lambda b, x: b.is_infinite(x), {"x": np.array([1, np.nan, -np.inf], np.float32)},
                    np.array([0, 0, 1], np.uint8)),
    "where": (lambda b, c, x, y: b.where(c, x, y), {"c": V8, "x": F, "y": G}, np.where(V8, F, G)),
    "clamp": (lambda b, x: b.clamp(x, min_value=-1, max_value=1.5), {"x": F}, np.clip(F, -1, 1.5)),
    "cast": (lambda b, x: b.cast(x, "int32"), {"x": F}, F.astype(np.int32)),
    "reshape": (lambda b, x: b.reshape(x, (3, 2)), {"x": F}, F.reshape(3, 2)),
    "transpose": (lambda b, x: b.transpose(x), {"x": F}, F.T),
    "concat": (lambda b, x, y: b.concat([x, y], 1), {"x": F, "y": G}, np.concatenate([F, G], 1)),
    "slice": (lambda b, x: b.slice(x, [0, 1], [2, 2]), {"x": F}, F[:, 1:3]),
    "softmax": (lambda b, x: b.softmax(x, 1), {"x": F}, np.exp(F) / np.exp(F).sum(1, keepdims=True)),
    "matmul": (lambda b, x, y: b.matmul(x, y), {"x": F, "y": G.T.copy()}, F @ G.T),
    "gemm": (lambda b, x, y: b.gemm(x, y, alpha=2.0, b_transpose=True), {"x": F, "y": G}, 2 * F @ G.T),
    "elu": (lambda b, x: b.elu(x, alpha=0.5), {"x": F}, np.where(F >= 0, F, 0.5 * (np.exp(F) - 1))),
    "hard_sigmoid": (lambda b, x: b.hard_sigmoid(x, alpha=0.3, beta=0.4), {"x": F}, np.clip(0.3 * F + 0.4, 0, 1)),
    "leaky_relu": (lambda b, x: b.leaky_relu(x, alpha=0.1), {"x": F}, np.where(F >= 0, F, 0.1 * F)),
    "linear": (lambda b, x: b.linear(x, alpha=2, beta=1), {"x": F}, 2 * F + 1),
    "prelu": (lambda b, x, s: b.prelu(x, s), {"x": F, "s": np.float32([0.1, 0.2, 0.3])},
              np.where(F >= 0, F, np.float32([0.1, 0.2, 0.3]) * F)),
    "arg_min": (lambda b, x: b.arg_min(x, 1), {"x": F}, F.argmin(1).astype(np.int32)),
    "arg_max": (lambda b, x: b.arg_max(x, 1, keep_dimensions=True, output_data_type="int64"), {"x": F},
                F.argmax(1).astype(np.int64)[:, None]),
    "cumulative_sum": (lambda b, x: b.cumulative_sum(x, 1, exclusive=True), {"x": F},
                       np.cumsum(F, 1) - F),
    "quantize_linear": (lambda b, x, s, z: b.quantize_linear(x, s, z),
                        {"x": F, "s": np.float32([[0.5]]), "z": np.uint8([[128]])},
                        np.clip(np.round(F / 0.5) + 128, 0, 255).astype(np.uint8)),
    "dequantize_linear": (lambda b, x, s, z: b.dequantize_linear(x, s, z),
                          {"x": U8, "s": np.float32([[0.5]]), "z": np.uint8([[1]])},
                          (U8.astype(np.float32) - 1) * 0.5),
    "conv2d": (lambda b, x, w: b.conv2d(x, w, padding=[1, 1, 1, 1], strides=[1, 1]),
               {"x": np.ones((1, 1, 3, 3), np.float32), "w": np.ones((2, 1, 3, 3), np.float32)},
               np.broadcast_to(np.float32([[4, 6, 4], [6, 9, 6], [4, 6, 4]]), (1, 2, 3, 3))),
    "conv_transpose2d": (lambda b, x, w: b.conv_transpose2d(x, w, strides=[2, 2]),
                         {"x": np.ones((1, 1, 2, 2), np.float32), "w": np.ones((1, 1, 2, 2), np.float32)},
                         np.ones((1, 1, 4, 4), np.float32)),
    "average_pool2d": (lambda b, x: b.average_pool2d(x), {"x": POS.reshape(1, 1, 2, 3)},
                       POS.mean().reshape(1, 1, 1, 1)),
    "l2_pool2d": (lambda b, x: b.l2_pool2d(x, window_dimensions=[2, 3]), {"x": POS.reshape(1, 1, 2, 3)},
                  np.sqrt((POS * POS).sum()).reshape(1, 1, 1, 1)),
    "max_pool2d": (lambda b, x: b.max_pool2d(x, window_dimensions=[1, 3], layout="nhwc"),
                   {"x": F.reshape(1, 2, 3, 1)}, F.max(1).reshape(1, 2, 1, 1)),
    "resample2d": (lambda b, x: b.resample2d(x, scales=[2.0, 2.0]), {"x": F.reshape(1, 1, 2, 3)},
                   F.repeat(2, 0).repeat(2, 1).reshape(1, 1, 4, 6)),
    "batch_normalization": (lambda b, x, m, v: b.batch_normalization(x, m, v, epsilon=0.0),
                            {"x": F, "m": np.float32([1, 2, 3]), "v": np.float32([4, 4, 4])},
                            None),
    "instance_normalization": (lambda b, x: b.instance_normalization(x), {"x": F.reshape(1, 1, 2, 3)},
                               ((F - F.mean()) / np.sqrt(F.var() + 1e-5)).reshape(1, 1, 2, 3)),
    "layer_normalization": (lambda b, x: b.layer_normalization(x, axes=[1]), {"x": F},
                            (F - F.mean(1, keepdims=True)) / np.sqrt(F.var(1, keepdims=True) + 1e-5)),
    "expand": (lambda b, x: b.expand(x, (4, 2, 3)), {"x": F}, np.broadcast_to(F, (4, 2, 3))),
    "pad": (lambda b, x: b.pad(x, [0, 1], [1, 0], mode="constant", value=7), {"x": F},
            np.pad(F, [(0, 1), (1, 0)], constant_values=7)),
    "split": (lambda b, x: b.split(x, [1, 2], axis=1), {"x": F}, [F[:, :1], F[:, 1:]]),
    "tile": (lambda b, x: b.tile(x, [2, 1]), {"x": F}, np.tile(F, (2, 1))),
    "reverse": (lambda b, x: b.reverse(x, axes=[1]), {"x": F}, F[:, ::-1]),
    "triangular": (lambda b, x: b.triangular(x, upper=False, diagonal=0), {"x": F}, np.tril(F)),
    "gather": (lambda b, x, i: b.gather(x, i, axis=1), {"x": F, "i": np.int32([2, 0])}, F[:, [2, 0]]),
    "gather_elements": (lambda b, x, i: b.gather_elements(x, i, axis=1),
                        {"x": F, "i": np.int32([[0, 0, 1], [2, 1, 0]])},
                        np.take_along_axis(F, np.int64([[0, 0, 1], [2, 1, 0]]), 1)),
    "gather_nd": (lambda b, x, i: b.gather_nd(x, i), {"x": F, "i": np.int32([[1, 2], [0, 0]])},
                  np.float32([F[1, 2], F[0, 0]])),
    "scatter_elements": (lambda b, x, i, u: b.scatter_elements(x, i, u, axis=0),
                         {"x": F, "i": np.int32([[1, 0, 1]]), "u": np.float32([[9, 8, 7]])}, None),
    "scatter_nd": (lambda b, x, i, u: b.scatter_nd(x, i, u),
                   {"x": F, "i": np.int32([[0]]), "u": np.float32([[5, 5, 5]])}, np.vstack([[5, 5, 5], F[1]])),
})

# recurrent networks: shapes only (the kernels have their own tests)
W3 = sample("float32", (1, 12, 3), seed=3) / 4
R3 = sample("float32", (1, 12, 4), seed=4) / 4
X3 = sample("float32", (2, 1, 3), seed=5)
CASES.update({
    "gru": (lambda b, x, w, r: b.gru(x, w, r, 2, 4, return_sequence=True, activations=["sigmoid", "tanh"]),
            {"x": X3, "w": W3, "r": R3}, [(1, 1, 4), (2, 1, 1, 4)]),
    "gru_cell": (lambda b, x, w, r, h: b.gru_cell(x, w, r, h, 4, layout="rzn"),
                 {"x": X3[0], "w": W3[0], "r": R3[0], "h": np.zeros((1, 4), np.float32)}, [(1, 4)]),
    "lstm": (lambda b, x, w, r: b.lstm(x, w, r, 2, 3, direction="forward"),
             {"x": X3, "w": W3, "r": R3[:, :, :3].copy()}, [(1, 1, 3), (1, 1, 3)]),
    "lstm_cell": (lambda b, x, w, r, h, c: b.lstm_cell(x, w, r, h, c, 3, peephole_weight=None),
                  {"x": X3[0], "w": W3[0], "r": R3[0, :, :3].copy(), "h": np.zeros((1, 3), np.float32),
                   "c": np.zeros((1, 3), np.float32)}, [(1, 3), (1, 3)]),
})


def snake(webnn_name):
    if webnn_name == "isNaN":
        return "is_nan"
    out = ""
    for i, ch in enumerate(webnn_name):
        if ch.isupper() and not (i and webnn_name[i - 1].isupper()):
            out += "_"
        out += ch.lower()
    return out


def test_every_operator_of_the_library_is_a_method():
    names = wnn.operators()
    assert len(names) >= 90
    missing = [n for n in names if not hasattr(wnn.GraphBuilder, n)]
    assert not missing, f"operators without a GraphBuilder method: {missing}"
    for n in names:
        s = snake(n)
        assert hasattr(wnn.GraphBuilder, s), s
        assert getattr(wnn.GraphBuilder, s).__doc__ == getattr(wnn.GraphBuilder, n).__doc__
        assert f"MLGraphBuilder.{n}()" in getattr(wnn.GraphBuilder, n).__doc__


def test_every_operator_has_a_case_here():
    assert sorted(snake(n) for n in wnn.operators()) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_operator(ctx, name):
    make, arrays, expected = CASES[name]
    got = run(ctx, make, **arrays)
    if expected is None:
        return
    if isinstance(expected, list) and isinstance(expected[0], tuple):
        got = got if isinstance(got, list) else [got]
        assert [g.shape for g in got] == expected
        assert all(np.isfinite(g).all() for g in got)
        return
    for g, e in zip(got if isinstance(got, list) else [got], expected if isinstance(expected, list) else [expected]):
        e = np.asarray(e)
        assert g.shape == e.shape, name
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, e.astype(g.dtype), rtol=2e-5, atol=2e-5)
        else:
            np.testing.assert_array_equal(g, e.astype(g.dtype))


def test_batch_normalization_values(ctx):
    got = run(ctx, lambda b, x: b.batch_normalization(
        x, b.constant(np.float32([1, 2, 3])), b.constant(np.float32([4, 4, 4])),
        scale=b.constant(np.float32([2, 2, 2])), bias=b.constant(np.float32([1, 1, 1])), epsilon=0.0), x=F)
    np.testing.assert_allclose(got, (F - [1, 2, 3]) / 2 * 2 + 1, rtol=1e-6)


def test_camel_case_names_and_keywords(ctx):
    a = run(ctx, lambda b, x: b.reduceSum(x, axes=[0], keepDimensions=True), x=F)
    np.testing.assert_allclose(a, F.sum(0, keepdims=True), rtol=1e-6)
    a = run(ctx, lambda b, x, y: b.gemm(x, y, aTranspose=True), x=F.T.copy(), y=G.T.copy())
    np.testing.assert_allclose(a, F @ G.T, rtol=1e-5)


def test_clamp_integer_bounds_keep_precision(ctx):
    x = np.array([-(2**62), 2**53 + 3, 2**62], np.int64)
    got = run(ctx, lambda b, x: b.clamp(x, min_value=-(2**53) - 1, max_value=2**53 + 1), x=x)
    np.testing.assert_array_equal(got, [-(2**53) - 1, 2**53 + 1, 2**53 + 1])


def test_constants_of_each_kind(ctx):
    t = ctx.constant(np.float32([10, 20]))
    got = run(ctx, lambda b, x: b.add(b.add(x, b.constant(t)),
                                      b.add(b.constant(np.float32([1, 2])), b.constant(0.5))), x=np.float32([1, 1]))
    np.testing.assert_array_equal(got, [12.5, 23.5])
    got = run(ctx, lambda b, x: b.add(x, b.constant(2**40, "int64")), x=np.int64([1]))
    np.testing.assert_array_equal(got, [2**40 + 1])
    got = run(ctx, lambda b, x: b.add(x, b.constant(2**64 - 1, "uint64")), x=np.uint64([0]))
    np.testing.assert_array_equal(got, [2**64 - 1])
    got = run(ctx, lambda b, x: b.add(x, b.constant(b"\x01\x00\x02\x00", dtype="uint8", shape=(4,))),
              x=np.uint8([1, 1, 1, 1]))
    np.testing.assert_array_equal(got, [2, 1, 3, 1])


def test_operand_attributes(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 3), "float16")
    y = b.transpose(x)
    assert (y.dtype, y.shape) == ("float16", (3, 2))
    assert y.builder is b
    assert "float16" in repr(y)
    assert b.context is ctx
    parts = b.split(x, 3, axis=1)
    assert [p.shape for p in parts] == [(2, 1)] * 3


def test_builder_errors_raise_and_builder_goes_on(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 3))
    with pytest.raises(wnn.ArgumentError) as e:
        b.matmul(x, x)
    assert "matmul" in str(e.value)
    with pytest.raises(wnn.ArgumentError) as e:
        b.add(x, b.input("i", (2, 3), "int32"))
    assert e.value.status_name == "WNN_STATUS_UNSUPPORTED_DATA_TYPE"
    with pytest.raises(wnn.ArgumentError):
        b.input("x", (1,))  # name taken
    g = b.build({"y": b.relu(x)})  # the builder still works after errors
    assert g.outputs == {"y": ("float32", (2, 3))}
    with pytest.raises(wnn.InvalidStateError) as e:
        b.build({"z": b.relu(x)})
    assert e.value.status_name == "WNN_STATUS_ALREADY_BUILT"


def test_argument_conversion_errors(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 3))
    with pytest.raises(TypeError, match="unexpected keyword"):
        b.relu(x, alpha=1)
    with pytest.raises(TypeError, match="missing"):
        b.add(x)
    with pytest.raises(TypeError):
        b.add(x, x, x)
    with pytest.raises(TypeError, match="multiple values"):
        b.add(x, a=x)
    with pytest.raises(TypeError, match="wnn.Operand"):
        b.relu(np.zeros(3))
    with pytest.raises(wnn.ArgumentError, match="rank is 2"):
        b.slice(x, [0], [1])  # one entry per dimension
    with pytest.raises(wnn.ArgumentError, match="4 entries"):
        b.conv2d(b.input("i", (1, 1, 2, 2)), b.input("f", (1, 1, 1, 1)), padding=[1, 1])
    with pytest.raises(wnn.ArgumentError, match="unknown input_layout"):
        b.conv2d(b.input("j", (1, 1, 2, 2)), b.input("k", (1, 1, 1, 1)), input_layout="nwhc")
    with pytest.raises(wnn.ArgumentError, match="range"):
        b.softmax(x, -1)
    with pytest.raises(TypeError):
        b.softmax(x, "1")
    with pytest.raises(TypeError):
        b.cast(x, "float64")
    with pytest.raises(wnn.ArgumentError):
        b.reduce_sum(x, axes=list(range(9)))
    with pytest.raises(wnn.ArgumentError, match="2 entries"):
        b.gru(b.input("g", (1, 1, 3)), b.input("w", (1, 12, 3)), b.input("r", (1, 12, 4)), 1, 4,
              activations=["sigmoid"])
    with pytest.raises(TypeError):
        b.build([x])
    with pytest.raises(TypeError):
        b.build({"y": 1})


def test_operands_of_another_builder(ctx):
    b1, b2 = wnn.GraphBuilder(ctx), wnn.GraphBuilder(ctx)
    x1 = b1.input("x", (2,))
    with pytest.raises(wnn.ArgumentError) as e:
        b2.relu(x1)
    assert e.value.status_name == "WNN_STATUS_WRONG_CONTEXT"
    del b1  # x1 keeps its builder alive
    assert x1.builder.context is ctx


def test_builder_needs_a_context():
    with pytest.raises(TypeError):
        wnn.GraphBuilder("cpu")
    assert isinstance(wnn.Context("cpu").graph_builder(), wnn.GraphBuilder)


@pytest.mark.parametrize("name", sorted(CASES))
def test_misuse_never_crashes(ctx, name):
    """Wrong counts, types and shapes of arguments raise; nothing crashes."""
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 3))
    i = b.input("i", (2,), "int32")
    method = getattr(b, name)
    attempts = [(), (None,), ("x",), (x,), (x, x), (x, i), (x, x, x), (x, 1), (x, [1]), (x, [0, 1, 2, 3, 4, 5, 6, 7, 8]),
                (x, x, x, 1, 1), (x, x, x, x, x, 1), ([x, i], 0), (x, 2**40), (x, -1), (i, i, i)]
    for args in attempts:
        for kwargs in ({}, {"axes": [5]}, {"axis": 9}, {"padding": [1, 2, 3, 4]}, {"activations": ["relu"] * 3}):
            try:
                method(*args, **kwargs)
            except (wnn.Error, TypeError, ValueError):
                pass
    b.build({"y": b.identity(x)})
