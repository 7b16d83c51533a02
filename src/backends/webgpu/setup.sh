#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# setup.sh -- installs what the webgpu device needs for tests, inside this
# folder (git-ignored), touching nothing of the system but apt's cache:
#   dawn/node_modules/bun-webgpu-linux-x64/  the pinned Dawn build (npm ci from
#       dawn/package-lock.json; version and SHA-256 checked here and by the module)
#   dawn/lvp25/ and dawn/lvp25.json          lavapipe from Mesa 25 (bookworm-backports),
#       unpacked privately (Dawn refuses bookworm's Mesa 22.3.6); point the Vulkan
#       loader at it with VK_DRIVER_FILES=$PWD/dawn/lvp25.json
# Needs npm; the lavapipe part needs apt-get, a Debian 12 mirror with
# bookworm-backports, and libvulkan1 plus mesa-vulkan-drivers' libraries
# (installed from bookworm by `apt-get install mesa-vulkan-drivers`).
# Usage: setup.sh [--no-lavapipe]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SO_SHA256=3190c3777f2c07fcf6a0640833cbf5d0cde859dc53aed6d9083946d093198788
MESA=25.0.7-2~bpo12+1

cd "$here/dawn"
if ! echo "$SO_SHA256  node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so" | sha256sum -c --status 2>/dev/null; then
    npm ci --ignore-scripts --no-audit --no-fund
fi
echo "$SO_SHA256  node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so" | sha256sum -c -

[ "${1:-}" = --no-lavapipe ] && exit 0
if [ ! -f lvp25.json ]; then
    list=/etc/apt/sources.list.d/wnn-bookworm-backports.list
    if ! apt-cache policy mesa-vulkan-drivers | grep -q bpo12; then
        mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
        [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
        echo "deb $mirror bookworm-backports main" > "$list"
        apt-get update -qq
    fi
    tmp=$(mktemp -d)
    (cd "$tmp" && apt-get download "mesa-vulkan-drivers=$MESA")
    rm -rf lvp25
    dpkg -x "$tmp"/mesa-vulkan-drivers_*.deb lvp25
    rm -rf "$tmp"
    sed "s#\"library_path\": *\"[^\"]*\"#\"library_path\": \"$PWD/lvp25/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so\"#" \
        lvp25/usr/share/vulkan/icd.d/lvp_icd.json > lvp25.json
fi
echo "lavapipe (Mesa $MESA): VK_DRIVER_FILES=$PWD/lvp25.json"
