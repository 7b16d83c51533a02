/* SPDX-License-Identifier: Apache-2.0 */
/*
** devices_cmd.c -- `wnn devices [--limits] [--device NAME] [--op OPERATOR]
** [--json]`.
**
** Owns: the device lines, the opSupportLimits listing, the filters, and the
** JSON form. The JSON keys of a device are those of Python's wnn.devices();
** its "limits" object has the members and spelling of WebNN's
** MLOpSupportLimits, so a WebNN user reads it as the browser's.
*/
#include "devices_cmd.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "wnn/wnn.h"

typedef struct devices_args {
    bool limits, json;
    const char *device; /* NULL: every device */
    const char *op;     /* NULL: every operator */
} devices_args;

static const char *kind_name(wnn_device_kind kind)
{
    static const char *const names[] = {
        [WNN_DEVICE_KIND_CPU] = "cpu",
        [WNN_DEVICE_KIND_DISCRETE] = "discrete",
        [WNN_DEVICE_KIND_EMULATED] = "emulated",
    };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

/* ------------------------------------------------------------------------ */
/* Text                                                                     */
/* ------------------------------------------------------------------------ */

static void format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    if (bytes == 0) {
        snprintf(buf, size, "unknown");
        return;
    }
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, size, "%.4g %s", v, units[u]);
}

/* "float32 float16 ... ranks 0-8" for one operand's limits. */
static void print_tensor_limits(const char *label, const wnn_tensor_limits *l)
{
    printf("       %-20s", label);
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++)
        if (l->data_types & WNN_DATA_TYPE_BIT(t))
            printf(" %s", wnn_data_type_name((wnn_data_type)t));
    printf("  ranks %u-%u\n", l->min_rank, l->max_rank);
}

static void print_operator_limits(wnn_context *ctx, const char *op)
{
    printf("     %s\n", op);
    const char *operand;
    for (uint32_t k = 0; (operand = wnn_operator_operand_name(op, k)); k++) {
        wnn_tensor_limits l;
        if (wnn_context_get_operand_limits(ctx, op, operand, &l) == WNN_OK)
            print_tensor_limits(operand, &l);
    }
}

static void print_device_text(uint32_t index, const wnn_device_info *info)
{
    char max_bytes[32], memory[32];
    format_bytes(info->max_tensor_byte_length, max_bytes, sizeof max_bytes);
    format_bytes(info->memory_bytes, memory, sizeof memory);
    printf("  %u  %-8s %-9s accelerated=%s  max tensor %s  memory %s  dlpack %d:%d  %s\n", index,
           info->name ? info->name : "?", kind_name(info->kind), info->accelerated ? "yes" : "no", max_bytes,
           memory, (int)info->dlpack_device_type, (int)info->dlpack_device_id,
           info->description ? info->description : "");
}

/* The context-wide members (unless only one operator is asked for), then
** the operators. */
static void print_limits_text(wnn_context *ctx, const char *only_op)
{
    if (only_op == NULL) {
        wnn_context_limits cl = WNN_CONTEXT_LIMITS_INIT;
        wnn_context_get_limits(ctx, &cl);
        printf("     preferredInputLayout %s, maxTensorByteLength %" PRIu64 "\n", cl.preferred_input_layout,
               cl.max_tensor_byte_length);
        print_tensor_limits("input", &cl.input);
        print_tensor_limits("constant", &cl.constant);
        print_tensor_limits("output", &cl.output);
    }
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i);
        if (only_op == NULL || strcmp(op, only_op) == 0)
            print_operator_limits(ctx, op);
    }
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */
/* ------------------------------------------------------------------------ */

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void json_tensor_limits(const wnn_tensor_limits *l)
{
    printf("{\"dataTypes\": [");
    bool first = true;
    for (int t = WNN_DATA_TYPE_FLOAT32; t <= WNN_DATA_TYPE_UINT4; t++) {
        if (l->data_types & WNN_DATA_TYPE_BIT(t)) {
            printf("%s", first ? "" : ", ");
            json_string(wnn_data_type_name((wnn_data_type)t));
            first = false;
        }
    }
    printf("], \"rankRange\": {\"min\": %u, \"max\": %u}}", l->min_rank, l->max_rank);
}

/* An operator the device lacks is left out, as MLOpSupportLimits does. */
static bool json_operator_limits(wnn_context *ctx, const char *op, bool first)
{
    const char *operand;
    bool any = false;
    for (uint32_t k = 0; (operand = wnn_operator_operand_name(op, k)); k++) {
        wnn_tensor_limits l;
        if (wnn_context_get_operand_limits(ctx, op, operand, &l) != WNN_OK)
            continue;
        if (!any) {
            printf("%s\n        ", first ? "" : ",");
            json_string(op);
            printf(": {");
        }
        printf("%s", any ? ", " : "");
        json_string(operand);
        printf(": ");
        json_tensor_limits(&l);
        any = true;
    }
    if (any)
        printf("}");
    return any;
}

static void json_limits(wnn_context *ctx, const char *only_op)
{
    printf(",\n      \"limits\": {");
    bool first = true;
    if (only_op == NULL) {
        wnn_context_limits cl = WNN_CONTEXT_LIMITS_INIT;
        wnn_context_get_limits(ctx, &cl);
        printf("\n        \"preferredInputLayout\": ");
        json_string(cl.preferred_input_layout);
        printf(",\n        \"maxTensorByteLength\": %" PRIu64 ",\n        \"input\": ", cl.max_tensor_byte_length);
        json_tensor_limits(&cl.input);
        printf(",\n        \"constant\": ");
        json_tensor_limits(&cl.constant);
        printf(",\n        \"output\": ");
        json_tensor_limits(&cl.output);
        first = false;
    }
    for (uint32_t i = 0; i < wnn_operator_count(); i++) {
        const char *op = wnn_operator_name(i);
        if ((only_op == NULL || strcmp(op, only_op) == 0) && json_operator_limits(ctx, op, first))
            first = false;
    }
    printf("\n      }");
}

static void json_device(uint32_t index, const wnn_device_info *info, bool first)
{
    printf("%s\n    {\"index\": %u, \"name\": ", first ? "" : ",", index);
    json_string(info->name);
    printf(", \"kind\": ");
    json_string(kind_name(info->kind));
    printf(", \"accelerated\": %s, \"max_tensor_byte_length\": %" PRIu64 ", \"memory_bytes\": %" PRIu64
           ", \"dlpack_device\": [%d, %d], \"description\": ",
           info->accelerated ? "true" : "false", info->max_tensor_byte_length, info->memory_bytes,
           (int)info->dlpack_device_type, (int)info->dlpack_device_id);
    json_string(info->description);
}

/* ------------------------------------------------------------------------ */
/* The command                                                              */
/* ------------------------------------------------------------------------ */

/* A usage error for an operator wnn does not know, with the name it
** probably meant when only the case differs (leakyrelu for leakyRelu). */
static int unknown_operator(const char *op)
{
    for (uint32_t i = 0; i < wnn_operator_count(); i++)
        if (strcasecmp(wnn_operator_name(i), op) == 0)
            return cli_usage_error("devices", "unknown operator '%s'; did you mean '%s'?", op,
                                   wnn_operator_name(i));
    return cli_usage_error("devices",
                           "unknown operator '%s'; operators have WebNN's names (conv2d, matmul, "
                           "leakyRelu, ...): wnn devices --limits lists them",
                           op);
}

static bool known_operator(const char *op)
{
    for (uint32_t i = 0; i < wnn_operator_count(); i++)
        if (strcmp(wnn_operator_name(i), op) == 0)
            return true;
    return false;
}

/* Whether device is listed; when not, a usage error that lists them. */
static int check_device(const char *device)
{
    char names[512] = "";
    size_t at = 0;
    for (uint32_t i = 0; i < wnn_device_count() && at < sizeof names; i++) {
        wnn_device_info info;
        if (wnn_device_get_info(i, &info) != WNN_OK)
            continue;
        if (strcmp(info.name, device) == 0)
            return 0;
        at += (size_t)snprintf(names + at, sizeof names - at, "%s%s", at ? ", " : "", info.name);
    }
    return cli_usage_error("devices", "unknown device '%s' (devices: %s)", device, names);
}

/* One device: its line or JSON object, then its limits when asked. Returns
** false when its limits could not be read. */
static bool show_device(const devices_args *a, uint32_t index, const wnn_device_info *info, bool first)
{
    if (a->json)
        json_device(index, info, first);
    else
        print_device_text(index, info);
    bool ok = true;
    if (a->limits) {
        wnn_context *ctx = NULL;
        int code;
        if ((ctx = cli_open_context("devices", info->name, &code)) != NULL) {
            if (a->json)
                json_limits(ctx, a->op);
            else
                print_limits_text(ctx, a->op);
            wnn_context_release(ctx);
        } else {
            ok = false;
        }
    }
    if (a->json)
        printf("}");
    return ok;
}

int devices_cmd(int argc, char **argv)
{
    devices_args a = {false, false, NULL, NULL};
    const cli_option specs[] = {
        {"--limits", false, NULL, &a.limits},
        {"--json", false, NULL, &a.json},
        {"--device", true, &a.device, NULL},
        {"--op", true, &a.op, NULL},
    };
    size_t npos;
    int rc = cli_parse_options("devices", argc, argv, 2, specs, sizeof specs / sizeof specs[0], NULL, 0, &npos);
    if (rc != 0)
        return rc;
    if (a.op != NULL) {
        if (!known_operator(a.op))
            return unknown_operator(a.op);
        a.limits = true;
    }
    if (a.device != NULL && (rc = check_device(a.device)) != 0)
        return rc;
    uint32_t count = wnn_device_count(), shown = 0;
    bool ok = true;
    if (a.json)
        printf("{\"devices\": [");
    else if (a.device == NULL)
        printf("%u device%s\n", count, count == 1 ? "" : "s");
    for (uint32_t i = 0; i < count; i++) {
        wnn_device_info info;
        wnn_status st = wnn_device_get_info(i, &info);
        if (st != WNN_OK) {
            fprintf(stderr, "wnn devices: cannot read device %u: %s: %s\n", i, wnn_status_string(st),
                    wnn_last_error_message());
            ok = false;
            continue;
        }
        if (a.device != NULL && strcmp(a.device, info.name) != 0)
            continue;
        ok = show_device(&a, i, &info, shown == 0) && ok;
        shown++;
    }
    if (a.json)
        printf("%s]}\n", shown ? "\n  " : "");
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAILED;
}
