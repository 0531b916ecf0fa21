/* A saved report.json back into the structs the text and figure draw. */
#include "bench/report_load.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A member as a number: null is NaN (how the writer stores NaN and
 * infinities), absent or not a number is 0. */
static double num(const sk_json_value *v, const char *key)
{
    const sk_json_value *m = sk_json_get(v, key);
    if (m && m->type == SK_JSON_NULL)
        return NAN;
    return sk_json_number(v, key, 0);
}

/* An integer member, clamped to what an int holds (a hostile file may say
 * anything). */
static int inum(const sk_json_value *v, const char *key)
{
    double d = num(v, key);
    return isfinite(d) ? (int)fmax(-2e9, fmin(2e9, d)) : 0;
}

static int64_t lnum(const sk_json_value *v, const char *key)
{
    double d = num(v, key);
    return isfinite(d) ? (int64_t)fmax(-9e18, fmin(9e18, d)) : 0;
}

static void str(const sk_json_value *v, const char *key, char *buf, size_t n)
{
    const sk_json_value *m = sk_json_get(v, key);
    snprintf(buf, n, "%s", m && m->type == SK_JSON_STRING ? m->string : "");
}

/* An array member: its length (0 when absent or not an array), at most cap. */
static int array(const sk_json_value *v, const char *key, int cap, const sk_json_value **items)
{
    const sk_json_value *m = sk_json_get(v, key);
    if (!m || m->type != SK_JSON_ARRAY) {
        *items = NULL;
        return 0;
    }
    *items = m->items;
    return m->n < cap ? m->n : cap;
}

static void machine(const sk_json_value *v, sk_machine *m)
{
    str(v, "cpu_model", m->cpu_model, sizeof m->cpu_model);
    m->logical_cpus = inum(v, "logical_cpus");
    m->physical_cores = inum(v, "physical_cores");
    m->ram_bytes = lnum(v, "ram_bytes");
    m->ram_available = lnum(v, "ram_available_bytes");
    str(v, "os", m->os, sizeof m->os);
    const sk_json_value *b = sk_json_get(v, "threads");
    m->budget.threads = inum(b, "threads");
    m->budget.requested = inum(b, "requested");
    m->budget.owned = inum(b, "owned");
    m->budget.machine = inum(b, "machine");
    m->budget.affinity = inum(b, "affinity");
    str(b, "limited_by", m->budget.limited_by, sizeof m->budget.limited_by);
    const sk_json_value *t = sk_json_get(v, "first_touch");
    if (t && t->type == SK_JSON_OBJECT) {
        m->touch.bytes = lnum(t, "bytes");
        m->touch.gb_per_s = num(t, "gb_per_s");
        m->touch.huge_gb_per_s = num(t, "madv_hugepage_gb_per_s");
        m->touch.second_gb_per_s = num(t, "second_touch_gb_per_s");
        str(t, "thp_enabled", m->touch.thp_enabled, sizeof m->touch.thp_enabled);
        str(t, "thp_defrag", m->touch.thp_defrag, sizeof m->touch.thp_defrag);
    }
}

static void source(const sk_json_value *v, skb_source_usage *s)
{
    str(v, "path", s->path, sizeof s->path);
    str(v, "kind", s->kind, sizeof s->kind);
    str(v, "fs_type", s->fs_type, sizeof s->fs_type);
    s->files = lnum(v, "files");
    s->bytes = lnum(v, "bytes");
    const sk_json_value *c;
    s->ncomponents = array(v, "components", 8, &c);
    for (int i = 0; i < s->ncomponents; i++) {
        str(&c[i], "name", s->components[i].name, sizeof s->components[i].name);
        s->components[i].files = lnum(&c[i], "files");
        s->components[i].bytes = lnum(&c[i], "bytes");
    }
}

static void scaling(const sk_json_value *v, sk_scaling *s)
{
    const sk_json_value *p;
    s->npoints = array(v, "points", SK_BENCH_MAX_LEVELS, &p);
    for (int i = 0; i < s->npoints; i++) {
        sk_sweep_point *q = &s->points[i];
        q->threads = inum(&p[i], "threads");
        q->runs = inum(&p[i], "runs");
        q->seconds = num(&p[i], "seconds");
        q->seconds_min = num(&p[i], "seconds_min");
        q->seconds_max = num(&p[i], "seconds_max");
        q->speedup = num(&p[i], "speedup");
        q->efficiency = num(&p[i], "efficiency");
        q->spread = num(&p[i], "spread");
        q->peak_bytes = lnum(&p[i], "peak_bytes");
    }
    s->fastest = inum(v, "fastest");
    s->sweet_spot = inum(v, "sweet_spot");
    s->economical = inum(v, "economical");
    const sk_json_value *a = sk_json_get(v, "amdahl");
    s->amdahl.parallel_fraction = num(a, "parallel_fraction");
    s->amdahl.serial_seconds = num(a, "serial_seconds");
    s->amdahl.one_thread_seconds = num(a, "one_thread_seconds");
    s->amdahl.ceiling = num(a, "ceiling");
    /* The writer turns an infinite ceiling (p = 1) into null. */
    if (isnan(s->amdahl.ceiling) && s->amdahl.parallel_fraction == 1)
        s->amdahl.ceiling = INFINITY;
    s->amdahl.points_used = inum(a, "points_used");
}

static void storage(const sk_json_value *v, sk_storage_result *s)
{
    str(v, "dir", s->dir, sizeof s->dir);
    str(v, "fs_type", s->fs_type, sizeof s->fs_type);
    s->files_total = lnum(v, "files_total");
    s->bytes_total = lnum(v, "bytes_total");
    s->files_sampled = inum(v, "files_sampled");
    s->bytes_sampled = lnum(v, "bytes_sampled");
    s->bytes_read = lnum(v, "bytes_read");
    s->opens = lnum(v, "opens");
    s->runs = inum(v, "runs");
    s->budget.owned = inum(v, "threads_owned");
    s->levels_dropped = inum(v, "levels_dropped");
    s->seconds = num(v, "seconds");
    const sk_json_value *p;
    s->npoints = array(v, "points", SK_BENCH_MAX_LEVELS, &p);
    for (int i = 0; i < s->npoints; i++) {
        sk_storage_point *q = &s->points[i];
        q->threads = inum(&p[i], "threads");
        q->iops = num(&p[i], "iops");
        q->iops_min = num(&p[i], "iops_min");
        q->iops_max = num(&p[i], "iops_max");
        q->open_close_seconds = num(&p[i], "open_close_seconds");
        q->reader_bps = num(&p[i], "reader_bytes_per_second");
        q->reader_bps_min = num(&p[i], "reader_bytes_per_second_min");
        q->reader_bps_max = num(&p[i], "reader_bytes_per_second_max");
        q->total_bps = num(&p[i], "total_bytes_per_second");
    }
}

static void read_stage(const sk_json_value *v, sk_read_bench *r)
{
    r->threads = inum(v, "threads");
    r->cache_dropped = inum(v, "cache_dropped");
    str(v, "cache_note", r->cache_note, sizeof r->cache_note);
    const sk_json_value *c;
    r->ncomponents = array(v, "components", SKB_MAX_COMPONENTS, &c);
    for (int i = 0; i < r->ncomponents; i++) {
        sk_read_component *k = &r->components[i];
        str(&c[i], "name", k->name, sizeof k->name);
        k->runs = inum(&c[i], "runs");
        k->mean_seconds = num(&c[i], "mean_seconds");
        k->stddev_seconds = num(&c[i], "stddev_seconds");
        k->cold_seconds = num(&c[i], "cold_seconds");
        if (!(k->cold_seconds >= 0)) /* null: not measured */
            k->cold_seconds = -1;
        k->rows = lnum(&c[i], "rows");
        k->bytes_result = lnum(&c[i], "bytes_result");
        k->bytes_read = lnum(&c[i], "bytes_read");
        k->bytes_allocated = lnum(&c[i], "bytes_allocated");
        k->peak_rss = lnum(&c[i], "peak_rss_bytes");
    }
}

static void convert(const sk_json_value *v, sk_convert_bench *c)
{
    c->read_seconds = num(v, "read_seconds");
    c->write_seconds = num(v, "write_seconds");
    c->reread_seconds = num(v, "reread_seconds");
    c->bytes_ramses = lnum(v, "bytes_ramses");
    c->bytes_file = lnum(v, "bytes_file");
    c->alloc_read = lnum(v, "bytes_allocated_read");
    c->alloc_write = lnum(v, "bytes_allocated_write");
    c->alloc_reread = lnum(v, "bytes_allocated_reread");
    sk_convert_derive(c); /* the ratios, from the numbers as the run did */
}

static void project(const sk_json_value *v, sk_project_bench *p)
{
    str(v, "quantities", p->quantities, sizeof p->quantities);
    p->rows = lnum(v, "rows");
    p->nx = inum(v, "nx");
    p->ny = inum(v, "ny");
    const sk_json_value *c;
    p->ncases = array(v, "cases", SK_BENCH_MAX_CASES, &c);
    for (int i = 0; i < p->ncases; i++) {
        str(&c[i], "name", p->cases[i].name, sizeof p->cases[i].name);
        scaling(sk_json_get(&c[i], "scaling"), &p->cases[i].scaling);
    }
}

void skb_scaling_from_json(const sk_json_value *v, sk_scaling *s)
{
    scaling(v, s);
}

void skb_project_from_json(const sk_json_value *v, sk_project_bench *p)
{
    project(v, p);
}

static void lmax_path(const sk_json_value *v, sk_lmax_path *p)
{
    p->rows = lnum(v, "rows");
    p->bytes_allocated = lnum(v, "bytes_allocated");
    p->bytes_read = lnum(v, "bytes_read");
    p->seconds = num(v, "seconds");
    p->seconds_min = num(v, "seconds_min");
    p->cold_seconds = sk_json_get(v, "cold_seconds") ? num(v, "cold_seconds") : NAN;
}

static void lmax(const sk_json_value *v, sk_lmax_bench *b)
{
    str(v, "component", b->component, sizeof b->component);
    str(v, "file", b->file, sizeof b->file);
    b->file_exact = inum(v, "file_exact");
    b->threads = inum(v, "threads");
    b->runs = inum(v, "runs");
    b->levelmin = inum(v, "levelmin");
    b->levelmax = inum(v, "levelmax");
    b->cold = inum(v, "cold");
    b->cache_dropped = inum(v, "cache_dropped");
    str(v, "cache_note", b->cache_note, sizeof b->cache_note);
    const sk_json_value *p;
    b->npoints = array(v, "points", SK_BENCH_MAX_LMAX, &p);
    for (int i = 0; i < b->npoints; i++) {
        b->points[i].lmax = inum(&p[i], "lmax");
        lmax_path(sk_json_get(&p[i], "ramses"), &b->points[i].ramses);
        lmax_path(sk_json_get(&p[i], "file"), &b->points[i].file);
    }
    sk_lmax_derive(b); /* the ratios and fits, recomputed from the points */
}

static void meta(const sk_json_value *v, sk_bench_meta *m)
{
    str(v, "utc", m->utc, sizeof m->utc);
    str(v, "host", m->host, sizeof m->host);
    str(v, "version", m->version, sizeof m->version);
    str(v, "build_id", m->build_id, sizeof m->build_id);
    str(v, "cpu_model", m->cpu_model, sizeof m->cpu_model);
    m->cpus_owned = inum(v, "cpus_owned");
    str(v, "fs_type", m->fs_type, sizeof m->fs_type);
    str(v, "source", m->source, sizeof m->source);
    str(v, "selection", m->selection, sizeof m->selection);
    m->threads = inum(v, "threads");
    str(v, "cache", m->cache, sizeof m->cache);
}

/* The stage member when it is an object; a stage of another type is an
 * error (the file is not a report). */
static int stage(const sk_json_value *root, const char *key, const sk_json_value **v,
                 const char *path, sk_error *err)
{
    *v = sk_json_get(root, key);
    if (*v && (*v)->type != SK_JSON_OBJECT)
        return sk_fail(err, SK_ERR_FORMAT, path, -1, "report: \"%s\" is not an object", key);
    return SK_OK;
}

/* Every "threads" of a point (a member of an array "points", in any stage)
 * is a whole number from 1: the figure's thread axes divide by it and take
 * its logarithm, and a hostile 0 or "two" must not reach them. where is
 * the members' path so far ("sweep", "project.cases[2].scaling"). */
static int check_threads(const sk_json_value *v, char *where, size_t n, const char *path,
                         sk_error *err)
{
    if (v->type != SK_JSON_OBJECT && v->type != SK_JSON_ARRAY)
        return SK_OK;
    size_t len = strlen(where);
    for (int i = 0; i < v->n; i++) {
        const sk_json_value *m = &v->items[i];
        if (v->type == SK_JSON_OBJECT && !strcmp(v->keys[i], "points") &&
            m->type == SK_JSON_ARRAY) {
            for (int k = 0; k < m->n; k++) {
                const sk_json_value *t = sk_json_get(&m->items[k], "threads");
                if (!t || (t->type == SK_JSON_NUMBER && t->number >= 1 && t->number <= 1e6 &&
                           t->number == floor(t->number)))
                    continue;
                char shown[64];
                if (t->type == SK_JSON_NUMBER)
                    snprintf(shown, sizeof shown, "%.17g", t->number);
                else
                    snprintf(shown, sizeof shown, "that are not a number");
                return sk_fail(err, SK_ERR_FORMAT, path, -1,
                               "%s: point %d has threads %s; a thread count is a whole "
                               "number from 1",
                               len ? where : "report", k + 1, shown);
            }
        }
        if (v->type == SK_JSON_OBJECT)
            snprintf(where + len, n - len, "%s%s", len ? "." : "", v->keys[i]);
        else
            snprintf(where + len, n - len, "[%d]", i);
        int rc = check_threads(m, where, n, path, err);
        where[len] = '\0';
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

int skb_report_from_json(const sk_json_value *root, const char *path, skb_saved_report *out,
                         sk_error *err)
{
    memset(out, 0, sizeof *out);
    const sk_json_value *v;
    if (stage(root, "machine", &v, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    if (!v)
        return sk_fail(err, SK_ERR_FORMAT, path, -1,
                       "not a report.json of bench report (no \"machine\" object)");
    char where[512] = "";
    if (check_threads(root, where, sizeof where, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    machine(v, &out->machine);
    out->report.machine = &out->machine;
    static const char *const keys[] = {"source", "sweep", "storage", "read", "convert",
                                       "project", "lmax", "metadata"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (stage(root, keys[k], &v, path, err) != SK_OK)
            return SK_ERR_FORMAT;
        if (!v)
            continue;
        switch (k) {
        case 0: source(v, &out->source), out->report.source = &out->source; break;
        case 1: scaling(v, &out->sweep), out->report.sweep = &out->sweep; break;
        case 2: storage(v, &out->storage), out->report.storage = &out->storage; break;
        case 3: read_stage(v, &out->read), out->report.read = &out->read; break;
        case 4: convert(v, &out->convert), out->report.convert = &out->convert; break;
        case 5: project(v, &out->project), out->report.project = &out->project; break;
        case 6: lmax(v, &out->lmax), out->report.lmax = &out->lmax; break;
        default: meta(v, &out->meta), out->report.meta = &out->meta; break;
        }
    }
    /* The stages whose readers live beside them. */
    if (stage(root, "project_grid", &v, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    if (v) {
        skb_project_grid_from_json(v, &out->project_grid);
        out->report.project_grid = &out->project_grid;
    }
    if (stage(root, "atoms", &v, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    if (v) {
        skb_atoms_from_json(v, &out->atoms);
        out->report.atoms = &out->atoms;
    }
    if (stage(root, "clumps", &v, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    if (v) {
        skb_clumps_from_json(v, &out->clumps);
        out->report.clumps = &out->clumps;
    }
    if (stage(root, "ranks", &v, path, err) != SK_OK)
        return SK_ERR_FORMAT;
    if (v) {
        skb_ranks_from_json(v, &out->ranks);
        out->report.ranks = &out->ranks;
    }
    return SK_OK;
}
