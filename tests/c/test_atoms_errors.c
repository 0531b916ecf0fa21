/* Bad atom files: every error is one message naming the file, the line and
 * the column (as "name: line L, column C: ..."), with SK_ERR_FORMAT. */
#include <unistd.h>

#include "check.h"
#include "snapkit/snapkit.h"

static const char k_dump[] = "ITEM: TIMESTEP\n"            /* 1 */
                             "0\n"                         /* 2 */
                             "ITEM: NUMBER OF ATOMS\n"     /* 3 */
                             "3\n"                         /* 4 */
                             "ITEM: BOX BOUNDS pp pp pp\n" /* 5 */
                             "0 10\n"                      /* 6 */
                             "0 10\n"                      /* 7 */
                             "0 10\n"                      /* 8 */
                             "ITEM: ATOMS id type x y z\n" /* 9 */
                             "1 1 0.5 0.5 0.5\n"           /* 10 */
                             "2 1 1.5 1.5 1.5\n"           /* 11 */
                             "3 1 2.5 2.5 2.5\n";          /* 12 */

static const char k_data[] = "LAMMPS data file\n" /* 1 */
                             "\n"                 /* 2 */
                             "2 atoms\n"          /* 3 */
                             "1 atom types\n"     /* 4 */
                             "\n"                 /* 5 */
                             "0 10 xlo xhi\n"     /* 6 */
                             "0 10 ylo yhi\n"     /* 7 */
                             "0 10 zlo zhi\n"     /* 8 */
                             "\n"                 /* 9 */
                             "Masses\n"           /* 10 */
                             "\n"                 /* 11 */
                             "1 63.546\n"         /* 12 */
                             "\n"                 /* 13 */
                             "Atoms # atomic\n"   /* 14 */
                             "\n"                 /* 15 */
                             "1 1 0.5 0.5 0.5\n"  /* 16 */
                             "2 1 1.5 1.5 1.5\n"  /* 17 */
                             "\n"                 /* 18 */
                             "Velocities\n"       /* 19 */
                             "\n"                 /* 20 */
                             "1 0 0 0\n"          /* 21 */
                             "2 0 0 0\n";         /* 22 */

static const char k_xyz[] = "2\n"
                            "Lattice=\"10 0 0 0 10 0 0 0 10\" Properties=species:S:1:pos:R:3 "
                            "pbc=\"T T T\"\n"
                            "Cu 0.5 0.5 0.5\n"
                            "Cu 1.5 1.5 1.5\n";

/* The text with the first `from` replaced by `to`. */
static char *edit(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "test bug: '%s' not in the text\n", from);
        exit(2);
    }
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    size_t head = (size_t)(at - text);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

/* Read frame 0 of text named `name`; the error must be at line:column (-1:
 * no column) and contain `says`. */
static void expect(const char *name, const char *text, int64_t line, int64_t column,
                   const char *says)
{
    sk_atoms_file *f = NULL;
    sk_table *t = NULL;
    sk_error e;
    int rc = sk_atoms_open_memory(&f, text, strlen(text), name, SK_ATOMS_AUTO, NULL, &e);
    if (rc == SK_OK) {
        rc = sk_atoms_read_frame(f, 0, &t, &e);
        sk_atoms_close(f);
    }
    sk_table_free(t);
    CHECK_MSG(rc == SK_ERR_FORMAT, "%s: status %d (%s)", says, rc, e.message);
    char where[160];
    if (column > 0)
        snprintf(where, sizeof where, "%s: line %lld, column %lld: ", name, (long long)line,
                 (long long)column);
    else
        snprintf(where, sizeof where, "%s: line %lld: ", name, (long long)line);
    CHECK_MSG(strncmp(e.message, where, strlen(where)) == 0, "'%s' does not start with '%s'",
              e.message, where);
    CHECK_CONTAINS(e.message, says);
    CHECK_EQ_INT(e.line, line);
    CHECK_EQ_INT(e.column, column);
}

static void expect_edit(const char *name, const char *base, const char *from, const char *to,
                        int64_t line, int64_t column, const char *says)
{
    char *text = edit(base, from, to);
    expect(name, text, line, column, says);
    free(text);
}

int main(void)
{
    /* the unedited files read */
    const char *good[] = {k_dump, k_data, k_xyz};
    const char *names[] = {"good.dump", "good.data", "good.xyz"};
    for (int i = 0; i < 3; i++) {
        sk_atoms_file *f;
        sk_table *t = NULL;
        sk_error e;
        CHECK_OK(sk_atoms_open_memory(&f, good[i], strlen(good[i]), names[i], SK_ATOMS_AUTO,
                                      NULL, &e), &e);
        CHECK_OK(sk_atoms_read_frame(f, 0, &t, &e), &e);
        CHECK(t && sk_table_nrows(t) == (i == 0 ? 3 : 2));
        sk_table_free(t);
        sk_atoms_close(f);
    }

    /* LAMMPS dump */
    expect_edit("bad.dump", k_dump, "2 1 1.5 1.5 1.5", "2 1 1.5 1.5x 1.5", 11, 9,
                "malformed number '1.5x' for y");
    expect_edit("bad.dump", k_dump, "3 1 2.5 2.5 2.5", "3 1 2.5 2.5", 12, 12,
                "line ends after 4 fields where 5 are expected (no z)");
    expect_edit("bad.dump", k_dump, "1 1 0.5 0.5 0.5", "1 1 0.5 0.5 0.5 9", 10, 17,
                "more fields than the 5 expected ('9')");
    expect_edit("bad.dump", k_dump, "1 1 0.5 0.5 0.5", "1.5 1 0.5 0.5 0.5", 10, 1,
                "malformed integer '1.5' for id");
    expect_edit("bad.dump", k_dump, "ATOMS\n3\n", "ATOMS\n4\n", 13, 1,
                "the file ends after 3 of the 4 atom lines");
    expect_edit("bad.dump", k_dump, "ATOMS\n3\n", "ATOMS\n2\n", 12, 1,
                "more atom lines than the 2 of NUMBER OF ATOMS");
    expect_edit("bad.dump", k_dump, "ATOMS\n3\n", "ATOMS\nthree\n", 4, 1,
                "ITEM: NUMBER OF ATOMS needs an integer");
    expect_edit("bad.dump", k_dump, "0 10\n0 10\n0 10\n", "0 10\n0 ten\n0 10\n", 7, 3,
                "a box line needs 2 numbers");
    expect_edit("bad.dump", k_dump, "ITEM: BOX BOUNDS pp pp pp\n0 10\n0 10\n0 10\n", "", 5, 1,
                "missing ITEM: BOX BOUNDS before ITEM: ATOMS");
    expect_edit("bad.dump", k_dump, "ITEM: NUMBER OF ATOMS\n3\n", "", 7, 1,
                "missing ITEM: NUMBER OF ATOMS");
    expect_edit("bad.dump", k_dump, "ITEM: TIMESTEP", "ITEM: TIMESTEPS", 1, 7,
                "unknown item 'TIMESTEPS'");
    expect_edit("bad.dump", k_dump, "ITEM: ATOMS id type x y z", "ITEM: ATOMS id type x x z", 9,
                23, "column 'x' appears twice");
    expect("bad.dump", "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n", 4, 1,
           "the file ends after ITEM: NUMBER OF ATOMS");

    /* LAMMPS data */
    expect_edit("bad.data", k_data, "Atoms # atomic", "Atoms # weird", 14, 9,
                "unknown atom style 'weird'");
    expect_edit("bad.data", k_data, "2 1 1.5 1.5 1.5", "2 1 1.5 abc 1.5", 17, 9,
                "malformed number 'abc' for y");
    expect_edit("bad.data", k_data, "2 1 1.5 1.5 1.5", "2 1 1.5 1.5", 17, 12,
                "line ends after 4 fields where 5 are expected (no z)");
    expect_edit("bad.data", k_data, "1 atom types", "1 atom kinds", 4, 3,
                "unknown header line '1 atom kinds'");
    expect_edit("bad.data", k_data, "Masses\n", "Massive\n", 10, 1, "unknown section 'Massive'");
    expect_edit("bad.data", k_data, "2 atoms", "3 atoms", 18, 1,
                "section Atoms ends after 2 lines, but the header count is 3");
    expect_edit("bad.data", k_data, "2 atoms", "1 atoms", 17, 1,
                "section Atoms has more lines than the header count 1");
    expect_edit("bad.data", k_data, "2 0 0 0\n", "7 0 0 0\n", 22, 1,
                "Velocities and Atoms list different atom ids (7)");
    expect_edit("bad.data", k_data,
                "\nAtoms # atomic\n\n1 1 0.5 0.5 0.5\n2 1 1.5 1.5 1.5\n\nVelocities\n\n1 0 0 0\n"
                "2 0 0 0\n",
                "", 13, 1, "missing section Atoms (the header says 2 atoms)");
    expect_edit("bad.data", k_data, "\nAtoms # atomic\n\n1 1 0.5 0.5 0.5\n2 1 1.5 1.5 1.5\n", "",
                14, 1, "section Velocities comes before Atoms");
    expect_edit("bad.data", k_data, "1 63.546", "3 63.546", 12, 1,
                "Masses: expected an atom type in 1..1");
    expect_edit("bad.data", k_data, "0 10 ylo yhi", "0 1x0 ylo yhi", 7, 3,
                "unknown header line");

    /* extended XYZ */
    expect_edit("bad.xyz", k_xyz, "2\n", "two\n", 1, 1, "expected the atom count");
    expect_edit("bad.xyz", k_xyz, "10 0 0 0 10 0 0 0 10", "10 0 0 0 10 0 0 0", 2, 9,
                "Lattice needs nine numbers");
    expect_edit("bad.xyz", k_xyz, "pos:R:3", "pos:R", 2, 43,
                "Properties must be name:type:count triples");
    expect_edit("bad.xyz", k_xyz, "pos:R:3", "pos:Q:3", 2, 43, "malformed Properties entry");
    expect_edit("bad.xyz", k_xyz, "Cu 1.5 1.5 1.5", "Cu 1.5 1.5", 4, 11,
                "line ends after 3 fields where 4 are expected (no z)");
    expect_edit("bad.xyz", k_xyz, "pos:R:3", "pos:R:3:fixed:L:1", 3, 15, "line ends after 4");
    expect_edit("bad.xyz", k_xyz, "pbc=\"T T T\"", "pbc=\"T X T\"", 2, 67,
                "pbc needs three of T or F");
    expect_edit("bad.xyz", k_xyz, "2\n", "3\n", 5, 1, "the file ends after 2 of the 3 atom lines");
    expect_edit("bad.xyz", k_xyz, "2\n", "1\n", 4, 1, "more atom lines than the count 1");
    expect_edit("bad.xyz", k_xyz, "pbc=\"T T T\"", "pbc=\"T T T", 2, 67,
                "unterminated quoted string (no closing \")");
    {
        char *text = edit(k_xyz, "pos:R:3", "pos:R:3:fixed:L:1");
        char *t2 = edit(text, "Cu 0.5 0.5 0.5", "Cu 0.5 0.5 0.5 X");
        char *t3 = edit(t2, "Cu 1.5 1.5 1.5", "Cu 1.5 1.5 1.5 T");
        expect("bad.xyz", t3, 3, 16, "malformed logical 'X' for fixed");
        free(text);
        free(t2);
        free(t3);
    }

    /* a real file: the message names its path */
    char dir[64], path[128];
    if (test_tmpdir(dir, sizeof dir)) {
        snprintf(path, sizeof path, "%s/broken.lammpstrj", dir);
        char *text = edit(k_dump, "2 1 1.5 1.5 1.5", "2 1 1.5 1.5 1.5.5");
        FILE *fp = fopen(path, "w");
        fputs(text, fp);
        fclose(fp);
        free(text);
        sk_table *t = NULL;
        sk_error e;
        CHECK(sk_atoms_read(path, SK_ATOMS_AUTO, 0, NULL, &t, &e) == SK_ERR_FORMAT);
        char want[200];
        snprintf(want, sizeof want, "%s: line 11, column 13: malformed number '1.5.5' for z", path);
        CHECK_EQ_STR(e.message, want);
        CHECK(sk_atoms_read("/no/such/file.dump", SK_ATOMS_AUTO, 0, NULL, &t, &e) == SK_ERR_IO);
        CHECK_CONTAINS(e.message, "/no/such/file.dump: cannot open");
        unlink(path);
        rmdir(dir);
    }
    return test_done();
}
