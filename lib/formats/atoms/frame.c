/* What the dump and XYZ readers share about a frame: where its atom lines
 * end, the line after them, the columns its header names. */
#include "formats/atoms/internal.h"
#include "snapkit/memory.h"

int at_frame_span(const sk_atoms_file *f, const char *body, int64_t body_line, int64_t natoms,
                  const char *count_note, frame_span *span, sk_error *err)
{
    int64_t done;
    span->end = at_skip_lines(body, f->src.data + f->src.size, natoms, &done);
    if (done < natoms)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, body_line + done, 1,
                            "the file ends after %lld of the %lld atom lines%s", (long long)done,
                            (long long)natoms, count_note);
    span->next_line = body_line + natoms;
    span->natoms = natoms;
    span->timestep = AT_NO_TIMESTEP;
    return SK_OK;
}

int at_line_after(const sk_atoms_file *f, const frame_span *span, const char **b, const char **e,
                  int64_t *line)
{
    cursor c = {span->end, f->src.data + f->src.size, span->next_line};
    return at_cursor_next_nonblank(&c, b, e, 0, line);
}

void at_columns_free(at_columns *c)
{
    for (int i = 0; i < c->n; i++)
        sk_free(c->names[i]);
    c->n = 0;
}
