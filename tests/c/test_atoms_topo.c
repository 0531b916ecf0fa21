/* Molecular topology of LAMMPS data files: the Bonds ... Impropers rows and
 * Coeffs sections of the files LAMMPS' write_data made with
 * tests/data/atoms/make_topo.in (values below are that script's), written
 * back byte for byte; and one-line errors naming file, line and column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static const char k_mol[] = "LAMMPS data file\n"   /* 1 */
                            "\n"                   /* 2 */
                            "3 atoms\n"            /* 3 */
                            "1 atom types\n"       /* 4 */
                            "2 bonds\n"            /* 5 */
                            "1 bond types\n"       /* 6 */
                            "\n"                   /* 7 */
                            "0 10 xlo xhi\n"       /* 8 */
                            "0 10 ylo yhi\n"       /* 9 */
                            "0 10 zlo zhi\n"       /* 10 */
                            "\n"                   /* 11 */
                            "Atoms # bond\n"       /* 12 */
                            "\n"                   /* 13 */
                            "1 1 1 0.5 0.5 0.5\n"  /* 14 */
                            "2 1 1 1.5 1.5 1.5\n"  /* 15 */
                            "3 1 1 2.5 2.5 2.5\n"  /* 16 */
                            "\n"                   /* 17 */
                            "Bonds\n"              /* 18 */
                            "\n"                   /* 19 */
                            "1 1 1 2\n"            /* 20 */
                            "2 1 2 3\n";           /* 21 */

static sk_table *read_text(const char *text, const char *name, sk_error *e, int *rc)
{
    sk_atoms_file *f = NULL;
    sk_table *t = NULL;
    *rc = sk_atoms_open_memory(&f, text, strlen(text), name, SK_ATOMS_DATA, NULL, e);
    if (*rc == SK_OK) {
        *rc = sk_atoms_read_frame(f, 0, &t, e);
        sk_atoms_close(f);
    }
    return t;
}

/* The values make_topo.in gave LAMMPS. */
static void check_full(void)
{
    char path[1024];
    sk_error e;
    sk_table *t = NULL;
    int rc = sk_atoms_read(test_data(path, sizeof path, "atoms/topo_full.data"), SK_ATOMS_AUTO,
                           0, NULL, &t, &e);
    CHECK_OK(rc, &e);
    if (!t)
        return;
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.bonds"),
                 "1 1 1 2\n2 2 1 3\n3 1 4 5\n4 2 4 6\n5 1 7 8\n6 2 7 9\n");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.angles"), "1 1 2 1 3\n2 1 5 4 6\n3 1 8 7 9\n");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.dihedrals"), "1 1 2 1 4 5\n");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.impropers"), "1 1 1 2 3 4\n");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.bond_types"), "2");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.angle_types"), "1");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.coeffs.pair"),
                 "Pair Coeffs # lj/cut\n\n1 0.1553 3.166\n2 0 0");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.coeffs.bond"),
                 "Bond Coeffs # harmonic\n\n1 450 0.9572\n2 450.5 0.9572");
    CHECK_EQ_STR(sk_table_meta_get(t, "lammps.coeffs.dihedral"),
                 "Dihedral Coeffs # harmonic\n\n1 1.25 -1 2");
    CHECK(sk_table_meta_get(t, "lammps.skipped") == NULL);
    CHECK(sk_atoms_has_topology(t));

    /* a selection that drops atom 9 leaves bonds 6 and angle 3 dangling */
    uint8_t keep[9] = {1, 1, 1, 1, 1, 1, 1, 1, 0};
    sk_table_filter(t, keep);
    char out[64];
    snprintf(out, sizeof out, "/tmp/sk_topo_%d.data", (int)getpid());
    rc = sk_atoms_write(out, t, SK_ATOMS_DATA, NULL, &e);
    CHECK_EQ_INT(rc, SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "bond 6 names atom 9, which the frame does not have");
    CHECK(access(out, F_OK) != 0);
    sk_table_free(t);
}

/* Read, write, compare with the LAMMPS file byte for byte. */
static void round_trip(const char *style)
{
    char rel[64], path[1024], out[64];
    snprintf(rel, sizeof rel, "atoms/topo_%s.data", style);
    snprintf(out, sizeof out, "/tmp/sk_topo_%d_%s.data", (int)getpid(), style);
    sk_error e;
    sk_table *t = NULL;
    int rc = sk_atoms_read(test_data(path, sizeof path, rel), SK_ATOMS_AUTO, 0, NULL, &t, &e);
    CHECK_OK(rc, &e);
    if (rc == SK_OK)
        rc = sk_atoms_write(out, t, SK_ATOMS_DATA, NULL, &e);
    CHECK_OK(rc, &e);
    CHECK_MSG(test_same_text(path, out), "%s: rewrite differs", style);
    unlink(out);
    sk_table_free(t);
}

static void expect(const char *from, const char *to, int64_t line, int64_t column,
                   const char *says)
{
    const char *at = strstr(k_mol, from);
    CHECK_MSG(at != NULL, "test bug: %s", from);
    if (!at)
        return;
    char text[1024];
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - k_mol), k_mol, to, at + strlen(from));
    sk_error e;
    int rc;
    sk_table *t = read_text(text, "mol.data", &e, &rc);
    sk_table_free(t);
    CHECK_MSG(rc == SK_ERR_FORMAT, "%s: status %d", says, rc);
    char where[96];
    snprintf(where, sizeof where, "mol.data: line %lld, column %lld: ", (long long)line,
             (long long)column);
    CHECK_MSG(strncmp(e.message, where, strlen(where)) == 0, "'%s' does not start with '%s'",
              e.message, where);
    CHECK_CONTAINS(e.message, says);
}

static void errors(void)
{
    sk_error e;
    int rc;
    sk_table *t = read_text(k_mol, "mol.data", &e, &rc);
    CHECK_OK(rc, &e);
    CHECK_EQ_STR(t ? sk_table_meta_get(t, "lammps.bonds") : "", "1 1 1 2\n2 1 2 3\n");
    sk_table_free(t);
    expect("2 1 2 3\n", "2 1 2 9\n", 21, 7, "Bonds: atom 9 does not exist");
    expect("2 1 2 3\n", "2 2 2 3\n", 21, 3, "bond type 2 is not between 1 and the header's 1");
    expect("2 1 2 3\n", "2 1 2 3 4\n", 21, 9, "more fields than the 4 of 'id type atom1 atom2'");
    expect("2 1 2 3\n", "2 1 2\n", 21, 6, "3 fields where 'id type atom1 atom2' needs 4");
    expect("2 1 2 3\n", "2 1 2 x\n", 21, 7, "expected a positive whole number, not 'x'");
    expect("2 1 2 3\n", "2 1 2 1.5\n", 21, 7, "not '1.5'");
    expect("2 bonds", "3 bonds", 22, 1, "the file ends inside section Bonds after 2 of 3");
    expect("2 bonds", "1 bonds", 21, 1, "section Bonds has more lines than the header count 1");
}

/* An atom style without topology cannot be written with it. */
static void style_refuses(void)
{
    sk_error e;
    int rc;
    sk_table *t = read_text(k_mol, "mol.data", &e, &rc);
    if (!t)
        return;
    sk_table_meta_set(t, "lammps.atom_style", "atomic");
    sk_table_remove(t, "mol");
    char out[64];
    snprintf(out, sizeof out, "/tmp/sk_topo_%d_atomic.data", (int)getpid());
    rc = sk_atoms_write(out, t, SK_ATOMS_DATA, NULL, &e);
    CHECK_EQ_INT(rc, SK_ERR_ARG);
    CHECK_CONTAINS(e.message, "the frame has Bonds but atom style atomic cannot hold them");
    CHECK(access(out, F_OK) != 0);
    sk_table_free(t);
}

int main(void)
{
    check_full();
    const char *styles[] = {"full", "molecular", "angle", "bond"};
    for (int i = 0; i < 4; i++)
        round_trip(styles[i]);
    errors();
    style_refuses();
    return test_done();
}
