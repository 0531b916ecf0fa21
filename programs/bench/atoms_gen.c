/* The inputs of `bench atoms`: fcc copper displaced by up to 0.1 A (the
 * configuration of mdapy's I/O benchmark), made from a formula per atom
 * so that any file can be checked atom by atom without keeping a copy. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/atoms.h"

int skb_cu_cells(int64_t atoms)
{
    if (atoms < 4 || atoms % 4)
        return -1;
    int64_t cells = atoms / 4;
    int n = (int)llround(cbrt((double)cells));
    for (int k = n > 1 ? n - 1 : 1; k <= n + 1; k++)
        if ((int64_t)k * k * k == cells)
            return k;
    return -1;
}

double skb_cu_box(int n)
{
    return n * SKB_CU_LATTICE; /* as LAMMPS's lattice fcc 3.615 with a block 0 n */
}

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void skb_cu_atom(int n, int64_t id, double xyz[3])
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    int64_t k = id - 1;
    int b = (int)(k % 4);
    int64_t cell = k / 4;
    int64_t idx[3] = {cell % n, (cell / n) % n, cell / ((int64_t)n * n)};
    double box = skb_cu_box(n);
    for (int axis = 0; axis < 3; axis++) {
        uint64_t h = splitmix64(SKB_CU_SEED + 3 * (uint64_t)id + (uint64_t)axis);
        double u = (double)(h >> 11) * 0x1p-53; /* [0, 1) */
        volatile double d = (u - 0.5) * (2 * SKB_CU_DISPLACEMENT);
        /* Rounded once per operation, never fused into one multiply-add
         * (a -march with FMA would otherwise change the last bit and
         * the Python copy of this formula would disagree). */
        volatile double site = ((double)idx[axis] + basis[b][axis]) * SKB_CU_LATTICE;
        double x = site + d;
        if (x < 0) {
            x += box;
            if (x >= box) /* a displacement below half an ulp of the box */
                x = nextafter(box, 0);
        } else if (x >= box) {
            x -= box;
        }
        xyz[axis] = x;
    }
}

static int set_box(sk_table *t, int n)
{
    double box = skb_cu_box(n);
    sk_box b = {.a = {box, 0, 0}, .b = {0, box, 0}, .c = {0, 0, box}, .pbc = {1, 1, 1}};
    return sk_atoms_set_box(t, &b);
}

int skb_cu_table(int64_t atoms, int element, sk_table **out, sk_error *err)
{
    *out = NULL;
    int n = skb_cu_cells(atoms);
    if (n < 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "%lld atoms is not 4 n^3 (fcc cells)",
                       (long long)atoms);
    sk_table *t = sk_table_new(atoms);
    if (!t)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    int64_t *id = NULL;
    int32_t *type = NULL, *code = NULL;
    if (element) {
        static const char *const cu[] = {"Cu"};
        code = sk_table_add(t, "element", SK_CATEGORY, err);
        if (code && sk_table_set_labels(t, "element", cu, 1, err) != SK_OK)
            code = NULL;
    } else {
        id = sk_table_add(t, "id", SK_INT64, err);
        type = id ? sk_table_add(t, "type", SK_INT32, err) : NULL;
    }
    double *x = (element ? code != NULL : type != NULL) ? sk_table_add(t, "x", SK_FLOAT64, err) : NULL;
    double *y = x ? sk_table_add(t, "y", SK_FLOAT64, err) : NULL;
    double *z = y ? sk_table_add(t, "z", SK_FLOAT64, err) : NULL;
    if (!z || set_box(t, n) != SK_OK ||
        sk_table_meta_set(t, "lammps.masses", "63.546") != SK_OK) {
        sk_table_free(t);
        return err && err->code ? (int)err->code : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < atoms; i++) {
        double p[3];
        skb_cu_atom(n, i + 1, p);
        x[i] = p[0], y[i] = p[1], z[i] = p[2];
        if (element) {
            code[i] = 0;
        } else {
            id[i] = i + 1;
            type[i] = 1;
        }
    }
    *out = t;
    return SK_OK;
}

/* The first atom whose id, type or element is not the generator's; -1
 * when all are. */
static int64_t bad_identity(const sk_table *t, int64_t atoms)
{
    const sk_column *id = sk_table_find(t, "id"), *type = sk_table_find(t, "type");
    const sk_column *el = sk_table_find(t, "element");
    int cu = el && el->type == SK_CATEGORY ? -2 : -1;
    for (int k = 0; el && k < el->nlabels; k++)
        if (strcmp(el->labels[k], "Cu") == 0)
            cu = k;
    for (int64_t i = 0; i < atoms; i++) {
        if (id && sk_column_get_double(id, i) != (double)(i + 1))
            return i;
        if (type && sk_column_get_double(type, i) != 1)
            return i;
        if (el && (cu < 0 || ((const int32_t *)el->data)[i] != cu))
            return i;
    }
    return -1;
}

static int check_box(const sk_table *t, int n, double tol, const char *what, sk_error *err)
{
    sk_box b;
    sk_error e;
    if (sk_atoms_get_box(t, &b, &e) != SK_OK)
        return sk_fail(err, SK_ERR_FORMAT, what, -1, "no box: %s", e.message);
    double box = skb_cu_box(n);
    const double want[4][3] = {{0, 0, 0}, {box, 0, 0}, {0, box, 0}, {0, 0, box}};
    const double *got[4] = {b.origin, b.a, b.b, b.c};
    for (int v = 0; v < 4; v++)
        for (int k = 0; k < 3; k++)
            if (!(fabs(got[v][k] - want[v][k]) <= tol))
                return sk_fail(err, SK_ERR_FORMAT, what, -1,
                               "box %s[%d] is %.17g, the generator's %.17g",
                               (const char *[]){"origin", "a", "b", "c"}[v], k, got[v][k],
                               want[v][k]);
    return SK_OK;
}

int skb_cu_check(const sk_table *t, int64_t atoms, double tol, const char *what,
                 double *max_error, sk_error *err)
{
    *max_error = 0;
    int n = skb_cu_cells(atoms);
    if (n < 1)
        return sk_fail(err, SK_ERR_ARG, what, -1, "%lld atoms is not 4 n^3", (long long)atoms);
    if (sk_table_nrows(t) != atoms)
        return sk_fail(err, SK_ERR_FORMAT, what, -1, "%lld atoms, the generator made %lld",
                       (long long)sk_table_nrows(t), (long long)atoms);
    const sk_column *c[3] = {sk_table_find(t, "x"), sk_table_find(t, "y"), sk_table_find(t, "z")};
    for (int k = 0; k < 3; k++)
        if (!c[k] || c[k]->type != SK_FLOAT64)
            return sk_fail(err, SK_ERR_FORMAT, what, -1, "no float64 column %c", "xyz"[k]);
    int64_t bad = bad_identity(t, atoms);
    if (bad >= 0)
        return sk_fail(err, SK_ERR_FORMAT, what, -1,
                       "atom %lld: its id, type or element is not the generator's",
                       (long long)bad + 1);
    const double *v[3] = {c[0]->data, c[1]->data, c[2]->data};
    double worst = 0;
    int64_t first_bad = atoms;
#pragma omp parallel for schedule(static) reduction(max : worst) reduction(min : first_bad)
    for (int64_t i = 0; i < atoms; i++) {
        double p[3];
        skb_cu_atom(n, i + 1, p);
        for (int k = 0; k < 3; k++) {
            double d = fabs(v[k][i] - p[k]);
            worst = d > worst ? d : worst;
            if (!(d <= tol) && i < first_bad) /* NaN counts as wrong */
                first_bad = i;
        }
    }
    *max_error = worst;
    if (first_bad < atoms) {
        double p[3];
        skb_cu_atom(n, first_bad + 1, p);
        return sk_fail(err, SK_ERR_FORMAT, what, -1,
                       "atom %lld is at (%.17g, %.17g, %.17g), the generator's (%.17g, %.17g, "
                       "%.17g)%s", (long long)first_bad + 1, v[0][first_bad], v[1][first_bad],
                       v[2][first_bad], p[0], p[1], p[2], tol > 0 ? " beyond the tolerance" : "");
    }
    return check_box(t, n, tol, what, err);
}

int skb_atoms_check_file(const char *path, sk_atoms_format format, int64_t atoms, double tol,
                         double *max_error, sk_error *err)
{
    sk_table *t = NULL;
    int rc = sk_atoms_read(path, format, 0, NULL, &t, err);
    if (rc == SK_OK)
        rc = skb_cu_check(t, atoms, tol, path, max_error, err);
    sk_table_free(t);
    return rc;
}
