/* The RAMSES reader's shared state and the pieces its files share. */
#ifndef SNAPKIT_RAMSES_INTERNAL_H
#define SNAPKIT_RAMSES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ramses/mapfile.h"
#include "ramses/text.h"
#include "snapkit/ramses.h"

/* Component kinds of binary per-CPU files. */
typedef enum rs_kind { RS_AMR, RS_HYDRO, RS_GRAV, RS_PART } rs_kind;

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

    rs_varlist part_desc;    /* part_file_descriptor.txt (n == 0 when absent) */
    rs_var *part_vars;       /* the particle files' records after the header */
    int npart_vars;
    int part_family_derived; /* no family record: `family` is computed */
    int part_id_width;       /* 4 or 8 bytes of identity and counts */
};

/* dir/<kind>_NNNNN.outCCCCC into buf. */
void rs_cpu_path(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n);
/* Map CPU file icpu of a kind; its path into buf (for messages). */
int rs_map_cpu(const sk_ramses *r, rs_kind kind, int icpu, char *buf, size_t n, rs_mapped *m,
               sk_error *err);

/* Column names of the hydro variables: the descriptor's (late-2017 names
 * mapped to current ones) or, without one, the conventional names by
 * position. */
int rs_hydro_names(sk_ramses *r, int nvar, sk_error *err);
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
} rs_read_ctx;
int rs_read_cells(rs_read_ctx *ctx, rs_kind kind, sk_table **out, sk_error *err);
int rs_read_particles(rs_read_ctx *ctx, sk_table **out, sk_error *err);

/* The cell walk of one CPU (full read, hydro) over amr and hydro files
 * given in memory: count, then fill scratch columns. For fuzzing. */
int rs_cells_from_memory(const void *amr, size_t amr_size, const void *hydro, size_t hydro_size,
                         const sk_ramses_info *info, int icpu, int64_t *ncells, sk_error *err);

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
    /* A table of nrows rows; its column pointers into out. */
    int (*make_table)(const void *plan, int64_t nrows, sk_table **t, void *out, sk_error *err);
    /* Free what walk_file keeps in scratch. */
    void (*scratch_free)(void *scratch);
    void *out; /* the column pointers walk_file writes through */
} rs_file_reader;

/* Read the selected CPU files into a new table in one parallel region:
 * count each file's rows, allocate the table once, then fill each file's
 * rows at its prefix-sum offset, starting the largest files first so that
 * the threads finish together. */
int rs_read_files(rs_read_ctx *ctx, const rs_file_reader *fr, sk_table **out, sk_error *err);

#endif
