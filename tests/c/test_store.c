/* The compact file on tables built here (store_tables.h): every table
 * kind round trip, codecs, integer widths, regions and level caps against
 * brute-force filters, refined cells, variables and metadata. */
#include <lz4.h>
#include <unistd.h>

#include "formats/snapkit/codec.h"
#include "formats/snapkit/format.h"
#include "formats/snapkit/reader.h"
#include "store_tables.h"
#include "snapkit/util/json.h"

/* ---- tests ---- */

/* Every unshuffle form (scalar, SSE2, AVX2 where the CPU has them) gives
 * the scalar form's bytes, and the original values, for widths 1 to 8 and
 * lengths around the vector widths (tails included). */
static void test_unshuffle_forms(void)
{
    enum { N = 1000 };
    static uint8_t in[N * 8], sh[N * 8], want[N * 8 + 8], got[N * 8 + 8];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N * 8; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = (uint8_t)x;
    }
    int best = st_unshuffle_best(), forms = 0;
    const int64_t lens[] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 999, 1000};
    const size_t sizes[] = {1, 2, 4, 8};
    for (size_t si = 0; si < 4; si++)
        for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
            int64_t n = lens[li];
            size_t size = sizes[si];
            st_shuffle(in, sh, n, size);
            memset(want, 0xA5, sizeof want);
            CHECK_EQ_INT(st_unshuffle_with(ST_UNSHUFFLE_SCALAR, sh, want, n, size), 0);
            CHECK(memcmp(want, in, (size_t)n * size) == 0);
            CHECK_EQ_INT(want[(size_t)n * size], 0xA5); /* nothing written past the end */
            for (int v = ST_UNSHUFFLE_SSE2; v <= ST_UNSHUFFLE_AVX2; v++) {
                memset(got, 0xA5, sizeof got);
                int rc = st_unshuffle_with(v, sh, got, n, size);
                CHECK_EQ_INT(rc, v <= best ? 0 : -1);
                if (rc == 0) {
                    forms++;
                    CHECK_MSG(memcmp(got, want, (size_t)n * size + 8) == 0,
                              "form %d, size %zu, n %lld", v, size, (long long)n);
                }
            }
        }
    printf("unshuffle: best form %d, %d form runs checked\n", best, forms);
}

/* The copy around the caches equals memcpy at every alignment of the
 * destination and length (the head before the first 16-byte boundary, the
 * streamed middle, the tail), and writes nothing outside it. */
static void test_copy_around_cache(void)
{
    enum { N = 8192 + 200 };
    static uint8_t src[N], want[N + 64], got[N + 64];
    for (int i = 0; i < N; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    const size_t lens[] = {0, 1, 15, 63, 64, 65, 79, 80, 127, 128, 129, 1000, 8192, N - 20};
    int runs = 0;
    for (size_t li = 0; li < sizeof lens / sizeof *lens; li++)
        for (size_t at = 0; at < 20; at++) {
            size_t n = lens[li];
            memset(want, 0x5A, sizeof want);
            memset(got, 0x5A, sizeof got);
            memcpy(want + at, src + 3, n);
            st_copy_around_cache(got + at, src + 3, n);
            CHECK_MSG(memcmp(got, want, sizeof got) == 0, "length %zu at offset %zu", n, at);
            runs++;
        }
    printf("copy around the caches: %d copies checked\n", runs);
}

/* Codecs on their own: shuffle both ways, the choice between plain and
 * shuffled LZ4 and raw, integers of every type and width. */
static void test_codecs(void)
{
    enum { N = 4099 };
    static double noisy[N], coarse[N], flat[N], back[N];
    static uint8_t scratch[N * 8], out[N * 8 + LZ4_COMPRESSBOUND(N * 8)], sh[N * 8];
    for (int i = 0; i < N; i++) {
        noisy[i] = 1.0 + uniform();
        coarse[i] = 1.0 + (double)(int)(uniform() * 65536) / 65536; /* 16 mantissa bits */
        flat[i] = i < N / 2 ? 1.0 : 0.125;
    }
    for (int64_t n = 1; n <= 40; n += 13) {
        st_shuffle((const uint8_t *)noisy, sh, n, 8);
        CHECK_EQ_INT(sh[n], ((const uint8_t *)noisy)[1]); /* byte 1 of value 0 */
        st_unshuffle(sh, (uint8_t *)back, n, 8);
        CHECK(memcmp(back, noisy, (size_t)n * 8) == 0);
    }
    st_cc cc;
    char why[128];
    st_encode(SK_FLOAT64, coarse, N, 1, scratch, out, &cc);
    CHECK_EQ_INT(cc.encoding, ST_ENC_SHUFFLE);
    CHECK_EQ_INT(cc.codec, ST_CODEC_LZ4);
    CHECK(5 * cc.stored <= 4 * N * 8);
    CHECK_EQ_INT(cc.hash, st_hash(out, (size_t)cc.stored));
    CHECK_EQ_INT(st_decode(SK_FLOAT64, &cc, N, out, back, scratch, why, sizeof why), 0);
    CHECK(memcmp(back, coarse, sizeof coarse) == 0);
    CHECK_EQ_INT(st_check_minmax(SK_FLOAT64, back, N, &cc), 0);
    /* Noisy floats, which shuffled LZ4 shrinks by less than a fifth, are
     * kept raw and plain: the values themselves. */
    st_shuffle((const uint8_t *)noisy, sh, N, 8);
    int lz = LZ4_compress_default((const char *)sh, (char *)out, N * 8, (int)sizeof out);
    CHECK_MSG(lz > 0 && lz < N * 8 && 5 * lz > 4 * N * 8, "shuffled LZ4: %d of %d bytes", lz,
              N * 8);
    st_encode(SK_FLOAT64, noisy, N, 1, scratch, out, &cc);
    CHECK(cc.codec == ST_CODEC_RAW && cc.encoding == ST_ENC_PLAIN && cc.stored == N * 8);
    CHECK(memcmp(out, noisy, sizeof noisy) == 0);
    CHECK_EQ_INT(cc.hash, st_hash(noisy, sizeof noisy));
    CHECK_EQ_INT(st_decode(SK_FLOAT64, &cc, N, out, back, scratch, why, sizeof why), 0);
    CHECK(memcmp(back, noisy, sizeof noisy) == 0);
    CHECK_EQ_INT(st_check_minmax(SK_FLOAT64, back, N, &cc), 0);
    st_encode(SK_FLOAT64, flat, N, 1, scratch, out, &cc);
    CHECK_EQ_INT(cc.encoding, ST_ENC_PLAIN);
    CHECK(cc.stored < 200);
    CHECK_EQ_INT(st_decode(SK_FLOAT64, &cc, N, out, back, scratch, why, sizeof why), 0);
    CHECK(memcmp(back, flat, sizeof flat) == 0);
    st_encode(SK_FLOAT64, noisy, N, 0, scratch, out, &cc);
    CHECK(cc.codec == ST_CODEC_RAW && cc.encoding == ST_ENC_PLAIN && cc.stored == N * 8);
    /* Damaged LZ4 bytes are caught by the decoder too. */
    st_encode(SK_FLOAT64, flat, N, 1, scratch, out, &cc);
    cc.stored -= 3;
    CHECK_EQ_INT(st_decode(SK_FLOAT64, &cc, N, out, back, scratch, why, sizeof why), -1);
    CHECK_CONTAINS(why, "LZ4");

    /* Integers: extremes of each type, widths 0..8. */
    int64_t i64[4] = {INT64_MIN, -1, 0, INT64_MAX}, i64b[4];
    st_encode(SK_INT64, i64, 4, 1, scratch, out, &cc);
    CHECK_EQ_INT(cc.width, 8);
    CHECK_EQ_INT((int64_t)cc.min, INT64_MIN);
    st_decode(SK_INT64, &cc, 4, out, i64b, scratch, why, sizeof why);
    CHECK(memcmp(i64, i64b, sizeof i64) == 0);
    uint64_t u64[3] = {UINT64_MAX, UINT64_MAX - 70000, UINT64_MAX - 5}, u64b[3];
    st_encode(SK_UINT64, u64, 3, 0, scratch, out, &cc);
    CHECK_EQ_INT(cc.width, 4);
    CHECK(cc.max == UINT64_MAX);
    st_decode(SK_UINT64, &cc, 3, out, u64b, scratch, why, sizeof why);
    CHECK(memcmp(u64, u64b, sizeof u64) == 0);
    int8_t i8[5] = {-128, 127, 0, -1, 5}, i8b[5];
    st_encode(SK_INT8, i8, 5, 0, scratch, out, &cc);
    CHECK_EQ_INT(cc.width, 1);
    st_decode(SK_INT8, &cc, 5, out, i8b, scratch, why, sizeof why);
    CHECK(memcmp(i8, i8b, sizeof i8) == 0);
    int16_t i16[3] = {-300, 30000, 7}, i16b[3];
    st_encode(SK_INT16, i16, 3, 1, scratch, out, &cc);
    CHECK_EQ_INT(cc.width, 2);
    st_decode(SK_INT16, &cc, 3, out, i16b, scratch, why, sizeof why);
    CHECK(memcmp(i16, i16b, sizeof i16) == 0);
    int32_t c32[6] = {7, 7, 7, 7, 7, 7}, c32b[6];
    st_encode(SK_CATEGORY, c32, 6, 1, scratch, out, &cc);
    CHECK(cc.width == 0 && cc.stored == 0 && (int64_t)cc.min == 7);
    st_decode(SK_CATEGORY, &cc, 6, out, c32b, scratch, why, sizeof why);
    CHECK(memcmp(c32, c32b, sizeof c32) == 0);
    float f32[3] = {-0.0f, NAN, 3.5f}, f32b[3];
    st_encode(SK_FLOAT32, f32, 3, 1, scratch, out, &cc);
    CHECK(st_bits_f64(cc.max) == 3.5);
    st_decode(SK_FLOAT32, &cc, 3, out, f32b, scratch, why, sizeof why);
    CHECK(memcmp(f32, f32b, sizeof f32) == 0);
}

static cells g_cells;
static char g_dir[256];

static void test_roundtrip_all_tables(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    sk_table *grav = cell_table(&g_cells, "gravity", 0);
    sk_table *part = particle_table(30000);
    sk_table *atoms = atom_table(5000);
    const sk_table *tables[] = {hydro, grav, part, atoms};
    char path[512];
    tmp_path(g_dir, "all.snapkit", path, sizeof path);
    sk_error e;
    sk_store_write_stats ws;
    CHECK_OK(sk_store_save(path, tables, NULL, 4, NULL, &ws, &e), &e);
    CHECK_EQ_INT(ws.ntables, 4);
    CHECK_EQ_INT(ws.rows, 2 * sk_table_nrows(hydro) + 30000 + 5000);
    CHECK(ws.bytes_file < ws.bytes_raw / 2);
    CHECK(sk_store_is_file(path));
    CHECK(!sk_store_is_file(g_dir));

    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_store_file_info fi;
    sk_store_get_file_info(s, &fi);
    CHECK_EQ_INT(fi.ntables, 4);
    CHECK_EQ_INT(fi.version_major, SK_STORE_VERSION_MAJOR);
    sk_store_table_info ti;
    CHECK_OK(sk_store_get_table_info(s, 0, &ti, &e), &e);
    CHECK_EQ_STR(ti.name, "hydro");
    CHECK_EQ_INT(ti.geometry, SK_STORE_CELLS);
    CHECK_EQ_INT(ti.rows, sk_table_nrows(hydro));
    CHECK_EQ_INT(ti.level_min, 3);
    CHECK_EQ_INT(ti.level_max, 7);
    CHECK_EQ_INT(ti.has_refined, 0);
    CHECK(ti.chunks > 8);
    CHECK_EQ_INT(ti.curve_bits, 7);
    CHECK_OK(sk_store_get_table_info(s, 2, &ti, &e), &e);
    CHECK_EQ_INT(ti.geometry, SK_STORE_POINTS);
    CHECK_OK(sk_store_get_table_info(s, 3, &ti, &e), &e);
    CHECK_EQ_INT(ti.geometry, SK_STORE_ROWS);
    CHECK(sk_store_get_table_info(s, 4, &ti, &e) == SK_ERR_ARG);
    CHECK_EQ_STR(sk_store_meta_key(s, 0), "writer");

    const char *names[] = {"hydro", "gravity", "particles", "atoms"};
    sk_table *got[4];
    for (int i = 0; i < 4; i++) {
        sk_read_stats st;
        got[i] = read_table(s, names[i], NULL, 0, 0, &st);
        check_same(got[i], tables[i], names[i]);
        CHECK_EQ_INT(sk_table_meta_count(got[i]), sk_table_meta_count(tables[i]));
        for (int k = 0; k < sk_table_meta_count(tables[i]); k++) {
            const char *key = sk_table_meta_key(tables[i], k);
            CHECK_EQ_STR(sk_table_meta_get(got[i], key), sk_table_meta_value(tables[i], k));
        }
        CHECK_OK(sk_store_get_table_info(s, i, &ti, &e), &e);
        CHECK_EQ_INT(st.files_opened, ti.chunks);
    }
    /* Rows along the curve: hydro and gravity join row by row. */
    for (int k = 0; k < 4; k++) {
        const char *key = k == 0 ? "level" : k == 1 ? "cx" : k == 2 ? "cy" : "cz";
        CHECK(memcmp(sk_table_find(got[0], key)->data, sk_table_find(got[1], key)->data,
                     (size_t)sk_table_nrows(got[0]) * 4) == 0);
    }
    /* The atoms (no positions) keep their order exactly, labels included. */
    const sk_column *el = sk_table_find(got[3], "element");
    CHECK_EQ_INT(el->nlabels, 3);
    CHECK_EQ_STR(el->labels[2], "O");
    CHECK(memcmp(sk_table_find(got[3], "id")->data, sk_table_find(atoms, "id")->data, 5000 * 8) ==
          0);
    /* NaN survives bit for bit (checked by check_same) and the particles of
     * a box of length 2 sort on position / boxlen: the first rows are near
     * the curve's start at the origin corner. */
    CHECK_OK(sk_store_verify(s, 0, (sk_progress){0}, &e), &e);
    for (int i = 0; i < 4; i++)
        sk_table_free(got[i]);
    sk_store_close(s);
    sk_table_free(hydro);
    sk_table_free(grav);
    sk_table_free(part);
    sk_table_free(atoms);
}

static void test_integer_widths_and_codecs(void)
{
    sk_table *part = particle_table(10000);
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    const sk_table *tables[] = {hydro, part};
    char lz4[512], raw[512];
    tmp_path(g_dir, "lz4.snapkit", lz4, sizeof lz4);
    tmp_path(g_dir, "raw.snapkit", raw, sizeof raw);
    sk_error e;
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    sk_store_write_stats a, b;
    CHECK_OK(sk_store_save(lz4, tables, NULL, 2, &opt, &a, &e), &e);
    opt.compress = 0;
    CHECK_OK(sk_store_save(raw, tables, NULL, 2, &opt, &b, &e), &e);
    CHECK(a.bytes_file < b.bytes_file);
    /* Raw still narrows integers: level/cx/cy/cz take at most 1 byte each. */
    CHECK(b.bytes_file < b.bytes_raw);

    sk_store *s;
    CHECK_OK(sk_store_open(&s, raw, NULL, &e), &e);
    const st_table *h = st_find_table(s, "hydro", &e);
    const st_table *p = st_find_table(s, "particles", &e);
    int lv = sk_table_index(h->schema, "level"), cx = sk_table_index(h->schema, "cx");
    int big = sk_table_index(p->schema, "big_id"), fam = sk_table_index(p->schema, "family");
    int dens = sk_table_index(h->schema, "density");
    int widths_ok = 1, raw_codec = 1;
    for (int64_t c = 0; c < h->nchunks; c++) {
        const st_cc *l = st_cc_at(h, c, lv), *x = st_cc_at(h, c, cx), *d = st_cc_at(h, c, dens);
        widths_ok &= l->encoding == ST_ENC_FOR && l->width <= 1 && x->width == 1;
        widths_ok &= d->encoding == ST_ENC_PLAIN && d->width == 8;
        raw_codec &= l->codec == ST_CODEC_RAW && d->codec == ST_CODEC_RAW;
        /* The level range in the index is the column's min/max. */
        widths_ok &= (int64_t)l->min == h->chunks[c].level_min &&
                     (int64_t)l->max == h->chunks[c].level_max;
    }
    for (int64_t c = 0; c < p->nchunks; c++) {
        widths_ok &= st_cc_at(p, c, big)->width <= 4; /* 1e12 + a few 1e5: 4 bytes */
        widths_ok &= (int64_t)st_cc_at(p, c, big)->min >= 1000000000000LL;
        widths_ok &= st_cc_at(p, c, fam)->width <= 1;
    }
    CHECK(widths_ok);
    CHECK(raw_codec);
    sk_table *t = read_table(s, "particles", NULL, 0, 1, NULL);
    check_same(t, part, "raw particles");
    sk_table_free(t);
    sk_store_close(s);

    CHECK_OK(sk_store_open(&s, lz4, NULL, &e), &e);
    h = st_find_table(s, "hydro", &e);
    int any_lz4 = 0;
    for (int64_t c = 0; c < h->nchunks; c++)
        any_lz4 |= st_cc_at(h, c, dens)->codec == ST_CODEC_LZ4;
    CHECK(any_lz4);
    t = read_table(s, "hydro", NULL, 0, 2, NULL);
    check_same(t, hydro, "lz4 hydro");
    sk_table_free(t);
    sk_store_close(s);
    sk_table_free(part);
    sk_table_free(hydro);
}

static void region_case(sk_store *s, const sk_table *src, const char *name, const double lo[3],
                        const double hi[3], int lmax, int64_t *chunks_read)
{
    sk_selection sel;
    sk_selection_init(&sel);
    sel.has_box = lo != NULL;
    for (int a = 0; a < 3 && lo; a++) {
        sel.lo[a] = lo[a];
        sel.hi[a] = hi[a];
    }
    sel.lmax = lmax;
    sk_read_stats st;
    sk_table *got = read_table(s, name, &sel, 0, 2, &st);
    uint8_t *keep;
    if (sk_table_find(src, "level")) {
        keep = expect_cells(src, lmax, lo, hi, 0);
    } else {
        int64_t n = sk_table_nrows(src);
        keep = malloc((size_t)n + 1);
        for (int64_t i = 0; i < n; i++) {
            int ok = 1;
            for (int a = 0; a < 3 && lo; a++) {
                double x = ((const double *)sk_table_col(src, a)->data)[i] / 2.0;
                ok = ok && x >= lo[a] && x < hi[a];
            }
            keep[i] = (uint8_t)ok;
        }
    }
    sk_table *want = filtered(src, keep, "refined");
    char what[128];
    snprintf(what, sizeof what, "%s box %g..%g lmax %d", name, lo ? lo[0] : 0, hi ? hi[0] : 1,
             lmax);
    check_same(got, want, what);
    if (chunks_read)
        *chunks_read = st.files_opened;
    CHECK_EQ_INT(sk_table_meta_double(got, "selection.lmax", -1), lmax);
    if (lo)
        CHECK_EQ_INT(sk_table_meta_double(got, "selection.ymin", -1) == lo[1], 1);
    free(keep);
    sk_table_free(got);
    sk_table_free(want);
}

static void test_regions(int compress)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    sk_table *part = particle_table(40000);
    const sk_table *tables[] = {hydro, part};
    char path[512];
    tmp_path(g_dir, "regions.snapkit", path, sizeof path);
    sk_error e;
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    opt.compress = compress;
    opt.chunk_rows = 1000; /* many chunks over these small tables */
    CHECK_OK(sk_store_save(path, tables, NULL, 2, &opt, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_store_table_info hi_, pi;
    sk_store_get_table_info(s, 0, &hi_, &e);
    sk_store_get_table_info(s, 1, &pi, &e);
    /* about 1% of the box: a cube of side 0.215 */
    double lo1[3] = {0.55, 0.3, 0.4}, hi1[3] = {0.765, 0.515, 0.615};
    int64_t read = 0;
    region_case(s, hydro, "hydro", lo1, hi1, 0, &read);
    CHECK_MSG(read > 0 && read < hi_.chunks / 3, "%lld of %lld chunks", (long long)read,
              (long long)hi_.chunks);
    int64_t total = 0;
    CHECK_EQ_INT(sk_store_chunks_for(s, "hydro", &(sk_selection){.has_box = 1,
                                                                 .lo = {0.55, 0.3, 0.4},
                                                                 .hi = {0.765, 0.515, 0.615}},
                                     NULL, &total, &e),
                 read);
    CHECK_EQ_INT(total, hi_.chunks);
    region_case(s, part, "particles", lo1, hi1, 0, &read);
    CHECK_MSG(read > 0 && read < pi.chunks, "%lld of %lld particle chunks", (long long)read,
              (long long)pi.chunks);
    /* Boxes on cell boundaries, a slab, the whole box, an empty box. */
    double lo2[3] = {0.25, 0.0, 0.0}, hi2[3] = {0.5, 1.0, 1.0};
    region_case(s, hydro, "hydro", lo2, hi2, 0, NULL);
    region_case(s, part, "particles", lo2, hi2, 0, NULL);
    double lo3[3] = {-1, -1, -1}, hi3[3] = {2, 2, 2};
    region_case(s, hydro, "hydro", lo3, hi3, 0, &read);
    CHECK_EQ_INT(read, hi_.chunks);
    double lo4[3] = {0.1, 0.1, 1.0}, hi4[3] = {0.2, 0.2, 1.5};
    region_case(s, hydro, "hydro", lo4, hi4, 0, &read);
    CHECK_EQ_INT(read, 0);
    double lo5[3] = {0.1, 0.1, 0.1}, hi5[3] = {0.1000001, 0.1000001, 0.1000001};
    region_case(s, hydro, "hydro", lo5, hi5, 0, &read);
    CHECK(read <= 1);
    /* lmax on a leaves-only file filters; a region with lmax too. */
    for (int lmax = 2; lmax <= 7; lmax++)
        region_case(s, hydro, "hydro", NULL, NULL, lmax, NULL);
    region_case(s, hydro, "hydro", lo1, hi1, 5, NULL);
    /* particles ignore lmax */
    region_case(s, part, "particles", lo2, hi2, 0, NULL);
    sk_store_close(s);
    sk_table_free(hydro);
    sk_table_free(part);
}

static void test_with_coarse(void)
{
    sk_table *all = cell_table(&g_cells, "hydro", 1);
    char path[512];
    tmp_path(g_dir, "coarse.snapkit", path, sizeof path);
    sk_error e;
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    opt.chunk_rows = 2048;
    const sk_table *tables[] = {all};
    CHECK_OK(sk_store_save(path, tables, NULL, 1, &opt, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_store_table_info ti;
    sk_store_get_table_info(s, 0, &ti, &e);
    CHECK_EQ_INT(ti.has_refined, 1);
    CHECK(ti.refined_rows > 0 && ti.refined_chunks > 0);
    /* Refined chunks hold one level each. */
    const st_table *t = st_find_table(s, "hydro", &e);
    int one_level = 1;
    for (int64_t c = 0; c < t->nchunks; c++)
        if (t->chunks[c].kind == ST_KIND_REFINED)
            one_level &= t->chunks[c].level_min == t->chunks[c].level_max;
    CHECK(one_level);

    /* No lmax: the leaves only, without the refined column. */
    sk_table *leaves = read_table(s, "hydro", NULL, 0, 0, NULL);
    uint8_t *keep = expect_cells(all, 0, NULL, NULL, 0);
    sk_table *want = filtered(all, keep, "refined");
    check_same(leaves, want, "leaves of a file with coarse cells");
    CHECK(sk_table_find(leaves, "refined") == NULL);
    free(keep);
    sk_table_free(want);
    sk_table_free(leaves);
    /* lmax: leaves up to lmax plus refined cells at lmax, reading no chunk
     * of finer leaves only nor of other refined levels. */
    for (int lmax = 2; lmax <= 7; lmax++) {
        sk_selection sel;
        sk_selection_init(&sel);
        sel.lmax = lmax;
        sk_read_stats st;
        sk_table *got = read_table(s, "hydro", &sel, 0, 2, &st);
        keep = expect_cells(all, lmax, NULL, NULL, 0);
        want = filtered(all, keep, "refined");
        char what[64];
        snprintf(what, sizeof what, "coarse lmax %d", lmax);
        check_same(got, want, what);
        int64_t n = sk_store_chunks_for(s, "hydro", &sel, NULL, NULL, &e);
        CHECK_EQ_INT(st.files_opened, n);
        CHECK(n < ti.chunks);
        free(keep);
        sk_table_free(want);
        sk_table_free(got);
    }
    /* with_refined: every cell and its flag; with lmax and a box too. */
    sk_table *got = read_table(s, "hydro", NULL, 1, 0, NULL);
    check_same(got, all, "with_refined");
    sk_table_free(got);
    sk_selection sel;
    sk_selection_init(&sel);
    sel.lmax = 5;
    sel.has_box = 1;
    double lo[3] = {0.2, 0.2, 0.2}, hi[3] = {0.6, 0.7, 0.5};
    memcpy(sel.lo, lo, sizeof lo);
    memcpy(sel.hi, hi, sizeof hi);
    got = read_table(s, "hydro", &sel, 1, 0, NULL);
    keep = expect_cells(all, 5, lo, hi, 1);
    want = filtered(all, keep, NULL);
    check_same(got, want, "with_refined lmax 5 box");
    free(keep);
    sk_table_free(want);
    sk_table_free(got);
    sk_json j;
    sk_json_init(&j, 0);
    CHECK_OK(sk_store_info_json(s, &j, &e), &e);
    CHECK_CONTAINS(sk_json_text(&j), "\"lmax\":\"exact: refined cells stored");
    CHECK_CONTAINS(sk_json_text(&j), "\"namelist\":\"&RUN_PARAMS\\nhydro=.true.\\n/\\n\"");
    CHECK_CONTAINS(sk_json_text(&j), "\"columns\":{\"hydro\":[{\"name\":\"density\",\"type\":\"d\"}");
    sk_json_free(&j);
    sk_store_close(s);

    /* A leaves-only file cannot give refined cells. */
    sk_table *plain = cell_table(&g_cells, "hydro", 0);
    tables[0] = plain;
    CHECK_OK(sk_store_save(path, tables, NULL, 1, NULL, NULL, &e), &e);
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_read_options ro = {.with_refined = 1};
    CHECK(sk_store_read(s, "hydro", NULL, &ro, &got, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "--with-coarse");
    sk_store_close(s);
    sk_table_free(plain);
    sk_table_free(all);
}

static void test_vars_and_metadata(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    sk_table_meta_set(hydro, "selection.lmax", "6");
    sk_table_meta_set(hydro, "selection.xmin", "0.25");
    sk_table_meta_set(hydro, "selection.xmax", "0.75");
    sk_table_meta_set(hydro, "selection.ymin", "0");
    sk_table_meta_set(hydro, "selection.ymax", "1");
    sk_table_meta_set(hydro, "selection.zmin", "0");
    sk_table_meta_set(hydro, "selection.zmax", "1");
    char path[512];
    tmp_path(g_dir, "vars.snapkit", path, sizeof path);
    sk_error e;
    const sk_table *tables[] = {hydro};
    const char *names[] = {"gas"};
    CHECK_OK(sk_store_save(path, tables, names, 1, NULL, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_selection sel;
    sk_selection_init(&sel);
    CHECK_OK(sk_selection_set_vars(&sel, "pressure,density", &e), &e);
    sel.lmax = 7;
    sel.has_box = 1;
    sel.lo[0] = 0.5;
    sk_table *got = read_table(s, "gas", &sel, 0, 0, NULL);
    CHECK_EQ_INT(sk_table_ncols(got), 6);
    CHECK_EQ_STR(sk_table_col(got, 0)->name, "level");
    CHECK_EQ_STR(sk_table_col(got, 4)->name, "density");
    CHECK_EQ_STR(sk_table_col(got, 5)->name, "pressure");
    /* The effective selection: the file's (lmax 6, x 0.25..0.75) and the read's. */
    CHECK_EQ_STR(sk_table_meta_get(got, "selection.lmax"), "6");
    CHECK_EQ_STR(sk_table_meta_get(got, "selection.xmin"), "0.5");
    CHECK_EQ_STR(sk_table_meta_get(got, "selection.xmax"), "0.75");
    CHECK_EQ_STR(sk_table_meta_get(got, "selection.vars"), "pressure,density");
    CHECK_EQ_STR(sk_table_meta_get(got, "ramses.namelist"), "&RUN_PARAMS\nhydro=.true.\n/\n");
    sk_table_free(got);
    sk_selection_set_vars(&sel, "density,temperature", &e);
    CHECK(sk_store_read(s, "gas", &sel, NULL, &got, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "no variable temperature");
    CHECK_CONTAINS(e.message, "velocity_x");
    CHECK(sk_store_read(s, "hydro", NULL, NULL, &got, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "no table hydro in this file (it holds: gas)");
    sk_table *d;
    CHECK_OK(sk_store_describe(s, "gas", &d, &e), &e);
    CHECK_EQ_INT(sk_table_nrows(d), 0);
    CHECK_EQ_INT(sk_table_ncols(d), 9);
    CHECK_EQ_STR(sk_table_meta_get(d, "selection.xmin"), "0.25");
    sk_table_free(d);
    sk_selection_clear(&sel);
    sk_store_close(s);
    sk_table_free(hydro);
}

static void test_empty_and_errors_writing(void)
{
    sk_table *empty = sk_table_new(0);
    sk_error e;
    sk_table_add(empty, "level", SK_INT32, &e);
    sk_table_add(empty, "cx", SK_INT32, &e);
    sk_table_add(empty, "cy", SK_INT32, &e);
    sk_table_add(empty, "cz", SK_INT32, &e);
    sk_table_add(empty, "density", SK_FLOAT64, &e);
    char path[512];
    tmp_path(g_dir, "empty.snapkit", path, sizeof path);
    const sk_table *tables[] = {empty, empty};
    const char *names[] = {"a", "a"};
    CHECK(sk_store_save(path, tables, names, 2, NULL, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "two tables called a");
    CHECK(access(path, F_OK) != 0);
    CHECK_OK(sk_store_save(path, tables, NULL, 1, NULL, NULL, &e), &e);
    sk_store *s;
    CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
    sk_table *got = read_table(s, "table1", NULL, 0, 0, NULL);
    CHECK_EQ_INT(sk_table_nrows(got), 0);
    CHECK_EQ_INT(sk_table_ncols(got), 5);
    sk_table_free(got);
    sk_store_close(s);
    sk_table_free(empty);

    /* A cell whose indices do not fit its level. */
    sk_table *bad = cell_table(&g_cells, "hydro", 0);
    ((int32_t *)sk_table_find(bad, "cx")->data)[10] = 1 << 20;
    tables[0] = bad;
    CHECK(sk_store_save(path, tables, NULL, 1, NULL, NULL, &e) == SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "row 10");
    CHECK_CONTAINS(e.message, "table hydro");
    sk_table_free(bad);
}

/* Whether the process maps the file (a line of /proc/self/maps ends in it). */
static int is_mapped(const char *path)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[1024];
    int found = 0;
    size_t n = strlen(path);
    while (f && !found && fgets(line, sizeof line, f)) {
        size_t k = strcspn(line, "\n");
        found = k >= n && memcmp(line + k - n, path, n) == 0;
    }
    if (f)
        fclose(f);
    return found;
}

/* Reads agree on 1 and 2 threads; the handle's first read is by pread and
 * the next through a mapping (a command reads once; a loop maps), with the
 * same result. */
static void test_threads_agree(void)
{
    sk_table *hydro = cell_table(&g_cells, "hydro", 0);
    const sk_table *tables[] = {hydro};
    char a[512], b[512];
    tmp_path(g_dir, "t1.snapkit", a, sizeof a);
    tmp_path(g_dir, "t2.snapkit", b, sizeof b);
    sk_error e;
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    opt.threads = 1;
    CHECK_OK(sk_store_save(a, tables, NULL, 1, &opt, NULL, &e), &e);
    opt.threads = 2;
    CHECK_OK(sk_store_save(b, tables, NULL, 1, &opt, NULL, &e), &e);
    CHECK_EQ_INT(file_size(a), file_size(b));
    sk_store *s;
    CHECK_OK(sk_store_open(&s, a, NULL, &e), &e);
    sk_table *x = read_table(s, "hydro", NULL, 0, 1, NULL);
    CHECK(!is_mapped(a));
    sk_table *y = read_table(s, "hydro", NULL, 0, 2, NULL);
    CHECK(is_mapped(a));
    CHECK(memcmp(sk_table_find(x, "density")->data, sk_table_find(y, "density")->data,
                 (size_t)sk_table_nrows(x) * 8) == 0);
    check_same(y, hydro, "hydro, mapped");
    sk_table_free(x);
    sk_table_free(y);
    sk_store_close(s);
    CHECK(!is_mapped(a));
    sk_table_free(hydro);
}

/* A table of more than 16 MB is written around the caches (read.c):
 * its reads, LZ4 or raw, by pread and through the mapping, on 1 and 2
 * threads, give back the table saved. Raw columns of 64 KB and more are
 * read by a pread of their own (16384-row chunks), smaller ones with
 * their chunk. */
static void test_large_table(void)
{
    sk_table *part = particle_table(400000); /* 53 bytes a row: 21 MB */
    const sk_table *tables[] = {part};
    char path[512];
    tmp_path(g_dir, "large.snapkit", path, sizeof path);
    sk_error e;
    sk_store_write_options opt;
    sk_store_write_options_init(&opt);
    static const struct {
        int compress, chunk_rows;
        const char *what;
    } ways[] = {{1, 0, "large table, LZ4"},
                {0, 0, "large table, raw"},
                {0, 16384, "large table, raw, 16384-row chunks"}};
    for (int w = 0; w < 3; w++) {
        opt.compress = ways[w].compress;
        opt.chunk_rows = ways[w].chunk_rows;
        CHECK_OK(sk_store_save(path, tables, NULL, 1, &opt, NULL, &e), &e);
        sk_store *s;
        CHECK_OK(sk_store_open(&s, path, NULL, &e), &e);
        for (int threads = 1; threads <= 2; threads++) {
            sk_table *got = read_table(s, "particles", NULL, 0, threads, NULL);
            check_same(got, part, ways[w].what);
            sk_table_free(got);
        }
        CHECK(is_mapped(path));
        sk_store_close(s);
    }
    sk_table_free(part);
}

int main(void)
{
    CHECK(test_tmpdir(g_dir, sizeof g_dir) != NULL);
    build(&g_cells, 0, 0, 0, 0, 3, 7);
    test_unshuffle_forms();
    test_copy_around_cache();
    test_codecs();
    test_roundtrip_all_tables();
    test_integer_widths_and_codecs();
    test_regions(1);
    test_regions(0);
    test_with_coarse();
    test_vars_and_metadata();
    test_empty_and_errors_writing();
    test_threads_agree();
    test_large_table();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
    CHECK(system(cmd) == 0);
    cells_free(&g_cells);
    return test_done();
}
