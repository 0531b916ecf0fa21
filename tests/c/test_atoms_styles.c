/* Atom styles of LAMMPS data files written by write_data with
 * tests/data/atoms/make_styles.in: sphere (Velocities with wx wy wz),
 * ellipsoid (Ellipsoids section), dipole, hybrid charge sphere. Values
 * checked are the script's; every file is written back byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static sk_table *load(const char *style, const char *atom_style, char *path, size_t n)
{
    char rel[64];
    snprintf(rel, sizeof rel, "atoms/style_%s.data", style);
    sk_atoms_options o = {.atom_style = atom_style};
    sk_error e;
    sk_table *t = NULL;
    int rc = sk_atoms_read(test_data(path, n, rel), SK_ATOMS_AUTO, 0, &o, &t, &e);
    CHECK_OK(rc, &e);
    return t;
}

static const double *col(const sk_table *t, const char *name)
{
    const sk_column *c = t ? sk_table_find(t, name) : NULL;
    CHECK_MSG(c && c->type == SK_FLOAT64, "column %s", name);
    return c && c->type == SK_FLOAT64 ? c->data : NULL;
}

static void round_trip(const char *style, const char *atom_style)
{
    char path[1024], out[96];
    sk_table *t = load(style, atom_style, path, sizeof path);
    if (!t)
        return;
    snprintf(out, sizeof out, "/tmp/sk_styles_%d_%s.data", (int)getpid(), style);
    sk_error e;
    int rc = sk_atoms_write(out, t, SK_ATOMS_DATA, NULL, &e);
    CHECK_OK(rc, &e);
    CHECK_MSG(test_same_text(path, out), "%s: rewrite differs", style);
    unlink(out);
    sk_table_free(t);
}

/* make_styles.in: "set atom * omega 0.3 -0.2 0.1" (sphere, hybrid), "set
 * atom * angmom 0.3 -0.2 0.1" (ellipsoid), "set type 1 shape 1.0 1.5 2.0"
 * with atoms 3..5 of type 2, charges 0.25 and -0.25. */
static void values(void)
{
    char path[1024];
    const char *styles[2] = {"sphere", "hybrid"};
    for (int s = 0; s < 2; s++) {
        sk_table *t = load(styles[s], s ? "hybrid charge sphere" : NULL, path, sizeof path);
        const double *wx = col(t, "wx"), *wy = col(t, "wy"), *wz = col(t, "wz");
        const double *d = col(t, "diameter");
        for (int i = 0; wx && wy && wz && d && i < 8; i++) {
            CHECK(wx[i] == 0.3 && wy[i] == -0.2 && wz[i] == 0.1);
            CHECK(d[i] == (i >= 2 && i <= 4 ? 1.3 : 1.0));
        }
        if (s == 1) {
            const double *q = col(t, "q");
            for (int i = 0; q && i < 8; i++)
                CHECK(q[i] == (i >= 2 && i <= 4 ? -0.25 : 0.25));
            CHECK_EQ_STR(sk_table_meta_get(t, "lammps.atom_style"), "hybrid charge sphere");
        }
        sk_table_free(t);
    }
    sk_table *t = load("ellipsoid", NULL, path, sizeof path);
    const double *sx = col(t, "shapex"), *sy = col(t, "shapey"), *sz = col(t, "shapez");
    const double *lx = col(t, "angmomx"), *qw = col(t, "quatw"), *qi = col(t, "quati"),
                 *qj = col(t, "quatj"), *qk = col(t, "quatk");
    const sk_column *flag = t ? sk_table_find(t, "ellipsoidflag") : NULL;
    CHECK(flag && flag->type == SK_INT32);
    for (int i = 0; sx && sy && sz && lx && qw && qi && qj && qk && flag && i < 8; i++) {
        int type1 = !(i >= 2 && i <= 4);
        CHECK_EQ_INT(((const int32_t *)flag->data)[i], type1);
        CHECK(sx[i] == (type1 ? 1.0 : 0) && sy[i] == (type1 ? 1.5 : 0) &&
              sz[i] == (type1 ? 2.0 : 0));
        double norm = qw[i] * qw[i] + qi[i] * qi[i] + qj[i] * qj[i] + qk[i] * qk[i];
        CHECK_CLOSE(norm, type1 ? 1.0 : 0.0, 1e-12); /* quat/random: unit quaternions */
        CHECK(lx[i] == 0.3);
    }
    sk_table_free(t);
    t = load("dipole", NULL, path, sizeof path);
    const double *mx = col(t, "mux"), *my = col(t, "muy"), *mz = col(t, "muz");
    for (int i = 0; mx && my && mz && i < 8; i++) {
        double m2 = mx[i] * mx[i] + my[i] * my[i] + mz[i] * mz[i];
        /* dipole/random 1.1 on type 1; none on type 2 */
        CHECK_CLOSE(m2, i >= 2 && i <= 4 ? 0.0 : 1.21, 1e-12);
    }
    sk_table_free(t);
}

static void expect(const char *style, const char *atom_style, const char *from, const char *to,
                   int64_t line, int64_t column, const char *says)
{
    char path[1024], rel[64];
    snprintf(rel, sizeof rel, "atoms/style_%s.data", style);
    char *text = test_slurp(test_data(path, sizeof path, rel));
    size_t n = text ? strlen(text) : 0;
    char *at = text ? strstr(text, from) : NULL;
    CHECK_MSG(at != NULL, "test bug: %s", from);
    if (!at) {
        free(text);
        return;
    }
    char *edited = malloc(n + strlen(to) + 1);
    sprintf(edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    sk_atoms_options o = {.atom_style = atom_style};
    sk_atoms_file *f = NULL;
    sk_table *t = NULL;
    sk_error e;
    int rc = sk_atoms_open_memory(&f, edited, strlen(edited), "s.data", SK_ATOMS_DATA, &o, &e);
    if (rc == SK_OK) {
        rc = sk_atoms_read_frame(f, 0, &t, &e);
        sk_atoms_close(f);
    }
    sk_table_free(t);
    CHECK_MSG(rc == SK_ERR_FORMAT, "%s: status %d", says, rc);
    char where[96];
    if (column > 0)
        snprintf(where, sizeof where, "s.data: line %lld, column %lld: ", (long long)line,
                 (long long)column);
    else
        snprintf(where, sizeof where, "s.data: line %lld: ", (long long)line);
    CHECK_MSG(strncmp(e.message, where, strlen(where)) == 0, "'%s' does not start with '%s'",
              e.message, where);
    CHECK_CONTAINS(e.message, says);
    free(edited);
    free(text);
}

static void errors(void)
{
    /* write_data's own "Atoms # hybrid" names no sub-style */
    expect("hybrid", NULL, "Atoms # hybrid", "Atoms # hybrid", 15, 9,
           "pass them as --atom-style \"hybrid STYLE...\"");
    expect("hybrid", "hybrid charge wobble", "Atoms # hybrid", "Atoms # hybrid", 15, -1,
           "unknown atom style 'hybrid charge wobble'");
    /* sphere Velocities have 7 fields: a line with 4 is short */
    expect("sphere", NULL, " 0.3 -0.2 0.1\n2 ", "\n2 ", 23, 60,
           "line ends after 4 fields where 7 are expected (no wx)");
    expect("ellipsoid", NULL, "\n2 1 1.5 2 ", "\n9 1 1.5 2 ", 36, 1,
           "Ellipsoids: atom 9 does not exist");
    expect("ellipsoid", NULL, "\n2 1 1.5 2 ", "\n3 1 1.5 2 ", 36, 1,
           "Ellipsoids: atom 3 has ellipsoidflag 0, not 1");
    expect("ellipsoid", NULL, "\n2 1 1.5 2 ", "\n2 1 1.5 ", 36, 88, "expected 8 numbers");
}

int main(void)
{
    values();
    round_trip("sphere", NULL);
    round_trip("ellipsoid", NULL);
    round_trip("dipole", NULL);
    round_trip("hybrid", "hybrid charge sphere");
    errors();
    return test_done();
}
