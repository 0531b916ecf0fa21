/* Octs per level of a whole output, from the amr files' headers only: what
 * a read would return can be sized before reading it. */
#include <string.h>

#include "formats/ramses/amr.h"
#include "formats/ramses/internal.h"
#include "formats/ramses/mapfile.h"

int sk_ramses_level_octs(const sk_ramses *r, int64_t *octs, sk_error *err)
{
    const sk_ramses_info *in = &r->info;
    memset(octs, 0, (size_t)in->levelmax * sizeof *octs);
    char path[4096];
    for (int icpu = 1; icpu <= in->ncpu; icpu++) {
        rs_mapped m;
        int rc = rs_map_cpu(r, RS_AMR, icpu, path, sizeof path, &m, err);
        rs_amr a;
        if (rc == SK_OK)
            rc = rs_amr_open(&a, path, m.data, m.size, in, icpu, err);
        /* File level l holds the octs of level l + level_shift. */
        for (int level = 1; rc == SK_OK && level + in->level_shift <= in->levelmax; level++)
            octs[level + in->level_shift - 1] += rs_amr_count(&a, level, icpu);
        rs_unmap(&m);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}
