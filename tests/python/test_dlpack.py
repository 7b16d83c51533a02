# SPDX-License-Identifier: Apache-2.0
"""The DLPack protocol itself, read with ctypes: capsule names per
max_version, the managed tensor's fields and flags, the consumer's rename,
the capsule destructor, argument validation and errors."""
import gc
import sys

import numpy as np
import pytest

import wnn
from conftest import IS_COPIED, READ_ONLY, capsule_info, capsule_name, consume_capsule, needs_null


@pytest.fixture
def t(ctx):
    t = ctx.tensor((2, 3), readable=True, writable=True)
    ctx.write(t, np.arange(6, dtype=np.float32).reshape(2, 3))
    return t


@pytest.mark.parametrize("max_version,name", [
    (None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"), ((1, 99), "dltensor_versioned"),
    ((2, 0), "dltensor_versioned"),
])
def test_capsule_name_follows_max_version(t, max_version, name):
    c = t.__dlpack__(max_version=max_version)
    assert capsule_name(c) == name
    info = capsule_info(c)
    if name == "dltensor_versioned":
        assert info["version"][0] == 1  # wnn's own version, whatever was asked
        assert info["flags"] == 0
    assert info["device"] == (1, 0)


def test_managed_tensor_fields(t):
    info = capsule_info(t.__dlpack__(max_version=(1, 0)))
    assert info["ndim"] == 2
    assert info["shape"] == (2, 3)
    assert info["strides"] == (3, 1)  # always filled
    assert info["byte_offset"] == 0
    assert info["dtype"] == (2, 32, 1)
    # both exports lend the same memory
    assert capsule_info(t.__dlpack__())["data"] == info["data"]


@pytest.mark.parametrize("dtype,code", [
    ("float32", (2, 32, 1)), ("float16", (2, 16, 1)), ("int32", (0, 32, 1)), ("uint32", (1, 32, 1)),
    ("int64", (0, 64, 1)), ("uint64", (1, 64, 1)), ("int8", (0, 8, 1)), ("uint8", (1, 8, 1)),
])
def test_data_type_codes(ctx, dtype, code):
    assert capsule_info(ctx.tensor((1,), dtype).__dlpack__(max_version=(1, 0)))["dtype"] == code


def test_scalar_tensor(ctx):
    info = capsule_info(ctx.tensor((), readable=True).__dlpack__(max_version=(1, 0)))
    assert info["ndim"] == 0 and info["shape"] == ()


def test_int4_cannot_be_exported(ctx):
    with pytest.raises(BufferError):
        ctx.tensor((4,), "int4").__dlpack__()


def test_constant_is_read_only_and_legacy_copies(ctx):
    a = np.float32([1, 2, 3])
    c = ctx.constant(a)
    v = capsule_info(c.__dlpack__(max_version=(1, 0)))
    assert v["flags"] == READ_ONLY
    assert v["data"] == capsule_info(c.__dlpack__(max_version=(1, 0)))["data"]  # shared
    legacy = capsule_info(c.__dlpack__())  # cannot say read-only: a private copy
    assert legacy["data"] != v["data"]
    with pytest.raises(BufferError):
        c.__dlpack__(copy=False)
    np.testing.assert_array_equal(np.from_dlpack(c), a)


def test_copy_true_sets_is_copied(t):
    shared = capsule_info(t.__dlpack__(max_version=(1, 0)))
    copied = capsule_info(t.__dlpack__(max_version=(1, 0), copy=True))
    assert copied["flags"] & IS_COPIED
    assert copied["data"] != shared["data"]
    assert capsule_info(t.__dlpack__(max_version=(1, 0), copy=False))["data"] == shared["data"]


def test_dl_device(t):
    assert capsule_info(t.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))["flags"] == 0  # host already
    for bad in [(2, 0), (1, 1), (9, 0), (1, 2**30)]:
        with pytest.raises(BufferError):
            t.__dlpack__(max_version=(1, 0), dl_device=bad)


def test_dlpack_device(ctx, t):
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(TypeError):
        t.__dlpack_device__(1)


def test_stream_on_cpu(t):
    assert capsule_name(t.__dlpack__(stream=None)) == "dltensor"
    assert capsule_name(t.__dlpack__(stream=-1)) == "dltensor"  # no synchronisation: allowed
    for s in (0, 1, 2, 3, -2):
        with pytest.raises(ValueError):
            t.__dlpack__(stream=s)
    for s in ("1", 1.0, True, object()):
        with pytest.raises(TypeError):
            t.__dlpack__(stream=s)


@needs_null
def test_stream_on_null_device():
    n = wnn.Context("null")
    t = n.tensor((2,), writable=True)
    n.write(t, np.float32([1, 2]))
    for s in (None, -1, 1, 2, 3, 2**40):
        assert capsule_info(t.__dlpack__(max_version=(1, 0), stream=s))["device"] == (12, 0)
    for s in (0, -2):
        with pytest.raises(ValueError):
            t.__dlpack__(stream=s)
    with pytest.raises(ValueError):  # host memory takes no stream
        t.__dlpack__(stream=1, dl_device=(1, 0))


def test_malformed_arguments(t):
    for bad in [(1,), 1, "1.0", (1, "0"), [1, 0]]:
        with pytest.raises(TypeError):
            t.__dlpack__(max_version=bad)
    for bad in [1, (1,), "cpu"]:
        with pytest.raises(TypeError):
            t.__dlpack__(dl_device=bad)
    with pytest.raises(TypeError):
        t.__dlpack__(None)  # keywords only
    with pytest.raises(TypeError):
        t.__dlpack__(device=(1, 0))


def test_destroyed_tensor(t):
    t.destroy()
    with pytest.raises(wnn.InvalidStateError):
        t.__dlpack__()


def test_capsule_keeps_the_tensor_referenced(t):
    before = sys.getrefcount(t)
    c = t.__dlpack__(max_version=(1, 0))
    assert sys.getrefcount(t) == before + 1
    del c
    assert sys.getrefcount(t) == before
    c = t.__dlpack__()
    consume_capsule(c)
    assert capsule_name(c) == "used_dltensor"
    del c  # consumed: the destructor must not call the deleter again
    assert sys.getrefcount(t) == before


def test_unconsumed_capsules_free_their_export(ctx):
    t = ctx.tensor((1024,), readable=True)
    for _ in range(3):
        t.__dlpack__(max_version=(1, 0), copy=True)  # each copy is 4 KiB, freed with its capsule
        t.__dlpack__(copy=True)
    gc.collect()
    # what is left is the tensor itself
    assert ctx.memory_stats()["in_use_bytes"] == 4096


def test_capsule_destructor_keeps_the_exception_in_flight(t):
    def fail():
        c = t.__dlpack__(max_version=(1, 0))  # noqa: F841 -- dies while the exception propagates
        raise KeyError("in flight")
    with pytest.raises(KeyError, match="in flight"):
        fail()


def test_consumed_capsule_cannot_be_imported_twice(t):
    c = t.__dlpack__(max_version=(1, 0))
    w = wnn.from_dlpack(c)
    assert capsule_name(c) == "used_dltensor_versioned"
    with pytest.raises(ValueError, match="consumed"):
        wnn.from_dlpack(c)
    np.testing.assert_array_equal(w.context.read(w), np.arange(6).reshape(2, 3))


def test_from_dlpack_accepts_both_capsules(ctx, t):
    for c in (t.__dlpack__(), t.__dlpack__(max_version=(1, 0))):
        w = wnn.from_dlpack(c, device=ctx)
        assert w.context is ctx
        np.testing.assert_array_equal(ctx.read(w), ctx.read(t))


def test_from_dlpack_of_a_wnn_tensor_shares(ctx, t):
    w = wnn.from_dlpack(t)
    assert w.context is ctx
    ctx.write(t, np.full((2, 3), 9, np.float32))
    np.testing.assert_array_equal(ctx.read(w), np.full((2, 3), 9))
    c = wnn.from_dlpack(t, copy=True)
    ctx.write(t, np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(ctx.read(c), np.full((2, 3), 9))


def test_from_dlpack_of_a_wnn_constant_is_a_constant(ctx):
    c = ctx.constant(np.float32([1, 2]))
    w = wnn.from_dlpack(c)
    assert w.constant
    assert capsule_info(w.__dlpack__(max_version=(1, 0)))["flags"] == READ_ONLY


def test_from_dlpack_errors(ctx):
    with pytest.raises(AttributeError):
        wnn.from_dlpack(object())
    with pytest.raises(TypeError):
        wnn.from_dlpack(np.zeros(2, np.float32), device=3)
    with pytest.raises(wnn.NotSupportedError):
        wnn.from_dlpack(np.zeros(2, np.float32), device="no-such-device")
    with pytest.raises(BufferError):
        wnn.from_dlpack(np.zeros(2, np.float32), device=(2, 0))  # no CUDA device in wnn here
    with pytest.raises(TypeError):
        wnn.from_dlpack(np.zeros(2, np.float32), "cpu")  # device is keyword-only
    with pytest.raises(TypeError):
        wnn.from_dlpack()


class OldProducer:
    """A producer from before DLPack 1.0: __dlpack__ takes only stream."""

    calls = 0

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        OldProducer.calls += 1
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)


def test_from_dlpack_falls_back_on_type_error(ctx):
    a = np.arange(4, dtype=np.int32)
    OldProducer.calls = 0
    w = wnn.from_dlpack(OldProducer(a))
    assert OldProducer.calls == 1  # the keyword call raised TypeError before reaching the body
    np.testing.assert_array_equal(w.context.read(w), a)
    wnn.from_dlpack(OldProducer(a))  # the type is known now: called without keywords at once
    assert OldProducer.calls == 2


class VersionedProducer:
    """Records what a consumer passes."""

    def __init__(self, t):
        self.t = t
        self.kwargs = None

    def __dlpack__(self, **kwargs):
        self.kwargs = kwargs
        return self.t.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_from_dlpack_passes_max_version_dl_device_and_copy(ctx, t):
    p = VersionedProducer(t)
    wnn.from_dlpack(p)
    assert p.kwargs == {"max_version": (1, 3)}
    wnn.from_dlpack(p, device="cpu", copy=False)
    assert p.kwargs == {"max_version": (1, 3), "dl_device": (1, 0), "copy": False}


class OddProducer:
    def __init__(self, result):
        self.result = result

    def __dlpack__(self, **kwargs):
        return self.result

    def __dlpack_device__(self):
        return (1, 0)


def test_producers_returning_no_capsule(ctx):
    import datetime
    with pytest.raises(TypeError):
        wnn.from_dlpack(OddProducer(5))
    with pytest.raises(TypeError):  # a capsule of another kind
        wnn.from_dlpack(OddProducer(datetime.datetime_CAPI))


class RaisingProducer:
    def __dlpack__(self, **kwargs):
        raise BufferError("cannot")

    def __dlpack_device__(self):
        return (1, 0)


def test_producer_errors_propagate():
    with pytest.raises(BufferError, match="cannot"):
        wnn.from_dlpack(RaisingProducer())
