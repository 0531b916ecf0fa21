/* Fuzz the reader of saved reports (bench compare and bench plot read
 * report.json files a user may have edited, truncated or been sent): the
 * JSON parser, then the comparison of the document with itself, whose
 * every ratio must be 1 or undefined (a NaN or infinite number), and the
 * report read back as bench plot reads it, with its text. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench/compare.h"
#include "snapkit/util/json.h"
#include "bench/report_load.h"
#include "snapkit/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sk_json_value *v = NULL;
    sk_error err;
    if (sk_json_parse((const char *)data, size, "fuzz", &v, &err) != SK_OK) {
        if (v)
            abort();
        return 0;
    }
    skb_compare c;
    if (v->type == SK_JSON_OBJECT && skb_compare_reports(v, v, &c, &err) == SK_OK) {
        if (c.only_a || c.only_b)
            abort();
        for (int i = 0; i < c.nrows; i++)
            if (!(c.rows[i].ratio == 1 || isnan(c.rows[i].ratio)))
                abort();
        skb_compare_free(&c);
    }
    /* bench plot's reading of a report, and the text drawn from it. */
    static skb_saved_report saved;
    if (skb_report_from_json(v, "fuzz.json", &saved, &err) == SK_OK)
        sk_free(sk_report_text(&saved.report));
    sk_json_value_free(v);
    return 0;
}
