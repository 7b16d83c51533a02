/*
** model.h -- the compiled model object (model.c) as the importer makes it.
*/
#ifndef WNN_ONNX_MODEL_H
#define WNN_ONNX_MODEL_H

#include "onnx_internal.h"

/* Builds the graph of outputs and the model's tensors; on success *out owns
** them. im supplies the builder and the ONNX input names. */
wnn_status onx_model_create(wnn_context *ctx, onx_importer *im, const wnn_named_operand *outs,
                            wnn_onnx_model **out);

#endif /* WNN_ONNX_MODEL_H */
