/* snapkit/atoms.h - atom files: LAMMPS dump, LAMMPS data, extended XYZ.
 *
 * A frame of atoms is an sk_table ("system"): one row per atom, the file's
 * columns in the file's order, with these names and types:
 *   id int64; type, mol, ix, iy, iz, proc int32; element SK_CATEGORY (the
 *   extxyz "species", LAMMPS "element"); x, y, z float64; every other column
 *   float64 (vx, fx, q, c_pe, ...) unless the file says otherwise (extxyz
 *   I -> int64 but int32 for the names above, L -> uint8 holding 0/1,
 *   S -> category). extxyz properties
 *   with several components: pos -> x y z, vel/velo -> vx vy vz, forces ->
 *   fx fy fz, others name_0, name_1, ...
 * Positions: LAMMPS x/y/z, xu/yu/zu (unwrapped: metadata atoms.unwrapped=1)
 * and xs/ys/zs or xsu/ysu/zsu (scaled, converted to x y z through the box:
 * x = xs*lx + ys*xy + zs*xz + xlo, as LAMMPS does) all arrive as x y z.
 *
 * Metadata (strings; doubles in the shortest exact form):
 *   kind=atoms, format (dump|data|extxyz), frame (0-based)
 *   box.origin, box.a, box.b, box.c   "x y z": origin and edge vectors; the
 *        cell is origin + u a + v b + w c, u, v, w in [0, 1)
 *   box.pbc          "T T F" style periodic flags
 *   timestep, time   LAMMPS dump ITEM: TIMESTEP / ITEM: TIME
 *   lammps.box       "xlo xhi ylo yhi zlo zhi xy xz yz" exactly as LAMMPS
 *                    holds it (a triclinic dump's bounding box converted back)
 *   lammps.boundary  "pp pp pp" style; lammps.units (dump ITEM: UNITS)
 *   lammps.title, lammps.atom_style, lammps.atom_types, lammps.masses
 *                    ("m1 m2 ..." for types 1..n, nan where not given),
 *   lammps.bonds, lammps.angles, lammps.dihedrals, lammps.impropers
 *                    topology rows "id type atom1 atom2 ...\n" (single spaces,
 *                    one row per line, as write_data writes them), each atom
 *                    an id of the frame; lammps.bond_types, ... their header
 *                    type counts (when not 0)
 *   lammps.coeffs.<name>  a Coeffs section verbatim: keyword line, blank line,
 *                    rows (name: pair, pairij, bond, angle, dihedral, improper,
 *                    bondbond, bondangle, middlebondtorsion, ...)
 *   lammps.skipped   data sections not read (e.g. "Ellipsoids,CMAP")
 *   extxyz.<key>     every other key of the comment line (the key unquoted and
 *                    unescaped), value verbatim (quotes kept; "" for a key
 *                    without a value); sk_atoms_info types it
 *   xyz.comment      a comment line that holds no key=value pairs (plain XYZ)
 * Writers use lammps.box when it still matches box.*, so LAMMPS files round
 * trip exactly; otherwise they derive the LAMMPS box from box.* (which must
 * then have a along x and b in the xy plane).
 *
 * Reading maps the file and parses pieces of it in parallel (threads from
 * the thread budget) straight into the table's columns; frame k is found
 * by scanning line ends, without parsing the frames before it. Files
 * compressed with gzip are recognised by their first bytes and inflated
 * into memory. Writing formats pieces in parallel and writes them in order
 * to a temporary file renamed into place on success (.gz names: gzip).
 */
#ifndef SNAPKIT_ATOMS_H
#define SNAPKIT_ATOMS_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_atoms_format {
    SK_ATOMS_AUTO = 0, /* from the file name, else from the first bytes */
    SK_ATOMS_DUMP,     /* LAMMPS text dump (.lammpstrj, .dump, dump.*) */
    SK_ATOMS_DATA,     /* LAMMPS data file (.data, .lmp, data.*) */
    SK_ATOMS_EXTXYZ    /* extended XYZ; plain XYZ reads too (.extxyz, .xyz) */
} sk_atoms_format;

typedef struct sk_atoms_options {
    int threads;            /* 0: the thread budget's count */
    const char *atom_style; /* data files: overrides the "Atoms # style" hint */
    int gzip_level;         /* writing .gz: 1 (fast) .. 9 (small); 0 = 6 */
    int no_fsync;           /* writing: 1 skips the flush to disk before the rename. Still
                               all or nothing under the name, but after a power cut the
                               file may be the old one or empty (what cp gives); saves the
                               disk's flush time (docs/atoms.md) */
} sk_atoms_options;

/* "dump", "data", "extxyz" ("auto" for SK_ATOMS_AUTO). */
SK_API const char *sk_atoms_format_name(sk_atoms_format format);
/* Inverse, also accepting "lammps-dump", "lammps-dump-text", "lammpstrj",
 * "lammps-data", "lmp", "xyz"; SK_ATOMS_AUTO when unknown. */
SK_API sk_atoms_format sk_atoms_format_from_name(const char *name);
/* Format from a file name (a trailing .gz is ignored); SK_ATOMS_AUTO when
 * the name says nothing. */
SK_API sk_atoms_format sk_atoms_guess_format(const char *path);

/* ---- reading ---------------------------------------------------------- */

typedef struct sk_atoms_file sk_atoms_file;

/* Open (map or inflate) a file; format SK_ATOMS_AUTO guesses. opts may be
 * NULL. Frames are found lazily. */
SK_API int sk_atoms_open(sk_atoms_file **out, const char *path, sk_atoms_format format,
                         const sk_atoms_options *opts, sk_error *err);
/* The same over bytes in memory (not copied: they must outlive the handle);
 * name is used in messages. gzip bytes are inflated. */
SK_API int sk_atoms_open_memory(sk_atoms_file **out, const void *data, size_t size,
                                const char *name, sk_atoms_format format,
                                const sk_atoms_options *opts, sk_error *err);
SK_API void sk_atoms_close(sk_atoms_file *f);

SK_API sk_atoms_format sk_atoms_file_format(const sk_atoms_file *f);
/* Bytes of the (inflated) file. */
SK_API int64_t sk_atoms_file_size(const sk_atoms_file *f);

/* Number of frames; scans the whole file for frame starts (reads headers,
 * counts lines, parses no atom). */
SK_API int sk_atoms_count_frames(sk_atoms_file *f, int64_t *count, sk_error *err);

/* Frame k (0-based; negative counts from the end) as a new table. Only the
 * headers of the frames before it are read. SK_ERR_RANGE when there is no
 * such frame. */
SK_API int sk_atoms_read_frame(sk_atoms_file *f, int64_t k, sk_table **out, sk_error *err);

/* The next frame after the last one read (the first at the start); *out is
 * NULL after the last frame. */
SK_API int sk_atoms_next(sk_atoms_file *f, sk_table **out, sk_error *err);

/* Frame k's header without its atoms: a table of 0 rows with the columns
 * (names and types) and the metadata a read gives, and the atom count. */
SK_API int sk_atoms_frame_header(sk_atoms_file *f, int64_t k, sk_table **out, int64_t *natoms,
                                 sk_error *err);

/* Open, read frame `frame`, close. */
SK_API int sk_atoms_read(const char *path, sk_atoms_format format, int64_t frame,
                         const sk_atoms_options *opts, sk_table **out, sk_error *err);

/* ---- writing ---------------------------------------------------------- */

typedef struct sk_atoms_writer sk_atoms_writer;

/* Start writing `path` (a temporary file beside it until commit). format
 * SK_ATOMS_AUTO guesses from the name. A name ending in .gz is written
 * gzip-compressed (in parallel, as concatenated gzip members). */
SK_API int sk_atoms_writer_open(sk_atoms_writer **out, const char *path, sk_atoms_format format,
                                const sk_atoms_options *opts, sk_error *err);
/* Append one frame. Data files hold one frame: a second is SK_ERR_ARG. */
SK_API int sk_atoms_writer_add(sk_atoms_writer *w, const sk_table *frame, sk_error *err);
/* Finish: flush, fsync, rename into place; frees w (also on failure, which
 * leaves any existing file at path untouched). SK_ERR_ARG, and nothing
 * written, when no frame was added. */
SK_API int sk_atoms_writer_commit(sk_atoms_writer *w, sk_error *err);
/* Drop the temporary file; frees w. NULL is allowed. */
SK_API void sk_atoms_writer_abort(sk_atoms_writer *w);

/* Write one frame to path (open, add, commit). */
SK_API int sk_atoms_write(const char *path, const sk_table *frame, sk_atoms_format format,
                          const sk_atoms_options *opts, sk_error *err);

/* ---- the box ---------------------------------------------------------- */

typedef struct sk_box {
    double origin[3];
    double a[3], b[3], c[3]; /* edge vectors */
    int pbc[3];              /* periodic along a, b, c */
} sk_box;

/* The frame's box from its metadata; SK_ERR_EMPTY when it has none,
 * SK_ERR_FORMAT when the metadata is malformed. */
SK_API int sk_atoms_get_box(const sk_table *frame, sk_box *box, sk_error *err);
/* Store the box in box.* metadata (and drop a stale lammps.box). */
SK_API int sk_atoms_set_box(sk_table *frame, const sk_box *box);

/* The standard atomic weight of an element symbol ("Cu" -> 63.546), 0 when
 * unknown; and the symbol whose weight is within 0.05 of mass, or NULL. */
SK_API double sk_element_mass(const char *symbol);
/* 1 when the frame holds molecular topology (Bonds, Angles, Dihedrals or
 * Impropers rows, from a LAMMPS data file), which only data files keep. */
SK_API int sk_atoms_has_topology(const sk_table *frame);
SK_API const char *sk_element_from_mass(double mass);

/* ---- extended XYZ comment values --------------------------------------- */

/* The grammar (docs/atoms.md): a value is a bare word, a quoted string
 * ("..." or '...', escapes \" \\ \n and \X -> X), an old-style array
 * ("1 2 3", 'T F', {1 2 3}: whitespace-separated numbers or bools, else the
 * text as a string; one element is a scalar) or a new-style array ([1, 2],
 * [[1, 2], [3, 4]], ["a", b]: elements of one type, ints mixed with floats
 * become floats). Words: integers (int64; longer ones are floats), floats
 * (with e, E, d or D exponents; inf, nan; underflow rounds to zero,
 * overflow is an error), bools T F True False TRUE FALSE true false, else
 * strings. A key without a value is the bool true. */
typedef enum sk_xyz_type { SK_XYZ_BOOL = 1, SK_XYZ_INT, SK_XYZ_FLOAT, SK_XYZ_STRING } sk_xyz_type;

typedef struct sk_xyz_value {
    sk_xyz_type type;
    int ndim;         /* 0 scalar, 1 vector, 2 matrix */
    int64_t shape[2]; /* ndim 1: {n, 0}; ndim 2: {rows, columns}; scalar {0, 0} */
    int64_t n;        /* elements: 1 for a scalar */
    void *data;       /* n of uint8_t (0/1), int64_t, double or char * (NUL-terminated,
                         may hold newlines); row-major */
} sk_xyz_value;

/* Type one value as written (the whole of text: one token, no blanks
 * around). SK_ERR_FORMAT names the 1-based column in err->column. */
SK_API int sk_xyz_value_parse(const char *text, sk_xyz_value *out, sk_error *err);
/* Free a value's data (the struct itself is the caller's). */
SK_API void sk_xyz_value_free(sk_xyz_value *value);
/* The extxyz comment value of key (metadata extxyz.<key>) typed;
 * SK_ERR_ARG when the frame has no such key. */
SK_API int sk_atoms_info(const sk_table *frame, const char *key, sk_xyz_value *out,
                         sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
