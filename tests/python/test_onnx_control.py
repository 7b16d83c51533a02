# SPDX-License-Identifier: Apache-2.0
"""ONNX control flow through wnn.onnx (src/onnx/ops_control.c): If with a
condition known at import (the taken branch is inlined) or computed (both
branches, selected with where), nested subgraphs that read outer names, Loop
and Scan unrolled, and the errors for what a static graph cannot hold.

The models are made here with onnx.helper (Debian's python3-onnx).
"""
import numpy as np
import pytest

import wnn

# onnx.helper, not onnx: libonnx-testdata alone leaves an empty onnx namespace
pytest.importorskip("onnx.helper", reason="python3-onnx is not installed")
import onnx  # noqa: E402
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


def loop_model(tmp_path, trip_count_input):
    """Loop: acc += x[i] (a slice by the iteration number), scan output acc * 2."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
         helper.make_node("Add", ["i1", "one"], ["i2"]),
         helper.make_node("Slice", ["x", "i1", "i2"], ["xi"]),
         helper.make_node("Add", ["acc_in", "xi"], ["acc_out"]),
         helper.make_node("Mul", ["acc_out", "two"], ["scan"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", F, [1])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", F, [1]), helper.make_tensor_value_info("scan", F, [1])],
        [helper.make_tensor("zero", TensorProto.INT64, [1], [0]), helper.make_tensor("one", TensorProto.INT64, [1], [1]),
         helper.make_tensor("two", F, [], [2.0])])
    inits = [helper.make_tensor("acc0", F, [1], [0.5])]
    inputs = [helper.make_tensor_value_info("x", F, [5])]
    if trip_count_input:
        inputs.append(helper.make_tensor_value_info("m", TensorProto.INT64, []))
    else:
        inits.append(helper.make_tensor("m", TensorProto.INT64, [], [4]))
    graph = helper.make_graph([helper.make_node("Loop", ["m", "", "acc0"], ["acc", "scans"], name="the_loop",
                                                body=body)], "loop", inputs,
                              [helper.make_tensor_value_info("acc", F, None),
                               helper.make_tensor_value_info("scans", F, None)], inits)
    return save(tmp_path, graph)


@pytest.mark.parametrize("device", ["cpu", "null"])
def test_loop_with_a_known_trip_count_is_unrolled(tmp_path, device):
    x = np.array([1, 2, 3, 4, 5], np.float32)
    m = wnn.onnx.load(loop_model(tmp_path, False), device=device)
    out = m.run({"x": x})
    acc = 0.5 + np.cumsum(x[:4])
    np.testing.assert_array_equal(out["acc"], acc[-1:])
    np.testing.assert_array_equal(out["scans"], (acc * 2).reshape(4, 1))
    # the trip count as a bound input
    m = wnn.onnx.load(loop_model(tmp_path, True), device=device, constants={"m": np.array(2, np.int64)})
    out = m.run({i.name: (x if i.name == "x" else np.array(2, np.int64)) for i in m.inputs})
    np.testing.assert_array_equal(out["scans"], (acc[:2] * 2).reshape(2, 1))


def test_loop_with_an_unknown_trip_count_is_refused(tmp_path):
    with pytest.raises(wnn.NotSupportedError, match=r"'the_loop' \(Loop, opset 16\): the trip count \('m'\) must "
                       r"be one value known at import"):
        wnn.onnx.load(loop_model(tmp_path, True))


@pytest.mark.parametrize("device", ["cpu", "null"])
@pytest.mark.parametrize("direction,out_axis", [(0, 0), (1, 1)])
def test_scan_is_unrolled_over_its_static_length(tmp_path, device, direction, out_axis):
    """A running sum over axis 1 of x [2, 3], read forward or backward, its
    steps stacked on axis 0 or 1."""
    body = helper.make_graph([helper.make_node("Add", ["s_in", "xt"], ["s_out"]),
                              helper.make_node("Identity", ["s_out"], ["y"])], "body",
                             [helper.make_tensor_value_info("s_in", F, [2]), helper.make_tensor_value_info("xt", F, [2])],
                             [helper.make_tensor_value_info("s_out", F, [2]), helper.make_tensor_value_info("y", F, [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["s", "ys"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[direction], scan_output_axes=[out_axis])
    graph = helper.make_graph([node], "scan", [helper.make_tensor_value_info("s0", F, [2]),
                                               helper.make_tensor_value_info("x", F, [2, 3])],
                              [helper.make_tensor_value_info("s", F, None), helper.make_tensor_value_info("ys", F, None)])
    m = wnn.onnx.load(save(tmp_path, graph), device=device)
    s0 = np.array([10, 20], np.float32)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    steps = x[:, ::-1] if direction else x
    running = s0[:, None] + np.cumsum(steps, axis=1)  # [2, 3]: state after each step
    out = m.run({"s0": s0, "x": x})
    np.testing.assert_array_equal(out["s"], running[:, -1])
    np.testing.assert_array_equal(out["ys"], running.T if out_axis == 0 else running)
