/* bench/atoms.h - `snapkit bench atoms`: atom files read and written by
 * snapkit and by the peers installed (ASE in a child Python process,
 * LAMMPS's own read_data, write_dump and write_data through `lmp`), on fcc
 * copper generated here (the shape of mdapy's I/O benchmark).
 *
 * Every input is generated in memory (skb_cu_*), written once with
 * snapkit's writer, and every atom of every file a program reads or
 * writes is checked against the generator (ids, types, each coordinate,
 * the box) before its time counts. Not part of libsnapkit (see bench.h).
 */
#ifndef SNAPKIT_BENCH_ATOMS_H
#define SNAPKIT_BENCH_ATOMS_H

#include "bench/bench.h"
#include "snapkit/atoms.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ generator */

#define SKB_CU_LATTICE 3.615        /* A, fcc copper */
#define SKB_CU_DISPLACEMENT 0.1     /* each coordinate moves by up to this, A */
#define SKB_CU_SEED UINT64_C(4928459)

/* n with atoms = 4 n^3 (n >= 1), or -1 when atoms is not of that form. */
int skb_cu_cells(int64_t atoms);

/* Atom `id` (1 .. 4 n^3) of the box of n cells per edge: the fcc site
 * ((i + bx) a, (j + by) a, (k + bz) a) of id - 1 = ((k n + j) n + i) 4 + b,
 * each coordinate plus a uniform displacement in [-0.1, 0.1) A drawn from
 * splitmix64(seed + 3 id + axis), wrapped into [0, n a). Deterministic
 * and the same in any language that rounds like IEEE doubles (the tests
 * recompute it in Python). */
void skb_cu_atom(int n, int64_t id, double xyz[3]);

/* The box edge n a. */
double skb_cu_box(int n);

/* The generated frame: id (int64), type (int32, all 1), x y z, the box
 * (origin 0, periodic) and lammps.masses 63.546; with `element` a
 * category column "Cu" instead of id and type (what an extxyz file
 * holds). */
int skb_cu_table(int64_t atoms, int element, sk_table **out, sk_error *err);

/* Check every atom of a frame read back against the generator: the atom
 * count, ids (1..N in order; row order when the frame has no id column),
 * types (1, or element Cu), each coordinate within tol (0: bit for bit)
 * and the box (within tol). *max_error is the largest coordinate
 * difference. SK_ERR_FORMAT naming the first atom that differs. */
int skb_cu_check(const sk_table *t, int64_t atoms, double tol, const char *what,
                 double *max_error, sk_error *err);

/* ---------------------------------------------------------------- bench */

#define SK_ATOMS_MAX_SIZES 8
#define SK_ATOMS_MAX_ROWS (SK_ATOMS_MAX_SIZES * 3 * 2)

enum { SKB_PEER_ASE = 1, SKB_PEER_LAMMPS = 2 };

/* One program's times for one (format, operation, size). */
typedef struct sk_atoms_time {
    int ok;                  /* 1: measured, its result checked */
    int runs;
    double seconds;          /* median of the timed runs */
    double seconds_min;
    int64_t bytes_allocated; /* snapkit: bytes the library allocated in one run */
    int64_t peak_rss;        /* ASE: peak resident beyond its process before the runs (0: unknown) */
    double max_error;        /* largest |coordinate - generated| of the checked result */
    char note[128];          /* why it was not measured ("" when measured) */
} sk_atoms_time;

typedef struct sk_atoms_row {
    char format[8];          /* dump, data, extxyz */
    char op[8];              /* read, write */
    int64_t atoms;
    int64_t file_bytes;      /* the input read, or the file snapkit wrote */
    sk_atoms_time snapkit, ase, lammps;
} sk_atoms_row;

struct sk_atoms_bench {
    int threads;             /* snapkit's; the peers run on one */
    int runs;
    int peers;               /* asked: SKB_PEER_* bits */
    char ase_version[48];    /* "" when ASE did not run */
    char lammps_version[64]; /* "LAMMPS (29 Sep 2021 - Update 2)"; "" when it did not run */
    char ase_note[160], lammps_note[160]; /* why a peer asked for did not run */
    int nsizes;
    int64_t sizes[SK_ATOMS_MAX_SIZES];
    int nformats;
    char formats[3][8];
    int64_t files_checked;   /* inputs and outputs checked atom by atom */
    int64_t atoms_checked;
    int nrows;
    sk_atoms_row rows[SK_ATOMS_MAX_ROWS];
};

typedef struct sk_atoms_bench_options {
    const int64_t *sizes;    /* atom counts 4 n^3; NULL: 4000, 32000, 256000, 2048000 */
    int nsizes;
    const char *formats;     /* "dump,data,extxyz" when NULL */
    int peers;               /* SKB_PEER_* bits to run where installed */
    const char *work;        /* folder for inputs and outputs (created; emptied of ours at the end) */
    int keep_inputs;         /* 1: leave the inputs in work (and reuse them, checked, next time) */
    const char *python;      /* the interpreter with ASE (NULL: /usr/bin/python3) */
    const char *lmp;         /* the LAMMPS binary (NULL: lmp, lmp_serial or lmp_stable on PATH) */
    int threads;             /* snapkit's (0: the budget) */
    int runs;                /* timed runs after one checked run (>= 1; 0 means 3) */
    sk_progress progress;    /* done/total counts measurements */
} sk_atoms_bench_options;

/* Parse "4000,32000" (each 4 n^3, ascending, at most SK_ATOMS_MAX_SIZES). */
int sk_atoms_parse_sizes(const char *text, int64_t *sizes, int *n, sk_error *err);
/* "ase,lammps" (or "none") into SKB_PEER_* bits. */
int sk_atoms_parse_peers(const char *text, int *peers, sk_error *err);

int sk_bench_atoms(const sk_atoms_bench_options *opt, sk_atoms_bench *out, sk_error *err);

/* The stage as JSON (report.json's "atoms"), text, report CSV rows, and
 * back from a saved report. */
void sk_atoms_bench_json(const sk_atoms_bench *b, sk_json *j);
char *sk_atoms_bench_text(const sk_atoms_bench *b);
struct sk_json_value;
void skb_atoms_from_json(const struct sk_json_value *v, sk_atoms_bench *b);
/* peer seconds / snapkit seconds (NAN when either is missing). */
double sk_atoms_ratio(const sk_atoms_time *peer, const sk_atoms_time *snapkit);

/* ------------------------------------------------------------- the peers */

/* One job for a peer: read `input` (a format's file), or write the frame
 * of the data file `input` as `format` (timed into `output`, the checked
 * run into `checked`). */
typedef struct skb_peer_job {
    const char *op, *format, *input, *output, *checked;
    int64_t atoms;
    sk_atoms_time *time;     /* filled: times, or a note */
} skb_peer_job;

/* ASE: one child process of `python` runs every job (one checked run,
 * then `runs` timed ones each); results are checked here. Sets version
 * or note. */
int skb_ase_run(const char *python, const char *work, skb_peer_job *jobs, int njobs, int runs,
                char *version, size_t nversion, char *note, size_t nnote, int64_t *checked);

/* LAMMPS: one `lmp` process per size reads the data file and writes a
 * dump and a data file, timed inside LAMMPS (Python's perf_counter,
 * through its PYTHON package). */
int skb_lammps_run(const char *lmp, const char *work, const char *data_input, int64_t atoms,
                   int runs, sk_atoms_time *read, sk_atoms_time *dump_write,
                   sk_atoms_time *data_write, char *version, size_t nversion, char *note,
                   size_t nnote, int64_t *checked);

/* Times of n timed runs s (sorted here) into t: median and fastest, ok. */
void skb_atoms_set_times(sk_atoms_time *t, double *s, int n);

/* Read `path` with snapkit and check every atom (skb_cu_check). */
int skb_atoms_check_file(const char *path, sk_atoms_format format, int64_t atoms, double tol,
                         double *max_error, sk_error *err);

/* Run argv (argv[0] looked up on PATH) with stdout and stderr into files;
 * *status is the exit status, or -1 when it could not start (errno kept
 * in *start_errno). */
int skb_spawn(char *const *argv, const char *out_path, const char *err_path, int *status,
              int *start_errno);

/* The last non-empty line of a file (a child's error), into buf. */
void skb_last_line(const char *path, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
