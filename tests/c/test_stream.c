/* Streams (snapkit/stream.h) and mergeable statistics (sk_stats_acc):
 * - the exact sums against values whose exact sums are known;
 * - the batches, in index order, are the whole read's rows, bit for bit
 *   (RAMSES outputs and .snapkit files, whole and with a region);
 * - statistics merged from per-thread accumulators of a stream have the
 *   bits of sk_table_stats_compute on the whole table, on 1 and 2 threads;
 * - the lowest failing batch's error wins, whatever the thread count;
 * - an ordered consumer gets the batches by index, each with its first
 *   row and the table's rows, and stops at a failure as the others do. */
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

/* ---- exact sums ---- */

static double exact_sum(const double *v, int n, int pieces)
{
    sk_table *t = sk_table_new(0);
    sk_table_meta_set(t, "kind", "rows");
    sk_error err;
    sk_table_add(t, "x", SK_FLOAT64, &err);
    sk_stats_acc *all;
    sk_stats_acc_new(t, &all, &err);
    /* Cut v into `pieces` batches, added last first into their own
     * accumulators, merged into one. */
    for (int p = pieces - 1; p >= 0; p--) {
        int a = n * p / pieces, b = n * (p + 1) / pieces;
        sk_table *bt = sk_table_new(b - a);
        double *x = sk_table_add(bt, "x", SK_FLOAT64, &err);
        memcpy(x, v + a, sizeof *v * (size_t)(b - a));
        sk_stats_acc *acc;
        sk_stats_acc_new(t, &acc, &err);
        CHECK_OK(sk_stats_acc_add(acc, bt, p, &err), &err);
        CHECK_OK(sk_stats_acc_merge(all, acc, &err), &err);
        sk_stats_acc_free(acc);
        sk_table_free(bt);
    }
    sk_table_stats s;
    CHECK_OK(sk_stats_acc_result(all, &s, &err), &err);
    double sum = s.cols[0].sum;
    sk_table_stats_free(&s);
    sk_stats_acc_free(all);
    sk_table_free(t);
    return sum;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void test_exact_sums(void)
{
    double tenth[10];
    for (int i = 0; i < 10; i++)
        tenth[i] = 0.1;
    CHECK(exact_sum(tenth, 10, 1) == 1.0); /* math.fsum: 1.0; naive: 0.9999999999999999 */
    double cancel[] = {1e300, 1.0, -1e300, 1e-300};
    CHECK(exact_sum(cancel, 4, 1) == 1.0);
    CHECK(exact_sum(cancel, 4, 3) == 1.0);
    double tie[] = {0x1p53, 1.0};            /* 2^53 + 1: a tie, to even */
    CHECK(exact_sum(tie, 2, 1) == 0x1p53);
    double above[] = {0x1p53, 1.0, 0x1p-60}; /* just above the tie: up */
    CHECK(exact_sum(above, 3, 2) == 0x1p53 + 2);
    double odd[] = {0x1p53 + 2, 1.0};        /* tie from an odd last bit: up */
    CHECK(exact_sum(odd, 2, 1) == 0x1p53 + 4);
    double sub[] = {4.9406564584124654e-324, 4.9406564584124654e-324, 4.9406564584124654e-324};
    CHECK(exact_sum(sub, 3, 2) == 1.48219693752373963e-323);
    double big[] = {1.7976931348623157e308, 1.7976931348623157e308, -1.7976931348623157e308};
    CHECK(exact_sum(big, 3, 1) == 1.7976931348623157e308); /* no overflow midway */
    double over[] = {1.7976931348623157e308, 1.7976931348623157e308};
    CHECK(isinf(exact_sum(over, 2, 1)));
    double neg[] = {-0.5, -0.25, 0.125};
    CHECK(exact_sum(neg, 3, 2) == -0.625);
    double low[] = {0x1p-1022, 0x1p-1074}; /* the smallest normal and subnormal */
    CHECK(exact_sum(low, 2, 1) == 0x1.0000000000001p-1022);
    double inf[] = {1.0, INFINITY, 2.0}, nan_sum[] = {INFINITY, -INFINITY};
    CHECK(exact_sum(inf, 3, 2) == INFINITY);
    CHECK(isnan(exact_sum(nan_sum, 2, 1)));
    /* 5000 values of the widest significand in one batch: more adds than
     * one bin of the accumulator holds between flushes. Python:
     * float(5000 * (2**53 - 1)). */
    enum { W = 5000 };
    double *wide = malloc(sizeof *wide * W);
    for (int i = 0; i < W; i++)
        wide[i] = 0x1.fffffffffffffp+52;
    CHECK(exact_sum(wide, W, 1) == 0x1.387ffffffffffp+65);
    free(wide);
    /* Random values of mixed signs and magnitudes: any cut into batches,
     * added in any order, gives the same bits; and the sum of x and -x
     * for all is exactly 0. */
    enum { N = 20000 };
    double *v = malloc(sizeof *v * 2 * N);
    uint64_t s = 12345;
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double m = (double)(s >> 11) * 0x1p-53;
        int e = (int)((s >> 3) % 200) - 100;
        v[i] = ldexp((s & 1) ? -m : m, e);
        v[N + i] = -v[i];
    }
    double one = exact_sum(v, N, 1);
    CHECK(same_bits(one, exact_sum(v, N, 7)));
    CHECK(same_bits(one, exact_sum(v, N, 64)));
    CHECK(exact_sum(v, 2 * N, 5) == 0.0);
    free(v);
}

/* Statistics of a cell table of n rows cycling through the k (value,
 * level) pairs, box boxlen. */
static sk_table_stats cell_stats(int n, const double *x, const int32_t *lev, int k,
                                 double boxlen)
{
    sk_table *t = sk_table_new(n);
    sk_error err;
    sk_table_meta_set(t, "kind", "cells");
    sk_table_meta_set_double(t, "boxlen", boxlen);
    int32_t *level = sk_table_add(t, "level", SK_INT32, &err);
    double *v = sk_table_add(t, "x", SK_FLOAT64, &err);
    for (int i = 0; i < n; i++)
        level[i] = lev[i % k], v[i] = x[i % k];
    sk_table_stats s;
    CHECK_OK(sk_table_stats_compute(t, 1, &s, &err), &err);
    sk_table_free(t);
    return s;
}

/* Volume-weighted sums of cell tables against the exact sums of the
 * rounded products, from Python with fractions.Fraction:
 * float(sum(F(x * (ldexp(boxlen, -l) ** 3)) for x, l in rows)). */
static void test_weighted_sums(void)
{
    enum { N = 3000 };
    /* Box 1: weights 1/8 and 1/64, powers of two. */
    double x[] = {0.1, -0.3};
    int32_t lev[] = {1, 2};
    sk_table_stats s = cell_stats(N, x, lev, 2, 1.0);
    CHECK(s.cols[1].volume_sum == 0x1.7700000000001p+3);
    CHECK(s.cols[1].sum == -0x1.2cp+8);
    CHECK(s.cols[1].min == -0.3 && s.cols[1].max == 0.1);
    CHECK(s.levels[1] == N / 2 && s.levels[2] == N / 2);
    sk_table_stats_free(&s);
    /* Box 3: weights that round. */
    s = cell_stats(N, x, lev, 2, 3.0);
    CHECK(s.cols[1].volume_sum == 0x1.3c68000000001p+8);
    sk_table_stats_free(&s);
    /* Products that round into the subnormals (0x1.4p-1066 / 2^9 is 0.625
     * of the smallest subnormal, which it rounds to): 1000 * (1 - 48 +
     * 2048) subnormals, where the exact products would give 2000625. */
    double tiny[] = {0x1.4p-1066, -0x1.8p-1060, 0x1p-1060};
    int32_t tiny_lev[] = {3, 3, 1};
    s = cell_stats(N, tiny, tiny_lev, 3, 1.0);
    CHECK(s.cols[1].volume_sum == 2001000 * 0x1p-1074);
    CHECK(s.cols[1].sum == -0x0.0000000781ep-1022);
    sk_table_stats_free(&s);
    /* Products beyond DBL_MAX: box 2^10, level 0, weight 2^30. */
    double huge[] = {1e300, 1.0};
    int32_t huge_lev[] = {0, 1};
    s = cell_stats(N, huge, huge_lev, 2, 1024.0);
    CHECK(isinf(s.cols[1].volume_sum) && s.cols[1].volume_sum > 0);
    CHECK(s.cols[1].sum == 1500 * 1e300 + 1500);
    sk_table_stats_free(&s);
}

/* Integer columns of a cell table (summed without bins) against brute
 * force for box 1, and against the same values as float64 (summed through
 * the bins) for boxes whose weights round, or whose products overflow or
 * are subnormal. */
static void test_integer_columns(void)
{
    enum { N = 5000 };
    double boxes[] = {1.0, 3.0, 0x1p340, 0x1p-355}; /* 0x1p340: weights 2^1011.. */
    for (size_t bx = 0; bx < sizeof boxes / sizeof *boxes; bx++) {
        sk_table *t = sk_table_new(N);
        sk_error err;
        sk_table_meta_set(t, "kind", "cells");
        sk_table_meta_set_double(t, "boxlen", boxes[bx]);
        int32_t *level = sk_table_add(t, "level", SK_INT32, &err);
        int32_t *iv = sk_table_add(t, "i", SK_INT32, &err);
        uint8_t *u8 = sk_table_add(t, "u8", SK_UINT8, &err);
        double *f = sk_table_add(t, "f", SK_FLOAT64, &err);
        int64_t sum = 0, mag = 0, scaled = 0; /* scaled: sum of v * 8^(3 - l) */
        int32_t lo = INT32_MAX, hi = INT32_MIN;
        for (int i = 0; i < N; i++) {
            level[i] = 1 + i % 3;
            iv[i] = (int32_t)((int64_t)i * 7919 % 2000001) - 1000000;
            u8[i] = (uint8_t)i;
            f[i] = iv[i];
            sum += iv[i];
            mag += iv[i] < 0 ? -iv[i] : iv[i];
            scaled += (int64_t)iv[i] * (1 << (3 * (3 - level[i])));
            lo = iv[i] < lo ? iv[i] : lo;
            hi = iv[i] > hi ? iv[i] : hi;
        }
        sk_table_stats s;
        CHECK_OK(sk_table_stats_compute(t, 1, &s, &err), &err);
        const sk_column_stats *ci = &s.cols[1], *cf = &s.cols[3];
        if (bx == 0) {
            CHECK(ci->sum == (double)sum && ci->abs_sum == (double)mag);
            CHECK(ci->volume_sum == ldexp((double)scaled, -9));
            CHECK(ci->min == lo && ci->max == hi);
            CHECK(s.cols[2].sum == (double)(N / 256 * (255 * 256 / 2) + (N % 256) * (N % 256 - 1) / 2));
            CHECK(s.cols[2].min == 0 && s.cols[2].max == 255);
        }
        CHECK(same_bits(ci->sum, cf->sum) && same_bits(ci->abs_sum, cf->abs_sum));
        CHECK(same_bits(ci->volume_sum, cf->volume_sum));
        CHECK(same_bits(ci->abs_volume_sum, cf->abs_volume_sum));
        CHECK(same_bits(ci->min, cf->min) && same_bits(ci->max, cf->max));
        sk_table_stats_free(&s);
        sk_table_free(t);
    }
}

/* ---- batches against the whole table ---- */

typedef struct collect {
    const sk_table *whole;   /* NULL: count rows per index */
    int64_t *rows, *offset;  /* per batch index */
    int64_t nbatches;
    int mismatches, calls, began;
    int fail_from;           /* >= 0: batches of this index and above fail */
    sk_stats_acc *acc[8];
    /* An ordered consumer: calls by increasing index, each batch
     * starting at the row after the last one's, the table's rows known. */
    int ordered, out_of_turn;
    int64_t last_index, next_row, total;
} collect;

static int col_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    collect *c = ctx;
    c->began++;
    CHECK(nthreads >= 1 && nthreads <= 8);
    CHECK_EQ_INT(sk_table_nrows(schema), 0);
    for (int i = 0; i < nthreads; i++)
        if (sk_stats_acc_new(schema, &c->acc[i], err) != SK_OK)
            return err->code;
    return SK_OK;
}

static int col_batch(void *ctx, int thread, const sk_table *b, const sk_batch_info *info,
                     sk_error *err)
{
    collect *c = ctx;
#pragma omp atomic
    c->calls++;
    if (c->ordered) {
        /* Nothing after a refused batch either. */
        c->out_of_turn += info->index <= c->last_index || info->row != c->next_row ||
                          (c->total && info->rows != c->total) ||
                          (c->fail_from >= 0 && c->last_index >= c->fail_from);
        c->last_index = info->index;
        c->next_row += sk_table_nrows(b);
    }
    if (c->fail_from >= 0 && info->index >= c->fail_from)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "refused batch %lld", (long long)info->index);
    c->nbatches = info->nbatches;
    if (!c->whole) {
        c->rows[info->index] = sk_table_nrows(b);
    } else {
        /* The rows of batch `index` are the whole table's from its offset. */
        int bad = sk_table_ncols(b) != sk_table_ncols(c->whole) ||
                  sk_table_nrows(b) != c->rows[info->index];
        for (int j = 0; !bad && j < sk_table_ncols(b); j++) {
            const sk_column *x = sk_table_col(b, j), *y = sk_table_col(c->whole, j);
            size_t size = sk_dtype_size(x->type);
            bad = strcmp(x->name, y->name) || x->type != y->type ||
                  memcmp(x->data, (const uint8_t *)y->data + size * (size_t)c->offset[info->index],
                         size * (size_t)sk_table_nrows(b));
        }
        if (bad) {
#pragma omp atomic
            c->mismatches++;
        }
    }
    return sk_stats_acc_add(c->acc[thread], b, info->index, err);
}

typedef int (*stream_fn)(void *src, const char *component, const sk_selection *sel,
                         const sk_read_options *opt, const sk_consumer *c, sk_read_stats *st,
                         sk_error *err);

static int ramses_stream(void *src, const char *component, const sk_selection *sel,
                         const sk_read_options *opt, const sk_consumer *c, sk_read_stats *st,
                         sk_error *err)
{
    return sk_ramses_stream(src, component, sel, opt, c, st, err);
}

static int store_stream(void *src, const char *component, const sk_selection *sel,
                        const sk_read_options *opt, const sk_consumer *c, sk_read_stats *st,
                        sk_error *err)
{
    return sk_store_stream(src, component, sel, opt, c, st, err);
}

static void collect_free(collect *c)
{
    for (int i = 0; i < 8; i++) {
        sk_stats_acc_free(c->acc[i]);
        c->acc[i] = NULL;
    }
}

/* Start a run of the stream: ordered or not, no call seen yet, a table
 * of `total` rows expected (0: not checked). */
static void collect_start(collect *c, sk_consumer *cons, int ordered, int64_t total)
{
    c->ordered = cons->ordered = ordered;
    c->out_of_turn = 0;
    c->last_index = -1;
    c->next_row = 0;
    c->total = total;
}

static void same_stats(const sk_table_stats *a, const sk_table_stats *b, const char *what)
{
    CHECK_EQ_INT(a->rows, b->rows);
    CHECK_EQ_INT(a->ncols, b->ncols);
    CHECK(!memcmp(a->levels, b->levels, sizeof a->levels));
    for (int j = 0; j < a->ncols && j < b->ncols; j++) {
        const sk_column_stats *x = &a->cols[j], *y = &b->cols[j];
        CHECK_MSG(same_bits(x->min, y->min) && same_bits(x->max, y->max) &&
                      same_bits(x->sum, y->sum) && same_bits(x->abs_sum, y->abs_sum) &&
                      (isnan(x->volume_sum) ? isnan(y->volume_sum)
                                            : same_bits(x->volume_sum, y->volume_sum)),
                  "%s, %s: sum %.17g vs %.17g, min %.17g vs %.17g", what, x->name, x->sum,
                  y->sum, x->min, y->min);
    }
}

/* Stream src's component on 1 and 2 threads against the whole table. */
/* The accumulator sent as bytes (as MPI ranks do) and made back gives the
 * same statistics; cut bytes are refused. */
static void encoded_round_trip(const sk_stats_acc *acc, const sk_table_stats *want,
                               const char *what)
{
    sk_error err;
    void *bytes = NULL;
    size_t n = 0;
    sk_stats_acc *back = NULL;
    CHECK_OK(sk_stats_acc_encode(acc, &bytes, &n, &err), &err);
    CHECK_OK(sk_stats_acc_decode(bytes, n, &back, &err), &err);
    sk_table_stats got;
    if (back && sk_stats_acc_result(back, &got, &err) == SK_OK) {
        same_stats(&got, want, what);
        sk_table_stats_free(&got);
    }
    sk_stats_acc_free(back);
    back = NULL;
    CHECK(sk_stats_acc_decode(bytes, n - 1, &back, &err) == SK_ERR_FORMAT && !back);
    sk_free(bytes);
}

/* The progress a stream reports: its last call's done and total. */
typedef struct progress_seen {
    int64_t done, total;
} progress_seen;

static void note_progress(void *ctx, int64_t done, int64_t total, int64_t bytes)
{
    (void)bytes;
    progress_seen *p = ctx;
#pragma omp critical(test_progress)
    if (done > p->done)
        p->done = done, p->total = total;
}

static void check_stream(void *src, stream_fn fn, const sk_table *whole, const char *component,
                         const sk_selection *sel, const char *what)
{
    sk_error err;
    int64_t nmax = 1 << 20;
    collect c = {.rows = calloc((size_t)nmax, 8), .offset = calloc((size_t)nmax, 8),
                 .fail_from = -1};
    sk_consumer cons = {.ctx = &c, .begin = col_begin, .batch = col_batch};
    sk_read_options opt = {.threads = 1};
    CHECK_OK(fn(src, component, sel, &opt, &cons, NULL, &err), &err);
    collect_free(&c);
    int64_t off = 0;
    for (int64_t i = 0; i < c.nbatches; i++) {
        c.offset[i] = off;
        off += c.rows[i];
    }
    CHECK_MSG(off == sk_table_nrows(whole), "%s: %lld streamed rows, %lld read", what,
              (long long)off, (long long)sk_table_nrows(whole));
    sk_table_stats want;
    CHECK_OK(sk_table_stats_compute(whole, 1, &want, &err), &err);
    /* A .snapkit stream knows the table's rows ahead only without a region
     * or a family: the chunks whose rows it cuts are counted as they come. */
    int64_t total = fn == ramses_stream || (!sel->has_box && !sel->has_family)
                        ? sk_table_nrows(whole) : 0;
    for (int run = 0; run < 4; run++) {
        int threads = 1 + run % 2;
        c.whole = whole;
        c.mismatches = 0;
        collect_start(&c, &cons, run >= 2, total);
        opt.threads = threads;
        progress_seen prog = {0, 0};
        opt.progress = (sk_progress){note_progress, &prog};
        sk_read_stats st;
        CHECK_OK(fn(src, component, sel, &opt, &cons, &st, &err), &err);
        CHECK_MSG(prog.done == prog.total, "%s: progress ends at %lld of %lld", what,
                  (long long)prog.done, (long long)prog.total);
        CHECK_MSG(c.mismatches == 0, "%s: %d batches differ from the whole read", what,
                  c.mismatches);
        CHECK_MSG(c.out_of_turn == 0, "%s: %d ordered calls out of turn", what, c.out_of_turn);
        sk_stats_acc *all = NULL;
        for (int i = 0; i < 8 && c.acc[i]; i++) {
            if (!all)
                all = c.acc[i], c.acc[i] = NULL;
            else
                CHECK_OK(sk_stats_acc_merge(all, c.acc[i], &err), &err);
        }
        sk_table_stats got;
        if (all) {
            CHECK_OK(sk_stats_acc_result(all, &got, &err), &err);
            same_stats(&got, &want, what);
            sk_table_stats_free(&got);
            encoded_round_trip(all, &want, what);
        }
        sk_stats_acc_free(all);
        collect_free(&c);
    }
    sk_table_stats_free(&want);
    free(c.rows);
    free(c.offset);
}

static void check_output(const char *dir)
{
    sk_error err;
    sk_ramses *r;
    if (sk_ramses_open(&r, dir, &err) != SK_OK) {
        CHECK_MSG(0, "%s: %s", dir, err.message);
        return;
    }
    char tmp[256], path[512];
    test_tmpdir(tmp, sizeof tmp);
    snprintf(path, sizeof path, "%s/t.snapkit", tmp);
    const char *comps[] = {"hydro", "gravity", "particles"};
    for (int k = 0; k < 3; k++) {
        if (!sk_ramses_has_component(r, comps[k]))
            continue;
        sk_selection sel;
        sk_selection_init(&sel);
        /* 0: everything, 1: a region, 2 (particles): the star family */
        for (int region = 0; region < (k == 2 ? 3 : 2); region++) {
            if (region == 2) {
                sk_selection_init(&sel);
                CHECK_OK(sk_selection_set_families(&sel, "star", &err), &err);
            } else if (region) {
                sel.has_box = 1;
                int nd = sk_ramses_get_info(r)->ndim;
                for (int d = 0; d < 3; d++)
                    sel.lo[d] = d < nd ? 0.2 : 0.0, sel.hi[d] = d < nd ? 0.7 : 1.0;
            }
            char what[700];
            snprintf(what, sizeof what, "%s %s%s", dir, comps[k],
                     region == 2 ? " stars" : region ? " region" : "");
            sk_table *t;
            if (sk_ramses_read(r, comps[k], &sel, NULL, &t, NULL, &err) != SK_OK) {
                CHECK_MSG(0, "%s: %s", what, err.message);
                continue;
            }
            check_stream(r, ramses_stream, t, comps[k], &sel, what);
            sk_table_free(t);
            if (region == 1 && sk_ramses_get_info(r)->ndim < 3)
                continue; /* 1-D and 2-D cells are stored without positions */
            /* The same rows from a .snapkit file of the whole component. */
            sk_table *all;
            CHECK_OK(sk_ramses_read(r, comps[k], NULL, NULL, &all, NULL, &err), &err);
            sk_store *s;
            const sk_table *tabs[] = {all};
            CHECK_OK(sk_store_save(path, tabs, NULL, 1, NULL, NULL, &err), &err);
            CHECK_OK(sk_store_open(&s, path, NULL, &err), &err);
            sk_table *st;
            CHECK_OK(sk_store_read(s, comps[k], &sel, NULL, &st, NULL, &err), &err);
            strcat(what, " .snapkit");
            check_stream(s, store_stream, st, comps[k], &sel, what);
            sk_store_close(s);
            sk_table_free(st);
            sk_table_free(all);
        }
    }
    unlink(path);
    rmdir(tmp);
    sk_ramses_close(r);
}

/* The same refusal from a .snapkit file of small chunks (one batch each):
 * batch 3's error, and an ordered consumer sees no batch after it (the
 * threads waiting with later batches give up instead of waiting forever). */
static void test_store_refused(sk_ramses *r, collect *c, sk_consumer *cons)
{
    sk_error err;
    sk_table *t;
    CHECK_OK(sk_ramses_read(r, "hydro", NULL, NULL, &t, NULL, &err), &err);
    char tmp[256], path[512];
    test_tmpdir(tmp, sizeof tmp);
    snprintf(path, sizeof path, "%s/small.snapkit", tmp);
    sk_store_write_options wo;
    sk_store_write_options_init(&wo);
    wo.chunk_rows = SK_STORE_CHUNK_ROWS_MIN;
    const sk_table *tabs[] = {t};
    CHECK_OK(sk_store_save(path, tabs, NULL, 1, &wo, NULL, &err), &err);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &err), &err);
    for (int run = 0; run < 4; run++) {
        sk_read_options opt = {.threads = 1 + run % 2};
        collect_start(c, cons, run >= 2, sk_table_nrows(t));
        sk_error_clear(&err);
        CHECK(sk_store_stream(s, "hydro", NULL, &opt, cons, NULL, &err) == SK_ERR_ARG);
        CHECK_CONTAINS(err.message, "refused batch 3");
        CHECK_MSG(c->out_of_turn == 0 && (!c->ordered || c->last_index == 3),
                  ".snapkit ordered: %d calls out of turn, last batch %lld", c->out_of_turn,
                  (long long)c->last_index);
        collect_free(c);
    }
    c->ordered = cons->ordered = 0;
    sk_store_close(s);
    sk_table_free(t);
    unlink(path);
    rmdir(tmp);
}

/* A consumer refusing batches from index 3 on: the error is batch 3's on
 * any thread count; a damaged file: the lowest one's. */
static void test_errors(const char *dir)
{
    sk_error err;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, dir, &err), &err);
    collect c = {.rows = calloc(1 << 16, 8), .offset = calloc(1 << 16, 8), .fail_from = 3};
    sk_consumer cons = {.ctx = &c, .begin = col_begin, .batch = col_batch};
    for (int run = 0; run < 4; run++) {
        sk_read_options opt = {.threads = 1 + run % 2};
        /* An ordered consumer gets no batch after the refused one. */
        collect_start(&c, &cons, run >= 2, 0);
        sk_error_clear(&err);
        CHECK(sk_ramses_stream(r, "hydro", NULL, &opt, &cons, NULL, &err) == SK_ERR_ARG);
        CHECK_CONTAINS(err.message, "refused batch 3");
        CHECK_MSG(c.out_of_turn == 0, "ordered: %d calls out of turn or after the failure",
                  c.out_of_turn);
        collect_free(&c);
    }
    c.ordered = 0;
    cons.ordered = 0;
    test_store_refused(r, &c, &cons);
    sk_ramses_close(r);
    /* Truncate hydro files 2 and 5 of a copy. */
    char tmp[256], cmd[2048], out[600];
    test_tmpdir(tmp, sizeof tmp);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/' && cd '%s'/output_* && truncate -s 100 "
             "hydro_*.out00002 hydro_*.out00005", dir, tmp, tmp);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "ls -d '%s'/output_* > '%s/name'", tmp, tmp);
    CHECK(system(cmd) == 0);
    snprintf(out, sizeof out, "%s/name", tmp);
    char *name = test_slurp(out);
    name[strcspn(name, "\n")] = 0;
    c.fail_from = -1;
    char first[sizeof err.message] = "";
    for (int run = 0; run < 4; run++) {
        CHECK_OK(sk_ramses_open(&r, name, &err), &err);
        sk_read_options opt = {.threads = 1 + run % 2};
        collect_start(&c, &cons, run >= 2, 0);
        CHECK(sk_ramses_stream(r, "hydro", NULL, &opt, &cons, NULL, &err) != SK_OK);
        CHECK_CONTAINS(err.message, "out00002");
        /* Ordered: file 1 (out00002) failed, so only file 0 was handed over. */
        CHECK(!c.ordered || (c.out_of_turn == 0 && c.last_index == 0));
        if (run == 0)
            snprintf(first, sizeof first, "%s", err.message);
        else
            CHECK_EQ_STR(err.message, first);
        collect_free(&c);
        sk_ramses_close(r);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0);
    free(name);
    free(c.rows);
    free(c.offset);
}

/* Byte offset of the data of Fortran record `index` (1-based) of a file. */
static long record_data(FILE *f, int index)
{
    long at = 0;
    for (int k = 1; k < index; k++) {
        int32_t len;
        CHECK(fseek(f, at, SEEK_SET) == 0 && fread(&len, 4, 1, f) == 1);
        at += 8 + len;
    }
    return at + 4;
}

/* A stream sizes its batches from the amr headers' own oct counts (numbl,
 * the 22nd record): a count the file cannot hold is a format error
 * naming the file, not an allocation of what the header claims. */
static void test_oct_count_damage(const char *dir)
{
    char tmp[256], cmd[2048], path[700];
    test_tmpdir(tmp, sizeof tmp);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/out'", dir, tmp);
    CHECK(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/out", tmp);
    sk_error err;
    sk_ramses *r;
    CHECK_OK(sk_ramses_open(&r, cmd, &err), &err);
    snprintf(path, sizeof path, "%s/out/amr_00002.out00003", tmp);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    long numbl = record_data(f, 22);
    int32_t huge = 100000000; /* numbl(level 1, list 3): file 3's own octs */
    CHECK(fseek(f, numbl + 4L * 2, SEEK_SET) == 0 && fwrite(&huge, 4, 1, f) == 1);
    fclose(f);
    collect c = {.rows = calloc(1 << 16, 8), .offset = calloc(1 << 16, 8), .fail_from = -1};
    sk_consumer cons = {.ctx = &c, .begin = col_begin, .batch = col_batch};
    for (int threads = 1; threads <= 2; threads++) {
        sk_read_options opt = {.threads = threads};
        sk_error_clear(&err);
        sk_read_stats st;
        CHECK(sk_ramses_stream(r, "hydro", NULL, &opt, &cons, &st, &err) == SK_ERR_FORMAT);
        CHECK_CONTAINS(err.message, "amr_00002.out00003");
        CHECK_CONTAINS(err.message, "own octs, more than the file's");
        collect_free(&c);
    }
    sk_table *t = NULL;
    CHECK(sk_ramses_read(r, "hydro", NULL, NULL, &t, NULL, &err) == SK_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "amr_00002.out00003");
    sk_ramses_close(r);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    CHECK(system(cmd) == 0);
    free(c.rows);
    free(c.offset);
}

/* An accumulator of a table with other columns merges only while one side
 * has no rows (an MPI rank whose share of a catalogue is empty). */
static sk_stats_acc *acc_of(const char *col, const double *v, int n)
{
    sk_error err;
    sk_table *t = sk_table_new(n);
    sk_table_meta_set(t, "kind", "rows");
    double *x = sk_table_add(t, col, SK_FLOAT64, &err);
    if (n)
        memcpy(x, v, sizeof *v * (size_t)n);
    sk_stats_acc *acc;
    CHECK_OK(sk_stats_acc_new(t, &acc, &err), &err);
    CHECK_OK(sk_stats_acc_add(acc, t, 0, &err), &err);
    sk_table_free(t);
    return acc;
}

static void test_merge_empty_other_columns(void)
{
    double v[] = {2.5, -1.0, 4.0};
    sk_error err;
    sk_table_stats s;
    sk_stats_acc *empty = acc_of("a", NULL, 0), *full = acc_of("b", v, 3);
    CHECK_OK(sk_stats_acc_merge(empty, full, &err), &err); /* takes b */
    CHECK_OK(sk_stats_acc_result(empty, &s, &err), &err);
    CHECK(s.ncols == 1 && !strcmp(s.cols[0].name, "b") && s.rows == 3);
    CHECK(s.cols[0].sum == 5.5 && s.cols[0].min == -1.0 && s.cols[0].max == 4.0);
    sk_table_stats_free(&s);
    sk_stats_acc *empty2 = acc_of("c", NULL, 0);
    CHECK_OK(sk_stats_acc_merge(full, empty2, &err), &err); /* adds nothing */
    CHECK_OK(sk_stats_acc_result(full, &s, &err), &err);
    CHECK(s.ncols == 1 && !strcmp(s.cols[0].name, "b") && s.rows == 3 && s.cols[0].sum == 5.5);
    sk_table_stats_free(&s);
    sk_stats_acc *other = acc_of("c", v, 1);
    CHECK(sk_stats_acc_merge(full, other, &err) == SK_ERR_ARG);
    sk_stats_acc_free(other);
    sk_stats_acc_free(empty2);
    sk_stats_acc_free(full);
    sk_stats_acc_free(empty);
}

int main(void)
{
    test_exact_sums();
    test_weighted_sums();
    test_integer_columns();
    test_merge_empty_other_columns();
    char buf[1024];
    const char *local[] = {"ramses/gravpart/output_00002", "ramses/manyfiles/output_00002",
                           "ramses/sedov2d/output_00002", "ramses/tube1d/output_00002",
                           "ramses/sedov3d/output_00001"};
    for (size_t i = 0; i < sizeof local / sizeof *local; i++)
        check_output(test_data(buf, sizeof buf, local[i]));
    const char *shared[] = {"fixtures/ramses/sedov3d/output_00002",
                            "fixtures/ramses/cosmo32/output_00003",
                            "fixtures/ramses/mhd3d/output_00002"};
    for (size_t i = 0; i < sizeof shared / sizeof *shared; i++)
        if (test_shared(buf, sizeof buf, shared[i]))
            check_output(buf);
    test_errors(test_data(buf, sizeof buf, "ramses/manyfiles/output_00002"));
    test_oct_count_damage(test_data(buf, sizeof buf, "ramses/manyfiles/output_00002"));
    return test_done();
}
