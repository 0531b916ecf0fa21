/* snapkit/run.h - the outputs of a RAMSES run.
 *
 * A run is a folder holding output_NNNNN folders. Listing it reads each
 * output's info file and looks at its files, no more: what an output is
 * (number, time, redshift, CPUs, levels, bytes on disk) and whether it is
 * complete: every CPU's file of each component it has is there, non-empty,
 * and ends in a whole Fortran record (its last record's two markers agree),
 * and the output opens (sk_ramses_open). Nothing is read from the files'
 * data, so a run of hundreds of outputs lists in a moment.
 */
#ifndef SNAPKIT_RUN_H
#define SNAPKIT_RUN_H

#include "snapkit/export.h"

#include <stdint.h>

#include "snapkit/error.h"

typedef struct sk_json sk_json;

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sk_run_state {
    SK_RUN_COMPLETE = 0,  /* every expected file there and whole; the output opens */
    SK_RUN_MISSING = 1,   /* some CPU's file of a component is absent */
    SK_RUN_TRUNCATED = 2, /* a file is empty or shorter than its last record says */
    SK_RUN_UNREADABLE = 3 /* no parsable info file, or the output does not open */
} sk_run_state;

typedef struct sk_run_output {
    char *path;           /* the output folder */
    int output;           /* NNNNN */
    sk_run_state state;
    char problem[512];    /* what makes it incomplete ("" when complete): the first
                             missing or truncated file and how many more, or the error */
    int nmissing, ntruncated;
    int ncpu, levelmin, levelmax; /* 0 when the info file did not parse; levels as
                                     the reader counts them (ramses.h level_shift) when
                                     the output opens, else as its info file says */
    int cosmological;
    double time;          /* code units (conformal for cosmological runs) */
    double time_myr;      /* physical time in Myr: time x unit_t, or for cosmological
                             runs the age of the universe at aexp; NaN when the units
                             are code units (unit_t = 1) */
    double aexp, redshift;/* redshift NaN when not cosmological */
    int64_t files, bytes; /* every file of the folder */
} sk_run_output;

/* Is `dir` a folder holding at least one output_NNNNN folder? Never fails. */
SK_API int sk_run_is_run(const char *dir);

/* The outputs of the run in `dir`, by increasing number, into a new array
 * *outputs of *n entries (free with sk_run_free). An output that is
 * incomplete or unreadable is listed with its state, not an error.
 * SK_ERR_IO when dir cannot be read, SK_ERR_FORMAT naming dir when it
 * holds no output_NNNNN folder. */
SK_API int sk_run_list(const char *dir, sk_run_output **outputs, int *n, sk_error *err);
SK_API void sk_run_free(sk_run_output *outputs, int n);

/* "complete", "missing", "truncated", "unreadable". */
SK_API const char *sk_run_state_name(sk_run_state state);

/* The list as JSON (what `snapkit info RUN --json` prints): {path, outputs:
 * [{output, path, state, problem, missing, truncated, ncpu, levelmin,
 * levelmax, cosmological, time, time_Myr, aexp, redshift, files, bytes}],
 * complete, incomplete}; unknown numbers are null. */
SK_API void sk_run_json(const char *dir, const sk_run_output *outputs, int n, sk_json *j);

/* sk_run_list then sk_run_json into j: one call for bindings. */
SK_API int sk_run_list_json(const char *dir, sk_json *j, sk_error *err);

#ifdef __cplusplus
}
#endif
#endif
