# SPDX-License-Identifier: Apache-2.0
"""Builds the wnn C extension (wnn._wnn) against libwnn, in place: the
development build of `make test-python` and tests/python/test_asan.py.
`pip install ./python` does not use this file: pep517/wnn_build.py builds
libwnn and the extension through CMake (python/CMakeLists.txt).

Where libwnn comes from, first match wins:

  WNN_BUILD_DIR=/path/to/cmake/build   an in-tree CMake build: links its static
                                      libwnn.a (and OpenBLAS, from pkg-config
                                      --static), so the module needs no
                                      LD_LIBRARY_PATH; headers from the source
                                      tree named in its CMakeCache.txt.
                                      WNN_LINK=shared links its libwnn.so
                                      instead, with an rpath (libwnn.a leaves
                                      the same: both load the cuda module)
  pkg-config wnn                      an installed wnn (cmake --install)

The ONNX importer (wnn.onnx) is linked where that libwnn has one: the build
directory's src/onnx/libwnn_onnx.a (or .so), or pkg-config wnn_onnx; without
it wnn.onnx.load raises NotSupportedError.

CFLAGS and LDFLAGS from the environment are added as usual (the address
sanitizer build of tests/python/test_asan.py uses them).
"""
import os
import shlex
import subprocess
import sys
from glob import glob

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def pkg_config(*args):
    try:
        out = subprocess.run(["pkg-config", *args], check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out)


def split_flags(flags, ext):
    """Distributes compiler and linker flags over an Extension's fields."""
    for f in flags:
        if f.startswith("-I"):
            ext["include_dirs"].append(f[2:])
        elif f.startswith("-L"):
            ext["library_dirs"].append(f[2:])
        elif f.startswith("-l"):
            ext["libraries"].append(f[2:])
        else:
            ext["extra_link_args"].append(f)


def source_dir_of(build_dir):
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_HOME_DIRECTORY:"):
                    return line.split("=", 1)[1].strip()
    return os.path.dirname(HERE)


def onnx_flags(build_dir, static, ext):
    """Links libwnn_onnx of the build directory (before libwnn, which it needs)."""
    onnx_dir = os.path.join(build_dir, "src", "onnx")
    archive = os.path.join(onnx_dir, "libwnn_onnx.a")
    if static and os.path.exists(archive):
        ext["extra_objects"].append(archive)
        ext["depends"].append(archive)
    elif not static and glob(os.path.join(onnx_dir, "libwnn_onnx.so*")):
        ext["library_dirs"].append(onnx_dir)
        ext["runtime_library_dirs"].append(onnx_dir)
        ext["libraries"].append("wnn_onnx")
    else:
        return
    split_flags(pkg_config("--libs", "libprotobuf-c") or ["-lprotobuf-c"], ext)
    ext["define_macros"].append(("WNN_HAVE_ONNX", "1"))


def library_flags():
    ext = {"include_dirs": [], "library_dirs": [], "libraries": [], "extra_link_args": [],
           "extra_objects": [], "runtime_library_dirs": [], "depends": [], "define_macros": []}
    build_dir = os.environ.get("WNN_BUILD_DIR")
    if build_dir:
        build_dir = os.path.abspath(build_dir)
        ext["include_dirs"].append(os.path.join(source_dir_of(build_dir), "include"))
        static = os.path.join(build_dir, "libwnn.a")
        if os.path.exists(static) and os.environ.get("WNN_LINK", "static") != "shared":
            onnx_flags(build_dir, True, ext)
            ext["extra_objects"].append(static)
            ext["depends"].append(static)  # relink when the library changes
            split_flags(pkg_config("--libs", "--static", "openblas") or ["-lopenblas"], ext)
            ext["libraries"] += ["pthread", "m"]
        elif glob(os.path.join(build_dir, "libwnn.so*")):
            onnx_flags(build_dir, False, ext)
            ext["library_dirs"].append(build_dir)
            ext["runtime_library_dirs"].append(build_dir)
            ext["libraries"].append("wnn")
        else:
            sys.exit(f"setup.py: WNN_BUILD_DIR={build_dir} holds no libwnn.a or libwnn.so; build wnn there first")
        return ext
    flags = pkg_config("--cflags", "--libs", "wnn_onnx", "wnn")
    if flags is not None:
        ext["define_macros"].append(("WNN_HAVE_ONNX", "1"))
    else:
        flags = pkg_config("--cflags", "--libs", "wnn")
    if flags is None:
        sys.exit("setup.py: libwnn not found: install wnn (pkg-config wnn) or set WNN_BUILD_DIR to a CMake build "
                 "directory of wnn")
    split_flags(flags, ext)
    libdir = (pkg_config("--variable=libdir", "wnn") or [None])[0]
    libdir = libdir and os.path.normpath(libdir)
    if libdir and libdir not in ("/usr/lib", "/usr/local/lib", "/usr/lib/x86_64-linux-gnu"):
        ext["runtime_library_dirs"].append(libdir)
    return ext


flags = library_flags()
flags["depends"] += glob(os.path.join("src", "*.h"))
for d in flags["include_dirs"]:
    flags["depends"] += glob(os.path.join(d, "wnn", "*.h"))
extension = Extension(
    "wnn._wnn",
    sources=sorted(glob(os.path.join("src", "*.c"))),
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
                        "-Wno-missing-field-initializers", "-Wmissing-prototypes", "-Wstrict-prototypes",
                        "-Wshadow", "-fvisibility=hidden"],
    **flags,
)

setup(packages=["wnn"], ext_modules=[extension])
