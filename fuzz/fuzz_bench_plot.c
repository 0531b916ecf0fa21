/* Fuzz `bench plot`: a report.json a user may have edited, cut or been
 * sent, read back as bench plot reads it and drawn as its figure (SVG:
 * the same drawing code as PNG and PDF, without the pixel encoding). The
 * drawing must end for any numbers the reader lets through: zero,
 * negative, huge or undefined thread counts, times and ratios (a log axis
 * over such a range once looped forever). */
#include <stdint.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "bench/report_load.h"
#include "snapkit/memory.h"
#include "snapkit/util/json.h"

/* The first figure loads cairo and fills fontconfig's caches, which live
 * until exit: draw one before fuzzing so that no input is charged with
 * them as a leak. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char warm[] = "{\"machine\": {\"cpu_model\": \"warm\"}}";
    sk_json_value *v = NULL;
    sk_error err;
    static skb_saved_report saved;
    if (sk_json_parse(warm, sizeof warm - 1, "warm", &v, &err) == SK_OK &&
        skb_report_from_json(v, "warm.json", &saved, &err) == SK_OK) {
        char *bytes = NULL;
        size_t size = 0;
        if (sk_report_figure(&saved.report, "svg", &bytes, &size, &err) == SK_OK)
            sk_free(bytes);
    }
    sk_json_value_free(v);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sk_json_value *v = NULL;
    sk_error err;
    if (sk_json_parse((const char *)data, size, "fuzz", &v, &err) != SK_OK)
        return 0;
    static skb_saved_report saved;
    if (skb_report_from_json(v, "fuzz.json", &saved, &err) == SK_OK) {
        char *bytes = NULL;
        size_t n = 0;
        if (sk_report_figure(&saved.report, "svg", &bytes, &n, &err) == SK_OK && (!bytes || !n))
            abort();
        sk_free(bytes);
    }
    sk_json_value_free(v);
    return 0;
}
