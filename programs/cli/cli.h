/* Shared pieces of the snapkit command: option parsing, messages, JSON
 * output, progress lines. Each subcommand lives in its own file and is
 * listed in main.c. */
#ifndef SNAPKIT_CLI_H
#define SNAPKIT_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "snapkit/snapkit.h"

/* A subcommand: argv[0] is the subcommand's name. Returns the exit status. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* Exit statuses. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* "snapkit: <message>" on stderr; returns CLI_FAIL. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "snapkit: <usage message>" plus a hint to --help; returns CLI_USAGE. */
int cli_usage(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the library error's message; returns CLI_FAIL. */
int cli_error(const sk_error *err);

/* Is argv[i] the flag `name` (e.g. "--lmax")? */
int cli_is(const char *arg, const char *name);
/* Is arg --help or -h? Then print help on stdout, as it is: 1. */
int cli_help(const char *arg, const char *help);
/* Value after a flag: argv[*i + 1], advancing *i; NULL (with a message)
 * when missing. */
const char *cli_value(int argc, char **argv, int *i);
/* Parse numbers with a message on failure; 0 on success. */
int cli_int(const char *flag, const char *text, long long *out);
int cli_double(const char *flag, const char *text, double *out);
/* The integer after the flag argv[*i] (advancing *i): 0, or -1 with a
 * message when it is missing or not an integer. */
int cli_int_value(int argc, char **argv, int *i, long long *out);
/* The same, between lo and hi ("FLAG must be between LO and HI, not N"). */
int cli_int_between(int argc, char **argv, int *i, long long lo, long long hi, long long *out);

/* Selection options shared by stats, convert, project, clumps and bench
 * (selection.c): --lmax N, --xrange LO HI, --yrange, --zrange, shapes
 * (--sphere R, --shell, --cylinder, --cylinder-shell, --cylinder-axis,
 * --inverse), --center X Y Z | bc | max:FIELD | com | shrink, --unit U,
 * --vars a,b, --family dm,star. Returns 1 when argv[*i] was one of them
 * (consumed, *i advanced), 0 when it is another argument, -1 on a bad
 * value. */
typedef struct cli_selection {
    sk_region_request region;
    int lmax;
    char vars[4096];
    char families[256];   /* --family as given, "" for every family */
    char center_spec[64]; /* "com", "max:FIELD", "shrink": found from the data */
    int axis_is_L;        /* --cylinder-axis L: found from the data */
    int has_bulk;         /* --bulk-velocity given */
    int bulk_is_com;      /* --bulk-velocity com: found from the data */
    double bulk[3];       /* code velocity units */
    /* How centres are found from the data (resolve.c): --center-component,
     * --shrink-factor, --shrink-min, --search-center (in the region's unit) */
    char center_components[64];
    double shrink_factor;
    long long shrink_min;
    int has_search_center;
    double search_center[3];
    int clip;             /* --clip: reads widen the region to every cell meeting it
                             (sk_clip_widen); the consumer weighs them */
} cli_selection;
void cli_selection_init(cli_selection *s);
int cli_selection_option(cli_selection *s, int argc, char **argv, int *i);
/* The help text for those options. */
extern const char cli_selection_help[];

/* --unit U of the commands that draw maps and cubes (project, slice,
 * cube): a length unit (code, standard, pc, kpc, ...) sets length_unit and
 * returns 0, so that the selection options take it too (their ranges'
 * unit); a quantity's unit (K, g/cm3, VAR=U) is appended to the
 * comma-separated `units` and returns 1; -1 when `units` is full. 0 for
 * any other argument. */
int cli_map_unit_option(int argc, char **argv, int *i, char *length_unit, size_t length_size,
                        char *units, size_t units_size);

/* The picture options of the commands that draw maps (project, slice):
 * --scale log|linear, --range VMIN VMAX into img, --raw into *raw. 1 when
 * argv[*i] is one of them (taken), 0 when not, -1 after an error line. */
int cli_picture_option(int argc, char **argv, int *i, sk_image_options *img, int *raw);

/* A consumer that passes batches to `inner` and keeps a copy of the
 * stream's metadata (the schema's) in `meta` for the figure drawn after
 * the stream: cli_meta_feed_consumer(&feed) once feed.inner is set; the
 * caller takes feed.meta (NULL when the stream never began). */
typedef struct cli_meta_feed {
    sk_consumer inner;
    sk_table *meta;
} cli_meta_feed;
sk_consumer cli_meta_feed_consumer(cli_meta_feed *feed);

/* A command's own options: same returns as cli_selection_option. */
typedef int (*cli_option_fn)(void *ctx, int argc, char **argv, int *i);
/* The argument loop of a command that reads one SOURCE with selection
 * options: --help or -h prints `help` (a printf format taking
 * cli_selection_help) and sets *helped; each other argument goes to `own`,
 * then to cli_selection_option; what is left must be the one SOURCE.
 * CLI_OK, or CLI_USAGE with the reason said on stderr. */
int cli_parse_source_args(const char *command, const char *help, int argc, char **argv,
                          cli_option_fn own, void *ctx, cli_selection *sel, const char **source,
                          int *helped);

/* The options of how centres are found (resolve.c), taken by
 * cli_selection_option; same returns. */
int cli_center_option(cli_selection *s, int argc, char **argv, int *i);

/* What cli_selection_resolve found. */
typedef struct cli_resolved {
    char method[80];          /* the --center it found ("" when none was to be found) */
    sk_center_result center;  /* box units */
    int has_frame;            /* totals taken for --bulk-velocity com or the axis L */
    sk_totals frame;
} cli_resolved;
/* Work out from the source what the selection options leave to the data,
 * before anything is read: --center max:FIELD, min:FIELD, com or shrink
 * (into region.center, in the region's unit), --bulk-velocity com (into
 * bulk) and the axis L (--cylinder-axis L, --face-on: the unit angular
 * momentum into region.axis). Every command that takes a selection calls
 * it once its source is open; under MPI every rank calls it (collective:
 * each reads its share, and all get the same values). res may be NULL. */
int cli_selection_resolve(sk_source *src, cli_selection *cs, int threads, cli_resolved *res,
                          sk_error *err);

/* The line of sight along the unit axis L (face-on: los = L), or across
 * it (edge-on: los = L x e, e the coordinate axis least aligned with L,
 * normalised, and the image's up = L); up = L either way. */
void cli_frame_direction(const double L[3], int edge, double los[3], double up[3]);

/* A component of a source read with a selection (source.c): the table
 * (the caller frees it) and the read's measurements. */
typedef struct cli_source_read {
    sk_table *table;
    sk_read_stats stats;
    int files_total;      /* files of the output, or chunks of the .snapkit table */
    int chunks;           /* a .snapkit file: stats.files_opened counts chunks */
    int ranks;            /* MPI ranks that shared the read (cli_mpi_sum_read); 1 alone */
    int64_t result_bytes; /* the table's bytes, over every rank (cli_mpi_sum_read) */
} cli_source_read;
/* The selection options in the units u (sk_source_units,
 * sk_ramses_units) into sel, which the caller has initialised and clears. */
int cli_selection_in_units(const cli_selection *cs, const sk_units *u, sk_selection *sel,
                           sk_error *err);
/* The same in the units of the source's `component` (source.c). */
int cli_source_selection(const sk_source *src, const char *component, const cli_selection *cs,
                         sk_selection *sel, sk_error *err);
/* Read `component` ("hydro", "gravity", "particles", ...) of a source the
 * caller opened (sk_source_open_mpi) with the selection's region, lmax and
 * variables, showing progress on a terminal. Under MPI, this rank's share
 * only (cli_mpi_share). */
int cli_read_source(sk_source *src, const char *component, const cli_selection *cs, int threads,
                    cli_source_read *res, sk_error *err);
/* The same, handing the rows to consumer in batches (snapkit/stream.h):
 * res->table stays NULL. */
int cli_stream_source(sk_source *src, const char *component, const cli_selection *cs,
                      int threads, const sk_consumer *consumer, cli_source_read *res,
                      sk_error *err);

/* The hydro columns quantities of cells need besides level, cx, cy, cz
 * ("density" and those the quantities list) into csv: 1, or 0 when a
 * quantity's columns are not known here (then read every column). */
int cli_cell_columns(const char *const *names, int nq, char *csv, size_t n);

/* Print the JSON text and a newline on stdout. */
void cli_print_json(const sk_json *j);
/* snapkit series (series.c) runs a command with --json per output and
 * takes its result: while a sink is set (NULL: none), cli_print_json hands
 * the text to it instead of standard output. */
typedef void (*cli_json_sink)(void *ctx, const char *text);
void cli_set_json_sink(cli_json_sink sink, void *ctx);

/* A progress line on stderr, only when stderr is a terminal and the work
 * has taken more than a second. */
typedef struct cli_progress {
    const char *what;
    double start;
    double last;
    int tty;
    int shown;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *what);
/* An sk_progress whose callback updates p. */
sk_progress cli_progress_hook(cli_progress *p);
/* Is a progress line due: on a terminal, after the first second, at most
 * every 0.1 s but always for the last step? When it is, p counts it drawn. */
int cli_progress_due(cli_progress *p, int64_t done, int64_t total);
/* Clear the line when one was shown. */
void cli_progress_done(cli_progress *p);

/* Monotonic seconds. */
double cli_now(void);

/* "12.3 MB" style sizes into buf. */
const char *cli_bytes(double bytes, char *buf, size_t n);

#endif
