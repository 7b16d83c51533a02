#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs wnn into a temporary prefix and builds a program outside the tree
# against it with `pkg-config --cflags --libs wnn`, then runs it. With a third
# argument of 1 the installed `wnn conformance`, run from elsewhere with no
# DIR, must find the installed WPT vectors and pass a file of them.
set -e
src="$1"
build="$2"
conformance="${3:-0}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH="$libdir"
cat > "$work/app.c" <<'APP'
#include <stdio.h>
#include <wnn/wnn.h>
int main(void)
{
    wnn_context *ctx;
    if (wnn_context_create(NULL, &ctx) != WNN_OK)
        return 1;
    wnn_graph_builder *b;
    wnn_graph_builder_create(ctx, &b);
    wnn_operand_desc d = {WNN_DATA_TYPE_FLOAT32, 1, {3}};
    wnn_operand *x = wnn_graph_builder_input(b, "x", &d);
    wnn_named_operand out = {"y", wnn_add(b, x, x)};
    wnn_graph *g;
    if (wnn_graph_builder_build(b, &out, 1, &g) != WNN_OK)
        return 2;
    wnn_tensor_desc td = {WNN_DATA_TYPE_FLOAT32, 1, {3}, true, true};
    wnn_tensor *in, *res;
    wnn_context_create_tensor(ctx, &td, &in);
    wnn_context_create_tensor(ctx, &td, &res);
    float v[3] = {1, 2, 3}, r[3];
    wnn_context_write_tensor(ctx, in, v, sizeof v);
    wnn_named_tensor bi = {"x", in}, bo = {"y", res};
    wnn_context_dispatch(ctx, g, &bi, 1, &bo, 1);
    if (wnn_context_read_tensor_sync(ctx, res, r, sizeof r) != WNN_OK)
        return 3;
    printf("%g %g %g\n", r[0], r[1], r[2]);
    wnn_tensor_release(in);
    wnn_tensor_release(res);
    wnn_graph_release(g);
    wnn_graph_builder_release(b);
    wnn_context_release(ctx);
    return r[0] == 2 && r[1] == 4 && r[2] == 6 ? 0 : 4;
}
APP
# shared library, found through the installed prefix at run time
cc -std=c11 "$work/app.c" -o "$work/app" $(pkg-config --cflags --libs wnn) -Wl,-rpath,"$(pkg-config --variable=libdir wnn)"
"$work/app"
# static library, with the private dependencies pkg-config lists
cc -std=c11 "$work/app.c" -o "$work/app-static" $(pkg-config --cflags wnn) \
   "$(pkg-config --variable=libdir wnn)/libwnn.a" $(pkg-config --libs-only-l --static openblas) -lpthread -lm
"$work/app-static"
if [ "$conformance" = 1 ]; then
    test -f "$work/prefix/share/wnn/wpt/LICENSE"
    (cd / && env -u WNN_WPT_DIR "$work/prefix/bin/wnn" conformance --verbose --filter abs/) >"$work/conformance.log"
    grep -q "prefix/bin/../share/wnn/wpt/conformance" "$work/conformance.log" || {
        echo "the installed wnn did not use the installed vectors:"; cat "$work/conformance.log"; exit 1; }
    echo "3 passed, 0 failed"
else
    echo "2 passed, 0 failed"
fi
