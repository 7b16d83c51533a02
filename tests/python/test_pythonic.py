# SPDX-License-Identifier: Apache-2.0
"""The module as a NumPy or PyTorch user expects it (issue 12 items 7 and 8):
Tensor's NumPy conversions and attributes, Python data in writes and
constants, shape-checked writes, Operand arithmetic, reprs, signatures, stubs,
operator docstrings, python -m wnn, the thread count, and errors that say
everything."""
import ast
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import wnn

STUBS = os.path.join(os.path.dirname(wnn.__file__), "_wnn.pyi")


def run_graph(ctx, g, inputs, out_shape, dtype="float32"):
    bound = {}
    for k, v in inputs.items():
        bound[k] = ctx.tensor(v.shape, v.dtype.name, writable=True)
        ctx.write(bound[k], v)
    y = ctx.tensor(out_shape, dtype, readable=True)
    ctx.dispatch(g, bound, {"y": y})
    return y.numpy()


# ---- Tensor as NumPy sees it --------------------------------------------------------------


def test_tensor_converts_like_a_torch_tensor(ctx):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ctx.tensor((2, 3), readable=True, writable=True)
    ctx.write(t, a)
    np.testing.assert_array_equal(np.asarray(t), a)
    np.testing.assert_array_equal(np.array(t), a)
    np.testing.assert_array_equal(t.numpy(), a)
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert (t.shape, t.dtype, t.device, t.size, t.ndim, len(t)) == ((2, 3), "float32", "cpu", 6, 2, 2)
    r = t.numpy()
    r[0, 0] = 99  # a copy: the tensor keeps its value
    assert t.numpy()[0, 0] == 0
    assert bool(t)


def test_tensor_array_copy_false_and_unreadable_are_refused(ctx):
    t = ctx.tensor((2,), readable=True)
    with pytest.raises(ValueError, match="from_dlpack"):
        t.__array__(copy=False)
    hidden = ctx.tensor((2,))
    with pytest.raises(wnn.ArgumentError) as e:
        np.asarray(hidden)
    assert e.value.status_name == "WNN_STATUS_NOT_READABLE"
    scalar = ctx.tensor((), readable=True)
    assert scalar.size == 1 and scalar.tolist() == 0.0
    with pytest.raises(TypeError, match="0-d"):
        len(scalar)


# ---- Python data: the conversion rule --------------------------------------------------------


def test_write_takes_lists_and_numbers_converted_to_the_tensor_type(ctx):
    t = ctx.tensor((2, 3), readable=True, writable=True)
    ctx.write(t, [[1, 2, 3], [4, 5.5, 6]])
    np.testing.assert_array_equal(t.numpy(), [[1, 2, 3], [4, 5.5, 6]])
    ctx.write(t, ((0, 0, 0), (1, 1, 1)))
    assert t.tolist() == [[0, 0, 0], [1, 1, 1]]
    i = ctx.tensor((3,), "int32", readable=True, writable=True)
    ctx.write(i, [1, -2, True])
    assert i.tolist() == [1, -2, 1]
    h = ctx.tensor((2,), "float16", readable=True, writable=True)
    ctx.write(h, [0.5, -2])
    np.testing.assert_array_equal(h.numpy(), np.float16([0.5, -2]))
    u = ctx.tensor((1,), "uint64", readable=True, writable=True)
    ctx.write(u, [2**64 - 1])
    assert u.tolist() == [2**64 - 1]
    s = ctx.tensor((), readable=True, writable=True)
    ctx.write(s, 2.5)
    assert s.tolist() == 2.5


def test_python_data_is_never_narrowed_silently(ctx):
    i = ctx.tensor((2,), "int32", writable=True)
    with pytest.raises(TypeError, match="not an integer"):
        ctx.write(i, [1.5, 2])
    with pytest.raises(wnn.ArgumentError, match="out of the range of int32"):
        ctx.write(i, [2**31, 0])
    u8 = ctx.tensor((1,), "uint8", writable=True)
    with pytest.raises(wnn.ArgumentError, match="out of the range of uint8"):
        ctx.write(u8, [-1])
    t = ctx.tensor((2, 2), writable=True)
    with pytest.raises(wnn.ArgumentError, match="ragged"):
        ctx.write(t, [[1, 2], [3]])
    with pytest.raises(wnn.ArgumentError, match="ragged"):
        ctx.write(t, [[1, 2], 3])
    with pytest.raises(TypeError, match="not a number"):
        ctx.write(t, [["a", 2], [3, 4]])
    with pytest.raises(TypeError, match="packed bytes"):
        ctx.write(ctx.tensor((2,), "int4", writable=True), [1, 2])


def test_arrays_of_types_wnn_lacks_name_astype(ctx):
    t = ctx.tensor((2,), writable=True)
    with pytest.raises(TypeError, match=r"astype\(numpy.float32\)"):
        ctx.write(t, np.zeros(2))  # float64, NumPy's default
    with pytest.raises(TypeError, match="astype"):
        ctx.constant(np.zeros(2))
    b = wnn.GraphBuilder(ctx)
    with pytest.raises(TypeError, match="astype"):
        b.constant(np.zeros(2))
    with pytest.raises(TypeError, match=r"astype\(numpy.int32\)"):
        ctx.write(ctx.tensor((2,), "int32", writable=True), np.zeros(2, np.int64))


def test_constants_take_lists_with_dtype_and_shape(ctx):
    c = ctx.constant([[1, 2], [3, 4]])
    assert (c.shape, c.dtype) == ((2, 2), "float32")
    c8 = ctx.constant([1, 2, 3, 4], dtype="int8", shape=(2, 2))
    assert (c8.shape, c8.dtype) == ((2, 2), "int8")
    with pytest.raises(wnn.ArgumentError, match=r"\[3\].*\(2, 2\)|\[3\].*\[2, 2\]"):
        ctx.constant([1, 2, 3], shape=(2, 2))
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    w = b.constant([[1.0, 0.0], [0.0, 2.0]])
    bias = b.constant([10, 20], dtype="float32")
    g = b.build({"y": b.add(b.matmul(x, w), bias)})
    got = run_graph(ctx, g, {"x": np.float32([[1, 2], [3, 4]])}, (2, 2))
    np.testing.assert_array_equal(got, [[11, 24], [13, 28]])


# ---- write checks the shape --------------------------------------------------------------


def test_write_checks_shape_not_only_bytes(ctx):
    t = ctx.tensor((2, 3), readable=True, writable=True)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(t, np.zeros((3, 2), np.float32))
    assert e.value.status_name == "WNN_STATUS_DESCRIPTOR_MISMATCH"
    assert "[3, 2]" in str(e.value) and "[2, 3]" in str(e.value)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(t, np.zeros(6, np.float32))
    assert "[6]" in str(e.value)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(t, [[1, 2], [3, 4], [5, 6]])
    assert "[3, 2]" in str(e.value) and e.value.status_name == "WNN_STATUS_DESCRIPTOR_MISMATCH"
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.write(t, np.zeros((2, 2), np.float32))
    assert e.value.status_name == "WNN_STATUS_BYTE_LENGTH_MISMATCH"
    ctx.write(t, np.arange(6, dtype=np.float32).tobytes())  # raw bytes: by byte count
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    u = ctx.tensor((2, 3), "uint8", readable=True, writable=True)
    ctx.write(u, np.arange(6, dtype=np.uint8))  # a 1-D uint8 buffer is raw bytes
    with pytest.raises(wnn.ArgumentError, match=r"\[3, 2\]"):
        ctx.write(u, np.zeros((3, 2), np.uint8))


# ---- Operand arithmetic -------------------------------------------------------------------


def test_operand_arithmetic_matches_numpy(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2, 2))
    y = b.input("w", (2, 2))
    expr = ((x + 1) * 2 - y / 4) @ y + (-x) + 3 - (1 - x) * (2 / (x + 10)) + x ** 2
    g = b.build({"y": expr})
    xv = np.float32([[1, 2], [3, 4]])
    wv = np.float32([[0.5, -1], [2, 0.25]])
    got = run_graph(ctx, g, {"x": xv, "w": wv}, (2, 2))
    want = ((xv + 1) * 2 - wv / 4) @ wv + (-xv) + 3 - (1 - xv) * (2 / (xv + 10)) + xv ** 2
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert +x is x


def test_operand_arithmetic_keeps_the_operand_type(ctx):
    b = wnn.GraphBuilder(ctx)
    i = b.input("i", (3,), "int32")
    assert (i * 2 + 1).dtype == "int32"
    with pytest.raises(TypeError, match="float.*int32"):
        i * 0.5
    with pytest.raises(TypeError):
        i + "1"
    with pytest.raises(TypeError):
        i @ 2
    f16 = b.input("h", (3,), "float16")
    assert (f16 * 0.5).dtype == "float16"
    with pytest.raises(wnn.ArgumentError, match="add"):
        b.input("x", (2,)) + b.input("z", (3,))
    g = b.build({"y": i * 2 + 1})
    got = run_graph(ctx, g, {"i": np.int32([1, -2, 3])}, (3,), "int32")
    np.testing.assert_array_equal(got, [3, -3, 7])


# ---- repr, signatures, stubs, docstrings --------------------------------------------------


def test_every_object_has_a_repr(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2,))
    g = b.build({"y": b.relu(x)})
    reprs = [repr(o) for o in (ctx, ctx.tensor((2,)), x, b, g)]
    assert not [r for r in reprs if "object at 0x" in r], reprs
    assert repr(b) == "<wnn.GraphBuilder on cpu>"
    assert repr(g) == "<wnn.Graph inputs={'x': ('float32', (2,))} outputs={'y': ('float32', (2,))} on cpu>"


def test_signatures_are_introspectable():
    cases = {
        wnn.Context.read: "(self, /, tensor, *, out=None)",
        wnn.Context.tensor: "(self, /, shape, dtype='float32', *, readable=False, writable=False)",
        wnn.Context.write: "(self, tensor, data, /)",
        wnn.GraphBuilder.build: "(self, outputs, /)",
        wnn.GraphBuilder.relu: "(self, /, input)",
        wnn.GraphBuilder.roundEven: "(self, /, input)",
        wnn.Tensor.numpy: "(self, /)",
        wnn.from_dlpack: "(x, /, *, device=None, copy=None)",
        wnn.set_num_threads: "(n, /)",
        wnn.Context: "(device=None, *, power_preference='default', policy='chromium', memory_limit=0)",
    }
    for f, want in cases.items():
        assert str(inspect.signature(f)) == want, f
    conv = inspect.signature(wnn.GraphBuilder.conv2d)
    assert list(conv.parameters)[:3] == ["self", "input", "filter"]
    assert conv.parameters["padding"].kind is inspect.Parameter.KEYWORD_ONLY
    names = [n for n in dir(wnn.GraphBuilder) if not n.startswith("_") and callable(getattr(wnn.GraphBuilder, n))]
    for n in names:
        inspect.signature(getattr(wnn.GraphBuilder, n))  # every method has one


def test_operator_docstrings_state_webnn_conventions():
    conv = wnn.GraphBuilder.conv2d.__doc__
    for phrase in ("[beginH, endH, beginW, endW]", "nchw", "oihw", "[p, p, q, q]"):
        assert phrase in conv, phrase
    assert "iohw" in wnn.GraphBuilder.conv_transpose2d.__doc__
    for pool in ("max_pool2d", "averagePool2d", "l2_pool2d"):
        doc = getattr(wnn.GraphBuilder, pool).__doc__
        assert "global" in doc and "[beginH, endH, beginW, endW]" in doc, pool
    assert "every axis" in wnn.GraphBuilder.reduce_mean.__doc__
    assert "beginning_padding" in wnn.GraphBuilder.pad.__doc__


def test_stubs_declare_every_public_name():
    tree = ast.parse(open(STUBS).read())
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    top |= {t.target.id for t in tree.body if isinstance(t, ast.AnnAssign)}
    missing = [n for n in wnn.__all__ if n not in top]
    assert not missing, missing
    builder = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "GraphBuilder")
    declared = {f.name for f in builder.body if isinstance(f, ast.FunctionDef)}
    methods = {n for n in dir(wnn.GraphBuilder) if not n.startswith("_")} - {"context"}
    assert methods - declared == set()
    assert os.path.exists(os.path.join(os.path.dirname(STUBS), "py.typed"))


# ---- python -m wnn ------------------------------------------------------------------------


def python_m_wnn(args, **env):
    e = {k: v for k, v in os.environ.items() if k != "WNN_PROGRAM"}
    e.update(env)
    e["PYTHONPATH"] = os.path.dirname(os.path.dirname(wnn.__file__))
    return subprocess.run([sys.executable, "-m", "wnn", *args], capture_output=True, text=True, env=e)


def test_python_m_wnn_runs_the_program_or_says_where_it_is():
    r = python_m_wnn(["--version"], PATH="/nonexistent")
    assert r.returncode == 2 and "wnn program is not installed" in r.stderr
    echo = "/bin/echo"  # a native program stands in for wnn: the arguments pass through
    r = python_m_wnn(["devices", "--json"], PATH="/nonexistent", WNN_PROGRAM=echo)
    assert r.returncode == 0 and r.stdout == "devices --json\n"


# ---- threads ----------------------------------------------------------------------------


def test_thread_count_setting(ctx):
    default = wnn.get_num_threads()
    assert default >= 1
    try:
        wnn.set_num_threads(1)
        assert wnn.get_num_threads() == 1
        b = wnn.GraphBuilder(ctx)
        x = b.input("x", (1 << 16,))
        g = b.build({"y": b.relu(x)})
        xv = np.linspace(-1, 1, 1 << 16, dtype=np.float32)
        np.testing.assert_array_equal(run_graph(ctx, g, {"x": xv}, xv.shape), np.maximum(xv, 0))
        wnn.set_num_threads(3)
        assert wnn.get_num_threads() == 3
        np.testing.assert_array_equal(run_graph(ctx, g, {"x": xv}, xv.shape), np.maximum(xv, 0))
        with pytest.raises(wnn.ArgumentError, match="at most 256"):
            wnn.set_num_threads(257)
        with pytest.raises(wnn.ArgumentError):
            wnn.set_num_threads(-1)
        with pytest.raises(TypeError):
            wnn.set_num_threads(2.0)
        assert wnn.get_num_threads() == 3
    finally:
        wnn.set_num_threads(0)
    assert wnn.get_num_threads() == default


# ---- errors that say everything -----------------------------------------------------------


def test_dispatch_mismatch_prints_both_shapes(ctx):
    b = wnn.GraphBuilder(ctx)
    g = b.build({"y": b.relu(b.input("x", (2, 3)))})
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.dispatch(g, {"x": ctx.tensor((3, 2))}, {"y": ctx.tensor((2, 3))})
    assert e.value.status_name == "WNN_STATUS_DESCRIPTOR_MISMATCH"
    assert 'input "x" is a float32 tensor of shape [3, 2], the graph wants float32 of shape [2, 3]' in str(e.value)


def test_tensor_of_another_context_hints_at_from_dlpack_device(ctx):
    b = wnn.GraphBuilder(ctx)
    g = b.build({"y": b.relu(b.input("x", (2,)))})
    foreign = wnn.from_dlpack(np.float32([1, -1]))  # the default context, not ctx
    y = ctx.tensor((2,), readable=True)
    with pytest.raises(wnn.ArgumentError) as e:
        ctx.dispatch(g, {"x": foreign}, {"y": y})
    assert "another context" in str(e.value) and "from_dlpack(x, device=ctx)" in str(e.value)
    with pytest.raises(wnn.ArgumentError, match=r"device=ctx"):
        ctx.write(wnn.default_context().tensor((2,), writable=True), [1, 2])
    ctx.dispatch(g, {"x": wnn.from_dlpack(np.float32([1, -1]), device=ctx)}, {"y": y})
    assert y.tolist() == [1, 0]


def test_refused_build_leaves_the_builder_usable(ctx):
    b = wnn.GraphBuilder(ctx)
    x = b.input("x", (2,))
    y = b.relu(x)
    with pytest.raises(wnn.ArgumentError, match="use identity"):
        b.build({"y": x})
    with pytest.raises(wnn.ArgumentError, match="no outputs"):
        b.build({})
    with pytest.raises(TypeError):
        b.build({"y": "not an operand"})
    g = b.build({"y": y})  # the corrected call builds, with every operand made before
    assert g.outputs == {"y": ("float32", (2,))}
    with pytest.raises(wnn.InvalidStateError) as e:
        b.build({"y": y})
    assert e.value.status_name == "WNN_STATUS_ALREADY_BUILT"
