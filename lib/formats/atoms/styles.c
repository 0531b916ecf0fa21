/* LAMMPS atom styles: the columns of their Atoms and Velocities lines as
 * read_data reads and write_data writes them, hybrid styles included
 * ("hybrid charge sphere": id type x y z, then each sub-style's own
 * columns in order, a column two sub-styles share once). */
#include <stdio.h>
#include <string.h>

#include "formats/atoms/internal.h"

static const struct {
    const char *style;
    const char *atoms;  /* space-separated; id int64, mol/type int32, others float64 */
    const char *extra;  /* the sub-style's columns in a hybrid style */
    const char *vel;    /* Velocities after "id vx vy vz" */
    int topology;       /* 0 none, 1 bonds, 2 + angles, 4 + dihedrals, impropers */
} k_styles[] = {
    {"atomic", "id type x y z", "", "", 0},
    {"charge", "id type q x y z", "q", "", 0},
    {"full", "id mol type q x y z", "mol q", "", 4},
    {"molecular", "id mol type x y z", "mol", "", 4},
    {"bond", "id mol type x y z", "mol", "", 1},
    {"angle", "id mol type x y z", "mol", "", 2},
    {"sphere", "id type diameter density x y z", "diameter density", " wx wy wz", 0},
    {"dipole", "id type q x y z mux muy muz", "q mux muy muz", "", 0},
    {"ellipsoid", "id type ellipsoidflag density x y z", "ellipsoidflag density",
     " angmomx angmomy angmomz", 0},
};

#define NSTYLES (sizeof k_styles / sizeof k_styles[0])

static int find(const char *style, size_t n)
{
    for (size_t i = 0; i < NSTYLES; i++)
        if (strlen(k_styles[i].style) == n && strncmp(style, k_styles[i].style, n) == 0)
            return (int)i;
    return -1;
}

static int has_word(const char *list, const char *w, size_t n)
{
    for (const char *p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Append the words of `words` to buf, each once. */
static void append_new(char *buf, size_t cap, const char *words)
{
    for (const char *p = words; *p;) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (n && !has_word(buf, p, n)) {
            size_t len = strlen(buf);
            snprintf(buf + len, cap - len, " %.*s", (int)n, p);
        }
        p += n;
    }
}

int at_lmp_style(const char *style, lmp_style *out)
{
    memset(out, 0, sizeof *out);
    if (!style)
        return 0;
    size_t n = strcspn(style, " ");
    int k = find(style, n);
    if (k >= 0 && style[n] == '\0') {
        snprintf(out->atoms, sizeof out->atoms, "%s", k_styles[k].atoms);
        snprintf(out->vel, sizeof out->vel, "id vx vy vz%s", k_styles[k].vel);
        out->topology = k_styles[k].topology;
        return 1;
    }
    if (n != 6 || strncmp(style, "hybrid", 6) != 0)
        return 0;
    snprintf(out->atoms, sizeof out->atoms, "id type x y z");
    snprintf(out->vel, sizeof out->vel, "id vx vy vz");
    int subs = 0;
    for (const char *p = style + n; *p;) {
        while (*p == ' ')
            p++;
        size_t m = strcspn(p, " ");
        if (m == 0)
            break;
        int s = find(p, m);
        if (s < 0)
            return 0;
        append_new(out->atoms, sizeof out->atoms, k_styles[s].extra);
        append_new(out->vel, sizeof out->vel, k_styles[s].vel);
        out->topology = k_styles[s].topology > out->topology ? k_styles[s].topology : out->topology;
        subs++;
        p += m;
    }
    out->hybrid = 1;
    return subs > 0;
}

const char *at_lmp_style_known(void)
{
    return "atomic, charge, full, molecular, bond, angle, sphere, dipole, ellipsoid, "
           "'hybrid STYLE...'";
}
