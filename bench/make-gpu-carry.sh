#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make-gpu-carry.sh [DIR] -- assembles, from this Debian 12 machine's
# packages, the folder of libraries the GPU machine's image lacks, which
# bench/run-gpu.sh reads as CARRY (default and DIR: gpu-carry):
#   lib/        jansson, protobuf-c, libgomp, SLEEF and XNNPACK (with
#               pthreadpool and cpuinfo; each where installed), and
#               pkgconfig/ files for them
#               and for OpenBLAS, relocatable (${pcfiledir})
#   lib.tar.xz  OpenBLAS (pthread build, with libgfortran and libquadmath)
#               and oneDNN, packed because the device tool carries at most
#               64 MiB a call (76 MB as files, 11 MB packed); run-gpu.sh
#               unpacks it into lib/ before its first stage
#   include/    cblas.h, jansson, protobuf-c, oneDNN's and XNNPACK's headers
#   onnx/       onnx.proto and the reader protoc-c generated from it here
#   bin/protoc-c  a stand-in that copies that reader (the image has no
#               protoc-c)
#   dawn/       the pinned Dawn build (src/backends/webgpu/setup.sh puts it
#               in the tree), for run-gpu.sh's webgpu stage
# The folder is for the device tool's `carry` and must stay out of git:
# add it to .git/info/exclude (the script says so when it is not ignored).
# Needs: libopenblas-dev, libjansson-dev, libprotobuf-c-dev,
# protobuf-c-compiler, libonnx-dev, libdnnl-dev (scripts/install-deps.sh).
set -eu
dir=${1:-gpu-carry}
L=/usr/lib/x86_64-linux-gnu
blas=$(readlink -f "$L/libopenblas.so.0")
rm -rf "$dir"
mkdir -p "$dir/lib/pkgconfig" "$dir/include/oneapi" "$dir/onnx" "$dir/bin"
for f in libjansson.so.4 libprotobuf-c.so.1 libgomp.so.1; do cp -L "$L/$f" "$dir/lib/"; done
# SLEEF's vector math for the cpu backend (src/backends/cpu/vec_libm.c), where installed
[ ! -f "$L/libsleef.so.3" ] || cp -L "$L/libsleef.so.3" "$dir/lib/"
# XNNPACK for the cpu backend's convolutions (src/backends/cpu/xnnpack.c), where installed
if [ -f "$L/libXNNPACK.so.0" ] && [ -f /usr/include/xnnpack.h ]; then
    for f in libXNNPACK.so.0 libpthreadpool.so.0 libcpuinfo.so.0; do cp -L "$L/$f" "$dir/lib/"; done
    cp /usr/include/xnnpack.h /usr/include/pthreadpool.h "$dir/include/"
fi
ln -s libjansson.so.4 "$dir/lib/libjansson.so"
ln -s libprotobuf-c.so.1 "$dir/lib/libprotobuf-c.so"

stage=$(mktemp -d)
cp "$blas" "$stage/libopenblas.so.0"
ln -s libopenblas.so.0 "$stage/libopenblas.so"
cp -L "$L/libgfortran.so.5" "$L/libquadmath.so.0" "$stage/"
cp -L "$L/libdnnl.so.2" "$stage/libdnnl.so.2"
tar -cJf "$dir/lib.tar.xz" -C "$stage" .
rm -rf "$stage"

inc=$(dirname "$(dpkg -L libopenblas-dev libopenblas-pthread-dev 2>/dev/null | grep '/cblas.h$' | head -n 1)")
cp "$inc/cblas.h" "$inc/openblas_config.h" "$dir/include/"
cp /usr/include/jansson.h /usr/include/jansson_config.h "$dir/include/"
cp -r /usr/include/protobuf-c "$dir/include/"
cp -r /usr/include/oneapi/dnnl "$dir/include/oneapi/"

for pc in openblas:0.3.21:-lopenblas jansson:2.14:-ljansson libprotobuf-c:1.4.1:-lprotobuf-c; do
    name=${pc%%:*} rest=${pc#*:}
    cat >"$dir/lib/pkgconfig/$name.pc" <<EOF
libdir=\${pcfiledir}/..
includedir=\${pcfiledir}/../../include
Name: $name
Description: $name, carried to the GPU machine by bench/make-gpu-carry.sh
Version: ${rest%%:*}
Libs: -L\${libdir} ${rest#*:}
Cflags: -I\${includedir}
EOF
done

cp /usr/include/onnx/onnx.proto "$dir/onnx/"
protoc-c --proto_path=/usr/include/onnx --c_out="$dir/onnx" /usr/include/onnx/onnx.proto
cat >"$dir/bin/protoc-c" <<'EOF'
#!/bin/sh
# protoc-c's stand-in on the GPU machine: copies the reader generated on the
# Debian machine (make-gpu-carry.sh) to --c_out.
here=$(cd "$(dirname "$0")/../onnx" && pwd)
for a in "$@"; do case "$a" in --c_out=*) out=${a#--c_out=} ;; esac; done
cp "$here/onnx.pb-c.c" "$here/onnx.pb-c.h" "$out/"
EOF
chmod +x "$dir/bin/protoc-c"

dawn=src/backends/webgpu/dawn/node_modules/bun-webgpu-linux-x64/libwebgpu_wrapper.so
if [ -f "$dawn" ]; then
    mkdir -p "$dir/dawn"
    cp "$dawn" "$dir/dawn/"
fi
git check-ignore -q "$dir" 2>/dev/null || echo "make-gpu-carry: add /$dir/ to .git/info/exclude so that it is carried, not committed"
du -sh "$dir"
