/*
** ops_text.c -- TfIdfVectorizer over integer tokens. Every n-gram position
** of the input is static, so for each gram length n and skip s the n
** tokens of every window are strided slices, compared with the pool's
** n-grams (equal, and over the n tokens), and the matches counted with
** reduceSum; the pool's counts, weighted by mode (TF counts, IDF weights
** present grams, TFIDF both), land in their output columns through a
** matmul with a constant 0/1 matrix (exact: counts stay far below 2^24).
** String pools have no WebNN type.
*/
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

/* At most this many elements in one comparison (batch x windows x grams x n). */
#define TFIDF_MAX_ELEMENTS ((uint64_t)1 << 26)

static wnn_operand *constant(onx_importer *im, wnn_data_type t, uint32_t rank, const uint32_t *shape, const void *data)
{
    wnn_operand_desc d = {t, rank, {0}};
    size_t count = 1;
    for (uint32_t i = 0; i < rank; i++)
        count *= d.shape[i] = shape[i];
    return wnn_graph_builder_constant(im->b, &d, data, count * onx_type_size(t));
}

static wnn_status lower_tfidf(onx_importer *im, const Onnx__NodeProto *n)
{
    wnn_graph_builder *b = im->b;
    wnn_operand *x = onx_in_op(im, n, 0);
    if (x == NULL)
        return im->status;
    wnn_operand_desc d = onx_desc_of(x);
    if ((d.rank != 1 && d.rank != 2) || (d.data_type != WNN_DATA_TYPE_INT32 && d.data_type != WNN_DATA_TYPE_INT64))
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "input of rank %u and type %s: int32 or int64 of rank 1 or 2",
                        d.rank, wnn_data_type_name(d.data_type));
    const Onnx__AttributeProto *pool_a = onx_attr(n, "pool_int64s"), *counts_a = onx_attr(n, "ngram_counts");
    const Onnx__AttributeProto *index_a = onx_attr(n, "ngram_indexes"), *weights_a = onx_attr(n, "weights");
    if (onx_attr(n, "pool_strings") != NULL)
        return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "a pool of strings: WebNN has no string type");
    if (pool_a == NULL || counts_a == NULL || index_a == NULL)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "pool_int64s, ngram_counts and ngram_indexes are required");
    char mode[8];
    onx_attr_string(n, "mode", "TF", mode, sizeof mode);
    bool tf = strcmp(mode, "TF") == 0, idf = strcmp(mode, "IDF") == 0;
    if (!tf && !idf && strcmp(mode, "TFIDF") != 0)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "mode '%s' is not TF, IDF or TFIDF", mode);
    int64_t lo = onx_attr_int(n, "min_gram_length", 1), hi = onx_attr_int(n, "max_gram_length", 1);
    int64_t skips = onx_attr_int(n, "max_skip_count", 0);
    size_t levels = counts_a->n_ints, grams = index_a->n_ints;
    if (lo < 1 || hi < lo || (size_t)hi > levels || skips < 0 || skips > 64 ||
        (weights_a && weights_a->n_floats && weights_a->n_floats != grams))
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "gram lengths %lld..%lld over %zu levels, skips %lld",
                        (long long)lo, (long long)hi, levels, (long long)skips);
    int64_t width = 0;
    for (size_t i = 0; i < grams; i++) {
        if (index_a->ints[i] < 0 || index_a->ints[i] >= (1 << 24))
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "ngram_indexes[%zu] is %lld", i,
                            (long long)index_a->ints[i]);
        width = index_a->ints[i] + 1 > width ? index_a->ints[i] + 1 : width;
    }
    uint32_t batch = d.rank == 2 ? d.shape[0] : 1, len = d.shape[d.rank - 1], s2[2] = {batch, len};
    wnn_operand *tokens = wnn_reshape(b, wnn_cast(b, x, WNN_DATA_TYPE_INT64), 2, s2), *counts = NULL;
    /* the pool's n-grams in pool order; gram g of level n starts at ngram_counts[n - 1] */
    size_t first_gram = 0;
    wnn_operand *parts[64];
    size_t nparts = 0;
    for (size_t level = 1; level <= levels && im->status == WNN_OK; level++) {
        int64_t start = counts_a->ints[level - 1], end = level < levels ? counts_a->ints[level] : (int64_t)pool_a->n_ints;
        if (start < 0 || end < start || end > (int64_t)pool_a->n_ints || (end - start) % (int64_t)level != 0)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "ngram_counts[%zu] does not split the pool", level - 1);
        uint32_t g = (uint32_t)((end - start) / (int64_t)level);
        if (g == 0)
            continue;
        if (first_gram + g > grams || nparts == 64)
            return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the pool has more n-grams than ngram_indexes");
        wnn_operand *level_counts = NULL;
        for (int64_t skip = 0; (int64_t)level >= lo && (int64_t)level <= hi && skip <= (level == 1 ? 0 : skips);
             skip++) {
            uint32_t step = (uint32_t)skip + 1, span = (uint32_t)(level - 1) * step + 1;
            if (span > len)
                break;
            uint32_t windows = len - span + 1;
            if ((uint64_t)batch * windows * g * level > TFIDF_MAX_ELEMENTS)
                return onx_fail(im, WNN_STATUS_NOT_SUPPORTED, "%u windows against %u grams", windows, g);
            wnn_operand *match = NULL;
            for (uint32_t t = 0; t < level; t++) {
                uint32_t st[2] = {0, t * step}, sz[2] = {batch, windows}, s3[3] = {batch, windows, 1}, ps[3] = {1, 1, g};
                int64_t *pool = malloc(g * sizeof *pool);
                if (pool == NULL)
                    return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
                for (uint32_t j = 0; j < g; j++)
                    pool[j] = pool_a->ints[start + (int64_t)j * (int64_t)level + t];
                wnn_operand *pc = constant(im, WNN_DATA_TYPE_INT64, 3, ps, pool);
                free(pool);
                wnn_operand *eq = wnn_equal(b, wnn_reshape(b, wnn_slice(b, tokens, st, sz, NULL), 3, s3), pc);
                match = match == NULL ? eq : wnn_logical_and(b, match, eq);
            }
            uint32_t axis = 1;
            wnn_reduce_options ro = {.axes = &axis, .axes_count = 1};
            wnn_operand *c = wnn_reduce_sum(b, wnn_cast(b, match, WNN_DATA_TYPE_FLOAT32), &ro); /* [B, g] */
            level_counts = level_counts == NULL ? c : wnn_add(b, level_counts, c);
        }
        if (level_counts == NULL) { /* a level not counted: zeros */
            uint32_t zs[2] = {batch, g};
            level_counts = wnn_expand(b, onx_scalar(im, WNN_DATA_TYPE_FLOAT32, 0.0), 2, zs);
        }
        parts[nparts++] = level_counts;
        first_gram += g;
    }
    if (im->status != WNN_OK)
        return im->status;
    if (nparts == 0 || first_gram != grams)
        return onx_fail(im, WNN_STATUS_INVALID_ARGUMENT, "the pool holds %zu n-grams, ngram_indexes %zu", first_gram,
                        grams);
    counts = nparts == 1 ? parts[0] : wnn_concat(b, parts, nparts, 1); /* [B, grams] */
    if (!tf) {
        float *w = malloc(grams * sizeof *w);
        if (w == NULL)
            return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
        for (size_t i = 0; i < grams; i++)
            w[i] = weights_a && weights_a->n_floats ? weights_a->floats[i] : 1.0f;
        uint32_t ws[2] = {1, (uint32_t)grams};
        wnn_operand *wc = constant(im, WNN_DATA_TYPE_FLOAT32, 2, ws, w);
        free(w);
        wnn_operand *base = idf ? wnn_cast(b, wnn_greater(b, counts, onx_scalar(im, WNN_DATA_TYPE_FLOAT32, 0.0)),
                                           WNN_DATA_TYPE_FLOAT32)
                                : counts;
        counts = wnn_mul(b, base, wc);
    }
    float *m = calloc(grams * (size_t)width, sizeof *m);
    if (m == NULL)
        return onx_fail(im, WNN_STATUS_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < grams; i++)
        m[i * (size_t)width + (size_t)index_a->ints[i]] = 1.0f;
    uint32_t ms[2] = {(uint32_t)grams, (uint32_t)width};
    wnn_operand *map = constant(im, WNN_DATA_TYPE_FLOAT32, 2, ms, m);
    free(m);
    wnn_operand *y = wnn_matmul(b, counts, map);
    uint32_t w1 = (uint32_t)width;
    return onx_out(im, n, 0, d.rank == 1 && y ? wnn_reshape(b, y, 1, &w1) : y);
}

const onx_op_entry onx_ops_text[] = {
    {"TfIdfVectorizer", lower_tfidf},
    {NULL, NULL},
};
