/* The extended XYZ comment line: key=value pairs (xyz_kv.c) and their
 * values typed (xyz_value.c). The grammar is in docs/atoms.md. */
#ifndef SNAPKIT_ATOMS_XYZ_KV_H
#define SNAPKIT_ATOMS_XYZ_KV_H

#include "snapkit/atoms.h"
#include "snapkit/util/text.h"

/* Where and why text is malformed. */
typedef struct kv_fail {
    const char *at;
    char what[160];
} kv_fail;

typedef struct kv_pair {
    char *key;                 /* unquoted and unescaped (sk_malloc) */
    const char *key_at;        /* where the key starts */
    const char *raw, *raw_end; /* the value as written; empty for a key alone */
} kv_pair;

typedef struct kv_line {
    kv_pair *pairs;
    int n, cap;
} kv_line;

/* Split [b, e) into pairs (out NULL: only check them). SK_ERR_FORMAT
 * with fail set, or SK_ERR_NOMEM. */
int at_kv_split(const char *b, const char *e, kv_line *out, kv_fail *fail);
void at_kv_free(kv_line *l);

/* The end of the value token at p (not blank), or NULL with fail set. */
const char *at_kv_value_end(const char *p, const char *e, kv_fail *fail);
/* Type the value [b, e) (exactly one token; empty: the bool true).
 * SK_ERR_FORMAT with fail set, or SK_ERR_NOMEM. */
int at_kv_value(const char *b, const char *e, sk_xyz_value *out, kv_fail *fail);

/* Lattice, pbc and Origin into the frame's box, the other pairs but
 * Properties into extxyz.<key> metadata (values verbatim), every value
 * typed once to check it. Errors name path, line and the column in the
 * comment line that starts at comment. */
int at_xyz_comment_meta(const char *path, int64_t line, const char *comment, const kv_line *kv,
                        sk_table *t, sk_error *err);

/* The text of a quoted string "..." without its quotes, unescaped (\n is
 * a newline, \X is X); the caller frees it. */
char *at_kv_unquote(const char *b, const char *e);
/* Write s as a key: bare when it can be, else quoted and escaped. */
void at_kv_put_key(sk_text *t, const char *s);
/* Write a value's text: as it is when it is one well-formed value, else
 * as a quoted string. SK_ERR_ARG when neither reads back (an old-style
 * array of numbers one of which overflows, "1 1e400"). */
int at_kv_put_value(sk_text *t, const char *s);
/* Write s quoted: "..." with \\, \" and \n escaped. */
void at_kv_put_quoted(sk_text *t, const char *s);

#endif
