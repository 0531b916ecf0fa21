/* Which CPU files a selection needs (docs/ramses.md, "Which files a region
 * opens", has the RAMSES source lines behind both rules).
 *
 * Cells are read from the own lists of the files, and an oct's owner is
 * the CPU whose Hilbert domain holds the centre of its father cell. That
 * centre is within half a cell of each child's centre, so the box is
 * widened by half a cell of the coarsest level read before its CPUs are
 * looked up: the answer is conservative and, at the refinement used,
 * tight. Octs never straddle the box's faces, so cells need no wrap.
 *
 * Particles: a CPU's part file holds only particles that lie within the
 * 3x3x3 block of levelmin octs centred on a levelmin oct whose volume
 * meets the CPU's domain, across the periodic faces. So the box is grown
 * by one levelmin oct on each side, on the lattice of levelmin octs
 * (exact integer arithmetic), wrapped, and the CPUs of the octs it covers
 * are looked up.
 *
 * Shapes: the look-up walks the Hilbert cubes of the box (the shape's
 * bounding box, or the whole box when it wraps or is inverted) and drops
 * each cube whose reach (the cube grown by that half cell, or by one
 * levelmin oct for particles) sk_shape_box_test puts wholly outside the
 * selection: a sphere opens the files whose domains come within that
 * reach of it, an inverted one skips the files its inside covers. */
#include <math.h>
#include <string.h>

#include "formats/ramses/internal.h"
#include "core/hilbert.h"

/* How finely the box is resolved into key ranges. */
#define DOMAIN_LEVEL_MAX 12

int rs_lowest_level(const sk_ramses *r, const sk_selection *sel, const sk_read_options *opt)
{
    if (opt && opt->with_refined)
        return 1;
    int cap = (sel && sel->lmax > 0 && sel->lmax < r->info.levelmax) ? sel->lmax
                                                                      : r->info.levelmax;
    if (cap < r->info.level_shift + 1)
        cap = r->info.level_shift + 1; /* the coarsest level the files hold */
    return cap < r->info.levelmin ? cap : r->info.levelmin;
}

static int all_cpus(const sk_ramses *r, uint8_t *mask)
{
    memset(mask, 1, (size_t)r->info.ncpu);
    return r->info.ncpu;
}

/* Can the Hilbert domains narrow this selection down? A box of nx x ny x nz
 * coarse cells (nx = 2^k) has RAMSES's keys on 2^(levelmax + 1) points per
 * boxlen of the levels counted here (cmp_ordering: bscale = 2^(nlevelmax +
 * 1) / scale, scale = boxlen / nx), the keys of a one-cell box restricted
 * to [0, ny/nx) and [0, nz/nx) (tests/c/test_ramses_domains.c checks them
 * against cpu_map on a 2x2x2 and a 2x1x1 box). A y or z extent beyond
 * boxlen leaves the curve's grid: every file is opened. */
static int domains_usable(const sk_ramses *r, const sk_selection *sel)
{
    const sk_ramses_info *in = &r->info;
    int inside = 1;
    for (int d = 1; d < in->ndim; d++)
        inside &= in->coarse[d] <= in->coarse[0];
    return sel && sk_selection_has_region(sel) && strcmp(in->ordering, "hilbert") == 0 &&
           in->bound_key && in->levelmax + 1 <= 30 && inside;
}

/* Particles: the periodic wrap below is that of a cube; a box of other
 * shape opens every file. */
static int cubic(const sk_ramses *r)
{
    int same = 1;
    for (int d = 1; d < r->info.ndim; d++)
        same &= r->info.coarse[d] == r->info.coarse[0];
    return same;
}

/* A shape's test of a Hilbert cube (sk_hilbert_cube_test): the cube grown
 * by `margin` on the axes the output has; the axes it lacks sit at the
 * shape's centre, as the readers test rows. */
typedef struct shape_reach {
    const sk_shape *shape; /* NULL: no shape (the box alone) */
    int ndim;
    double margin;
} shape_reach;

static int reach_test(void *ctx, const double lo[3], const double hi[3])
{
    const shape_reach *s = ctx;
    double glo[3], ghi[3];
    for (int d = 0; d < 3; d++) {
        glo[d] = d < s->ndim ? lo[d] - s->margin : s->shape->center[d];
        ghi[d] = d < s->ndim ? hi[d] + s->margin : s->shape->center[d];
    }
    return sk_shape_box_test(s->shape, glo, ghi);
}

/* Mark the CPUs of [lo, hi) at `level` (max_level), within `reach`. */
static void mark_box(const sk_ramses *r, const double lo[3], const double hi[3], int level,
                     const shape_reach *reach, uint8_t *mask)
{
    const sk_ramses_info *in = &r->info;
    sk_hilbert_cpus_for_region_nd(in->ndim, lo, hi, in->levelmax + 1, in->bound_key,
                                  in->ndomain, in->ncpu, level,
                                  reach->shape ? reach_test : NULL, (void *)reach, mask);
}

static shape_reach reach_of(const sk_ramses *r, const sk_selection *sel, double margin)
{
    shape_reach s = {sel->shape.kind != SK_SHAPE_NONE ? &sel->shape : NULL, r->info.ndim,
                     margin};
    return s;
}

static int count_marked(const sk_ramses *r, const uint8_t *mask)
{
    int n = 0;
    for (int c = 0; c < r->info.ncpu; c++)
        n += mask[c] != 0;
    return n;
}

/* Cells: the box widened by `margin`, clipped to the box, marked into mask. */
static void mark_cells(const sk_ramses *r, const sk_selection *sel, double margin, uint8_t *mask)
{
    const sk_ramses_info *in = &r->info;
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        double extent = (double)in->coarse[d] / in->coarse[0]; /* the box, boxlen units */
        lo[d] = sel->lo[d] - margin;
        hi[d] = sel->hi[d] + margin < extent ? sel->hi[d] + margin : extent;
    }
    int level = in->levelmax + 1 < DOMAIN_LEVEL_MAX ? in->levelmax + 1 : DOMAIN_LEVEL_MAX;
    shape_reach reach = reach_of(r, sel, margin);
    mark_box(r, lo, hi, level, &reach, mask);
}

/* Particles: the levelmin octs (cells of level levelmin - 1, n per axis)
 * whose 3x3x3 block meets the box's part inside [0, 1), as up to two index
 * ranges per axis after the periodic wrap, and the shape; their CPUs
 * marked into mask. */
static void mark_particles(const sk_ramses *r, const sk_selection *sel, uint8_t *mask)
{
    const sk_ramses_info *in = &r->info;
    int olevel = in->levelmin - 1;
    double n = ldexp(1.0, olevel);
    double from[3][2], to[3][2];
    int parts[3];
    shape_reach reach = reach_of(r, sel, 1.0 / n);
    for (int d = 0; d < 3; d++) {
        double lo = sel->lo[d] > 0 ? sel->lo[d] : 0, hi = sel->hi[d] < 1 ? sel->hi[d] : 1;
        if (!(lo < hi))
            return; /* no particle lies outside [0, 1) */
        /* Octs i with i / n < hi + 1 / n and (i + 1) / n > lo - 1 / n. */
        double first = floor(lo * n) - 1, last = ceil(hi * n);
        parts[d] = 1;
        if (last - first + 1 >= n) {
            from[d][0] = 0;
            to[d][0] = n;
        } else if (first < 0) {
            from[d][0] = 0, to[d][0] = last + 1;
            from[d][1] = n - 1, to[d][1] = n;
            parts[d] = 2;
        } else if (last >= n) {
            from[d][0] = first, to[d][0] = n;
            from[d][1] = 0, to[d][1] = 1;
            parts[d] = 2;
        } else {
            from[d][0] = first;
            to[d][0] = last + 1;
        }
    }
    for (int i = 0; i < parts[0]; i++)
        for (int j = 0; j < parts[1]; j++)
            for (int k = 0; k < parts[2]; k++) {
                const int pick[3] = {i, j, k};
                double lo[3], hi[3];
                for (int d = 0; d < 3; d++) {
                    lo[d] = from[d][pick[d]] / n;
                    hi[d] = to[d][pick[d]] / n;
                }
                mark_box(r, lo, hi, olevel, &reach, mask);
            }
}

static double cell_margin(const sk_ramses *r, const sk_selection *sel, const sk_read_options *opt)
{
    return ldexp(1.0, -(rs_lowest_level(r, sel, opt) + 1));
}

int sk_ramses_cpus_for_component(const sk_ramses *r, const char *component,
                                 const sk_selection *sel, const sk_read_options *opt,
                                 uint8_t *cpu_mask)
{
    if (component && strcmp(component, "sinks") == 0) {
        /* One csv file, written by CPU 1. */
        memset(cpu_mask, 0, (size_t)r->info.ncpu);
        cpu_mask[0] = 1;
        return 1;
    }
    /* Clumps: a CPU's catalogue lists the clumps of its peaks, whose
     * cells may lie anywhere, so every file is read. */
    if (component && strcmp(component, "clumps") == 0)
        return all_cpus(r, cpu_mask);
    if (!domains_usable(r, sel))
        return all_cpus(r, cpu_mask);
    int particles = component && strcmp(component, "particles") == 0;
    if (particles && !cubic(r))
        return all_cpus(r, cpu_mask);
    memset(cpu_mask, 0, (size_t)r->info.ncpu);
    if (particles)
        mark_particles(r, sel, cpu_mask);
    else
        mark_cells(r, sel, cell_margin(r, sel, opt), cpu_mask);
    return count_marked(r, cpu_mask);
}

int sk_ramses_cpus_for(const sk_ramses *r, const sk_selection *sel, uint8_t *cpu_mask)
{
    /* Good for every component: the union of the cells' and particles'. */
    if (!domains_usable(r, sel) || !cubic(r))
        return all_cpus(r, cpu_mask);
    memset(cpu_mask, 0, (size_t)r->info.ncpu);
    mark_cells(r, sel, cell_margin(r, sel, NULL), cpu_mask);
    mark_particles(r, sel, cpu_mask);
    return count_marked(r, cpu_mask);
}
