/* Walking an amr_ file and its hydro_/grav_ companion level by level.
 *
 * Each file lists, per level and per CPU list (ibound), blocks of octs.
 * Only the file's own list (ibound == icpu) is returned: every oct is owned
 * by exactly one CPU, so the own lists of all files hold every oct once.
 * The other lists (ghost copies of neighbours' octs) are skipped by their
 * record markers without being parsed. */
#ifndef SNAPKIT_RAMSES_AMR_H
#define SNAPKIT_RAMSES_AMR_H

#include "formats/ramses/fortran.h"
#include "snapkit/ramses.h"

typedef struct rs_amr {
    fr_cursor cur;          /* at the next level's first block */
    int icpu, ncpu, nlevelmax, nboundary;
    int ndim, ncell;        /* 1, 2 or 3; 2^ndim cells per oct */
    int coarse_min[3];      /* the box's first coarse cell in the padded coarse grid */
    int coarse[3];          /* the box's coarse cells per axis */
    double boxlen;
    const uint8_t *numbl;   /* int32 [nlevelmax][ncpu]: octs per (level, list) */
    const uint8_t *numbb;   /* int32 [nlevelmax][nboundary], or NULL */
} rs_amr;

/* Parse the header of file icpu and check it against the output's info.
 * With physical boundaries the coarse grid is padded by one boundary cell
 * per bounded face; the box is the block of coarse cells whose cpu_map is
 * set. The file's levels are RAMSES's: info->levelmax - info->level_shift
 * of them. */
int rs_amr_open(rs_amr *a, const char *path, const void *data, size_t size,
                const sk_ramses_info *info, int icpu, sk_error *err);
/* log2 of the box's coarse cells along x (the axis that sets RAMSES's
 * scale = boxlen / nx), or -1 when that is not a power of two. */
int rs_coarse_shift(const int coarse[3]);
/* Octs of list ibound (1..ncpu+nboundary) at level (1..nlevelmax). */
int rs_amr_count(const rs_amr *a, int level, int ibound);

/* The own octs of one level: n octs, centres xg (float64 records, coarse
 * units; NULL beyond ndim) and son indices of the 2^ndim cells (int32
 * records; 0: leaf). Cell ind of an oct is at offset bit d of ind on axis d. */
typedef struct rs_octs {
    int level, n;
    const uint8_t *xg[3];
    const uint8_t *son[8];
} rs_octs;

/* Read the next level (levels come in order from 1). */
int rs_amr_level(rs_amr *a, int level, rs_octs *own, sk_error *err);

/* A file of per-cell values in the amr file's oct order: hydro_ and rt_
 * (6 header records: ncpu, nvar, ndim, nlevelmax, nboundary, gamma),
 * grav_ (4: no ndim, no gamma), each nvar float64 per cell, or
 * clump_field_ (no header; one int32 per cell). */
typedef enum rs_cellform { RS_FORM_HYDRO, RS_FORM_GRAV, RS_FORM_IDS } rs_cellform;
typedef struct rs_cellfile {
    fr_cursor cur;
    int nvar;
    int width; /* bytes of one value */
} rs_cellfile;

/* Parse the header and check it against the amr file. */
int rs_cellfile_open(rs_cellfile *f, rs_cellform form, const char *path, const void *data,
                     size_t size, const rs_amr *a, sk_error *err);
/* Read the next level; vars[ind * nvar + ivar] points at the own block's
 * record of cell ind, variable ivar (n values of f->width bytes), when the level has
 * own octs. */
int rs_cellfile_level(rs_cellfile *f, const rs_amr *a, int level, const uint8_t **vars,
                      sk_error *err);

#endif
