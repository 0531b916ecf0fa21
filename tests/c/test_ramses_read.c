/* sk_ramses_read as a C caller sees it: progress reports, read statistics,
 * the same table whatever the thread count, metadata, and CPU look-ups. */
#include "check.h"
#include "snapkit/snapkit.h"

typedef struct progress_log {
    int calls;
    int64_t last_done, last_total, last_bytes;
    int monotone;
} progress_log;

static void on_progress(void *ctx, int64_t done, int64_t total, int64_t bytes)
{
    progress_log *p = ctx;
    if (done < p->last_done || bytes < p->last_bytes)
        p->monotone = 0;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
    p->last_bytes = bytes;
}

static int same_tables(const sk_table *a, const sk_table *b)
{
    if (sk_table_nrows(a) != sk_table_nrows(b) || sk_table_ncols(a) != sk_table_ncols(b))
        return 0;
    for (int i = 0; i < sk_table_ncols(a); i++) {
        const sk_column *x = sk_table_col(a, i), *y = sk_table_col(b, i);
        size_t n = (size_t)sk_table_nrows(a) * sk_dtype_size(x->type);
        if (strcmp(x->name, y->name) || x->type != y->type || memcmp(x->data, y->data, n))
            return 0;
    }
    return 1;
}

int main(void)
{
    char dir[4096];
    test_data(dir, sizeof dir, "ramses/gravpart/output_00002");
    sk_ramses *r;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return test_done();
    const sk_ramses_info *in = sk_ramses_get_info(r);
    CHECK_EQ_INT(in->ncpu, 8);
    CHECK_EQ_INT(in->nvar_hydro, 6);
    CHECK_EQ_INT(in->format, SK_RAMSES_CURRENT);
    CHECK(in->has_hydro && in->has_gravity && in->has_particles);
    CHECK_EQ_INT(in->ndomain, 8);
    CHECK(in->bound_key[8] == 134217728.0);

    progress_log log = {.monotone = 1};
    sk_read_options opt = {.threads = 2, .progress = {on_progress, &log}};
    sk_table *t2, *t1;
    sk_read_stats st;
    rc = sk_ramses_read(r, "hydro", NULL, &opt, &t2, &st, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(log.calls, 8);
    CHECK_EQ_INT(log.last_done, 8);
    CHECK_EQ_INT(log.last_total, 8);
    CHECK(log.monotone);
    CHECK_EQ_INT(log.last_bytes, st.bytes_read);
    CHECK_EQ_INT(st.files_opened, 8);
    CHECK(st.seconds > 0);
    CHECK(st.bytes_allocated >= sk_table_bytes(t2));
    CHECK(st.bytes_allocated <= sk_table_bytes(t2) * 3 / 2);
    CHECK_EQ_STR(sk_table_meta_get(t2, "kind"), "cells");
    CHECK_EQ_STR(sk_table_meta_get(t2, "component"), "hydro");
    CHECK_EQ_STR(sk_table_meta_get(t2, "ramses.info.unit_l"), "0.100000000000000E+01");
    CHECK_EQ_STR(sk_table_meta_get(t2, "ramses.header.star"), "1335");
    CHECK(sk_table_meta_double(t2, "gamma", 0) == 1.6666667);

    opt.threads = 1;
    opt.progress.fn = NULL;
    rc = sk_ramses_read(r, "hydro", NULL, &opt, &t1, NULL, &err);
    CHECK_OK(rc, &err);
    CHECK(same_tables(t1, t2));
    sk_table_free(t1);
    sk_table_free(t2);

    /* CPU look-ups: the component's own answer is never wider than the
     * answer good for every component, and a corner box needs few CPUs. */
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = 1;
    for (int a = 0; a < 3; a++)
        sel.lo[a] = 0.02, sel.hi[a] = 0.1;
    uint8_t any[8], hydro[8], part[8];
    int n_any = sk_ramses_cpus_for(r, &sel, any);
    int n_hydro = sk_ramses_cpus_for_component(r, "hydro", &sel, NULL, hydro);
    int n_part = sk_ramses_cpus_for_component(r, "particles", &sel, NULL, part);
    CHECK(n_hydro >= 1 && n_hydro <= n_part && n_part <= n_any && n_any < 8);
    for (int c = 0; c < 8; c++)
        CHECK(!hydro[c] || any[c]);
    rc = sk_ramses_read(r, "gravity", &sel, NULL, &t1, &st, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(st.files_opened, n_hydro);
    sk_table_free(t1);

    rc = sk_ramses_read(r, "stars", NULL, NULL, &t1, NULL, &err);
    CHECK_EQ_INT(rc, SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "unknown component 'stars'");
    sk_ramses_close(r);
    return test_done();
}
