#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages wnn needs to build and test, if missing,
# then (pinned, never fatal: the tests that need them skip and say why) the
# npm peers of the model tests and the webgpu device's Dawn build and
# lavapipe from Mesa 25 (src/backends/webgpu/setup.sh).
# Runs apt-get as root, or through sudo when present.
set -e
PKGS="build-essential cmake pkg-config libopenblas-dev libdnnl-dev libxnnpack-dev libsleef3 libpthreadpool-dev libjansson-dev python3 python3-dev python3-venv python3-numpy python3-pytest python3-setuptools python3-onnx python3-torch python3-torchvision libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata clang libclang-rt-14-dev libvulkan1 mesa-vulkan-drivers"
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
# npm from Debian unless one is there already (NodeSource's nodejs bundles it
# and conflicts with Debian's npm)
command -v npm >/dev/null 2>&1 || missing="$missing npm"
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "$missing" ]; then
    echo "install-deps: installing$missing"
    if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# the npm peers of the model tests (onnxruntime-node, pretrained models):
# pinned, installed once (tests/models/install-npm-peers.sh)
sh "$here/tests/models/install-npm-peers.sh"
# the webgpu device's pinned Dawn and a private lavapipe from Mesa 25; quick
# when both are there (their checksums and files are checked)
if ! bash "$here/src/backends/webgpu/setup.sh" >/dev/null 2>&1; then
    bash "$here/src/backends/webgpu/setup.sh" ||
        echo "install-deps: the webgpu setup failed; the webgpu device's tests will skip" >&2
fi
exit 0
