/* libFuzzer: the extxyz comment-line parser on arbitrary bytes fails
 * cleanly (an error inside the line) or gives pairs that split back the
 * same when written with the writer's quoting, and values whose typed form
 * is consistent (shape against count, strings terminated). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/atoms/xyz_kv.h"
#include "snapkit/memory.h"

static void check_value(const sk_xyz_value *v)
{
    if (v->type < SK_XYZ_BOOL || v->type > SK_XYZ_STRING || v->ndim < 0 || v->ndim > 2 ||
        v->n < 1 || (v->ndim == 0 && v->n != 1) || (v->ndim == 1 && v->shape[0] != v->n) ||
        (v->ndim == 2 && v->shape[0] * v->shape[1] != v->n))
        abort();
    for (int64_t i = 0; i < v->n; i++) {
        if (v->type == SK_XYZ_BOOL && ((const uint8_t *)v->data)[i] > 1)
            abort();
        if (v->type == SK_XYZ_STRING)
            (void)strlen(((char *const *)v->data)[i]);
    }
}

/* Write the pairs back (keys quoted as the writer does, values as they
 * were written) and split again: the same keys and values. */
static void check_rewrite(const kv_line *kv)
{
    sk_text t = {0};
    for (int i = 0; i < kv->n; i++) {
        sk_text_puts(&t, " ");
        at_kv_put_key(&t, kv->pairs[i].key);
        if (kv->pairs[i].raw != kv->pairs[i].raw_end) {
            sk_text_puts(&t, "=");
            sk_text_put(&t, kv->pairs[i].raw, (size_t)(kv->pairs[i].raw_end - kv->pairs[i].raw));
        }
    }
    if (t.failed || !t.buf) {
        sk_text_free(&t);
        return;
    }
    kv_line again;
    kv_fail fail;
    if (at_kv_split(t.buf, t.buf + t.len, &again, &fail) != SK_OK || again.n != kv->n)
        abort();
    for (int i = 0; i < kv->n; i++) {
        const kv_pair *a = &kv->pairs[i], *b = &again.pairs[i];
        if (strcmp(a->key, b->key) != 0 || a->raw_end - a->raw != b->raw_end - b->raw ||
            memcmp(a->raw, b->raw, (size_t)(a->raw_end - a->raw)) != 0)
            abort();
    }
    at_kv_free(&again);
    sk_text_free(&t);
}

/* A string the writer writes reads back: as that string, as an old-style
 * array (whitespace-separated numbers or bools), or as itself. */
static void check_quoted(const char *s)
{
    sk_text t = {0};
    if (at_kv_put_value(&t, s) != SK_OK || t.failed || !t.buf) {
        sk_text_free(&t);
        return;
    }
    sk_xyz_value v;
    kv_fail fail;
    if (at_kv_value(t.buf, t.buf + t.len, &v, &fail) != SK_OK)
        abort();
    check_value(&v);
    sk_xyz_value_free(&v);
    sk_text_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    const char *end = memchr(line, '\0', size) ? line + strlen(line) : line + size;
    kv_line kv;
    kv_fail fail;
    int rc = at_kv_split(line, end, &kv, &fail);
    if (rc == SK_ERR_FORMAT && (fail.at < line || fail.at > end))
        abort(); /* the error names a column of the line */
    kv_fail check_only;
    if (rc != SK_ERR_NOMEM && at_kv_split(line, end, NULL, &check_only) != rc)
        abort(); /* checking without keeping the pairs says the same */
    if (rc == SK_OK) {
        for (int i = 0; i < kv.n; i++) {
            sk_xyz_value v;
            rc = at_kv_value(kv.pairs[i].raw, kv.pairs[i].raw_end, &v, &fail);
            if (rc == SK_ERR_FORMAT && (fail.at < kv.pairs[i].raw || fail.at > kv.pairs[i].raw_end))
                abort();
            if (rc == SK_OK) {
                check_value(&v);
                sk_xyz_value_free(&v);
            }
        }
        check_rewrite(&kv);
        at_kv_free(&kv);
    }
    check_quoted(line);
    free(line);
    return 0;
}
