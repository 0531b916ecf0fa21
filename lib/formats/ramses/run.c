/* The outputs of a RAMSES run and whether each is complete (snapkit/run.h). */
#include "snapkit/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/ramses/internal.h"
#include "snapkit/util/json.h"

/* The per-CPU Fortran files of a component, as RAMSES names them. */
static const char *const k_cpu_prefix[] = {"amr", "hydro", "grav", "part", "rt", "clump_field"};
enum { NPREFIX = sizeof k_cpu_prefix / sizeof k_cpu_prefix[0], INFO_MAX = 64 << 20 };
static const double k_myr = 3.15576e13; /* seconds */

/* The NNNNN of "output_NNNNN" (digits only, at least five), or -1. */
static int output_number(const char *name)
{
    if (strncmp(name, "output_", 7) != 0)
        return -1;
    const char *d = name + 7;
    size_t n = strspn(d, "0123456789");
    if (n < 5 || n > 9 || d[n] != '\0')
        return -1;
    return atoi(d);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int sk_run_is_run(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    char path[4096];
    for (struct dirent *e; !found && (e = readdir(d)) != NULL;) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        found = output_number(e->d_name) >= 0 && is_dir(path);
    }
    closedir(d);
    return found;
}

/* Does a Fortran record file end in a whole record: its last 4 bytes a
 * length n whose head marker, n + 4 bytes before them, says n too? Files
 * cut short end inside a record, where this almost never holds. */
static int ends_whole(const char *path, int64_t size)
{
    if (size < 8)
        return 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    int32_t tail = 0, head = -1;
    int ok = pread(fd, &tail, 4, (off_t)(size - 4)) == 4 && tail >= 0 &&
             (int64_t)tail + 8 <= size &&
             pread(fd, &head, 4, (off_t)(size - 8 - tail)) == 4 && head == tail;
    close(fd);
    return ok;
}

static void set_problem(sk_run_output *o, const char *msg)
{
    size_t n = strlen(msg);
    if (n >= sizeof o->problem)
        n = sizeof o->problem - 1;
    memcpy(o->problem, msg, n);
    o->problem[n] = '\0';
}

static void note(sk_run_output *o, int *count, const char *name, const char *what)
{
    if (!o->nmissing && !o->ntruncated)
        snprintf(o->problem, sizeof o->problem, "%s %s", name, what);
    (*count)++;
}

/* Every file's bytes, and the CPU files of each component present (a
 * component is present when any of its files is). */
static int check_files(sk_run_output *o, sk_error *err)
{
    DIR *d = opendir(o->path);
    if (!d)
        return sk_fail_errno(err, o->path, errno, "cannot open folder");
    int present[NPREFIX] = {1}; /* amr files always */
    char path[4096], stem[64];
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        int64_t size;
        snprintf(path, sizeof path, "%s/%s", o->path, e->d_name);
        if (!rs_file_exists(path, &size))
            continue;
        o->files++;
        o->bytes += size;
        for (int k = 0; k < NPREFIX; k++) {
            snprintf(stem, sizeof stem, "%s_%05d.out", k_cpu_prefix[k], o->output);
            present[k] |= strncmp(e->d_name, stem, strlen(stem)) == 0;
        }
    }
    closedir(d);
    for (int k = 0; k < NPREFIX; k++)
        for (int c = 1; present[k] && c <= o->ncpu; c++) {
            int64_t size;
            snprintf(path, sizeof path, "%s/%s_%05d.out%05d", o->path, k_cpu_prefix[k],
                     o->output, c);
            const char *name = strrchr(path, '/') + 1;
            if (!rs_file_exists(path, &size))
                note(o, &o->nmissing, name, "missing");
            else if (!ends_whole(path, size))
                note(o, &o->ntruncated, name, size ? "truncated (ends inside a record)" : "empty");
        }
    int more = o->nmissing + o->ntruncated - 1;
    if (more > 0) {
        size_t len = strlen(o->problem);
        snprintf(o->problem + len, sizeof o->problem - len, " (and %d more)", more);
    }
    o->state = o->nmissing ? SK_RUN_MISSING : o->ntruncated ? SK_RUN_TRUNCATED : SK_RUN_COMPLETE;
    return SK_OK;
}

/* ncpu, levels, time and cosmology from info_NNNNN.txt. */
static int read_info(sk_run_output *o, sk_cosmology *c, double *unit_t, sk_error *err)
{
    char path[4096], *text = NULL;
    size_t len;
    snprintf(path, sizeof path, "%s/info_%05d.txt", o->path, o->output);
    rs_info_text t = {0};
    int rc = rs_read_text(path, INFO_MAX, &text, &len, err);
    if (rc == SK_OK)
        rc = rs_parse_info(path, text, len, &t, err);
    sk_free(text);
    if (rc == SK_OK)
        rc = rs_info_int(&t, path, "ncpu", &o->ncpu, err);
    if (rc == SK_OK)
        rc = rs_info_int(&t, path, "levelmin", &o->levelmin, err);
    if (rc == SK_OK)
        rc = rs_info_int(&t, path, "levelmax", &o->levelmax, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "time", &o->time, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "aexp", &o->aexp, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "unit_t", unit_t, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "H0", &c->H0, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "omega_m", &c->omega_m, err);
    if (rc == SK_OK)
        rc = rs_info_double(&t, path, "omega_l", &c->omega_l, err);
    if (rc == SK_OK && o->ncpu < 1)
        rc = rs_info_fail_key(&t, path, "ncpu", "must be at least 1", err);
    rs_info_text_free(&t);
    return rc;
}

/* Open a complete output: what the reader makes of it (levels counted
 * from the coarse grid, cosmological from the namelist too). */
static void open_output(sk_run_output *o)
{
    sk_error err;
    sk_ramses *r;
    if (sk_ramses_open(&r, o->path, &err) != SK_OK) {
        o->state = SK_RUN_UNREADABLE;
        set_problem(o, err.message);
        return;
    }
    const sk_ramses_info *in = sk_ramses_get_info(r);
    o->levelmin = in->levelmin;
    o->levelmax = in->levelmax;
    o->cosmological = in->cosmological;
    sk_ramses_close(r);
}

static void times(sk_run_output *o, const sk_cosmology *c, double unit_t)
{
    sk_cosmology_summary s;
    sk_error err;
    o->redshift = o->time_myr = NAN;
    if (rs_cosmology_summarize(o->cosmological, c, o->aexp, o->time, unit_t, &s, &err) != SK_OK)
        return;
    if (o->cosmological) {
        o->redshift = s.redshift;
        o->time_myr = s.age / k_myr;
    } else if (unit_t != 1.0) {
        o->time_myr = s.age / k_myr;
    }
}

static void describe(sk_run_output *o)
{
    sk_error err;
    sk_cosmology c = {0};
    double unit_t = 1.0;
    o->redshift = o->time_myr = NAN;
    if (read_info(o, &c, &unit_t, &err) != SK_OK) {
        o->state = SK_RUN_UNREADABLE;
        o->ncpu = o->levelmin = o->levelmax = 0;
        set_problem(o, err.message);
        check_files(o, &err); /* for the bytes; the state stays */
        o->state = SK_RUN_UNREADABLE;
        return;
    }
    o->cosmological = o->aexp < 1.0;
    if (check_files(o, &err) != SK_OK) {
        o->state = SK_RUN_UNREADABLE;
        set_problem(o, err.message);
    } else if (o->state == SK_RUN_COMPLETE) {
        open_output(o);
    }
    times(o, &c, unit_t);
}

static int by_number(const void *a, const void *b)
{
    const sk_run_output *x = a, *y = b;
    return (x->output > y->output) - (x->output < y->output);
}

/* The output_NNNNN folders of dir into a new array. */
static int find_outputs(const char *dir, sk_run_output **out, int *n, sk_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return sk_fail_errno(err, dir, errno, "cannot open folder");
    int cap = 0, rc = SK_OK;
    char path[4096];
    for (struct dirent *e; rc == SK_OK && (e = readdir(d)) != NULL;) {
        int num = output_number(e->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (num < 0 || !is_dir(path))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            sk_run_output *grown = sk_realloc(*out, (size_t)cap * sizeof **out);
            if (!grown) {
                rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
                break;
            }
            *out = grown;
        }
        sk_run_output *o = &(*out)[*n];
        memset(o, 0, sizeof *o);
        o->output = num;
        if (!(o->path = sk_strdup(path)))
            rc = sk_fail(err, SK_ERR_NOMEM, dir, -1, "out of memory");
        else
            (*n)++;
    }
    closedir(d);
    return rc;
}

int sk_run_list(const char *dir, sk_run_output **outputs, int *n, sk_error *err)
{
    *outputs = NULL;
    *n = 0;
    struct stat st;
    if (stat(dir, &st) != 0)
        return sk_fail_errno(err, dir, errno, "cannot open");
    if (!S_ISDIR(st.st_mode))
        return sk_fail(err, SK_ERR_FORMAT, dir, -1, "not a folder of RAMSES outputs");
    int rc = find_outputs(dir, outputs, n, err);
    if (rc == SK_OK && *n == 0)
        rc = sk_fail(err, SK_ERR_FORMAT, dir, -1, "no output_NNNNN folders: not a RAMSES run");
    if (rc != SK_OK) {
        sk_run_free(*outputs, *n);
        *outputs = NULL;
        *n = 0;
        return rc;
    }
    qsort(*outputs, (size_t)*n, sizeof **outputs, by_number);
    for (int i = 0; i < *n; i++)
        describe(&(*outputs)[i]);
    return SK_OK;
}

void sk_run_free(sk_run_output *outputs, int n)
{
    for (int i = 0; outputs && i < n; i++)
        sk_free(outputs[i].path);
    sk_free(outputs);
}

const char *sk_run_state_name(sk_run_state state)
{
    static const char *const names[] = {"complete", "missing", "truncated", "unreadable"};
    return state >= SK_RUN_COMPLETE && state <= SK_RUN_UNREADABLE ? names[state] : "unknown";
}

static void json_output(sk_json *j, const sk_run_output *o)
{
    int known = o->ncpu > 0;
    sk_json_object_begin(j);
    sk_json_kv_int(j, "output", o->output);
    sk_json_kv_string(j, "path", o->path);
    sk_json_kv_string(j, "state", sk_run_state_name(o->state));
    sk_json_kv_string(j, "problem", o->problem);
    sk_json_kv_int(j, "missing", o->nmissing);
    sk_json_kv_int(j, "truncated", o->ntruncated);
    static const char *const ints[] = {"ncpu", "levelmin", "levelmax"};
    const int vals[] = {o->ncpu, o->levelmin, o->levelmax};
    for (int i = 0; i < 3; i++) {
        sk_json_key(j, ints[i]);
        if (known)
            sk_json_int(j, vals[i]);
        else
            sk_json_null(j);
    }
    sk_json_key(j, "cosmological");
    sk_json_bool(j, o->cosmological);
    sk_json_kv_double(j, "time", known ? o->time : NAN);
    sk_json_kv_double(j, "time_Myr", o->time_myr);
    sk_json_kv_double(j, "aexp", known ? o->aexp : NAN);
    sk_json_kv_double(j, "redshift", o->redshift);
    sk_json_kv_int(j, "files", o->files);
    sk_json_kv_int(j, "bytes", o->bytes);
    sk_json_object_end(j);
}

void sk_run_json(const char *dir, const sk_run_output *outputs, int n, sk_json *j)
{
    int complete = 0;
    sk_json_object_begin(j);
    sk_json_kv_string(j, "path", dir);
    sk_json_key(j, "outputs");
    sk_json_array_begin(j);
    for (int i = 0; i < n; i++) {
        json_output(j, &outputs[i]);
        complete += outputs[i].state == SK_RUN_COMPLETE;
    }
    sk_json_array_end(j);
    sk_json_kv_int(j, "complete", complete);
    sk_json_kv_int(j, "incomplete", n - complete);
    sk_json_object_end(j);
}

int sk_run_list_json(const char *dir, sk_json *j, sk_error *err)
{
    sk_run_output *o;
    int n;
    int rc = sk_run_list(dir, &o, &n, err);
    if (rc == SK_OK)
        sk_run_json(dir, o, n, j);
    sk_run_free(o, n);
    return rc;
}
