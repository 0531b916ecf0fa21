/* Writing maps by the file's extension: .fits and .h5 (every map), .npy and .png
 * (one map each; a "{var}" in the name makes one file per map), and .svg
 * and .pdf when the caller draws the pictures. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "project_internal.h"
#include "snapkit/util/atomicfile.h"
#include "core/atomicfile.h"
#include "snapkit/memory.h"

typedef enum { OUT_FITS, OUT_H5, OUT_NPY, OUT_PNG, OUT_VECTOR } out_format;

static int format_of(const char *path, int pictures, out_format *fmt, sk_error *err)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash)) {
        if (!strcasecmp(dot, ".fits") || !strcasecmp(dot, ".fit") || !strcasecmp(dot, ".fts")) {
            *fmt = OUT_FITS;
            return SK_OK;
        }
        if (!strcasecmp(dot, ".h5") || !strcasecmp(dot, ".hdf5")) {
            *fmt = OUT_H5;
            return SK_OK;
        }
        if (!strcasecmp(dot, ".npy")) {
            *fmt = OUT_NPY;
            return SK_OK;
        }
        if (!strcasecmp(dot, ".png")) {
            *fmt = OUT_PNG;
            return SK_OK;
        }
        if (pictures && (!strcasecmp(dot, ".svg") || !strcasecmp(dot, ".pdf"))) {
            *fmt = OUT_VECTOR;
            return SK_OK;
        }
    }
    return sk_fail(err, SK_ERR_ARG, path, -1,
                   pictures ? "unknown output format: the name must end in .fits, .h5, .npy, "
                              ".png, .svg or .pdf"
                            : "unknown output format: the name must end in .fits, .h5, .npy or "
                              ".png");
}

/* path with every "{var}" replaced by name. */
static char *expand(const char *path, const char *name)
{
    size_t n = strlen(path), m = strlen(name), count = 0;
    for (const char *p = strstr(path, "{var}"); p; p = strstr(p + 5, "{var}"))
        count++;
    char *out = sk_malloc(n + count * m + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const char *p = path; *p;) {
        if (strncmp(p, "{var}", 5) == 0) {
            memcpy(o, name, m);
            o += m;
            p += 5;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

static int remember(char ***list, int *n, const char *name, const char *suffix)
{
    if (!list)
        return SK_OK;
    char **grown = sk_realloc(*list, (size_t)(*n + 1) * sizeof *grown);
    if (!grown)
        return SK_ERR_NOMEM;
    *list = grown;
    size_t len = strlen(name) + strlen(suffix) + 1;
    grown[*n] = sk_malloc(len);
    if (!grown[*n])
        return SK_ERR_NOMEM;
    snprintf(grown[*n], len, "%s%s", name, suffix);
    (*n)++;
    return SK_OK;
}

/* A picture from the caller's writer, whose files follow the maps' fsync
 * setting too. */
static int write_picture(const sk_maps *maps, int i, const char *name, const sk_image_options *img,
                         sk_picture_writer writer, void *ctx, sk_error *err)
{
    int was = atomic_scope_fsync(!maps->no_fsync);
    int rc = proj_write_picture(maps, i, name, img, writer, ctx, err);
    atomic_scope_fsync(was);
    return rc;
}

static int write_each(const sk_maps *maps, const char *path, out_format fmt,
                      const sk_image_options *img, sk_picture_writer writer, void *ctx,
                      char ***list, int *n, sk_error *err)
{
    int pattern = strstr(path, "{var}") != NULL;
    if (!pattern && maps->nmaps > 1)
        return sk_fail(err, SK_ERR_ARG, path, -1,
                       "%d maps need one file each: put {var} in the name (e.g. maps_{var}%s) "
                       "or write .fits", maps->nmaps, fmt == OUT_NPY ? ".npy" : strrchr(path, '.'));
    /* All the maps (and their .json) are renamed into place together, or
     * none is: a name that cannot be written leaves every target as it was. */
    sk_atomic_batch batch;
    sk_atomic_batch_begin(&batch);
    int rc = SK_OK;
    for (int i = 0; i < maps->nmaps && rc == SK_OK; i++) {
        char *name = expand(path, maps->maps[i].name);
        if (!name) {
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
            break;
        }
        rc = fmt == OUT_NPY ? sk_maps_write_npy(maps, i, name, err)
             : writer     ? write_picture(maps, i, name, img, writer, ctx, err)
                          : sk_maps_write_png(maps, i, name, img, err);
        if (rc == SK_OK && remember(list, n, name, "") != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        if (rc == SK_OK && fmt != OUT_NPY && remember(list, n, name, ".json") != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        sk_free(name);
    }
    int done = sk_atomic_batch_end(&batch, rc == SK_OK, err);
    return rc != SK_OK ? rc : done;
}

int sk_maps_write(const sk_maps *maps, const char *path, const sk_image_options *img,
                  char ***written, int *nwritten, sk_error *err)
{
    return sk_maps_write_pictures(maps, path, img, NULL, NULL, written, nwritten, err);
}

int sk_maps_write_pictures(const sk_maps *maps, const char *path, const sk_image_options *img,
                           sk_picture_writer writer, void *ctx, char ***written, int *nwritten,
                           sk_error *err)
{
    char **list = NULL;
    int n = 0;
    out_format fmt = OUT_FITS;
    int rc = format_of(path, writer != NULL, &fmt, err);
    if (rc == SK_OK && (fmt == OUT_FITS || fmt == OUT_H5)) {
        rc = fmt == OUT_FITS ? sk_maps_write_fits(maps, path, err)
                             : sk_maps_write_h5(maps, path, err);
        if (rc == SK_OK && remember(written ? &list : NULL, &n, path, "") != SK_OK)
            rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    } else if (rc == SK_OK) {
        rc = write_each(maps, path, fmt, img, writer, ctx, written ? &list : NULL, &n, err);
    }
    if (written) {
        *written = list;
        *nwritten = n;
    }
    return rc;
}

void sk_maps_set_fsync(sk_maps *maps, int on)
{
    if (maps)
        maps->no_fsync = !on;
}
