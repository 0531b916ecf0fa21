/* snapkit series (series.c, series_table.c): the outputs of a run and the
 * one table of a command's results over them. */
#ifndef SNAPKIT_CLI_SERIES_H
#define SNAPKIT_CLI_SERIES_H

#include "cli.h"
#include "snapkit/util/json.h"

/* One source of the series, as its metadata tells. */
typedef struct series_output {
    const char *path;
    long long number; /* the RAMSES output number (-1 when unknown) */
    double time;      /* code units as RAMSES stores it (tau for cosmological runs) */
    double time_myr;  /* physical: the age of a cosmological run, else time x unit_t;
                         NaN when the output has no physical units */
    double aexp, redshift; /* NaN unless cosmological */
} series_output;

/* Open the source and take what series_output holds. */
int series_output_describe(const char *path, series_output *out, sk_error *err);

/* The table: one row per output (per output and bin for a profile), the
 * result columns in the order they first appear. */
typedef struct series_row {
    int output;  /* index into the outputs */
    int nv;
    double *v;   /* the result columns (NaN: none) */
    char *files; /* the files the command wrote, space-separated, or NULL */
} series_row;

typedef struct series_table {
    const series_output *outputs;
    int cosmological; /* a source is: aexp and redshift columns */
    int ncols, nrows, caprows;
    char **cols;
    series_row *rows;
} series_table;

/* Add a command's JSON result for outputs[output]: stats -> one row of
 * the result (rows, and totals or weighted statistics when asked for, else
 * the per-column statistics; not the run's measurements); profile -> one
 * row per bin (bin_lo, bin_hi, the per-bin arrays, QUANTITY.mean, ...);
 * other commands -> one row naming the files written (`files`, or the
 * JSON's "files" member). 0, or -1 when memory ran out. */
int series_table_add(series_table *t, const char *command, int output,
                     const sk_json_value *result, const char *files);
/* The table as text (aligned columns), CSV or JSON into path ("-":
 * standard output), written atomically. */
int series_table_write(const series_table *t, const char *path, const char *format,
                       sk_error *err);
void series_table_free(series_table *t);

#endif
