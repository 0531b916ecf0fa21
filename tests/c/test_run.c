/* sk_run_list: a run's outputs with their times and completeness, on runs
 * built from the fixtures (symbolic links to whole outputs, copies with a
 * file removed or cut short, a folder without an info file). */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"
#include "snapkit/run.h"
#include "snapkit/util/json.h"

static char g_tmp[1024];

static void sh(const char *fmt, const char *a, const char *b)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    CHECK_MSG(system(cmd) == 0, "%s", cmd);
}

/* The bytes of every regular file in dir, counted here. */
static int64_t folder_bytes(const char *dir, int64_t *files)
{
    DIR *d = opendir(dir);
    int64_t total = 0;
    *files = 0;
    char p[4096];
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            total += st.st_size;
            (*files)++;
        }
    }
    if (d)
        closedir(d);
    return total;
}

static void check_bytes(const sk_run_output *o)
{
    int64_t files, bytes = folder_bytes(o->path, &files);
    CHECK_EQ_INT(o->bytes, bytes);
    CHECK_EQ_INT(o->files, files);
}

/* Run A: sedov3d's output_00001 whole (a link), gravpart's output_00002
 * without one hydro file and with a particle file cut short. */
static void run_a(const char *data)
{
    char dir[1100], out[2048], src[2048];
    snprintf(dir, sizeof dir, "%s/runA", g_tmp);
    sh("mkdir -p '%s' && touch '%s/output_00009'", dir, dir); /* a file: not an output */
    sh("mkdir -p '%s/output_12' '%s/outputs'", dir, dir);     /* not output_NNNNN */
    snprintf(src, sizeof src, "%s/sedov3d/output_00001", data);
    sh("ln -s \"$(cd '%s' && pwd)\" '%s/output_00001'", src, dir);
    snprintf(src, sizeof src, "%s/gravpart/output_00002", data);
    sh("cp -r '%s' '%s/'", src, dir);
    snprintf(out, sizeof out, "%s/output_00002", dir);
    sh("rm '%s/hydro_00002.out00003' && truncate -s -5 '%s/part_00002.out00006'", out, out);

    CHECK(sk_run_is_run(dir));
    CHECK(!sk_run_is_run(out)); /* an output is not a run */
    sk_run_output *o;
    int n;
    sk_error err;
    int rc = sk_run_list(dir, &o, &n, &err);
    CHECK_OK(rc, &err);
    if (rc != SK_OK)
        return;
    CHECK_EQ_INT(n, 2);
    if (n != 2)
        return;
    CHECK_EQ_INT(o[0].output, 1);
    CHECK_EQ_INT(o[0].state, SK_RUN_COMPLETE);
    CHECK_EQ_STR(o[0].problem, "");
    CHECK_EQ_INT(o[0].ncpu, 8);
    CHECK_EQ_INT(o[0].time, 0.0);
    CHECK(isnan(o[0].time_myr)); /* unit_t = 1: code units */
    CHECK(isnan(o[0].redshift));
    check_bytes(&o[0]);

    CHECK_EQ_INT(o[1].output, 2);
    CHECK_EQ_INT(o[1].state, SK_RUN_MISSING);
    CHECK_EQ_INT(o[1].nmissing, 1);
    CHECK_EQ_INT(o[1].ntruncated, 1);
    CHECK_CONTAINS(o[1].problem, "hydro_00002.out00003 missing (and 1 more)");
    CHECK_EQ_INT(o[1].ncpu, 8); /* as info_00002.txt says */
    CHECK_EQ_INT(o[1].levelmin, 4);
    CHECK_EQ_INT(o[1].levelmax, 8);
    CHECK_EQ_INT(o[1].time, 0.106880837782148);
    check_bytes(&o[1]);

    sk_json j;
    sk_json_init(&j, 0);
    sk_run_json(dir, o, n, &j);
    CHECK_CONTAINS(sk_json_text(&j), "\"state\":\"missing\"");
    CHECK_CONTAINS(sk_json_text(&j), "\"complete\":1,\"incomplete\":1");
    CHECK_CONTAINS(sk_json_text(&j), "\"time_Myr\":null");
    sk_json_free(&j);
    sk_run_free(o, n);
}

/* Run B: coarse222's output_00001 with an amr file cut short, an empty
 * particle-less hydro file in tube1d's output_00002, output_00007 with no
 * info file. */
static void run_b(const char *data)
{
    char dir[1100], src[2048], out[2048];
    snprintf(dir, sizeof dir, "%s/runB", g_tmp);
    sh("mkdir -p '%s/output_00007' && touch '%s/output_00007/amr_00007.out00001'", dir, dir);
    snprintf(src, sizeof src, "%s/coarse222/output_00001", data);
    sh("cp -r '%s' '%s/'", src, dir);
    snprintf(out, sizeof out, "%s/output_00001", dir);
    sh("truncate -s -3 '%s/amr_00001.out00001'%s", out, "");
    snprintf(src, sizeof src, "%s/tube1d/output_00002", data);
    sh("cp -r '%s' '%s/'", src, dir);
    snprintf(out, sizeof out, "%s/output_00002", dir);
    sh(": > '%s/hydro_00002.out00001'%s", out, "");

    sk_run_output *o;
    int n;
    sk_error err;
    int rc = sk_run_list(dir, &o, &n, &err);
    CHECK_OK(rc, &err);
    if (rc != SK_OK)
        return;
    CHECK_EQ_INT(n, 3);
    if (n != 3)
        return;
    CHECK_EQ_INT(o[0].state, SK_RUN_TRUNCATED);
    CHECK_EQ_INT(o[0].nmissing, 0);
    CHECK_EQ_INT(o[0].ntruncated, 1);
    CHECK_CONTAINS(o[0].problem, "amr_00001.out00001 truncated");
    CHECK_EQ_INT(o[1].state, SK_RUN_TRUNCATED);
    CHECK_CONTAINS(o[1].problem, "hydro_00002.out00001 empty");
    CHECK_CLOSE(o[1].time, 0.245047235871965, 1e-15);
    CHECK_EQ_INT(o[2].output, 7);
    CHECK_EQ_INT(o[2].state, SK_RUN_UNREADABLE);
    CHECK_CONTAINS(o[2].problem, "info_00007.txt");
    CHECK_EQ_INT(o[2].ncpu, 0);
    check_bytes(&o[2]);
    sk_run_free(o, n);
}

static void bad_folders(void)
{
    char dir[2048];
    sk_run_output *o;
    int n;
    sk_error err;
    snprintf(dir, sizeof dir, "%s/empty", g_tmp);
    sh("mkdir -p '%s'%s", dir, "");
    CHECK(!sk_run_is_run(dir));
    CHECK_EQ_INT(sk_run_list(dir, &o, &n, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "no output_NNNNN folders");
    CHECK(o == NULL && n == 0);
    snprintf(dir, sizeof dir, "%s/nothing-here", g_tmp);
    CHECK_EQ_INT(sk_run_list(dir, &o, &n, &err), SK_ERR_IO);
    CHECK_CONTAINS(err.message, "nothing-here");
}

/* The shared fixtures: gravpart is a run of two whole outputs; a run of
 * sink3d (unit_t = 1 Myr) and cosmo32 (cosmological) has physical times. */
static void shared_runs(void)
{
    char gp[2048], sink[2048], cosmo[2048], dir[2048];
    if (!test_shared(gp, sizeof gp, "fixtures/ramses/gravpart") ||
        !test_shared(sink, sizeof sink, "fixtures/ramses/sink3d/output_00002") ||
        !test_shared(cosmo, sizeof cosmo, "fixtures/ramses/cosmo32/output_00003")) {
        test_skip_part("shared fixtures absent");
        return;
    }
    sk_run_output *o;
    int n;
    sk_error err;
    int rc = sk_run_list(gp, &o, &n, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(n, 2);
    for (int i = 0; rc == SK_OK && i < n; i++) {
        CHECK_EQ_INT(o[i].output, i + 1);
        CHECK_EQ_INT(o[i].state, SK_RUN_COMPLETE);
        check_bytes(&o[i]);
    }
    sk_run_free(o, n);

    snprintf(dir, sizeof dir, "%s/physical", g_tmp);
    sh("mkdir -p '%s'%s", dir, "");
    sh("ln -s \"$(cd '%s' && pwd)\" '%s/output_00003'", cosmo, dir);
    sh("ln -s \"$(cd '%s' && pwd)\" '%s/output_00002'", sink, dir);
    rc = sk_run_list(dir, &o, &n, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(n, 2);
    if (rc == SK_OK && n == 2) {
        CHECK_EQ_INT(o[0].state, SK_RUN_COMPLETE);
        CHECK(!o[0].cosmological);
        /* time x unit_t in Myr, from info_00002.txt's values */
        CHECK_CLOSE(o[0].time_myr, 0.100915830482912 * 0.315569260000000E+14 / 3.15576e13, 1e-14);
        CHECK_EQ_INT(o[1].state, SK_RUN_COMPLETE);
        CHECK(o[1].cosmological);
        CHECK_CLOSE(o[1].redshift, 1.0 / 0.200459532156101 - 1.0, 1e-14);
        CHECK_CLOSE(o[1].time, -0.398969388594152E+01, 1e-15);
        CHECK(o[1].time_myr > 1000 && o[1].time_myr < 2000); /* z = 4: about 1.5 Gyr */
    }
    sk_run_free(o, n);
}

int main(void)
{
    char data[1024];
    test_data(data, sizeof data, "ramses");
    CHECK(test_tmpdir(g_tmp, sizeof g_tmp) != NULL);
    run_a(data);
    run_b(data);
    bad_folders();
    shared_runs();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
    CHECK(system(cmd) == 0);
    return test_done();
}
