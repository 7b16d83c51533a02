# SPDX-License-Identifier: Apache-2.0
# The README's two commands wrap CMake:
#   make run    build, then run the main job on the cpu device
#   make test   build, then run the whole test suite (unit, conformance,
#               sanitizers)
#   make install PREFIX=/usr/local   build for that prefix and install there
#               (DESTDIR is honoured)
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

PREFIX ?= /usr/local

.PHONY: all deps build run test test-unit test-asan test-tsan install clean

all: build

deps:
	@sh scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/wnn devices
	./$(BUILD)/wnn run examples/mlp.json --device cpu --repeat 100

test: test-unit test-asan test-tsan test-python test-fuzz

# The Python module (python/, docs/python.md): built in place against
# $(BUILD)'s static libwnn, then its tests with Debian's Python; the sanitizer
# test links it against an ASan libwnn in $(BUILD)-asan. pytest's exit status
# 5 (no tests collected) fails like any other.
PYTHON ?= /usr/bin/python3
.PHONY: test-python
test-python: build
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DWNN_SANITIZE=address -DWNN_WITH_CUDA=OFF >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS) --target wnn_static
	cd python && WNN_BUILD_DIR=$(abspath $(BUILD)) $(PYTHON) setup.py -q build_ext --inplace
	WNN_ASAN_BUILD_DIR=$(abspath $(BUILD)-asan) $(PYTHON) -m pytest -q -rs tests/python

test-unit: build
	ctest --test-dir $(BUILD) --no-tests=error --output-on-failure -j $(JOBS)

test-asan: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DWNN_SANITIZE=address -DWNN_WITH_CUDA=OFF >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(BUILD)-asan --no-tests=error --output-on-failure -j $(JOBS)

test-tsan: deps
	cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=Debug -DWNN_SANITIZE=thread -DWNN_WITH_CUDA=OFF >/dev/null
	cmake --build $(BUILD)-tsan -j $(JOBS)
	TSAN_OPTIONS=halt_on_error=1 ctest --test-dir $(BUILD)-tsan --no-tests=error --output-on-failure -L threads

# The libFuzzer harnesses (tests/fuzz, docs/fuzzing.md): a clang build with
# ASan and UBSan in $(BUILD)-fuzz, then each settled fuzzer FUZZ_SECONDS on a
# copy of its checked-in corpus; a crash fails and its reproducer is kept (the
# path is printed). fuzz_onnx still finds new importer defects within minutes
# of mutation, so the test replays its corpus (every seed and every fixed
# defect's reproducer, once) and its mutation runs belong to
# tests/fuzz/run-long.sh, which runs all of them for hours.
FUZZ_SECONDS ?= 60
FUZZ_MUTATE ?= fuzz_builder fuzz_dlpack fuzz_wpt_case
.PHONY: test-fuzz
test-fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(BUILD)-fuzz -DCMAKE_BUILD_TYPE=Debug -DWNN_FUZZ=ON \
	  -DWNN_SANITIZE=address -DWNN_WITH_CUDA=OFF -DWNN_BUILD_TESTS=OFF -DWNN_BUILD_BENCH=OFF \
	  -DWNN_BUILD_TOOLS=OFF >/dev/null
	cmake --build $(BUILD)-fuzz -j $(JOBS) --target fuzzers
	work=$$(mktemp -d) && FUZZ_BUILD_DIR=$(BUILD)-fuzz FUZZ_WORK_DIR=$$work FUZZERS="$(FUZZ_MUTATE)" \
	  sh tests/fuzz/run-long.sh $(FUZZ_SECONDS) 1 && rm -rf $$work
	if [ -x $(BUILD)-fuzz/tests/fuzz/fuzz_onnx ]; then \
	  $(BUILD)-fuzz/tests/fuzz/fuzz_onnx -runs=0 -rss_limit_mb=4096 tests/fuzz/corpus/fuzz_onnx; \
	else echo "test-fuzz: fuzz_onnx skipped: the ONNX importer is not built"; fi

# The prefix is compiled in (where libwnn looks for its cuda module, where
# `wnn conformance` finds the vectors), so the build is configured for it.
install: deps
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	DESTDIR=$(DESTDIR) cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan $(BUILD)-fuzz
