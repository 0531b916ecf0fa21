/* snapkit/util/json.h - a small JSON writer into a growing buffer, and a
 * reader.
 *
 * Used for machine output (--json), metadata and reports. Numbers are
 * written in the shortest form that reads back exactly; NaN and infinities,
 * which JSON cannot hold, are written as null.
 *
 * Utility tier (include/snapkit/util/): general helpers the library, its
 * programs and its tests share. Not covered by the snapshot API's
 * stability promise: these may change or go in any release.
 */
#ifndef SNAPKIT_JSON_H
#define SNAPKIT_JSON_H

#include "snapkit/export.h"

#include <stddef.h>
#include <stdint.h>

#include "snapkit/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sk_json {
    char *buf;
    size_t len, cap;
    int depth;
    int need_comma[64];
    int pretty;   /* indent with one space per level */
    int failed;   /* set when memory ran out; the text is then incomplete */
} sk_json;

SK_API void sk_json_init(sk_json *j, int pretty);
SK_API void sk_json_free(sk_json *j);
SK_API void sk_json_object_begin(sk_json *j);
SK_API void sk_json_object_end(sk_json *j);
SK_API void sk_json_array_begin(sk_json *j);
SK_API void sk_json_array_end(sk_json *j);
/* Key of the next member (inside an object). */
SK_API void sk_json_key(sk_json *j, const char *key);
SK_API void sk_json_string(sk_json *j, const char *s);
SK_API void sk_json_double(sk_json *j, double v);
SK_API void sk_json_int(sk_json *j, int64_t v);
SK_API void sk_json_bool(sk_json *j, int v);
SK_API void sk_json_null(sk_json *j);
/* Insert already valid JSON text as one value. */
SK_API void sk_json_raw(sk_json *j, const char *text);
/* A value kept as text (metadata, info files): a JSON number when the
 * whole text reads as one, else a string. */
SK_API void sk_json_text_value(sk_json *j, const char *text);

/* Shorthands for key + value. */
SK_API void sk_json_kv_string(sk_json *j, const char *key, const char *s);
SK_API void sk_json_kv_double(sk_json *j, const char *key, double v);
SK_API void sk_json_kv_int(sk_json *j, const char *key, int64_t v);

/* The text so far, NUL-terminated (empty string when nothing was written). */
SK_API const char *sk_json_text(const sk_json *j);

/* The reader: a document becomes a tree of values the caller frees with
 * sk_json_value_free (lib/export/json_read.c; saved reports are read back
 * with it). Input may be anything (a truncated or hostile file): every
 * error is a message with the line and column, nesting is limited to
 * SK_JSON_MAX_DEPTH, and nothing past `size` is read. */
#define SK_JSON_MAX_DEPTH 64

typedef enum {
    SK_JSON_NULL, SK_JSON_BOOL, SK_JSON_NUMBER, SK_JSON_STRING, SK_JSON_ARRAY, SK_JSON_OBJECT
} sk_json_type;

typedef struct sk_json_value {
    sk_json_type type;
    double number;                 /* NUMBER; BOOL: 0 or 1 */
    char *string;                  /* STRING (UTF-8, NUL-terminated) */
    int n;                         /* ARRAY, OBJECT: members */
    struct sk_json_value *items;   /* ARRAY, OBJECT: the n values */
    char **keys;                   /* OBJECT: the n keys, in file order */
} sk_json_value;

/* Parse text[0..size-1] (one value, white space around it) into *out.
 * SK_ERR_FORMAT naming line and column on bad input, SK_ERR_NOMEM. */
SK_API int sk_json_parse(const char *text, size_t size, const char *path, sk_json_value **out,
                         sk_error *err);
SK_API void sk_json_value_free(sk_json_value *v);

/* Read and parse the file at path. */
SK_API int sk_json_load(const char *path, sk_json_value **out, sk_error *err);

/* The member `key` of an object (the first when repeated); NULL when v is
 * not an object or has no such member. */
SK_API const sk_json_value *sk_json_get(const sk_json_value *v, const char *key);
/* The member as a number: def when absent or not a number (null included). */
SK_API double sk_json_number(const sk_json_value *v, const char *key, double def);

#ifdef __cplusplus
}
#endif
#endif
