/* Selections: resolve a user's region into box units, test points. */
#include "snapkit/select.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "snapkit/memory.h"
#include "snapkit/util/number.h"

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

/* The request's shape in box units about the selection's centre (the
 * box centre when none was given); f: box units per request unit. */
static int set_request_shape(sk_selection *sel, const sk_region_request *req, double f,
                             sk_error *err)
{
    sk_shape s;
    memset(&s, 0, sizeof s);
    s.kind = req->shape;
    s.inverse = req->inverse;
    for (int a = 0; a < 3; a++) {
        s.center[a] = sel->has_center ? sel->center[a] : 0.5;
        s.axis[a] = req->axis[a];
    }
    if (s.axis[0] == 0 && s.axis[1] == 0 && s.axis[2] == 0)
        s.axis[2] = 1;
    s.r_in = req->radius[0] * f;
    s.r_out = req->radius[1] * f;
    s.half_height = req->half_height * f;
    return sk_selection_set_shape(sel, &s, err);
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
    sel->has_center = req->has_center || req->center_is_bc;
    for (int a = 0; a < 3; a++)
        sel->center[a] = req->center_is_bc ? 0.5 : req->has_center ? req->center[a] * f : 0.5;
    if (sel->has_center && !(isfinite(sel->center[0]) && isfinite(sel->center[1]) &&
                             isfinite(sel->center[2])))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "center: the coordinates must be finite numbers");
    for (int a = 0; a < 3; a++) {
        double c = sel->center[a];
        if (!req->has_range[a]) {
            sel->lo[a] = 0.0;
            sel->hi[a] = 1.0;
            continue;
        }
        double lo = req->range[a][0] * f, hi = req->range[a][1] * f;
        if (sel->has_center) {
            lo += c;
            hi += c;
        }
        if (isnan(lo) || isnan(hi) || isinf(lo) || isinf(hi))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%crange: the ends must be finite numbers",
                           axes[a]);
        if (!(lo < hi))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%crange: low end must be below high end",
                           axes[a]);
        sel->lo[a] = lo;
        sel->hi[a] = hi;
        any = 1;
    }
    sel->has_box = any;
    memset(&sel->shape, 0, sizeof sel->shape);
    return req->shape != SK_SHAPE_NONE ? set_request_shape(sel, req, f, err) : SK_OK;
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

static const struct {
    int code;
    const char *name;
} k_families[] = {
    {SK_FAMILY_DM, "dm"},
    {SK_FAMILY_STAR, "star"},
    {SK_FAMILY_CLOUD, "cloud"},
    {SK_FAMILY_DEBRIS, "debris"},
    {SK_FAMILY_OTHER, "other"},
    {SK_FAMILY_GAS_TRACER, "gas_tracer"},
    {SK_FAMILY_DM_TRACER, "dm_tracer"},
    {SK_FAMILY_STAR_TRACER, "star_tracer"},
    {SK_FAMILY_CLOUD_TRACER, "cloud_tracer"},
    {SK_FAMILY_DEBRIS_TRACER, "debris_tracer"},
    {SK_FAMILY_OTHER_TRACER, "other_tracer"},
    {SK_FAMILY_UNDEFINED, "undefined"},
};

const char *sk_family_name(int code)
{
    for (size_t i = 0; i < sizeof k_families / sizeof k_families[0]; i++)
        if (k_families[i].code == code)
            return k_families[i].name;
    return NULL;
}

int sk_family_code(const char *name, int *code, sk_error *err)
{
    for (size_t i = 0; i < sizeof k_families / sizeof k_families[0]; i++)
        if (!strcasecmp(name, k_families[i].name)) {
            *code = k_families[i].code;
            return SK_OK;
        }
    char *end = NULL;
    long v = strtol(name, &end, 10);
    if (end != name && !*end && v >= -128 && v <= 127) {
        *code = (int)v;
        return SK_OK;
    }
    return sk_fail(err, SK_ERR_ARG, NULL, -1,
                   "unknown particle family '%s' (dm, star, cloud, debris, other, gas_tracer, "
                   "dm_tracer, star_tracer, cloud_tracer, debris_tracer, other_tracer, "
                   "undefined, or a number -128..127)", name);
}

int sk_selection_set_families(sk_selection *sel, const char *csv, sk_error *err)
{
    memset(sel->family, 0, sizeof sel->family);
    sel->has_family = 0;
    for (const char *p = csv; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        int code;
        if (n && sk_family_code(name, &code, err) != SK_OK)
            return SK_ERR_ARG;
        if (n) {
            sel->family[code + 128] = 1;
            sel->has_family = 1;
        }
        p = comma ? comma + 1 : NULL;
    }
    return SK_OK;
}

int sk_selection_wants_family(const sk_selection *sel, int code)
{
    return !sel->has_family || (code >= -128 && code <= 127 && sel->family[code + 128]);
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
           z >= sel->lo[2] && z < sel->hi[2] && sk_shape_contains(&sel->shape, x, y, z);
}

int sk_selection_has_region(const sk_selection *sel)
{
    return sel->has_box || sel->shape.kind != SK_SHAPE_NONE;
}

static const char *const k_shape_names[] = {"none", "sphere", "cylinder", "shell",
                                            "cylinder-shell"};

/* "a b c": the shortest texts that read back to the values. */
static const char *numbers_text(const double *v, int n, char *buf)
{
    char one[SK_NUMBER_BUFSIZE];
    buf[0] = '\0';
    for (int k = 0; k < n; k++) {
        sk_format_double(v[k], one);
        strcat(buf, k ? " " : "");
        strcat(buf, one);
    }
    return buf;
}

/* selection.shape.* keys: the shape in box units. */
static int shape_to_meta(const sk_shape *z, sk_table *t)
{
    char buf[5 * SK_NUMBER_BUFSIZE];
    const double radii[2] = {z->r_in, z->r_out};
    double axis[4] = {z->axis[0], z->axis[1], z->axis[2], z->half_height};
    int rc = sk_table_meta_set(t, "selection.shape", k_shape_names[z->kind]);
    if (rc == SK_OK)
        rc = sk_table_meta_set(t, "selection.shape.center", numbers_text(z->center, 3, buf));
    if (rc == SK_OK)
        rc = sk_table_meta_set(t, "selection.shape.radius", numbers_text(radii, 2, buf));
    if (rc == SK_OK && (z->kind == SK_SHAPE_CYLINDER || z->kind == SK_SHAPE_CYLINDER_SHELL)) {
        /* the unit axis, then the half-height */
        rc = sk_table_meta_set(t, "selection.shape.axis", numbers_text(axis, 3, buf));
        if (rc == SK_OK)
            rc = sk_table_meta_set(t, "selection.shape.half_height",
                                   numbers_text(axis + 3, 1, buf));
    }
    if (rc == SK_OK && z->inverse)
        rc = sk_table_meta_set(t, "selection.shape.inverse", "1");
    return rc;
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
    if (rc == SK_OK && sel->shape.kind != SK_SHAPE_NONE)
        rc = shape_to_meta(&sel->shape, t);
    if (rc == SK_OK && sel->nvars) {
        char buf[4096] = "";
        size_t n = 0;
        for (int i = 0; i < sel->nvars && n < sizeof buf; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? "," : "", sel->vars[i]);
        rc = sk_table_meta_set(t, "selection.vars", buf);
    }
    if (rc == SK_OK && sel->has_family) {
        char buf[1024] = "";
        size_t n = 0;
        for (int c = -128; c <= 127 && n < sizeof buf; c++)
            if (sel->family[c + 128])
                n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", n ? "," : "", c);
        rc = sk_table_meta_set(t, "selection.family", buf);
    }
    return rc;
}
