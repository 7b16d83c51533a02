/* SPDX-License-Identifier: Apache-2.0 */
/*
** registry.c -- the backends and the flat device index the public API
** enumerates ("cpu" is always index 0).
**
** cpu and null are linked in. Backends built as modules (backends/module.h;
** the cuda backend is libwnn_cuda.so) are loaded on first need: enumerating
** the devices, or a context asked for by a name the module's backend serves.
** A program that only uses "cpu" never maps them. A module is looked for in
** $WNN_CUDA_MODULE (a path), beside the library (or program) holding this
** code, in the build and install directories compiled in, then by the
** dynamic loader's search path.
*/
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/module.h"
#include "memory/allocator.h"
#include "platform/config.h"

static const wnn__backend *const builtin[] = {
    &wnn__cpu_backend,
    &wnn__null_backend,
};

#define BUILTIN_COUNT (sizeof builtin / sizeof builtin[0])

typedef struct module {
    const char *name; /* the backend's device-name prefix */
    const char *file;
    const char *env;  /* a variable that names the file's path */
    pthread_once_t once;
    const wnn__backend *backend; /* NULL until loaded, or when absent */
    char why[320];               /* why it is absent, for wnn devices --verbose */
} module;

static module modules[] = {
#ifdef WNN_CUDA_MODULE_FILE
    {"cuda", WNN_CUDA_MODULE_FILE, "WNN_CUDA_MODULE", PTHREAD_ONCE_INIT, NULL, ""},
#endif
#ifdef WNN_WEBGPU_MODULE_FILE
    {"webgpu", WNN_WEBGPU_MODULE_FILE, "WNN_WEBGPU_MODULE", PTHREAD_ONCE_INIT, NULL, ""},
#endif
    {NULL, NULL, NULL, PTHREAD_ONCE_INIT, NULL, ""},
};

#define MODULE_COUNT (sizeof modules / sizeof modules[0] - 1)

static const wnn__host host = {
    .version = WNN__MODULE_VERSION,
    .config = wnn__config_get,
    .allocator_alloc = wnn__allocator_alloc,
    .allocator_free = wnn__allocator_free,
    .memory_upload = wnn__memory_upload,
    .parallel_for = wnn__parallel_for,
    .arena_place = wnn__arena_place,
    .arena_unplace = wnn__arena_unplace,
    .data_type_size = wnn_data_type_size,
    .byte_length = wnn_operand_desc_byte_length,
    .pool_size = wnn__pool_size,
};

/* dlopen of dir/file; NULL if absent. */
static void *open_in(const char *dir, size_t dir_len, const char *file)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%.*s/%s", (int)dir_len, dir, file) >= (int)sizeof path)
        return NULL;
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

static void *find(module *m)
{
    const wnn__config *cfg = wnn__config_get();
    const char *env = strcmp(m->name, "cuda") == 0 ? cfg->cuda_module : cfg->webgpu_module;
    if (env) {
        void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(m->why, sizeof m->why, "$%s: %s", m->env, dlerror());
        return h; /* an explicit path is the only place looked */
    }
    void *h = NULL;
    Dl_info self;
    if (dladdr((void *)&wnn__registry_device_count, &self) && self.dli_fname) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash)
            h = open_in(self.dli_fname, (size_t)(slash - self.dli_fname), m->file);
    }
#ifdef WNN_MODULE_DIRS
    /* the build tree's and the install's library directories, ':' separated */
    for (const char *d = WNN_MODULE_DIRS; !h && *d;) {
        size_t n = strcspn(d, ":");
        h = open_in(d, n, m->file);
        d += n + (d[n] == ':');
    }
#endif
    if (!h)
        h = dlopen(m->file, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        snprintf(m->why, sizeof m->why, "%s", dlerror());
    return h;
}

static module *loading; /* pthread_once gives no argument */

static void load(void)
{
    module *m = loading;
    void *h = find(m);
    if (!h)
        return;
    wnn__module_entry entry;
    *(void **)&entry = dlsym(h, WNN__MODULE_ENTRY);
    const wnn__backend *be = entry ? entry(&host) : NULL;
    if (!be || be->version != WNN__BACKEND_VERSION) {
        snprintf(m->why, sizeof m->why, "%s: %s", m->file,
                 !entry ? "no module entry" : !be ? "built for another module version" : "built for another backend version");
        dlclose(h);
        return;
    }
    m->backend = be; /* the library stays loaded for the life of the process */
}

static const wnn__backend *module_backend(module *m)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    loading = m;
    pthread_once(&m->once, load);
    pthread_mutex_unlock(&lock);
    return m->backend;
}

/* Backend i of the flat order: built-ins, then modules (loaded now). */
static const wnn__backend *backend_at(size_t i)
{
    if (i < BUILTIN_COUNT) /* linked in, so built for this table: checked all the same */
        return builtin[i]->version == WNN__BACKEND_VERSION ? builtin[i] : NULL;
    return i < BUILTIN_COUNT + MODULE_COUNT ? module_backend(&modules[i - BUILTIN_COUNT]) : NULL;
}

uint32_t wnn__registry_device_count(void)
{
    uint32_t n = 0;
    for (size_t i = 0; i < BUILTIN_COUNT + MODULE_COUNT; i++) {
        const wnn__backend *be = backend_at(i);
        n += be ? be->device_count() : 0;
    }
    return n;
}

wnn_status wnn__registry_lookup(uint32_t index, const wnn__backend **backend, uint32_t *local_index)
{
    for (size_t i = 0; i < BUILTIN_COUNT + MODULE_COUNT; i++) {
        const wnn__backend *be = backend_at(i);
        uint32_t n = be ? be->device_count() : 0;
        if (index < n) {
            *backend = be;
            *local_index = index;
            return WNN_OK;
        }
        index -= n;
    }
    return WNN_STATUS_NO_SUCH_DEVICE;
}

wnn_status wnn__registry_find(const char *name, const wnn__backend **backend, uint32_t *local_index)
{
    for (size_t i = 0; i < BUILTIN_COUNT + MODULE_COUNT; i++) {
        /* a module is loaded only for a name its backend could serve */
        const char *prefix = i < BUILTIN_COUNT ? builtin[i]->name : modules[i - BUILTIN_COUNT].name;
        if (strncmp(name, prefix, strlen(prefix)) != 0)
            continue;
        const wnn__backend *be = backend_at(i);
        uint32_t n = be ? be->device_count() : 0;
        for (uint32_t k = 0; k < n; k++) {
            wnn_device_info info;
            if (be->device_info(k, &info) == WNN_OK && strcmp(info.name, name) == 0) {
                *backend = be;
                *local_index = k;
                return WNN_OK;
            }
        }
    }
    return WNN_STATUS_NO_SUCH_DEVICE;
}

const char *wnn__registry_absent_reason(const char *name)
{
    for (size_t i = 0; i < MODULE_COUNT; i++)
        if (strcmp(modules[i].name, name) == 0)
            return modules[i].backend ? NULL : modules[i].why;
    return NULL;
}
