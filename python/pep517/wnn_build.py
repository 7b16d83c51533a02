# SPDX-License-Identifier: Apache-2.0
"""wnn_build -- the PEP 517 build backend of the wnn Python package.

`pip install ./python` (or `pip install .` from the repository root) builds
the package with nothing but the standard library, CMake and a C compiler,
so it works offline and inside pip's build isolation, which has no
setuptools: pyproject.toml requires nothing and names this module through
backend-path.

The build runs CMake twice in python/build/cmake-<key>/:
  lib/  the repository's project: libwnn.a, libwnn_onnx.a where protobuf-c
        and onnx.proto are found (wnn.onnx), and the cuda module
        (libwnn_cuda.so) where the CUDA toolkit is found;
  ext/  python/CMakeLists.txt: the extension wnn._wnn, linked statically
        against lib/ through find_package(wnn) (the build tree's package)
        and against libwnn_onnx.a where it was built.
The wheel holds python/wnn/, the extension, and libwnn_cuda.so beside it,
where libwnn's registry looks first (the directory of the object holding
it, here the extension).

Options: CMake arguments from the config setting cmake-args
(`pip install -C cmake-args="-DWNN_WITH_CUDA=OFF" ./python`) or the
environment variable WNN_CMAKE_ARGS. <key> is a digest of the arguments and
the Python ABI, so other options build in another directory instead of
reusing an extension built with the old ones; the same options rebuild
incrementally. CMAKE_BUILD_PARALLEL_LEVEL limits the jobs.
"""
import base64
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import zipfile

PY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PY_DIR)
CUDA_MODULE = "libwnn_cuda.so"


def _project():
    """The [project] table of python/pyproject.toml."""
    path = os.path.join(PY_DIR, "pyproject.toml")
    try:
        import tomllib
    except ImportError:  # Python < 3.11: the flat string fields are enough
        project, section = {}, None
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\s*\[(.*)\]\s*$", line)
                if m:
                    section = m.group(1)
                    continue
                m = re.match(r'\s*([\w-]+)\s*=\s*"(.*)"\s*$', line)
                if section == "project" and m:
                    project[m.group(1)] = m.group(2)
        return project
    with open(path, "rb") as f:
        return tomllib.load(f)["project"]


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower() + "-" + project["version"]


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"]]
    if "description" in project:
        lines.append("Summary: " + project["description"])
    if "requires-python" in project:
        lines.append("Requires-Python: " + project["requires-python"])
    lic = project.get("license")
    if isinstance(lic, dict) and "text" in lic:
        lines.append("License: " + lic["text"])
    for req in project.get("dependencies", []):
        lines.append("Requires-Dist: " + req)
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        for req in reqs:
            lines.append('Requires-Dist: %s ; extra == "%s"' % (req, extra))
    return "\n".join(lines) + "\n"


def _entry_points(project):
    groups = {"console_scripts": project.get("scripts", {}), "gui_scripts": project.get("gui-scripts", {})}
    text = ""
    for group, items in groups.items():
        if items:
            text += "[%s]\n" % group + "".join("%s = %s\n" % kv for kv in items.items()) + "\n"
    return text


def _tag():
    soabi = sysconfig.get_config_var("SOABI") or ""
    abi = "cp" + soabi.split("-")[1] if soabi.startswith("cpython-") else "none"
    interpreter = "cp%d%d" % sys.version_info[:2]
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return "%s-%s-%s" % (interpreter, abi, platform)


def _cmake_args(config_settings):
    args = shlex.split(os.environ.get("WNN_CMAKE_ARGS", ""))
    setting = (config_settings or {}).get("cmake-args", [])
    for item in [setting] if isinstance(setting, str) else setting:
        args += shlex.split(item)
    return args


def _run(cmd):
    print("wnn_build: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _cache_value(build, name):
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def _build(config_settings):
    """Builds libwnn and the extension; returns [(path, name in the wheel)]."""
    if shutil.which("cmake") is None:
        sys.exit("wnn_build: cmake not found (Debian: apt-get install cmake build-essential pkg-config "
                 "libopenblas-dev python3-dev)")
    args = _cmake_args(config_settings)
    python = getattr(sys, "_base_executable", None) or sys.executable
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX")
    key = hashlib.sha256(json.dumps([args, python, ext_suffix]).encode()).hexdigest()[:12]
    top = os.path.join(PY_DIR, "build", "cmake-" + key)
    lib, ext = os.path.join(top, "lib"), os.path.join(top, "ext")
    jobs = str(int(os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or os.cpu_count() or 1))
    _run(["cmake", "-S", ROOT, "-B", lib, "-DCMAKE_BUILD_TYPE=Release", "-DWNN_BUILD_TESTS=OFF",
          "-DWNN_BUILD_TOOLS=OFF", "-DWNN_BUILD_BENCH=OFF", *args])
    # src/onnx writes its pkg-config file only when the importer is configured
    onnx = os.path.exists(os.path.join(lib, "src", "onnx", "wnn_onnx.pc"))
    _run(["cmake", "--build", lib, "-j", jobs, "--target", "wnn_static"] + (["wnn_onnx_static"] if onnx else []))
    onnx_lib = os.path.join(lib, "src", "onnx", "libwnn_onnx.a") if onnx else ""
    _run(["cmake", "-S", PY_DIR, "-B", ext, "-DCMAKE_BUILD_TYPE=Release", "-Dwnn_DIR=" + lib,
          "-DPython3_EXECUTABLE=" + python, "-DWNN_ONNX_LIBRARY=" + onnx_lib, *args])
    _run(["cmake", "--build", ext, "-j", jobs])
    files = [(os.path.join(ext, "_wnn" + ext_suffix), "wnn/_wnn" + ext_suffix)]
    cuda = _cache_value(lib, "CMAKE_CUDA_COMPILER")
    if _cache_value(lib, "WNN_WITH_CUDA") in ("ON", "1", "TRUE") and cuda and not cuda.endswith("NOTFOUND"):
        files.append((os.path.join(lib, CUDA_MODULE), "wnn/" + CUDA_MODULE))
    return files


def _package_files():
    """python/wnn/ as the wheel's wnn/, without what builds in place leave."""
    pkg = os.path.join(PY_DIR, "wnn")
    for dirpath, dirnames, filenames in os.walk(pkg):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".so", ".pyc", ".pyd")):
                continue
            path = os.path.join(dirpath, name)
            yield path, "wnn/" + os.path.relpath(path, pkg).replace(os.sep, "/")


def _write_dist_info(directory, project):
    info = os.path.join(directory, _dist_name(project) + ".dist-info")
    os.makedirs(info, exist_ok=True)
    with open(os.path.join(info, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata(project))
    return os.path.basename(info)


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory, _project())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    files = list(_package_files()) + _build(config_settings)
    info = _dist_name(project) + ".dist-info"
    generated = {
        info + "/METADATA": _metadata(project).encode(),
        info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: wnn_build\nRoot-Is-Purelib: false\nTag: %s\n"
                          % _tag()).encode(),
    }
    if _entry_points(project):
        generated[info + "/entry_points.txt"] = _entry_points(project).encode()
    for name in ("LICENSE", "NOTICE"):
        if os.path.exists(os.path.join(ROOT, name)):
            files.append((os.path.join(ROOT, name), info + "/" + name))
    wheel = _dist_name(project) + "-" + _tag() + ".whl"
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        def add(name, data, mode=0o644):
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append("%s,sha256=%s,%d" % (name, digest, len(data)))
        for path, name in files:
            with open(path, "rb") as f:
                add(name, f.read(), 0o755 if name.endswith(".so") else 0o644)
        for name, data in generated.items():
            add(name, data)
        record.append(info + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(record) + "\n")
    return wheel


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("wnn_build: the package builds from a checkout of the whole repository "
                       "(pip install ./python); it makes no sdist")
