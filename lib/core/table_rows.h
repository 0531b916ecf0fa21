/* Batch tables reused by stream stages: made like a template, filled
 * column by column, their row count changed in place. */
#ifndef SNAPKIT_CORE_TABLE_ROWS_H
#define SNAPKIT_CORE_TABLE_ROWS_H

#include <stdint.h>

#include "snapkit/table.h"

/* Set t's row count to nrows without touching its columns: the caller
 * knows each column holds at least nrows rows (the table was made with at
 * least that many). */
void tb_set_nrows(sk_table *t, int64_t nrows);

/* A table of nrows rows (contents undefined) with templ's columns; NULL
 * and err set when out of memory. */
sk_table *tb_like(const sk_table *templ, int64_t nrows, sk_error *err);

/* n rows of src into dst, a column of out of the same type (category
 * labels too); with `keep`, only the rows whose keep[i] > 0, packed.
 * SK_ERR_ARG when the types differ (a column changed type within a
 * stream). */
int tb_copy_column(sk_table *out, sk_column *dst, const sk_column *src, int64_t n,
                   const double *keep, sk_error *err);

#endif
