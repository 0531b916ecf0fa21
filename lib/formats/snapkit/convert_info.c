/* What a .snapkit file holds, as JSON: the same keys `snapkit info` gives
 * for the RAMSES output it came from (rebuilt from the stored metadata),
 * plus a "store" object describing the file itself. */
#include <stdio.h>
#include <string.h>

#include "snapkit/convert.h"
#include "snapkit/util/json.h"
#include "snapkit/memory.h"
#include "snapkit/ramses.h"
#include "snapkit/util/number.h"
#include "formats/snapkit/reader.h"

/* The table whose metadata describes the source (the first with RAMSES
 * info keys, else the first table). */
static const sk_table *source_meta(const sk_store *s)
{
    for (int i = 0; i < s->footer.ntables; i++)
        if (sk_table_meta_get(s->footer.tables[i].schema, "ramses.info.ncpu"))
            return s->footer.tables[i].schema;
    return s->footer.ntables ? s->footer.tables[0].schema : s->footer.meta;
}

static void json_info(sk_json *j, const sk_table *m)
{
    static const char prefix[] = "ramses.info.";
    sk_json_key(j, "info");
    sk_json_object_begin(j);
    const char *bound = NULL;
    for (int i = 0; i < sk_table_meta_count(m); i++) {
        const char *k = sk_table_meta_key(m, i);
        if (strncmp(k, prefix, sizeof prefix - 1) != 0)
            continue;
        if (!strcmp(k + sizeof prefix - 1, "bound_key")) {
            bound = sk_table_meta_value(m, i);
            continue;
        }
        sk_json_key(j, k + sizeof prefix - 1);
        sk_json_text_value(j, sk_table_meta_value(m, i));
    }
    sk_json_key(j, "bound_key");
    sk_json_array_begin(j);
    for (const char *p = bound; p && *p;) {
        double d;
        const char *stop;
        if (!sk_parse_double(p, p + strlen(p), &d, &stop))
            break;
        sk_json_double(j, d);
        p = stop;
        while (*p == ' ')
            p++;
    }
    sk_json_array_end(j);
    sk_json_object_end(j);
}

/* The header's counts per particle family, as the output's info has them. */
static void json_families(sk_json *j, const sk_table *m, const char *prefix)
{
    size_t plen = strlen(prefix);
    sk_json_key(j, "families");
    sk_json_array_begin(j);
    for (int i = 0; i < sk_table_meta_count(m); i++) {
        const char *k = sk_table_meta_key(m, i);
        int code;
        if (strncmp(k, prefix, plen) != 0 || sk_ramses_header_family(k + plen, &code) != SK_OK)
            continue;
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", sk_family_name(code));
        sk_json_kv_int(j, "family", code);
        sk_json_key(j, "count");
        sk_json_text_value(j, sk_table_meta_value(m, i));
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

static void json_header(sk_json *j, const sk_table *m)
{
    static const char prefix[] = "ramses.header.";
    sk_json_key(j, "header");
    const char *fields = sk_table_meta_get(m, "ramses.header.fields");
    int any = 0;
    for (int i = 0; i < sk_table_meta_count(m) && !any; i++)
        any = !strncmp(sk_table_meta_key(m, i), prefix, sizeof prefix - 1);
    if (!any) {
        sk_json_null(j);
        return;
    }
    sk_json_object_begin(j);
    sk_json_key(j, "counts");
    sk_json_object_begin(j);
    for (int i = 0; i < sk_table_meta_count(m); i++) {
        const char *k = sk_table_meta_key(m, i);
        if (strncmp(k, prefix, sizeof prefix - 1) != 0 || !strcmp(k, "ramses.header.fields"))
            continue;
        sk_json_key(j, k + sizeof prefix - 1);
        sk_json_text_value(j, sk_table_meta_value(m, i));
    }
    sk_json_object_end(j);
    sk_json_kv_string(j, "fields", fields ? fields : "");
    json_families(j, m, prefix);
    sk_json_object_end(j);
}

/* "name:type,name:type" as [{"name", "type"}, ...]. */
static void json_name_types(sk_json *j, const char *list)
{
    sk_json_array_begin(j);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        const char *colon = memchr(p, ':', n);
        char name[256], type[16];
        size_t nn = colon ? (size_t)(colon - p) : n;
        snprintf(name, sizeof name, "%.*s", (int)nn, p);
        snprintf(type, sizeof type, "%.*s", colon ? (int)(n - nn - 1) : 0, colon ? colon + 1 : "");
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", name);
        sk_json_kv_string(j, "type", type);
        sk_json_object_end(j);
        p = comma ? comma + 1 : NULL;
    }
    sk_json_array_end(j);
}

static void json_descriptor(sk_json *j, const sk_table *m, const char *key, const char *meta)
{
    sk_json_key(j, key);
    const char *list = sk_table_meta_get(m, meta);
    if (!list) {
        sk_json_null(j);
        return;
    }
    const char *format = sk_table_meta_get(m, "ramses.format");
    sk_json_object_begin(j);
    sk_json_kv_string(j, "form", format && !strcmp(format, "2017") ? "late-2017 key/value"
                                                                   : "version 1");
    sk_json_key(j, "variables");
    json_name_types(j, list);
    sk_json_object_end(j);
}

/* RAMSES descriptor type letter of a column type. */
static const char *type_letter(sk_dtype t)
{
    switch (t) {
    case SK_FLOAT64: return "d";
    case SK_FLOAT32: return "f";
    case SK_INT32: return "i";
    case SK_INT64: return "q";
    case SK_INT16: return "h";
    case SK_INT8: return "b";
    default: return sk_dtype_name(t);
    }
}

static int is_cell_key(const st_table *t, const char *name)
{
    return t->geometry == SK_STORE_CELLS &&
           (!strcmp(name, "level") || !strcmp(name, "cx") || !strcmp(name, "cy") ||
            !strcmp(name, "cz") || !strcmp(name, "refined"));
}

static void json_columns(sk_json *j, const sk_store *s)
{
    sk_json_key(j, "columns");
    sk_json_object_begin(j);
    for (int i = 0; i < s->footer.ntables; i++) {
        const st_table *t = &s->footer.tables[i];
        const char *derived = sk_table_meta_get(t->schema, "ramses.derived_columns");
        sk_json_key(j, t->name);
        sk_json_array_begin(j);
        for (int c = 0; c < t->ncols; c++) {
            const sk_column *col = sk_table_col(t->schema, c);
            if (is_cell_key(t, col->name) || (derived && !strcmp(derived, col->name)))
                continue;
            sk_json_object_begin(j);
            sk_json_kv_string(j, "name", col->name);
            sk_json_kv_string(j, "type", type_letter(col->type));
            sk_json_object_end(j);
        }
        sk_json_array_end(j);
        if (!strcmp(t->name, "particles")) {
            sk_json_key(j, "particles_derived");
            sk_json_array_begin(j);
            if (derived)
                sk_json_string(j, derived);
            sk_json_array_end(j);
        }
    }
    sk_json_object_end(j);
}

static int is_component(const char *name)
{
    for (int k = 0; sk_ramses_component_name(k); k++)
        if (!strcmp(name, sk_ramses_component_name(k)))
            return 1;
    return 0;
}

static void json_disk(sk_json *j, const sk_store *s)
{
    sk_json_key(j, "disk");
    sk_json_object_begin(j);
    for (int i = 0; i < s->footer.ntables; i++) {
        sk_store_table_info ti;
        sk_store_get_table_info(s, i, &ti, NULL);
        sk_json_key(j, ti.name);
        sk_json_object_begin(j);
        sk_json_kv_int(j, "chunks", ti.chunks);
        sk_json_kv_int(j, "bytes", ti.bytes_stored);
        sk_json_kv_double(j, "percent", s->size ? 100.0 * (double)ti.bytes_stored / (double)s->size
                                                : 0.0);
        sk_json_object_end(j);
    }
    sk_json_key(j, "total");
    sk_json_object_begin(j);
    sk_json_kv_int(j, "files", 1);
    sk_json_kv_int(j, "bytes", s->size);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

static void json_selection(sk_json *j, const sk_table *m)
{
    static const char prefix[] = "selection.";
    sk_json_key(j, "selection");
    sk_json_object_begin(j);
    for (int i = 0; i < sk_table_meta_count(m); i++) {
        const char *k = sk_table_meta_key(m, i);
        if (strncmp(k, prefix, sizeof prefix - 1) != 0)
            continue;
        sk_json_key(j, k + sizeof prefix - 1);
        sk_json_text_value(j, sk_table_meta_value(m, i));
    }
    sk_json_object_end(j);
}

static const char *geometry_name(int g)
{
    return g == SK_STORE_CELLS ? "cells" : g == SK_STORE_POINTS ? "points" : "rows";
}

static void json_store(sk_json *j, const sk_store *s)
{
    sk_json_key(j, "store");
    sk_json_object_begin(j);
    char version[32];
    snprintf(version, sizeof version, "%d.%d", s->footer.major, s->footer.minor);
    sk_json_kv_string(j, "format_version", version);
    sk_json_kv_int(j, "file_bytes", s->size);
    sk_json_kv_int(j, "footer_bytes", s->footer_bytes);
    sk_json_key(j, "meta");
    sk_json_object_begin(j);
    for (int i = 0; i < sk_table_meta_count(s->footer.meta); i++)
        sk_json_kv_string(j, sk_table_meta_key(s->footer.meta, i),
                          sk_table_meta_value(s->footer.meta, i));
    sk_json_object_end(j);
    sk_json_key(j, "tables");
    sk_json_object_begin(j);
    for (int i = 0; i < s->footer.ntables; i++) {
        const st_table *t = &s->footer.tables[i];
        sk_store_table_info ti;
        sk_store_get_table_info(s, i, &ti, NULL);
        sk_json_key(j, t->name);
        sk_json_object_begin(j);
        sk_json_kv_string(j, "geometry", geometry_name(t->geometry));
        sk_json_kv_int(j, "rows", ti.rows - ti.refined_rows);
        sk_json_kv_int(j, "refined_rows", ti.refined_rows);
        sk_json_kv_int(j, "chunks", ti.chunks);
        sk_json_kv_int(j, "refined_chunks", ti.refined_chunks);
        if (t->geometry == SK_STORE_CELLS) {
            sk_json_kv_int(j, "level_min", ti.level_min);
            sk_json_kv_int(j, "level_max", ti.level_max);
            sk_json_kv_string(j, "lmax",
                              ti.has_refined ? "exact: refined cells stored (--with-coarse)"
                                             : "filters leaves: converted without --with-coarse");
        }
        sk_json_kv_int(j, "curve_bits", ti.curve_bits);
        sk_json_kv_int(j, "bytes_raw", ti.bytes_raw);
        sk_json_kv_int(j, "bytes_stored", ti.bytes_stored);
        sk_json_kv_int(j, "lz4_columns", ti.compressed_columns);
        sk_json_key(j, "statistics"); /* stored: stats of every row reads no chunk */
        sk_json_bool(j, t->stats != NULL);
        json_selection(j, t->schema);
        sk_json_object_end(j);
    }
    sk_json_object_end(j);
    sk_json_object_end(j);
}

int sk_store_info_json(const sk_store *s, sk_json *j, sk_error *err)
{
    const sk_table *m = source_meta(s);
    sk_json_object_begin(j);
    sk_json_kv_string(j, "path", s->path);
    const char *source = sk_table_meta_get(m, "source");
    sk_json_kv_string(j, "source", source ? source : "");
    const char *output = sk_table_meta_get(m, "ramses.output");
    sk_json_key(j, "output");
    if (output)
        sk_json_text_value(j, output);
    else
        sk_json_null(j);
    const char *format = sk_table_meta_get(m, "ramses.format");
    sk_json_key(j, "format");
    if (format)
        sk_json_string(j, format);
    else
        sk_json_null(j);
    json_info(j, m);
    json_header(j, m);
    sk_json_key(j, "namelist");
    const char *nml = sk_table_meta_get(m, "ramses.namelist");
    if (nml)
        sk_json_string(j, nml);
    else
        sk_json_null(j);
    json_descriptor(j, m, "hydro_descriptor", "ramses.hydro_descriptor");
    json_descriptor(j, m, "part_descriptor", "ramses.part_descriptor");
    sk_json_key(j, "components");
    sk_json_object_begin(j);
    sk_json_key(j, "amr");
    sk_json_bool(j, 0);
    for (int k = 0; sk_ramses_component_name(k); k++) {
        sk_json_key(j, sk_ramses_component_name(k));
        sk_json_bool(j, sk_store_table_index(s, sk_ramses_component_name(k)) >= 0);
    }
    for (int i = 0; i < s->footer.ntables; i++) {
        const char *name = s->footer.tables[i].name;
        if (!is_component(name)) {
            sk_json_key(j, name);
            sk_json_bool(j, 1);
        }
    }
    sk_json_object_end(j);
    json_columns(j, s);
    const char *gamma = sk_table_meta_get(m, "gamma");
    if (gamma) {
        sk_json_key(j, "gamma");
        sk_json_text_value(j, gamma);
    }
    json_disk(j, s);
    json_store(j, s);
    sk_json_object_end(j);
    if (j->failed)
        return sk_fail(err, SK_ERR_NOMEM, s->path, -1, "out of memory writing JSON");
    return SK_OK;
}
