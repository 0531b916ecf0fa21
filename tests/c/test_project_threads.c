/* Streamed projections on any number of threads (issue 33): the maps of
 * sk_project_stream are those of sk_project on the whole table, bit for
 * bit, when the batches are handed over by 1, 2 or 8 threads at once, in
 * index order or against it, with an index that never comes (a file whose
 * selection holds no row); on every fixture, along the axes (the pixel
 * grid with one quantity and several, and the general path) and off-axis
 * (the exact kernel), cells and particles; the selected mass, summed
 * exactly, is the same bits on every thread count. The threads here are the
 * test's own (the consumer is called as a stream calls it), so 8 threads
 * run on a machine of any size. */
#include <glob.h>
#include <math.h>
#include <omp.h>

#include "check.h"
#include "project_helpers.h"

enum { NPIECES = 13, MISSING = 5 };

/* Rows [r0, r1) of t as a table of its own, with t's metadata. */
static sk_table *rows_of(const sk_table *t, int64_t r0, int64_t r1)
{
    sk_table *c = sk_table_new(r1 - r0);
    sk_error e;
    CHECK(c && sk_table_meta_copy(c, t) == SK_OK);
    for (int i = 0; c && i < sk_table_ncols(t); i++) {
        const sk_column *col = sk_table_col(t, i);
        size_t w = sk_dtype_size(col->type);
        void *d = sk_table_add(c, col->name, col->type, &e);
        CHECK_MSG(d != NULL, "%s", e.message);
        if (d && r1 > r0)
            memcpy(d, (const char *)col->data + (size_t)r0 * w, (size_t)(r1 - r0) * w);
    }
    return c;
}

/* The pieces' first rows: uneven sizes, every piece at least one row. */
static void cut(int64_t nrows, int64_t *first)
{
    static const int weight[NPIECES] = {5, 1, 9, 2, 7, 3, 11, 1, 4, 8, 2, 6, 3};
    int total = 0, acc = 0;
    for (int i = 0; i < NPIECES; i++)
        total += weight[i];
    for (int i = 0; i < NPIECES; i++) {
        first[i] = nrows * acc / total;
        acc += weight[i];
    }
    first[NPIECES] = nrows;
}

typedef struct feed {
    sk_table *piece[NPIECES];
    sk_batch_info info[NPIECES];
} feed;

static int make_feed(const sk_table *t, feed *f)
{
    int64_t first[NPIECES + 1];
    cut(sk_table_nrows(t), first);
    for (int i = 0; i < NPIECES; i++) {
        if (first[i + 1] <= first[i])
            return 0;
        f->piece[i] = rows_of(t, first[i], first[i + 1]);
        /* index MISSING never comes: the pieces from there take the next */
        int64_t index = i < MISSING ? i : i + 1;
        f->info[i] = (sk_batch_info){.index = index, .nbatches = NPIECES + 1, .source = index + 1};
    }
    return 1;
}

static void free_feed(feed *f)
{
    for (int i = 0; i < NPIECES; i++)
        sk_table_free(f->piece[i]);
}

/* The pieces handed to the consumer by `threads` threads, in index order
 * (reversed: against it); the maps, or NULL with e set. */
static sk_maps *stream(const sk_table *t, const feed *f, const char *q, const char *spec,
                       int threads, int reversed, sk_error *e)
{
    sk_project_options opt;
    if (test_options(&opt, spec, e) != SK_OK)
        return NULL;
    opt.threads = threads;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", q);
    const char *names[16];
    int nq = 0;
    char *save = NULL;
    for (char *s = strtok_r(buf, ",", &save); s && nq < 16; s = strtok_r(NULL, ",", &save))
        names[nq++] = s;
    sk_project_stream *ps = NULL;
    if (sk_project_stream_new(nq, names, &opt, &ps, e) != SK_OK)
        return NULL;
    sk_consumer c = sk_project_stream_consumer(ps);
    sk_table *schema = rows_of(t, 0, 0);
    int rc = c.begin(c.ctx, threads, schema, e);
    int failed = rc != SK_OK;
#pragma omp parallel num_threads(threads)
    {
        sk_error mine;
        sk_error_clear(&mine);
#pragma omp for schedule(dynamic, 1)
        for (int k = 0; k < NPIECES; k++) {
            int i = reversed ? NPIECES - 1 - k : k;
            int r = failed ? SK_OK
                           : c.batch(c.ctx, omp_get_thread_num(), f->piece[i], &f->info[i], &mine);
            if (r != SK_OK) {
#pragma omp critical(test_failed)
                {
                    failed = 1;
                    *e = mine;
                }
            }
        }
    }
    sk_maps *m = NULL;
    if (!failed && sk_project_stream_finish(ps, &m, e) != SK_OK)
        m = NULL;
    sk_project_stream_free(ps);
    sk_table_free(schema);
    return m;
}

static int same_maps(const sk_maps *a, const sk_maps *b)
{
    if (sk_maps_count(a) != sk_maps_count(b) || sk_maps_nx(a) != sk_maps_nx(b) ||
        sk_maps_ny(a) != sk_maps_ny(b))
        return 0;
    size_t n = (size_t)sk_maps_nx(a) * (size_t)sk_maps_ny(a) * sizeof(double);
    for (int i = 0; i < sk_maps_count(a); i++)
        if (memcmp(sk_maps_data(a, i), sk_maps_data(b, i), n) != 0)
            return 0;
    const sk_maps_info *x = sk_maps_get_info(a), *y = sk_maps_get_info(b);
    return x->rows == y->rows && x->selected == y->selected && x->deposited == y->deposited;
}

static int compared;

static void check_table(const char *output, const sk_table *t, const char *const *cases,
                        size_t ncases)
{
    feed f = {0};
    if (!make_feed(t, &f)) {
        free_feed(&f);
        return;
    }
    sk_error e;
    for (size_t k = 0; k < ncases; k += 2) {
        const char *q = cases[k], *spec = cases[k + 1];
        sk_maps *whole = test_project(t, q, spec, &e);
        if (!whole) /* a projection this output does not make (1-D, 2-D off z) */
            continue;
        static const int threads[] = {1, 2, 8};
        double mass = NAN; /* summed exactly: the same bits on every thread count */
        for (int n = 0; n < 3; n++)
            for (int reversed = 0; reversed < 2; reversed++) {
                sk_maps *m = stream(t, &f, q, spec, threads[n], reversed, &e);
                CHECK_MSG(m && same_maps(m, whole),
                          "%s %s [%s], %d threads%s: %s", output, q, spec, threads[n],
                          reversed ? ", reversed" : "", m ? "maps differ" : e.message);
                if (m && threads[n] > 1)
                    CHECK_EQ_STR(sk_maps_get_info(m)->strategy, "stream");
                double mm = m ? sk_maps_get_info(m)->selected_mass : NAN;
                if (m && n == 0 && !reversed)
                    mass = mm;
                else if (m)
                    CHECK_MSG(memcmp(&mm, &mass, sizeof mm) == 0, "%s %s [%s]: mass %.17g, %.17g",
                              output, q, spec, mm, mass);
                compared++;
                sk_maps_free(m);
            }
        sk_maps_free(whole);
    }
    free_feed(&f);
}

static void check_output(const char *output)
{
    static const char *const cells[] = {
        "sd", "axis=z;res=64",                         /* the grid's own loop */
        "sd,T,velocity_x,count", "axis=y;res=128",     /* the grid, several slots */
        "sd,mass", "axis=x;res=100",                   /* the general path */
        "sd,T", "axis=z;res=90;center=0.4 0.5 0.5;fov=0.5",
        "sd,mass", "axis=x;res=60;yrange=0.1 0.45;zrange=0.3 0.9",
        "sd", "direction=1 2 3;kernel=exact;res=48",   /* off-axis */
        "mass", "axis=z;res=70;kernel=cic",
    };
    static const char *const particles[] = {
        "mass,count", "axis=z;res=64;kernel=cic",
        "mass", "direction=1 1 1;res=50;kernel=ngp",
    };
    sk_error e;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, output, &e), &e);
    if (!r)
        return;
    sk_table *t = NULL;
    CHECK_OK(sk_ramses_read(r, "hydro", NULL, NULL, &t, NULL, &e), &e);
    if (t)
        check_table(output, t, cells, sizeof cells / sizeof cells[0]);
    sk_table_free(t);
    t = NULL;
    if (sk_ramses_get_info(r)->has_particles) {
        CHECK_OK(sk_ramses_read(r, "particles", NULL, NULL, &t, NULL, &e), &e);
        if (t)
            check_table(output, t, particles, sizeof particles / sizeof particles[0]);
        sk_table_free(t);
    }
    sk_ramses_close(r);
}

static int each_output(const char *pattern)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        check_output(g.gl_pathv[i]);
    int n = (int)g.gl_pathc;
    globfree(&g);
    return n;
}

int main(void)
{
    char buf[1024], pattern[1100];
    snprintf(pattern, sizeof pattern, "%s/ramses/*/output_[0-9]*[0-9]",
             test_data(buf, sizeof buf, ""));
    CHECK(each_output(pattern) >= 3);
    if (test_shared(buf, sizeof buf, "fixtures/ramses")) {
        snprintf(pattern, sizeof pattern, "%s/*/output_[0-9]*[0-9]", buf);
        CHECK(each_output(pattern) >= 3);
    } else {
        test_skip_part("the shared fixtures (absent)");
    }
    printf("%d streamed projections compared with the whole table's\n", compared);
    return test_done();
}
