/* The sources a bench stage measures, behind one small interface. */
#include <stdio.h>
#include <string.h>

#include "bench/source.h"
#include "snapkit/bench.h"
#include "snapkit/memory.h"
#include "snapkit/units.h"

int sk_bench_source_open(sk_bench_source **out, const char *path, sk_error *err)
{
    *out = NULL;
    sk_bench_source *s = sk_calloc(1, sizeof *s);
    if (!s)
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    snprintf(s->path, sizeof s->path, "%s", path);
    int rc = sk_ramses_open(&s->ramses, path, err);
    if (rc != SK_OK) {
        sk_free(s);
        return rc;
    }
    *out = s;
    return SK_OK;
}

void sk_bench_source_close(sk_bench_source *s)
{
    if (!s)
        return;
    sk_ramses_close(s->ramses);
    sk_free(s);
}

int sk_bench_source_components(const sk_bench_source *s, const char **names)
{
    const sk_ramses_info *in = sk_ramses_get_info(s->ramses);
    int n = 0;
    if (in->has_hydro)
        names[n++] = "hydro";
    if (in->has_gravity)
        names[n++] = "gravity";
    if (in->has_particles)
        names[n++] = "particles";
    return n;
}

int sk_bench_source_select(const sk_bench_source *s, const sk_region_request *req, int lmax,
                           const char *vars, sk_selection *sel, sk_error *err)
{
    const sk_ramses_info *in = sk_ramses_get_info(s->ramses);
    sk_units u;
    sk_units_set(&u, in->boxlen, in->unit_l, in->unit_d, in->unit_t);
    sel->lmax = lmax;
    int rc = req ? sk_selection_set_region(sel, req, &u, err) : SK_OK;
    if (rc == SK_OK && vars && vars[0])
        rc = sk_selection_set_vars(sel, vars, err);
    return rc;
}

int sk_bench_source_read(sk_bench_source *s, const char *component, const sk_selection *sel,
                         int threads, sk_table **out, sk_read_stats *stats, sk_error *err)
{
    sk_read_options opt = {.threads = threads};
    sk_read_stats local;
    return sk_ramses_read(s->ramses, component, sel, &opt, out, stats ? stats : &local, err);
}

/* Files a component's read touches, for dropping them from the cache:
 * cells need the amr files besides their own. */
int skb_source_file_kinds(const char *component, const char **prefixes)
{
    int n = 0;
    if (strcmp(component, "hydro") == 0 || strcmp(component, "gravity") == 0)
        prefixes[n++] = "amr_";
    if (strcmp(component, "hydro") == 0)
        prefixes[n++] = "hydro_";
    else if (strcmp(component, "gravity") == 0)
        prefixes[n++] = "grav_";
    else if (strcmp(component, "particles") == 0)
        prefixes[n++] = "part_";
    return n;
}
