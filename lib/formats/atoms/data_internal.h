/* The layout of a LAMMPS data file (data_scan.c) shared with the parsing
 * of its sections (data_read.c). */
#ifndef SNAPKIT_ATOMS_DATA_INTERNAL_H
#define SNAPKIT_ATOMS_DATA_INTERNAL_H

#include "formats/atoms/internal.h"

enum {
    C_ATOMS, C_ATOM_TYPES, C_BONDS, C_BOND_TYPES, C_ANGLES, C_ANGLE_TYPES, C_DIHEDRALS,
    C_DIHEDRAL_TYPES, C_IMPROPERS, C_IMPROPER_TYPES, C_CROSSTERMS, C_ELLIPSOIDS, C_LINES,
    C_TRIANGLES, C_PAIRIJ, C_NCOUNTS
};

typedef struct section {
    int kind;              /* which section (data_section_name) */
    const char *body;      /* first line */
    int64_t body_line;
    const char *end;       /* after the last line */
    char hint[32];         /* the word after '#' on the keyword line */
    int64_t hint_column;
    int64_t keyword_line;
    const char *key, *key_end; /* the keyword line, verbatim */
} section;

typedef struct data_file {
    sk_atoms_file *f;
    char title[512];
    int64_t counts[C_NCOUNTS];
    lmp_box box;
    section sec[64];
    int nsec;
    int atoms, velocities, masses; /* section indexes, -1 when absent */
} data_file;

/* Find the title, header counts, box and every section's lines. */
int at_data_scan(data_file *d, sk_error *err);
/* A section's name ("Atoms", "Pair Coeffs", ...). */
const char *at_data_section_name(int kind);

/* Atom ids for membership tests: a bitmap when dense, else sorted. */
typedef struct id_set {
    uint8_t *bits;
    int64_t *sorted;
    int64_t n, max;
} id_set;
int at_id_set_build(id_set *s, const sk_column *id, int64_t n);
int at_id_set_has(const id_set *s, int64_t v);
void at_id_set_free(id_set *s);

/* Bonds/Angles/Dihedrals/Impropers and every Coeffs section (data_topo.c). */
int at_data_is_topology(int kind);
/* Topology rows (checked against the table's ids when with_atoms), type
 * counts and Coeffs sections into t's metadata. */
int at_data_topology_read(const data_file *d, sk_table *t, int with_atoms, sk_error *err);
/* Header count lines ("6 bonds\n2 bond types\n") for the frame's topology;
 * SK_ERR_ARG when the style cannot hold it (allowed: lmp_style.topology). */
int at_data_topology_header(sk_text *h, const sk_table *t, const char *style, int allowed,
                            sk_error *err);
/* The Coeffs sections, each preceded by a blank line, in write_data's order. */
void at_data_coeffs_text(sk_text *h, const sk_table *t);
/* The Bonds ... Impropers sections; ids are gen_ids' 1..n when set, else the
 * id column's. Rows naming an atom not written are SK_ERR_ARG. */
int at_data_topology_write(out_sink *s, const sk_table *t, const sk_column *id,
                           const int64_t *gen_ids, int64_t n, sk_error *err);

/* Ellipsoids (data_ellipsoids.c): shapex ... quatk columns when the table
 * has ellipsoidflag, filled from the section when with_atoms. */
int at_data_ellipsoids_read(const data_file *d, sk_table *t, int with_atoms, sk_error *err);
/* "N ellipsoids" for styles with ellipsoidflag. */
void at_data_ellipsoids_header(sk_text *h, const sk_table *t, const lmp_style *ls);
/* The Ellipsoids section for atoms with ellipsoidflag set (ids gen_ids'
 * when set, else the id column's). */
int at_data_ellipsoids_write(out_sink *s, const sk_table *t, const int64_t *gen_ids,
                             sk_error *err);

#endif
