/* Passes over components of a source (pass.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/pass.h"
#include "snapkit/memory.h"

typedef struct pass_feed {
    const an_pass *p;
    int nthreads, begun;
} pass_feed;

static int feed_begin(void *ctx, int nthreads, const sk_table *schema, sk_error *err)
{
    (void)schema;
    pass_feed *f = ctx;
    f->nthreads = nthreads;
    f->begun = 1;
    return f->p->begin(f->p->ctx, nthreads, err);
}

static int feed_batch(void *ctx, int thread, const sk_table *batch, const sk_batch_info *info,
                      sk_error *err)
{
    (void)info;
    pass_feed *f = ctx;
    return f->p->batch(f->p->ctx, thread, batch, err);
}

int an_pass_run(sk_source *src, const char *component, const sk_selection *sel,
                const sk_read_options *opt, const an_pass *p, sk_error *err)
{
    pass_feed f = {.p = p};
    sk_consumer c = {.ctx = &f, .begin = feed_begin, .batch = feed_batch};
    int rc = sk_source_stream(src, component, sel, opt, &c, NULL, err);
    if (f.begun) {
        int end = p->end(p->ctx, f.nthreads, rc == SK_OK, err);
        rc = rc == SK_OK ? end : rc;
    }
    return rc;
}

int an_shared(const sk_read_options *opt)
{
    return opt && opt->share_count > 1;
}

/* The default: the gas when the source has it, else the particles. */
static int default_component(const sk_source *src, const char **names, int *n, sk_error *err)
{
    if (sk_source_has_component(src, "hydro"))
        names[(*n)++] = "hydro";
    else if (sk_source_has_component(src, "particles"))
        names[(*n)++] = "particles";
    else
        return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1,
                       "has neither hydro nor particles to find a centre in");
    return SK_OK;
}

/* The static name of a component the source has, or NULL. */
static const char *known_component(const sk_source *src, const char *name, size_t len)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), name);
    if (!strcmp(buf, "gas"))
        snprintf(buf, sizeof buf, "hydro");
    for (int k = 0; sk_ramses_component_name(k); k++)
        if (!strcmp(buf, sk_ramses_component_name(k)))
            return sk_source_has_component(src, buf) ? sk_ramses_component_name(k) : NULL;
    return NULL;
}

int an_components(const sk_source *src, const char *list, const char **names, int *n,
                  sk_error *err)
{
    *n = 0;
    if (!list || !*list)
        return default_component(src, names, n, err);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const char *name = known_component(src, p, len);
        if (!name)
            return sk_fail(err, SK_ERR_ARG, sk_source_path(src), -1, "has no component '%.*s'",
                           (int)len, p);
        int dup = 0;
        for (int i = 0; i < *n; i++)
            dup |= names[i] == name;
        if (!dup && *n < AN_MAX_COMPONENTS)
            names[(*n)++] = name;
        p += len + (p[len] == ',');
    }
    return *n ? SK_OK : default_component(src, names, n, err);
}

/* The variables of want[] that a .snapkit table has, as "a,b,c". */
static int store_vars(sk_store *st, const char *table, const char *const *want, int n,
                      char *csv, size_t size, sk_error *err)
{
    sk_table *schema = NULL;
    int rc = sk_store_describe(st, table, &schema, err);
    csv[0] = 0;
    for (int i = 0; rc == SK_OK && i < n; i++)
        if (sk_table_find(schema, want[i])) {
            size_t len = strlen(csv);
            snprintf(csv + len, size - len, "%s%s", len ? "," : "", want[i]);
        }
    sk_table_free(schema);
    return rc;
}

int an_selection_vars(const sk_source *src, const char *component, const sk_selection *sel,
                      const char *const *want, int n, sk_selection *out, sk_error *err)
{
    int rc = sk_selection_copy(out, sel, err);
    char csv[1024] = "";
    if (rc == SK_OK && sk_source_store(src))
        rc = store_vars(sk_source_store(src), component, want, n, csv, sizeof csv, err);
    if (rc == SK_OK)
        rc = sk_selection_set_vars(out, csv, err); /* "": every variable */
    return rc;
}

void an_error_prefix(sk_error *err, const char *what)
{
    if (!err)
        return;
    char msg[sizeof err->message + 128];
    snprintf(msg, sizeof msg, "%.120s: %s", what, err->message);
    size_t n = strlen(msg) < sizeof err->message ? strlen(msg) : sizeof err->message - 1;
    memcpy(err->message, msg, n); /* the message's end is cut when it is too long */
    err->message[n] = 0;
}
