/* snapkit/synth.h - synthetic RAMSES outputs at any scale.
 *
 * Writes a complete RAMSES output folder (info, header, namelist,
 * descriptors, and amr/hydro/grav/part files per CPU) from an analytic
 * model, in the layout RAMSES itself writes, so that real readers accept it:
 *
 *   - the oct tree is procedural: a cell refines iff a deterministic function
 *     of its position, level and the seed says so (a sphere, clumps, or
 *     random patches), tuned to about `cells_target` leaf cells; levels below
 *     levelmin are full, and the tree obeys RAMSES's 2:1 rule;
 *   - domains are Hilbert ranges balanced by leaf cells like RAMSES's load
 *     balancer; each CPU file holds its own octs plus the ghost octs RAMSES
 *     keeps for that domain (its authorisation rule, checked against real
 *     outputs), with son, father, nbor, cpu_map, flag1, next/prev and the
 *     header counts RAMSES would write;
 *   - fields are smooth analytic profiles around the clump centres (density,
 *     velocity, pressure, metallicity, passive scalars), gravity is the
 *     Plummer potential of those clumps and its exact gradient, particles are
 *     dark matter and stars with identity, level, family, tag, birth time
 *     and metallicity.
 *
 * Each CPU's files are generated on their own, level by level, and several
 * CPUs are written in parallel under the thread budget. Memory per thread is
 * what one RAMSES process holds for its domain (three consecutive levels of
 * its octs and its particles), never the whole output. Every file goes
 * through sk_atomic_*, and info_NNNNN.txt is written last, so a folder
 * without it is never mistaken for a finished output.
 *
 * The generator knows its truth: the leaf counts per level and per-column
 * sums, volume sums, minima and maxima of what it wrote, accumulated with
 * compensated sums while writing.
 */
#ifndef SNAPKIT_SYNTH_H
#define SNAPKIT_SYNTH_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/progress.h"
#include "snapkit/ramses.h"

/* The JSON writer (snapkit/util/json.h), taken by pointer. */
typedef struct sk_json sk_json;

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest levelmax: Hilbert keys of 3 * (levelmax + 1) bits stay below 2^63. */
#define SK_SYNTH_MAX_LEVEL 20

typedef enum sk_synth_refine {
    SK_SYNTH_SPHERE = 0, /* nested spheres around one centre */
    SK_SYNTH_CLUMPS = 1, /* nested spheres around eight seeded centres of different sizes */
    SK_SYNTH_RANDOM = 2  /* seeded patches: a cell is hot with a probability, and only inside a hot parent */
} sk_synth_refine;

/* Components (bits of sk_synth_options.components). */
enum { SK_SYNTH_HYDRO = 1u, SK_SYNTH_GRAVITY = 2u, SK_SYNTH_PARTICLES = 4u };

typedef struct sk_synth_options {
    int ncpu;               /* CPU files (domains), 1..99999 */
    int levelmin, levelmax; /* 1 <= levelmin <= levelmax <= SK_SYNTH_MAX_LEVEL */
    unsigned components;    /* SK_SYNTH_* bits */
    int nvar;               /* hydro variables, 5..99: density, velocity x/y/z, pressure,
                               then metallicity and passive scalars */
    int64_t npart;          /* particles when SK_SYNTH_PARTICLES: npart/4 stars, the rest DM */
    double stray_particles; /* 0..1: this fraction of the particles (seeded) is moved, as
                               RAMSES can leave particles at an output, anywhere in the 3x3x3
                               block of levelmin octs around the levelmin oct holding them
                               (across periodic faces), staying in their CPU's file; 0: none */
    sk_synth_refine refine;
    int64_t cells_target;   /* leaf cells to aim at (tunes the refinement); 0: default scale */
    sk_ramses_format format;/* SK_RAMSES_CURRENT or SK_RAMSES_2017 */
    double boxlen;          /* box size in code units, > 0 */
    uint64_t seed;
    int output;             /* NNNNN of the file names, 1..99999 */
    int threads;            /* 0: the whole thread budget */
    int overwrite;          /* allow a folder that already holds files (stale outputs of
                               the same number are removed first, info_ before the rest) */
    sk_progress progress;   /* optional: files done / total, bytes written */
} sk_synth_options;

/* Defaults: 8 CPUs, levels 6..10, hydro+gravity+particles, nvar 6, 100000
 * particles, sphere, current format, boxlen 1, seed 1, output 1. */
SK_API void sk_synth_options_init(sk_synth_options *opt);

/* What a generation produced (or, from sk_synth_plan, will produce). */
typedef struct sk_synth_report {
    int64_t leaves;                                   /* leaf cells */
    int64_t leaves_per_level[SK_SYNTH_MAX_LEVEL + 1]; /* by RAMSES level */
    int64_t octs;                                     /* distinct octs */
    int64_t oct_entries;   /* octs over all amr files, ghost copies included (write only) */
    int64_t particles;     /* dark matter + stars */
    double refine_param;   /* the refinement scale used: sphere radius at levelmin (box
                              units) or hot probability (random) */
    int ngridmax;
    int64_t files;         /* files written (write only) */
    int64_t bytes;         /* bytes written (write only) */
    double seconds;        /* wall time */
} sk_synth_report;

/* The tree, domains and counts that `opt` leads to, without writing. */
SK_API int sk_synth_plan(const sk_synth_options *opt, sk_synth_report *report, sk_error *err);

typedef struct sk_synth_truth sk_synth_truth;

/* Write the output into `dir` (created when missing; it must be empty
 * unless opt->overwrite). On success *truth (when not NULL) receives the
 * truth of what was written, to free with sk_synth_truth_free, and
 * *report (when not NULL) the counts. */
SK_API int sk_synth_write(const char *dir, const sk_synth_options *opt, sk_synth_truth **truth,
                          sk_synth_report *report, sk_error *err);

SK_API void sk_synth_truth_free(sk_synth_truth *t);

/* Statistics of one column over the leaf cells (hydro, gravity) or the
 * particles, in code units as stored. Volume sums are sum(value * (boxlen /
 * 2^level)^3), zero for particles. */
typedef struct sk_synth_stats {
    double sum, abs_sum, volume_sum, abs_volume_sum, min, max;
} sk_synth_stats;

/* Rows of "hydro", "gravity" or "particles" (-1 when not written). */
SK_API int64_t sk_synth_truth_rows(const sk_synth_truth *t, const char *component);
/* Leaf cells at `level` (cells only; -1 when not written). */
SK_API int64_t sk_synth_truth_level_rows(const sk_synth_truth *t, const char *component, int level);
/* Number of columns, and the name of column i (NULL when out of range).
 * Names follow the descriptor files of the format written. */
SK_API int sk_synth_truth_ncolumns(const sk_synth_truth *t, const char *component);
SK_API const char *sk_synth_truth_column_name(const sk_synth_truth *t, const char *component,
                                              int i);
/* SK_ERR_ARG when the component or column is unknown. */
SK_API int sk_synth_truth_column(const sk_synth_truth *t, const char *component, const char *column,
                                 sk_synth_stats *out, sk_error *err);

/* The truth as one JSON object {"hydro": ..., "gravity": ..., "particles":
 * ...} in the schema of the fixtures' reference.json "full" entry: rows,
 * levels (cells) and per column min, max, sum, abs_sum (and volume_sum,
 * abs_volume_sum for cells); particles add "families" (count per family). */
SK_API void sk_synth_truth_json(const sk_synth_truth *t, sk_json *j);

#ifdef __cplusplus
}
#endif
#endif
