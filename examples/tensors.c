/* SPDX-License-Identifier: Apache-2.0 */
/* tensors.c -- tensors and DLPack: a tensor's memory lent to another
** framework with no copy (export), and the caller's memory made a wnn tensor
** with no copy (import). Here the "other framework" is this program, holding
** a DLManagedTensorVersioned as NumPy or PyTorch would. */
#include <stdio.h>
#include <stdlib.h>
#include <wnn/dlpack.h>
#include <wnn/wnn.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        wnn_status s_ = (call);                                                       \
        if (s_ != WNN_OK) {                                                           \
            fprintf(stderr, "%s: %s\n", wnn_status_string(s_), wnn_last_error_message()); \
            goto done;                                                                \
        }                                                                             \
    } while (0)

/* The caller's buffer, in the form a DLPack producer hands over. */
typedef struct host_array {
    DLManagedTensorVersioned managed;
    int64_t shape[1];
    float data[4];
} host_array;

static int deleted; /* how many host arrays wnn handed back */

static void host_array_delete(DLManagedTensorVersioned *self)
{
    deleted++;
    free(self->manager_ctx);
}

static host_array *host_array_new(void)
{
    host_array *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->managed.version = (DLPackVersion){DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    a->managed.manager_ctx = a;
    a->managed.deleter = host_array_delete;
    a->shape[0] = 4;
    a->managed.dl_tensor = (DLTensor){a->data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, a->shape, NULL, 0};
    for (int i = 0; i < 4; i++)
        a->data[i] = (float)(i + 1);
    return a;
}

int main(void)
{
    int rc = 1;
    wnn_context *ctx = NULL;
    wnn_tensor *t = NULL, *wrapped = NULL;
    DLManagedTensorVersioned *lent = NULL;

    CHECK(wnn_context_create(NULL, &ctx));
    wnn_tensor_desc td = WNN_TENSOR_DESC_INIT;
    td.rank = 2;
    td.shape[0] = 2;
    td.shape[1] = 3;
    td.readable = td.writable = true;
    CHECK(wnn_context_create_tensor(ctx, &td, &t));
    float v[6] = {1, 2, 3, 4, 5, 6};
    CHECK(wnn_context_write_tensor(ctx, t, v, sizeof v));

    /* Export: the consumer sees the tensor's memory, after the write above. */
    void *out = NULL;
    CHECK(wnn_tensor_export_dlpack(t, NULL, &out));
    lent = out;
    const DLTensor *dl = &lent->dl_tensor;
    const float *p = dl->data;
    printf("exported: ndim %d, shape [%lld, %lld], %s, last element %g\n", (int)dl->ndim,
           (long long)dl->shape[0], (long long)dl->shape[1],
           lent->flags & DLPACK_FLAG_BITMASK_IS_COPIED ? "a copy" : "no copy", p[5]);
    lent->deleter(lent); /* the consumer hands it back exactly once */
    lent = NULL;

    /* Import: wnn wraps the host array (cpu memory, compact) and calls its
    ** deleter once the tensor is released and its work done, or at once on
    ** failure: ownership passes to wnn whatever the outcome. */
    host_array *a = host_array_new();
    if (!a) {
        fprintf(stderr, "out of memory\n");
        goto done;
    }
    CHECK(wnn_context_import_dlpack(ctx, &a->managed, NULL, &wrapped));
    float r[4];
    CHECK(wnn_context_read_tensor_sync(ctx, wrapped, r, sizeof r));
    printf("imported: %g %g %g %g\n", r[0], r[1], r[2], r[3]);
    rc = 0;
done:
    if (lent)
        lent->deleter(lent);
    wnn_tensor_release(wrapped);
    wnn_tensor_release(t);
    wnn_context_release(ctx);
    printf("host arrays handed back: %d\n", deleted);
    return rc;
}
