/* Writing LAMMPS text dumps: every column of the frame, in its order. */
#include <string.h>

#include "formats/atoms/internal.h"
#include "snapkit/memory.h"

/* ITEM: BOX BOUNDS and its three lines. */
static int box_lines(sk_text *h, const sk_table *t, sk_error *err)
{
    lmp_box b;
    sk_error tmp;
    int rc = at_lmp_box_for(t, &b, &tmp);
    if (rc == SK_OK) {
        double lo[3], hi[3];
        if (b.triclinic)
            at_lmp_box_bounds(&b, lo, hi);
        else {
            memcpy(lo, b.lo, sizeof lo);
            memcpy(hi, b.hi, sizeof hi);
        }
        sk_text_printf(h, "ITEM: BOX BOUNDS %s%s %s %s\n", b.triclinic ? "xy xz yz " : "",
                    b.boundary[0], b.boundary[1], b.boundary[2]);
        const double tilt[3] = {b.xy, b.xz, b.yz};
        for (int i = 0; i < 3; i++) {
            at_text_double(h, lo[i]);
            sk_text_puts(h, " ");
            at_text_double(h, hi[i]);
            if (b.triclinic) {
                sk_text_puts(h, " ");
                at_text_double(h, tilt[i]);
            }
            sk_text_puts(h, "\n");
        }
        return SK_OK;
    }
    sk_box box; /* a cell LAMMPS cannot hold as lo/hi/tilt: the general form */
    if (sk_atoms_get_box(t, &box, NULL) != SK_OK) {
        if (err)
            *err = tmp;
        return rc;
    }
    sk_text_printf(h, "ITEM: BOX BOUNDS abc origin %s %s %s\n", box.pbc[0] ? "pp" : "ff",
                box.pbc[1] ? "pp" : "ff", box.pbc[2] ? "pp" : "ff");
    const double *v[3] = {box.a, box.b, box.c};
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 3; k++) {
            at_text_double(h, v[i][k]);
            sk_text_puts(h, " ");
        }
        at_text_double(h, box.origin[i]);
        sk_text_puts(h, "\n");
    }
    return SK_OK;
}

static const char *dump_name(const sk_table *t, const char *name)
{
    const char *u = sk_table_meta_get(t, "atoms.unwrapped");
    if (u && strcmp(u, "1") == 0) {
        if (strcmp(name, "x") == 0)
            return "xu";
        if (strcmp(name, "y") == 0)
            return "yu";
        if (strcmp(name, "z") == 0)
            return "zu";
    }
    return name;
}

int at_dump_write(out_sink *s, const sk_table *t, sk_error *err)
{
    int nc = sk_table_ncols(t);
    if (nc == 0)
        return sk_fail(err, SK_ERR_ARG, NULL, -1, "the frame has no columns to write");
    sk_text h = {0};
    const char *units = sk_table_meta_get(t, "lammps.units");
    const char *time = sk_table_meta_get(t, "time");
    const char *step = sk_table_meta_get(t, "timestep");
    if (!step)
        step = sk_table_meta_get(t, "extxyz.timestep");
    if (units && *units)
        sk_text_printf(&h, "ITEM: UNITS\n%s\n", units);
    if (time && *time)
        sk_text_printf(&h, "ITEM: TIME\n%s\n", time);
    sk_text_printf(&h, "ITEM: TIMESTEP\n%s\nITEM: NUMBER OF ATOMS\n%lld\n", step ? step : "0",
                (long long)sk_table_nrows(t));
    int rc = box_lines(&h, t, err);
    sk_text_puts(&h, "ITEM: ATOMS");
    out_field *fields = sk_calloc((size_t)nc, sizeof *fields);
    if (!fields)
        rc = rc ? rc : sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    for (int i = 0; rc == SK_OK && i < nc; i++) {
        const sk_column *c = sk_table_col(t, i);
        rc = at_out_field_for(c, &fields[i], err);
        sk_text_puts(&h, " ");
        sk_text_puts(&h, dump_name(t, c->name));
    }
    sk_text_puts(&h, "\n");
    if (rc == SK_OK && h.failed)
        rc = sk_fail(err, SK_ERR_NOMEM, NULL, -1, "out of memory");
    if (rc == SK_OK)
        rc = at_sink_write(s, h.buf, h.len, err);
    if (rc == SK_OK)
        rc = at_sink_rows(s, fields, nc, sk_table_nrows(t), err);
    sk_free(fields);
    sk_text_free(&h);
    return rc;
}
