/* The RAMSES reader's shared state and the pieces its files share. */
#ifndef SNAPKIT_RAMSES_INTERNAL_H
#define SNAPKIT_RAMSES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "formats/ramses/mapfile.h"
#include "formats/ramses/mhd.h"
#include "formats/ramses/sizes.h"
#include "formats/ramses/text.h"
#include "snapkit/cosmology.h"
#include "snapkit/memory.h"
#include "snapkit/ramses.h"
#include "snapkit/stream.h"

/* Component kinds: per-CPU binary files first (their file prefixes in
 * rs_cpu_path), then the text tables. */
typedef enum rs_kind {
    RS_AMR, RS_HYDRO, RS_GRAV, RS_PART, RS_RT, RS_CLUMP_FIELD, RS_SINKS, RS_CLUMPS
} rs_kind;

struct sk_ramses {
    char *dir;
    sk_ramses_info info;
    rs_info_text info_text;  /* every info key as written, and bound_key */
    char *info_path;
    char *namelist;          /* namelist.txt, or NULL */
    rs_header_text header;   /* header_NNNNN.txt (empty when absent) */
    int has_header;

    rs_varlist hydro_desc;   /* as written (n == 0 when absent) */
    rs_var *hydro_vars;      /* names used for the columns, nvar_hydro of them */
    double gamma;            /* from the hydro files' header; 0 when unknown */

    rs_var *grav_vars;
    int ngrav;

    rs_varlist rt_desc;      /* rt_file_descriptor.txt (n == 0 when absent) */
    rs_var *rt_vars;         /* nvar_rt names */
    rs_kvlist rt_info;       /* info_rt_NNNNN.txt (n == 0 when absent) */
    rs_var clump_field_var;  /* the one clump_id column */

    rs_varlist part_desc;    /* part_file_descriptor.txt (n == 0 when absent) */
    rs_var *part_vars;       /* the particle files' records after the header */
    int npart_vars;
    int part_family_derived; /* no family record: `family` is computed */
    int part_id_width;       /* 4 or 8 bytes of identity and counts */
    int sinks_binary;        /* sinks from sink_NNNNN.out00001: no sink_NNNNN.csv */
    /* The bytes of each CPU file, [kind * ncpu + icpu - 1] for every kind
     * but RS_SINKS (one file, not divided), given by rs_set_file_sizes (under MPI: rank 0's stat
     * broadcast); NULL: each share stats the files itself. */
    int64_t *file_sizes;
};

/* The path of CPU icpu's file of a component into buf: dir/<kind>_NNNNN.outCCCCC,
 * clump_NNNNN.txtCCCCC for clump catalogues, sink_NNNNN.csv for sinks. */
void rs_cpu_path(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n);

/* Clear from mask[] the CPU files outside this read's share
 * (opt->share_rank of opt->share_count; nothing when count <= 1): a
 * contiguous range of CPUs balanced by the component's file bytes
 * (share.c). rs_share_owner: the rank of a file starting `before` bytes
 * into `total`, of `bytes` bytes. */
void rs_share_mask(const sk_ramses *r, rs_kind kind, const sk_read_options *opt, uint8_t *mask);
int rs_share_owner(int64_t before, int64_t bytes, int64_t total, int count);
/* Map CPU file icpu of a kind; its path into buf (for messages). */
int rs_map_cpu(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n, rs_mapped *m,
               sk_error *err);

/* Column names of the hydro variables: the descriptor's (late-2017 names
 * mapped to current ones) or, without one, the conventional names by
 * position. */
int rs_hydro_names(sk_ramses *r, int nvar, sk_error *err);
/* Names of the rt variables: the descriptor's, or photon_flux_GG and
 * photon_flux_GG_x/y/z per group. */
int rs_rt_names(sk_ramses *r, int nvar, sk_error *err);
/* Particle fields from the descriptor, or for late-2017 outputs from
 * header_'s field line (or the record count of the first particle file). */
int rs_particle_fields(sk_ramses *r, sk_error *err);

/* Lowest level whose cells a cell read can select. */
int rs_lowest_level(const sk_ramses *r, const sk_selection *sel, const sk_read_options *opt);

/* Cell components (hydro, gravity) and particles into a new table. */
typedef struct rs_read_ctx {
    sk_ramses *r;
    const sk_selection *sel;
    const sk_read_options *opt;
    const int *cpus; /* 1-based CPU numbers to read */
    int ncpus;
    int threads;
    int64_t bytes_read;
    int64_t progress_bytes;
    const sk_consumer *consumer; /* set: rs_read_files streams (stream.c) */
    int stream_kind;             /* the rs_kind streamed (its batches' labels) */
    rs_mapped *kept;             /* per CPU file (icpu - 1), or NULL: rs_walk_map */
} rs_read_ctx;
int rs_read_cells(rs_read_ctx *ctx, rs_kind kind, sk_table **out, sk_error *err);
int rs_read_particles(rs_read_ctx *ctx, sk_table **out, sk_error *err);
/* Sinks (sink_NNNNN.csv; ctx->ncpus is 1) or clumps (clump_NNNNN.txtCCCCC
 * of ctx->cpus) into a new table (catalogue.c). */
int rs_read_catalogue(rs_read_ctx *ctx, rs_kind kind, sk_table **out, sk_error *err);

/* A text table parsed from memory, file after file (for fuzzing too):
 * csv (sinks: `#` header lines, comma-separated values) or blank-separated
 * columns under a header line of names (clumps). Every value is kept as a
 * double; is_int columns hold exact int32 values. */
typedef struct rs_catalogue {
    int csv;
    int ncols;
    char (*names)[RS_NAME_MAX];
    char *is_int;
    int header_line;     /* of the first file; 0: headerless legacy sink file */
    char first_path[256]; /* the first file's name, for messages */
    int sort_col;        /* column the rows are sorted by, -1: file order */
    int64_t nrows, cap;
    double *values;      /* nrows x ncols, row-major */
} rs_catalogue;
void rs_catalogue_init(rs_catalogue *cat, int csv);
/* Add one file's rows; a later file's header must name the same columns.
 * On error the rows of this file are dropped and err names file and line. */
/* Columns and rows for a reader of another format: a named column (int32
 * or float64 in the table), then n rows to fill (NULL: out of memory). */
int rs_catalogue_add_column(rs_catalogue *cat, const char *path, const char *name, int is_int,
                            sk_error *err);
double *rs_catalogue_add_rows(rs_catalogue *cat, const char *path, int64_t n, sk_error *err);
/* The binary sink_NNNNN.outCCCCC of RAMSES 2014-08 .. 2018-07 (sink_binary.c). */
int rs_sink_binary_parse(rs_catalogue *cat, const char *path, const void *data, size_t size,
                         int ndim, sk_error *err);
int rs_catalogue_parse(rs_catalogue *cat, const char *path, const char *text, size_t len,
                       sk_error *err);
void rs_catalogue_free(rs_catalogue *cat);

/* The cell walk of one CPU (full read, hydro) over amr and hydro files
 * given in memory: count, then fill scratch columns. For fuzzing. */
int rs_cells_from_memory(const void *amr, size_t amr_size, const void *hydro, size_t hydro_size,
                         const sk_ramses_info *info, int icpu, int64_t *ncells, sk_error *err);

/* The cosmology summary of an output from its info values (cosmology.c). */
int rs_cosmology_summarize(int cosmological, const sk_cosmology *c, double aexp, double time,
                           double unit_t, sk_cosmology_summary *out, sk_error *err);
/* "birth_time_proper" (age == 0) or "age" of a particle table into out,
 * code time units: cosmological birth times are conformal and converted. */
int rs_derive_birth(const sk_table *t, int age, double *out, sk_error *err);

/* sk_dtype of a RAMSES type code. */
sk_dtype rs_dtype(char type);

/* A component reader for rs_read_files: its plan and callbacks. */
enum { RS_SCRATCH_BYTES = 64 };
typedef struct rs_file_reader {
    const void *plan;
    /* Count (out == NULL) the selected rows of CPU file icpu into *rows,
     * or write them at rows [*rows, ...) of out; *bytes gets the bytes of
     * the files mapped. scratch is the calling thread's own
     * RS_SCRATCH_BYTES, zeroed before its first file and kept across files. */
    int (*walk_file)(rs_read_ctx *ctx, const void *plan, int icpu, const void *out,
                     int64_t *rows, void *scratch, int64_t *bytes, sk_error *err);
    /* At most the rows walk_file writes for file icpu, from its header
     * alone: a stream sizes its batch with it instead of a count pass. */
    int (*file_bound)(rs_read_ctx *ctx, const void *plan, int icpu, int64_t *rows,
                      sk_error *err);
    /* A table of nrows rows; its column pointers into out. */
    int (*make_table)(const void *plan, int64_t nrows, sk_table **t, void *out, sk_error *err);
    /* Free what walk_file keeps in scratch. */
    void (*scratch_free)(void *scratch);
    void *out; /* the column pointers walk_file writes through */
    size_t out_size; /* bytes of *out (a stream keeps one per thread) */
} rs_file_reader;

/* Read the selected CPU files into a new table in one parallel region:
 * count each file's rows, allocate the table once, then fill each file's
 * rows at its prefix-sum offset, starting the largest files first so that
 * the threads finish together. */
int rs_read_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_table **out, sk_error *err);

/* The stream of rs_read_files when ctx->consumer is set (stream.c): each
 * thread makes its own table once for the largest file (sized from the
 * headers alone unless a region or family selects part of each file),
 * fills it from row 0 file by file and hands it to the consumer. */
int rs_stream_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_error *err);
/* One pass over the selected files from inside a parallel region (read.c):
 * count (out == NULL) each file's rows into rows[f], or write file f's
 * rows from row rows[f]; order (or NULL) is the order to start them in;
 * *failed_at gets the lowest failing file and err its error. */
void rs_walk_files(rs_read_ctx *ctx, const rs_file_reader *fr, const void *out, int64_t *rows,
                   const int *order, void *scratch, int *failed_at, int64_t *done,
                   sk_error *err);
/* The file a walk of CPU file icpu starts from (its amr file for cells,
 * its particle file for particles): the mapping a count pass kept in
 * ctx->kept, else a new one. Mapping and unmapping cost about as much
 * per page as walking it, so a read that walks each file twice (count,
 * then fill) maps it once. */
int rs_walk_map(rs_read_ctx *ctx, rs_kind kind, int icpu, char *path, size_t n, rs_mapped *m,
                sk_error *err);
/* After the walk: a count that succeeded keeps m for the fill when the
 * read keeps mappings; otherwise m is unmapped (and forgotten). */
void rs_walk_unmap(rs_read_ctx *ctx, int icpu, int counted, rs_mapped *m);
/* Keep the count pass's mappings for the fill (when there are at most a
 * few thousand files: each is a mapping of the process); then release
 * what is left. */
int rs_keep_maps(rs_read_ctx *ctx, sk_error *err);
void rs_release_maps(rs_read_ctx *ctx);
/* One more file done, to the progress callback (serialised). */
void rs_progress_step(rs_read_ctx *ctx, int64_t *done, int64_t bytes);
/* The metadata every table of a read carries (describe, kind, component,
 * selection). */
int rs_label_table(const sk_ramses *r, rs_kind kind, const sk_selection *sel, sk_table *t,
                   sk_error *err);

/* A read's shared start (read.c): the component's kind, the selection (or
 * everything), the options (or defaults), the CPU files and threads. */
typedef struct rs_read_setup {
    rs_read_ctx ctx;
    rs_kind kind;
    sk_selection all;
    sk_read_options defaults;
} rs_read_setup;
int rs_read_begin(sk_ramses *r, const char *component, const sk_selection *sel,
                  const sk_read_options *opt, rs_read_setup *su, sk_error *err);
void rs_read_end(rs_read_setup *su);
/* What the read of su cost since it started (the process's allocations
 * were m0, the clock t0) into stats: files, bytes, seconds, bytes
 * allocated. */
void rs_read_stats(const rs_read_setup *su, const sk_mem_stats *m0, double t0,
                   sk_read_stats *stats);
/* The component's reader: particles, catalogues or cells. */
int rs_read_kind(rs_read_ctx *ctx, rs_kind kind, sk_table **t, sk_error *err);

#endif
