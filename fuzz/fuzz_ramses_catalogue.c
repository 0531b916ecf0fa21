/* libFuzzer: the text-table parser of sinks and clumps. Byte 0 picks the
 * form (odd: sink csv, even: clump columns); the rest is parsed twice into
 * one catalogue, as two CPUs' files, so the header comparison runs too.
 * Byte 0 >= 0xF0: the rest is a binary sink file of RAMSES 2014-2018
 * (sink_binary.c), ndim 1 + (byte 0 & 3) % 3. */
#include <stdint.h>
#include <string.h>

#include "formats/ramses/internal.h"
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
    if (data[0] >= 0xF0) {
        rs_catalogue_init(&cat, 1);
        rs_sink_binary_parse(&cat, "dir/sink_00001.out00001", data + 1, n, 1 + (data[0] & 3) % 3,
                             &err);
    } else if (rs_catalogue_parse(&cat, "dir/table_00001", text, n, &err) == SK_OK)
        rs_catalogue_parse(&cat, "dir/table_00002", text, n, &err);
    rs_catalogue_free(&cat);
    sk_free(text);
    return 0;
}
