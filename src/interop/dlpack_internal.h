/* SPDX-License-Identifier: Apache-2.0 */
/*
** dlpack_internal.h -- what DLPack export and import share. The core
** services they use (wnn__timeline_call, wnn__tensor_create_foreign) are
** core's, declared in core/internal.h.
**
** An export is one allocation (wnn__dl_export): the managed tensor handed to
** the consumer, its shape and strides, and for a copy to host the copied
** bytes. It is reference counted: the consumer's deleter holds one
** reference, and so does each queued timeline call that still uses it.
*/
#ifndef WNN_INTEROP_DLPACK_INTERNAL_H
#define WNN_INTEROP_DLPACK_INTERNAL_H

#include "core/internal.h"
#include "wnn/dlpack.h"

/* ---- exports --------------------------------------------------------------- */

/* Pending work of a producer queue, for a consumer on another queue of the
** same device (the null device's streams; see docs/dlpack.md): reached once
** the producer's timeline has queued the tensor's work on its device. */
typedef struct wnn__dl_event {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool reached;
} wnn__dl_event;

typedef struct wnn__dl_export {
    union {
        DLManagedTensorVersioned v;
        DLManagedTensor l;
    } m;
    atomic_int refs;
    wnn_context *ctx;    /* retained: the producer (until prepared, for a host copy) */
    wnn_tensor *tensor;  /* retained likewise; pinned when shared (zero copy) */
    bool shared;         /* the memory is tensor's own storage */
    bool legacy;
    wnn__storage clone;  /* a copy on the tensor's (non-host) device */
    bool has_clone;
    void *host_copy;     /* a copy in host memory, inside this allocation */
    void *data;          /* what was exported, immutable: the memory, its size, */
    size_t bytes;
    DLDevice device;     /* its device, and the backend that made it */
    const wnn__backend *backend;
    bool has_event;
    wnn__dl_event event;
    wnn_status status;   /* of the queued preparation */
} wnn__dl_export;

/* The export behind a managed tensor, if wnn made it (its deleter is
** wnn's), else NULL. */
wnn__dl_export *wnn__dl_export_of(void *managed, bool legacy);
void wnn__dl_export_retain(wnn__dl_export *e);
void wnn__dl_export_unref(wnn__dl_export *e);
/* Blocks until the producer work behind e's event is complete on its device
** (immediately if e has no event). Device failures are recorded on the
** producer's timeline and returned. */
wnn_status wnn__dl_event_wait(wnn__dl_export *e);

/* ---- data types ------------------------------------------------------------ */

/* WebNN data type -> DLPack; false for int4/uint4. */
bool wnn__dl_from_data_type(wnn_data_type t, DLDataType *out);
/* DLPack -> WebNN data type; WNN_DATA_TYPE_INVALID when there is none. */
wnn_data_type wnn__dl_to_data_type(DLDataType dl);

#endif
