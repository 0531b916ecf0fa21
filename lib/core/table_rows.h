/* Reused batch tables (streams): a table's row count changed in place. */
#ifndef SNAPKIT_CORE_TABLE_ROWS_H
#define SNAPKIT_CORE_TABLE_ROWS_H

#include <stdint.h>

#include "snapkit/table.h"

/* Set t's row count to nrows without touching its columns: the caller
 * knows each column holds at least nrows rows (the table was made with at
 * least that many). */
void tb_set_nrows(sk_table *t, int64_t nrows);

#endif
