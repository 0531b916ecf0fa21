/* Parsers of RAMSES's text files, from memory (so they can be fuzzed):
 * info_NNNNN.txt, hydro/part file descriptors (current and late-2017
 * forms), header_NNNNN.txt and namelist look-ups. Everything is found by
 * key, never by line number. Errors name the file, line and column. */
#ifndef SNAPKIT_RAMSES_TEXT_H
#define SNAPKIT_RAMSES_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"

typedef struct rs_kv {
    char *key, *value;
    int line;
} rs_kv;

typedef struct rs_kvlist {
    rs_kv *items;
    int n, cap;
} rs_kvlist;

int rs_kv_add(rs_kvlist *l, const char *key, size_t klen, const char *value, size_t vlen,
              int line);
const rs_kv *rs_kv_find(const rs_kvlist *l, const char *key);
void rs_kv_free(rs_kvlist *l);

/* info_NNNNN.txt: every `key = value` line, and the Hilbert DOMAIN table. */
typedef struct rs_info_text {
    rs_kvlist keys;
    int ndomain;       /* 0 when there is no DOMAIN table */
    double *bound_key; /* ndomain + 1 keys */
} rs_info_text;
/* info_rt_NNNNN.txt: its keys (group properties as group_N.key). */
int rs_parse_info_rt(const char *path, const char *text, size_t len, rs_kvlist *out,
                     sk_error *err);
int rs_parse_info(const char *path, const char *text, size_t len, rs_info_text *out,
                  sk_error *err);
void rs_info_text_free(rs_info_text *t);
/* Typed values of required keys; errors name the file and the key's line.
 * A value that is not finite (nan, inf, 1e400) is an error. */
int rs_info_int(const rs_info_text *t, const char *path, const char *key, int *out,
                sk_error *err);
int rs_info_double(const rs_info_text *t, const char *path, const char *key, double *out,
                   sk_error *err);
/* SK_ERR_FORMAT at the line of `key`: "key = 'value' <what>". */
int rs_info_fail_key(const rs_info_text *t, const char *path, const char *key, const char *what,
                     sk_error *err);

/* A variable of a descriptor: name and RAMSES type code (d f i q h b ?). */
#define RS_NAME_MAX 64
typedef struct rs_var {
    char name[RS_NAME_MAX];
    char type;
    int line; /* of the descriptor that names it; 0 for a name by convention */
} rs_var;

typedef struct rs_varlist {
    rs_var *vars;
    int n;
    int version; /* 1: "# version: 1" form; 0: late-2017 key/value form */
} rs_varlist;

/* hydro_file_descriptor.txt or part_file_descriptor.txt, either form. The
 * key/value form has no types: its variables are typed 'd'. A name listed
 * twice is an error at its second line. */
int rs_parse_descriptor(const char *path, const char *text, size_t len, rs_varlist *out,
                        sk_error *err);
void rs_varlist_free(rs_varlist *l);
/* Bytes of one value of a type code; 0 for an unknown code. */
int rs_type_size(char type);

/* header_NNNNN.txt: family (or old "Total number of ...") counts and the
 * particle field line. */
typedef struct rs_header_text {
    rs_kvlist counts; /* name -> count text, in file order; repeated names get _2, _3 */
    char *fields;     /* the line after "Particle fields", or NULL */
} rs_header_text;
int rs_parse_header(const char *path, const char *text, size_t len, rs_header_text *out,
                    sk_error *err);
void rs_header_text_free(rs_header_text *h);

/* The value of `key` (case-insensitive) in a Fortran namelist text, copied
 * into buf without surrounding blanks; NULL when absent. */
const char *rs_namelist_value(const char *text, const char *key, char *buf, size_t n);
/* Is the namelist value a Fortran true (.true., T, .t.)? */
int rs_fortran_true(const char *value);

#endif
