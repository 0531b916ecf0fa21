/* Selections: resolve a user's region into box units, test points. */
#include "snapkit/select.h"

#include <stdio.h>
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/number.h"

void sk_selection_init(sk_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    for (int a = 0; a < 3; a++) {
        sel->lo[a] = 0.0;
        sel->hi[a] = 1.0;
    }
}

static void clear_vars(sk_selection *sel)
{
    for (int i = 0; i < sel->nvars; i++)
        sk_free(sel->vars[i]);
    sel->nvars = 0;
}

void sk_selection_clear(sk_selection *sel)
{
    clear_vars(sel);
    sk_selection_init(sel);
}

int sk_selection_copy(sk_selection *dst, const sk_selection *src, sk_error *err)
{
    *dst = *src;
    dst->nvars = 0;
    for (int i = 0; i < src->nvars; i++) {
        dst->vars[i] = sk_strdup(src->vars[i]);
        if (!dst->vars[i])
            return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
        dst->nvars++;
    }
    return SK_OK;
}

int sk_selection_set_region(sk_selection *sel, const sk_region_request *req,
                            const sk_units *units, sk_error *err)
{
    double f;
    int rc = sk_box_units_per(units, req->unit, &f, err);
    if (rc != SK_OK)
        return rc;
    static const char axes[] = "xyz";
    int any = 0;
    for (int a = 0; a < 3; a++) {
        double c = req->center_is_bc ? 0.5 : req->center[a] * f;
        if (!req->has_range[a]) {
            sel->lo[a] = 0.0;
            sel->hi[a] = 1.0;
            continue;
        }
        double lo = req->range[a][0] * f, hi = req->range[a][1] * f;
        if (req->has_center || req->center_is_bc) {
            lo += c;
            hi += c;
        }
        if (!(lo < hi))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%crange: low end must be below high end",
                           axes[a]);
        sel->lo[a] = lo;
        sel->hi[a] = hi;
        any = 1;
    }
    sel->has_box = any;
    return SK_OK;
}

int sk_selection_set_vars(sk_selection *sel, const char *csv, sk_error *err)
{
    clear_vars(sel);
    const char *p = csv;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        while (n && (*p == ' ')) {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        if (n) {
            if (sel->nvars == SK_MAX_VARS)
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "more than %d variables", SK_MAX_VARS);
            sel->vars[sel->nvars] = sk_strndup(p, n);
            if (!sel->vars[sel->nvars])
                return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
            sel->nvars++;
        }
        p = comma ? comma + 1 : NULL;
    }
    return SK_OK;
}

int sk_selection_wants(const sk_selection *sel, const char *name)
{
    if (sel->nvars == 0)
        return 1;
    for (int i = 0; i < sel->nvars; i++)
        if (strcmp(sel->vars[i], name) == 0)
            return 1;
    return 0;
}

int sk_selection_contains(const sk_selection *sel, double x, double y, double z)
{
    return x >= sel->lo[0] && x < sel->hi[0] && y >= sel->lo[1] && y < sel->hi[1] &&
           z >= sel->lo[2] && z < sel->hi[2];
}

int sk_selection_to_meta(const sk_selection *sel, sk_table *t)
{
    int rc = sk_table_meta_setf(t, "selection.lmax", "%d", sel->lmax);
    if (rc == SK_OK && sel->has_box) {
        static const char *const keys[3][2] = {
            {"selection.xmin", "selection.xmax"},
            {"selection.ymin", "selection.ymax"},
            {"selection.zmin", "selection.zmax"},
        };
        for (int a = 0; a < 3 && rc == SK_OK; a++) {
            rc = sk_table_meta_set_double(t, keys[a][0], sel->lo[a]);
            if (rc == SK_OK)
                rc = sk_table_meta_set_double(t, keys[a][1], sel->hi[a]);
        }
    }
    if (rc == SK_OK && sel->nvars) {
        char buf[4096] = "";
        size_t n = 0;
        for (int i = 0; i < sel->nvars && n < sizeof buf; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", sel->vars[i]);
        rc = sk_table_meta_set(t, "selection.vars", buf);
    }
    return rc;
}
