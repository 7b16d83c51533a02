/* SPDX-License-Identifier: Apache-2.0 */
/*
** cli_help.c -- every help text of the wnn program, in one table: the
** overview (`wnn --help`), a page per command (`wnn help run`, `wnn run
** --help`) and the environment variables (`wnn help environment`).
**
** The pages are plain text at most 80 columns wide. docs/wnn.1 and
** docs/environment.md carry the same content for man and the web; change
** them together (tests/test-cli.sh checks that every option a page names
** is accepted by its command).
*/
#include "cli_help.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char overview[] =
    "usage: wnn <command> [options] [arguments]\n"
    "       wnn help <command>    (or: wnn <command> --help)\n"
    "\n"
    "wnn runs W3C WebNN graphs on this machine's devices.\n"
    "\n"
    "commands:\n"
    "  devices       list the devices, their limits (--limits) and JSON (--json)\n"
    "  run           run the cases of a WPT-format JSON file, or an ONNX model\n"
    "  conformance   run the W3C WPT WebNN conformance vectors\n"
    "  check         list the nodes of an ONNX model that cannot run on wnn\n"
    "  bench         time an ONNX model: latency percentiles and throughput\n"
    "  onnx-test     run ONNX's own test suite (folders of model.onnx)\n"
    "  help          show the help of a command, or of 'environment'\n"
    "\n"
    "options:\n"
    "  -h, --help    show this text; after a command, that command's help\n"
    "  --version     show wnn's version and exit\n"
    "\n"
    "environment (wnn help environment for all, and what each is for):\n"
    "  WNN_NUM_THREADS   threads of the cpu device's kernels (default: the CPUs usable)\n"
    "  WNN_WPT_DIR       the folder 'wnn conformance' runs when given none\n"
    "  WNN_CUDA_MODULE   the path of libwnn_cuda.so, if not beside libwnn\n"
    "\n"
    "exit status:\n"
    "  0  success\n"
    "  1  a case or check failed, or an input could not be read or run\n"
    "  2  usage error: an unknown command or option, a missing or malformed\n"
    "     value, an unknown device, a directory where a file is expected\n"
    "\n"
    "The manual: man wnn (docs/wnn.1 in the source tree).\n";

static const char devices_page[] =
    "usage: wnn devices [--limits] [--device NAME] [--op OPERATOR] [--json]\n"
    "\n"
    "List the devices wnn can use here, one a line: index, name, kind (cpu,\n"
    "discrete, emulated), whether it is an accelerator, the largest tensor, the\n"
    "memory, the DLPack device (type:id) and a description.\n"
    "\n"
    "  cpu    the host's cores (always there)\n"
    "  null   an emulated discrete device for testing: separate memory, queued\n"
    "         copies, no real hardware\n"
    "  cuda   NVIDIA GPUs (cuda, cuda:1, ...): listed only when wnn was built\n"
    "         with CUDA and a driver and a GPU are found\n"
    "\n"
    "options:\n"
    "  --limits          also print each device's WebNN opSupportLimits: the\n"
    "                    preferred input layout, the largest tensor, the data types\n"
    "                    and ranks of graph inputs, constants and outputs, and of\n"
    "                    every operand of every operator\n"
    "  --device NAME     only the device NAME (as listed: cpu, null, cuda, ...)\n"
    "  --op OPERATOR     only that operator's limits, by its WebNN name (conv2d,\n"
    "                    matmul, ...); implies --limits\n"
    "  --json            print one JSON object instead of text:\n"
    "                    {\"devices\": [{\"index\", \"name\", \"kind\", \"accelerated\",\n"
    "                    \"max_tensor_byte_length\", \"memory_bytes\" (0: unknown),\n"
    "                    \"dlpack_device\": [type, id], \"description\"}, ...]};\n"
    "                    with --limits each device also has \"limits\", shaped as\n"
    "                    WebNN's MLOpSupportLimits: {\"preferredInputLayout\",\n"
    "                    \"maxTensorByteLength\", \"input\", \"constant\", \"output\",\n"
    "                    OPERATOR: {OPERAND: {\"dataTypes\": [...],\n"
    "                    \"rankRange\": {\"min\", \"max\"}}}}\n"
    "\n"
    "examples:\n"
    "  wnn devices --limits --device cpu --op conv2d\n"
    "  wnn devices --json | python3 -m json.tool\n";

static const char run_page[] =
    "usage: wnn run FILE.json [--device D] [--case SUBSTRING] [--repeat N]\n"
    "       wnn run MODEL.onnx [--device D] [--input NAME=FILE.npy]...\n"
    "               [--output-dir DIR] [--dim NAME=VALUE]...\n"
    "               [--shape NAME=D1xD2...]... [--repeat N]\n"
    "\n"
    "FILE.json holds cases in the WPT case format (data/wpt/FORMAT.md; a small\n"
    "model is examples/mlp.json). For each case wnn builds the graph, writes the\n"
    "inputs, dispatches, reads the outputs and prints them (the first 32 values),\n"
    "whether they match the case's expectedOutputs, the time to build the graph\n"
    "and the mean time of one dispatch and read, then PASS, FAIL with the first\n"
    "mismatch, or SKIP with the reason wnn cannot run the case. A case without\n"
    "expectedOutputs just runs (DONE). The last line counts the cases:\n"
    "  N passed, N failed, N skipped\n"
    "\n"
    "options:\n"
    "  --device D        the device to run on (wnn devices lists them; default cpu)\n"
    "  --case SUBSTRING  only the cases whose name contains SUBSTRING\n"
    "  --repeat N        dispatch and read each case N times (1 to 1000000); the\n"
    "                    time printed is the mean of one dispatch+read, and on a\n"
    "                    terminal a progress bar shows on stderr\n"
    "\n"
    "MODEL.onnx (a file ending in .onnx) is an ONNX model, loaded through the ONNX\n"
    "importer when wnn was built with it (docs/onnx.md):\n"
    "  --input NAME=FILE.npy     the value of input NAME; its shape binds the\n"
    "                            input's free dimensions; inputs not given are zeros\n"
    "  --output-dir DIR          save each output as DIR/NAME.npy\n"
    "  --dim NAME=VALUE          the value of the free dimension NAME (>= 1)\n"
    "  --shape NAME=D1xD2...     the whole shape of input NAME\n"
    "  --repeat N                run N times; the time printed is the mean\n"
    "\n"
    "exit status: 0 every case passed (or ran), 1 a case failed or the file\n"
    "could not be read, 2 usage error (a directory given, an unknown device).\n";

static const char conformance_page[] =
    "usage: wnn conformance [--device D] [--filter PATTERN] [--verbose] [--slowest]\n"
    "                       [DIR]\n"
    "\n"
    "Run every case of every DIR/*.json file: the W3C web-platform-tests WebNN\n"
    "conformance vectors, shipped with wnn. Prints one line per failing case,\n"
    "then \"N passed, N failed, N skipped\" and each reason for a skip with its\n"
    "count. On a terminal a progress bar shows on stderr.\n"
    "\n"
    "DIR defaults to $WNN_WPT_DIR, else the vectors installed with wnn\n"
    "(<prefix>/share/wnn/wpt/conformance), else those of the source tree wnn was\n"
    "built from.\n"
    "\n"
    "options:\n"
    "  --device D        the device to run on (wnn devices lists them; default cpu)\n"
    "  --filter PATTERN  only the cases whose \"file/case name\" contains PATTERN,\n"
    "                    file without .json: 'conv2d/' is one file, 'float16' every\n"
    "                    case that names float16\n"
    "  --verbose         also print the folder used, a line for every case (PASS,\n"
    "                    FAIL, SKIP) and passed/failed/skipped per operator (a case\n"
    "                    counts for every operator its graph uses)\n"
    "  --slowest         also print the 10 slowest cases: building the graph plus\n"
    "                    one dispatch and read\n"
    "\n"
    "exit status: 0 nothing failed, 1 a case failed, 2 usage error (DIR not a\n"
    "folder, no vectors found, an unknown device).\n";

static const char check_page[] =
    "usage: wnn check MODEL.onnx [--device D] [--dim NAME=VALUE]...\n"
    "                 [--shape NAME=D1xD2...]...\n"
    "\n"
    "Load an ONNX model for device D and list every node that cannot be lowered\n"
    "to WebNN operators, with the reason (docs/onnx.md lists the operators).\n"
    "\n"
    "options:\n"
    "  --device D             the device to check for (default cpu)\n"
    "  --dim NAME=VALUE       the value of the free dimension NAME (>= 1)\n"
    "  --shape NAME=D1xD2...  the whole shape of input NAME\n"
    "\n"
    "exit status: 0 every node can run, 1 some cannot or the model cannot be\n"
    "read, 2 usage error.\n";

static const char bench_page[] =
    "usage: wnn bench MODEL.onnx [--device D] [--repeat N] [--dim NAME=VALUE]...\n"
    "                 [--shape NAME=D1xD2...]...\n"
    "\n"
    "Time an ONNX model: fill its inputs once, run 5 warm-up and N timed\n"
    "dispatches (each waited for), and print the load time, the latency\n"
    "percentiles (min, p50, p90, p99, max, mean) and the throughput. Free\n"
    "dimensions default to 1. On a terminal a progress bar shows on stderr.\n"
    "\n"
    "options:\n"
    "  --device D             the device to run on (default cpu)\n"
    "  --repeat N             timed runs (default 100)\n"
    "  --dim NAME=VALUE       the value of the free dimension NAME (>= 1)\n"
    "  --shape NAME=D1xD2...  the whole shape of input NAME\n";

static const char onnx_test_page[] =
    "usage: wnn onnx-test [--device D] [--filter S] [--verbose] DIR...\n"
    "\n"
    "Run ONNX's own test suite: every folder of each DIR holding a model.onnx\n"
    "and test_data_set_* folders, compared with the expected outputs; e.g.\n"
    "/usr/share/libonnx-testdata/data/node (Debian's libonnx-testdata).\n"
    "\n"
    "options:\n"
    "  --device D    the device to run on (default cpu)\n"
    "  --filter S    only the folders whose name contains S\n"
    "  --verbose     a line for every test, passed ones included\n"
    "\n"
    "exit status: 0 nothing failed, 1 a test failed, 2 usage error.\n";

static const char help_page[] =
    "usage: wnn help [COMMAND | environment]\n"
    "\n"
    "Show the help of a command (devices, run, conformance, check, bench,\n"
    "onnx-test), or the environment variables wnn reads. With nothing, the\n"
    "overview (wnn --help).\n";

static const char environment_page[] =
    "Environment variables wnn reads (docs/environment.md says the same).\n"
    "\n"
    "For users:\n"
    "  WNN_NUM_THREADS=N       threads of the cpu device's kernels, the caller's\n"
    "                          included (OpenBLAS's follow). Default: the cores\n"
    "                          online; anything but a positive integer is ignored.\n"
    "                          wnn_set_num_threads() and wnn.set_num_threads()\n"
    "                          override it.\n"
    "  WNN_WPT_DIR=DIR         the vectors 'wnn conformance' runs when given no DIR\n"
    "  WNN_CUDA_MODULE=PATH    the cuda backend module (libwnn_cuda.so) to load; when\n"
    "                          set it is the only place looked. Default: beside\n"
    "                          libwnn, then the build's and install's library\n"
    "                          folders.\n"
    "  WNN_WEBGPU_MODULE=PATH  the same for the webgpu backend, where it is built\n"
    "  WNN_PROGRAM=PATH        the wnn program 'python -m wnn' runs (default: wnn on\n"
    "                          PATH)\n"
    "  WNN_CMAKE_ARGS=ARGS     extra CMake options for 'pip install ./python'\n"
    "\n"
    "For comparing code paths (results are the same; only speed differs):\n"
    "  WNN_CPU_CONV=gemm|direct  cpu conv2d by im2col+GEMM or by the direct loop,\n"
    "                          instead of choosing by shape\n"
    "  WNN_CPU_DNNL=0          cpu conv2d without oneDNN, even where libdnnl.so.2 is\n"
    "  WNN_ATTENTION=0         cpu and cuda run attention chains (matmul, scale,\n"
    "                          mask, softmax, matmul) operator by operator\n"
    "  WNN_CUDA_GRAPHS=0       cuda runs each dispatch kernel by kernel instead of\n"
    "                          replaying a captured CUDA graph\n"
    "  WNN_CUDA_FUSION=0       cuda runs every operator as its own kernel\n"
    "  WNN_CUDA_DIRECT_CONV=1  cuda conv2d by a direct kernel instead of cuBLAS\n"
    "                          (set to any value)\n"
    "  WNN_CUDA_CUDNN=0        cuda conv2d without cuDNN, even where libcudnn.so.9\n"
    "                          loads\n"
    "  WNN_CUDA_CUDNN_GRAPH=0  cuda conv2d through cuDNN's legacy algorithms only\n"
    "  WNN_CUDA_CUDNN_VERBOSE=1  each cuda conv2d's timed choices on stderr\n"
    "  WNN_WEBGPU_UPLOAD=staged|pieces  webgpu writes of 4 MiB or more through\n"
    "                          wnn's own mapped staging buffers (default) or as\n"
    "                          wgpuQueueWriteBuffer calls of 2 MiB\n"
    "\n"
    "For wnn's own tests (not needed to use wnn):\n"
    "  WNN_TEST_DEVICE=D       the device the unit tests run on (default cpu)\n"
    "  WNN_NULL_COPY_DELAY_US=N  the null device sleeps N us before each copy, to\n"
    "                          shake out ordering bugs\n"
    "  WNN_SOAK_SECONDS=S      how long test-soak runs (default 1)\n"
    "  WNN_MISUSE_NOTES=1      test-misuse prints its notes\n"
    "  WNN_FUZZ_CASES=N, WNN_FUZZ_SEED=S  test-dlpack-fuzz's count and seed\n"
    "  WNN_FUZZ_NO_LIMITS_ORACLE=1  fuzz_builder without the limits oracle\n"
    "  WNN_TEST_LARGE=1        the Python model tests also run the large models\n"
    "  WNN_MODEL_CACHE=DIR     where those tests keep exported models between runs\n"
    "  WNN_BUILD_DIR, WNN_LINK, WNN_ASAN_BUILD_DIR  the in-place Python build of\n"
    "                          'make test-python' (python/setup.py)\n";

typedef struct help_entry {
    const char *topic;
    const char *text;
} help_entry;

static const help_entry pages[] = {
    {"devices", devices_page},         {"run", run_page},         {"conformance", conformance_page},
    {"check", check_page},             {"bench", bench_page},     {"onnx-test", onnx_test_page},
    {"help", help_page},               {"environment", environment_page},
};

static const char *find(const char *topic)
{
    for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++)
        if (strcmp(pages[i].topic, topic) == 0)
            return pages[i].text;
    return NULL;
}

bool cli_help_has(const char *topic) { return find(topic) != NULL; }

int cli_help(const char *topic)
{
    if (topic == NULL) {
        fputs(overview, stdout);
        return CLI_EXIT_OK;
    }
    const char *text = find(topic);
    if (text == NULL)
        return cli_usage_error("help",
                               "no help for '%s'; topics: devices, run, conformance, check, bench, "
                               "onnx-test, help, environment",
                               topic);
    fputs(text, stdout);
    return CLI_EXIT_OK;
}
