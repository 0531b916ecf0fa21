/* Internals of the synthetic RAMSES writer (synth_*.c). */
#ifndef SNAPKIT_SYNTH_INTERNAL_H
#define SNAPKIT_SYNTH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/util/atomicfile.h"
#include "snapkit/colstats.h"
#include "snapkit/synth.h"

#define SYNTH_MAX_CLUMPS 8
#define SYNTH_NLEV (SK_SYNTH_MAX_LEVEL + 1)

/* ---- the analytic model (synth_model.c) ---- */

typedef struct synth_model {
    int levelmin, levelmax, bits; /* bits = levelmax + 1: the Hilbert grid */
    sk_synth_refine refine;
    double param;                 /* radius at levelmin (box units) or hot probability */
    uint64_t seed;
    int nclumps;
    double centre[SYNTH_MAX_CLUMPS][3]; /* box units */
    double size[SYNTH_MAX_CLUMPS];      /* relative refinement radius */
    double core[SYNTH_MAX_CLUMPS];      /* Plummer core radius, box units */
    double rho0[SYNTH_MAX_CLUMPS];      /* central gas density above the background */
    double mass[SYNTH_MAX_CLUMPS];      /* Plummer mass in code units (G = 1) */
    double boxlen;
    int nvar;
} synth_model;

void synth_model_init(synth_model *m, const sk_synth_options *opt);
/* Does the cell (level, c) refine, given that it exists? Levels below
 * levelmin always do, levelmax never. The rule keeps RAMSES's 2:1 balance:
 * a refined cell's 26 neighbours all exist. */
int synth_refined(const synth_model *m, int level, uint32_t cx, uint32_t cy, uint32_t cz);
/* Primitive hydro variables at box-unit position x (nvar values). */
void synth_hydro(const synth_model *m, const double x[3], double *out);
/* Potential and acceleration (code units) at box-unit position x. */
void synth_gravity(const synth_model *m, const double x[3], double out[4]);
/* Unnormalised number density of dark matter (family 1) or stars (2). */
double synth_particle_density(const synth_model *m, int family, const double x[3]);

/* Seeded hashing: a 64-bit mix of the inputs, and a uniform in [0, 1). */
uint64_t synth_hash(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
double synth_uniform(uint64_t h);

/* ---- the global plan (synth_plan.c) ---- */

typedef struct synth_plan {
    sk_synth_options opt;
    synth_model model;
    int ncpu, levelmax, bits;
    uint64_t *bound_key;               /* ncpu + 1 keys */
    int32_t numbtot[SYNTH_NLEV][10];   /* [level - 1]: total, min, max, total/ncpu of own octs */
    int64_t leaves_per_level[SYNTH_NLEV];
    int64_t octs_per_level[SYNTH_NLEV];
    int64_t leaves, octs;
    int ngridmax;
    int root_cpu;                      /* cpu_map of the coarse cell */
    int64_t ndm, nstar;
    double dm_mass, star_mass, mstar_tot;
    double time;
} synth_plan;

int synth_plan_build(synth_plan *p, const sk_synth_options *opt, int threads, sk_error *err);
void synth_plan_free(synth_plan *p);
/* The 8 children of cell (level, c) in Hilbert order, with their keys at
 * level + 1. */
void synth_children_sorted(int level, const uint32_t c[3], uint32_t child[8][3], uint64_t key[8]);
/* Metallicity: a hydro passive scalar (nvar >= 6) and a particle field. */
int synth_has_metal(const synth_plan *p);
/* CPU (1-based) whose domain holds `key`. */
int synth_domain_of(const synth_plan *p, uint64_t key);
/* cpu_map of cell (level, c): the domain of its centre's key. */
int synth_cell_cpu(const synth_plan *p, int level, uint32_t cx, uint32_t cy, uint32_t cz,
                   uint64_t cell_key);

/* ---- buffered Fortran records over an atomic file (synth_stream.c) ---- */

typedef struct synth_stream {
    sk_atomic_file *file;
    char *buf;
    size_t len, cap;
    int64_t bytes; /* bytes appended */
    char path[1024];
} synth_stream;

int synth_stream_open(synth_stream *s, const char *path, sk_error *err);
int synth_stream_record(synth_stream *s, const void *data, size_t bytes, sk_error *err);
int synth_stream_i32(synth_stream *s, int32_t v, sk_error *err);
int synth_stream_raw(synth_stream *s, const void *data, size_t bytes, sk_error *err);
int synth_stream_flush(synth_stream *s, sk_error *err);
/* Flush, commit (fsync + rename) and release; aborts on failure. */
int synth_stream_commit(synth_stream *s, sk_error *err);
void synth_stream_abort(synth_stream *s);
/* Appends a whole record into a memory buffer (for headers patched later). */
void synth_record_into(char **p, const void *data, size_t bytes);

/* ---- truth accumulators (synth_truth.c) ---- */


typedef struct synth_acc {
    sk_ksum sum, abs_sum, vol, abs_vol; /* compensated sums */
    double min, max;
} synth_acc;

enum { SYNTH_HYDRO, SYNTH_GRAVITY, SYNTH_PARTICLES, SYNTH_NCOMP };
#define SYNTH_MAX_COLUMNS 100
#define SYNTH_NFAMILY 11 /* families -5..5 */

/* What one CPU (or the whole output) wrote: small, so that CPUs finishing
 * out of order can wait to be merged in CPU order. */
typedef struct synth_tally {
    int64_t rows[SYNTH_NCOMP];
    int64_t levels[SYNTH_NCOMP][SYNTH_NLEV];
    int64_t families[SYNTH_NFAMILY];
    int ncol[SYNTH_NCOMP];
    synth_acc *acc[SYNTH_NCOMP]; /* ncol accumulators each, in one block */
} synth_tally;

struct sk_synth_truth {
    int present[SYNTH_NCOMP];
    int ncol[SYNTH_NCOMP];
    char names[SYNTH_NCOMP][SYNTH_MAX_COLUMNS][32];
    synth_tally *tally;
};

void synth_acc_init(synth_acc *a);
void synth_acc_add(synth_acc *a, double v, double volume);
/* Components and column names of this plan's output (no tally yet). */
void synth_truth_setup(sk_synth_truth *t, const synth_plan *p);
/* Empty accumulators for the columns of t; NULL when out of memory. */
synth_tally *synth_tally_new(const sk_synth_truth *t);
void synth_tally_free(synth_tally *t);
/* dst += src (same shape). */
void synth_tally_merge(synth_tally *dst, const synth_tally *src);
/* Name of hydro variable ivar (1-based) as the format's descriptor has it. */
void synth_hydro_name(const synth_plan *p, int ivar, char out[32]);

/* ---- one CPU's octs, level by level (synth_levels.c) ---- */

enum { SYNTH_REFINED = 1, SYNTH_AUTH = 2, SYNTH_PENDING = 4 };

/* The octs one CPU holds at one level (its own and its ghosts), in Hilbert
 * order, which is also RAMSES's list order: owners never decrease along it. */
typedef struct synth_level {
    int64_t n, cap;
    uint32_t *o;          /* [3n] oct coordinates: the father cell's at level - 1 */
    uint64_t *key;        /* [n] the father cell's Hilbert key at level - 1 */
    int32_t *owner;       /* [n] CPU of the father cell */
    int32_t *parent;      /* [n] the father's oct in the level - 1 set */
    uint8_t *pind;        /* [n] the father cell's index (0..7) in that oct */
    uint64_t *ckey;       /* [8n] cell keys at this level */
    int32_t *cpu;         /* [8n] cpu_map */
    uint8_t *flag;        /* [8n] SYNTH_REFINED | SYNTH_AUTH */
    int32_t *son;         /* [8n] child oct in the level + 1 set, -1 for none */
    uint64_t *hkey;       /* open-addressing table: packed coordinates + 1 -> index */
    int32_t *hval;
    int64_t hcap;
} synth_level;

void synth_level_free(synth_level *L);
/* The level-1 set: the one root oct. */
int synth_level_root(synth_level *L, const synth_plan *p, sk_error *err);
/* Cell keys, refinement, cpu_map, and RAMSES's authorisation of `cpu` for
 * every cell (own octs; ghost cells whose key range meets the domain; then
 * one dilation of ndim steps over face neighbours). */
void synth_level_classify(synth_level *L, const synth_plan *p, int level, int cpu);
/* The next level's set: children of refined, authorised cells, in Hilbert
 * order; fills L->son. */
int synth_level_children(synth_level *L, synth_level *next, sk_error *err);
/* Index of the oct at coordinates (x, y, z), or -1. */
int64_t synth_level_find(const synth_level *L, uint32_t x, uint32_t y, uint32_t z);

/* ---- one CPU's files (synth_cpu.c, synth_part.c) ---- */

/* Scratch a thread reuses from one CPU to the next. */
typedef struct synth_scratch synth_scratch;
synth_scratch *synth_scratch_new(void);
void synth_scratch_free(synth_scratch *s);

typedef struct synth_cpu_result {
    int64_t oct_entries;
    int64_t bytes;
    int files;
} synth_cpu_result;

/* Write amr_/hydro_/grav_ of `cpu` (the components the plan asks for),
 * accumulating the truth of its own leaf cells. */
int synth_write_cpu_grid(const synth_plan *p, const char *dir, int cpu, synth_scratch *s,
                         synth_tally *truth, synth_cpu_result *res, sk_error *err);
/* Write part_ of `cpu`, accumulating the truth of its particles. */
int synth_write_cpu_particles(const synth_plan *p, const char *dir, int cpu,
                              synth_tally *truth, synth_cpu_result *res, sk_error *err);
/* Sum of all star masses (the header's mstar_tot). */
double synth_star_mass_total(const synth_plan *p);

/* ---- text files (synth_text.c) ---- */

/* header_, namelist.txt, descriptors, compilation.txt; info_ separately so
 * that it can be written last. */
int synth_write_text_files(const synth_plan *p, const char *dir, int64_t *bytes, int *files,
                           sk_error *err);
int synth_write_info(const synth_plan *p, const char *dir, int64_t *bytes, sk_error *err);
/* Fortran's E23.15 edit of v into out (24 bytes). */
void synth_fortran_e23_15(double v, char out[24]);
/* "dir/stem_NNNNN.outCCCCC" */
void synth_cpu_path(char *out, size_t n, const char *dir, const char *stem, int output, int cpu);

#endif
