/* SPDX-License-Identifier: Apache-2.0 */
/*
** device.c -- the public device list (wnn_device_count, wnn_device_get_info)
** over the registry's backends, the choice of a context's device, and
** the process-wide thread count (platform/pool.c).
*/
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "platform/pool.h"

uint32_t wnn_device_count(void) { return wnn__registry_device_count(); }

wnn_status wnn_device_get_info(uint32_t index, wnn_device_info *info)
{
    const wnn__backend *be;
    uint32_t local;
    if (!info)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_device_get_info: info is NULL");
    if (wnn__registry_lookup(index, &be, &local) != WNN_OK)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_device_get_info: no device %u (there are %u)",
                         index, wnn__registry_device_count());
    return be->device_info(local, info);
}

/* The device options ask for: one by name (loading only the module that
** could serve it), else the first accelerated device for high performance
** (which enumerates every device), else the cpu. */
wnn_status wnn__pick_device(const wnn_context_options *o, const wnn__backend **be, uint32_t *local)
{
    if (o->device) {
        if (wnn__registry_find(o->device, be, local) == WNN_OK)
            return WNN_OK;
        uint32_t n = wnn__registry_device_count();
        char names[256] = "";
        size_t len = 0;
        for (uint32_t i = 0; i < n && len < sizeof names; i++) {
            wnn_device_info info;
            if (wnn_device_get_info(i, &info) == WNN_OK)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", info.name);
        }
        const char *why = strncmp(o->device, "cuda", 4) == 0 ? wnn__registry_absent_reason("cuda") : NULL;
        return wnn__fail(WNN_STATUS_NO_SUCH_DEVICE, "wnn_context_create: no usable device named \"%s\" (devices: %s)%s%s",
                         o->device, names, why && why[0] ? "; the cuda module: " : "", why ? why : "");
    }
    if (o->power_preference == WNN_POWER_PREFERENCE_HIGH_PERFORMANCE) {
        uint32_t n = wnn__registry_device_count();
        for (uint32_t i = 0; i < n; i++) {
            wnn_device_info info;
            if (wnn_device_get_info(i, &info) == WNN_OK && info.accelerated)
                return wnn__registry_lookup(i, be, local);
        }
    }
    return wnn__registry_lookup(0, be, local); /* "cpu" */
}


wnn_status wnn_set_num_threads(uint32_t n)
{
    if (n > WNN_MAX_THREADS)
        return wnn__fail(WNN_STATUS_INVALID_ARGUMENT, "wnn_set_num_threads: %u threads, at most %d", n,
                         WNN_MAX_THREADS);
    wnn__pool_set_threads(n);
    return WNN_OK;
}

uint32_t wnn_num_threads(void) { return (uint32_t)wnn__pool_size(); }
