/*
** ops_signal.c -- ONNX's signal operators on WebNN. A DFT of static length N
** is a linear map: the signal's axis moves last, real and imaginary parts
** side by side, and one matmul with a constant [c * n, 2 * K] matrix of
** cosines and sines gives the K bins' real and imaginary parts. STFT gathers
** its frames with constant indices, applies the window and takes that DFT.
** MelWeightMatrix depends on its (constant) arguments only: it is computed
** here, as ONNX's reference does.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* The constant matrix is c * n rows by 2 * K columns at most this big. */
#define DFT_MAX_ELEMENTS ((uint64_t)1 << 26)

/* The DFT of period n_fft along axis (not the last, which holds c = 1 real
** or 2 real-and-imaginary parts): bins 0..bins-1, inverse scaled by 1 / N.
** The signal is truncated to n_fft, or zero-padded (rows absent). */
static wnn_operand *dft(onx_importer *im, wnn_operand *x, uint32_t axis, uint32_t n_fft, uint32_t bins, bool inverse)
{
    wnn_graph_builder *b = im->b;
    wnn_operand_desc d = onx_desc_of(x);
    uint32_t r = d.rank, c = d.shape[r - 1], n = d.shape[axis];
    if (n > n_fft) {
        uint32_t starts[WNN_MAX_RANK] = {0}, sizes[WNN_MAX_RANK];
        memcpy(sizes, d.shape, sizeof sizes);
        sizes[axis] = n = n_fft;
        x = wnn_slice(b, x, starts, sizes, NULL);
    }
    if ((uint64_t)c * n * 2 * bins > DFT_MAX_ELEMENTS) {
        onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a DFT of %u points to %u bins: its matrix would pass %llu elements",
                 n, bins, (unsigned long long)DFT_MAX_ELEMENTS);
        return NULL;
    }
    /* [others..., c, n] -> [rows, c * n] */
    uint32_t perm[WNN_MAX_RANK], m = 0, rows = 1, shape[WNN_MAX_RANK];
    for (uint32_t i = 0; i < r - 1; i++)
        if (i != axis) {
            shape[m] = d.shape[i];
            rows *= d.shape[i];
            perm[m++] = i;
        }
    perm[m] = r - 1;
    perm[m + 1] = axis;
    uint32_t flat[2] = {rows, c * n};
    wnn_operand *xm = wnn_reshape(b, wnn_transpose(b, x, perm), 2, flat);
    float *w = malloc((size_t)c * n * 2 * bins * sizeof *w);
    if (w == NULL) {
        onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    double scale = inverse ? 1.0 / n_fft : 1.0, sign = inverse ? 1.0 : -1.0;
    for (uint32_t t = 0; t < n; t++) {
        for (uint32_t k = 0; k < bins; k++) {
            double theta = 2.0 * M_PI * (double)(((uint64_t)t * k) % n_fft) / n_fft;
            double re = cos(theta) * scale, im_part = sign * sin(theta) * scale;
            size_t row = (size_t)t * 2 * bins; /* real input part */
            w[row + k] = (float)re;
            w[row + bins + k] = (float)im_part;
            if (c == 2) { /* imaginary input part: i (re + i im) = -im + i re */
                row = ((size_t)n + t) * 2 * bins;
                w[row + k] = (float)-im_part;
                w[row + bins + k] = (float)re;
            }
        }
    }
    wnn_operand_desc wd = {WNN_DATA_TYPE_FLOAT32, 2, {c * n, 2 * bins}};
    wnn_operand *wm = wnn_graph_builder_constant(b, &wd, w, (size_t)c * n * 2 * bins * sizeof *w);
    free(w);
    if (wm != NULL && d.data_type != WNN_DATA_TYPE_FLOAT32)
        wm = wnn_cast(b, wm, d.data_type);
    /* [rows, 2 * bins] -> [others..., 2, bins] -> the bins at axis, the parts last */
    shape[m] = 2;
    shape[m + 1] = bins;
    wnn_operand *y = wnn_reshape(b, wnn_matmul(b, xm, wm), m + 2, shape);
    uint32_t back[WNN_MAX_RANK];
    for (uint32_t i = 0, j = 0; i < r; i++)
        back[i] = i == axis ? m + 1 : i == r - 1 ? m : j++;
    return wnn_transpose(b, y, back);
}

static int64_t scalar_input(onx_importer *im, const Onnx__NodeProto *n, size_t i, const char *what, int64_t dflt)
{
    if (onx_in(im, n, i) == NULL)
        return dflt;
    int64_t v;
    if (onx_in_ints(im, n, i, what, &v, 1) != 1)
        return im->status != WNN_OK ? -1
                                    : (onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%s must be one value", what), -1);
    return v;
}

static wnn_status lower_dft(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank < 2 || (d.shape[d.rank - 1] != 1 && d.shape[d.rank - 1] != 2))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the input's last dimension must be 1 (real) or 2 (complex)");
    int64_t a = im->opset >= 20 ? scalar_input(im, n, 2, "axis", -2) : onx_attr_int(n, "axis", 1);
    if (im->status != WNN_OK)
        return im->status;
    if (a < 0)
        a += d.rank;
    if (a < 0 || a >= (int64_t)d.rank - 1)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "axis %lld is not a signal axis of rank %u", (long long)a,
                        d.rank);
    int64_t len = scalar_input(im, n, 1, "dft_length", d.shape[a]);
    if (im->status != WNN_OK)
        return im->status;
    if (len < 1 || len > INT32_MAX)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "dft_length is %lld", (long long)len);
    bool onesided = onx_attr_int(n, "onesided", 0) != 0, inverse = onx_attr_int(n, "inverse", 0) != 0;
    uint32_t bins = onesided ? (uint32_t)len / 2 + 1 : (uint32_t)len;
    return onx_out(im, n, 0, dft(im, x, (uint32_t)a, (uint32_t)len, bins, inverse));
}

/* STFT of signal [batch, L, c]: frames t * step .. t * step + length - 1
** gathered to [batch, frames, length, c], windowed, then the DFT. */
static wnn_status lower_stft(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if (d.rank != 3 || (d.shape[2] != 1 && d.shape[2] != 2))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the signal must be [batch, length, 1 or 2]");
    int64_t step = scalar_input(im, n, 1, "frame_step", -1);
    if (im->status != WNN_OK)
        return im->status;
    wnn_operand *window = onx_in(im, n, 2) ? onx_in_op(im, n, 2) : NULL;
    if (onx_in(im, n, 2) && window == NULL)
        return im->status;
    int64_t length = scalar_input(im, n, 3, "frame_length", window ? (int64_t)onx_desc_of(window).shape[0] : -1);
    if (im->status != WNN_OK)
        return im->status;
    if (step < 1 || length < 1 || length > d.shape[1] || (window && onx_desc_of(window).shape[0] != length))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "frame_step %lld and frame_length %lld (a window of %u) "
                        "for a signal of %u", (long long)step, (long long)length,
                        window ? onx_desc_of(window).shape[0] : 0, d.shape[1]);
    uint32_t frames = (uint32_t)((d.shape[1] - length) / step + 1);
    if ((uint64_t)frames * (uint64_t)length > DFT_MAX_ELEMENTS)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%u frames of %lld", frames, (long long)length);
    int64_t *idx = malloc((size_t)frames * (size_t)length * sizeof *idx);
    if (idx == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (uint32_t f = 0; f < frames; f++)
        for (int64_t j = 0; j < length; j++)
            idx[(size_t)f * (size_t)length + (size_t)j] = (int64_t)f * step + j;
    wnn_operand_desc id = {WNN_DATA_TYPE_INT64, 2, {frames, (uint32_t)length}};
    wnn_operand *ids = wnn_graph_builder_constant(b, &id, idx, (size_t)frames * (size_t)length * sizeof *idx);
    free(idx);
    wnn_gather_options go = {.axis = 1};
    wnn_operand *framed = wnn_gather(b, x, ids, &go); /* [batch, frames, length, c] */
    if (window != NULL) {
        uint32_t ws[4] = {1, 1, (uint32_t)length, 1};
        framed = wnn_mul(b, framed, wnn_reshape(b, window, 4, ws));
    }
    bool onesided = onx_attr_int(n, "onesided", 1) != 0;
    uint32_t bins = onesided ? (uint32_t)length / 2 + 1 : (uint32_t)length;
    return onx_out(im, n, 0, framed ? dft(im, framed, 2, (uint32_t)length, bins, false) : NULL);
}

/* ONNX's reference (onnx/backend/test/case/node/melweightmatrix.py), step
** for step: triangles between mel-spaced bin edges. */
static wnn_status lower_mel_weight_matrix(onx_importer *im, const Onnx__NodeProto *n)
{
    const char *names[5] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
    double v[5];
    for (size_t i = 0; i < 5; i++) {
        const onx_const *c = onx_in_const(im, n, i, names[i]);
        if (c == NULL)
            return im->status;
        if (c->count != 1)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "%s must be one value", names[i]);
        v[i] = onx_get_f64(c, 0);
    }
    int64_t mels = (int64_t)v[0], fft = (int64_t)v[1], rate = (int64_t)v[2];
    if (mels < 1 || mels > 65536 || fft < 1 || fft > (1 << 24) || rate < 1)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "num_mel_bins %lld, dft_length %lld, sample_rate %lld",
                        (long long)mels, (long long)fft, (long long)rate);
    wnn_data_type out_type;
    if (!onx_type_from_onnx((int32_t)onx_attr_int(n, "output_datatype", 1), &out_type))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "output_datatype %lld has no WebNN equivalent",
                        (long long)onx_attr_int(n, "output_datatype", 1));
    int64_t spec = fft / 2 + 1, dims[2] = {spec, mels};
    int64_t *edge = malloc((size_t)(mels + 2) * sizeof *edge);
    onx_const *c = edge ? onx_const_new(out_type, 2, dims) : NULL;
    if (c == NULL) {
        free(edge);
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    double low = 2595.0 * log10(1.0 + v[3] / 700.0), high = 2595.0 * log10(1.0 + v[4] / 700.0);
    double step = (high - low) / (double)(mels + 2);
    bool ok = true;
    for (int64_t i = 0; i < mels + 2; i++) {
        double hz = 700.0 * (pow(10.0, (i * step + low) / 2595.0) - 1.0);
        edge[i] = (int64_t)floor((double)(fft + 1) * hz / (double)rate);
        ok = ok && edge[i] >= 0 && edge[i] < spec;
    }
    for (int64_t i = 0; ok && i < mels; i++) {
        int64_t lo = edge[i], mid = edge[i + 1], hi = edge[i + 2];
        if (mid == lo)
            onx_set_f64(c, (size_t)(mid * mels + i), 1.0);
        for (int64_t j = lo; mid > lo && j <= mid; j++)
            onx_set_f64(c, (size_t)(j * mels + i), (double)(j - lo) / (double)(mid - lo));
        for (int64_t j = mid; hi > mid && j < hi; j++)
            onx_set_f64(c, (size_t)(j * mels + i), (double)(hi - j) / (double)(hi - mid));
    }
    free(edge);
    if (!ok) {
        onx_const_free(c);
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the edges leave the %lld spectrogram bins", (long long)spec);
    }
    return onx_out_const(im, n, 0, c);
}

const onx_op_entry onx_ops_signal[] = {
    {"DFT", lower_dft},
    {"STFT", lower_stft},
    {"MelWeightMatrix", lower_mel_weight_matrix},
    {NULL, NULL},
};
