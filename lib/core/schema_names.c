/* Schema names: matched and encoded (schema_names.h). */
#include "core/schema_names.h"

#include <stdint.h>
#include <string.h>

#include "snapkit/memory.h"

int schema_names_match(const sk_table *t, char *const *names, int n)
{
    if (sk_table_ncols(t) != n)
        return 0;
    for (int j = 0; j < n; j++)
        if (strcmp(sk_table_col(t, j)->name, names[j]))
            return 0;
    return 1;
}

size_t schema_names_size(char *const *names, int n)
{
    size_t size = 0;
    for (int j = 0; j < n; j++)
        size += sizeof(uint32_t) + strlen(names[j]);
    return size;
}

size_t schema_names_encode(unsigned char *b, char *const *names, int n)
{
    size_t at = 0;
    for (int j = 0; j < n; j++) {
        uint32_t len = (uint32_t)strlen(names[j]);
        memcpy(b + at, &len, sizeof len);
        memcpy(b + at + sizeof len, names[j], len);
        at += sizeof len + len;
    }
    return at;
}

int schema_names_decode(char **names, int n, const unsigned char *b, size_t size, size_t *at)
{
    for (int j = 0; j < n; j++) {
        uint32_t len;
        if (size - *at < sizeof len)
            return 0;
        memcpy(&len, b + *at, sizeof len);
        *at += sizeof len;
        if (size - *at < len || !(names[j] = sk_malloc((size_t)len + 1)))
            return 0;
        memcpy(names[j], b + *at, len);
        names[j][len] = '\0';
        *at += len;
    }
    return 1;
}
