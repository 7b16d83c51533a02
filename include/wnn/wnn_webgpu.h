/* SPDX-License-Identifier: Apache-2.0 */
/*
** wnn_webgpu.h -- sharing tensors with WebGPU: WebNN's MLTensor <-> GPUBuffer
** interop (webnn PR #942) for programs that use the standard webgpu.h C API.
**
** A context made on the application's WGPUDevice (WebNN's
** createContext(GPUDevice)) runs its graphs on that device's queue. A tensor
** created with wnn_tensor_desc.exportable_to_gpu can be exported: the
** application gets the tensor's WGPUBuffer and the tensor is rented to WebGPU
** until the application returns it. While rented, every wnn call that would
** read or write the tensor (write, read, dispatch, DLPack export) fails with
** WNN_STATUS_INVALID_STATE; after the return the tensor holds what WebGPU
** wrote. In one picture:
**
**     wnn_webgpu_context_create(instance, device, NULL, &ctx);
**     desc.exportable_to_gpu = true;  wnn_context_create_tensor(ctx, &desc, &t);
**     wnn_context_dispatch(ctx, graph, ..., t as an output ...);
**     wnn_webgpu_tensor_export(ctx, t, &buffer);    // wnn's work on t is queued first
**     ... compute passes of the application on buffer, wgpuQueueSubmit ...
**     wnn_webgpu_tensor_return(ctx, t);             // t's next use follows that work
**     wgpuBufferRelease(buffer);
**     wnn_context_read_tensor_sync(ctx, t, ...);    // what the shaders wrote
**
** A context on another device -- cpu, null, or webgpu on a WGPUDevice other
** than the application's -- can share tensors too, through copies: the
** application names its device when it creates the tensor
** (wnn_webgpu_context_create_exportable_tensor, WebNN's
** createExportableTensor(descriptor, GPUDevice)), export copies the value
** into a buffer of that device and says so, and return copies what WebGPU
** wrote back into the tensor. The rental's rules are the same.
**
** DLPack. wnn_tensor_export_dlpack() of a webgpu tensor gives it on
** (kDLWebGPU = 15, 0) with data its WGPUBuffer (byte_offset 0), for a
** consumer on the same WGPUDevice; import wraps such a tensor only when wnn
** lent it from a context on the same WGPUDevice (docs/dlpack.md,
** docs/webgpu.md).
**
** The handle types are those of webgpu.h, declared here as incomplete structs
** so that this header needs no webgpu.h; with webgpu.h included, WGPUDevice
** and struct WGPUDeviceImpl * are the same type.
**
** The implementation. wnn's webgpu module (libwnn_webgpu.so, docs/webgpu.md)
** opens one webgpu.h implementation with dlopen: $WNN_WEBGPU_LIBRARY, else
** the pinned Dawn build. The application's instance and device must come
** from that same library (open the same path: dlopen returns the loaded
** copy), since handles of two implementations, or of two copies of one, do
** not mix.
**
** Threads. wnn calls into the device from its timeline thread, under a lock
** of its own. Dawn's devices are not thread-safe (unless made with Dawn's
** implicit device synchronization): an application that calls into the
** same device from other threads must not do so while the context has work
** in flight (after wnn_context_finish(), for example). The functions below
** are thread-safe in the sense of wnn.h; export and return of one tensor
** must not race other calls on that tensor.
*/
#ifndef WNN_WNN_WEBGPU_H
#define WNN_WNN_WEBGPU_H

#include "wnn/wnn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct WGPUInstanceImpl; /* webgpu.h's WGPUInstance */
struct WGPUDeviceImpl;   /* webgpu.h's WGPUDevice */
struct WGPUBufferImpl;   /* webgpu.h's WGPUBuffer */

/* The usage flags of every buffer wnn_webgpu_tensor_export() gives (webnn
** #954): STORAGE | COPY_SRC | COPY_DST in webgpu.h's WGPUBufferUsage bits. */
#define WNN_WEBGPU_BUFFER_USAGE (0x80u | 0x04u | 0x08u)

/* Creates a context on the application's device (WebNN's
** createContext(GPUDevice)): its tensors are buffers of device and its
** graphs run on device's queue, so wnn's work and the application's are
** ordered by that queue. instance is the WGPUInstance device was made from
** (wnn waits for its futures there; an instance without timed waits is
** polled). The context takes a reference to both, dropped when the context
** is released. options->device is ignored; the rest of options applies as in
** wnn_context_create() (options may be NULL). Errors: INVALID_ARGUMENT for a
** NULL instance, device or out; NO_SUCH_DEVICE when the webgpu module or
** its library cannot be loaded (the message says why); OPERATION_ERROR when
** the device cannot be used (it is lost, for example). Queued work's
** validation errors on such a device are caught in error scopes and
** reported by the next read or wnn_context_finish() as OPERATION_ERROR; the
** device's own uncaptured-error callback, which the application set, sees
** nothing of wnn's. Thread-safe. */
WNN_API wnn_status wnn_webgpu_context_create(struct WGPUInstanceImpl *instance, struct WGPUDeviceImpl *device,
                                             const wnn_context_options *options, wnn_context **out);

/* The instance and device a "webgpu" context runs on: the application's for
** a context of wnn_webgpu_context_create(), else the one wnn made for the
** process, which an application may use too. No reference is added: they
** live as long as the context. Either pointer may be NULL. Errors:
** INVALID_ARGUMENT for a NULL ctx; NOT_SUPPORTED for a context on another
** device. */
WNN_API wnn_status wnn_webgpu_context_get_device(wnn_context *ctx, struct WGPUInstanceImpl **instance,
                                                 struct WGPUDeviceImpl **device);

/* WebNN's createExportableTensor(descriptor, GPUDevice): creates a tensor of
** ctx (as wnn_context_create_tensor() does, desc->exportable_to_gpu taken as
** true) that can be exported to the application's device, whatever device
** ctx runs on. When ctx is a webgpu context on device itself, this is
** wnn_context_create_tensor() with exportable_to_gpu: exports share the
** tensor's buffer. Otherwise exports are copies: the tensor lives on ctx's
** device as any tensor does, and has a buffer of its own on device (made
** here, WNN_WEBGPU_BUFFER_USAGE, the byte length rounded up to 4 bytes),
** which wnn_webgpu_tensor_export() fills with the tensor's value and
** wnn_webgpu_tensor_return() copies back from. instance is the WGPUInstance
** device was made from; both must come from the library wnn loaded, and
** both are referenced until the last tensor made on them is released. The
** copies are made on the calling threads of export and return, which then
** call into device (see Threads). Errors: those of
** wnn_context_create_tensor() (a constant cannot be made this way);
** INVALID_ARGUMENT for a NULL instance or device; NO_SUCH_DEVICE when the
** webgpu module or its library cannot be loaded; OPERATION_ERROR when
** device cannot be used; OUT_OF_MEMORY when its buffer cannot be made.
** Thread-safe. */
WNN_API wnn_status wnn_webgpu_context_create_exportable_tensor(wnn_context *ctx, const wnn_tensor_desc *desc,
                                                               struct WGPUInstanceImpl *instance,
                                                               struct WGPUDeviceImpl *device, wnn_tensor **out);

/* WebNN's MLContext.exportToGPU(): rents tensor to WebGPU and gives its
** buffer in *out. Everything recorded on ctx before the call that touches
** the tensor is on the device's queue when this returns (it waits for the
** context's timeline to reach the call), so the application's later
** submissions see its value; a tensor never written reads as zeros. The
** buffer has WNN_WEBGPU_BUFFER_USAGE and the tensor's byte length rounded
** up to 4 bytes (bytes past the byte length are unspecified). *out is a new
** reference, which the caller releases with wgpuBufferRelease() whenever it
** likes; the rental lasts until wnn_webgpu_tensor_return(). Exporting a
** tensor already rented gives the same buffer again (another reference).
** Destroying a rented tensor, or its context, is safe: wnn drops its own
** reference to the buffer (which never serves another tensor) and the
** application's keeps it usable until released.
** A tensor of wnn_webgpu_context_create_exportable_tensor() on another
** device exports a copy: its buffer on the application's device, into
** which export writes the tensor's value (the write is on the device's
** queue when this returns, before the application's later submissions);
** the rental's rules above hold for it alike (exporting it again gives the
** same buffer without copying again).
** Errors (first failing rule wins): INVALID_ARGUMENT for NULL arguments;
** CONTEXT_LOST; WRONG_CONTEXT; DESTROYED (DESTROYED_OBJECT under
** WNN_POLICY_SPEC); NOT_SUPPORTED when ctx is not on the webgpu device and
** the tensor is not one of wnn_webgpu_context_create_exportable_tensor();
** INVALID_ARGUMENT when the tensor was created without exportable_to_gpu
** or is a constant; any error of the work queued on the tensor before, or
** of the copy. */
WNN_API wnn_status wnn_webgpu_tensor_export(wnn_context *ctx, wnn_tensor *tensor, struct WGPUBufferImpl **out);

/* wnn_webgpu_tensor_export() that also says, in *copied (when copied is not
** NULL), whether the buffer is a copy (true: the tensor is on another
** device, and return copies the buffer back) or the tensor's own memory.
** *copied is false on failure. */
WNN_API wnn_status wnn_webgpu_tensor_export_v2(wnn_context *ctx, wnn_tensor *tensor, struct WGPUBufferImpl **out,
                                               bool *copied);

/* Ends the rental of wnn_webgpu_tensor_export(): the tensor's next use is
** recorded after this call and reaches the device's queue after everything
** the application submitted before it, so it sees what WebGPU wrote. Submit
** the work that writes the buffer before returning it, and do not use the
** buffer afterwards (it is wnn's again; the reference keeps only the handle
** valid). Returning a destroyed tensor that is still rented just ends the
** rental. For a copy (wnn_webgpu_tensor_export_v2's *copied), return reads
** the buffer back -- it waits for the application's work submitted before
** it -- and queues a write of those bytes into the tensor (whether or not
** it was created writable), so the tensor's next use sees what WebGPU wrote
** as it would on the same device. Errors: INVALID_ARGUMENT for NULL
** arguments; WRONG_CONTEXT; INVALID_STATE when the tensor is not rented
** (never exported, or returned already); for a copy, OPERATION_ERROR or
** OUT_OF_MEMORY when the buffer cannot be read back: the rental ends all the
** same and the tensor keeps the value it had at the export. Returning a
** tensor of a lost context succeeds (nothing is copied). */
WNN_API wnn_status wnn_webgpu_tensor_return(wnn_context *ctx, wnn_tensor *tensor);

/* Whether tensor is rented to WebGPU now (exported and not returned). */
WNN_API bool wnn_webgpu_tensor_is_rented(const wnn_tensor *tensor);

#ifdef __cplusplus
}
#endif

#endif
