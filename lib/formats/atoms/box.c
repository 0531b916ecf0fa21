/* Boxes: LAMMPS lo/hi/tilt form <-> origin and edge vectors, triclinic
 * dump bounding boxes, and the box.* metadata. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/atoms/internal.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

void at_format_vec3(char *buf, size_t n, const double v[3])
{
    char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE], c[SK_NUMBER_BUFSIZE];
    number_format_double(v[0], a);
    number_format_double(v[1], b);
    number_format_double(v[2], c);
    snprintf(buf, n, "%s %s %s", a, b, c);
}

int at_parse_vec(const char *s, double *v, int n)
{
    const char *end = s + strlen(s), *p = s;
    for (int i = 0; i < n; i++) {
        p = skip_blank(p, end);
        if (!number_parse_double(p, end, &v[i], &p))
            return -1;
    }
    return at_only_space(p, end) ? 0 : -1;
}

static int set_vec(sk_table *t, const char *key, const double v[3])
{
    char buf[3 * SK_NUMBER_BUFSIZE + 4];
    at_format_vec3(buf, sizeof buf, v);
    return sk_table_meta_set(t, key, buf);
}

static int store_vectors(sk_table *t, const sk_box *box)
{
    char pbc[8];
    snprintf(pbc, sizeof pbc, "%c %c %c", box->pbc[0] ? 'T' : 'F', box->pbc[1] ? 'T' : 'F',
             box->pbc[2] ? 'T' : 'F');
    int rc = set_vec(t, "box.origin", box->origin);
    rc = rc ? rc : set_vec(t, "box.a", box->a);
    rc = rc ? rc : set_vec(t, "box.b", box->b);
    rc = rc ? rc : set_vec(t, "box.c", box->c);
    rc = rc ? rc : sk_table_meta_set(t, "box.pbc", pbc);
    return rc;
}

static void lmp_to_box(const lmp_box *b, sk_box *box)
{
    memset(box, 0, sizeof *box);
    for (int i = 0; i < 3; i++) {
        box->origin[i] = b->lo[i];
        box->pbc[i] = b->boundary[i][0] == 'p';
    }
    box->a[0] = b->hi[0] - b->lo[0];
    box->b[0] = b->xy;
    box->b[1] = b->hi[1] - b->lo[1];
    box->c[0] = b->xz;
    box->c[1] = b->yz;
    box->c[2] = b->hi[2] - b->lo[2];
}

int at_lmp_box_store(sk_table *t, const lmp_box *b)
{
    sk_box box;
    lmp_to_box(b, &box);
    int rc = store_vectors(t, &box);
    sk_text s = {0};
    for (int i = 0; i < 3; i++) {
        at_text_double(&s, b->lo[i]);
        sk_text_puts(&s, " ");
        at_text_double(&s, b->hi[i]);
        sk_text_puts(&s, i < 2 || b->triclinic ? " " : "");
    }
    if (b->triclinic) {
        at_text_double(&s, b->xy);
        sk_text_puts(&s, " ");
        at_text_double(&s, b->xz);
        sk_text_puts(&s, " ");
        at_text_double(&s, b->yz);
    }
    rc = rc ? rc : s.failed ? SK_ERR_NOMEM : sk_table_meta_set(t, "lammps.box", s.buf);
    sk_text_free(&s);
    char boundary[16];
    snprintf(boundary, sizeof boundary, "%s %s %s", b->boundary[0], b->boundary[1],
             b->boundary[2]);
    return rc ? rc : sk_table_meta_set(t, "lammps.boundary", boundary);
}

static int get_vec(const sk_table *t, const char *key, double v[3], int *found)
{
    const char *s = sk_table_meta_get(t, key);
    if (!s)
        return 0;
    *found = 1;
    return at_parse_vec(s, v, 3) == 0;
}

int sk_atoms_get_box(const sk_table *t, sk_box *box, sk_error *err)
{
    memset(box, 0, sizeof *box);
    int found = 0;
    int ok = 1;
    if (!sk_table_meta_get(t, "box.a"))
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "the frame has no box");
    ok &= get_vec(t, "box.a", box->a, &found) && get_vec(t, "box.b", box->b, &found) &&
          get_vec(t, "box.c", box->c, &found);
    int has_origin = 0;
    if (sk_table_meta_get(t, "box.origin"))
        ok &= get_vec(t, "box.origin", box->origin, &has_origin);
    const char *pbc = sk_table_meta_get(t, "box.pbc");
    if (pbc) {
        int n = 0;
        for (const char *p = pbc; *p && ok; p++) {
            if (*p == ' ')
                continue;
            if ((*p != 'T' && *p != 'F') || n == 3)
                ok = 0;
            else
                box->pbc[n++] = *p == 'T';
        }
        ok &= n == 3;
    }
    if (!ok)
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                       "malformed box metadata (box.a, box.b, box.c, box.origin: three numbers; "
                       "box.pbc: three of T or F)");
    return SK_OK;
}

int sk_atoms_set_box(sk_table *t, const sk_box *box)
{
    int rc = store_vectors(t, box);
    if (rc == SK_OK && sk_table_meta_get(t, "lammps.box"))
        sk_table_meta_set(t, "lammps.box", ""); /* stale: the writers derive it again */
    return rc;
}

static int same_vec(const double a[3], const double b[3])
{
    return memcmp(a, b, 3 * sizeof(double)) == 0 ||
           (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]);
}

/* lammps.box as stored, when it is there and parses. */
static int stored_lmp_box(const sk_table *t, lmp_box *b)
{
    const char *s = sk_table_meta_get(t, "lammps.box");
    double v[9];
    memset(b, 0, sizeof *b);
    if (!s || !*s)
        return 0;
    if (at_parse_vec(s, v, 9) == 0)
        b->triclinic = 1;
    else if (at_parse_vec(s, v, 6) != 0)
        return 0;
    for (int i = 0; i < 3; i++) {
        b->lo[i] = v[2 * i];
        b->hi[i] = v[2 * i + 1];
    }
    if (b->triclinic) {
        b->xy = v[6];
        b->xz = v[7];
        b->yz = v[8];
    }
    return 1;
}

static void choose_boundary(const sk_table *t, const sk_box *box, lmp_box *b)
{
    const char *s = sk_table_meta_get(t, "lammps.boundary");
    char f[3][8] = {"", "", ""};
    if (s)
        sscanf(s, "%7s %7s %7s", f[0], f[1], f[2]);
    for (int i = 0; i < 3; i++) {
        int periodic = f[i][0] == 'p';
        if (strlen(f[i]) == 2 && periodic == box->pbc[i])
            memcpy(b->boundary[i], f[i], 3);
        else
            memcpy(b->boundary[i], box->pbc[i] ? "pp" : "ff", 3);
    }
}

int at_lmp_box_for(const sk_table *t, lmp_box *b, sk_error *err)
{
    sk_box box;
    int rc = sk_atoms_get_box(t, &box, err);
    if (rc == SK_ERR_EMPTY)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the frame has no box, which LAMMPS files need (box.a, box.b, box.c)");
    if (rc != SK_OK)
        return rc;
    if (stored_lmp_box(t, b)) {
        sk_box derived;
        lmp_to_box(b, &derived);
        if (same_vec(derived.origin, box.origin) && same_vec(derived.a, box.a) &&
            same_vec(derived.b, box.b) && same_vec(derived.c, box.c)) {
            choose_boundary(t, &box, b);
            return SK_OK;
        }
    }
    memset(b, 0, sizeof *b);
    if (box.a[1] != 0 || box.a[2] != 0 || box.b[2] != 0 || !(box.a[0] > 0) || !(box.b[1] > 0) ||
        !(box.c[2] > 0))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the cell is not in LAMMPS orientation (a along +x, b in the xy plane "
                       "with b_y > 0, c_z > 0); rotate it first");
    for (int i = 0; i < 3; i++)
        b->lo[i] = box.origin[i];
    b->hi[0] = box.origin[0] + box.a[0];
    b->hi[1] = box.origin[1] + box.b[1];
    b->hi[2] = box.origin[2] + box.c[2];
    b->xy = box.b[0];
    b->xz = box.c[0];
    b->yz = box.c[1];
    b->triclinic = b->xy != 0 || b->xz != 0 || b->yz != 0;
    choose_boundary(t, &box, b);
    return SK_OK;
}

static double min4(double a, double b, double c, double d)
{
    return fmin(fmin(a, b), fmin(c, d));
}

static double max4(double a, double b, double c, double d)
{
    return fmax(fmax(a, b), fmax(c, d));
}

void at_lmp_box_from_bounds(lmp_box *b, const double lo[3], const double hi[3])
{
    b->lo[0] = lo[0] - min4(0.0, b->xy, b->xz, b->xy + b->xz);
    b->hi[0] = hi[0] - max4(0.0, b->xy, b->xz, b->xy + b->xz);
    b->lo[1] = lo[1] - fmin(0.0, b->yz);
    b->hi[1] = hi[1] - fmax(0.0, b->yz);
    b->lo[2] = lo[2];
    b->hi[2] = hi[2];
}

void at_lmp_box_bounds(const lmp_box *b, double lo[3], double hi[3])
{
    lo[0] = b->lo[0] + min4(0.0, b->xy, b->xz, b->xy + b->xz);
    hi[0] = b->hi[0] + max4(0.0, b->xy, b->xz, b->xy + b->xz);
    lo[1] = b->lo[1] + fmin(0.0, b->yz);
    hi[1] = b->hi[1] + fmax(0.0, b->yz);
    lo[2] = b->lo[2];
    hi[2] = b->hi[2];
}
