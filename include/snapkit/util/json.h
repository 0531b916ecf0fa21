/* snapkit/util/json.h - a small JSON writer into a growing buffer.
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

#ifdef __cplusplus
}
#endif
#endif
