/* Shared pieces of the atom-file readers and writers. */
#ifndef SNAPKIT_ATOMS_INTERNAL_H
#define SNAPKIT_ATOMS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/atoms.h"
#include "snapkit/error.h"
#include "snapkit/table.h"
#include "snapkit/util/text.h"

/* ---- the bytes of a file (source.c, gzip.c) ---------------------------- */

typedef struct source {
    const char *data;
    size_t size;
    char *path;   /* name used in messages (owned) */
    void *map;    /* mmap base, or NULL */
    size_t map_size;
    char *owned;  /* inflated bytes (sk_malloc), or NULL */
    int64_t disk_size, mtime_ns; /* of the file on disk (-1 for memory) */
    uint64_t disk_hash;          /* of its first and last 4 KiB, as stored */
} source;

int at_source_open(source *src, const char *path, sk_error *err);
int at_source_memory(source *src, const void *data, size_t size, const char *name, sk_error *err);
void at_source_close(source *src);

/* Inflate gzip bytes (one or more members) into an sk_malloc block. */
int at_gzip_inflate(const char *path, const unsigned char *in, size_t n, char **out, size_t *out_n,
                 sk_error *err);
/* One complete gzip member holding [in, in + n) into an sk_malloc block. */
int at_gzip_member(const char *path, const void *in, size_t n, int level, char **out,
                size_t *out_n, sk_error *err);
static inline int is_gzip(const void *data, size_t n)
{
    const unsigned char *b = data;
    return n >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

/* ---- lines (lines.c) ---------------------------------------------------- */

/* A walk over lines of [p, end), counting them (1-based). */
typedef struct cursor {
    const char *p, *end;
    int64_t line; /* number of the line that starts at p */
} cursor;

/* The next line as [*b, *e) without its "\n" or "\r\n"; 0 at the end. */
int at_cursor_next(cursor *c, const char **b, const char **e);
/* The next line that is not blank (after stripping a '#' comment when
 * comment is set); 0 at the end. *line gets its number. */
int at_cursor_next_nonblank(cursor *c, const char **b, const char **e, int comment, int64_t *line);
/* Is the rest only whitespace? */
int at_only_space(const char *p, const char *end);

/* Position after n more lines from p (a line start); *done is the number
 * of line ends passed (< n when the bytes end first; a last line without
 * "\n" counts). Vectorisable block counting. */
const char *at_skip_lines(const char *p, const char *end, int64_t n, int64_t *done);
int64_t at_count_lines(const char *p, const char *end);

static inline int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static inline const char *skip_blank(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}
/* End of the token at p (the next blank, newline or end). */
static inline const char *token_end(const char *p, const char *end)
{
    while (p < end && !is_blank(*p) && *p != '\n')
        p++;
    return p;
}
/* Does [b, e) start with the word w followed by a blank or the end? */
int at_starts_with_word(const char *b, const char *e, const char *w);
/* Strip blanks at both ends of [*b, *e). */
void at_trim(const char **b, const char **e);

/* ---- parallel parsing of atom lines (body.c) ----------------------------- */

typedef enum field_kind {
    FIELD_SKIP,
    FIELD_INT32,
    FIELD_INT64,
    FIELD_FLOAT64,
    FIELD_CATEGORY,
    FIELD_BOOL
} field_kind;

typedef struct field {
    field_kind kind;
    void *data;       /* nrows elements */
    const char *name; /* column name, for messages and category labels */
} field;

typedef struct body {
    const char *path;
    const char *begin, *end; /* exactly nrows lines; the last may lack "\n" */
    int64_t first_line;      /* number of the line at begin */
    int64_t nrows;
    const field *fields;
    int nfields;
    int nrequired; /* lines may end after this many fields; the rest are 0 */
    char comment;  /* a character that ends a line's fields, or 0 */
    int threads;
    int allow_extra; /* ignore fields after the last (plain XYZ) */
    int fortran;     /* floats may have d or D exponents (extxyz) */
} body;

/* Parse every line into the fields' columns; category fields get their
 * labels set on table t (by name). The first error (lowest line) wins. */
int at_body_parse(const body *b, sk_table *t, sk_error *err);

/* The column type a field kind is stored as. */
sk_dtype at_field_dtype(field_kind kind);
/* Add column `name` of that type to t and point *f at it. */
int at_field_add(sk_table *t, const char *name, field_kind kind, field *f, sk_error *err);
/* Integer columns LAMMPS keeps as 32 bits (type, mol, image flags, proc):
 * the same type in every format. */
int at_lammps_int32_column(const char *name);

/* ---- formatting atom lines in parallel (writer.c) ------------------------ */

typedef struct out_field {
    const void *data;
    sk_dtype type;
    char *const *labels; /* SK_CATEGORY */
    int32_t nlabels;
    int as_bool;         /* SK_UINT8 written as T/F */
} out_field;

typedef struct out_sink out_sink; /* ordered byte output: file or gzip */

int at_sink_open(out_sink **out, const char *path, int gzip_level, int threads, int fsync_on,
                 sk_error *err);
int at_sink_write(out_sink *s, const void *data, size_t n, sk_error *err);
/* Format rows [0, nrows) of the fields, one line each ("a b c\n"), in
 * parallel pieces written in order. */
int at_sink_rows(out_sink *s, const out_field *fields, int nfields, int64_t nrows, sk_error *err);
int at_sink_commit(out_sink *s, sk_error *err);
void at_sink_abort(out_sink *s);
/* Output fields for a table column (category -> labels). */
int at_out_field_for(const sk_column *c, out_field *f, sk_error *err);

/* ---- headers are written into core's growing text (core/text.h) ---------- */

/* The shortest text that reads back as v. */
void at_text_double(sk_text *t, double v);

/* ---- box conversions (box.c) ---------------------------------------------- */

/* LAMMPS box: lo/hi of the tilt-free box and the tilts. */
typedef struct lmp_box {
    double lo[3], hi[3];
    double xy, xz, yz;
    int triclinic;
    char boundary[3][3]; /* "pp", "fs", ... */
} lmp_box;

/* box.* (and lammps.box, lammps.boundary) metadata from a LAMMPS box. */
int at_lmp_box_store(sk_table *t, const lmp_box *b);
/* The LAMMPS box to write for a frame: lammps.box when it still matches
 * box.*, else derived from box.*. SK_ERR_ARG when the frame has no box or
 * its cell is not in LAMMPS orientation. */
int at_lmp_box_for(const sk_table *t, lmp_box *b, sk_error *err);
/* Tilt-free box from a triclinic dump's bounding box lines. */
void at_lmp_box_from_bounds(lmp_box *b, const double bound_lo[3], const double bound_hi[3]);
/* A triclinic dump's bounding box lines from the box. */
void at_lmp_box_bounds(const lmp_box *b, double bound_lo[3], double bound_hi[3]);

/* "x y z" with shortest doubles, and its inverse (0 on success). */
void at_format_vec3(char *buf, size_t n, const double v[3]);
int at_parse_vec(const char *s, double *v, int n);

/* ---- the readers and writers ---------------------------------------------- */

typedef struct sk_atoms_file sk_atoms_file;

/* The frames found so far: where each starts (byte, line), its atom count
 * and timestep (AT_NO_TIMESTEP when it has none; -1 atoms for a frame
 * found but not yet skipped). */
#define AT_NO_TIMESTEP INT64_MIN
typedef struct at_index {
    int64_t *pos, *line, *natoms, *step;
    int64_t n, cap;
    int complete; /* every frame found */
} at_index;
void at_index_free(at_index *x);
/* Append a frame start; its count and timestep come when it is skipped. */
int at_index_push(at_index *x, int64_t pos, int64_t line);

struct sk_atoms_file {
    source src;
    sk_atoms_format format;
    int threads;
    char *atom_style;
    at_index idx;
    int64_t next;     /* for sk_atoms_next */
};

/* Find frame starts until frame k is known or every frame is (atoms.c). */
int at_find_frame(sk_atoms_file *f, int64_t k, sk_error *err);

/* Where frame at (pos, line) ends: after its last atom line, and the
 * number of the line that starts there; the frame's atom count and
 * timestep (AT_NO_TIMESTEP when it has none). */
typedef struct frame_span {
    const char *end;
    int64_t next_line;
    int64_t natoms, timestep;
} frame_span;

/* Where the `natoms` atom lines from body (numbered from body_line) end;
 * fails naming the line where the file ends first ("... atom lines" then
 * count_note, which says where the count came from). */
int at_frame_span(const sk_atoms_file *f, const char *body, int64_t body_line, int64_t natoms,
                  const char *count_note, frame_span *span, sk_error *err);
/* The first non-blank line after a frame, as [*b, *e) numbered *line; 0
 * at the end of the file. */
int at_line_after(const sk_atoms_file *f, const frame_span *span, const char **b, const char **e,
                  int64_t *line);
/* A cursor at byte pos of the file, on line `line`. */
static inline cursor at_cursor_at(const sk_atoms_file *f, int64_t pos, int64_t line)
{
    return (cursor){f->src.data + pos, f->src.data + f->src.size, line};
}

/* Column names (owned) and kinds a reader found in a frame's header. */
#define AT_MAX_COLUMNS 1024
typedef struct at_columns {
    int n;
    char *names[AT_MAX_COLUMNS];
    field_kind kind[AT_MAX_COLUMNS];
} at_columns;
void at_columns_free(at_columns *c);

int at_dump_skip(sk_atoms_file *f, int64_t pos, int64_t line, frame_span *span, sk_error *err);
int at_dump_read(sk_atoms_file *f, int64_t pos, int64_t line, int with_atoms, int64_t *natoms,
              sk_table **out, sk_error *err);
int at_xyz_skip(sk_atoms_file *f, int64_t pos, int64_t line, frame_span *span, sk_error *err);
int at_xyz_read(sk_atoms_file *f, int64_t pos, int64_t line, int with_atoms, int64_t *natoms,
             sk_table **out, sk_error *err);
int at_data_read(sk_atoms_file *f, int with_atoms, int64_t *natoms, sk_table **out, sk_error *err);

/* A LAMMPS atom style's columns (styles.c): Atoms ("id type x y z") and
 * Velocities ("id vx vy vz wx wy wz") lines, and which topology it holds
 * (0 none, 1 bonds, 2 and angles, 4 and dihedrals and impropers). */
typedef struct lmp_style {
    char atoms[160], vel[96];
    int topology;
    int hybrid; /* write_data writes the hint as just "hybrid" */
} lmp_style;
/* 0 when the style is unknown ("hybrid A B" knows A and B). */
int at_lmp_style(const char *style, lmp_style *out);
/* The known styles, for messages. */
const char *at_lmp_style_known(void);

int at_dump_write(out_sink *s, const sk_table *t, sk_error *err);
int at_xyz_write(out_sink *s, const sk_table *t, sk_error *err);
int at_data_write(out_sink *s, const sk_table *t, sk_error *err);

#endif
