/*
** onnx_cmd.h -- the wnn program's ONNX commands (onnx_cmd.c): `run
** MODEL.onnx`, `check MODEL.onnx`, `bench MODEL.onnx` and `onnx-test DIR...`. Without the ONNX
** importer (WNN_WITH_ONNX off) they say so and fail.
*/
#ifndef WNN_TOOLS_ONNX_CMD_H
#define WNN_TOOLS_ONNX_CMD_H

#include <stdbool.h>

/* Whether argv[first..] names a .onnx model (so `run` is an ONNX run). */
bool onnx_cmd_wants(int argc, char **argv, int first);

int onnx_cmd_run(int argc, char **argv);
int onnx_cmd_check(int argc, char **argv);
int onnx_cmd_bench(int argc, char **argv);
int onnx_cmd_test(int argc, char **argv);

#define ONNX_CMD_USAGE                                                                                \
    "  run MODEL.onnx [--device D] [--input NAME=FILE.npy]... [--output-dir DIR]\n"                   \
    "      [--dim NAME=VALUE]... [--shape NAME=D1xD2...]... [--repeat N]\n"                           \
    "                                load an ONNX model, run it on .npy inputs (zeros\n"             \
    "                                when absent), print and save its outputs\n"                     \
    "  check MODEL.onnx [--device D] [--dim NAME=VALUE]... [--shape NAME=D1xD2...]...\n"            \
    "                                list every node that cannot be lowered to WebNN\n"              \
    "  bench MODEL.onnx [--device D] [--repeat N] [--dim ...] [--shape ...]\n"                      \
    "                                latency percentiles and throughput of a model\n"              \
    "                                (free dimensions default to 1)\n"                             \
    "  onnx-test [--device D] [--filter S] [--verbose] DIR...\n"                                      \
    "                                run ONNX's test suite (folders of model.onnx and\n"             \
    "                                test_data_set_*), e.g. /usr/share/libonnx-testdata/data/node\n"

#endif /* WNN_TOOLS_ONNX_CMD_H */
