/* SPDX-License-Identifier: Apache-2.0 */
/*
** ops.h -- what ops.c (the operator table and its callers) and options.c
** (the keyword options of each operator) share.
*/
#ifndef WNNPY_OPS_H
#define WNNPY_OPS_H

#include "wnnpy.h"

/* How one keyword option is stored in its C options struct. */
typedef enum {
    FK_DOUBLE,      /* double */
    FK_OPT_DOUBLE,  /* const double *, NULL when not given */
    FK_BOOL,        /* bool */
    FK_NOT_BOOL,    /* bool holding the option negated (WebNN's upper in triangular's lower) */
    FK_U32,         /* uint32_t */
    FK_OPT_U32,     /* const uint32_t *, NULL when not given */
    FK_I32,         /* int32_t */
    FK_OPERAND,     /* wnn_operand * */
    FK_DTYPE,       /* wnn_data_type */
    FK_ENUM,        /* an int-sized enum named by the strings of names[] */
    FK_NUMBER,      /* const wnn_number *, NULL when not given */
    FK_U32_ARRAY,   /* uint32_t[n], exactly n entries */
    FK_FLOAT_ARRAY, /* float[n], exactly n entries */
    FK_AXES,        /* const uint32_t * (NULL when not given) with a uint32_t count at count_off */
    FK_ACTIVATIONS  /* const wnn_recurrent_activation *, exactly n entries, count at count_off */
} wnnpy_field_kind;

typedef struct {
    const char *name;          /* snake_case; WebNN's camelCase is accepted too */
    wnnpy_field_kind kind;
    unsigned n;                /* array length */
    size_t off;                /* offset of the value */
    ptrdiff_t count_off;       /* FK_AXES, FK_ACTIVATIONS: offset of the count, or -1 */
    const char *const *names;  /* FK_ENUM, FK_ACTIVATIONS: value names, NULL-terminated */
} wnnpy_field;

typedef struct {
    size_t size;              /* sizeof the options struct (its zero bytes are the defaults) */
    const wnnpy_field *fields; /* terminated by a NULL name */
} wnnpy_options;

/* The option specs (options.c). */
extern const wnnpy_options wnnpy_clamp_opts, wnnpy_gemm_opts, wnnpy_elu_opts, wnnpy_hard_sigmoid_opts,
    wnnpy_leaky_relu_opts, wnnpy_linear_opts, wnnpy_reduce_opts, wnnpy_arg_min_max_opts,
    wnnpy_cumulative_sum_opts, wnnpy_conv2d_opts, wnnpy_conv_transpose2d_opts, wnnpy_pool2d_opts,
    wnnpy_resample2d_opts, wnnpy_batch_normalization_opts, wnnpy_instance_normalization_opts,
    wnnpy_layer_normalization_opts, wnnpy_pad_opts, wnnpy_split_opts, wnnpy_reverse_opts, wnnpy_triangular_opts,
    wnnpy_gather_opts, wnnpy_scatter_opts, wnnpy_gru_opts, wnnpy_gru_cell_opts, wnnpy_lstm_opts,
    wnnpy_lstm_cell_opts;

/* The most keyword options any operator has. */
#define WNNPY_MAX_FIELDS 16

/* What a pointer member of an options struct points at, one per field. */
typedef union {
    double d;
    uint32_t u;
    wnn_number number;
    uint32_t list[WNN_MAX_RANK];
    wnn_recurrent_activation activations[3];
} wnnpy_option_slot;

/* Room for any options struct (first, so that a pointer to the buffer is
** one to the struct) and the values its pointer members point at. */
typedef struct {
    union {
        max_align_t align;
        unsigned char bytes[256];
    } opts;
    wnnpy_option_slot slots[WNNPY_MAX_FIELDS];
} wnnpy_options_buffer;

/* Index of the option named key (snake_case) in spec, or -1. */
int wnnpy_option_index(const wnnpy_options *spec, const char *key);

/* Zeroes out (every option at its default), then sets every option of
** values[i] (for field i; NULL or None: left at its default). op names the
** operator in messages. Returns -1 with an exception set. */
int wnnpy_options_fill(const wnnpy_options *spec, PyObject *const *values, const char *op,
                       wnnpy_options_buffer *out);

#endif
