/* SPDX-License-Identifier: Apache-2.0 */
/*
** registry.c -- the list of backends compiled in, and the flat device index
** the public API enumerates ("cpu" is always index 0).
*/
#include "backends/backend.h"
#include "core/internal.h"

static const wnn__backend *const backends[] = {
    &wnn__cpu_backend,
    &wnn__null_backend,
#ifdef WNN_HAVE_CUDA
    &wnn__cuda_backend,
#endif
};

#define BACKEND_COUNT (sizeof backends / sizeof backends[0])

uint32_t wnn__registry_device_count(void)
{
    uint32_t n = 0;
    for (size_t i = 0; i < BACKEND_COUNT; i++)
        n += backends[i]->device_count();
    return n;
}

wnn_status wnn__registry_lookup(uint32_t index, const wnn__backend **backend, uint32_t *local_index)
{
    for (size_t i = 0; i < BACKEND_COUNT; i++) {
        uint32_t n = backends[i]->device_count();
        if (index < n) {
            *backend = backends[i];
            *local_index = index;
            return WNN_OK;
        }
        index -= n;
    }
    return WNN_STATUS_NO_SUCH_DEVICE;
}

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
