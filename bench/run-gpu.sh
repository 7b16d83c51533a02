#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Everything wnn runs on the GPU machine, in stages:
#   sh bench/run-gpu.sh build    configure and build with CUDA
#   sh bench/run-gpu.sh test     unit suite on cuda, WPT conformance on cuda,
#                                compute-sanitizer memcheck and racecheck
#   sh bench/run-gpu.sh reliability  the soak and test-audit on cuda, plain,
#                                under ASan+UBSan and under TSan
#   sh bench/run-gpu.sh bench    bench-cuda beside raw CUDA, the PyTorch peers
#                                in the same run, and the merged table; the
#                                model-shaped workloads (gpu_workloads.py) and
#                                the models (bench_models_gpu.py) beside PyTorch
#   sh bench/run-gpu.sh cpu      the cpu device on the host's cores beside
#                                PyTorch and ONNX Runtime's Python package
#                                (bench_dispatch.py, bench_bandwidth.py, bench_cpu.py,
#                                bench_models.py --peer python),
#                                with wnn's threads on the OpenMP team and on
#                                its own pool (WNN_CPU_OPENMP=0) in the same run
#   sh bench/run-gpu.sh webgpu   the webgpu device through NVIDIA's Vulkan
#                                driver: its tests, the WPT vectors, and
#                                bench-webgpu beside the cuda device (Dawn from
#                                $CARRY/dawn/libwebgpu_wrapper.so, or
#                                WNN_WEBGPU_LIBRARY; the Vulkan loader and
#                                libglvnd must be installed, see the device
#                                notes), and a sweep of the staging knobs;
#                                BENCH_WEBGPU_ARGS=--quick for a software driver
# Libraries the GPU image lacks (OpenBLAS, jansson, oneDNN) come in a carried
# folder: CARRY (default gpu-carry) with lib/ and include/, which
# bench/make-gpu-carry.sh assembles here (its lib.tar.xz is unpacked below). The ONNX importer (for
# bench_models_gpu.py) is built where that folder also has protobuf-c (its
# library, include/protobuf-c/, lib/pkgconfig/libprotobuf-c.pc) and onnx/
# with onnx.proto and the reader protoc-c generated from it here, which
# bin/protoc-c copies into the build (the image has no protoc-c). The WPT vectors are the
# repository's (data/wpt). Logs go to OUT (default ./gpu-out).
# WNN_GPU_SANITIZERS=0 leaves compute-sanitizer out of the test stage;
# WNN_GPU_STAGING_SWEEP=0 leaves the staging sweep out of the webgpu stage.
# WNN_CMAKE_FLAGS replaces the build stage's -DWNN_WITH_CUDA=ON (BUILD=build-cpu
# WNN_CMAKE_FLAGS=-DWNN_WITH_CUDA=OFF for the cpu stage alone: a build folder keeps its cache).
set -u
CARRY=${CARRY:-gpu-carry}
OUT=${OUT:-gpu-out}
BUILD=${BUILD:-build-gpu}
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
mkdir -p "$OUT"
export PKG_CONFIG_PATH="$PWD/$CARRY/lib/pkgconfig"
export LD_LIBRARY_PATH="$PWD/$CARRY/lib:${LD_LIBRARY_PATH:-}"
# the libraries are linked from there too (the Python module's setup.py)
export LIBRARY_PATH="$PWD/$CARRY/lib:${LIBRARY_PATH:-}"
# nvcc where the image keeps it, for CMake's check_language(CUDA)
command -v nvcc >/dev/null 2>&1 || [ ! -x /usr/local/cuda/bin/nvcc ] || export PATH="/usr/local/cuda/bin:$PATH"
if [ -f "$CARRY/lib.tar.xz" ] && [ ! -e "$CARRY/lib/libdnnl.so.2" ]; then
    tar -xJf "$CARRY/lib.tar.xz" -C "$CARRY/lib" || exit 1
fi
# cuDNN for the convolutions (loaded on first use): PyTorch's wheel brings one
for site in $(python3 -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null); do
    [ -d "$site/nvidia/cudnn/lib" ] && LD_LIBRARY_PATH="$site/nvidia/cudnn/lib:$LD_LIBRARY_PATH"
done
WPT="$PWD/data/wpt/conformance"

for stage in "$@"; do
case "$stage" in
build)
    nvidia-smi -L
    onnx=
    [ -f "$CARRY/onnx/onnx.proto" ] &&
        onnx="-DWNN_ONNX_PROTO=$PWD/$CARRY/onnx/onnx.proto -DWNN_PROTOC_C=$PWD/$CARRY/bin/protoc-c"
    # shellcheck disable=SC2086
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWNN_WPT_DIR="$WPT" $onnx ${WNN_CMAKE_FLAGS:--DWNN_WITH_CUDA=ON} >"$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
    cmake --build "$BUILD" -j "$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
    grep -iE "cuda|cudnn" "$OUT/cmake.log" | head -5
    "$BUILD/wnn" devices
    ;;
test)
    # the whole device-aware unit suite with cuda as the test device (test-pip
    # is left out: its venv has no numpy there, and nothing can be fetched)
    # (the out-of-memory test's refused cudaMalloc is an API error, not a memory error)
    WNN_TEST_DEVICE=cuda ctest --test-dir "$BUILD" -E "null|install|pip" -j 8 --output-on-failure >"$OUT/ctest-cuda.log" 2>&1
    grep -E "tests passed|\*\*\*|Failed" "$OUT/ctest-cuda.log"
    # pinned host memory and the staged copies on cuda (also in the suite above;
    # this line says which way it went)
    WNN_TEST_DEVICE=cuda "$BUILD/tests/test-host-memory" >"$OUT/host-memory-cuda.log" 2>&1
    echo "test-host-memory on cuda: exit $? ($(tail -1 "$OUT/host-memory-cuda.log"))"
    # DLPack with the GPU frameworks: the C stream handshakes, then PyTorch, CuPy and JAX
    "$BUILD/tests/test-dlpack-cuda" 2>&1 | tee "$OUT/dlpack-cuda.log" | tail -5
    (cd python && WNN_BUILD_DIR="../$BUILD" WNN_LINK=shared python3 setup.py build_ext --inplace >"$OUT/python-build.log" 2>&1) &&
        python3 -m pytest -q tests/python/test_gpu_interop.py -rs 2>&1 | tee "$OUT/gpu-interop.log" | tail -15
    "$BUILD/wnn" conformance --device cuda --slowest "$WPT" >"$OUT/conformance-cuda.log" 2>&1
    grep -E "^FAIL|passed, " "$OUT/conformance-cuda.log" | head -40
    if [ "${WNN_GPU_SANITIZERS:-1}" = 0 ]; then
        echo "compute-sanitizer: skipped (WNN_GPU_SANITIZERS=0)"
    else
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$BUILD/tests/test-cuda" >"$OUT/memcheck.log" 2>&1
        echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' "$OUT/memcheck.log")"
        compute-sanitizer --tool racecheck --error-exitcode 9 "$BUILD/tests/test-cuda" >"$OUT/racecheck.log" 2>&1
        echo "racecheck exit $?: $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/racecheck.log")"
    fi
    ;;
reliability)
    # issue 10's runs on the GPU: the soak and the audit's reproducers on
    # cuda, plain and in ASan+UBSan and TSan builds (host code; the kernels
    # are compute-sanitizer's, in the test stage)
    WNN_SOAK_SECONDS=${WNN_SOAK_SECONDS:-3} "$BUILD/tests/test-soak" cuda 2>&1 | tail -8 | tee "$OUT/soak-cuda.log"
    WNN_TEST_DEVICE=cuda "$BUILD/tests/test-audit" 2>&1 | tail -3 | tee "$OUT/audit-cuda.log"
    for san in address thread; do
        cmake -S . -B "$BUILD-$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWNN_SANITIZE=$san -DWNN_BUILD_BENCH=OFF \
            >"$OUT/cmake-$san.log" 2>&1 &&
            cmake --build "$BUILD-$san" -j "$(nproc)" --target test-soak test-audit wnn_cuda >"$OUT/build-$san.log" 2>&1 ||
            { echo "$san build failed"; grep -E "error" "$OUT/build-$san.log" | head; continue; }
        # the CUDA runtime maps memory where ASan keeps its shadow gap
        ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 TSAN_OPTIONS=halt_on_error=1:suppressions=$PWD/tests/tsan-cuda.supp WNN_SOAK_SECONDS=2 \
            "$BUILD-$san/tests/test-soak" cuda >"$OUT/soak-cuda-$san.log" 2>&1
        echo "soak cuda $san: exit $? $(grep -E 'passed|WARNING|ERROR' "$OUT/soak-cuda-$san.log" | sort | uniq -c | head -5)"
        ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=1 TSAN_OPTIONS=halt_on_error=1:suppressions=$PWD/tests/tsan-cuda.supp WNN_TEST_DEVICE=cuda \
            "$BUILD-$san/tests/test-audit" >"$OUT/audit-cuda-$san.log" 2>&1
        echo "audit cuda $san: exit $? $(grep -E 'passed|WARNING|ERROR' "$OUT/audit-cuda-$san.log" | sort | uniq -c | head -5)"
    done
    ;;
bench)
    "$BUILD/bench/bench-cuda" | tee "$OUT/bench-cuda.txt"
    python3 bench/gpu_peers.py | tee "$OUT/peers.txt"
    python3 bench/gpu_conv_peer.py | tee "$OUT/conv-peer.txt"
    python3 bench/gpu_table.py "$OUT/bench-cuda.txt" "$OUT/peers.txt" | tee "$OUT/table.txt"
    # the staging's two knobs (chunk of the pinned ring, copy threads): 256 MiB rows per setting
    for kib in 2048 4096 8192 16384; do
        for threads in 4 8 0; do
            echo "staging ${kib} KiB x 4, copy threads ${threads} (0: the pool's):"
            WNN_CUDA_STAGING_KIB=$kib WNN_CUDA_COPY_THREADS=$threads "$BUILD/bench/bench-cuda" transfers 2>&1 |
                grep -E "256 MiB pageable|check|failed"
        done
    done | tee "$OUT/staging-sweep.txt"
    # issue 15's model-shaped workloads and the models beside PyTorch (the
    # module built by the test stage; the models need its ONNX importer)
    PYTHONPATH=python python3 bench/gpu_workloads.py | tee "$OUT/workloads.txt"
    PYTHONPATH=python python3 bench/bench_models_gpu.py | tee "$OUT/models.txt"
    # DLPack per call, from Python (the module built by the test stage)
    PYTHONPATH=python python3 bench/gpu_dlpack.py | tee "$OUT/dlpack.txt"
    ;;
cpu)
    # the Python module over this build (the test stage builds it too)
    [ -n "$(ls python/wnn/_wnn*.so 2>/dev/null)" ] ||
        (cd python && WNN_BUILD_DIR="../$BUILD" WNN_LINK=shared python3 setup.py build_ext --inplace >"$OUT/python-build.log" 2>&1) ||
        { tail -20 "$OUT/python-build.log"; exit 1; }
    n=$(nproc)
    # what a dispatch costs, beside PyTorch, by thread count
    python3 bench/bench_dispatch.py --threads "1,4,$n" 2>&1 | tee "$OUT/cpu-dispatch.txt"
    python3 bench/bench_bandwidth.py --threads "$n" 2>&1 | tee "$OUT/cpu-bandwidth.txt"
    for omp in 1 0; do
        echo "== WNN_CPU_OPENMP=$omp, $n threads"
        WNN_CPU_OPENMP=$omp python3 bench/bench_cpu.py --threads "$n" 2>&1 | tee "$OUT/cpu-omp$omp.txt"
        WNN_CPU_OPENMP=$omp python3 bench/bench_models.py --peer python --threads "$n" --repeat 10 2>&1 | tee "$OUT/models-omp$omp.txt"
    done
    ;;
webgpu)
    [ -n "${WNN_WEBGPU_LIBRARY:-}" ] || export WNN_WEBGPU_LIBRARY="$PWD/$CARRY/dawn/libwebgpu_wrapper.so"
    [ -n "${VK_DRIVER_FILES:-}" ] || [ ! -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] ||
        export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    WNN_WEBGPU_DEBUG=1 "$BUILD/wnn" devices 2>&1 | tee "$OUT/webgpu-devices.log"
    for t in test-webgpu test-webgpu-tiles test-webgpu-interop test-webgpu-abi; do
        "$BUILD/tests/$t" >"$OUT/$t.log" 2>&1
        echo "$t: exit $? $(tail -1 "$OUT/$t.log")"
    done
    WNN_WEBGPU_F16=0 "$BUILD/tests/test-webgpu-tiles" >"$OUT/test-webgpu-tiles-nof16.log" 2>&1
    echo "test-webgpu-tiles (WNN_WEBGPU_F16=0): exit $? $(tail -1 "$OUT/test-webgpu-tiles-nof16.log")"
    "$BUILD/wnn" conformance --device webgpu "$WPT" >"$OUT/conformance-webgpu.log" 2>&1
    grep -E "^FAIL|passed, " "$OUT/conformance-webgpu.log" | head -40
    WNN_WEBGPU_SPLIT_KIB=4 "$BUILD/wnn" conformance --device webgpu "$WPT" >"$OUT/conformance-webgpu-split.log" 2>&1
    echo "split at 4 KiB (WNN_WEBGPU_SPLIT_KIB=4):"
    grep -E "^FAIL|passed, " "$OUT/conformance-webgpu-split.log" | head -40
    # shellcheck disable=SC2086
    "$BUILD/bench/bench-webgpu" ${BENCH_WEBGPU_ARGS:-} webgpu cuda 2>&1 | tee "$OUT/bench-webgpu.txt"
    # the other path of large writes (WNN_WEBGPU_UPLOAD, docs/webgpu.md): its write row
    echo "WNN_WEBGPU_UPLOAD=pieces:"
    # shellcheck disable=SC2086
    WNN_WEBGPU_UPLOAD=pieces "$BUILD/bench/bench-webgpu" ${BENCH_WEBGPU_ARGS:-} webgpu cuda 2>&1 |
        grep -E "^\| (workload|write)" | tee "$OUT/bench-webgpu-pieces.txt"
    # the staging's knobs (each buffer of the ring of four, copy threads) and
    # large reads in chunks or whole: the transfer rows per setting
    # (WNN_GPU_STAGING_SWEEP=0 leaves it out)
    [ "${WNN_GPU_STAGING_SWEEP:-1}" = 0 ] && continue
    for kib in 4096 8192 16384 32768; do
        for threads in 8 0; do
            for read in chunks whole; do
                echo "staging ${kib} KiB x 4, copy threads ${threads} (0: the pool's), read ${read}:"
                WNN_WEBGPU_STAGING_KIB=$kib WNN_WEBGPU_COPY_THREADS=$threads WNN_WEBGPU_READ=$read \
                    "$BUILD/bench/bench-webgpu" --transfers webgpu cpu 2>&1 | grep -E "^\| (write|read)"
            done
        done
    done | tee "$OUT/webgpu-staging-sweep.txt"
    ;;
*)
    echo "unknown stage $stage" >&2
    exit 2
    ;;
esac
done
