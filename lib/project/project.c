/* sk_project: set up a job from a table and options, scan the selection,
 * place the image, run the threaded pass, and turn the sums into maps. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "project_internal.h"
#include "snapkit/memory.h"
#include "mpi/collectives.h"
#include "snapkit/threads.h"

#define SMALL_JOB_ROWS 20000

static const int32_t *int32_column(const sk_table *t, const char *name)
{
    const sk_column *c = sk_table_find(t, name);
    return c && c->type == SK_INT32 ? c->data : NULL;
}

static int setup_cells(proj_job *job, sk_error *err)
{
    const sk_table *t = job->table;
    job->level = int32_column(t, "level");
    job->cx = int32_column(t, "cx");
    job->cy = int32_column(t, "cy");
    job->cz = int32_column(t, "cz");
    job->ndim = job->cz ? 3 : job->cy ? 2 : 1;
    if (!job->level || !job->cx || (!job->cy && sk_table_find(t, "cy")) ||
        (!job->cz && sk_table_find(t, "cz")) || (job->cz && !job->cy))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "cell tables need int32 columns level, cx, cy and cz (cz absent: 2-D; "
                       "cy and cz absent: 1-D)");
    for (int l = 0; l <= PROJ_MAX_LEVEL; l++) {
        job->inv_2l[l] = ldexp(1.0, -l);
        job->cell_size[l] = job->boxlen * job->inv_2l[l];
    }
    return SK_OK;
}

static int setup_particles(proj_job *job, const sk_project_options *opt, sk_error *err)
{
    static const char *const names[3] = {"position_x", "position_y", "position_z"};
    for (int k = 0; k < 3; k++) {
        const sk_column *c = sk_table_find(job->table, names[k]);
        if (!c || c->type != SK_FLOAT64)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "particle tables need float64 columns position_x, position_y and "
                           "position_z");
        job->pos[k] = c->data;
    }
    if (!opt->has_family)
        return SK_OK;
    const sk_column *fam = sk_table_find(job->table, "family");
    if (!fam)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "a family was asked for but the particles have no family column");
    int32_t *copy = sk_malloc((size_t)job->nrows * sizeof *copy + 1);
    if (!copy)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int64_t i = 0; i < job->nrows; i++)
        copy[i] = (int32_t)sk_column_get_double(fam, i);
    job->owned[job->nowned++] = copy;
    job->family = copy;
    job->want_family = opt->family;
    return SK_OK;
}

static int resolve_kernel(proj_job *job, const sk_project_options *opt, sk_error *err)
{
    sk_proj_kernel k = opt->kernel;
    if (!job->is_cells) {
        if (k == SK_KERNEL_EXACT || k == SK_KERNEL_OVERLAP)
            return sk_fail(err, SK_ERR_ARG, NULL, -1,
                           "particles are points: use the cic or ngp kernel");
        job->kernel = k == SK_KERNEL_NGP ? SK_KERNEL_NGP : SK_KERNEL_CIC;
    } else if (k == SK_KERNEL_AUTO) {
        job->kernel = opt->has_direction ? SK_KERNEL_OVERLAP : SK_KERNEL_EXACT;
    } else {
        job->kernel = k;
    }
    job->overlap_max = opt->overlap_max > 0 ? opt->overlap_max : 64;
    return SK_OK;
}

int proj_setup(proj_job *job, const sk_table *table, int nq, const char *const *quantities,
               const sk_project_options *opt, sk_error *err)
{
    job->table = table;
    job->nrows = sk_table_nrows(table);
    sk_thread_budget budget;
    job->threads = sk_thread_budget_get(opt->threads, &budget);
    /* A projection that takes well under a millisecond costs less than
     * waking a second thread, which on a busy node may wait a whole time
     * slice at every barrier. */
    if (job->nrows < SMALL_JOB_ROWS)
        job->threads = 1;
    sk_units_from_table(&job->units, table);
    job->boxlen = job->units.boxlen;
    if (!(job->boxlen > 0) || !isfinite(job->boxlen))
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the table's boxlen is not a positive number");
    job->tfactor = sk_temperature_factor(&job->units, opt->mu);
    job->weight_volume = opt->weight_volume;
    job->mode_sum = opt->mode_sum;
    job->is_cells = sk_table_find(table, "level") != NULL;
    job->clip = opt->clip && job->is_cells;
    if (!job->is_cells && !sk_table_find(table, "position_x"))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "the table is neither cells (level, cx, cy, cz) nor particles "
                       "(position_x, position_y, position_z)");
    if (job->is_cells && opt->has_family)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "a family filter applies to particles only");
    int rc = job->is_cells ? setup_cells(job, err) : setup_particles(job, opt, err);
    if (rc == SK_OK)
        rc = resolve_kernel(job, opt, err);
    if (rc == SK_OK)
        rc = proj_quantities_resolve(job, nq, quantities, opt, err);
    if (rc == SK_OK)
        rc = proj_units_apply(job, opt->units, err);
    if (rc == SK_OK)
        rc = proj_orient(job, opt, err);
    return rc;
}

/* Which rows are selected, their finest level and their mass; also checks
 * every level is usable. */
static void scan(const proj_job *job, proj_scan *out)
{
    int64_t selected = 0, bad = -1;
    int max_level = 0, min_level = PROJ_MAX_LEVEL;
    double mass = 0;
    const double *m = job->mass_src;
#pragma omp parallel for schedule(static) num_threads(job->threads) \
    reduction(+ : selected, mass) reduction(max : max_level, bad) reduction(min : min_level)
    for (int64_t r = 0; r < job->nrows; r++) {
        if (job->is_cells && (job->level[r] < 0 || job->level[r] > PROJ_MAX_LEVEL)) {
            bad = r > bad ? r : bad;
            continue;
        }
        proj_item it;
        if (!proj_item_of(job, r, &it))
            continue;
        selected++;
        if (job->is_cells && job->level[r] > max_level)
            max_level = job->level[r];
        if (job->is_cells && job->level[r] < min_level)
            min_level = job->level[r];
        if (m)
            mass += m[r] * it.total;
    }
    out->rows = job->nrows;
    out->selected = selected;
    out->max_level = max_level;
    out->min_level = min_level;
    out->mass = m ? mass : NAN;
    out->bad_row = bad;
}

static int empty_selection(const proj_job *job, int64_t rows, sk_error *err)
{
    const proj_frame *f = &job->f;
    char los[96] = "";
    if (f->has_w)
        snprintf(los, sizeof los, ", line of sight [%g, %g) code lengths from the centre",
                 f->w_lo, f->w_hi);
    return sk_fail(err, SK_ERR_EMPTY, NULL, -1,
                   "the selection holds none of the table's %lld %s (region x [%g, %g), "
                   "y [%g, %g), z [%g, %g) in box units%s%s)",
                   (long long)rows, job->is_cells ? "cells" : "particles", f->sel_lo[0],
                   f->sel_hi[0], f->sel_lo[1], f->sel_hi[1], f->sel_lo[2], f->sel_hi[2], los,
                   job->family ? ", family filter" : "");
}

static const char *human_bytes(double b, char *buf, size_t n)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    int u = 0;
    while (b >= 1000.0 && u < 6) {
        b /= 1000.0;
        u++;
    }
    snprintf(buf, n, "%.1f %s", b, units[u]);
    return buf;
}

int proj_check_budget(const proj_job *job, const sk_project_options *opt, sk_error *err)
{
    double need = proj_image_bytes(job, job->nq);
    if (need <= (double)opt->memory_budget)
        return SK_OK;
    char a[32], b[32];
    return sk_fail(err, SK_ERR_RANGE, NULL, -1,
                   "a %d x %d map of %d quantit%s needs %s, more than the memory budget of %s; "
                   "lower the resolution, use a larger pixel or a smaller region, or raise the "
                   "budget", job->f.nx, job->f.ny, job->nq, job->nq == 1 ? "y" : "ies",
                   human_bytes(need, a, sizeof a), human_bytes((double)opt->memory_budget, b,
                                                                sizeof b));
}

/* The length unit to show the maps in (sk_maps_info.length_unit). */
void proj_choose_length_unit(const sk_project_options *opt, const sk_maps_info *in,
                               char *out, size_t n)
{
    static const struct {
        const char *name;
        double cm;
    } k_units[] = {{"Mpc", SK_CM_PER_MPC}, {"kpc", SK_CM_PER_KPC}, {"pc", SK_CM_PER_PC},
                   {"au", SK_CM_PER_AU},   {"km", SK_CM_PER_KM},   {"m", SK_CM_PER_M},
                   {"cm", 1.0}};
    const char *given[] = {opt->region.unit, opt->pixel_unit};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof k_units / sizeof k_units[0]; i++)
            if (strcmp(given[k], k_units[i].name) == 0) {
                snprintf(out, n, "%s", k_units[i].name);
                return;
            }
    double width_cm = fmax(in->extent[1] - in->extent[0], in->extent[3] - in->extent[2]) *
                      in->unit_l;
    size_t i = 0;
    while (i + 1 < sizeof k_units / sizeof k_units[0] && !(width_cm >= k_units[i].cm))
        i++;
    snprintf(out, n, "%s", k_units[i].name);
}

void proj_fill_info(const proj_job *job, const sk_project_options *opt, const proj_scan *s,
                      sk_maps_info *in)
{
    const proj_frame *f = &job->f;
    static const char *const kernels[] = {"auto", "exact", "overlap", "cic", "ngp"};
    in->axis = f->axis;
    memcpy(in->los, f->los, sizeof in->los);
    memcpy(in->right, f->right, sizeof in->right);
    memcpy(in->up, f->up, sizeof in->up);
    memcpy(in->center, f->center, sizeof in->center);
    in->extent[0] = f->u0;
    in->extent[1] = f->u0 + f->nx * f->pixel;
    in->extent[2] = f->v0;
    in->extent[3] = f->v0 + f->ny * f->pixel;
    in->pixel_size = f->pixel;
    in->pixel_size_cm = f->pixel * job->units.unit_l;
    in->time = sk_table_meta_double(job->table, "time", NAN);
    in->unit_l = job->units.unit_l;
    in->unit_t = job->units.unit_t;
    in->rows = s->rows;
    in->selected = s->selected;
    in->selected_mass = s->mass;
    int area = job->is_cells && f->axis >= 0 &&
               (job->kernel == SK_KERNEL_EXACT || job->kernel == SK_KERNEL_OVERLAP);
    snprintf(in->kernel, sizeof in->kernel, "%s", area ? "area" : kernels[job->kernel]);
    snprintf(in->weight, sizeof in->weight, "%s", job->weight_volume ? "volume" : "mass");
    snprintf(in->mode, sizeof in->mode, "%s", job->mode_sum ? "sum" : "mean");
    snprintf(in->kind, sizeof in->kind, "%s", job->is_cells ? "cells" : "particles");
    proj_choose_length_unit(opt, in, in->length_unit, sizeof in->length_unit);
}

static int data_lmax(const proj_job *job, const proj_scan *s, sk_error *err, int *lmax)
{
    if (job->is_cells) {
        *lmax = s->max_level;
        return SK_OK;
    }
    double l = sk_table_meta_double(job->table, "levelmax", NAN);
    if (!(l >= 0 && l <= PROJ_MAX_LEVEL))
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "particles: give res or pixel (the table has no levelmax for the default)");
    *lmax = (int)l;
    return SK_OK;
}

/* Under MPI (sk_project_ranks) every rank scanned its share: the rows,
 * selection, level range and mass of all of them, on every rank, so that
 * each places the same image and plans the same blocks. */
static int scan_reduce(proj_scan *s, sk_error *err)
{
    int64_t counts[2] = {s->rows, s->selected};
    double levels[2] = {s->max_level, -s->min_level}, mass = s->mass;
    int rc = sk_mpi_sum_int64(counts, 2, err);
    if (rc == SK_OK)
        rc = sk_mpi_max_double(levels, 2, err);
    if (rc == SK_OK)
        rc = sk_mpi_sum_double_tree(&mass, 1, 1, err);
    s->rows = counts[0];
    s->selected = counts[1];
    s->max_level = (int)levels[0];
    s->min_level = (int)-levels[1];
    s->mass = mass;
    return rc;
}

/* The image placed and the accumulators planned from the (whole) scan. */
static int plan(proj_job *job, const sk_project_options *opt, const proj_scan *s,
                sk_error *err)
{
    if (s->selected == 0)
        return empty_selection(job, s->rows, err);
    int lmax = 0, rc = SK_OK;
    if (opt->res <= 0 && !(opt->pixel > 0))
        rc = data_lmax(job, s, err, &lmax);
    if (rc == SK_OK)
        rc = proj_place_grid(job, opt, lmax, err);
    if (rc == SK_OK)
        rc = proj_check_budget(job, opt, err);
    if (rc == SK_OK && job->is_cells && job->f.axis < 0 && job->kernel == SK_KERNEL_OVERLAP)
        rc = proj_stamps_make(job, s->min_level, s->max_level, err);
    if (rc == SK_OK)
        job->nblk = proj_blocks_plan(job, s->min_level, s->max_level);
    return rc;
}

/* Under MPI: every rank's accumulators summed on rank 0 (on all ranks
 * with ranks->all) in a fixed order, and the counts of the run. */
static int run_reduce(const proj_job *job, double *acc, sk_maps_info *info, int all,
                      sk_error *err)
{
    int64_t deposited = info->deposited;
    int rc = sk_mpi_sum_int64(&deposited, 1, err);
    info->deposited = deposited;
    size_t n = (size_t)job->f.nx * (size_t)job->f.ny * (size_t)job->nacc;
    return rc == SK_OK ? sk_mpi_sum_double_tree(acc, n, all, err) : rc;
}

/* ranks: NULL for one process; else this rank and whether every rank
 * wants the maps. *finished is 0 on a rank that gets none. */
typedef struct proj_ranks {
    int rank, all;
} proj_ranks;

static int project_job(proj_job *job, const sk_project_options *opt, const proj_ranks *ranks,
                       sk_maps *maps, int *finished, sk_error *err)
{
    proj_scan s;
    scan(job, &s);
    int rc = SK_OK;
    if (s.bad_row >= 0)
        rc = sk_fail(err, SK_ERR_ARG, NULL, -1, "row %lld has level %d, outside 0..%d",
                     (long long)s.bad_row, job->level[s.bad_row], PROJ_MAX_LEVEL);
    if (ranks)
        rc = sk_mpi_agree(rc, err);
    if (ranks && rc == SK_OK)
        rc = scan_reduce(&s, err);
    if (rc == SK_OK)
        rc = plan(job, opt, &s, err);
    double *acc = NULL;
    if (rc == SK_OK)
        rc = proj_run(job, opt, &acc, &maps->info, err);
    if (ranks)
        rc = sk_mpi_agree(rc, err);
    if (ranks && rc == SK_OK)
        rc = run_reduce(job, acc, &maps->info, ranks->all, err);
    *finished = !ranks || ranks->rank == 0 || ranks->all;
    if (rc == SK_OK && *finished)
        rc = proj_maps_finish(job, &acc, maps, err);
    sk_free(acc);
    if (rc == SK_OK)
        proj_fill_info(job, opt, &s, &maps->info);
    return rc;
}

void proj_job_free(proj_job *job)
{
    for (int i = 0; job && i < job->nowned; i++)
        sk_free(job->owned[i]);
    if (job)
        proj_stamps_free(job);
    sk_free(job);
}

static int project(const sk_table *table, int nq, const char *const *quantities,
                   const sk_project_options *opt, const proj_ranks *ranks, sk_maps **out,
                   sk_error *err)
{
    double start = omp_get_wtime();
    *out = NULL;
    sk_project_options defaults;
    if (!opt) {
        sk_project_options_init(&defaults);
        opt = &defaults;
    }
    int rc = table ? SK_OK : sk_fail(err, SK_ERR_ARG, NULL, -1, "no table to project");
    proj_job *job = sk_calloc(1, sizeof *job);
    sk_maps *maps = sk_calloc(1, sizeof *maps);
    if (rc == SK_OK && (!job || !maps))
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK)
        rc = proj_setup(job, table, nq, quantities, opt, err);
    int finished = 0;
    /* Under MPI every rank makes the same agreements, whatever failed: one
     * here, two in project_job, one at the end. */
    if (ranks)
        rc = sk_mpi_agree(rc, err);
    int agreed = rc == SK_OK;
    if (rc == SK_OK)
        rc = project_job(job, opt, ranks, maps, &finished, err);
    proj_job_free(job);
    if (ranks && agreed) /* the same status on every rank (rank 0 alone finished) */
        rc = sk_mpi_agree(rc, err);
    if (rc != SK_OK || !finished) {
        sk_maps_free(maps);
        return rc;
    }
    maps->info.seconds = omp_get_wtime() - start;
    *out = maps;
    return SK_OK;
}

int sk_project(const sk_table *table, int nq, const char *const *quantities,
               const sk_project_options *opt, sk_maps **out, sk_error *err)
{
    return project(table, nq, quantities, opt, NULL, out, err);
}

int sk_project_ranks(const sk_table *table, int nq, const char *const *quantities,
                     const sk_project_options *opt, int all, sk_maps **out, sk_error *err)
{
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size == 1)
        return project(table, nq, quantities, opt, NULL, out, err);
    proj_ranks ranks = {w.rank, all};
    return project(table, nq, quantities, opt, &ranks, out, err);
}
