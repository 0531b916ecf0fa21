/* libFuzzer: the text-table parser of sinks and clumps. Byte 0 picks the
 * form (odd: sink csv, even: clump columns); the rest is parsed twice into
 * one catalogue, as two CPUs' files, so the header comparison runs too. */
#include <stdint.h>
#include <string.h>

#include "ramses/internal.h"
#include "snapkit/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = size - 1;
    char *text = sk_malloc(n + 1);
    if (!text)
        return 0;
    memcpy(text, data + 1, n);
    text[n] = '\0';
    sk_error err;
    rs_catalogue cat;
    rs_catalogue_init(&cat, data[0] & 1);
    if (rs_catalogue_parse(&cat, "dir/table_00001", text, n, &err) == SK_OK)
        rs_catalogue_parse(&cat, "dir/table_00002", text, n, &err);
    rs_catalogue_free(&cat);
    sk_free(text);
    return 0;
}
