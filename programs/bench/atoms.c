/* snapkit bench atoms: for each size, generate the inputs, check every
 * atom, time snapkit's reads and writes, then the peers'. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/atoms.h"
#include "snapkit/util/clock.h"
#include "snapkit/memory.h"

static const char *const k_formats[3] = {"dump", "data", "extxyz"};
static const char *const k_ext[3] = {"dump", "data", "extxyz"};
static const int64_t k_default_sizes[4] = {4000, 32000, 256000, 2048000};

int sk_atoms_parse_sizes(const char *text, int64_t *sizes, int *n, sk_error *err)
{
    *n = 0;
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || (*end && *end != ','))
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "--sizes: '%s' is not a list of atom counts",
                           text);
        if (skb_cu_cells(v) < 1)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "--sizes: %lld is not 4 n^3 (fcc cells: 32, 500, 4000, 32000, ...)", v);
        int dup = 0;
        for (int i = 0; i < *n; i++)
            dup |= sizes[i] == v;
        if (!dup) {
            if (*n == SK_ATOMS_MAX_SIZES)
                return sk_fail(err, SK_ERR_ARG, NULL, -1, "--sizes: at most %d sizes",
                               SK_ATOMS_MAX_SIZES);
            int i = (*n)++;
            for (; i > 0 && sizes[i - 1] > v; i--)
                sizes[i] = sizes[i - 1];
            sizes[i] = v;
        }
        p = *end ? end + 1 : end;
    }
    return *n ? SK_OK : sk_fail(err, SK_ERR_ARG, NULL, -1, "--sizes: no size given");
}

int sk_atoms_parse_peers(const char *text, int *peers, sk_error *err)
{
    *peers = 0;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "ase") == 0)
            *peers |= SKB_PEER_ASE;
        else if (strcmp(t, "lammps") == 0)
            *peers |= SKB_PEER_LAMMPS;
        else if (strcmp(t, "none") != 0)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "--peers: '%s' is not ase, lammps or none", t);
    }
    return SK_OK;
}

static int parse_formats(const char *text, sk_atoms_bench *out, sk_error *err)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text ? text : "dump,data,extxyz");
    int want[3] = {0};
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < 3 && strcmp(t, k_formats[k]))
            k++;
        if (k == 3)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "--formats: '%s' is not dump, data or extxyz", t);
        want[k] = 1;
    }
    for (int k = 0; k < 3; k++)
        if (want[k])
            snprintf(out->formats[out->nformats++], sizeof out->formats[0], "%s", k_formats[k]);
    return out->nformats ? SK_OK : sk_fail(err, SK_ERR_ARG, NULL, -1, "--formats: none given");
}

static int format_index(const char *name)
{
    for (int k = 0; k < 3; k++)
        if (strcmp(name, k_formats[k]) == 0)
            return k;
    return 0;
}

typedef struct atoms_run {
    const sk_atoms_bench_options *opt;
    sk_atoms_bench *b;
    sk_atoms_options aopt;     /* snapkit's threads; writes without fsync (no peer flushes) */
    int64_t done, total;
} atoms_run;

static void step(atoms_run *r)
{
    if (r->opt->progress.fn)
        r->opt->progress.fn(r->opt->progress.ctx, ++r->done, r->total, 0);
}

static void input_path(const atoms_run *r, int64_t atoms, int k, char *buf, size_t n)
{
    snprintf(buf, n, "%s/cu_fcc_%lld.%s", r->opt->work, (long long)atoms, k_ext[k]);
}

static sk_atoms_row *row(sk_atoms_bench *b, const char *format, const char *op, int64_t atoms)
{
    for (int i = 0; i < b->nrows; i++)
        if (!strcmp(b->rows[i].format, format) && !strcmp(b->rows[i].op, op) &&
            b->rows[i].atoms == atoms)
            return &b->rows[i];
    return NULL;
}

/* Write an input with snapkit unless a kept one is there; then read it
 * and check every atom (snapkit's checked read). */
static int make_input(atoms_run *r, const sk_table *frame, int64_t atoms, int k, sk_error *err)
{
    char path[4096];
    input_path(r, atoms, k, path, sizeof path);
    struct stat st;
    int kept = r->opt->keep_inputs && stat(path, &st) == 0;
    if (!kept) {
        int rc = sk_atoms_write(path, frame, (sk_atoms_format)(SK_ATOMS_DUMP + k), &r->aopt, err);
        if (rc != SK_OK)
            return rc;
    }
    double max_error;
    int rc = skb_atoms_check_file(path, (sk_atoms_format)(SK_ATOMS_DUMP + k), atoms, 0, &max_error, err);
    if (rc != SK_OK && kept)
        snprintf(err->message + strlen(err->message), sizeof err->message - strlen(err->message),
                 " (a kept input: remove it to generate it again)");
    if (rc == SK_OK) {
        r->b->files_checked++;
        r->b->atoms_checked += atoms;
    }
    return rc;
}

static int64_t allocated_since(const sk_mem_stats *before)
{
    sk_mem_stats now;
    sk_mem_get(&now);
    return (int64_t)(now.total - before->total);
}

static int snapkit_read(atoms_run *r, int64_t atoms, int k, sk_atoms_row *row, sk_error *err)
{
    char path[4096];
    input_path(r, atoms, k, path, sizeof path);
    struct stat st;
    row->file_bytes = stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
    double sec[256];
    for (int i = 0; i < r->b->runs; i++) {
        sk_mem_stats before;
        sk_mem_get(&before);
        sk_table *t = NULL;
        double t0 = sk_monotonic_seconds();
        int rc = sk_atoms_read(path, (sk_atoms_format)(SK_ATOMS_DUMP + k), 0, &r->aopt, &t, err);
        sec[i] = sk_monotonic_seconds() - t0;
        row->snapkit.bytes_allocated = allocated_since(&before);
        sk_table_free(t);
        if (rc != SK_OK)
            return rc;
    }
    skb_atoms_set_times(&row->snapkit, sec, r->b->runs);
    return SK_OK;
}

/* One checked write (read back, every atom compared), then the timed
 * ones. */
static int snapkit_write(atoms_run *r, const sk_table *frame, int64_t atoms, int k,
                         sk_atoms_row *row, sk_error *err)
{
    char check[4096], timed[4096];
    snprintf(check, sizeof check, "%s/snapkit_check.%s", r->opt->work, k_ext[k]);
    snprintf(timed, sizeof timed, "%s/snapkit_timed.%s", r->opt->work, k_ext[k]);
    sk_atoms_format fmt = (sk_atoms_format)(SK_ATOMS_DUMP + k);
    int rc = sk_atoms_write(check, frame, fmt, &r->aopt, err);
    double max_error = 0;
    if (rc == SK_OK)
        rc = skb_atoms_check_file(check, fmt, atoms, 0, &max_error, err);
    struct stat st;
    row->file_bytes = rc == SK_OK && stat(check, &st) == 0 ? (int64_t)st.st_size : 0;
    unlink(check);
    if (rc != SK_OK)
        return rc;
    r->b->files_checked++;
    r->b->atoms_checked += atoms;
    double sec[256];
    for (int i = 0; i < r->b->runs && rc == SK_OK; i++) {
        sk_mem_stats before;
        sk_mem_get(&before);
        double t0 = sk_monotonic_seconds();
        rc = sk_atoms_write(timed, frame, fmt, &r->aopt, err);
        sec[i] = sk_monotonic_seconds() - t0;
        row->snapkit.bytes_allocated = allocated_since(&before);
    }
    unlink(timed);
    if (rc != SK_OK)
        return rc;
    skb_atoms_set_times(&row->snapkit, sec, r->b->runs);
    row->snapkit.max_error = max_error;
    return SK_OK;
}

/* The inputs of one size and snapkit's measurements on them. The data
 * file is always made: the peers' writes start from it. */
static int snapkit_size(atoms_run *r, int64_t atoms, sk_error *err)
{
    sk_table *frame = NULL, *xyz = NULL;
    int rc = skb_cu_table(atoms, 0, &frame, err);
    int want_xyz = row(r->b, "extxyz", "read", atoms) != NULL;
    if (rc == SK_OK && want_xyz)
        rc = skb_cu_table(atoms, 1, &xyz, err);
    for (int k = 0; k < 3 && rc == SK_OK; k++) {
        sk_atoms_row *rd = row(r->b, k_formats[k], "read", atoms);
        if (!rd && k != 1)
            continue;
        const sk_table *t = k == 2 ? xyz : frame;
        rc = make_input(r, t, atoms, k, err);
        if (rc == SK_OK && rd) {
            rc = snapkit_read(r, atoms, k, rd, err);
            step(r);
        }
        sk_atoms_row *wr = row(r->b, k_formats[k], "write", atoms);
        if (rc == SK_OK && wr) {
            rc = snapkit_write(r, t, atoms, k, wr, err);
            step(r);
        }
    }
    sk_table_free(frame);
    sk_table_free(xyz);
    return rc;
}

static void ase_size(atoms_run *r, int64_t atoms)
{
    sk_atoms_bench *b = r->b;
    skb_peer_job jobs[6];
    char in[6][4096], out[6][4096], chk[6][4096], data[4096];
    input_path(r, atoms, 1, data, sizeof data);
    int n = 0;
    for (int f = 0; f < b->nformats; f++) {
        int k = format_index(b->formats[f]);
        for (int w = 0; w < 2; w++) {
            sk_atoms_row *rw = row(b, k_formats[k], w ? "write" : "read", atoms);
            if (w)
                snprintf(in[n], sizeof in[n], "%s", data);
            else
                input_path(r, atoms, k, in[n], sizeof in[n]);
            snprintf(out[n], sizeof out[n], "%s/ase_timed.%s", r->opt->work, k_ext[k]);
            snprintf(chk[n], sizeof chk[n], "%s/ase_check.%s", r->opt->work, w ? k_ext[k] : "bin");
            jobs[n] = (skb_peer_job){.op = rw->op, .format = rw->format, .input = in[n],
                                     .output = out[n], .checked = chk[n], .atoms = atoms,
                                     .time = &rw->ase};
            n++;
        }
    }
    char version[sizeof b->ase_version], why[sizeof b->ase_note];
    int64_t checked = 0;
    skb_ase_run(r->opt->python ? r->opt->python : "/usr/bin/python3", r->opt->work, jobs, n,
                b->runs, version, sizeof version, why, sizeof why, &checked);
    if (version[0])
        snprintf(b->ase_version, sizeof b->ase_version, "%s", version);
    else if (!b->ase_note[0])
        snprintf(b->ase_note, sizeof b->ase_note, "%s", why);
    b->atoms_checked += checked;
    b->files_checked += checked / atoms;
    step(r);
}

/* The first of lmp, lmp_serial, lmp_stable on PATH (Debian's is lmp). */
static const char *find_lmp(void)
{
    static const char *const names[] = {"lmp", "lmp_serial", "lmp_stable"};
    const char *path = getenv("PATH");
    for (size_t k = 0; path && k < sizeof names / sizeof names[0]; k++)
        for (const char *p = path; *p;) {
            size_t len = strcspn(p, ":");
            char full[4096];
            snprintf(full, sizeof full, "%.*s/%s", (int)len, p, names[k]);
            if (len && access(full, X_OK) == 0)
                return names[k];
            p += len + (p[len] == ':');
        }
    return NULL;
}

static void lammps_size(atoms_run *r, int64_t atoms)
{
    sk_atoms_bench *b = r->b;
    const char *lmp = r->opt->lmp ? r->opt->lmp : find_lmp();
    if (!lmp) {
        snprintf(b->lammps_note, sizeof b->lammps_note,
                 "not installed: no lmp, lmp_serial or lmp_stable on PATH (Debian package lammps)");
        step(r);
        return;
    }
    char data[4096];
    input_path(r, atoms, 1, data, sizeof data);
    sk_atoms_row *rd = row(b, "data", "read", atoms), *dw = row(b, "dump", "write", atoms);
    sk_atoms_row *aw = row(b, "data", "write", atoms);
    sk_atoms_time scratch[3] = {{0}};
    char version[sizeof b->lammps_version], why[sizeof b->lammps_note] = "";
    version[0] = '\0';
    int64_t checked = 0;
    skb_lammps_run(lmp, r->opt->work, data, atoms, b->runs, rd ? &rd->lammps : &scratch[0],
                   dw ? &dw->lammps : &scratch[1], aw ? &aw->lammps : &scratch[2], version,
                   sizeof version, why, sizeof why, &checked);
    if (version[0] && !why[0])
        snprintf(b->lammps_version, sizeof b->lammps_version, "%s", version);
    if (why[0] && !b->lammps_note[0])
        snprintf(b->lammps_note, sizeof b->lammps_note, "%s", why);
    b->atoms_checked += checked;
    b->files_checked += checked / atoms;
    step(r);
}

/* Rows grouped by format, then operation, then size (the table's order). */
static void plan_rows(sk_atoms_bench *b)
{
    for (int f = 0; f < b->nformats; f++)
        for (int w = 0; w < 2; w++)
            for (int s = 0; s < b->nsizes; s++) {
                sk_atoms_row *rw = &b->rows[b->nrows++];
                memset(rw, 0, sizeof *rw);
                snprintf(rw->format, sizeof rw->format, "%s", b->formats[f]);
                snprintf(rw->op, sizeof rw->op, "%s", w ? "write" : "read");
                rw->atoms = b->sizes[s];
            }
}

/* Every peer cell left empty says why: not asked, not run (the reason is
 * the peer's note), or not something the peer does. */
static void name_gaps(sk_atoms_bench *b)
{
    for (int i = 0; i < b->nrows; i++) {
        sk_atoms_row *rw = &b->rows[i];
        sk_atoms_time *t[2] = {&rw->ase, &rw->lammps};
        int asked[2] = {b->peers & SKB_PEER_ASE, b->peers & SKB_PEER_LAMMPS};
        int ran[2] = {b->ase_version[0] != 0, b->lammps_version[0] != 0};
        int lammps_does = (!strcmp(rw->format, "data")) ||
                          (!strcmp(rw->format, "dump") && !strcmp(rw->op, "write"));
        for (int p = 0; p < 2; p++) {
            if (t[p]->ok || t[p]->note[0])
                continue;
            const char *why = !asked[p] ? "not asked"
                              : p == 1 && !lammps_does
                                  ? (strcmp(rw->format, "extxyz") ? "not timed: LAMMPS's read_dump "
                                                                    "needs a system defined first"
                                                                  : "LAMMPS has no extended XYZ "
                                                                    "reader or writer")
                              : !ran[p] ? "not run (see the peer's note)"
                                        : "no result";
            snprintf(t[p]->note, sizeof t[p]->note, "%s", why);
        }
    }
}

static void remove_inputs(const atoms_run *r)
{
    for (int s = 0; s < r->b->nsizes; s++)
        for (int k = 0; k < 3; k++) {
            char path[4096];
            input_path(r, r->b->sizes[s], k, path, sizeof path);
            unlink(path);
        }
}

int sk_bench_atoms(const sk_atoms_bench_options *opt, sk_atoms_bench *out, sk_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opt->work || !opt->work[0])
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "bench atoms needs a folder to work in");
    int rc = parse_formats(opt->formats, out, err);
    if (rc != SK_OK)
        return rc;
    out->nsizes = opt->sizes ? opt->nsizes : 4;
    if (out->nsizes < 1 || out->nsizes > SK_ATOMS_MAX_SIZES)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "1 to %d sizes, not %d", SK_ATOMS_MAX_SIZES,
                       out->nsizes);
    memcpy(out->sizes, opt->sizes ? opt->sizes : k_default_sizes, (size_t)out->nsizes * sizeof *out->sizes);
    for (int s = 0; s < out->nsizes; s++)
        if (skb_cu_cells(out->sizes[s]) < 1)
            return sk_fail(err, SK_ERR_ARG, NULL, -1, "%lld atoms is not 4 n^3",
                           (long long)out->sizes[s]);
    out->runs = opt->runs > 0 ? opt->runs : 3;
    if (out->runs > 256)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "at most 256 runs, not %d", out->runs);
    sk_thread_budget budget;
    out->threads = sk_thread_budget_get(opt->threads, &budget);
    out->peers = opt->peers;
    int made = mkdir(opt->work, 0777) == 0;
    if (!made && errno != EEXIST)
        return sk_fail_errno(err, opt->work, errno, "cannot create the work folder");
    plan_rows(out);
    atoms_run r = {.opt = opt, .b = out,
                   .aopt = {.threads = out->threads, .no_fsync = 1}};
    int npeers = !!(opt->peers & SKB_PEER_ASE) + !!(opt->peers & SKB_PEER_LAMMPS);
    r.total = (int64_t)out->nsizes * (2 * out->nformats + npeers);
    for (int s = 0; s < out->nsizes && rc == SK_OK; s++) {
        rc = snapkit_size(&r, out->sizes[s], err);
        if (rc == SK_OK && (opt->peers & SKB_PEER_ASE))
            ase_size(&r, out->sizes[s]);
        if (rc == SK_OK && (opt->peers & SKB_PEER_LAMMPS))
            lammps_size(&r, out->sizes[s]);
    }
    name_gaps(out);
    if (!opt->keep_inputs)
        remove_inputs(&r);
    if (made && !opt->keep_inputs)
        rmdir(opt->work); /* fails, harmlessly, when someone else put a file there */
    return rc;
}

double sk_atoms_ratio(const sk_atoms_time *peer, const sk_atoms_time *snapkit)
{
    if (!peer->ok || !snapkit->ok || !(snapkit->seconds > 0))
        return NAN;
    return peer->seconds / snapkit->seconds;
}
