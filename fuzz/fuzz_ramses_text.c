/* libFuzzer: RAMSES's text parsers (info, descriptors, header, namelist,
 * info_rt).
 * Byte 0 picks the parser; the rest is the file's text. */
#include <stdint.h>
#include <string.h>

#include "formats/ramses/text.h"
#include "snapkit/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t n = size - 1;
    char *text = sk_malloc(n + 1);
    memcpy(text, data + 1, n);
    text[n] = '\0';
    sk_error err;
    switch (data[0] % 5) {
    case 0: {
        rs_info_text t;
        if (rs_parse_info("info", text, n, &t, &err) == SK_OK) {
            int v;
            double d;
            rs_info_int(&t, "info", "ncpu", &v, &err);
            rs_info_double(&t, "info", "boxlen", &d, &err);
            rs_info_text_free(&t);
        }
        break;
    }
    case 1: {
        rs_varlist l;
        if (rs_parse_descriptor("descriptor", text, n, &l, &err) == SK_OK)
            rs_varlist_free(&l);
        break;
    }
    case 2: {
        rs_header_text h;
        if (rs_parse_header("header", text, n, &h, &err) == SK_OK)
            rs_header_text_free(&h);
        break;
    }
    case 4: {
        rs_kvlist kv;
        if (rs_parse_info_rt("info_rt", text, n, &kv, &err) == SK_OK)
            rs_kv_free(&kv);
        break;
    }
    default: {
        char buf[64];
        rs_fortran_true(rs_namelist_value(text, "metal", buf, sizeof buf));
        rs_namelist_value(text, "levelmax", buf, sizeof buf);
        break;
    }
    }
    sk_free(text);
    return 0;
}
