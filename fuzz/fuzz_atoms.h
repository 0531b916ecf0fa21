/* The body shared by the atom-file fuzz targets: open the bytes, count the
 * frames, read the last one and a few by iteration, and check that what
 * comes back is consistent (category codes, headers against frames). */
#ifndef SNAPKIT_FUZZ_ATOMS_H
#define SNAPKIT_FUZZ_ATOMS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/snapkit.h"

static void check_table(const sk_table *t)
{
    for (int i = 0; i < sk_table_ncols(t); i++) {
        const sk_column *c = sk_table_col(t, i);
        if (c->type != SK_CATEGORY)
            continue;
        for (int64_t r = 0; r < sk_table_nrows(t); r++) {
            int32_t code = ((const int32_t *)c->data)[r];
            if (code < 0 || code >= c->nlabels)
                abort(); /* every category code has its label */
        }
    }
    sk_box box;
    sk_atoms_get_box(t, &box, NULL);
}

static int fuzz_atoms(const uint8_t *data, size_t size, sk_atoms_format format, const char *name)
{
    sk_atoms_file *f;
    sk_error e;
    sk_atoms_options o = {.threads = 2};
    if (sk_atoms_open_memory(&f, data, size, name, format, &o, &e) != SK_OK)
        return 0;
    int64_t n = 0;
    sk_table *t = NULL;
    if (sk_atoms_count_frames(f, &n, &e) == SK_OK && n > 0 &&
        sk_atoms_read_frame(f, -1, &t, &e) == SK_OK) {
        check_table(t);
        sk_table_free(t);
    }
    sk_atoms_close(f);
    if (sk_atoms_open_memory(&f, data, size, name, format, &o, &e) != SK_OK)
        return 0;
    for (int k = 0; k < 4 && sk_atoms_next(f, &t, &e) == SK_OK && t; k++) {
        check_table(t);
        int64_t natoms;
        sk_table *h = NULL;
        if (sk_atoms_frame_header(f, k, &h, &natoms, &e) == SK_OK &&
            natoms != sk_table_nrows(t))
            abort(); /* the header and the frame agree */
        sk_table_free(h);
        sk_table_free(t);
    }
    sk_atoms_close(f);
    return 0;
}

#endif
