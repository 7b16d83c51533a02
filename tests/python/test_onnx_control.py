# SPDX-License-Identifier: Apache-2.0
"""ONNX control flow through wnn.onnx (src/onnx/ops_control.c): If with a
condition known at import (the taken branch is inlined) or computed (both
branches, selected with where), nested subgraphs that read outer names, and
the errors for what a static graph cannot hold.

The models are made here with onnx.helper (Debian's python3-onnx).
"""
import numpy as np
import pytest

import wnn

onnx = pytest.importorskip("onnx", reason="python3-onnx is not installed")
from onnx import TensorProto, helper  # noqa: E402

pytestmark = pytest.mark.skipif(not wnn.onnx.onnx_available,
                                reason="the extension was built without the ONNX importer (libwnn_onnx)")

F = TensorProto.FLOAT


def save(tmp_path, graph, opset=16):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = str(tmp_path / "model.onnx")
    onnx.save(model, path)
    return path


def branch(name, nodes, outputs):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, F, None) for o in outputs])


def if_model(tmp_path, cond_nodes, cond_inputs, else_shape=(2, 3)):
    """y = x * 2 when the condition holds, else x + 10 (reshaped to else_shape)."""
    then_g = branch("then", [helper.make_node("Mul", ["x", "two"], ["t"])], ["t"])
    shape = helper.make_tensor("else_shape", TensorProto.INT64, [len(else_shape)], list(else_shape))
    else_g = helper.make_graph([helper.make_node("Add", ["x", "ten"], ["e0"]),
                                helper.make_node("Reshape", ["e0", "else_shape"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", F, None)], [shape])
    nodes = cond_nodes + [helper.make_node("If", ["cond"], ["y"], name="the_if", then_branch=then_g,
                                           else_branch=else_g)]
    inits = [helper.make_tensor("two", F, [], [2.0]), helper.make_tensor("ten", F, [], [10.0])]
    graph = helper.make_graph(nodes, "if", [helper.make_tensor_value_info("x", F, [2, 3])] + cond_inputs,
                              [helper.make_tensor_value_info("y", F, None)], inits)
    return save(tmp_path, graph)


X = np.arange(6, dtype=np.float32).reshape(2, 3)


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("flag", [0, 1])
def test_if_on_a_bound_input_inlines_the_taken_branch(tmp_path, device, flag):
    """Silero VAD's pattern: Equal(sr, 16000) -> If, with sr bound as a constant."""
    sr = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
    k = helper.make_tensor("k", TensorProto.INT64, [], [16000])
    path = if_model(tmp_path, [helper.make_node("Constant", [], ["k16"], value=k),
                               helper.make_node("Equal", ["sr", "k16"], ["cond"])], [sr], else_shape=(3, 2))
    sr_value = np.array(16000 if flag else 8000, np.int64)
    m = wnn.onnx.load(path, device=device, constants={"sr": sr_value})
    feeds = {i.name: (X if i.name == "x" else sr_value) for i in m.inputs}
    want = X * 2 if flag else (X + 10).reshape(3, 2)
    np.testing.assert_array_equal(m.run(feeds)["y"], want)


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_if_on_a_computed_condition_selects_with_where(tmp_path, device):
    """openWakeWord's pattern: a condition computed from the data."""
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "ten"], ["cond"])]
    m = wnn.onnx.load(if_model(tmp_path, nodes, []), device=device)
    np.testing.assert_array_equal(m.run({"x": X})["y"], X * 2)  # sum 15 > 10
    small = X / 10
    np.testing.assert_allclose(m.run({"x": small})["y"], small + 10)


def test_if_with_branches_of_different_shapes_needs_a_known_condition(tmp_path):
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "ten"], ["cond"])]
    path = if_model(tmp_path, nodes, [], else_shape=(3, 2))
    with pytest.raises(wnn.NotSupportedError, match=r"'the_if' \(If, opset 16\).*output 0 differs between the "
                       r"branches \(then float32 \[2, 3\], else float32 \[3, 2\]\)"):
        wnn.onnx.load(path)


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_nested_if_reads_outer_names(tmp_path, device):
    """An If inside a branch, its own branches reading x (the main graph) and
    a value of the branch around them."""
    inner_then = branch("inner_then", [helper.make_node("Add", ["x", "outer"], ["it"])], ["it"])
    inner_else = branch("inner_else", [helper.make_node("Sub", ["x", "outer"], ["ie"])], ["ie"])
    outer_then = branch("outer_then", [helper.make_node("Mul", ["x", "x"], ["outer"]),
                                       helper.make_node("If", ["c2"], ["o"], name="inner", then_branch=inner_then,
                                                        else_branch=inner_else)], ["o"])
    outer_else = branch("outer_else", [helper.make_node("Neg", ["x"], ["n"])], ["n"])
    graph = helper.make_graph(
        [helper.make_node("If", ["c1"], ["y"], name="outer", then_branch=outer_then, else_branch=outer_else)],
        "nested", [helper.make_tensor_value_info("x", F, [4]), helper.make_tensor_value_info("c1", TensorProto.BOOL, []),
                   helper.make_tensor_value_info("c2", TensorProto.BOOL, [1])],
        [helper.make_tensor_value_info("y", F, None)])
    path = save(tmp_path, graph)
    x = np.array([1, -2, 3, 0.5], np.float32)
    for c1 in (True, False):
        for c2 in (True, False):
            m = wnn.onnx.load(path, device=device, constants={"c1": np.array(c1), "c2": np.array([c2])})
            feeds = {"x": x, "c1": np.array(c1), "c2": np.array([c2])}
            got = m.run({i.name: feeds[i.name] for i in m.inputs})["y"]
            want = (x + x * x if c2 else x - x * x) if c1 else -x
            np.testing.assert_array_equal(got, want)
    # neither bound: both levels computed and selected
    m = wnn.onnx.load(path, device=device)
    got = m.run({"x": x, "c1": np.array(True), "c2": np.array([False])})["y"]
    np.testing.assert_array_equal(got, x - x * x)


def test_if_failure_inside_a_branch_names_both_nodes(tmp_path):
    then_g = branch("then", [helper.make_node("NonZero", ["x"], ["t"], name="nz")], ["t"])
    else_g = branch("else", [helper.make_node("Neg", ["x"], ["e"])], ["e"])
    graph = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="the_if", then_branch=then_g,
                                                else_branch=else_g)], "g",
                              [helper.make_tensor_value_info("x", F, [4]),
                               helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", F, None)])
    path = save(tmp_path, graph)
    with pytest.raises(wnn.NotSupportedError, match=r"'the_if' \(If, opset 16\): then_branch: node 0 'nz' "
                       r"\(NonZero, opset 16\): operator NonZero has no WebNN lowering"):
        wnn.onnx.load(path)
    issues = wnn.onnx.check(path)
    assert [i["node_name"] for i in issues] == ["the_if"]
    # the else branch alone is fine
    m = wnn.onnx.load(path, constants={"c": np.array(False)})
    assert [i.name for i in m.inputs] == ["x"]  # the bound condition feeds no operator
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(m.run({"x": x})["y"], -x)
