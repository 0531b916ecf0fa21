/* The layout of a LAMMPS data file: title, header counts and box, then
 * each section's keyword, style hint and lines, found by the header counts
 * (no number in the sections is parsed here). */
#include <stdio.h>
#include <math.h>
#include <string.h>

#include "formats/atoms/data_internal.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

static const struct {
    const char *words;
    int count;
} k_counts[] = {
    {"atoms", C_ATOMS},           {"atom types", C_ATOM_TYPES},
    {"bonds", C_BONDS},           {"bond types", C_BOND_TYPES},
    {"angles", C_ANGLES},         {"angle types", C_ANGLE_TYPES},
    {"dihedrals", C_DIHEDRALS},   {"dihedral types", C_DIHEDRAL_TYPES},
    {"impropers", C_IMPROPERS},   {"improper types", C_IMPROPER_TYPES},
    {"crossterms", C_CROSSTERMS}, {"ellipsoids", C_ELLIPSOIDS},
    {"lines", C_LINES},           {"triangles", C_TRIANGLES},
    {"extra bond per atom", -1},  {"extra angle per atom", -1},
    {"extra dihedral per atom", -1}, {"extra improper per atom", -1},
    {"extra special per atom", -1},
};

static const struct {
    const char *name;
    int count;
} k_sections[] = {
    {"Atoms", C_ATOMS},
    {"Velocities", C_ATOMS},
    {"Masses", C_ATOM_TYPES},
    {"Bonds", C_BONDS},
    {"Angles", C_ANGLES},
    {"Dihedrals", C_DIHEDRALS},
    {"Impropers", C_IMPROPERS},
    {"Pair Coeffs", C_ATOM_TYPES},
    {"PairIJ Coeffs", C_PAIRIJ},
    {"Bond Coeffs", C_BOND_TYPES},
    {"Angle Coeffs", C_ANGLE_TYPES},
    {"Dihedral Coeffs", C_DIHEDRAL_TYPES},
    {"Improper Coeffs", C_IMPROPER_TYPES},
    {"BondBond Coeffs", C_ANGLE_TYPES},
    {"BondAngle Coeffs", C_ANGLE_TYPES},
    {"MiddleBondTorsion Coeffs", C_DIHEDRAL_TYPES},
    {"EndBondTorsion Coeffs", C_DIHEDRAL_TYPES},
    {"AngleTorsion Coeffs", C_DIHEDRAL_TYPES},
    {"AngleAngleTorsion Coeffs", C_DIHEDRAL_TYPES},
    {"BondBond13 Coeffs", C_DIHEDRAL_TYPES},
    {"AngleAngle Coeffs", C_IMPROPER_TYPES},
    {"Ellipsoids", C_ELLIPSOIDS},
    {"Lines", C_LINES},
    {"Triangles", C_TRIANGLES},
    {"CMAP", C_CROSSTERMS},
    {"Atom Type Labels", C_ATOM_TYPES},
    {"Bond Type Labels", C_BOND_TYPES},
    {"Angle Type Labels", C_ANGLE_TYPES},
    {"Dihedral Type Labels", C_DIHEDRAL_TYPES},
    {"Improper Type Labels", C_IMPROPER_TYPES},
};

const char *at_data_section_name(int kind)
{
    return k_sections[kind].name;
}

/* Collapse runs of blanks to one space into buf. */
static void normalise(const char *b, const char *e, char *buf, size_t n)
{
    size_t k = 0;
    at_trim(&b, &e);
    for (const char *p = b; p < e && k + 1 < n; p++) {
        if (is_blank(*p)) {
            if (k && buf[k - 1] != ' ')
                buf[k++] = ' ';
        } else {
            buf[k++] = *p;
        }
    }
    buf[k] = '\0';
}

static int header_line(data_file *d, const char *b, const char *e, int64_t line, sk_error *err)
{
    const char *path = d->f->src.path;
    double v[3];
    int nv = 0;
    const char *p = skip_blank(b, e), *lb = b;
    while (nv < 3) {
        const char *stop;
        if (!number_parse_double(p, e, &v[nv], &stop) || (stop < e && !is_blank(*stop)))
            break;
        nv++;
        p = skip_blank(stop, e);
    }
    char words[64];
    normalise(p, e, words, sizeof words);
    if (nv == 2 && (strcmp(words, "xlo xhi") == 0 || strcmp(words, "ylo yhi") == 0 ||
                    strcmp(words, "zlo zhi") == 0)) {
        int axis = words[0] - 'x';
        if (!isfinite(v[0]) || !isfinite(v[1]))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(skip_blank(b, e) - lb) + 1,
                                "%clo and %chi must be finite numbers", words[0], words[0]);
        if (!(v[0] <= v[1]))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(skip_blank(b, e) - lb) + 1,
                                "%clo %g is above %chi %g", words[0], v[0], words[0], v[1]);
        d->box.lo[axis] = v[0];
        d->box.hi[axis] = v[1];
        return SK_OK;
    }
    if (nv == 3 && strcmp(words, "xy xz yz") == 0) {
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(skip_blank(b, e) - lb) + 1,
                                "xy, xz and yz must be finite numbers");
        d->box.triclinic = 1;
        d->box.xy = v[0];
        d->box.xz = v[1];
        d->box.yz = v[2];
        return SK_OK;
    }
    for (size_t i = 0; nv == 1 && i < sizeof k_counts / sizeof k_counts[0]; i++) {
        if (strcmp(words, k_counts[i].words) != 0)
            continue;
        if (!(v[0] >= 0 && v[0] < 9.0e18) || (double)(int64_t)v[0] != v[0])
            return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(skip_blank(b, e) - lb) + 1,
                                "'%s' needs a count", words);
        if (k_counts[i].count >= 0)
            d->counts[k_counts[i].count] = (int64_t)v[0];
        return SK_OK;
    }
    return sk_fail_text(err, SK_ERR_FORMAT, path, line, (int64_t)(p - lb) + 1,
                        "unknown header line '%.*s'", (int)(e - b > 60 ? 60 : e - b), b);
}

static int is_number_start(const char *b, const char *e)
{
    double v;
    const char *stop;
    b = skip_blank(b, e);
    return number_parse_double(b, e, &v, &stop);
}

/* Skip blank lines without consuming the first non-blank one. */
static void skip_blank_lines(cursor *c)
{
    for (;;) {
        cursor save = *c;
        const char *b, *e;
        if (!at_cursor_next(c, &b, &e))
            return;
        if (!at_only_space(b, e)) {
            *c = save;
            return;
        }
    }
}

/* A wrong header count shows as a blank line inside the section (too
 * large) or a data line right after it (too small). */
static int check_count(data_file *d, cursor *c, const section *s, const char *name, int64_t n,
                       sk_error *err)
{
    const char *path = d->f->src.path;
    /* The first line inside the count that is no data line (blank, or the
     * next section's name) is where the section really ended. */
    const char *p = s->body;
    for (int64_t k = 0; n > 0 && k < n && p < s->end; k++) {
        const char *nl = memchr(p, '\n', (size_t)(s->end - p));
        const char *le = nl ? nl : s->end;
        const char *q = skip_blank(p, le);
        if (q == le || !strchr("0123456789+-.", *q)) /* blank, or a section's name */
            return sk_fail_text(err, SK_ERR_FORMAT, path, s->body_line + k, 1,
                                "section %s ends after %lld lines, but the header count is "
                                "%lld", name, (long long)k, (long long)n);
        p = nl ? nl + 1 : s->end;
    }
    cursor peek = *c;
    const char *b, *e;
    int64_t line;
    if (at_cursor_next_nonblank(&peek, &b, &e, '#', &line) && is_number_start(b, e))
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1,
                            "section %s has more lines than the header count %lld", name,
                            (long long)n);
    return SK_OK;
}

static int register_section(data_file *d, const char *name, int64_t line,
                            sk_error *err)
{
    const char *path = d->f->src.path;
    int *slot = strcmp(name, "Atoms") == 0        ? &d->atoms
                : strcmp(name, "Velocities") == 0 ? &d->velocities
                : strcmp(name, "Masses") == 0     ? &d->masses
                                                  : NULL;
    if (slot && *slot >= 0)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1, "section %s appears twice", name);
    if (slot)
        *slot = d->nsec;
    if (slot == &d->velocities && d->atoms < 0)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1,
                            "section Velocities comes before Atoms");
    d->nsec++;
    return SK_OK;
}

static int section_at(data_file *d, cursor *c, const char *b, const char *e, int64_t line,
                      sk_error *err)
{
    const char *path = d->f->src.path;
    const char *hash = memchr(b, '#', (size_t)(e - b));
    char name[64];
    normalise(b, hash ? hash : e, name, sizeof name);
    int kind = -1;
    for (size_t i = 0; i < sizeof k_sections / sizeof k_sections[0]; i++)
        if (strcmp(name, k_sections[i].name) == 0)
            kind = (int)i;
    if (kind < 0)
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1, "unknown section '%s'", name);
    if (d->nsec == (int)(sizeof d->sec / sizeof d->sec[0]))
        return sk_fail_text(err, SK_ERR_FORMAT, path, line, 1, "too many sections");
    section *s = &d->sec[d->nsec];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->keyword_line = line;
    s->key = b;
    s->key_end = e;
    at_trim(&s->key, &s->key_end);
    if (hash) {
        normalise(hash + 1, e, s->hint, sizeof s->hint);
        s->hint_column = (int64_t)(skip_blank(hash + 1, e) - b) + 1;
    }
    char *space = strchr(s->hint, ' ');
    if (space)
        *space = '\0';
    int64_t nt = d->counts[C_ATOM_TYPES];
    int64_t n = k_sections[kind].count != C_PAIRIJ ? d->counts[k_sections[kind].count]
                : nt < 3000000000 ? nt * (nt + 1) / 2 /* PairIJ: every pair of types */
                                  : INT64_MAX;
    skip_blank_lines(c);
    int rc = register_section(d, name, line, err);
    if (rc != SK_OK)
        return rc;
    s->body = c->p;
    s->body_line = c->line;
    int64_t done;
    s->end = at_skip_lines(c->p, c->end, n, &done);
    if (done < n)
        return sk_fail_text(err, SK_ERR_FORMAT, path, s->body_line + done, 1,
                            "the file ends inside section %s after %lld of %lld lines", name,
                            (long long)done, (long long)n);
    c->p = s->end;
    c->line = s->body_line + n;
    return check_count(d, c, s, name, n, err);
}

int at_data_scan(data_file *d, sk_error *err)
{
    sk_atoms_file *f = d->f;
    cursor c = {f->src.data, f->src.data + f->src.size, 1};
    const char *b, *e;
    d->atoms = d->velocities = d->masses = -1;
    for (int i = 0; i < 3; i++) {
        d->box.lo[i] = -0.5; /* LAMMPS' default box */
        d->box.hi[i] = 0.5;
        memcpy(d->box.boundary[i], "pp", 3);
    }
    if (!at_cursor_next(&c, &b, &e))
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, 1, 1, "empty data file");
    at_trim(&b, &e);
    snprintf(d->title, sizeof d->title, "%.*s", (int)(e - b), b);
    int in_header = 1;
    int64_t line;
    while (at_cursor_next_nonblank(&c, &b, &e, 0, &line)) {
        const char *hash = memchr(b, '#', (size_t)(e - b));
        const char *he = hash ? hash : e;
        if (at_only_space(b, he))
            continue; /* a comment line */
        if (in_header && is_number_start(b, he)) {
            int rc = header_line(d, b, he, line, err);
            if (rc != SK_OK)
                return rc;
            continue;
        }
        in_header = 0;
        int rc = section_at(d, &c, b, e, line, err);
        if (rc != SK_OK)
            return rc;
    }
    if (d->atoms < 0 && d->counts[C_ATOMS] > 0)
        return sk_fail_text(err, SK_ERR_FORMAT, f->src.path, c.line, 1,
                            "missing section Atoms (the header says %lld atoms)",
                            (long long)d->counts[C_ATOMS]);
    return SK_OK;
}

