# SPDX-License-Identifier: Apache-2.0
"""The module under the address sanitizer (with UBSan) and its leak checker.

Builds the extension with -fsanitize=address,undefined against an ASan build
of libwnn (WNN_ASAN_BUILD_DIR, a CMake build with -DWNN_SANITIZE=address;
`make test-python` makes one), then runs asan_exercise.py with the ASan
runtime preloaded into Debian's Python, PYTHONMALLOC=malloc so that Python's
objects are tracked too, and detect_leaks=1.

CPython does not free everything it allocates at exit, so the leak report
always has entries; the test fails on any memory error or undefined
behaviour, and on every leak whose allocation stack passes through wnn's
code (the library or the extension). What CPython and NumPy leave behind by
themselves is not ours to judge.
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import PYTHON_DIR

HERE = os.path.dirname(os.path.abspath(__file__))
ASAN_BUILD = os.environ.get("WNN_ASAN_BUILD_DIR", "")

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(ASAN_BUILD, "libwnn.a")),
    reason="set WNN_ASAN_BUILD_DIR to a CMake build of wnn made with -DWNN_SANITIZE=address "
           "(make test-python does)")

SANITIZE = "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"

# A stack frame of wnn's: its sources, or a function of its prefixes.
OURS = re.compile(r"/(src/(core|interop|memory|backends)|python/src)/|\bin wnn(py)?_|\bin wnn__")


def build_extension(tmp_path):
    lib = tmp_path / "lib"
    env = dict(os.environ, WNN_BUILD_DIR=ASAN_BUILD, CFLAGS=SANITIZE, LDFLAGS=SANITIZE)
    out = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", str(lib), "--build-temp",
                          str(tmp_path / "tmp")], cwd=PYTHON_DIR, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    # the package's Python files beside the extension (wnn.onnx, python -m wnn)
    for name in os.listdir(os.path.join(PYTHON_DIR, "wnn")):
        if name.endswith(".py"):
            shutil.copy(os.path.join(PYTHON_DIR, "wnn", name), lib / "wnn" / name)
    return lib


def leak_reports(stderr):
    """The leak records of a LeakSanitizer report: (title, frames)."""
    records, current = [], None
    for line in stderr.splitlines():
        if line.startswith(("Direct leak", "Indirect leak")):
            current = (line, [])
            records.append(current)
        elif current is not None and line.strip().startswith("#"):
            current[1].append(line.strip())
        elif not line.strip():
            current = None
    return records


def test_module_under_address_sanitizer(tmp_path):
    lib = build_extension(tmp_path)
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, PYTHONPATH=str(lib), LD_PRELOAD=libasan, PYTHONMALLOC="malloc",
               ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:malloc_context_size=40",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    out = subprocess.run([sys.executable, os.path.join(HERE, "asan_exercise.py")], env=env, capture_output=True,
                         text=True, timeout=900)
    err = out.stderr
    assert "ERROR: AddressSanitizer" not in err, err[-20000:]
    assert "runtime error:" not in err, err[-20000:]
    assert out.stdout.strip().endswith("ok"), out.stdout + err[-5000:]
    ours = [(title, frames) for title, frames in leak_reports(err) if any(OURS.search(f) for f in frames)]
    assert not ours, "leaks through wnn's code:\n" + "\n\n".join(
        title + "\n" + "\n".join(frames) for title, frames in ours[:10])
    # the run really was sanitized and leak-checked
    assert out.returncode == 0 or "LeakSanitizer" in err, err[-5000:]
