/* The atoms stage in the report: JSON, text, CSV rows, its figure panels,
 * and back from a saved report.json. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/atoms.h"
#include "bench/format.h"
#include "snapkit/util/json.h"
#include "bench/report_parts.h"
#include "figure/plot.h"
#include "snapkit/memory.h"

static const char *const k_peer_names[2] = {"ase", "lammps"};

static const sk_atoms_time *peer_time(const sk_atoms_row *r, int peer)
{
    return peer ? &r->lammps : &r->ase;
}

/* ------------------------------------------------------------------ JSON */

static void time_json(const sk_atoms_time *t, int snapkit, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_key(j, "ok");
    sk_json_bool(j, t->ok);
    if (t->ok) {
        sk_json_kv_int(j, "runs", t->runs);
        sk_json_kv_double(j, "seconds", t->seconds);
        sk_json_kv_double(j, "seconds_min", t->seconds_min);
        if (snapkit)
            sk_json_kv_int(j, "bytes_allocated", t->bytes_allocated);
        else
            sk_json_kv_int(j, "peak_rss_bytes", t->peak_rss);
        sk_json_kv_double(j, "max_error", t->max_error);
    } else {
        sk_json_kv_string(j, "note", t->note);
    }
    sk_json_object_end(j);
}

static void peer_json(const char *name, int asked, const char *version, const char *note,
                      sk_json *j)
{
    sk_json_key(j, name);
    sk_json_object_begin(j);
    sk_json_key(j, "asked");
    sk_json_bool(j, asked);
    sk_json_key(j, "ran");
    sk_json_bool(j, version[0] != 0);
    if (version[0])
        sk_json_kv_string(j, "version", version);
    if (note[0])
        sk_json_kv_string(j, "note", note);
    sk_json_object_end(j);
}

void sk_atoms_bench_json(const sk_atoms_bench *b, sk_json *j)
{
    sk_json_object_begin(j);
    sk_json_kv_int(j, "threads", b->threads);
    sk_json_kv_int(j, "runs", b->runs);
    sk_json_key(j, "generator");
    sk_json_object_begin(j);
    sk_json_kv_string(j, "lattice", "fcc");
    sk_json_kv_double(j, "lattice_constant", SKB_CU_LATTICE);
    sk_json_kv_double(j, "displacement", SKB_CU_DISPLACEMENT);
    sk_json_kv_int(j, "seed", (int64_t)SKB_CU_SEED);
    sk_json_object_end(j);
    sk_json_key(j, "peers");
    sk_json_object_begin(j);
    peer_json("ase", (b->peers & SKB_PEER_ASE) != 0, b->ase_version, b->ase_note, j);
    peer_json("lammps", (b->peers & SKB_PEER_LAMMPS) != 0, b->lammps_version, b->lammps_note, j);
    sk_json_object_end(j);
    sk_json_key(j, "sizes");
    sk_json_array_begin(j);
    for (int i = 0; i < b->nsizes; i++)
        sk_json_int(j, b->sizes[i]);
    sk_json_array_end(j);
    sk_json_key(j, "formats");
    sk_json_array_begin(j);
    for (int i = 0; i < b->nformats; i++)
        sk_json_string(j, b->formats[i]);
    sk_json_array_end(j);
    sk_json_key(j, "checked");
    sk_json_object_begin(j);
    sk_json_kv_int(j, "files", b->files_checked);
    sk_json_kv_int(j, "atoms", b->atoms_checked);
    sk_json_object_end(j);
    sk_json_key(j, "rows");
    sk_json_array_begin(j);
    for (int i = 0; i < b->nrows; i++) {
        const sk_atoms_row *r = &b->rows[i];
        char name[64];
        snprintf(name, sizeof name, "%s %s %lld", r->format, r->op, (long long)r->atoms);
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", name);
        sk_json_kv_string(j, "format", r->format);
        sk_json_kv_string(j, "op", r->op);
        sk_json_kv_int(j, "atoms", r->atoms);
        sk_json_kv_int(j, "file_bytes", r->file_bytes);
        sk_json_key(j, "snapkit");
        time_json(&r->snapkit, 1, j);
        sk_json_key(j, "ase");
        time_json(&r->ase, 0, j);
        sk_json_key(j, "lammps");
        time_json(&r->lammps, 0, j);
        sk_json_kv_double(j, "ase_over_snapkit", sk_atoms_ratio(&r->ase, &r->snapkit));
        sk_json_kv_double(j, "lammps_over_snapkit", sk_atoms_ratio(&r->lammps, &r->snapkit));
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

/* ----------------------------------------------------------------- back */

static void str(const sk_json_value *v, const char *key, char *buf, size_t n)
{
    const sk_json_value *m = sk_json_get(v, key);
    snprintf(buf, n, "%s", m && m->type == SK_JSON_STRING ? m->string : "");
}

static int flag(const sk_json_value *v, const char *key)
{
    const sk_json_value *m = sk_json_get(v, key);
    return m && m->type == SK_JSON_BOOL && m->number != 0;
}

static double num(const sk_json_value *v, const char *key)
{
    const sk_json_value *m = sk_json_get(v, key);
    return m && m->type == SK_JSON_NULL ? NAN : sk_json_number(v, key, 0);
}

static int64_t lnum(const sk_json_value *v, const char *key)
{
    double d = num(v, key);
    return isfinite(d) ? (int64_t)fmax(-9e18, fmin(9e18, d)) : 0;
}

static void time_from(const sk_json_value *v, sk_atoms_time *t)
{
    t->ok = flag(v, "ok");
    t->runs = (int)fmax(0, fmin(256, num(v, "runs")));
    t->seconds = num(v, "seconds");
    t->seconds_min = num(v, "seconds_min");
    t->bytes_allocated = lnum(v, "bytes_allocated");
    t->peak_rss = lnum(v, "peak_rss_bytes");
    t->max_error = num(v, "max_error");
    str(v, "note", t->note, sizeof t->note);
}

void skb_atoms_from_json(const sk_json_value *v, sk_atoms_bench *b)
{
    memset(b, 0, sizeof *b);
    b->threads = (int)fmax(0, fmin(1 << 20, num(v, "threads")));
    b->runs = (int)fmax(0, fmin(256, num(v, "runs")));
    const sk_json_value *peers = sk_json_get(v, "peers");
    const sk_json_value *ase = sk_json_get(peers, "ase"), *lmp = sk_json_get(peers, "lammps");
    b->peers = (flag(ase, "asked") ? SKB_PEER_ASE : 0) | (flag(lmp, "asked") ? SKB_PEER_LAMMPS : 0);
    str(ase, "version", b->ase_version, sizeof b->ase_version);
    str(ase, "note", b->ase_note, sizeof b->ase_note);
    str(lmp, "version", b->lammps_version, sizeof b->lammps_version);
    str(lmp, "note", b->lammps_note, sizeof b->lammps_note);
    const sk_json_value *s = sk_json_get(v, "sizes");
    for (int i = 0; s && s->type == SK_JSON_ARRAY && i < s->n && i < SK_ATOMS_MAX_SIZES; i++)
        if (s->items[i].type == SK_JSON_NUMBER && s->items[i].number >= 1 &&
            s->items[i].number <= 9e18) /* a log axis needs positive sizes */
            b->sizes[b->nsizes++] = (int64_t)s->items[i].number;
    const sk_json_value *f = sk_json_get(v, "formats");
    for (int i = 0; f && f->type == SK_JSON_ARRAY && i < f->n && b->nformats < 3; i++)
        if (f->items[i].type == SK_JSON_STRING)
            snprintf(b->formats[b->nformats++], sizeof b->formats[0], "%s", f->items[i].string);
    const sk_json_value *c = sk_json_get(v, "checked");
    b->files_checked = lnum(c, "files");
    b->atoms_checked = lnum(c, "atoms");
    const sk_json_value *rows = sk_json_get(v, "rows");
    for (int i = 0; rows && rows->type == SK_JSON_ARRAY && i < rows->n && i < SK_ATOMS_MAX_ROWS; i++) {
        const sk_json_value *e = &rows->items[i];
        sk_atoms_row *r = &b->rows[b->nrows++];
        str(e, "format", r->format, sizeof r->format);
        str(e, "op", r->op, sizeof r->op);
        r->atoms = lnum(e, "atoms");
        r->file_bytes = lnum(e, "file_bytes");
        time_from(sk_json_get(e, "snapkit"), &r->snapkit);
        time_from(sk_json_get(e, "ase"), &r->ase);
        time_from(sk_json_get(e, "lammps"), &r->lammps);
    }
}

/* ------------------------------------------------------------------ text */

static const char *cell_time(const sk_atoms_time *t, char *buf, size_t n)
{
    return t->ok ? skb_seconds(t->seconds, buf, n) : "-";
}

static const char *cell_ratio(double r, char *buf, size_t n)
{
    if (!isfinite(r))
        return "-";
    snprintf(buf, n, "%.3gx", r);
    return buf;
}

static void peers_line(sk_text *b, const sk_atoms_bench *a)
{
    const char *names[2] = {"ASE", "LAMMPS"};
    const char *versions[2] = {a->ase_version, a->lammps_version};
    const char *notes[2] = {a->ase_note, a->lammps_note};
    for (int p = 0; p < 2; p++) {
        int asked = a->peers & (p ? SKB_PEER_LAMMPS : SKB_PEER_ASE);
        if (!asked)
            sk_text_printf(b, "  %-7s not asked\n", names[p]);
        else if (versions[p][0])
            sk_text_printf(b, "  %-7s %s, one thread%s\n", names[p], versions[p],
                           p ? " (read_data, write_dump, write_data, timed inside LAMMPS)"
                             : " (ase.io.read/write in a child /usr/bin/python3)");
        else
            sk_text_printf(b, "  %-7s not run: %s\n", names[p], notes[p][0] ? notes[p] : "no result");
    }
}

/* Each distinct note of a peer once, with the first format and operation
 * it concerns (sizes and the other rows repeat it). */
static void notes(sk_text *b, const sk_atoms_bench *a)
{
    for (int i = 0; i < a->nrows; i++)
        for (int p = 0; p < 2; p++) {
            const sk_atoms_row *r = &a->rows[i];
            const sk_atoms_time *t = peer_time(r, p);
            int asked = a->peers & (p ? SKB_PEER_LAMMPS : SKB_PEER_ASE);
            const char *version = p ? a->lammps_version : a->ase_version;
            if (t->ok || !t->note[0] || !asked || !version[0])
                continue;
            int seen = 0;
            for (int k = 0; k < i && !seen; k++)
                seen = !strcmp(peer_time(&a->rows[k], p)->note, t->note);
            if (!seen)
                sk_text_printf(b, "  %s, %s %s: %s\n", p ? "LAMMPS" : "ASE", r->format, r->op, t->note);
        }
    /* A peer that writes fewer digits: the largest error per format and
     * operation, once. */
    for (int i = 0; i < a->nrows; i++) {
        const sk_atoms_row *r = &a->rows[i];
        if (i > 0 && !strcmp(a->rows[i - 1].format, r->format) && !strcmp(a->rows[i - 1].op, r->op))
            continue;
        double worst = 0;
        for (int k = i; k < a->nrows && !strcmp(a->rows[k].format, r->format) &&
                        !strcmp(a->rows[k].op, r->op); k++)
            if (a->rows[k].ase.ok)
                worst = fmax(worst, a->rows[k].ase.max_error);
        if (worst > 0)
            sk_text_printf(b, "  ASE, %s %s: coordinates within %.2g A of the generator's (it "
                              "writes fewer digits); every other result is bit for bit\n",
                           r->format, r->op, worst);
    }
}

static void atoms_text(sk_text *b, const sk_atoms_bench *a)
{
    sk_text_printf(b, "atoms  fcc copper (a = %.3f A), every coordinate displaced by up to %.1f A; "
                      "snapkit on %d thread%s; median of %d warm run%s after one checked run\n",
                   SKB_CU_LATTICE, SKB_CU_DISPLACEMENT, a->threads, a->threads == 1 ? "" : "s",
                   a->runs, a->runs == 1 ? "" : "s");
    peers_line(b, a);
    sk_text_printf(b, "  checked before timing: %lld files, %lld atoms (count, ids, types, every "
                      "coordinate, box against the generator)\n",
                   (long long)a->files_checked, (long long)a->atoms_checked);
    sk_text_printf(b, "  format  op        atoms      file    snapkit  allocated        ASE  ASE/snapkit"
                      "     LAMMPS  LAMMPS/snapkit\n");
    for (int i = 0; i < a->nrows; i++) {
        const sk_atoms_row *r = &a->rows[i];
        char f[32], s[32], al[32], t1[32], t2[32], r1[32], r2[32];
        sk_text_printf(b, "  %-6s  %-5s  %9lld  %8s  %9s  %9s  %9s  %11s  %9s  %14s\n", r->format,
                       r->op, (long long)r->atoms, skb_bytes((double)r->file_bytes, f, sizeof f),
                       cell_time(&r->snapkit, s, sizeof s),
                       r->snapkit.ok ? skb_bytes((double)r->snapkit.bytes_allocated, al, sizeof al) : "-",
                       cell_time(&r->ase, t1, sizeof t1),
                       cell_ratio(sk_atoms_ratio(&r->ase, &r->snapkit), r1, sizeof r1),
                       cell_time(&r->lammps, t2, sizeof t2),
                       cell_ratio(sk_atoms_ratio(&r->lammps, &r->snapkit), r2, sizeof r2));
    }
    sk_text_printf(b, "  writes: no program flushes to disk (snapkit without fsync here); file: the "
                      "input read, or the file snapkit wrote\n");
    notes(b, a);
}

char *sk_atoms_bench_text(const sk_atoms_bench *a)
{
    sk_text b = {0};
    atoms_text(&b, a);
    return sk_text_take(&b);
}

/* ------------------------------------------------------------------- CSV */

static void time_rows(sk_text *b, const char *series, int threads, const sk_atoms_time *t,
                      int snapkit)
{
    if (!t->ok)
        return;
    skb_csv_row(b, "atoms", series, threads, "seconds", t->seconds, "s");
    skb_csv_row(b, "atoms", series, threads, "seconds_min", t->seconds_min, "s");
    if (snapkit)
        skb_csv_row(b, "atoms", series, threads, "bytes_allocated", (double)t->bytes_allocated, "B");
    else if (t->peak_rss > 0)
        skb_csv_row(b, "atoms", series, threads, "peak_rss_bytes", (double)t->peak_rss, "B");
    skb_csv_row(b, "atoms", series, threads, "max_error", t->max_error, "A");
}

void skb_atoms_csv(sk_text *b, const sk_atoms_bench *a)
{
    for (int i = 0; i < a->nrows; i++) {
        const sk_atoms_row *r = &a->rows[i];
        char s[96];
        snprintf(s, sizeof s, "%s %s %lld snapkit", r->format, r->op, (long long)r->atoms);
        time_rows(b, s, a->threads, &r->snapkit, 1);
        for (int p = 0; p < 2; p++) {
            snprintf(s, sizeof s, "%s %s %lld %s", r->format, r->op, (long long)r->atoms, k_peer_names[p]);
            time_rows(b, s, 1, peer_time(r, p), 0);
            double ratio = sk_atoms_ratio(peer_time(r, p), &r->snapkit);
            if (isfinite(ratio))
                skb_csv_row(b, "atoms", s, 0, "over_snapkit", ratio, "");
        }
    }
}

/* ---------------------------------------------------------------- panels */

static int size_index(const sk_atoms_bench *a, int64_t atoms)
{
    for (int s = 0; s < a->nsizes; s++)
        if (a->sizes[s] == atoms)
            return s;
    return -1;
}

/* snapkit's rate (million atoms per second) against the atom count: one
 * curve per format, reads solid, writes dashed. */
void skb_atoms_rate_panel(cairo_t *c, const sk_atoms_bench *a, double x, double y, double w,
                          double h)
{
    char title[128];
    snprintf(title, sizeof title, "Atom files: snapkit's rate (%d thread%s)", a->threads,
             a->threads == 1 ? "" : "s");
    skf_plot p = skf_panel(c, x, y, w, h, title, 0);
    double ticks[SK_ATOMS_MAX_SIZES], top = 0;
    for (int s = 0; s < a->nsizes; s++)
        ticks[s] = (double)a->sizes[s] / 1e3;
    for (int i = 0; i < a->nrows; i++)
        if (a->rows[i].snapkit.ok && a->rows[i].snapkit.seconds > 0)
            top = fmax(top, (double)a->rows[i].atoms / a->rows[i].snapkit.seconds / 1e6);
    if (!isfinite(top))
        top = 1; /* a hand-edited report's times */
    p.xlo = ticks[0] / 1.5;
    p.xhi = ticks[a->nsizes - 1] * 1.5;
    p.xlog = 1;
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(fmax(top, 1e-6) * 1.6); /* room for the legend */
    skf_axes(&p, ticks, a->nsizes, "thousand atoms", "million atoms per second");
    int legend = 0;
    for (int i = 0; i < a->nrows;) {
        const sk_atoms_row *r = &a->rows[i];
        double px[SK_ATOMS_MAX_SIZES], py[SK_ATOMS_MAX_SIZES];
        int n = 0, k = i;
        for (; k < a->nrows && !strcmp(a->rows[k].format, r->format) && !strcmp(a->rows[k].op, r->op); k++)
            if (a->rows[k].snapkit.ok && a->rows[k].snapkit.seconds > 0 && size_index(a, a->rows[k].atoms) >= 0) {
                px[n] = (double)a->rows[k].atoms / 1e3;
                py[n++] = (double)a->rows[k].atoms / a->rows[k].snapkit.seconds / 1e6;
            }
        int f = 0;
        while (f < a->nformats && strcmp(a->formats[f], r->format))
            f++;
        int dashed = strcmp(r->op, "write") == 0;
        if (n > 0) {
            char label[48];
            snprintf(label, sizeof label, "%s %s", r->format, r->op);
            skf_curve(&p, px, py, n, skf_series_colour(f), 2, dashed, 1);
            skf_legend(&p, legend++, label, skf_series_colour(f), dashed);
        }
        i = k;
    }
}

int skb_atoms_has_peers(const sk_atoms_bench *a)
{
    for (int i = 0; i < a->nrows; i++)
        if (isfinite(sk_atoms_ratio(&a->rows[i].ase, &a->rows[i].snapkit)) ||
            isfinite(sk_atoms_ratio(&a->rows[i].lammps, &a->rows[i].snapkit)))
            return 1;
    return 0;
}

/* How many times longer each peer takes than snapkit, at the largest
 * size: a bar per peer for each format and operation. */
void skb_atoms_peers_panel(cairo_t *c, const sk_atoms_bench *a, double x, double y, double w,
                           double h)
{
    int64_t largest = a->nsizes ? a->sizes[a->nsizes - 1] : 0;
    char title[128];
    snprintf(title, sizeof title, "Atom files: peer time / snapkit time, %lld atoms",
             (long long)largest);
    skf_plot p = skf_panel(c, x, y, w, h, title, 0);
    const sk_atoms_row *rows[6];
    int n = 0;
    double top = 1;
    for (int i = 0; i < a->nrows && n < 6; i++)
        if (a->rows[i].atoms == largest) {
            rows[n++] = &a->rows[i];
            for (int q = 0; q < 2; q++) {
                double r = sk_atoms_ratio(peer_time(&a->rows[i], q), &a->rows[i].snapkit);
                if (isfinite(r))
                    top = fmax(top, r);
            }
        }
    p.ylo = 0;
    p.yhi = skf_nice_ceiling(isfinite(top) ? top * 1.3 : 2);
    skf_bar_axes(&p, "times snapkit's time");
    static const uint32_t colours[2] = {SKF_ORANGE, SKF_GREEN};
    for (int i = 0; i < n; i++) {
        for (int q = 0; q < 2; q++) {
            double r = sk_atoms_ratio(peer_time(rows[i], q), &rows[i]->snapkit);
            if (isfinite(r))
                skf_bar(&p, i, n, q, 2, r, -1, colours[q]);
        }
        /* Format, and the operation under it: one line would overlap. */
        skf_slot_label(&p, i, n, rows[i]->format);
        skf_text(c, p.x + p.w * (i + 0.5) / n, p.y + p.h + 28, rows[i]->op, SKF_SIZE_TICK,
                 SKF_CENTRE, 0, SKF_INK);
    }
    double one[4] = {p.x, skf_py(&p, 1), p.x + p.w, skf_py(&p, 1)};
    skf_line(c, one, 2, SKF_GREY, 1, 1);
    skf_legend(&p, 0, a->ase_version[0] ? "ASE (one thread)" : "ASE: not run", colours[0], 0);
    skf_legend(&p, 1, a->lammps_version[0] ? "LAMMPS (one thread)" : "LAMMPS: not run", colours[1], 0);
}
