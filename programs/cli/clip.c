/* --clip: a read that keeps every cell meeting the region, not only those
 * centred in it, for a consumer that weights each by its part inside. */
#include <math.h>

#include "cli.h"

/* The coarsest level holding leaf cells: levelmin of the output (a
 * .snapkit file keeps the output's info in its metadata). */
static int coarsest_level(const sk_source *src, const char *component)
{
    if (sk_source_ramses(src))
        return sk_ramses_get_info(sk_source_ramses(src))->levelmin;
    sk_table *t = NULL;
    int level = 1;
    if (sk_store_describe(sk_source_store(src), component, &t, NULL) == SK_OK)
        level = (int)sk_table_meta_double(t, "levelmin", 1.0);
    sk_table_free(t);
    return level >= 1 ? level : 1;
}

int cli_clip_widen(const sk_source *src, const char *component, cli_selection *cs,
                   sk_error *err)
{
    sk_units u;
    double per_unit; /* box units per region unit */
    int rc = sk_source_units(src, component, &u, err);
    if (rc == SK_OK)
        rc = sk_box_units_per(&u, cs->region.unit, &per_unit, err);
    if (rc != SK_OK)
        return rc;
    /* A cell meeting [lo, hi) has its centre within half its size of it. */
    double margin = ldexp(0.5, -coarsest_level(src, component)) / per_unit;
    for (int a = 0; a < 3; a++)
        if (cs->region.has_range[a]) {
            cs->region.range[a][0] -= margin;
            cs->region.range[a][1] += margin;
        }
    return SK_OK;
}
