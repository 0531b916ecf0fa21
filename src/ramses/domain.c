/* Which CPU files a selection needs.
 *
 * Cells are read from the own lists of the files, and an oct's owner is
 * the CPU whose Hilbert domain holds the centre of its father cell. That
 * centre is within half a cell of each child's centre, so the box is
 * widened by half a cell of the coarsest level read before its CPUs are
 * looked up: the answer is conservative and, at the refinement used,
 * tight. Particles hang in the finest oct holding them, whose father cell
 * (at level >= levelmin - 1) is at most 2^-levelmin away on each axis; the
 * box is widened by twice that for safety. */
#include <math.h>
#include <string.h>

#include "ramses/internal.h"
#include "snapkit/hilbert.h"

/* How finely the box is resolved into key ranges. */
#define DOMAIN_LEVEL_MAX 12

int rs_lowest_level(const sk_ramses *r, const sk_selection *sel, const sk_read_options *opt)
{
    if (opt && opt->with_refined)
        return 1;
    int cap = (sel && sel->lmax > 0 && sel->lmax < r->info.levelmax) ? sel->lmax
                                                                      : r->info.levelmax;
    return cap < r->info.levelmin ? cap : r->info.levelmin;
}

static int all_cpus(const sk_ramses *r, uint8_t *mask)
{
    memset(mask, 1, (size_t)r->info.ncpu);
    return r->info.ncpu;
}

static int cpus_for_margin(const sk_ramses *r, const sk_selection *sel, double margin,
                           uint8_t *mask)
{
    const sk_ramses_info *in = &r->info;
    if (!sel || !sel->has_box || strcmp(in->ordering, "hilbert") != 0 || !in->bound_key ||
        in->levelmax + 1 > 30)
        return all_cpus(r, mask);
    memset(mask, 0, (size_t)in->ncpu);
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = sel->lo[d] - margin;
        hi[d] = sel->hi[d] + margin;
    }
    int level = in->levelmax + 1 < DOMAIN_LEVEL_MAX ? in->levelmax + 1 : DOMAIN_LEVEL_MAX;
    return sk_hilbert_cpus_for_box(lo, hi, in->levelmax + 1, in->bound_key, in->ndomain,
                                   in->ncpu, level, mask);
}

int sk_ramses_cpus_for_component(const sk_ramses *r, const char *component,
                                 const sk_selection *sel, const sk_read_options *opt,
                                 uint8_t *cpu_mask)
{
    double margin;
    if (component && strcmp(component, "particles") == 0)
        margin = ldexp(1.0, -(r->info.levelmin - 1));
    else
        margin = ldexp(1.0, -(rs_lowest_level(r, sel, opt) + 1));
    return cpus_for_margin(r, sel, margin, cpu_mask);
}

int sk_ramses_cpus_for(const sk_ramses *r, const sk_selection *sel, uint8_t *cpu_mask)
{
    /* Good for every component: the widest of the margins. */
    double cells = ldexp(1.0, -(rs_lowest_level(r, sel, NULL) + 1));
    double particles = ldexp(1.0, -(r->info.levelmin - 1));
    return cpus_for_margin(r, sel, cells > particles ? cells : particles, cpu_mask);
}
