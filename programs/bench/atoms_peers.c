/* The peers of `bench atoms`: ASE in a child Python process and LAMMPS's
 * own commands through `lmp`. Each peer's first run of every job is
 * checked atom by atom here (what it read, or the file it wrote); only
 * then do its timed runs count. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/atoms.h"
#include "snapkit/util/json.h"
#include "snapkit/memory.h"

extern char **environ;

int skb_spawn(char *const *argv, const char *out_path, const char *err_path, int *status,
              int *start_errno)
{
    *status = -1;
    *start_errno = 0;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    pid_t pid;
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        *start_errno = e;
        return -1;
    }
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR) {
            *start_errno = errno;
            return -1;
        }
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return 0;
}

/* A whole file into an sk_malloc string (NULL when it cannot be read). */
static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *s = sk_malloc(cap);
    for (size_t got; s && (got = fread(s + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (cap - n - 1 == 0) {
            char *t = sk_realloc(s, cap * 2);
            if (!t) {
                sk_free(s);
                s = NULL;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s) {
        s[n] = '\0';
        *size = n;
    }
    return s;
}

void skb_last_line(const char *path, char *buf, size_t n)
{
    size_t size = 0;
    char *s = slurp(path, &size);
    buf[0] = '\0';
    if (!s)
        return;
    while (size > 0 && (s[size - 1] == '\n' || s[size - 1] == ' ' || s[size - 1] == '\r'))
        s[--size] = '\0';
    char *line = strrchr(s, '\n');
    snprintf(buf, n, "%s", line ? line + 1 : s);
    sk_free(s);
}

/* A note longer than the field is cut (messages name whole paths). */
static void note(sk_atoms_time *t, const char *fmt, const char *what)
{
    char buf[4096];
    snprintf(buf, sizeof buf, fmt, what);
    t->ok = 0;
    snprintf(t->note, sizeof t->note, "%.*s", (int)sizeof t->note - 1, buf);
}

void skb_atoms_set_times(sk_atoms_time *t, double *s, int n)
{
    t->runs = n;
    t->seconds = sk_bench_median(s, n); /* sorts s */
    t->seconds_min = s[0];
    t->ok = 1;
    t->note[0] = '\0';
}

/* ------------------------------------------------------------------ ASE */

/* The child: imports ASE, prints its version, then per job one checked
 * run (what it read saved for the parent as raw arrays, or the file it
 * wrote kept), then the timed runs; one JSON line per job. */
static const char k_ase_child[] =
    "import json, os, sys, time\n"
    "def say(**kw):\n"
    "    print(json.dumps(kw), flush=True)\n"
    "try:\n"
    "    import numpy as np\n"
    "    import ase, ase.io\n"
    "except Exception as e:\n"
    "    say(error='cannot import ase: %s' % e)\n"
    "    sys.exit(0)\n"
    "say(version=ase.__version__)\n"
    "def status(key):\n"
    "    with open('/proc/self/status') as f:\n"
    "        for line in f:\n"
    "            if line.startswith(key + ':'):\n"
    "                return int(line.split()[1]) * 1024\n"
    "    return 0\n"
    "def reset_peak():\n"
    "    try:\n"
    "        with open('/proc/self/clear_refs', 'w') as f:\n"
    "            f.write('5')\n"
    "        return True\n"
    "    except OSError:\n"
    "        return False\n"
    "def read(fmt, path):\n"
    "    if fmt == 'dump':\n"
    "        return ase.io.read(path, format='lammps-dump-text', index=0)\n"
    "    if fmt == 'data':\n"
    "        return ase.io.read(path, format='lammps-data', style='atomic', units='metal',\n"
    "                           Z_of_type={1: 29})\n"
    "    return ase.io.read(path, format='extxyz')\n"
    "def write(fmt, path, atoms):\n"
    "    if fmt == 'data':\n"
    "        ase.io.write(path, atoms, format='lammps-data', atom_style='atomic')\n"
    "    elif fmt == 'extxyz':\n"
    "        ase.io.write(path, atoms, format='extxyz')\n"
    "    else:\n"
    "        ase.io.write(path, atoms, format='lammps-dump-text')\n"
    "def save(atoms, fmt, path):\n"
    "    n = len(atoms)\n"
    "    has = 'id' in atoms.arrays\n"
    "    ids = atoms.arrays['id'] if has else np.arange(1, n + 1)\n"
    "    if 'type' in atoms.arrays:\n"
    "        types = atoms.arrays['type']\n"
    "    elif fmt == 'dump':\n"
    "        types = atoms.numbers\n"
    "    else:\n"
    "        types = np.where(atoms.numbers == 29, 1, 0)\n"
    "    with open(path, 'wb') as f:\n"
    "        np.asarray([n, has], dtype='<i8').tofile(f)\n"
    "        np.asarray(atoms.cell.array, dtype='<f8').tofile(f)\n"
    "        np.asarray(atoms.pbc, dtype='<i8').tofile(f)\n"
    "        np.asarray(ids, dtype='<i8').tofile(f)\n"
    "        np.asarray(types, dtype='<i8').tofile(f)\n"
    "        np.ascontiguousarray(atoms.positions, dtype='<f8').tofile(f)\n"
    "runs = int(sys.argv[1])\n"
    "jobs = sys.argv[2:]\n"
    "for j in range(0, len(jobs), 5):\n"
    "    op, fmt, src, out, checked = jobs[j:j + 5]\n"
    "    try:\n"
    "        if op == 'read':\n"
    "            a = read(fmt, src)\n"
    "            save(a, fmt, checked)\n"
    "            del a\n"
    "            once = lambda: read(fmt, src)\n"
    "        else:\n"
    "            b = read('data', src)\n"
    "            atoms = ase.Atoms(numbers=b.numbers, positions=b.positions, cell=b.cell, pbc=True)\n"
    "            del b\n"
    "            write(fmt, checked, atoms)\n"
    "            once = lambda: write(fmt, out, atoms)\n"
    "        peak = reset_peak()\n"
    "        base = status('VmRSS')\n"
    "        seconds = []\n"
    "        for r in range(runs):\n"
    "            t0 = time.perf_counter()\n"
    "            x = once()\n"
    "            seconds.append(time.perf_counter() - t0)\n"
    "            del x\n"
    "        rss = max(0, status('VmHWM') - base) if peak else 0\n"
    "        if os.path.exists(out):\n"
    "            os.remove(out)\n"
    "        say(seconds=seconds, peak_rss=rss)\n"
    "    except Exception as e:\n"
    "        say(error='%s: %s' % (type(e).__name__, e))\n";

/* What the child read, saved as raw little-endian arrays, into a table
 * the generator's check takes. */
static int load_saved(const char *path, sk_table **out, sk_error *err)
{
    *out = NULL;
    size_t size = 0;
    char *s = slurp(path, &size);
    if (!s)
        return sk_fail_errno(err, path, errno, "cannot read what ASE read");
    int64_t head[2];
    int rc = SK_OK;
    if (size < sizeof head + 9 * 8 + 3 * 8)
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1, "truncated");
    if (rc == SK_OK)
        memcpy(head, s, sizeof head);
    int64_t n = rc == SK_OK ? head[0] : 0;
    size_t need = sizeof head + 12 * 8 + (size_t)n * (8 + 8 + 24);
    if (rc == SK_OK && (n < 0 || n > INT64_C(1) << 40 || size != need))
        rc = sk_fail(err, SK_ERR_FORMAT, path, -1, "%zu bytes for %lld atoms", size, (long long)n);
    sk_table *t = rc == SK_OK ? sk_table_new(n) : NULL;
    if (rc == SK_OK && !t)
        rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
    if (rc == SK_OK) {
        const char *p = s + sizeof head;
        double cell[9];
        int64_t pbc[3];
        memcpy(cell, p, sizeof cell);
        memcpy(pbc, p + sizeof cell, sizeof pbc);
        p += sizeof cell + sizeof pbc;
        int64_t *id = head[1] ? sk_table_add(t, "id", SK_INT64, err) : NULL;
        int32_t *type = sk_table_add(t, "type", SK_INT32, err);
        double *xyz[3] = {sk_table_add(t, "x", SK_FLOAT64, err), sk_table_add(t, "y", SK_FLOAT64, err),
                          sk_table_add(t, "z", SK_FLOAT64, err)};
        if ((head[1] && !id) || !type || !xyz[0] || !xyz[1] || !xyz[2]) {
            rc = SK_ERR_NOMEM;
        } else {
            for (int64_t i = 0; i < n; i++) {
                int64_t v;
                if (id)
                    memcpy(&id[i], p + 8 * i, 8);
                memcpy(&v, p + 8 * (n + i), 8);
                type[i] = v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : -1;
                for (int k = 0; k < 3; k++)
                    memcpy(&xyz[k][i], p + 16 * n + 24 * i + 8 * k, 8);
            }
            sk_box b = {.pbc = {pbc[0] != 0, pbc[1] != 0, pbc[2] != 0}};
            memcpy(b.a, cell, sizeof b.a);
            memcpy(b.b, cell + 3, sizeof b.b);
            memcpy(b.c, cell + 6, sizeof b.c);
            if (sk_atoms_set_box(t, &b) != SK_OK)
                rc = sk_fail(err, SK_ERR_NOMEM, path, -1, "out of memory");
        }
    }
    sk_free(s);
    if (rc == SK_OK)
        *out = t;
    else
        sk_table_free(t);
    return rc;
}

/* ASE writes extended XYZ with 8 decimals: its positions are within
 * 5e-9 A of the generator's; everything else it writes and reads keeps
 * every digit. */
static double ase_tolerance(const skb_peer_job *j)
{
    return strcmp(j->op, "write") == 0 && strcmp(j->format, "extxyz") == 0 ? 1e-8 : 0;
}

/* The job's checked result: the raw arrays of a read, the file of a
 * write. */
static int ase_check(const skb_peer_job *j, double *max_error, sk_error *err)
{
    if (strcmp(j->op, "read") == 0) {
        sk_table *t = NULL;
        int rc = load_saved(j->checked, &t, err);
        if (rc == SK_OK)
            rc = skb_cu_check(t, j->atoms, ase_tolerance(j), j->input, max_error, err);
        sk_table_free(t);
        return rc;
    }
    return skb_atoms_check_file(j->checked, sk_atoms_format_from_name(j->format), j->atoms,
                                ase_tolerance(j), max_error, err);
}

/* One line of the child's output into job j's time. */
static void ase_result(const char *line, skb_peer_job *j, int runs, int64_t *checked)
{
    sk_json_value *v = NULL;
    sk_error err;
    if (sk_json_parse(line, strlen(line), "ase", &v, &err) != SK_OK) {
        note(j->time, "ASE's answer is not JSON: %s", err.message);
        return;
    }
    const sk_json_value *e = sk_json_get(v, "error");
    const sk_json_value *s = sk_json_get(v, "seconds");
    if (e && e->type == SK_JSON_STRING) {
        note(j->time, "%s", e->string);
    } else if (!s || s->type != SK_JSON_ARRAY || s->n != runs) {
        note(j->time, "%s", "ASE gave no times");
    } else {
        double max_error = 0;
        if (ase_check(j, &max_error, &err) != SK_OK) {
            note(j->time, "wrong result: %s", err.message);
        } else {
            double sec[256];
            for (int i = 0; i < runs; i++)
                sec[i] = s->items[i].type == SK_JSON_NUMBER ? s->items[i].number : NAN;
            skb_atoms_set_times(j->time, sec, runs);
            j->time->max_error = max_error;
            j->time->peak_rss = (int64_t)sk_json_number(v, "peak_rss", 0);
            *checked += j->atoms;
        }
    }
    sk_json_value_free(v);
}

int skb_ase_run(const char *python, const char *work, skb_peer_job *jobs, int njobs, int runs,
                char *version, size_t nversion, char *note_out, size_t nnote, int64_t *checked)
{
    version[0] = note_out[0] = '\0';
    char runs_text[16], out[4096], errp[4096];
    snprintf(runs_text, sizeof runs_text, "%d", runs);
    snprintf(out, sizeof out, "%s/ase.out", work);
    snprintf(errp, sizeof errp, "%s/ase.err", work);
    char **argv = sk_calloc((size_t)njobs * 5 + 5, sizeof *argv);
    if (!argv)
        return SK_ERR_NOMEM;
    int a = 0;
    argv[a++] = (char *)python;
    argv[a++] = "-c";
    argv[a++] = (char *)k_ase_child;
    argv[a++] = runs_text;
    for (int i = 0; i < njobs; i++) {
        const char *f[5] = {jobs[i].op, jobs[i].format, jobs[i].input, jobs[i].output, jobs[i].checked};
        for (int k = 0; k < 5; k++)
            argv[a++] = (char *)f[k];
    }
    int status, e;
    int started = skb_spawn(argv, out, errp, &status, &e) == 0;
    sk_free(argv);
    size_t size = 0;
    char *text = started ? slurp(out, &size) : NULL;
    char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL;
    if (!started) {
        snprintf(note_out, nnote, "cannot run %s: %s", python, strerror(e));
    } else if (line && strncmp(line, "{\"version\": \"", 13) == 0) {
        snprintf(version, nversion, "%.*s", (int)strcspn(line + 13, "\""), line + 13);
        for (int i = 0; i < njobs; i++) {
            line = strtok_r(NULL, "\n", &save);
            if (line)
                ase_result(line, &jobs[i], runs, checked);
            else
                note(jobs[i].time, "%s", "ASE stopped before this job (see ase.err)");
        }
    } else if (line && strncmp(line, "{\"error\": \"", 11) == 0) { /* no ASE */
        snprintf(note_out, nnote, "%.*s (Debian package python3-ase)",
                 (int)strcspn(line + 11, "\""), line + 11);
    } else {
        char last[256];
        skb_last_line(errp, last, sizeof last);
        snprintf(note_out, nnote, "%s did not start ASE (exit %d): %.100s", python, status, last);
    }
    if (status != 0 && started && version[0]) {
        char last[256];
        skb_last_line(errp, last, sizeof last);
        for (int i = 0; i < njobs; i++)
            if (!jobs[i].time->ok && !strcmp(jobs[i].time->note, "ASE stopped before this job (see ase.err)"))
                note(jobs[i].time, "ASE stopped: %s", last);
    }
    sk_free(text);
    for (int i = 0; i < njobs; i++)
        unlink(jobs[i].checked);
    unlink(out);
    unlink(errp);
    return SK_OK;
}

/* --------------------------------------------------------------- LAMMPS */

/* Each repetition clears LAMMPS, reads the data file, writes a dump and a
 * data file, and prints Python's clock (perf_counter, through LAMMPS's
 * PYTHON package) between the commands: repetition 0 writes the files
 * checked here, the others time. */
static int lammps_script(const char *path, const char *input, const char *work, int runs,
                         sk_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return sk_fail_errno(err, path, errno, "cannot write the LAMMPS input");
    for (int r = 0; r <= runs; r++) {
        const char *name = r == 0 ? "check" : "timed";
        fprintf(f,
                "clear\n"
                "python wall return v_t format f here \"\"\"\n"
                "import time\n"
                "def wall():\n"
                "    return time.perf_counter()\n"
                "\"\"\"\n"
                "variable t python wall\n"
                "units metal\natom_style atomic\nboundary p p p\n"
                "print \"SK %d start ${t}\"\n"
                "read_data \"%s\"\n"
                "print \"SK %d read ${t}\"\n"
                "write_dump all custom \"%s/lammps_%s.dump\" id type x y z modify format float %%.17g\n"
                "print \"SK %d dump ${t}\"\n"
                "write_data \"%s/lammps_%s.data\"\n"
                "print \"SK %d data ${t}\"\n",
                r, input, r, work, name, r, work, name, r);
    }
    if (fclose(f) != 0)
        return sk_fail_errno(err, path, errno, "cannot write the LAMMPS input");
    return SK_OK;
}

/* The clock marks of the output: mark[r][0..3] = start, read, dump, data. */
static int lammps_marks(const char *text, int runs, double (*mark)[4], char *version, size_t nv)
{
    int found = 0;
    static const char *const tags[4] = {"start", "read", "dump", "data"};
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        int r;
        char tag[16];
        double t;
        if (strncmp(line, "LAMMPS (", 8) == 0 && !version[0])
            snprintf(version, nv, "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
        if (sscanf(line, "SK %d %15s %lf", &r, tag, &t) == 3 && r >= 0 && r <= runs)
            for (int k = 0; k < 4; k++)
                if (strcmp(tag, tags[k]) == 0) {
                    mark[r][k] = t;
                    found++;
                }
        line = end ? end + 1 : NULL;
    }
    return found;
}

static void lammps_check(const char *work, const char *name, sk_atoms_format fmt, int64_t atoms,
                         sk_atoms_time *t, int64_t *checked)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/lammps_check.%s", work, name);
    double max_error = 0;
    sk_error err;
    if (skb_atoms_check_file(path, fmt, atoms, 0, &max_error, &err) != SK_OK) {
        note(t, "wrong result: %s", err.message);
    } else {
        t->max_error = max_error;
        *checked += atoms;
    }
}

int skb_lammps_run(const char *lmp, const char *work, const char *data_input, int64_t atoms,
                   int runs, sk_atoms_time *read, sk_atoms_time *dump_write,
                   sk_atoms_time *data_write, char *version, size_t nversion, char *note_out,
                   size_t nnote, int64_t *checked)
{
    sk_atoms_time *times[3] = {read, dump_write, data_write};
    char script[4096], out[4096], errp[4096];
    snprintf(script, sizeof script, "%s/lammps.in", work);
    snprintf(out, sizeof out, "%s/lammps.out", work);
    snprintf(errp, sizeof errp, "%s/lammps.err", work);
    sk_error err;
    int rc = lammps_script(script, data_input, work, runs, &err);
    if (rc != SK_OK) {
        snprintf(note_out, nnote, "%s", err.message);
        return SK_OK;
    }
    char *argv[] = {(char *)lmp, "-in", script, "-log", "none", "-echo", "none", "-nocite", NULL};
    int status, e;
    if (skb_spawn(argv, out, errp, &status, &e) != 0) {
        snprintf(note_out, nnote, "cannot run %s: %s", lmp, strerror(e));
        unlink(script);
        return SK_OK;
    }
    size_t size = 0;
    char *text = slurp(out, &size);
    double(*mark)[4] = sk_calloc((size_t)runs + 1, sizeof *mark);
    int found = text && mark ? lammps_marks(text, runs, mark, version, nversion) : 0;
    if (found != 4 * (runs + 1)) {
        char last[256] = "";
        const char *error = text ? strstr(text, "ERROR") : NULL;
        if (error)
            snprintf(last, sizeof last, "%.*s", (int)strcspn(error, "\n"), error);
        else
            skb_last_line(errp, last, sizeof last);
        snprintf(note_out, nnote, "LAMMPS failed (exit %d): %s", status, last);
    } else {
        double sec[3][256];
        for (int r = 1; r <= runs; r++)
            for (int k = 0; k < 3; k++)
                sec[k][r - 1] = mark[r][k + 1] - mark[r][k];
        for (int k = 0; k < 3; k++)
            skb_atoms_set_times(times[k], sec[k], runs);
        /* What read_data read is what write_dump then wrote. */
        lammps_check(work, "dump", SK_ATOMS_DUMP, atoms, read, checked);
        if (read->ok)
            dump_write->max_error = read->max_error;
        else
            note(dump_write, "%s", read->note);
        lammps_check(work, "data", SK_ATOMS_DATA, atoms, data_write, checked);
    }
    sk_free(mark);
    sk_free(text);
    static const char *const leftovers[] = {"lammps_check.dump", "lammps_check.data",
                                            "lammps_timed.dump", "lammps_timed.data"};
    for (size_t k = 0; k < sizeof leftovers / sizeof leftovers[0]; k++) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", work, leftovers[k]);
        unlink(p);
    }
    unlink(script);
    unlink(out);
    unlink(errp);
    return SK_OK;
}
