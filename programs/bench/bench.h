/* bench/bench.h - measuring snapkit on the user's own machine.
 *
 * The pieces of `snapkit bench`: facts about the machine and the job's CPUs,
 * a storage probe (open/close rate, per-reader throughput under
 * concurrency), thread sweeps with their analysis (fastest, sweet spot,
 * economical point, Amdahl fit), and the report: text, CSV, JSON and a
 * figure (PNG, SVG and PDF, drawn with cairo) with one panel per stage
 * that ran.
 *
 * Not part of libsnapkit: the static library snapkit_bench, linked by the
 * command line and the bench tests, above every other module (it reads,
 * converts and projects through their public APIs). Its header is not
 * installed and its API may change between releases.
 *
 * Results are plain structs the caller owns. Text and figures are written
 * into buffers or files; the module never prints.
 */
#ifndef SNAPKIT_BENCH_BENCH_H
#define SNAPKIT_BENCH_BENCH_H

#include <stdint.h>

#include "snapkit/error.h"
#include "snapkit/util/json.h"
#include "snapkit/progress.h"
#include "snapkit/ramses.h"
#include "snapkit/select.h"
#include "snapkit/source.h"
#include "snapkit/table.h"
#include "snapkit/threads.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- machine */

/* Components a source can hold (a RAMSES output's seven, a file's tables). */
#define SKB_MAX_COMPONENTS 8

/* First touch of fresh anonymous memory (firsttouch.c). */
typedef struct sk_first_touch {
    int64_t bytes;          /* touched; 0: not measured */
    double gb_per_s;        /* first touch, 4 KB pages */
    double huge_gb_per_s;   /* first touch after MADV_HUGEPAGE */
    double second_gb_per_s; /* the same memory touched again */
    char thp_enabled[32], thp_defrag[32]; /* the kernel's THP modes */
} sk_first_touch;

typedef struct sk_machine {
    char cpu_model[128];  /* "model name" of /proc/cpuinfo; "unknown" when absent */
    int logical_cpus;     /* online CPUs */
    int physical_cores;   /* distinct (physical id, core id) pairs; logical_cpus when unknown */
    int64_t ram_bytes;    /* MemTotal */
    int64_t ram_available;/* MemAvailable (MemFree when absent) */
    int64_t ram_limit;    /* the job's memory limit (cgroup), 0 when none */
    char os[128];         /* "Linux 6.1.0-18-amd64 x86_64" */
    sk_thread_budget budget; /* for the threads the caller asked for */
    sk_first_touch touch;    /* filled by sk_machine_first_touch (bench report) */
} sk_machine;

/* Measure first touch on `bytes` of fresh memory (about 0.1-1 s for
 * 128 MB); never fails (rates 0 when memory cannot be mapped). */
void sk_machine_first_touch(int64_t bytes, sk_first_touch *out);

/* Fill out from /proc/cpuinfo, /proc/meminfo, uname and the thread budget
 * for `requested_threads` (0: none asked). Facts that cannot be read stay
 * zero or "unknown"; never fails. */
void sk_machine_get(int requested_threads, sk_machine *out);

/* Memory the job may use: the smaller of RAM and the cgroup limit. */
int64_t sk_machine_memory(const sk_machine *m);

/* The parsers behind sk_machine_get, on given text. */
void sk_machine_parse_cpuinfo(const char *text, sk_machine *out);
void sk_machine_parse_meminfo(const char *text, sk_machine *out);

/* Name of a statfs f_type magic ("ext2/3/4", "xfs", "nfs", "lustre",
 * "gpfs", "tmpfs", ...); NULL when unknown. */
const char *sk_fs_name(uint64_t magic);

/* Filesystem type of the file or folder `path` into name[n]: the name of
 * its magic, or "unknown (0x...)". */
int sk_fs_type(const char *path, char *name, size_t n, sk_error *err);

/* When more threads were asked than the job owns, write a one-line
 * warning naming the value to use with `flag` (NULL: "--threads") into
 * buf and return 1; else return 0. */
int sk_thread_warning(const sk_thread_budget *b, const char *flag, char *buf, size_t n);

/* --------------------------------------------------------- thread levels */

#define SK_BENCH_MAX_LEVELS 32

/* Thread levels 1, 2, 4, ... up to max, with max itself last. Returns the
 * count (at most cap). */
int sk_bench_default_levels(int max, int *levels, int cap);

/* Parse "1,2,4,8" into levels (ascending, duplicates removed). Returns the
 * count, or -1 (err filled) on a bad list. */
int sk_bench_parse_levels(const char *text, int *levels, int cap, sk_error *err);

/* Drop levels above `owned` in place; returns the new count. The library
 * never runs more threads than the job owns. */
int sk_bench_clamp_levels(int *levels, int n, int owned);

/* The levels a stage runs: the asked ones (n > 0) or the defaults up to
 * the budget, without those above the budget (counted in *dropped). */
int sk_bench_plan_levels(const int *asked, int n, int *levels, int *dropped);

/* The median of v[0..n-1] (n >= 1); sorts v in place. What every stage
 * reports of repeated runs. */
double sk_bench_median(double *v, int64_t n);

/* --------------------------------------------------------------- storage */

typedef struct sk_storage_options {
    int levels[SK_BENCH_MAX_LEVELS]; /* thread levels; nlevels 0: 1, 2, 4, ... the budget */
    int nlevels;
    int runs;             /* repetitions per level (>= 1; 0 means 3) */
    int nfiles;           /* sample at most this many files (0 means 64) */
    sk_progress progress; /* done/total counts measurements */
} sk_storage_options;

typedef struct sk_storage_point {
    int threads;
    double iops;               /* open+close per second, all threads together (median of runs) */
    double iops_min, iops_max; /* slowest and fastest run */
    double open_close_seconds; /* median latency of one open+close */
    double reader_bps;         /* bytes per second of one reader, mean over the concurrent readers (median of runs) */
    double reader_bps_min, reader_bps_max;
    double total_bps;          /* bytes per second of all readers together (median of runs) */
} sk_storage_point;

typedef struct sk_storage_result {
    char dir[1024];
    char fs_type[48];
    int64_t files_total;       /* regular files in dir (not recursive) */
    int64_t bytes_total;
    int files_sampled;         /* evenly spread over the sorted names */
    int64_t bytes_sampled;
    int64_t bytes_read;        /* everything read, the warm-up included */
    int64_t opens;             /* open+close operations done */
    int runs;
    int npoints;
    sk_storage_point points[SK_BENCH_MAX_LEVELS];
    int levels_dropped;        /* asked-for levels above the budget, not run */
    sk_thread_budget budget;
    double seconds;            /* wall time of the whole probe */
} sk_storage_result;

/* Probe the storage holding dir: for each thread level, the open+close
 * rate with no read, and the throughput of concurrent readers of whole
 * files (the sample is read once first, so the page cache is warm). dir
 * may be a single file (a .snapkit file), then the only one sampled. */
int sk_bench_storage(const char *dir, const sk_storage_options *opt, sk_storage_result *out,
                     sk_error *err);

/* ---------------------------------------------------- scaling and sweeps */

typedef struct sk_sweep_point {
    int threads;
    int runs;
    double seconds;      /* median of the runs */
    double seconds_min, seconds_max;
    double speedup;      /* seconds at the fewest threads / seconds */
    double efficiency;   /* speedup * fewest threads / threads */
    double spread;       /* (slowest - fastest) / fastest run; 0 for one run */
    int64_t peak_bytes;  /* most bytes the library held during a run (largest over runs) */
} sk_sweep_point;

typedef struct sk_amdahl {
    double parallel_fraction; /* p of T(n) = T1 ((1 - p) + p / n), in [0, 1] */
    double one_thread_seconds;/* T1 of the fit */
    double serial_seconds;    /* T1 (1 - p): what no thread count removes */
    double ceiling;           /* 1 / (1 - p): the speedup no thread count passes (inf when p = 1) */
    int points_used;          /* points of the rising part that were fitted */
} sk_amdahl;

typedef struct sk_scaling {
    int npoints;
    sk_sweep_point points[SK_BENCH_MAX_LEVELS]; /* ascending threads */
    int fastest;          /* thread count of the least time */
    int sweet_spot;       /* fewest threads within 5% of the fastest time */
    int economical;       /* fewest threads within 10% of the fastest time */
    sk_amdahl amdahl;
} sk_scaling;

/* Least-squares fit of T(n) = T1 ((1 - p) + p / n) to n points, on
 * relative error, with 0 <= p <= 1. Flat or rising curves give p = 0;
 * one point gives p = 0 and T1 = its time. */
int sk_amdahl_fit(const int *threads, const double *seconds, int n, sk_amdahl *out);

/* Given points[].threads, seconds, seconds_min, seconds_max and runs,
 * fill speedup, efficiency, spread, the fastest, sweet spot and economical
 * counts, and the Amdahl fit on the rising part (the points up to the
 * fastest). SK_ERR_ARG when there are no points. */
int sk_scaling_analyse(sk_scaling *s, sk_error *err);

/* What the points are worth: the share of the Amdahl ceiling the fastest
 * point's speedup reaches (NAN without a fit or a finite ceiling), and the
 * economical point's share of the most threads measured and of the best
 * speed (fastest time / economical time). */
typedef struct sk_scaling_shares {
    double ceiling_share;   /* fastest speedup / ceiling */
    int most_threads;       /* the largest level measured */
    double cores_share;     /* economical / most_threads */
    double speed_share;     /* fastest seconds / economical seconds */
} sk_scaling_shares;
void sk_scaling_shares_get(const sk_scaling *s, sk_scaling_shares *out);

/* The trade in plain words, e.g. "going from 4 to 16 threads costs 4x the
 * cores for 9% more speed". */
void sk_scaling_trade(const sk_scaling *s, char *buf, size_t n);

/* One measured run at `threads` threads: set *seconds (and *peak_bytes
 * when known, else leave it 0). */
typedef int (*sk_sweep_fn)(void *ctx, int threads, double *seconds, int64_t *peak_bytes,
                           sk_error *err);

typedef struct sk_sweep_options {
    int levels[SK_BENCH_MAX_LEVELS]; /* nlevels 0: 1, 2, 4, ... the budget */
    int nlevels;
    int runs;             /* >= 1; 0 means 3 */
    int warmup;           /* 1: one untimed run at the most threads first (warms caches) */
    sk_progress progress; /* done/total counts runs */
} sk_sweep_options;

/* Run fn runs times at each level (levels above the budget are dropped and
 * counted in *dropped when not NULL), then analyse. */
int sk_bench_sweep(const sk_sweep_options *opt, sk_sweep_fn fn, void *ctx, sk_scaling *out,
                   int *dropped, sk_error *err);

/* ---------------------------------------------------------------- sources */

/* The source a report measured: its kind, size on disk by component. */
typedef struct skb_source_usage {
    char path[1024];
    char kind[16];        /* "ramses" or "snapkit" */
    char fs_type[48];
    int64_t files, bytes;
    int ncomponents;
    struct {
        char name[16];    /* "amr", "hydro", "gravity", "particles", "other", or a table */
        int64_t files, bytes;
    } components[8];
} skb_source_usage;

/* What a stage measures is an sk_source (snapkit/source.h): a RAMSES
 * output folder (opening reads only its text files) or a .snapkit file
 * (opening reads its footer). */

/* Resolve a region request (in any unit the source knows), an lmax cap
 * (0: none) and a variable list ("a,b" or NULL) into sel, which the caller
 * has initialised and clears. */
int sk_bench_source_select(const sk_source *s, const sk_region_request *req, int lmax,
                           const char *vars, sk_selection *sel, sk_error *err);

/* Files and bytes on disk, by component. */
int sk_bench_source_usage(const sk_source *s, skb_source_usage *out, sk_error *err);

/* Estimated bytes in memory of reading every component with sel, with
 * the level cap lmax (0: sel->lmax, or none): cell rows from the octs per
 * level in the amr headers (scaled by the region's volume), particles from
 * their files' size. A .snapkit file: its tables' sizes in memory, scaled
 * by the region's volume (lmax is not taken into account). */
int sk_bench_source_estimate(sk_source *s, const sk_selection *sel, int lmax,
                             int64_t *bytes, sk_error *err);

/* Read one component with a selection at `threads` threads (0: the
 * budget); *out is a new table. stats may be NULL. */
int sk_bench_source_read(sk_source *s, const char *component, const sk_selection *sel,
                         int threads, sk_table **out, sk_read_stats *stats, sk_error *err);

/* ----------------------------------------------------- other stage results */

/* Reading each component: time, memory, cold against warm cache. */
typedef struct sk_read_component {
    char name[16];        /* "hydro" (amr + hydro files), "gravity", "particles" */
    int runs;
    double mean_seconds, stddev_seconds; /* warm runs */
    double cold_seconds;  /* first read after dropping the files from the cache; < 0 when not measured */
    int64_t rows;
    int64_t bytes_result; /* bytes of the table returned */
    int64_t bytes_read;   /* bytes of files read */
    int64_t bytes_allocated; /* bytes the library allocated during one read */
    int64_t peak_bytes;   /* most bytes the library held at once during a read */
    int64_t peak_rss;     /* peak resident memory of the process during the reads */
} sk_read_component;

typedef struct sk_read_bench {
    int threads;
    int cache_dropped;    /* 1: every file was dropped from the cache before the cold read */
    char cache_note[256]; /* why the cache could not be dropped, when it could not */
    int rss_reset;        /* 1: peak_rss is per component; 0: the process's peak so far */
    int ncomponents;
    sk_read_component components[SKB_MAX_COMPONENTS];
    sk_first_touch touch; /* the machine's first touch (bench read; bytes 0: not measured) */
} sk_read_bench;

typedef struct sk_read_bench_options {
    int threads;          /* 0: the budget */
    int runs;             /* warm reads per component (>= 1; 0 means 3) */
    int cold;             /* 1: first drop the component's files from the page cache and
                             time a cold read */
    int no_warmup;        /* without cold: 1 skips the untimed warm-up read */
    const char *components[SKB_MAX_COMPONENTS + 1]; /* NULL-terminated subset; all present when [0] is NULL */
    sk_progress progress; /* done/total counts reads */
} sk_read_bench_options;

/* Per component: a cold read when asked (reported as not measured, with
 * the reason, when the files stay cached: e.g. tmpfs) or else an untimed
 * warm-up read (unless no_warmup), then `runs` warm reads: mean and standard deviation of the time, rows, result bytes,
 * bytes the library allocated and held at most, and peak resident memory. */
int sk_bench_read(sk_source *src, const sk_selection *sel,
                  const sk_read_bench_options *opt, sk_read_bench *out, sk_error *err);

/* A thread sweep of full reads (every component of `components`, NULL:
 * all present) with the selection; opt as for sk_bench_sweep, with one
 * warm-up read first. */
int sk_bench_read_sweep(sk_source *src, const sk_selection *sel,
                        const char *const *components, const sk_sweep_options *opt,
                        sk_scaling *out, int *dropped, sk_error *err);

/* Whether converting to the compact file pays. */
typedef struct sk_convert_bench {
    double read_seconds;    /* reading the source */
    double write_seconds;   /* writing the compact file from the tables read */
    double reread_seconds;  /* warm re-read of the compact file */
    double speedup;         /* read_seconds / reread_seconds */
    double break_even_rereads; /* write / (read - reread): later reads after which the write has
                                  paid, the first read paid either way (inf: never) */
    double break_even_conversion; /* (read + write) / (read - reread): the whole one-off
                                     conversion against the read saved (inf: never) */
    double churn_ratio;     /* alloc_read / alloc_reread: bytes allocated reading the source
                               over reading the file (NAN when unknown) */
    int64_t bytes_ramses;   /* size of the source on disk */
    int64_t bytes_file;     /* size of the compact file */
    int64_t alloc_read, alloc_write, alloc_reread; /* bytes each path allocated */
} sk_convert_bench;

/* Fill speedup, both break-evens and the churn ratio from the three times
 * and the allocations: converting costs write_seconds once and saves
 * read - reread on every later read. */
void sk_convert_derive(sk_convert_bench *c);

typedef struct sk_convert_bench_options {
    const char *path;       /* the .snapkit file to write (replaced; the caller removes it) */
    const char *components; /* "hydro,gravity" (NULL: every one present) */
    const sk_selection *selection; /* NULL: everything */
    int threads;            /* 0: the budget */
    int runs;               /* conversions and timed re-reads (>= 1; 0 means 3); medians */
    sk_progress progress;   /* done/total counts conversions and re-reads */
} sk_convert_bench_options;

/* Convert the RAMSES output `dir` with sk_store_convert (which times its
 * read and its write) runs times, after one untimed read of the
 * components (warming the cache and measuring what a read allocates), then
 * re-read the file's tables (one untimed read, then runs timed ones). */
int sk_bench_convert(const char *dir, const sk_convert_bench_options *opt, sk_convert_bench *out,
                     sk_error *err);

/* A least-squares line y = intercept + slope x through n points, and its
 * R^2 (in [0, 1]; 0 when y does not vary). SK_ERR_ARG (slope 0, intercept
 * the mean of y, r2 0) when n < 2 or x does not vary. */
int sk_bench_linear_fit(const double *x, const double *y, int n, double *slope,
                        double *intercept, double *r2);

/* The lmax study: one component read with each level cap from levelmin to
 * levelmax, from the RAMSES output and from its compact file, and what
 * the read time follows: the bytes allocated or the bytes read. */
#define SK_BENCH_MAX_LMAX 32

typedef struct sk_lmax_path {
    int64_t rows;
    int64_t bytes_allocated; /* by the library during one read */
    int64_t bytes_read;      /* of files */
    double seconds;          /* median of the warm runs */
    double seconds_min;      /* fastest warm run */
    double cold_seconds;     /* the first read after dropping its files from the page cache;
                                NAN when not measured */
} sk_lmax_path;

typedef struct sk_lmax_point {
    int lmax;
    sk_lmax_path ramses, file; /* file: zero when there is none */
    double time_ratio;       /* ramses.seconds / file.seconds (NAN without a file) */
    double alloc_ratio;      /* ramses.bytes_allocated / file.bytes_allocated (NAN without) */
} sk_lmax_point;

/* seconds = intercept + slope * bytes over the lmax points of one path. */
typedef struct sk_lmax_fit {
    int ok;                  /* 0: bytes did not vary (or one point): no line */
    double slope;            /* seconds per byte */
    double intercept;        /* seconds */
    double r2;
    double gb_per_second;    /* 1e-9 / slope; NAN when slope <= 0 */
} sk_lmax_fit;

typedef struct sk_lmax_fits {
    sk_lmax_fit allocated, read;
    const char *explains;    /* "allocated" or "read": the higher R^2 ("" when neither fits) */
} sk_lmax_fits;

typedef struct sk_lmax_bench {
    char component[16];
    char file[1024];         /* the compact file measured ("" when none) */
    int file_exact;          /* 1: it holds refined cells, so its lmax reads are RAMSES's */
    int threads, runs;
    int cold;                /* 1: cold reads were asked for */
    int cache_dropped;       /* 1: every cold read found its files dropped from the cache */
    char cache_note[256];    /* why some could not be, when some could not */
    int levelmin, levelmax;  /* the lmax studied: first and last */
    int npoints;
    sk_lmax_point points[SK_BENCH_MAX_LMAX];
    sk_lmax_fits fit_ramses, fit_file; /* fit_file: zero without a file */
} sk_lmax_bench;

typedef struct sk_lmax_bench_options {
    const char *component;   /* a cell component (NULL: "hydro") */
    const char *file;        /* the compact file of the same output (NULL: none) */
    int threads;             /* 0: the budget */
    int runs;                /* warm reads per lmax and path (>= 1; 0 means 3) */
    int cold;                /* 1: drop the path's files from the page cache before its
                                first read at each lmax, and time that read */
    sk_progress progress;    /* done/total counts reads */
} sk_lmax_bench_options;

/* For each lmax from the output's levelmin to levelmax (or to sel->lmax
 * when set; within sel's region): one untimed read, then `runs` timed
 * reads, of the RAMSES output and of the file; then the fits. src must be
 * a RAMSES output. */
int sk_bench_lmax(sk_source *src, const sk_selection *sel,
                  const sk_lmax_bench_options *opt, sk_lmax_bench *out, sk_error *err);

/* Fill the ratios and the fits from the measured points. */
void sk_lmax_derive(sk_lmax_bench *b);

/* Projection scaling: one sweep per case (e.g. "sd, axis z"); seconds are
 * the projection alone (the table already read), peak_bytes what the
 * library held at most during it. */
#define SK_BENCH_MAX_CASES 6
typedef struct sk_project_bench {
    char quantities[256];   /* every quantity projected, comma-separated */
    int64_t rows;           /* cells (or particles) projected */
    int nx, ny;             /* image size */
    int ncases;
    struct {
        char name[64];
        sk_scaling scaling;
    } cases[SK_BENCH_MAX_CASES];
} sk_project_bench;

typedef struct sk_project_bench_options {
    const char *quantities;  /* "sd,T,velocity_x,velocity_y" when NULL; the first alone is
                                the one-quantity case */
    const char *component;   /* the table to project (NULL: "hydro") */
    int64_t res;             /* pixels across the box (0: 2^lmax of the data, at most 2048) */
    int levels[SK_BENCH_MAX_LEVELS]; /* nlevels 0: 1, 2, 4, ... the budget */
    int nlevels;
    int runs;                /* >= 1; 0 means 3 */
    sk_progress progress;    /* done/total counts projections */
} sk_project_bench_options;

/* Read the component once with sel, then sweep the thread levels for one
 * quantity and for all of them in one pass, along z and off-axis (along
 * (1, 2, 3)): four cases. */
int sk_bench_project(sk_source *src, const sk_selection *sel,
                     const sk_project_bench_options *opt, sk_project_bench *out, sk_error *err);

/* Several outputs: one process each with budget/k threads against one
 * after another with the whole budget. */
typedef struct sk_outputs_bench {
    int noutputs;
    int budget;              /* threads in all */
    int threads_per_process;
    double processes_seconds;
    double sequential_seconds;
    double ratio;            /* sequential / processes: > 1 when processes pay */
} sk_outputs_bench;

/* ---------------------------------------------------------------- report */

/* What identifies a run among others: the metadata of report.json and of
 * each row `--csv FILE` appends. */
typedef struct sk_bench_meta {
    char utc[32];         /* "2026-12-01T21:40:00Z", when the run ended */
    char host[256];
    char version[32];     /* sk_version() */
    char build_id[48];    /* the GNU build id of the running program, hex; "unknown" */
    char cpu_model[128];
    int cpus_owned;       /* CPUs the job owns */
    char fs_type[48];     /* of the source; "unknown" */
    char source[1024];
    char selection[512];  /* the selection options as given; "all" */
    int threads;          /* threads the run used at most */
    char cache[16];       /* "warm", or "warm+cold" when cold reads were measured too */
} sk_bench_meta;

/* Fill out now; selection NULL or "" is "all", threads 0 the budget,
 * cache NULL "warm". Never fails (unknown facts say "unknown"). */
void sk_bench_meta_get(const sk_machine *m, const char *source, const char *selection,
                       int threads, const char *cache, sk_bench_meta *out);
void sk_bench_meta_json(const sk_bench_meta *m, sk_json *j);

/* The header of the accumulating CSV: the metadata columns, then cache
 * ("warm" or "cold", per row), then the report's CSV columns. */
extern const char sk_bench_csv_header[];

/* Stages whose types live in their own headers (bench/atoms.h,
 * bench/project_grid.h). */
typedef struct sk_atoms_bench sk_atoms_bench;
typedef struct sk_project_grid sk_project_grid;

/* Every stage that ran (NULL when it did not). */
struct sk_clumps_bench;
struct sk_ranks_bench;

typedef struct sk_report {
    const sk_machine *machine;       /* required */
    const skb_source_usage *source;
    const sk_storage_result *storage;
    const sk_read_bench *read;
    const sk_convert_bench *convert;
    const sk_project_bench *project;
    const sk_scaling *sweep;
    const sk_outputs_bench *outputs;
    const sk_lmax_bench *lmax;
    const sk_project_grid *project_grid; /* the project stage at several resolutions */
    const sk_atoms_bench *atoms;
    const struct sk_clumps_bench *clumps; /* bench/clumps.h */
    const struct sk_ranks_bench *ranks;   /* bench/ranks.h: ranks x threads under mpirun */
    const sk_bench_meta *meta;       /* the run's metadata (NULL: none written) */
    int max_threads;                 /* the --max-threads asked for (0: none) */
} sk_report;

/* Each stage's JSON object (the value of its key in report.json, and what
 * `snapkit bench <stage> --json` prints). */
void sk_machine_json(const sk_machine *m, sk_json *j);
void skb_source_json(const skb_source_usage *s, sk_json *j);
void sk_storage_json(const sk_storage_result *s, sk_json *j);
void sk_scaling_json(const sk_scaling *s, sk_json *j);
void sk_read_bench_json(const sk_read_bench *r, sk_json *j);
void sk_convert_json(const sk_convert_bench *c, sk_json *j);
void sk_project_json(const sk_project_bench *p, sk_json *j);
void sk_outputs_json(const sk_outputs_bench *o, sk_json *j);
void sk_lmax_json(const sk_lmax_bench *b, sk_json *j);
/* A thread budget as a JSON object: report.json's machine.threads, and
 * what `snapkit threads --json` prints. */
void sk_thread_budget_json(const sk_thread_budget *b, sk_json *j);
/* The whole report: {"machine": ..., "source": ..., "<stage>": ...}. */
void sk_report_json(const sk_report *r, sk_json *j);

/* Each stage as pasteable text, and the whole report; the strings are
 * sk_malloc blocks the caller frees with sk_free (NULL when out of memory). */
char *sk_machine_text(const sk_machine *m);
char *skb_source_text(const skb_source_usage *s);
char *sk_storage_text(const sk_storage_result *s);
char *sk_scaling_text(const sk_scaling *s, const char *what);
char *sk_read_bench_text(const sk_read_bench *r);
char *sk_convert_text(const sk_convert_bench *c);
char *sk_project_text(const sk_project_bench *p);
char *sk_outputs_text(const sk_outputs_bench *o);
char *sk_lmax_text(const sk_lmax_bench *b);
char *sk_report_text(const sk_report *r);

/* Long-format CSV (stage,series,threads,quantity,value,unit), one row per
 * number. */
char *sk_report_csv(const sk_report *r);

/* The report's measurement rows (not the machine's facts) with the
 * metadata columns in front, no header (an sk_malloc string; NULL when out
 * of memory). */
char *sk_bench_csv_rows(const sk_bench_meta *meta, const sk_report *r);

/* Append those rows to the CSV file at path in one write, the header
 * first when the file is new or empty. */
int sk_bench_csv_append(const char *path, const sk_bench_meta *meta, const sk_report *r,
                        sk_error *err);

/* The figure: one panel per stage that ran, drawn with cairo. Its
 * layout: the page's size in points (one point is one pixel of the PNG)
 * and each panel's stage ("sweep", "storage", "read", "convert",
 * "project", "lmax", "project_grid", "atoms", "atoms_peers" when a peer
 * ran, and "efficiency" when a sweep has two levels or more) and frame,
 * in drawing order; returns the panel count (at most
 * SK_REPORT_MAX_PANELS). */
#define SK_REPORT_MAX_PANELS 14
typedef struct sk_report_panel {
    char name[16];
    double x, y, w, h;
} sk_report_panel;
int sk_report_layout(const sk_report *r, sk_report_panel *panels, double *width, double *height);

/* The figure's file in `format` ("png", "svg" or "pdf"): *bytes is an
 * sk_malloc block of *size bytes the caller frees with sk_free. */
int sk_report_figure(const sk_report *r, const char *format, char **bytes, size_t *size,
                     sk_error *err);

/* Write report.txt, report.csv, report.json, report.png, report.svg and
 * report.pdf into dir (created when missing), each atomically. */
int sk_report_write(const sk_report *r, const char *dir, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
