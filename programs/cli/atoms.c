/* snapkit atoms: inspect and convert LAMMPS dump, LAMMPS data and extended
 * XYZ files. */
#include <stdlib.h>
#include <string.h>

#include "atoms_frames.h"
#include "cli.h"
#include "snapkit/util/json.h"
#include "snapkit/util/number.h"

static const char k_help[] =
    "usage: snapkit atoms info FILE.. [--from FMT] [--frames SLICE] [--index] [--json]\n"
    "       snapkit atoms convert IN.. OUT [--from FMT] [--to FMT] [--frame K | --frames SLICE]\n"
    "                                    [--index] [--threads N] [--atom-style STYLE]\n"
    "                                    [--masses M1,M2,..] [--gzip-level L] [--no-fsync]\n\n"
    "info     format, frames, atoms, columns and box of an atom file (its first frame);\n"
    "         with --frames, each selected frame's timestep, atoms and byte offset\n"
    "convert  rewrite IN as OUT with every digit kept: one frame (--frame K, negative\n"
    "         counts from the end), a slice (--frames 0:1000:10, Python's syntax) or\n"
    "         every frame (a data file holds only one)\n\n"
    "Several inputs (or a quoted glob such as 'dump.*') are one trajectory, its\n"
    "frames in timestep order. --index keeps each input's frame index in a sidecar\n"
    "file NAME.skidx (rebuilt when the input changed), so frame k is found at once.\n\n"
    "Formats: dump (LAMMPS text dump: .lammpstrj, .dump, dump.*), data (LAMMPS data:\n"
    ".data, .lmp, data.*), extxyz (extended or plain XYZ: .extxyz, .xyz). A trailing\n"
    ".gz is read and written with gzip. --from/--to name the format when the file\n"
    "name does not. --atom-style overrides a data file's 'Atoms # style' hint (a\n"
    "hybrid file needs its sub-styles: --atom-style \"hybrid charge sphere\").\n"
    "Bonds, Angles, Dihedrals, Impropers and Coeffs of a data file are kept when\n"
    "writing a data file; other formats cannot hold them (one stderr line says so).\n"
    "--masses gives the masses of atom types 1, 2, ... for a data file written from\n"
    "a file without them (a dump of types only); with an element column snapkit\n"
    "uses the standard atomic weights.\n";

typedef struct options {
    const char *from, *to, *frames;
    int index;
    char masses[4096];
    long long frame;
    int has_frame, json;
    sk_atoms_options lib;
} options;

static int parse_format(const char *flag, const char *text, sk_atoms_format *out)
{
    *out = sk_atoms_format_from_name(text);
    if (!*out)
        return cli_usage("atoms", "%s: unknown format '%s' (dump, data or extxyz)", flag, text);
    return CLI_OK;
}

/* Options after the subcommand; positional arguments go to pos[]. */
static int parse_args(int argc, char **argv, options *o, const char **pos, int *npos)
{
    memset(o, 0, sizeof *o);
    *npos = 0;
    for (int i = 2; i < argc; i++) {
        long long v;
        const char *val;
        if (cli_is(argv[i], "--json")) {
            o->json = 1;
        } else if (cli_is(argv[i], "--masses")) {
            if (!(val = cli_value(argc, argv, &i)))
                return CLI_USAGE;
            size_t k = 0;
            for (const char *p = val; *p && k + 1 < sizeof o->masses; p++)
                o->masses[k++] = *p == ',' ? ' ' : *p;
            o->masses[k] = '\0';
            double m;
            const char *q = o->masses, *end = o->masses + k;
            while (q < end) {
                while (q < end && *q == ' ')
                    q++;
                if (q < end && (!sk_parse_double(q, end, &m, &q) || !(m > 0)))
                    return cli_usage("atoms", "--masses takes positive numbers: '%s'", val);
            }
        } else if (cli_is(argv[i], "--index")) {
            o->index = 1;
        } else if (cli_is(argv[i], "--from") || cli_is(argv[i], "--to") ||
                   cli_is(argv[i], "--atom-style") || cli_is(argv[i], "--frames")) {
            const char *flag = argv[i];
            if (!(val = cli_value(argc, argv, &i)))
                return CLI_USAGE;
            if (cli_is(flag, "--from"))
                o->from = val;
            else if (cli_is(flag, "--to"))
                o->to = val;
            else if (cli_is(flag, "--frames"))
                o->frames = val;
            else
                o->lib.atom_style = val;
        } else if (cli_is(argv[i], "--frame") || cli_is(argv[i], "--threads") ||
                   cli_is(argv[i], "--gzip-level")) {
            const char *flag = argv[i];
            if (cli_int_value(argc, argv, &i, &v))
                return CLI_USAGE;
            if (cli_is(flag, "--frame")) {
                o->frame = v;
                o->has_frame = 1;
            } else if (cli_is(flag, "--threads")) {
                o->lib.threads = (int)v;
            } else {
                o->lib.gzip_level = (int)v;
            }
        } else if (cli_is(argv[i], "--no-fsync")) {
            o->lib.no_fsync = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage("atoms", "unknown option '%s'", argv[i]);
        } else {
            pos[(*npos)++] = argv[i];
        }
    }
    if (o->has_frame && o->frames)
        return cli_usage("atoms", "give --frame or --frames, not both");
    return CLI_OK;
}

static void print_vec(const char *label, const double v[3])
{
    char a[SK_NUMBER_BUFSIZE], b[SK_NUMBER_BUFSIZE], c[SK_NUMBER_BUFSIZE];
    sk_format_double(v[0], a);
    sk_format_double(v[1], b);
    sk_format_double(v[2], c);
    printf("%-10s%s %s %s\n", label, a, b, c);
}

static void json_vec(sk_json *j, const char *key, const double v[3])
{
    sk_json_key(j, key);
    sk_json_array_begin(j);
    for (int i = 0; i < 3; i++)
        sk_json_double(j, v[i]);
    sk_json_array_end(j);
}

/* The files and, with --frames, each selected frame's place. */
static void json_frames(sk_json *j, const atoms_input *in, int listed)
{
    if (in->npaths > 1) {
        sk_json_key(j, "files");
        sk_json_array_begin(j);
        for (int i = 0; i < in->npaths; i++)
            sk_json_string(j, in->paths[i]);
        sk_json_array_end(j);
    }
    if (!listed)
        return;
    sk_json_key(j, "index");
    sk_json_array_begin(j);
    for (int64_t i = 0; i < in->count; i++) {
        int64_t k = in->start + i * in->step, file_frame;
        const char *path;
        sk_atoms_frame_info fi;
        sk_atoms_traj_frame(in->traj, k, &path, &file_frame, &fi);
        sk_json_object_begin(j);
        sk_json_kv_int(j, "frame", k);
        sk_json_key(j, "timestep");
        if (fi.timestep == SK_ATOMS_NO_TIMESTEP)
            sk_json_null(j);
        else
            sk_json_int(j, fi.timestep);
        sk_json_kv_int(j, "atoms", fi.natoms);
        sk_json_kv_int(j, "offset", fi.offset);
        sk_json_kv_int(j, "line", fi.line);
        sk_json_kv_string(j, "file", path);
        sk_json_kv_int(j, "file_frame", file_frame);
        sk_json_object_end(j);
    }
    sk_json_array_end(j);
}

static void info_json(const atoms_input *in, int listed, sk_atoms_format fmt, int64_t frames,
                      int64_t natoms, const sk_table *t, const sk_box *box, int has_box)
{
    sk_json j;
    sk_json_init(&j, 0);
    sk_json_object_begin(&j);
    sk_json_kv_string(&j, "file", in->paths[0]);
    json_frames(&j, in, listed);
    sk_json_kv_string(&j, "format", sk_atoms_format_name(fmt));
    sk_json_kv_int(&j, "frames", frames);
    sk_json_kv_int(&j, "atoms", natoms);
    sk_json_key(&j, "columns");
    sk_json_array_begin(&j);
    for (int i = 0; i < sk_table_ncols(t); i++) {
        const sk_column *c = sk_table_col(t, i);
        sk_json_object_begin(&j);
        sk_json_kv_string(&j, "name", c->name);
        sk_json_kv_string(&j, "type", sk_dtype_name(c->type));
        sk_json_object_end(&j);
    }
    sk_json_array_end(&j);
    sk_json_key(&j, "box");
    if (has_box) {
        sk_json_object_begin(&j);
        json_vec(&j, "origin", box->origin);
        json_vec(&j, "a", box->a);
        json_vec(&j, "b", box->b);
        json_vec(&j, "c", box->c);
        sk_json_key(&j, "pbc");
        sk_json_array_begin(&j);
        for (int i = 0; i < 3; i++)
            sk_json_bool(&j, box->pbc[i]);
        sk_json_array_end(&j);
        sk_json_object_end(&j);
    } else {
        sk_json_null(&j);
    }
    sk_json_key(&j, "metadata");
    sk_json_object_begin(&j);
    for (int i = 0; i < sk_table_meta_count(t); i++)
        sk_json_kv_string(&j, sk_table_meta_key(t, i), sk_table_meta_value(t, i));
    sk_json_object_end(&j);
    sk_json_object_end(&j);
    cli_print_json(&j);
    sk_json_free(&j);
}

static void info_text(const atoms_input *in, sk_atoms_format fmt, int64_t frames,
                      int64_t natoms, const sk_table *t, const sk_box *box, int has_box)
{
    printf("%-10s%s\n", "file", in->paths[0]);
    if (in->npaths > 1)
        printf("%-10s%d\n", "files", in->npaths);
    printf("%-10s%s\n%-10s%lld\n%-10s%lld\n%-10s", "format", sk_atoms_format_name(fmt), "frames",
           (long long)frames, "atoms", (long long)natoms, "columns");
    for (int i = 0; i < sk_table_ncols(t); i++)
        printf("%s%s:%s", i ? " " : "", sk_table_col(t, i)->name,
               sk_dtype_name(sk_table_col(t, i)->type));
    printf("\n");
    if (has_box) {
        print_vec("origin", box->origin);
        print_vec("a", box->a);
        print_vec("b", box->b);
        print_vec("c", box->c);
        printf("%-10s%c %c %c\n", "pbc", box->pbc[0] ? 'T' : 'F', box->pbc[1] ? 'T' : 'F',
               box->pbc[2] ? 'T' : 'F');
    } else {
        printf("%-10s%s\n", "box", "none");
    }
    const char *step = sk_table_meta_get(t, "timestep");
    if (step)
        printf("%-10s%s\n", "timestep", step);
}

static int cmd_info(const options *o, const char *const *paths, int npaths)
{
    sk_atoms_format fmt = SK_ATOMS_AUTO;
    if (o->from && parse_format("--from", o->from, &fmt) != CLI_OK)
        return CLI_USAGE;
    atoms_input in;
    int crc = atoms_input_open(&in, paths, npaths, fmt, &o->lib, o->index, o->frames);
    if (crc != CLI_OK) {
        atoms_input_close(&in);
        return crc;
    }
    sk_error err;
    int64_t frames = sk_atoms_traj_count(in.traj), natoms = 0;
    sk_table *t = NULL;
    if (frames > 0 && sk_atoms_traj_header(in.traj, 0, &t, &natoms, &err) != SK_OK) {
        atoms_input_close(&in);
        return cli_error(&err);
    }
    fmt = sk_atoms_traj_format(in.traj);
    if (!t && !(t = sk_table_new(0))) {
        atoms_input_close(&in);
        return cli_fail("out of memory");
    }
    sk_box box;
    int has_box = sk_atoms_get_box(t, &box, NULL) == SK_OK;
    if (o->json) {
        info_json(&in, o->frames != NULL, fmt, frames, natoms, t, &box, has_box);
    } else {
        info_text(&in, fmt, frames, natoms, t, &box, has_box);
        if (o->frames)
            atoms_print_index(&in);
    }
    sk_table_free(t);
    atoms_input_close(&in);
    return CLI_OK;
}

/* One line the first time a frame's topology cannot be written. */
static void note_topology(const sk_table *t, sk_atoms_format to, int *noted)
{
    static const char *const kinds[4] = {"bonds", "angles", "dihedrals", "impropers"};
    if (to == SK_ATOMS_DATA || *noted || !sk_atoms_has_topology(t))
        return;
    *noted = 1;
    char what[160] = "";
    for (int k = 0; k < 4; k++) {
        char key[32];
        snprintf(key, sizeof key, "lammps.%s", kinds[k]);
        const char *rows = sk_table_meta_get(t, key);
        long long n = 0;
        for (const char *p = rows; p && (p = strchr(p, '\n')); p++)
            n++;
        if (n)
            snprintf(what + strlen(what), sizeof what - strlen(what), "%s%lld %s",
                     what[0] ? ", " : "", n, kinds[k]);
    }
    fprintf(stderr, "snapkit atoms: %s not written: a%s %s file cannot hold topology (only a "
            "LAMMPS data file can)\n", what, to == SK_ATOMS_EXTXYZ ? "n" : "",
            sk_atoms_format_name(to));
}

static int add_frame(sk_atoms_writer *w, sk_table *t, const options *o, sk_atoms_format to,
                     int *noted, sk_error *err)
{
    if (o->masses[0] && sk_table_meta_set(t, "lammps.masses", o->masses) != SK_OK)
        return sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    note_topology(t, to, noted);
    return sk_atoms_writer_add(w, t, err);
}

static int convert_frames(const atoms_input *in, sk_atoms_writer *w, const options *o,
                          sk_atoms_format to, sk_error *err)
{
    if (to == SK_ATOMS_DATA && in->count != 1)
        return sk_fail(err, SK_ERR_ARG, NULL, -1,
                       "%lld frames selected and a data file holds one: use --frame K",
                       (long long)in->count);
    if (in->count == 0 && !o->frames)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "no frame to write (an empty input?)");
    if (in->count == 0)
        return sk_fail(err, SK_ERR_EMPTY, NULL, -1, "--frames %s selects no frame of %lld",
                       o->frames, (long long)sk_atoms_traj_count(in->traj));
    int noted = 0;
    for (int64_t i = 0; i < in->count; i++) {
        sk_table *t = NULL;
        int rc = sk_atoms_traj_read(in->traj, in->start + i * in->step, &t, err);
        if (rc == SK_OK)
            rc = add_frame(w, t, o, to, &noted, err);
        sk_table_free(t);
        if (rc != SK_OK)
            return rc;
    }
    return SK_OK;
}

static int cmd_convert(const options *o, const char *const *in_paths, int nin,
                       const char *out_path)
{
    sk_atoms_format from = SK_ATOMS_AUTO, to = SK_ATOMS_AUTO;
    if ((o->from && parse_format("--from", o->from, &from) != CLI_OK) ||
        (o->to && parse_format("--to", o->to, &to) != CLI_OK))
        return CLI_USAGE;
    if (!to && !(to = sk_atoms_guess_format(out_path)))
        return cli_usage("atoms", "cannot tell the format of '%s' from its name: give --to",
                         out_path);
    char frame[32];
    if (o->has_frame)
        snprintf(frame, sizeof frame, "%lld", o->frame);
    atoms_input in;
    int crc = atoms_input_open(&in, in_paths, nin, from, &o->lib, o->index,
                               o->has_frame ? frame : o->frames);
    if (crc != CLI_OK) {
        atoms_input_close(&in);
        return crc;
    }
    sk_error err;
    sk_atoms_writer *w;
    if (sk_atoms_writer_open(&w, out_path, to, &o->lib, &err) != SK_OK) {
        atoms_input_close(&in);
        return cli_error(&err);
    }
    int rc = convert_frames(&in, w, o, to, &err);
    atoms_input_close(&in);
    if (rc != SK_OK) {
        sk_atoms_writer_abort(w);
        return cli_error(&err);
    }
    if (sk_atoms_writer_commit(w, &err) != SK_OK)
        return cli_error(&err);
    return CLI_OK;
}

int cmd_atoms(int argc, char **argv)
{
    if (argc < 2 || cli_is(argv[1], "--help") || cli_is(argv[1], "-h")) {
        fputs(k_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_USAGE : CLI_OK;
    }
    for (int i = 2; i < argc; i++)
        if (cli_help(argv[i], k_help))
            return CLI_OK;
    options o;
    const char **pos = calloc((size_t)argc, sizeof *pos);
    if (!pos)
        return cli_fail("out of memory");
    int npos;
    int rc = parse_args(argc, argv, &o, pos, &npos);
    if (rc == CLI_OK && strcmp(argv[1], "info") == 0)
        rc = npos < 1 ? cli_usage("atoms", "atoms info takes a FILE") : cmd_info(&o, pos, npos);
    else if (rc == CLI_OK && strcmp(argv[1], "convert") == 0)
        rc = npos < 2 ? cli_usage("atoms", "atoms convert takes IN and OUT")
                      : cmd_convert(&o, pos, npos - 1, pos[npos - 1]);
    else if (rc == CLI_OK)
        rc = cli_usage("atoms", "unknown subcommand '%s' (info or convert)", argv[1]);
    free(pos);
    return rc;
}
