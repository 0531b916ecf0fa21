/* The cells at or above the threshold, picked from the table and put in
 * canonical (level, x, y, z) order with three parallel passes only (each
 * pass ends at a barrier, and a barrier waits for the slowest thread: on a
 * shared machine, for a thread the scheduler has set aside):
 *  1. count: each stretch of rows counts its cells per bucket, a bucket
 *     being a level and the top XBITS bits of x at that level (buckets in
 *     bucket order are in canonical order);
 *  2. fill: each stretch writes its cells at its place in their buckets,
 *     in row order: the sort's records, and each cell's row, value and
 *     the statistics' columns (c->got), read here while the row is at
 *     hand rather than again in a pass of its own;
 *  3. each bucket, small, is sorted on its own by (x, y, z) packed into a
 *     word (a radix sort over the bits that differ, in cache), its keys
 *     written out and its rows, values and got put in that order (a
 *     permutation inside the bucket, in cache too).
 * Keys are distinct once duplicates are refused (both rows named), so the
 * order does not depend on the threads. Levels deeper than DEEP are sorted
 * by qsort instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clumps_internal.h"
#include "snapkit/memory.h"

#define MAX_SLICES 64
#define XBITS 7
#define NBUCKET ((CL_MAX_LEVEL + 1) << XBITS)
#define DEEP 21 /* (x, y, z) of a level up to DEEP in one word */

typedef struct pick {
    const sk_column *field;
    const double *f; /* the field when float64 */
    double threshold;
    const int32_t *col[4];
    const cl_payload *pay;
    int pay_f64; /* got's five columns all there, all float64 */
    int64_t rows;
    int slices, threads;
    int64_t (*count)[NBUCKET]; /* per stretch; then each (stretch, bucket)'s place */
    int64_t start[NBUCKET + 1]; /* each bucket's first cell */
    int64_t runs[NBUCKET + 1];  /* each bucket's first z run */
    int64_t bad_nan, bad_box;  /* the first such row, or -1 */
    int top;
} pick;

/* A cell in its bucket: (x, y, z) packed at its level, and where fill put
 * it (its row, value and got are there until the bucket is sorted). */
typedef struct cl_picked {
    uint64_t k;
    int64_t at;
} cl_picked;

/* What the sort of a bucket moves besides its records: a cell's row,
 * value and got (one buffer a thread, room for the largest bucket). */
typedef struct cl_moved {
    int64_t *row;
    double *value;
    cl_gathered *got;
} cl_moved;

static int64_t slice_row(const pick *p, int s)
{
    return p->rows * s / p->slices;
}

static int c_threads(const pick *p)
{
    return p->threads < p->slices ? p->threads : p->slices;
}

static double field_at(const pick *p, int64_t r)
{
    return p->f ? p->f[r] : sk_column_get_double(p->field, r);
}

static double pay_at(const cl_payload *pay, int k, int64_t r)
{
    if (!pay->col[k])
        return 0;
    return pay->f64[k] ? pay->f64[k][r] : sk_column_get_double(pay->col[k], r);
}

static cl_gathered got_at(const pick *p, int64_t r)
{
    const cl_payload *q = p->pay;
    if (p->pay_f64) { /* the usual hydro table: no test per column */
        const double *const *f = q->f64;
        return (cl_gathered){f[0][r], {f[1][r], f[2][r], f[3][r]}, f[4][r]};
    }
    return (cl_gathered){pay_at(q, 0, r), {pay_at(q, 1, r), pay_at(q, 2, r), pay_at(q, 3, r)},
                         pay_at(q, 4, r)};
}

static cl_key key_at(const pick *p, int64_t r)
{
    return (cl_key){p->col[0][r], p->col[1][r], p->col[2][r], p->col[3][r]};
}

static int in_box(cl_key k)
{
    int64_t side = k.level >= 0 && k.level <= CL_MAX_LEVEL ? (int64_t)1 << k.level : 0;
    return side && k.x >= 0 && k.y >= 0 && k.z >= 0 && k.x < side && k.y < side && k.z < side;
}

static int bucket(cl_key k)
{
    return k.level << XBITS | k.x >> (k.level > XBITS ? k.level - XBITS : 0);
}

static uint64_t pack(cl_key k)
{
    return (uint64_t)k.x << 2 * k.level | (uint64_t)k.y << k.level | (uint64_t)k.z;
}

static cl_key unpack(uint64_t k, int level)
{
    uint64_t m = ((uint64_t)1 << level) - 1;
    return (cl_key){level, (int32_t)(k >> 2 * level), (int32_t)(k >> level & m),
                    (int32_t)(k & m)};
}

static void first_row(int64_t *at, int64_t r)
{
#pragma omp critical(cl_first_row)
    *at = *at < 0 || r < *at ? r : *at;
}

/* Pass 1: cells per (stretch, bucket), the top level, the first NaN and
 * the first cell outside the box. */
static void count(pick *p)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(c_threads(p))
    for (int s = 0; s < p->slices; s++) {
        int64_t *n = p->count[s], nan_row = -1, box_row = -1;
        int top = 0;
        memset(n, 0, sizeof p->count[s]);
        for (int64_t r = slice_row(p, s); r < slice_row(p, s + 1); r++) {
            double v = field_at(p, r);
            if (!(v >= p->threshold)) {
                if (isnan(v) && nan_row < 0)
                    nan_row = r;
                continue;
            }
            cl_key k = key_at(p, r);
            if (!in_box(k)) {
                box_row = box_row < 0 ? r : box_row;
                continue;
            }
            n[bucket(k)]++;
            top = k.level > top ? k.level : top;
        }
        if (nan_row >= 0)
            first_row(&p->bad_nan, nan_row);
        if (box_row >= 0)
            first_row(&p->bad_box, box_row);
#pragma omp critical(cl_top)
        p->top = top > p->top ? top : p->top;
    }
}

/* Pass 2: each stretch's cells into their buckets, in row order, with
 * their rows, values and got at the same places. */
static void fill(pick *p, cl_picked *e, cl_cells *c)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(c_threads(p))
    for (int s = 0; s < p->slices; s++) {
        int64_t *place = p->count[s];
        for (int64_t r = slice_row(p, s); r < slice_row(p, s + 1); r++) {
            double v = field_at(p, r);
            if (!(v >= p->threshold))
                continue;
            cl_key k = key_at(p, r);
            int64_t at = place[bucket(k)]++;
            e[at] = (cl_picked){pack(k), at};
            c->row[at] = r;
            c->value[at] = v;
            c->got[at] = got_at(p, r);
        }
    }
}

/* Stable sort of e[0..m) by k: insertion when short, else LSD radix over
 * the bits that differ, in as few passes as digits of up to 12 bits allow
 * (digits no wider than the bucket's size needs: the counts stay small
 * against it). Returns the sorted records: e or tmp (room for m). */
static cl_picked *sort_bucket(cl_picked *e, int64_t m, cl_picked *tmp)
{
    if (m <= 32) {
        for (int64_t a = 1; a < m; a++) {
            cl_picked t = e[a];
            int64_t b = a;
            for (; b > 0 && e[b - 1].k > t.k; b--)
                e[b] = e[b - 1];
            e[b] = t;
        }
        return e;
    }
    uint64_t all = ~(uint64_t)0, any = 0;
    for (int64_t a = 0; a < m; a++) {
        all &= e[a].k;
        any |= e[a].k;
    }
    uint64_t diff = all ^ any;
    if (!diff)
        return e; /* one key (duplicates: reported by the caller) */
    int low = __builtin_ctzll(diff), bits = 64 - __builtin_clzll(diff) - low;
    int most = 64 - __builtin_clzll((uint64_t)m); /* the bits of m */
    most = most < 8 ? 8 : (most > 12 ? 12 : most);
    int passes = (bits + most - 1) / most, w = (bits + passes - 1) / passes;
    uint64_t mask = ((uint64_t)1 << w) - 1;
    static _Thread_local int64_t n[(1 << 12) + 1];
    cl_picked *from = e, *to = tmp;
    for (int shift = low; shift < low + bits; shift += w) {
        memset(n, 0, (mask + 2) * sizeof *n);
        for (int64_t a = 0; a < m; a++)
            n[(from[a].k >> shift & mask) + 1]++;
        for (uint64_t d = 0; d <= mask; d++)
            n[d + 1] += n[d];
        for (int64_t a = 0; a < m; a++)
            to[n[from[a].k >> shift & mask]++] = from[a];
        cl_picked *t = from;
        from = to;
        to = t;
    }
    return from;
}

/* Bucket b's z runs (a run lies in one column, so in one bucket), where
 * the pick left label[i] == i: their first cells into e[lo ..) (the
 * bucket's records, no longer needed), their count into p->runs. */
static void bucket_runs(pick *p, cl_cells *c, int b, cl_picked *e)
{
    int64_t lo = p->start[b], k = 0;
    for (int64_t i = lo; i < p->start[b + 1]; i++)
        if (c->label[i] == i)
            e[lo + k++].at = i;
    p->runs[b] = k;
}

/* The buckets' runs (bucket_runs) one after the other into c->runs. -1
 * out of memory. */
static int list_runs(pick *p, cl_cells *c, const cl_picked *e)
{
    c->nruns = 0;
    for (int b = 0; b < NBUCKET; b++)
        c->nruns += p->runs[b];
    c->runs = sk_malloc((size_t)(c->nruns + 1) * sizeof *c->runs);
    if (!c->runs)
        return -1;
    cl_run *r = c->runs;
    for (int b = 0; b < NBUCKET; b++) {
        int64_t lo = p->start[b], m = p->runs[b];
        for (int64_t q = 0; q < m; q++) {
            int64_t s = e[lo + q].at, end = q + 1 < m ? e[lo + q + 1].at : p->start[b + 1];
            cl_key k = c->key[s];
            *r++ = (cl_run){k.level, k.x, k.y, k.z, k.z + (int32_t)(end - s - 1), s};
        }
    }
    return 0;
}

/* Bucket [lo, hi)'s rows, values and got put in the order of its sorted
 * records r[0 .. hi - lo) (m: a copy of them to take from). */
static void permute(cl_cells *c, const cl_picked *r, int64_t lo, int64_t hi, cl_moved *m)
{
    size_t n = (size_t)(hi - lo);
    memcpy(m->row, c->row + lo, n * sizeof *m->row);
    memcpy(m->value, c->value + lo, n * sizeof *m->value);
    memcpy(m->got, c->got + lo, n * sizeof *m->got);
    for (int64_t i = lo; i < hi; i++) {
        int64_t q = r[i - lo].at - lo;
        c->row[i] = m->row[q];
        c->value[i] = m->value[q];
        c->got[i] = m->got[q];
    }
}

/* Pass 3: every bucket sorted and written out, its runs found; the first
 * duplicate. */
static int sort_out(pick *p, cl_picked *e, cl_cells *c, int64_t *dup)
{
    int64_t most = 0, first_dup = c->n;
    for (int b = 0; b < NBUCKET; b++)
        most = p->start[b + 1] - p->start[b] > most ? p->start[b + 1] - p->start[b] : most;
    int failed = 0;
    size_t room = (size_t)(most + 1);
#pragma omp parallel num_threads(c->threads) reduction(| : failed) reduction(min : first_dup)
    {
        cl_picked *tmp = sk_malloc(room * sizeof *tmp);
        cl_moved m = {sk_malloc(room * sizeof *m.row), sk_malloc(room * sizeof *m.value),
                      sk_malloc(room * sizeof *m.got)};
        failed = !tmp || !m.row || !m.value || !m.got;
#pragma omp for schedule(dynamic, 4)
        for (int b = 0; b < NBUCKET; b++) {
            int64_t lo = p->start[b], hi = p->start[b + 1];
            if (failed || lo == hi)
                continue;
            const cl_picked *r = sort_bucket(e + lo, hi - lo, tmp); /* cells lo .. hi */
            permute(c, r, lo, hi, &m);
            uint64_t zmask = ((uint64_t)1 << (b >> XBITS)) - 1;
            for (int64_t i = lo; i < hi; i++) {
                uint64_t k = r[i - lo].k;
                c->key[i] = unpack(k, b >> XBITS);
                /* z + 1 in the same column: the packed key + 1 with no carry
                 * out of z; a column lies in one bucket */
                int run = i > lo && k == r[i - lo - 1].k + 1 && k & zmask;
                c->label[i] = run ? c->label[i - 1] : i;
                if (i > lo && k == r[i - lo - 1].k && i < first_dup)
                    first_dup = i;
            }
            bucket_runs(p, c, b, e);
        }
        sk_free(tmp);
        sk_free(m.row);
        sk_free(m.value);
        sk_free(m.got);
    }
    *dup = first_dup;
    return failed ? -1 : 0;
}

typedef struct cl_sortrec {
    cl_key key;
    int64_t row;
} cl_sortrec;

static int key_cmp(const cl_key *a, const cl_key *b)
{
    if (a->level != b->level)
        return a->level < b->level ? -1 : 1;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return 0;
}

static int rec_cmp(const void *pa, const void *pb)
{
    const cl_sortrec *a = pa, *b = pb;
    int c = key_cmp(&a->key, &b->key);
    return c ? c : (a->row < b->row ? -1 : a->row > b->row);
}

/* Levels deeper than DEEP: the cells by qsort, one thread. */
static int sort_deep(const pick *p, cl_cells *c, int64_t *dup)
{
    cl_sortrec *rec = sk_malloc((size_t)(c->n + 1) * sizeof *rec);
    if (!rec)
        return -1;
    int64_t n = 0;
    for (int64_t r = 0; r < p->rows; r++)
        if (field_at(p, r) >= p->threshold)
            rec[n++] = (cl_sortrec){key_at(p, r), r};
    qsort(rec, (size_t)n, sizeof *rec, rec_cmp);
    *dup = n;
    for (int64_t i = 0; i < n; i++) {
        c->key[i] = rec[i].key;
        c->row[i] = rec[i].row;
        c->value[i] = field_at(p, rec[i].row);
        c->got[i] = got_at(p, rec[i].row);
        cl_key k = rec[i].key, b = i ? rec[i - 1].key : k;
        c->label[i] = i && k.level == b.level && k.x == b.x && k.y == b.y && k.z == b.z + 1
                          ? c->label[i - 1]
                          : i;
        if (i && *dup == n && !key_cmp(&rec[i].key, &rec[i - 1].key))
            *dup = i;
    }
    sk_free(rec);
    return 0;
}

static int errors(const pick *p, sk_error *err)
{
    int64_t r = p->bad_nan >= 0 ? p->bad_nan : p->bad_box;
    cl_key k = r >= 0 ? key_at(p, r) : (cl_key){0, 0, 0, 0};
    if (p->bad_nan >= 0)
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                       "clumps: field '%s' is NaN at row %lld (level %d, cell %d %d %d)",
                       p->field->name, (long long)r, k.level, k.x, k.y, k.z);
    if (p->bad_box >= 0)
        return sk_fail(err, SK_ERR_FORMAT, NULL, -1,
                       "clumps: row %lld: level %d, cell %d %d %d is outside the box",
                       (long long)r, k.level, k.x, k.y, k.z);
    return SK_OK;
}

/* c->row, key, value, label, scratch and got in one block, each part on
 * a 64-byte boundary. -1 out of memory. */
static int cells_block(cl_cells *c)
{
    size_t n = (size_t)c->n + 1, at = 0, part[6] = {n * sizeof *c->row, n * sizeof *c->key,
                                                     n * sizeof *c->value, n * sizeof *c->label,
                                                     n * sizeof(cl_picked), n * sizeof *c->got};
    size_t off[6];
    for (int k = 0; k < 6; k++) {
        off[k] = at;
        at += (part[k] + 63) / 64 * 64;
    }
    unsigned char *b = sk_malloc(at);
    if (!b)
        return -1;
    c->row = (int64_t *)b;
    c->key = (cl_key *)(b + off[1]);
    c->value = (double *)(b + off[2]);
    c->label = (int64_t *)(b + off[3]);
    c->scratch = b + off[4];
    c->got = (cl_gathered *)(b + off[5]);
    return 0;
}

static int nomem(int64_t n, sk_error *err)
{
    return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "clumps: out of memory for %lld cells",
                   (long long)n);
}

int cl_cells_pick(cl_cells *c, const sk_table *t, const sk_column *field, double threshold,
                  const int32_t *col[4], const cl_payload *pay, sk_error *err)
{
    pick *p = sk_calloc(1, sizeof *p);
    if (!p)
        return nomem(0, err);
    *p = (pick){.field = field, .f = field->type == SK_FLOAT64 ? field->data : NULL,
                .threshold = threshold, .col = {col[0], col[1], col[2], col[3]}, .pay = pay,
                .rows = sk_table_nrows(t), .bad_nan = -1, .bad_box = -1};
    /* Four stretches a thread, taken as threads come free: a thread the
     * scheduler sets aside holds up the others for one stretch at most. */
    p->threads = c->threads;
    p->pay_f64 = 1;
    for (int k = 0; k < 5; k++)
        p->pay_f64 &= pay->f64[k] != NULL;
    p->slices = p->rows > 65536 ? (4 * c->threads < MAX_SLICES ? 4 * c->threads : MAX_SLICES) : 1;
    p->count = sk_malloc((size_t)p->slices * sizeof *p->count);
    int rc = p->count ? SK_OK : nomem(0, err);
    if (rc == SK_OK)
        count(p);
    if (rc == SK_OK)
        rc = errors(p, err);
    int64_t n = 0;
    for (int b = 0; rc == SK_OK && b < NBUCKET; b++) {
        p->start[b] = n;
        for (int s = 0; s < p->slices; s++) {
            int64_t k = p->count[s][b];
            p->count[s][b] = n;
            n += k;
        }
    }
    p->start[NBUCKET] = n;
    c->n = n;
    if (rc == SK_OK && cells_block(c))
        rc = nomem(n, err);
    int64_t dup = n;
    cl_picked *e = rc == SK_OK ? c->scratch : NULL;
    if (rc == SK_OK && p->top > DEEP) {
        if (sort_deep(p, c, &dup))
            rc = nomem(n, err);
        for (int b = 0; rc == SK_OK && b < NBUCKET; b++)
            bucket_runs(p, c, b, e);
    } else if (rc == SK_OK) {
        fill(p, e, c);
        if (sort_out(p, e, c, &dup))
            rc = nomem(n, err);
    }
    if (rc == SK_OK && dup == n && list_runs(p, c, e))
        rc = nomem(n, err);
    if (rc == SK_OK && dup < n) {
        int64_t a = c->row[dup - 1], b = c->row[dup];
        rc = sk_fail(err, SK_ERR_FORMAT, NULL, -1, "clumps: rows %lld and %lld are the same cell",
                     (long long)(a < b ? a : b), (long long)(a < b ? b : a));
    }
    sk_free(p->count);
    sk_free(p);
    return rc;
}
