/* bench/json_read.h - a small JSON reader for saved reports.
 *
 * `bench compare` and `bench plot` read report.json files back; the
 * library only writes JSON (snapkit/util/json.h), so the reader lives here,
 * beside its only users. A document becomes a tree of values the caller
 * frees with skb_json_free. Input may be anything (a truncated or hostile
 * file): every error is a message with the line and column, nesting is
 * limited to SKB_JSON_MAX_DEPTH, and nothing past `size` is read.
 */
#ifndef SNAPKIT_BENCH_JSON_READ_H
#define SNAPKIT_BENCH_JSON_READ_H

#include <stddef.h>

#include "snapkit/error.h"

#define SKB_JSON_MAX_DEPTH 64

typedef enum {
    SKB_JSON_NULL, SKB_JSON_BOOL, SKB_JSON_NUMBER, SKB_JSON_STRING, SKB_JSON_ARRAY, SKB_JSON_OBJECT
} skb_json_type;

typedef struct skb_json_value {
    skb_json_type type;
    double number;                 /* NUMBER; BOOL: 0 or 1 */
    char *string;                  /* STRING (UTF-8, NUL-terminated) */
    int n;                         /* ARRAY, OBJECT: members */
    struct skb_json_value *items;  /* ARRAY, OBJECT: the n values */
    char **keys;                   /* OBJECT: the n keys, in file order */
} skb_json_value;

/* Parse text[0..size-1] (one value, white space around it) into *out.
 * SK_ERR_FORMAT naming line and column on bad input, SK_ERR_NOMEM. */
int skb_json_parse(const char *text, size_t size, const char *path, skb_json_value **out,
                   sk_error *err);
void skb_json_free(skb_json_value *v);

/* Read and parse the file at path. */
int skb_json_load(const char *path, skb_json_value **out, sk_error *err);

/* The member `key` of an object (the first when repeated); NULL when v is
 * not an object or has no such member. */
const skb_json_value *skb_json_get(const skb_json_value *v, const char *key);
/* The member as a number: def when absent or not a number (null included). */
double skb_json_number(const skb_json_value *v, const char *key, double def);

#endif
