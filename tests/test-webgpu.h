/* SPDX-License-Identifier: Apache-2.0 */
/*
** test-webgpu.h -- what the webgpu tests share: the Vulkan driver they use.
*/
#ifndef WNN_TEST_WEBGPU_H
#define WNN_TEST_WEBGPU_H

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The private lavapipe of src/backends/webgpu/setup.sh, if installed and no
** driver was chosen (without it the Vulkan loader also offers Debian's Mesa
** 22, which Dawn refuses after initializing it, leaking in the driver). */
static inline void test_use_private_lavapipe(void)
{
    char path[4096], src[4096];
    snprintf(src, sizeof src, "%s", __FILE__);
    snprintf(path, sizeof path, "%s/../src/backends/webgpu/dawn/lvp25.json", dirname(src));
    if (!getenv("VK_DRIVER_FILES") && access(path, R_OK) == 0)
        setenv("VK_DRIVER_FILES", path, 0);
    if (!getenv("XDG_RUNTIME_DIR"))
        setenv("XDG_RUNTIME_DIR", "/tmp", 0); /* Mesa's WSI complains without one */
}

#endif
