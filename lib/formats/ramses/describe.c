/* The output's text facts: as table metadata and as JSON. */
#include <stdio.h>
#include <string.h>

#include "formats/ramses/internal.h"
#include "snapkit/util/json.h"
#include "snapkit/memory.h"
#include "snapkit/util/number.h"

/* "name:type,name:type" of a variable list into buf. */
static void var_list(const rs_var *v, int n, char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%s:%c", i ? "," : "", v[i].name, v[i].type);
}

static int meta_key_value(sk_table *t, const char *prefix, const char *key, const char *value)
{
    char k[256];
    snprintf(k, sizeof k, "%s%s", prefix, key);
    for (char *c = k; *c; c++)
        if (*c == ' ')
            *c = '_';
    return sk_table_meta_set(t, k, value);
}

static int describe_basics(const sk_ramses *r, sk_table *t)
{
    const sk_ramses_info *in = &r->info;
    int rc = SK_OK;
    const struct {
        const char *key;
        double v;
    } reals[] = {{"boxlen", in->boxlen}, {"unit_l", in->unit_l}, {"unit_d", in->unit_d},
                 {"unit_t", in->unit_t}, {"time", in->time},     {"aexp", in->aexp},
                 {"H0", in->H0},         {"omega_m", in->omega_m}, {"omega_l", in->omega_l},
                 {"omega_k", in->omega_k}, {"omega_b", in->omega_b}};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0] && rc == SK_OK; i++)
        rc = sk_table_meta_set_double(t, reals[i].key, reals[i].v);
    if (rc == SK_OK && r->gamma > 0)
        rc = sk_table_meta_set_double(t, "gamma", r->gamma);
    const struct {
        const char *key;
        int v;
    } ints[] = {{"ndim", in->ndim},     {"levelmin", in->levelmin},
                {"levelmax", in->levelmax}, {"ncpu", in->ncpu},
                {"ramses.output", in->output}, {"cosmological", in->cosmological}};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0] && rc == SK_OK; i++)
        rc = sk_table_meta_setf(t, ints[i].key, "%d", ints[i].v);
    if (rc == SK_OK)
        rc = sk_table_meta_setf(t, "coarse_grid", "%dx%dx%d", in->coarse[0], in->coarse[1],
                                in->coarse[2]);
    if (rc == SK_OK)
        rc = sk_table_meta_setf(t, "ramses.level_shift", "%d", in->level_shift);
    if (rc == SK_OK)
        rc = sk_table_meta_set(t, "source", r->dir);
    if (rc == SK_OK)
        rc = sk_table_meta_set(t, "ramses.format",
                               in->format == SK_RAMSES_2017 ? "2017" : "current");
    return rc;
}

static int describe_bound_keys(const sk_ramses *r, sk_table *t)
{
    const sk_ramses_info *in = &r->info;
    if (!in->bound_key || in->ndomain == 0)
        return SK_OK;
    size_t size = (size_t)(in->ndomain + 1) * SK_NUMBER_BUFSIZE + 1, k = 0;
    char *buf = sk_malloc(size);
    if (!buf)
        return SK_ERR_NOMEM;
    for (int d = 0; d <= in->ndomain; d++) {
        if (d)
            buf[k++] = ' ';
        k += (size_t)sk_format_double(in->bound_key[d], buf + k);
    }
    buf[k] = '\0';
    int rc = sk_table_meta_set(t, "ramses.info.bound_key", buf);
    sk_free(buf);
    return rc;
}

int sk_ramses_describe(const sk_ramses *r, sk_table *t, sk_error *err)
{
    int rc = describe_basics(r, t);
    for (int i = 0; i < r->info_text.keys.n && rc == SK_OK; i++)
        rc = meta_key_value(t, "ramses.info.", r->info_text.keys.items[i].key,
                            r->info_text.keys.items[i].value);
    if (rc == SK_OK)
        rc = describe_bound_keys(r, t);
    for (int i = 0; i < r->header.counts.n && rc == SK_OK; i++)
        rc = meta_key_value(t, "ramses.header.", r->header.counts.items[i].key,
                            r->header.counts.items[i].value);
    if (rc == SK_OK && r->header.fields)
        rc = sk_table_meta_set(t, "ramses.header.fields", r->header.fields);
    if (rc == SK_OK && r->namelist)
        rc = sk_table_meta_set(t, "ramses.namelist", r->namelist);
    for (int i = 0; i < r->rt_info.n && rc == SK_OK; i++)
        rc = meta_key_value(t, "ramses.info_rt.", r->rt_info.items[i].key,
                            r->rt_info.items[i].value);
    char buf[8192];
    if (rc == SK_OK && r->rt_desc.n) {
        var_list(r->rt_desc.vars, r->rt_desc.n, buf, sizeof buf);
        rc = sk_table_meta_set(t, "ramses.rt_descriptor", buf);
    }
    if (rc == SK_OK && r->hydro_desc.n) {
        var_list(r->hydro_desc.vars, r->hydro_desc.n, buf, sizeof buf);
        rc = sk_table_meta_set(t, "ramses.hydro_descriptor", buf);
    }
    if (rc == SK_OK && r->part_desc.n) {
        var_list(r->part_desc.vars, r->part_desc.n, buf, sizeof buf);
        rc = sk_table_meta_set(t, "ramses.part_descriptor", buf);
    }
    if (rc != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory for metadata");
    return SK_OK;
}

static void json_vars(sk_json *j, const char *key, const rs_var *v, int n)
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int i = 0; i < n; i++) {
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", v[i].name);
        char type[2] = {v[i].type, '\0'};
        sk_json_kv_string(j, "type", type);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

static void json_descriptor(sk_json *j, const char *key, const rs_varlist *d)
{
    sk_json_key(j, key);
    if (!d->n) {
        sk_json_null(j);
        return;
    }
    sk_json_object_begin(j);
    sk_json_kv_string(j, "form", d->version == 1 ? "version 1" : "late-2017 key/value");
    json_vars(j, "variables", d->vars, d->n);
    sk_json_object_end(j);
}

static void json_info(sk_json *j, const sk_ramses *r)
{
    sk_json_key(j, "info");
    sk_json_object_begin(j);
    for (int i = 0; i < r->info_text.keys.n; i++) {
        sk_json_key(j, r->info_text.keys.items[i].key);
        sk_json_text_value(j, r->info_text.keys.items[i].value);
    }
    sk_json_key(j, "bound_key");
    sk_json_array_begin(j);
    for (int d = 0; r->info.bound_key && d <= r->info.ndomain; d++)
        sk_json_double(j, r->info.bound_key[d]);
    sk_json_array_end(j);
    sk_json_object_end(j);
}

/* info_rt's keys, or null without RAMSES-RT. */
static void json_info_rt(sk_json *j, const sk_ramses *r)
{
    sk_json_key(j, "info_rt");
    if (!r->rt_info.n) {
        sk_json_null(j);
        return;
    }
    sk_json_object_begin(j);
    for (int i = 0; i < r->rt_info.n; i++) {
        sk_json_key(j, r->rt_info.items[i].key);
        sk_json_text_value(j, r->rt_info.items[i].value);
    }
    sk_json_object_end(j);
}

int sk_ramses_header_family(const char *label, int *code)
{
    static const struct {
        const char *label;
        int code;
    } k_labels[] = {
        {"other_tracer", SK_FAMILY_OTHER_TRACER}, {"debris_tracer", SK_FAMILY_DEBRIS_TRACER},
        {"cloud_tracer", SK_FAMILY_CLOUD_TRACER}, {"star_tracer", SK_FAMILY_STAR_TRACER},
        {"other_tracer_2", SK_FAMILY_DM_TRACER},  {"gas_tracer", SK_FAMILY_GAS_TRACER},
        {"DM", SK_FAMILY_DM},                     {"star", SK_FAMILY_STAR},
        {"cloud", SK_FAMILY_CLOUD},               {"debris", SK_FAMILY_DEBRIS},
        {"other", SK_FAMILY_OTHER},               {"undefined", SK_FAMILY_UNDEFINED},
    };
    for (size_t i = 0; i < sizeof k_labels / sizeof k_labels[0]; i++)
        if (!strcmp(label, k_labels[i].label)) {
            *code = k_labels[i].code;
            return SK_OK;
        }
    return SK_ERR_ARG;
}

static void json_families(sk_json *j, const sk_ramses *r)
{
    sk_json_key(j, "families");
    sk_json_array_begin(j);
    for (int i = 0; i < r->header.counts.n; i++) {
        int code;
        if (sk_ramses_header_family(r->header.counts.items[i].key, &code) != SK_OK)
            continue;
        sk_json_object_begin(j);
        sk_json_kv_string(j, "name", sk_family_name(code));
        sk_json_kv_int(j, "family", code);
        sk_json_key(j, "count");
        sk_json_text_value(j, r->header.counts.items[i].value);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

static void json_header(sk_json *j, const sk_ramses *r)
{
    sk_json_key(j, "header");
    if (!r->has_header) {
        sk_json_null(j);
        return;
    }
    sk_json_object_begin(j);
    sk_json_key(j, "counts");
    sk_json_object_begin(j);
    for (int i = 0; i < r->header.counts.n; i++) {
        sk_json_key(j, r->header.counts.items[i].key);
        sk_json_text_value(j, r->header.counts.items[i].value);
    }
    sk_json_object_end(j);
    sk_json_kv_string(j, "fields", r->header.fields ? r->header.fields : "");
    json_families(j, r);
    sk_json_object_end(j);
}

/* One code length in the comoving and little-h units. */
static void json_comoving_lengths(sk_json *j, const sk_ramses_info *in,
                                  const sk_cosmology_summary *s)
{
    static const char *const names[] = {"kpccm", "Mpccm", "Mpc/h", "kpccm/h", "Mpccm/h"};
    sk_units u;
    sk_units_set(&u, in->boxlen, in->unit_l, in->unit_d, in->unit_t);
    u.aexp = s->aexp;
    u.h = s->h;
    sk_json_key(j, "length_unit");
    sk_json_object_begin(j);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        double cm = 0.0;
        if (sk_length_unit_cm_at(&u, names[i], &cm, NULL) == SK_OK)
            sk_json_kv_double(j, names[i], in->unit_l / cm);
    }
    sk_json_object_end(j);
}

static int json_cosmology(sk_json *j, const sk_ramses *r, sk_error *err)
{
    const sk_ramses_info *in = &r->info;
    sk_cosmology c = {in->H0, in->omega_m, in->omega_l};
    sk_cosmology_summary s;
    int rc = rs_cosmology_summarize(in->cosmological, &c, in->aexp, in->time, in->unit_t, &s, err);
    if (rc != SK_OK)
        return rc;
    sk_json_key(j, "cosmology");
    sk_json_object_begin(j);
    sk_json_key(j, "cosmological");
    sk_json_bool(j, s.cosmological);
    const double gyr = 1e9 * 3.15576e7;
    if (s.cosmological) {
        sk_json_kv_double(j, "aexp", s.aexp);
        sk_json_kv_double(j, "redshift", s.redshift);
        sk_json_kv_double(j, "H0", in->H0);
        sk_json_kv_double(j, "h", s.h);
        sk_json_kv_double(j, "omega_m", in->omega_m);
        sk_json_kv_double(j, "omega_l", in->omega_l);
        sk_json_kv_double(j, "omega_k", in->omega_k);
        sk_json_kv_double(j, "omega_b", in->omega_b);
        sk_json_kv_double(j, "age_today_Gyr", s.age_today / gyr);
        sk_json_kv_double(j, "lookback_time_Gyr", s.lookback / gyr);
        json_comoving_lengths(j, in, &s);
    }
    sk_json_kv_double(j, "age_Gyr", s.age / gyr);
    sk_json_kv_double(j, "age_code", s.age / in->unit_t);
    sk_json_object_end(j);
    return SK_OK;
}

static void json_usage(sk_json *j, const sk_ramses_usage *u)
{
    int64_t total = 0, files = 0;
    for (int k = 0; k < SK_RAMSES_NKINDS; k++) {
        total += u->bytes[k];
        files += u->files[k];
    }
    sk_json_key(j, "disk");
    sk_json_object_begin(j);
    for (int k = 0; k < SK_RAMSES_NKINDS; k++) {
        sk_json_key(j, sk_ramses_kind_name(k));
        sk_json_object_begin(j);
        sk_json_kv_int(j, "files", u->files[k]);
        sk_json_kv_int(j, "bytes", u->bytes[k]);
        sk_json_kv_double(j, "percent", total ? 100.0 * (double)u->bytes[k] / (double)total : 0);
        sk_json_object_end(j);
    }
    sk_json_key(j, "total");
    sk_json_object_begin(j);
    sk_json_kv_int(j, "files", files);
    sk_json_kv_int(j, "bytes", total);
    sk_json_object_end(j);
    sk_json_object_end(j);
}

int sk_ramses_info_json(const sk_ramses *r, sk_json *j, sk_error *err)
{
    sk_ramses_usage u;
    int rc = sk_ramses_disk_usage(r, &u, err);
    if (rc != SK_OK)
        return rc;
    const sk_ramses_info *in = &r->info;
    sk_json_object_begin(j);
    sk_json_kv_string(j, "path", r->dir);
    sk_json_kv_int(j, "output", in->output);
    sk_json_kv_string(j, "format", in->format == SK_RAMSES_2017 ? "2017" : "current");
    json_info(j, r);
    /* The box's coarse cells; levels here are RAMSES's + level_shift. */
    sk_json_key(j, "coarse_grid");
    sk_json_object_begin(j);
    sk_json_kv_int(j, "nx", in->coarse[0]);
    sk_json_kv_int(j, "ny", in->coarse[1]);
    sk_json_kv_int(j, "nz", in->coarse[2]);
    sk_json_kv_int(j, "level_shift", in->level_shift);
    sk_json_kv_int(j, "levelmin", in->levelmin);
    sk_json_kv_int(j, "levelmax", in->levelmax);
    sk_json_object_end(j);
    json_info_rt(j, r);
    if ((rc = json_cosmology(j, r, err)) != SK_OK)
        return rc;
    json_header(j, r);
    sk_json_key(j, "namelist");
    if (r->namelist)
        sk_json_string(j, r->namelist);
    else
        sk_json_null(j);
    json_descriptor(j, "hydro_descriptor", &r->hydro_desc);
    json_descriptor(j, "part_descriptor", &r->part_desc);
    json_descriptor(j, "rt_descriptor", &r->rt_desc);
    sk_json_key(j, "components");
    sk_json_object_begin(j);
    sk_json_key(j, "amr");
    sk_json_bool(j, 1);
    for (int k = 0; sk_ramses_component_name(k); k++) {
        sk_json_key(j, sk_ramses_component_name(k));
        sk_json_bool(j, sk_ramses_has_component(r, sk_ramses_component_name(k)));
    }
    sk_json_object_end(j);
    sk_json_key(j, "columns");
    sk_json_object_begin(j);
    if (in->has_hydro)
        json_vars(j, "hydro", r->hydro_vars, in->nvar_hydro);
    if (in->has_gravity)
        json_vars(j, "gravity", r->grav_vars, r->ngrav);
    if (in->has_rt)
        json_vars(j, "rt", r->rt_vars, in->nvar_rt);
    if (in->has_clump_field)
        json_vars(j, "clump_field", &r->clump_field_var, 1);
    if (in->has_particles) {
        json_vars(j, "particles", r->part_vars, r->npart_vars);
        sk_json_key(j, "particles_derived");
        sk_json_array_begin(j);
        if (r->part_family_derived)
            sk_json_string(j, "family");
        sk_json_array_end(j);
    }
    sk_json_object_end(j);
    if (r->gamma > 0)
        sk_json_kv_double(j, "gamma", r->gamma);
    json_usage(j, &u);
    sk_json_object_end(j);
    if (j->failed)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory writing JSON");
    return SK_OK;
}
