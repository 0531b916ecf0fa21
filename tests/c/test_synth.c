/* Synthetic RAMSES outputs: the refinement keeps RAMSES's 2:1 rule, the
 * domains are balanced the way RAMSES balances them, and the files, read
 * back by a small independent record walker (below), hold exactly the
 * generator's truth, both ways of taking each leaf once (own lists; or
 * cpu_map == file cpu) agreeing. The walker knows the layout from the
 * format notes, not from the writer. */
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "synth/synth_internal.h"
#include "snapkit/util/hilbert.h"
#include "snapkit/snapkit.h"

/* ---- the 2:1 rule: a refined cell's 26 neighbours all exist ---- */

static int exists(const synth_model *m, int level, const uint32_t c[3])
{
    for (int l = level - 1; l >= m->levelmin; l--) {
        int s = level - l;
        if (!synth_refined(m, l, c[0] >> s, c[1] >> s, c[2] >> s))
            return 0;
    }
    return 1;
}

static void check_balance(const synth_model *m, int level, const uint32_t c[3], int64_t *bad)
{
    if (!synth_refined(m, level, c[0], c[1], c[2]))
        return;
    uint32_t mask = (1u << level) - 1u;
    for (int d = 0; d < 27; d++) {
        uint32_t n[3] = {(c[0] + (uint32_t)(d % 3) - 1) & mask,
                         (c[1] + (uint32_t)(d / 3 % 3) - 1) & mask,
                         (c[2] + (uint32_t)(d / 9) - 1) & mask};
        if (!exists(m, level, n))
            (*bad)++;
    }
    for (int i = 0; i < 8; i++) {
        uint32_t k[3] = {2 * c[0] + (i & 1), 2 * c[1] + ((i >> 1) & 1), 2 * c[2] + (i >> 2)};
        check_balance(m, level + 1, k, bad);
    }
}

static void test_two_to_one(void)
{
    for (int mode = 0; mode < 3; mode++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            sk_synth_options o;
            sk_synth_options_init(&o);
            o.levelmin = 2;
            o.levelmax = 6;
            o.refine = (sk_synth_refine)mode;
            o.seed = seed;
            synth_model m;
            synth_model_init(&m, &o);
            m.param = mode == SK_SYNTH_RANDOM ? 0.3 : 0.35;
            int64_t bad = 0;
            const uint32_t root[3] = {0, 0, 0};
            check_balance(&m, 0, root, &bad);
            CHECK_MSG(bad == 0, "mode %d seed %llu: %lld missing neighbours", mode,
                      (unsigned long long)seed, (long long)bad);
        }
}

/* ---- domains: leaf counts per domain as RAMSES's balancer gives them ---- */

typedef struct leaf {
    uint64_t start; /* first key of the leaf's range */
} leaf;

static void collect(const synth_plan *p, int level, const uint32_t c[3], leaf *out, int64_t *n)
{
    if (!synth_refined(&p->model, level, c[0], c[1], c[2])) {
        uint64_t key = level ? sk_hilbert3d(c[0], c[1], c[2], level) : 0;
        out[(*n)++].start = key << (3 * (p->bits - level));
        return;
    }
    for (int i = 0; i < 8; i++) {
        uint32_t k[3] = {2 * c[0] + (i & 1), 2 * c[1] + ((i >> 1) & 1), 2 * c[2] + (i >> 2)};
        collect(p, level + 1, k, out, n);
    }
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const leaf *)a)->start, y = ((const leaf *)b)->start;
    return x < y ? -1 : x > y;
}

static void test_domains(void)
{
    const int ncpus[] = {1, 7, 64, 1000};
    for (size_t t = 0; t < sizeof ncpus / sizeof ncpus[0]; t++) {
        sk_synth_options o;
        sk_synth_options_init(&o);
        o.ncpu = ncpus[t];
        o.levelmin = 3;
        o.levelmax = 7;
        o.refine = SK_SYNTH_CLUMPS;
        o.cells_target = 30000;
        synth_plan p;
        sk_error err;
        int rc = synth_plan_build(&p, &o, 2, &err);
        CHECK_OK(rc, &err);
        if (rc)
            continue;
        CHECK_MSG(llabs(p.leaves - 30000) <= 60, "%lld leaves for a target of 30000",
                  (long long)p.leaves);
        leaf *leaves = malloc((size_t)p.leaves * sizeof *leaves);
        int64_t n = 0;
        const uint32_t root[3] = {0, 0, 0};
        collect(&p, 0, root, leaves, &n);
        CHECK_EQ_INT(n, p.leaves);
        qsort(leaves, (size_t)n, sizeof *leaves, by_start);
        /* Domain d ends after leaf floor(d * N / ncpu) + 1 (1-based). */
        int64_t at = 0;
        for (int d = 1; d <= o.ncpu; d++) {
            int64_t count = 0;
            while (at < n && leaves[at].start < p.bound_key[d]) {
                CHECK(synth_domain_of(&p, leaves[at].start) == d);
                at++, count++;
            }
            int64_t last = d < o.ncpu ? (int64_t)d * n / o.ncpu + 1 : n;
            int64_t first = d > 1 ? (int64_t)(d - 1) * n / o.ncpu + 1 : 0;
            CHECK_MSG(count == last - first, "ncpu %d domain %d holds %lld leaves, not %lld",
                      o.ncpu, d, (long long)count, (long long)(last - first));
        }
        CHECK_EQ_INT(at, n);
        CHECK(p.bound_key[0] == 0 && p.bound_key[o.ncpu] == (uint64_t)1 << (3 * p.bits));
        free(leaves);
        synth_plan_free(&p);
    }
}

/* ---- Fortran's E23.15, as gfortran 12 prints these values ---- */

static void test_fortran_e(void)
{
    const struct {
        double v;
        const char *s;
    } cases[] = {
        {1.0, "  0.100000000000000E+01"},          {0.0, "  0.000000000000000E+00"},
        {(double)0.045f, "  0.450000017881393E-01"}, {9.2233720368547758e18, "  0.922337203685478E+19"},
        {-1.5e-3, " -0.150000000000000E-02"},       {1.5e200, "  0.150000000000000+201"},
        {21360640.0, "  0.213606400000000E+08"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[24];
        synth_fortran_e23_15(cases[i].v, out);
        CHECK_EQ_STR(out, cases[i].s);
    }
}

/* ---- an independent walker of the written files ---- */

typedef struct file {
    unsigned char *b;
    size_t n, at;
    int bad;
} file;

static int load(file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    fseek(fp, 0, SEEK_END);
    f->n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    f->b = malloc(f->n ? f->n : 1);
    size_t got = fread(f->b, 1, f->n, fp);
    fclose(fp);
    return got == f->n ? 0 : -1;
}

/* The next record's payload; `want` bytes when want >= 0. */
static const void *rec(file *f, int64_t want)
{
    int32_t a, b;
    if (f->bad || f->at + 4 > f->n)
        goto fail;
    memcpy(&a, f->b + f->at, 4);
    if (a < 0 || f->at + 8 + (size_t)a > f->n || (want >= 0 && a != want))
        goto fail;
    memcpy(&b, f->b + f->at + 4 + (size_t)a, 4);
    if (a != b)
        goto fail;
    const void *p = f->b + f->at + 4;
    f->at += 8 + (size_t)a;
    return p;
fail:
    f->bad = 1;
    static const char zeros[1 << 16];
    return zeros;
}

static int32_t rec_i32(file *f)
{
    int32_t v;
    memcpy(&v, rec(f, 4), 4);
    return v;
}

typedef struct sums {
    int64_t rows, levels[SYNTH_NLEV];
    double sum[SYNTH_MAX_COLUMNS], vol[SYNTH_MAX_COLUMNS];
} sums;

static void add_cell(sums *s, int level, const double *v, int nv, double boxlen)
{
    double h = ldexp(boxlen, -level), vol = h * h * h;
    s->rows++;
    s->levels[level]++;
    for (int k = 0; k < nv; k++) {
        s->sum[k] += v[k];
        s->vol[k] += v[k] * vol;
    }
}

typedef struct walk {
    sums own, mapped;          /* hydro then gravity values per leaf */
    int64_t oct_entries;
} walk;

/* One CPU's amr + hydro + grav: every leaf once by each of the two ways. */
static void walk_cpu(const char *dir, int out, int cpu, int nvar, walk *w)
{
    char path[1200];
    file amr, hyd = {0}, grv = {0};
    snprintf(path, sizeof path, "%s/amr_%05d.out%05d", dir, out, cpu);
    CHECK(load(&amr, path) == 0);
    snprintf(path, sizeof path, "%s/hydro_%05d.out%05d", dir, out, cpu);
    CHECK(load(&hyd, path) == 0);
    snprintf(path, sizeof path, "%s/grav_%05d.out%05d", dir, out, cpu);
    CHECK(load(&grv, path) == 0);
    int ncpu = rec_i32(&amr);
    CHECK_EQ_INT(rec_i32(&amr), 3);
    rec(&amr, 12);
    int lmax = rec_i32(&amr), ngridmax = rec_i32(&amr);
    CHECK_EQ_INT(rec_i32(&amr), 0);
    int ngrid_current = rec_i32(&amr);
    double boxlen;
    memcpy(&boxlen, rec(&amr, 8), 8);
    for (int i = 0; i < 11; i++)
        rec(&amr, -1);
    size_t lists = (size_t)ncpu * (size_t)lmax * 4;
    rec(&amr, (int64_t)lists);
    rec(&amr, (int64_t)lists);
    int32_t *numbl = malloc(lists);
    memcpy(numbl, rec(&amr, (int64_t)lists), lists);
    rec(&amr, 40 * (int64_t)lmax); /* numbtot */
    rec(&amr, 20);                 /* free memory */
    rec(&amr, 128);                /* ordering */
    rec(&amr, 8 * ((int64_t)ncpu + 1));
    for (int i = 0; i < 3; i++)    /* son, flag1, cpu_map of the coarse cell */
        rec(&amr, 4);
    int64_t total = 0;
    for (int i = 0; i < ncpu * lmax; i++)
        total += numbl[i];
    CHECK_EQ_INT(total, ngrid_current);
    CHECK(ngrid_current <= ngridmax);
    CHECK_EQ_INT(rec_i32(&hyd), ncpu);
    CHECK_EQ_INT(rec_i32(&hyd), nvar);
    for (int i = 0; i < 3; i++)
        rec(&hyd, 4);
    rec(&hyd, 8);
    CHECK_EQ_INT(rec_i32(&grv), ncpu);
    CHECK_EQ_INT(rec_i32(&grv), 4);
    rec(&grv, 4);
    rec(&grv, 4);
    for (int l = 1; l <= lmax; l++)
        for (int q = 1; q <= ncpu; q++) {
            int n = numbl[(l - 1) * ncpu + q - 1];
            CHECK_EQ_INT(rec_i32(&hyd), l);
            CHECK_EQ_INT(rec_i32(&hyd), n);
            CHECK_EQ_INT(rec_i32(&grv), l);
            CHECK_EQ_INT(rec_i32(&grv), n);
            if (!n)
                continue;
            w->oct_entries += n;
            for (int i = 0; i < 13; i++) /* ind, next, prev, xg, father, nbor */
                rec(&amr, i >= 3 && i < 6 ? 8 * n : 4 * n);
            const int32_t *son[8], *cpu_map[8];
            for (int c = 0; c < 8; c++)
                son[c] = rec(&amr, 4 * n);
            for (int c = 0; c < 8; c++)
                cpu_map[c] = rec(&amr, 4 * n);
            for (int c = 0; c < 8; c++)
                rec(&amr, 4 * n);
            for (int c = 0; c < 8; c++) {
                const double *hv[SYNTH_MAX_COLUMNS], *gv[4];
                for (int v = 0; v < nvar; v++)
                    hv[v] = rec(&hyd, 8 * n);
                for (int v = 0; v < 4; v++)
                    gv[v] = rec(&grv, 8 * n);
                for (int k = 0; k < n; k++) {
                    int32_t s, m;
                    memcpy(&s, son[c] + k, 4);
                    memcpy(&m, cpu_map[c] + k, 4);
                    if (s)
                        continue;
                    double v[SYNTH_MAX_COLUMNS + 4];
                    for (int j = 0; j < nvar; j++)
                        memcpy(&v[j], hv[j] + k, 8);
                    for (int j = 0; j < 4; j++)
                        memcpy(&v[nvar + j], gv[j] + k, 8);
                    if (q == cpu)
                        add_cell(&w->own, l, v, nvar + 4, boxlen);
                    if (m == cpu)
                        add_cell(&w->mapped, l, v, nvar + 4, boxlen);
                }
            }
        }
    CHECK_MSG(!amr.bad && amr.at == amr.n, "amr %d: bad records or trailing bytes", cpu);
    CHECK_MSG(!hyd.bad && hyd.at == hyd.n, "hydro %d: bad records or trailing bytes", cpu);
    CHECK_MSG(!grv.bad && grv.at == grv.n, "grav %d: bad records or trailing bytes", cpu);
    free(numbl);
    free(amr.b);
    free(hyd.b);
    free(grv.b);
}

typedef struct part_sums {
    int64_t rows, family[3];
    double sum[16];
    uint8_t *seen[3]; /* ids met per family */
    int64_t duplicates;
} part_sums;

static void walk_particles(const char *dir, int out, int cpu, int old, part_sums *ps)
{
    char path[1200];
    file f;
    snprintf(path, sizeof path, "%s/part_%05d.out%05d", dir, out, cpu);
    CHECK(load(&f, path) == 0);
    rec_i32(&f);
    CHECK_EQ_INT(rec_i32(&f), 3);
    int n = rec_i32(&f);
    for (int i = 0; i < 5; i++)
        rec(&f, -1);
    const double *d[7];
    for (int k = 0; k < 7; k++)
        d[k] = rec(&f, 8 * (int64_t)n);
    const int32_t *id = rec(&f, 4 * (int64_t)n), *level = rec(&f, 4 * (int64_t)n);
    const int8_t *fam = NULL;
    if (!old) {
        fam = rec(&f, n);
        rec(&f, n);
    }
    const double *birth = rec(&f, 8 * (int64_t)n), *metal = rec(&f, 8 * (int64_t)n);
    CHECK_MSG(!f.bad && f.at == f.n, "part %d: bad records or trailing bytes", cpu);
    for (int i = 0; i < n && !f.bad; i++) {
        double v[16];
        int k = 0;
        for (int j = 0; j < 7; j++)
            memcpy(&v[k++], d[j] + i, 8);
        int32_t ident, lv;
        memcpy(&ident, id + i, 4);
        memcpy(&lv, level + i, 4);
        double b, z;
        memcpy(&b, birth + i, 8);
        memcpy(&z, metal + i, 8);
        int family = fam ? fam[i] : b > 0 ? 2 : 1; /* 2017: stars are the ones born */
        v[k++] = ident;
        v[k++] = lv;
        if (!old) {
            v[k++] = family;
            v[k++] = 0;
        }
        v[k++] = b;
        v[k++] = z;
        for (int j = 0; j < k; j++)
            ps->sum[j] += v[j];
        ps->rows++;
        ps->family[family]++;
        if (ident >= 1 && ps->seen[family][ident])
            ps->duplicates++;
        if (ident >= 1)
            ps->seen[family][ident] = 1;
    }
    free(f.b);
}

static void check_close(double got, double want, double scale, const char *what)
{
    CHECK_MSG(fabs(got - want) <= 1e-12 * fmax(fabs(scale), 1e-300), "%s: %.17g vs %.17g", what,
              got, want);
}

static void check_output(const char *dir, const sk_synth_options *o, const sk_synth_truth *t)
{
    int nvar = o->nvar;
    walk w;
    memset(&w, 0, sizeof w);
    for (int cpu = 1; cpu <= o->ncpu; cpu++)
        walk_cpu(dir, o->output, cpu, nvar, &w);
    for (int way = 0; way < 2; way++) {
        const sums *s = way ? &w.mapped : &w.own;
        CHECK_EQ_INT(s->rows, sk_synth_truth_rows(t, "hydro"));
        CHECK_EQ_INT(s->rows, sk_synth_truth_rows(t, "gravity"));
        for (int l = 0; l < SYNTH_NLEV; l++)
            CHECK_EQ_INT(s->levels[l], sk_synth_truth_level_rows(t, "hydro", l));
        for (int k = 0; k < nvar + 4; k++) {
            const char *comp = k < nvar ? "hydro" : "gravity";
            const char *name = sk_synth_truth_column_name(t, comp, k < nvar ? k : k - nvar);
            sk_synth_stats st;
            sk_error err;
            CHECK_OK(sk_synth_truth_column(t, comp, name, &st, &err), &err);
            check_close(s->sum[k], st.sum, st.abs_sum, name);
            check_close(s->vol[k], st.volume_sum, st.abs_volume_sum, name);
        }
    }
    CHECK(w.oct_entries >= 1);
    if (!(o->components & SK_SYNTH_PARTICLES))
        return;
    int old = o->format == SK_RAMSES_2017;
    part_sums ps;
    memset(&ps, 0, sizeof ps);
    for (int f = 1; f <= 2; f++)
        ps.seen[f] = calloc((size_t)o->npart + 1, 1);
    for (int cpu = 1; cpu <= o->ncpu; cpu++)
        walk_particles(dir, o->output, cpu, old, &ps);
    int64_t nstar = o->npart / 4, ndm = o->npart - nstar;
    CHECK_EQ_INT(ps.rows, o->npart);
    CHECK_EQ_INT(ps.family[1], ndm);
    CHECK_EQ_INT(ps.family[2], nstar);
    CHECK_EQ_INT(ps.duplicates, 0); /* with the counts: ids are exactly 1..N per family */
    CHECK_EQ_INT(sk_synth_truth_rows(t, "particles"), o->npart);
    for (int k = 0; k < sk_synth_truth_ncolumns(t, "particles"); k++) {
        const char *name = sk_synth_truth_column_name(t, "particles", k);
        sk_synth_stats st;
        sk_error err;
        CHECK_OK(sk_synth_truth_column(t, "particles", name, &st, &err), &err);
        check_close(ps.sum[k], st.sum, st.abs_sum, name);
    }
    for (int f = 1; f <= 2; f++)
        free(ps.seen[f]);
}

static void test_outputs(void)
{
    const struct {
        int ncpu;
        sk_ramses_format format;
        sk_synth_refine refine;
        double boxlen;
    } cases[] = {
        {1, SK_RAMSES_CURRENT, SK_SYNTH_SPHERE, 1.0}, {7, SK_RAMSES_2017, SK_SYNTH_CLUMPS, 2.5},
        {64, SK_RAMSES_CURRENT, SK_SYNTH_RANDOM, 1.0}, {64, SK_RAMSES_2017, SK_SYNTH_SPHERE, 1.0},
        {7, SK_RAMSES_CURRENT, SK_SYNTH_CLUMPS, 0.5},
    };
    char tmp[64];
    CHECK(test_tmpdir(tmp, sizeof tmp) != NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[128];
        snprintf(dir, sizeof dir, "%s/out%zu", tmp, i);
        sk_synth_options o;
        sk_synth_options_init(&o);
        o.ncpu = cases[i].ncpu;
        o.format = cases[i].format;
        o.refine = cases[i].refine;
        o.boxlen = cases[i].boxlen;
        o.levelmin = 3;
        o.levelmax = 6;
        o.npart = 3001;
        o.nvar = i == 4 ? 8 : 6;
        o.output = 2;
        o.cells_target = 6000;
        sk_synth_truth *t = NULL;
        sk_synth_report r;
        sk_error err;
        int rc = sk_synth_write(dir, &o, &t, &r, &err);
        CHECK_OK(rc, &err);
        if (rc)
            continue;
        CHECK_EQ_INT(r.leaves, sk_synth_truth_rows(t, "hydro"));
        CHECK(r.oct_entries >= r.octs);
        check_output(dir, &o, t);
        sk_synth_truth_free(t);
        test_remove_tree(dir);
    }
    rmdir(tmp);
}

/* ---- same bytes whatever the thread count; refusals; overwriting ---- */

static int same_file(const char *a, const char *b)
{
    file x = {0}, y = {0};
    int same = load(&x, a) == 0 && load(&y, b) == 0 && x.n == y.n && !memcmp(x.b, y.b, x.n);
    free(x.b);
    free(y.b);
    return same;
}

static void test_deterministic_and_overwrite(void)
{
    char tmp[64], a[128], b[128], path_a[256], path_b[256];
    CHECK(test_tmpdir(tmp, sizeof tmp) != NULL);
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    sk_synth_options o;
    sk_synth_options_init(&o);
    o.ncpu = 5;
    o.levelmin = 3;
    o.levelmax = 5;
    o.npart = 500;
    sk_error err;
    o.threads = 1;
    CHECK_OK(sk_synth_write(a, &o, NULL, NULL, &err), &err);
    o.threads = 2;
    CHECK_OK(sk_synth_write(b, &o, NULL, NULL, &err), &err);
    const char *names[] = {"amr_00001.out00003", "hydro_00001.out00005", "part_00001.out00001",
                           "info_00001.txt", "header_00001.txt"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path_a, sizeof path_a, "%s/%s", a, names[i]);
        snprintf(path_b, sizeof path_b, "%s/%s", b, names[i]);
        CHECK_MSG(same_file(path_a, path_b), "%s differs between 1 and 2 threads", names[i]);
    }
    /* A folder with files is refused unless overwriting is allowed, which
     * replaces the output, stale CPU files of a larger run included. */
    int rc = sk_synth_write(a, &o, NULL, NULL, &err);
    CHECK_EQ_INT(rc, SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "not empty");
    o.ncpu = 2;
    o.overwrite = 1;
    CHECK_OK(sk_synth_write(a, &o, NULL, NULL, &err), &err);
    snprintf(path_a, sizeof path_a, "%s/amr_00001.out00003", a);
    CHECK(access(path_a, F_OK) != 0);
    snprintf(path_a, sizeof path_a, "%s/amr_00001.out00002", a);
    CHECK(access(path_a, F_OK) == 0);
    test_remove_tree(a);
    test_remove_tree(b);
    rmdir(tmp);
}

static void test_bad_options(void)
{
    sk_synth_options o;
    sk_synth_report r;
    sk_error err;
    sk_synth_options_init(&o);
    o.levelmax = 21;
    CHECK_EQ_INT(sk_synth_plan(&o, &r, &err), SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "levelmax");
    sk_synth_options_init(&o);
    o.nvar = 4;
    CHECK_EQ_INT(sk_synth_plan(&o, &r, &err), SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "nvar");
    sk_synth_options_init(&o);
    o.ncpu = 0;
    CHECK_EQ_INT(sk_synth_plan(&o, &r, &err), SK_ERR_ARG);
    sk_synth_options_init(&o);
    o.boxlen = -1;
    CHECK_EQ_INT(sk_synth_plan(&o, &r, &err), SK_ERR_ARG);
}

int main(void)
{
    test_two_to_one();
    test_domains();
    test_fortran_e();
    test_outputs();
    test_deterministic_and_overwrite();
    test_bad_options();
    return test_done();
}
