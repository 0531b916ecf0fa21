/* A source: a RAMSES output folder or a .snapkit file behind one handle,
 * the one place that tells the kinds apart. */
#include <string.h>

#include "snapkit/memory.h"
#include "snapkit/util/mpi.h"
#include "snapkit/source.h"

struct sk_source {
    sk_source_format kind;
    char *path;
    sk_ramses *ramses; /* one of ramses and store is set, by kind */
    sk_store *store;
};

sk_source_format sk_source_path_kind(const char *path)
{
    return sk_store_is_file(path) ? SK_SOURCE_SNAPKIT : SK_SOURCE_RAMSES;
}

int sk_source_open(sk_source **out, const char *path, sk_error *err)
{
    *out = NULL;
    sk_source *s = sk_calloc(1, sizeof *s);
    if (!s || !(s->path = sk_strdup(path))) {
        sk_free(s);
        return sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    }
    s->kind = sk_source_path_kind(path);
    int rc = s->kind == SK_SOURCE_SNAPKIT ? sk_store_open(&s->store, path, NULL, err)
                                          : sk_ramses_open(&s->ramses, path, err);
    if (rc != SK_OK) {
        sk_source_close(s);
        return rc;
    }
    *out = s;
    return SK_OK;
}

int sk_source_open_mpi(sk_source **out, const char *path, sk_error *err)
{
    int rc = sk_source_open(out, path, err);
    sk_mpi_world w;
    sk_mpi_get_world(&w);
    if (w.size <= 1)
        return rc;
    rc = sk_mpi_agree(rc, err);
    if (rc == SK_OK && (*out)->ramses)
        rc = sk_mpi_ramses_sizes((*out)->ramses, err);
    if (rc != SK_OK) {
        sk_source_close(*out);
        *out = NULL;
    }
    return rc;
}

void sk_source_close(sk_source *src)
{
    if (!src)
        return;
    sk_ramses_close(src->ramses);
    sk_store_close(src->store);
    sk_free(src->path);
    sk_free(src);
}

sk_source_format sk_source_kind(const sk_source *src)
{
    return src->kind;
}

const char *sk_source_kind_name(sk_source_format kind)
{
    switch (kind) {
    case SK_SOURCE_RAMSES:
        return "ramses";
    case SK_SOURCE_SNAPKIT:
        return "snapkit";
    }
    return NULL;
}

const char *sk_source_path(const sk_source *src)
{
    return src->path;
}

sk_ramses *sk_source_ramses(const sk_source *src)
{
    return src->ramses;
}

sk_store *sk_source_store(const sk_source *src)
{
    return src->store;
}

int sk_source_components(const sk_source *src, const char **names, int max)
{
    int n = 0;
    if (src->store) {
        sk_store_file_info fi;
        sk_store_get_file_info(src->store, &fi);
        for (int i = 0; i < fi.ntables && n < max; i++) {
            sk_store_table_info ti;
            if (sk_store_get_table_info(src->store, i, &ti, NULL) == SK_OK)
                names[n++] = ti.name;
        }
        return n;
    }
    for (int k = 0; sk_ramses_component_name(k) && n < max; k++)
        if (sk_ramses_has_component(src->ramses, sk_ramses_component_name(k)))
            names[n++] = sk_ramses_component_name(k);
    return n;
}

int sk_source_has_component(const sk_source *src, const char *component)
{
    if (src->store)
        return sk_store_table_index(src->store, component) >= 0;
    return sk_ramses_has_component(src->ramses, component);
}

/* The units a .snapkit file's table records (the first table holds the
 * output's). */
static int store_units(const sk_source *src, const char *table, sk_units *out, sk_error *err)
{
    sk_store_table_info ti;
    if (!table) {
        sk_store_file_info fi;
        sk_store_get_file_info(src->store, &fi);
        if (fi.ntables == 0)
            return sk_fail(err, SK_ERR_EMPTY, src->path, -1, "the file holds no table");
        int rc = sk_store_get_table_info(src->store, 0, &ti, err);
        if (rc != SK_OK)
            return rc;
        table = ti.name;
    }
    sk_table *schema = NULL;
    int rc = sk_store_describe(src->store, table, &schema, err);
    if (rc != SK_OK)
        return rc;
    sk_units_from_table(out, schema);
    sk_table_free(schema);
    return SK_OK;
}

int sk_source_units(const sk_source *src, const char *component, sk_units *out, sk_error *err)
{
    if (src->store)
        return store_units(src, component, out, err);
    sk_ramses_units(src->ramses, out);
    return SK_OK;
}

int sk_source_file_count(const sk_source *src, const char *component, int64_t *count,
                         sk_error *err)
{
    if (src->ramses) {
        *count = sk_ramses_get_info(src->ramses)->ncpu;
        return SK_OK;
    }
    sk_error local;
    sk_error *e = err ? err : &local;
    *count = 0;
    return sk_store_chunks_for(src->store, component, NULL, NULL, count, e) < 0 ? e->code : SK_OK;
}

int sk_source_read(sk_source *src, const char *component, const sk_selection *sel,
                   const sk_read_options *opt, sk_table **out, sk_read_stats *stats,
                   sk_error *err)
{
    sk_read_options none = {0};
    sk_read_stats local;
    opt = opt ? opt : &none;
    stats = stats ? stats : &local;
    if (src->store)
        return sk_store_read(src->store, component, sel, opt, out, stats, err);
    return sk_ramses_read(src->ramses, component, sel, opt, out, stats, err);
}

int sk_source_stream(sk_source *src, const char *component, const sk_selection *sel,
                     const sk_read_options *opt, const sk_consumer *consumer,
                     sk_read_stats *stats, sk_error *err)
{
    sk_read_options none = {0};
    sk_read_stats local;
    opt = opt ? opt : &none;
    stats = stats ? stats : &local;
    if (src->store)
        return sk_store_stream(src->store, component, sel, opt, consumer, stats, err);
    return sk_ramses_stream(src->ramses, component, sel, opt, consumer, stats, err);
}
