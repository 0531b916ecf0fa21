/* bench atoms' generator and checker: the fcc counts, every atom inside
 * the box and within 0.1 A of its own site, ids and sites distinct; the
 * check accepts the generator's frame (and its round trip through every
 * format) and refuses a frame one bit, one type, one atom or one box edge
 * away; the size and peer lists; the stage's JSON read back to the same
 * JSON; the report's panels for the atoms stage and the projection grid. */
#include "check.h"
#include "bench/atoms.h"
#include "snapkit/util/json.h"
#include "bench/project_grid.h"
#include "figure/figure.h"
#include "snapkit/memory.h"

static void test_cells(void)
{
    CHECK_EQ_INT(skb_cu_cells(4), 1);
    CHECK_EQ_INT(skb_cu_cells(32), 2);
    CHECK_EQ_INT(skb_cu_cells(500), 5);
    CHECK_EQ_INT(skb_cu_cells(2048000), 80);
    CHECK_EQ_INT(skb_cu_cells(1000), -1);
    CHECK_EQ_INT(skb_cu_cells(0), -1);
    CHECK_EQ_INT(skb_cu_cells(-32), -1);
    CHECK_EQ_INT(skb_cu_cells(4 * 27 + 4), -1);
    CHECK(skb_cu_box(10) == 10 * 3.615); /* LAMMPS's 36.150000000000006 */
}

/* Every atom in [0, L), within 0.1 A (periodically) of the fcc site its
 * id names, no two on one site, and the same numbers on a second call. */
static void test_atoms(void)
{
    const int n = 5;
    const int64_t atoms = 4 * n * n * n;
    double box = skb_cu_box(n), half = 3.615 / 2, largest = 0;
    static char taken[2 * 5][2 * 5][2 * 5];
    memset(taken, 0, sizeof taken);
    int inside = 1, near = 1, distinct = 1, same = 1;
    for (int64_t id = 1; id <= atoms; id++) {
        double p[3], q[3];
        skb_cu_atom(n, id, p);
        skb_cu_atom(n, id, q);
        same &= memcmp(p, q, sizeof p) == 0;
        int s[3];
        for (int k = 0; k < 3; k++) {
            inside &= p[k] >= 0 && p[k] < box;
            s[k] = (int)lround(p[k] / half) % (2 * n);
            double d = fabs(remainder(p[k] - s[k] * half, box));
            near &= d <= 0.1;
            largest = fmax(largest, d);
        }
        distinct &= !taken[s[0]][s[1]][s[2]];
        taken[s[0]][s[1]][s[2]] = 1;
        /* the site of id - 1 = ((k n + j) n + i) 4 + b */
        int64_t cell = (id - 1) / 4;
        near &= s[0] / 2 == cell % n && s[1] / 2 == (cell / n) % n && s[2] / 2 == cell / (n * n);
    }
    CHECK(inside);
    CHECK(near);
    CHECK(distinct);
    CHECK(same);
    CHECK_MSG(largest > 0.095, "largest displacement %g: not up to 0.1", largest);
}

static void test_check(void)
{
    sk_table *t = NULL, *xyz = NULL;
    sk_error err;
    double worst;
    CHECK_OK(skb_cu_table(500, 0, &t, &err), &err);
    CHECK_OK(skb_cu_table(500, 1, &xyz, &err), &err);
    sk_table *none = NULL;
    CHECK_EQ_INT(skb_cu_table(1000, 0, &none, &err), SK_ERR_ARG);
    CHECK(none == NULL);
    if (!t || !xyz)
        return;
    CHECK_OK(skb_cu_check(t, 500, 0, "t", &worst, &err), &err);
    CHECK(worst == 0);
    CHECK_OK(skb_cu_check(xyz, 500, 0, "xyz", &worst, &err), &err);
    CHECK_EQ_INT(skb_cu_check(t, 4000, 0, "t", &worst, &err), SK_ERR_FORMAT);
    /* one bit of one coordinate */
    double *y = sk_table_find(t, "y")->data;
    double keep = y[321];
    y[321] = nextafter(y[321], 1e9);
    CHECK_EQ_INT(skb_cu_check(t, 500, 0, "t", &worst, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "atom 322 is at");
    CHECK_OK(skb_cu_check(t, 500, 1e-12, "t", &worst, &err), &err);
    CHECK(worst > 0 && worst < 1e-14);
    y[321] = NAN;
    CHECK_EQ_INT(skb_cu_check(t, 500, 1, "t", &worst, &err), SK_ERR_FORMAT);
    y[321] = keep;
    /* a type, an id */
    int32_t *type = sk_table_find(t, "type")->data;
    type[7] = 2;
    CHECK_EQ_INT(skb_cu_check(t, 500, 0, "t", &worst, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "atom 8:");
    type[7] = 1;
    int64_t *id = sk_table_find(t, "id")->data;
    id[0] = 2, id[1] = 1;
    CHECK_EQ_INT(skb_cu_check(t, 500, 0, "t", &worst, &err), SK_ERR_FORMAT);
    id[0] = 1, id[1] = 2;
    /* the box */
    sk_box b;
    CHECK_OK(sk_atoms_get_box(t, &b, &err), &err);
    b.c[2] = nextafter(b.c[2], 0);
    sk_atoms_set_box(t, &b);
    CHECK_EQ_INT(skb_cu_check(t, 500, 0, "t", &worst, &err), SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "box c[2]");
    sk_table_free(t);
    /* one atom short */
    CHECK_OK(skb_cu_table(32, 0, &t, &err), &err);
    CHECK_OK(sk_table_truncate(t, 31, &err), &err);
    CHECK_EQ_INT(skb_cu_check(t, 32, 0, "t", &worst, &err), SK_ERR_FORMAT);
    sk_table_free(t);
    /* Each format written and read back by snapkit is the generator's. */
    char dir[] = "/tmp/test_bench_atoms_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_OK(skb_cu_table(500, 0, &t, &err), &err);
    static const char *const ext[3] = {"dump", "data", "extxyz"};
    for (int k = 0; k < 3 && t; k++) {
        char path[256];
        snprintf(path, sizeof path, "%s/cu.%s", dir, ext[k]);
        CHECK_OK(sk_atoms_write(path, k == 2 ? xyz : t, SK_ATOMS_DUMP + k, NULL, &err), &err);
        CHECK_OK(skb_atoms_check_file(path, SK_ATOMS_DUMP + k, 500, 0, &worst, &err), &err);
        CHECK_EQ_INT(skb_atoms_check_file(path, SK_ATOMS_DUMP + k, 32, 0, &worst, &err), SK_ERR_FORMAT);
        unlink(path);
    }
    rmdir(dir);
    sk_table_free(t);
    sk_table_free(xyz);
}

static void test_lists(void)
{
    int64_t s[SK_ATOMS_MAX_SIZES];
    int n, peers;
    sk_error err;
    CHECK_OK(sk_atoms_parse_sizes("32000,32,4000,32", s, &n, &err), &err);
    CHECK(n == 3 && s[0] == 32 && s[1] == 4000 && s[2] == 32000);
    CHECK_EQ_INT(sk_atoms_parse_sizes("32,33", s, &n, &err), SK_ERR_ARG);
    CHECK_CONTAINS(err.message, "33 is not 4 n^3");
    CHECK_EQ_INT(sk_atoms_parse_sizes("32,", s, &n, &err), SK_OK);
    CHECK_EQ_INT(sk_atoms_parse_sizes("", s, &n, &err), SK_ERR_ARG);
    CHECK_EQ_INT(sk_atoms_parse_sizes("4,32,108,256,500,864,1372,2048,2916", s, &n, &err), SK_ERR_ARG);
    CHECK_OK(sk_atoms_parse_peers("lammps,ase", &peers, &err), &err);
    CHECK_EQ_INT(peers, SKB_PEER_ASE | SKB_PEER_LAMMPS);
    CHECK_OK(sk_atoms_parse_peers("none", &peers, &err), &err);
    CHECK_EQ_INT(peers, 0);
    CHECK_EQ_INT(sk_atoms_parse_peers("ovito", &peers, &err), SK_ERR_ARG);
}

/* A stage built by hand: its JSON read back gives the same JSON, its
 * ratios are peer / snapkit, and its panels appear in the report. */
static void test_json_and_panels(void)
{
    static sk_atoms_bench a, back;
    memset(&a, 0, sizeof a);
    a.threads = 2, a.runs = 3, a.peers = SKB_PEER_ASE | SKB_PEER_LAMMPS;
    snprintf(a.ase_version, sizeof a.ase_version, "3.22.1");
    snprintf(a.lammps_note, sizeof a.lammps_note, "not installed");
    a.nsizes = 2, a.sizes[0] = 32, a.sizes[1] = 500;
    a.nformats = 1;
    snprintf(a.formats[0], sizeof a.formats[0], "data");
    a.files_checked = 9, a.atoms_checked = 1234;
    for (int w = 0; w < 2; w++)
        for (int s = 0; s < 2; s++) {
            sk_atoms_row *r = &a.rows[a.nrows++];
            snprintf(r->format, sizeof r->format, "data");
            snprintf(r->op, sizeof r->op, "%s", w ? "write" : "read");
            r->atoms = a.sizes[s];
            r->file_bytes = 50 * r->atoms;
            r->snapkit = (sk_atoms_time){.ok = 1, .runs = 3, .seconds = 1e-3 * (s + 1),
                                         .seconds_min = 9e-4, .bytes_allocated = 4096};
            r->ase = (sk_atoms_time){.ok = 1, .runs = 3, .seconds = 0.02 * (s + 1),
                                     .seconds_min = 0.019, .peak_rss = 1 << 20};
            snprintf(r->lammps.note, sizeof r->lammps.note, "not run");
        }
    CHECK_CLOSE(sk_atoms_ratio(&a.rows[1].ase, &a.rows[1].snapkit), 20, 1e-12);
    CHECK(isnan(sk_atoms_ratio(&a.rows[1].lammps, &a.rows[1].snapkit)));
    sk_json j1, j2;
    sk_json_init(&j1, 0);
    sk_atoms_bench_json(&a, &j1);
    sk_json_value *v = NULL;
    sk_error err;
    CHECK_OK(sk_json_parse(sk_json_text(&j1), strlen(sk_json_text(&j1)), "a", &v, &err), &err);
    if (v)
        skb_atoms_from_json(v, &back);
    sk_json_value_free(v);
    sk_json_init(&j2, 0);
    sk_atoms_bench_json(&back, &j2);
    CHECK_EQ_STR(sk_json_text(&j1), sk_json_text(&j2));
    sk_json_free(&j1);
    sk_json_free(&j2);
    char *text = sk_atoms_bench_text(&a);
    CHECK(text && strstr(text, "LAMMPS  not run: not installed"));
    CHECK(text && strstr(text, "checked before timing: 9 files, 1234 atoms"));
    sk_free(text);

    sk_machine m;
    memset(&m, 0, sizeof m);
    sk_report r = {.machine = &m, .atoms = &a};
    sk_report_panel p[SK_REPORT_MAX_PANELS];
    double w, h;
    CHECK_EQ_INT(sk_report_layout(&r, p, &w, &h), 2);
    CHECK_EQ_STR(p[0].name, "atoms");
    CHECK_EQ_STR(p[1].name, "atoms_peers");
    for (int i = 0; i < a.nrows; i++)
        a.rows[i].ase.ok = 0;
    CHECK_EQ_INT(sk_report_layout(&r, p, &w, &h), 1); /* no peer bar to draw */
    char *png = NULL;
    size_t size = 0;
    CHECK_OK(sk_report_figure(&r, "svg", &png, &size, &err), &err);
    CHECK(size > 1000);
    sk_free(png);

    static sk_project_grid g;
    memset(&g, 0, sizeof g);
    g.nres = 2, g.res[0] = 64, g.res[1] = 128;
    for (int k = 0; k < 2; k++) {
        g.runs[k].ncases = 1;
        snprintf(g.runs[k].cases[0].name, sizeof g.runs[k].cases[0].name, "sd, axis z");
        sk_scaling *s = &g.runs[k].cases[0].scaling;
        s->npoints = 2;
        s->points[0] = (sk_sweep_point){.threads = 1, .runs = 1, .seconds = 2.0 * (k + 1), .speedup = 1};
        s->points[1] = (sk_sweep_point){.threads = 2, .runs = 1, .seconds = 1.0 * (k + 1), .speedup = 2};
        s->fastest = s->sweet_spot = 2;
        s->economical = 2;
    }
    sk_report rg = {.machine = &m, .project_grid = &g};
    CHECK_EQ_INT(sk_report_layout(&rg, p, &w, &h), 1);
    CHECK_EQ_STR(p[0].name, "project_grid");
    char *gt = sk_project_grid_text(&g);
    CHECK(gt && strstr(gt, "\n    128  sd, axis z                              2      2           2         2 s"
                           "    2.00x\n"));
    sk_free(gt);
}

int main(void)
{
    test_cells();
    test_atoms();
    test_check();
    test_lists();
    test_json_and_panels();
    skf_release(); /* the font caches the figure filled */
    return test_done();
}
