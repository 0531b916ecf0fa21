/* bench compare: two saved reports, measurement by measurement. */
#include "bench/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/memory.h"

/* A flattened report: every number with its stage and path. */
typedef struct leaf {
    char stage[32];
    char path[192];
    double v;
} leaf;

typedef struct leaves {
    leaf *v;
    int n, cap;
    int failed;
} leaves;

static void add(leaves *L, const char *stage, const char *path, double v)
{
    if (L->failed)
        return;
    if (L->n == L->cap) {
        int cap = L->cap ? 2 * L->cap : 64;
        leaf *nv = sk_realloc(L->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            L->failed = 1;
            return;
        }
        L->v = nv;
        L->cap = cap;
    }
    leaf *l = &L->v[L->n++];
    snprintf(l->stage, sizeof l->stage, "%s", stage);
    snprintf(l->path, sizeof l->path, "%s", path);
    l->v = v;
}

/* How an element of an array is named: by the member that identifies it
 * in the reports (threads of a sweep point, name of a component, ...). */
static const char *element_name(const sk_json_value *e, int index, char *buf, size_t n)
{
    static const char *const ids[] = {"threads", "lmax", "res", "name", "format", "size"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        const sk_json_value *m = sk_json_get(e, ids[k]);
        if (m && m->type == SK_JSON_NUMBER) {
            snprintf(buf, n, "%s=%.17g", ids[k], m->number);
            return ids[k];
        }
        if (m && m->type == SK_JSON_STRING) {
            snprintf(buf, n, "%s=%s", ids[k], m->string);
            return ids[k];
        }
    }
    snprintf(buf, n, "%d", index);
    return NULL;
}

/* skip: the member that names this element (already in the path). */
static void flatten(leaves *L, const char *stage, const char *path, const sk_json_value *v,
                    const char *skip)
{
    char sub[192];
    if (v->type == SK_JSON_NUMBER) {
        add(L, stage, path, v->number);
    } else if (v->type == SK_JSON_OBJECT) {
        for (int i = 0; i < v->n; i++) {
            if (skip && strcmp(v->keys[i], skip) == 0)
                continue;
            snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", v->keys[i]);
            flatten(L, stage, sub, &v->items[i], NULL);
        }
    } else if (v->type == SK_JSON_ARRAY) {
        for (int i = 0; i < v->n; i++) {
            char name[96];
            const char *id = element_name(&v->items[i], i, name, sizeof name);
            snprintf(sub, sizeof sub, "%s[%s]", path, name);
            flatten(L, stage, sub, &v->items[i], id);
        }
    }
}

static int is_stage(const char *key)
{
    return strcmp(key, "metadata") && strcmp(key, "machine") && strcmp(key, "source");
}

static void flatten_report(leaves *L, const sk_json_value *r)
{
    for (int i = 0; r->type == SK_JSON_OBJECT && i < r->n; i++)
        if (is_stage(r->keys[i]))
            flatten(L, r->keys[i], "", &r->items[i], NULL);
}

static double ratio(double a, double b)
{
    if (!isfinite(a) || !isfinite(b))
        return NAN;
    if (a == b)
        return 1;
    return a != 0 ? b / a : NAN;
}

static int leaf_cmp(const leaf *x, const leaf *y)
{
    int c = strcmp(x->stage, y->stage);
    return c ? c : strcmp(x->path, y->path);
}

/* B's leaves sorted by (stage, path, position) through an index, so that
 * matching is n log n on reports of any size (a fuzzer's included). */
static const leaves *g_sort;

static int index_cmp(const void *pa, const void *pb)
{
    int ia = *(const int *)pa, ib = *(const int *)pb;
    int c = leaf_cmp(&g_sort->v[ia], &g_sort->v[ib]);
    return c ? c : (ia > ib) - (ia < ib);
}

/* The first leaf of B equal to x not matched yet (repeated keys match in
 * order); NULL when none. taken[lo] counts the leaves matched in the run
 * of equal leaves that starts at sorted position lo, so that a key
 * repeated many times costs no scan over those already matched. */
static const leaf *find(const leaves *L, const int *order, const leaf *x, int *taken)
{
    int lo = 0, hi = L->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (leaf_cmp(&L->v[order[mid]], x) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int k = lo + taken[lo];
    if (k >= L->n || leaf_cmp(&L->v[order[k]], x) != 0)
        return NULL;
    taken[lo]++;
    return &L->v[order[k]];
}

int skb_compare_reports(const sk_json_value *a, const sk_json_value *b, skb_compare *out,
                        sk_error *err)
{
    memset(out, 0, sizeof *out);
    if (a->type != SK_JSON_OBJECT || b->type != SK_JSON_OBJECT)
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1, "a report is a JSON object");
    leaves la = {0}, lb = {0};
    flatten_report(&la, a);
    flatten_report(&lb, b);
    int *taken = sk_calloc((size_t)lb.n + 1, sizeof *taken);
    int *order = sk_malloc(((size_t)lb.n + 1) * sizeof *order);
    out->rows = sk_malloc(((size_t)la.n + 1) * sizeof *out->rows);
    int rc = SK_OK;
    if (la.failed || lb.failed || !taken || !order || !out->rows) {
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory comparing the reports");
    } else {
        for (int i = 0; i < lb.n; i++)
            order[i] = i;
        g_sort = &lb;
        qsort(order, (size_t)lb.n, sizeof *order, index_cmp);
        g_sort = NULL;
        for (int i = 0; i < la.n; i++) {
            const leaf *m = find(&lb, order, &la.v[i], taken);
            if (!m) {
                out->only_a++;
                continue;
            }
            skb_compare_row *r = &out->rows[out->nrows++];
            snprintf(r->stage, sizeof r->stage, "%s", la.v[i].stage);
            snprintf(r->measurement, sizeof r->measurement, "%s", la.v[i].path);
            r->a = la.v[i].v;
            r->b = m->v;
            r->ratio = ratio(r->a, r->b);
        }
        out->only_b = lb.n - out->nrows;
    }
    sk_free(taken);
    sk_free(order);
    sk_free(la.v);
    sk_free(lb.v);
    if (rc != SK_OK)
        skb_compare_free(out);
    return rc;
}

void skb_compare_free(skb_compare *c)
{
    sk_free(c->rows);
    memset(c, 0, sizeof *c);
}
