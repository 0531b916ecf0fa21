/* The bridge between RAMSES outputs and compact files: convert one into
 * the other, and check that a file holds what its output gives for the
 * selection recorded in it. */
#include <stdio.h>
#include <string.h>

#include "snapkit/util/clock.h"
#include "snapkit/convert.h"
#include "snapkit/memory.h"
#include "snapkit/ramses.h"
#include "snapkit/store.h"
#include "formats/snapkit/plan.h"
#include "formats/snapkit/reader.h"

#include "formats/snapkit/convert_internal.h"

#define NC CV_NC

static const char *component(int k)
{
    return sk_ramses_component_name(k);
}

/* Cell components keep their refined cells with --with-coarse. */
int cv_is_cells(int k)
{
    const char *c = component(k);
    return strcmp(c, "particles") && strcmp(c, "sinks") && strcmp(c, "clumps");
}

void sk_store_convert_options_init(sk_store_convert_options *opt)
{
    memset(opt, 0, sizeof *opt);
    sk_store_write_options_init(&opt->write);
}

/* Which components to convert: want[k] for component(k). */
int cv_pick_components(const sk_ramses *r, const char *list, int want[NC], sk_error *err)
{
    if (!list || !*list) {
        for (int k = 0; k < NC; k++)
            want[k] = sk_ramses_has_component(r, component(k));
        return SK_OK;
    }
    memset(want, 0, NC * sizeof *want);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        int k = 0;
        while (k < NC && (strlen(component(k)) != n || strncmp(p, component(k), n) != 0))
            k++;
        if (k == NC)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "unknown component '%.*s' (use hydro, gravity, particles, rt, "
                           "clump_field, sinks, clumps)", (int)n, p);
        if (!sk_ramses_has_component(r, component(k)))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "the output has no %s", component(k));
        want[k] = 1;
        p = comma ? comma + 1 : NULL;
    }
    return SK_OK;
}

/* Bytes of the files the components are read from (the amr files for
 * any cell component). kind k + 1 is component k's disk-usage kind. */
int64_t cv_source_bytes(const sk_ramses *r, const int want[NC], sk_error *err)
{
    sk_ramses_usage u;
    if (sk_ramses_disk_usage(r, &u, err) != SK_OK)
        return -1;
    int64_t bytes = 0, cells = 0;
    for (int k = 0; k < NC; k++)
        if (want[k]) {
            bytes += u.bytes[k + 1];
            cells |= cv_is_cells(k);
        }
    return bytes + (cells ? u.bytes[SK_RAMSES_AMR] : 0);
}

/* Refined cells of a table read with_refined, except those at the level
 * cap: they are the capped output's leaves. */
int64_t cv_count_refined(const sk_table *t, int cap)
{
    const sk_column *ref = sk_table_find(t, "refined"), *lv = sk_table_find(t, "level");
    int64_t refined = 0;
    for (int64_t i = 0; ref && lv && i < sk_table_nrows(t); i++)
        refined += ((const uint8_t *)ref->data)[i] != 0 &&
                   (cap <= 0 || ((const int32_t *)lv->data)[i] < cap);
    return refined;
}

/* Read component k whole and write it (refined cells, and the fallback
 * when its files are not in curve order). */
static int convert_whole(sk_ramses *r, sk_store_writer *w, int k, const sk_selection *sel,
                         const sk_read_options *ro, sk_store_convert_stats *st, sk_error *err)
{
    sk_read_stats rs;
    sk_table *t = NULL;
    int rc = sk_ramses_read(r, component(k), sel, ro, &t, &rs, err);
    if (rc != SK_OK)
        return rc;
    double t0 = sk_monotonic_seconds();
    rc = sk_store_writer_add(w, component(k), t, err);
    st->write_seconds += sk_monotonic_seconds() - t0;
    st->read_seconds += rs.seconds;
    if (rc == SK_OK) {
        snprintf(st->names[st->ntables], sizeof st->names[0], "%s", component(k));
        int64_t refined = cv_count_refined(t, sel->lmax);
        st->refined_rows[st->ntables] = refined;
        st->rows[st->ntables++] = sk_table_nrows(t) - refined;
        st->bytes_raw += sk_table_bytes(t);
    }
    sk_table_free(t);
    return rc;
}

/* Leaves are streamed, file by file, never held whole; refined cells
 * (--with-coarse) go after every leaf, level by level, so that table is
 * read whole. */
static int convert_components(sk_ramses *r, sk_store_writer *w, const int want[NC],
                              const sk_selection sels[NC], const sk_store_convert_options *opt,
                              sk_store_convert_stats *st, sk_error *err)
{
    int rc = SK_OK;
    for (int k = 0; k < NC && rc == SK_OK; k++) {
        if (!want[k])
            continue;
        sk_read_options ro = {.threads = opt->write.threads,
                              .progress = opt->read_progress,
                              .with_refined = cv_is_cells(k) && opt->with_coarse};
        cv_streamed s = {.fallback = 1};
        if (!ro.with_refined)
            rc = cv_stream_component(r, w, component(k), &sels[k], &ro, &s, err);
        if (rc == SK_OK && s.fallback) {
            st->fallbacks += !ro.with_refined;
            rc = convert_whole(r, w, k, &sels[k], &ro, st, err);
        } else if (rc == SK_OK) {
            st->read_seconds += s.read_seconds;
            st->write_seconds += s.write_seconds;
            snprintf(st->names[st->ntables], sizeof st->names[0], "%s", component(k));
            st->refined_rows[st->ntables] = 0;
            st->rows[st->ntables++] = s.rows;
            st->bytes_raw += s.bytes_raw;
        }
    }
    return rc;
}

/* The columns of a component: a read of a box outside the domain opens no
 * file and gives every column, no row. */
static int component_columns(sk_ramses *r, int k, sk_table **out, sk_error *err)
{
    sk_selection nowhere;
    sk_selection_init(&nowhere);
    nowhere.has_box = 1;
    for (int a = 0; a < 3; a++) {
        nowhere.lo[a] = 2.0;
        nowhere.hi[a] = 3.0;
    }
    return sk_ramses_read(r, component(k), &nowhere, NULL, out, NULL, err);
}

/* A selection per component (sels initialised by the caller). Variables
 * apply to the components that have them: a list naming hydro and particle
 * variables converts each component with its own. Components that have
 * none of them are left out unless they were asked for by name; a variable
 * no component has is an error. */
int cv_split_vars(sk_ramses *r, const sk_selection *sel, int explicit_components,
                      int want[NC], sk_selection sels[NC], sk_error *err)
{
    int rc = SK_OK;
    if (sel)
        for (int k = 0; k < NC && rc == SK_OK; k++)
            rc = sk_selection_copy(&sels[k], sel, err);
    if (rc != SK_OK || !sel || sel->nvars == 0)
        return rc;
    int found[SK_MAX_VARS] = {0};
    for (int k = 0; k < NC && rc == SK_OK; k++) {
        if (!want[k])
            continue;
        sk_table *cols = NULL;
        rc = component_columns(r, k, &cols, err);
        sk_selection *s = &sels[k];
        int kept = 0;
        for (int v = 0; v < sel->nvars && rc == SK_OK; v++) {
            int has = sk_table_find(cols, sel->vars[v]) != NULL;
            found[v] |= has;
            if (has)
                s->vars[kept++] = s->vars[v];
            else
                sk_free(s->vars[v]);
        }
        s->nvars = kept;
        sk_table_free(cols);
        if (rc == SK_OK && kept == 0 && explicit_components)
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "%s has none of the variables asked for",
                         component(k));
        if (kept == 0)
            want[k] = 0;
    }
    for (int v = 0; v < sel->nvars && rc == SK_OK; v++)
        if (!found[v])
            rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "no component converted has a variable %s",
                         sel->vars[v]);
    return rc;
}

void cv_components_list(const int want[NC], char *list, size_t size)
{
    size_t n = 0;
    list[0] = '\0';
    for (int k = 0; k < NC; k++)
        if (want[k] && n < size)
            n += (size_t)snprintf(list + n, size - n, "%s%s", n ? "," : "", component(k));
}

static int set_file_meta(sk_store_writer *w, const char *dir, const int want[NC], int with_coarse,
                         sk_error *err)
{
    char list[128];
    cv_components_list(want, list, sizeof list);
    int rc = sk_store_writer_set_meta(w, "convert.source", dir, err);
    if (rc == SK_OK)
        rc = sk_store_writer_set_meta(w, "convert.components", list, err);
    if (rc == SK_OK)
        rc = sk_store_writer_set_meta(w, "convert.with_coarse", with_coarse ? "1" : "0", err);
    return rc;
}

int sk_store_convert(const char *dir, const char *path, const sk_store_convert_options *opt_in,
                     sk_store_convert_stats *stats, sk_error *err)
{
    sk_store_convert_options defaults;
    sk_store_convert_options_init(&defaults);
    const sk_store_convert_options *opt = opt_in ? opt_in : &defaults;
    sk_store_convert_stats st;
    memset(&st, 0, sizeof st);
    sk_mem_stats m0;
    sk_mem_get(&m0);
    sk_ramses *r;
    int rc = sk_ramses_open(&r, dir, err);
    if (rc != SK_OK)
        return rc;
    int want[NC];
    rc = cv_pick_components(r, opt->components, want, err);
    sk_selection sels[NC];
    for (int k = 0; k < NC; k++)
        sk_selection_init(&sels[k]);
    if (rc == SK_OK)
        rc = cv_split_vars(r, opt->selection, opt->components && *opt->components, want, sels, err);
    if (rc == SK_OK && (st.bytes_source = cv_source_bytes(r, want, err)) < 0)
        rc = err ? err->code : SK_ERR_IO;
    sk_store_writer *w = NULL;
    if (rc == SK_OK)
        rc = sk_store_writer_open(&w, path, &opt->write, err);
    if (rc == SK_OK)
        rc = set_file_meta(w, dir, want, opt->with_coarse, err);
    if (rc == SK_OK)
        rc = convert_components(r, w, want, sels, opt, &st, err);
    for (int k = 0; k < NC; k++)
        sk_selection_clear(&sels[k]);
    sk_ramses_close(r);
    if (rc != SK_OK) {
        sk_store_writer_abort(w);
        return rc;
    }
    double t0 = sk_monotonic_seconds();
    sk_store_write_stats ws;
    rc = sk_store_writer_commit(w, &ws, err);
    st.write_seconds += sk_monotonic_seconds() - t0;
    st.bytes_file = ws.bytes_file;
    sk_mem_stats m1;
    sk_mem_get(&m1);
    st.bytes_allocated = (int64_t)(m1.total - m0.total);
    if (rc == SK_OK && stats)
        *stats = st;
    return rc;
}

/* ---- checking a file against its output ---- */

/* A metadata value on one line: newlines escaped, long values cut. */
static const char *one_line(const char *v, char *buf, size_t n)
{
    if (!v)
        return "(absent)";
    size_t k = 0;
    for (; *v && k + 8 < n; v++) {
        if (*v == '\n') {
            buf[k++] = '\\';
            buf[k++] = 'n';
        } else {
            buf[k++] = *v;
        }
    }
    if (*v)
        k += (size_t)snprintf(buf + k, n - k, "...");
    buf[k < n ? k : n - 1] = '\0';
    return buf;
}

static int compare_meta(const sk_table *file, const sk_table *src, const char *name, char *why,
                        size_t n)
{
    /* "source" names the folder as it was spelled at conversion time. */
    for (int pass = 0; pass < 2; pass++) {
        const sk_table *a = pass ? src : file, *b = pass ? file : src;
        for (int i = 0; i < sk_table_meta_count(a); i++) {
            const char *k = sk_table_meta_key(a, i);
            const char *v = sk_table_meta_get(b, k);
            if (!strcmp(k, "source") || (v && !strcmp(v, sk_table_meta_value(a, i))))
                continue;
            char x[96], y[96];
            const char *in_file = pass ? v : sk_table_meta_value(a, i);
            const char *in_output = pass ? sk_table_meta_value(a, i) : v;
            snprintf(why, n, "%s: metadata %s is \"%s\" in the file, \"%s\" in the output", name,
                     k, one_line(in_file, x, sizeof x), one_line(in_output, y, sizeof y));
            return 0;
        }
    }
    return 1;
}

static int check_table(sk_store *s, sk_ramses *r, const st_table *t, int threads, int *same,
                       char *why, size_t n, sk_error *err)
{
    sk_selection sel;
    st_plan plan;
    memset(&plan, 0, sizeof plan);
    int rc = st_plan_effective(&plan, t, NULL, &sel, err);
    int refined = (t->flags & ST_TABLE_HAS_REFINED) != 0;
    sk_read_options ro = {.threads = threads, .with_refined = refined};
    sk_table *from_file = NULL, *from_output = NULL;
    if (rc == SK_OK)
        rc = sk_store_read(s, t->name, NULL, &ro, &from_file, NULL, err);
    if (rc == SK_OK)
        rc = sk_ramses_read(r, t->name, &sel, &ro, &from_output, NULL, err);
    sk_selection_clear(&sel);
    char diff[1024];
    if (rc == SK_OK)
        rc = sk_tables_same_rows(from_file, from_output, same, diff, sizeof diff, err);
    if (rc == SK_OK && !*same)
        snprintf(why, n, "%s: %s (file vs output)", t->name, diff);
    if (rc == SK_OK && *same)
        *same = compare_meta(from_file, from_output, t->name, why, n);
    sk_table_free(from_file);
    sk_table_free(from_output);
    return rc;
}

int sk_store_check_source(sk_store *s, const char *dir, int threads, int *same, char *why,
                          size_t why_size, sk_error *err)
{
    *same = 1;
    why[0] = '\0';
    sk_ramses *r;
    int rc = sk_ramses_open(&r, dir, err);
    if (rc != SK_OK)
        return rc;
    for (int i = 0; i < s->footer.ntables && rc == SK_OK && *same; i++) {
        const st_table *t = &s->footer.tables[i];
        int known = 0;
        for (int k = 0; k < NC; k++)
            known |= !strcmp(t->name, component(k));
        if (!known) {
            *same = 0;
            snprintf(why, why_size, "table %s is not a RAMSES component", t->name);
            break;
        }
        rc = check_table(s, r, t, threads, same, why, why_size, err);
    }
    sk_ramses_close(r);
    return rc;
}
