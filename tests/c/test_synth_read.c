/* Synthetic outputs read back by snapkit's RAMSES reader give exactly the
 * generator's truth: rows and leaves per level equal, minima and maxima
 * equal, sums and volume sums within 1e-12 of the sums of magnitudes, for
 * hydro, gravity and particles, in both formats and over 1, 7 and 64 CPUs. */
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

/* The reader calls late-2017 variables by their current names. */
static void reader_name(const char *truth_name, char *out, size_t n)
{
    int k;
    if (strcmp(truth_name, "thermal_pressure") == 0)
        snprintf(out, n, "pressure");
    else if (sscanf(truth_name, "passive_scalar_%d", &k) == 1)
        snprintf(out, n, k == 1 ? "metallicity" : "scalar_%02d", k - 1);
    else
        snprintf(out, n, "%s", truth_name);
}

static const sk_column_stats *find(const sk_table_stats *s, const char *name)
{
    for (int i = 0; i < s->ncols; i++)
        if (strcmp(s->cols[i].name, name) == 0)
            return &s->cols[i];
    return NULL;
}

static void compare(const sk_synth_truth *t, const char *comp, const sk_table_stats *got)
{
    CHECK_EQ_INT(got->rows, sk_synth_truth_rows(t, comp));
    if (strcmp(comp, "particles") != 0)
        for (int l = 0; l <= SK_SYNTH_MAX_LEVEL; l++)
            CHECK_EQ_INT(got->levels[l], sk_synth_truth_level_rows(t, comp, l));
    for (int i = 0; i < sk_synth_truth_ncolumns(t, comp); i++) {
        const char *name = sk_synth_truth_column_name(t, comp, i);
        char mapped[64];
        reader_name(name, mapped, sizeof mapped);
        const sk_column_stats *c = find(got, mapped);
        CHECK_MSG(c != NULL, "%s: no column %s", comp, mapped);
        if (!c)
            continue;
        sk_synth_stats w;
        sk_error err;
        CHECK_OK(sk_synth_truth_column(t, comp, name, &w, &err), &err);
        CHECK_MSG(c->min == w.min && c->max == w.max, "%s.%s: min/max %.17g %.17g vs %.17g %.17g",
                  comp, name, c->min, c->max, w.min, w.max);
        CHECK_MSG(fabs(c->sum - w.sum) <= 1e-12 * w.abs_sum, "%s.%s: sum %.17g vs %.17g", comp,
                  name, c->sum, w.sum);
        if (strcmp(comp, "particles") != 0)
            CHECK_MSG(fabs(c->volume_sum - w.volume_sum) <= 1e-12 * w.abs_volume_sum,
                      "%s.%s: volume sum %.17g vs %.17g", comp, name, c->volume_sum, w.volume_sum);
    }
}

static void read_back(const char *dir, const sk_synth_options *o, const sk_synth_truth *t,
                      const sk_synth_report *rep)
{
    sk_ramses *r = NULL;
    sk_error err;
    int rc = sk_ramses_open(&r, dir, &err);
    CHECK_OK(rc, &err);
    if (rc)
        return;
    const sk_ramses_info *info = sk_ramses_get_info(r);
    CHECK_EQ_INT(info->format, o->format);
    CHECK_EQ_INT(info->ncpu, o->ncpu);
    CHECK_EQ_INT(info->nvar_hydro, o->nvar);
    const char *comps[] = {"hydro", "gravity", "particles"};
    for (int k = 0; k < 3; k++) {
        sk_table *tab = NULL;
        sk_read_stats rs;
        sk_read_options ro = {.threads = 2};
        rc = sk_ramses_read(r, comps[k], NULL, &ro, &tab, &rs, &err);
        CHECK_OK(rc, &err);
        if (rc)
            continue;
        CHECK_EQ_INT(rs.files_opened, o->ncpu);
        sk_table_stats st;
        CHECK_OK(sk_table_stats_compute(tab, 1, &st, &err), &err);
        compare(t, comps[k], &st);
        sk_table_stats_free(&st);
        sk_table_free(tab);
    }
    /* With refined cells: one more row per oct below level 1. */
    sk_table *tab = NULL;
    sk_read_options ro = {.threads = 1, .with_refined = 1};
    rc = sk_ramses_read(r, "hydro", NULL, &ro, &tab, NULL, &err);
    CHECK_OK(rc, &err);
    if (!rc)
        CHECK_EQ_INT(sk_table_nrows(tab), rep->leaves + rep->octs - 1);
    sk_table_free(tab);
    sk_ramses_close(r);
}

int main(void)
{
    const struct {
        int ncpu;
        sk_ramses_format format;
        sk_synth_refine refine;
        int nvar;
        double boxlen;
    } cases[] = {
        {1, SK_RAMSES_CURRENT, SK_SYNTH_SPHERE, 6, 1.0},
        {1, SK_RAMSES_2017, SK_SYNTH_RANDOM, 5, 1.0},
        {7, SK_RAMSES_2017, SK_SYNTH_CLUMPS, 8, 2.5},
        {7, SK_RAMSES_CURRENT, SK_SYNTH_RANDOM, 7, 1.0},
        {64, SK_RAMSES_CURRENT, SK_SYNTH_CLUMPS, 6, 0.5},
        {64, SK_RAMSES_2017, SK_SYNTH_SPHERE, 6, 1.0},
    };
    char tmp[64];
    CHECK(test_tmpdir(tmp, sizeof tmp) != NULL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[128];
        snprintf(dir, sizeof dir, "%s/output_%05zu", tmp, i + 1);
        sk_synth_options o;
        sk_synth_options_init(&o);
        o.ncpu = cases[i].ncpu;
        o.format = cases[i].format;
        o.refine = cases[i].refine;
        o.nvar = cases[i].nvar;
        o.boxlen = cases[i].boxlen;
        o.levelmin = 3;
        o.levelmax = 7;
        o.cells_target = 20000;
        o.npart = 4003;
        o.output = (int)i + 1;
        sk_synth_truth *t = NULL;
        sk_synth_report rep;
        sk_error err;
        int rc = sk_synth_write(dir, &o, &t, &rep, &err);
        CHECK_OK(rc, &err);
        if (!rc)
            read_back(dir, &o, t, &rep);
        sk_synth_truth_free(t);
        test_remove_tree(dir);
    }
    rmdir(tmp);
    return test_done();
}
