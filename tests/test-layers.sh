#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# test-layers.sh -- the layer rules of docs/architecture.md, checked on the
# #include lines of every source file, so that the one-way structure stays:
#
#   public API (include/wnn) <- core <- interop            (core: objects, timeline)
#   core -> backends/backend.h (the table) -> backends/<name>
#   backends see only the IR (core/ir.h, ops.h, ops.def, half.h, shape.h) and the patterns
#   found in it (backends/attention.h, gelu.h, which each backend compiles in), memory/, platform/
#   memory/ and platform/ are below core; onnx/, tools/ and python/ see only include/wnn
#   (tools also core/shape.h: the shape and number rules, header-only on the public types).
#
# Prints each include that breaks a rule and fails; exits 0 when all hold.
set -u
SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
bad=0
checked=0

# includes FILE: the quoted #include targets of one file
includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"; }

# rule DIR ALLOWED-REGEX WHY: every quoted include of the files under DIR
# (not below a deeper rule's folder given in SKIP) must match ALLOWED-REGEX.
rule() {
    dir=$1 allowed=$2 why=$3
    for f in $(find "$dir" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort); do
        for inc in $(includes "$f"); do
            checked=$((checked + 1))
            if ! printf '%s\n' "$inc" | grep -Eq "^($allowed)\$"; then
                echo "layers: $f includes \"$inc\": $why"
                bad=$((bad + 1))
            fi
        done
    done
}

IR='core/(ir\.h|ops\.h|ops\.def|half\.h|shape\.h)|backends/attention\.h|backends/gelu\.h'
PUBLIC='wnn/[a-z_]+\.h'
rule src/platform "platform/[a-z_]+\.h|$PUBLIC" "platform/ is below everything: it sees only itself and the public header"
rule src/memory "memory/[a-z_]+\.h|platform/[a-z_]+\.h|backends/backend\.h|$PUBLIC" \
    "memory/ is below core: the backend table, platform/ and itself only"
rule src/core "core/[a-z_]+\.(h|def)|memory/[a-z_]+\.h|platform/[a-z_]+\.h|backends/backend\.h|$PUBLIC" \
    "core reaches devices only through backends/backend.h, never a backend's own files"
rule src/interop "interop/[a-z_]+\.h|core/internal\.h|memory/[a-z_]+\.h|$PUBLIC" \
    "interop sits on core: no backend's files"
rule src/backends "backends/(backend|module)\.h|$IR|memory/[a-z_]+\.h|platform/[a-z_]+\.h|$PUBLIC" \
    "the registry and the table see the IR, memory/ and platform/ only"
# each backend: itself, the table and module entry, the IR, memory/, platform/;
# null runs the cpu kernels, its one allowed look into another backend
for b in cpu cuda webgpu null; do
    [ -d "src/backends/$b" ] || continue
    extra=""
    [ "$b" = null ] && extra="|backends/cpu/cpu_graph\.h"
    rule "src/backends/$b" "backends/$b/[a-z_0-9]+\.(h|cuh)|backends/(backend|module)\.h|$IR|memory/[a-z_]+\.h|platform/[a-z_]+\.h|$PUBLIC$extra" \
        "a backend sees the IR, memory/, platform/ and itself, never core's objects or another backend"
done
rule src/onnx "$PUBLIC|[a-z_]+\.h|onnx\.pb-c\.h" "the ONNX importer is built on the public API only"
rule tools "$PUBLIC|core/shape\.h|[a-z_]+\.h" "tools are built on the public API (and core/shape.h's header-only rules) only"
rule python/src "$PUBLIC|[a-z_]+\.h" "the Python module is built on the public API only"

echo "layers: $checked includes checked, $bad broken"
[ "$bad" -eq 0 ]
