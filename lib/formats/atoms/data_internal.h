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

#endif
