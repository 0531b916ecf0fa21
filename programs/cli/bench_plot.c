/* snapkit bench plot: the figure (and text) of a saved report, redrawn
 * without measuring. */
#include <string.h>

#include "bench/report_load.h"
#include "bench_commands.h"
#include "bench_common.h"
#include "snapkit/util/atomicfile.h"

static const char k_help[] =
    "usage: snapkit bench plot REPORT.json [-o FIG.png|.svg|.pdf] [--text]\n\n"
    "Redraw the figure of a saved report (report.json of bench report) without measuring:\n"
    "one panel per stage it holds, and the efficiency panel (speedup per thread) when a\n"
    "sweep has two thread levels or more. The format follows FIG's extension (default:\n"
    "REPORT with .png for .json). The lmax fits and the conversion's ratios are\n"
    "recomputed from the saved points.\n\n"
    "options:\n"
    "  -o, --output FIG      where the figure goes (png, svg or pdf)\n"
    "  --text                also print the report's text (as report.txt), with the\n"
    "                        share of the Amdahl ceiling reached and the economical\n"
    "                        point's cost\n";

/* FIG's format from its extension. */
static const char *format_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    static const char *const formats[] = {"png", "svg", "pdf"};
    for (int i = 0; dot && i < 3; i++)
        if (strcmp(dot + 1, formats[i]) == 0)
            return formats[i];
    return NULL;
}

static int write_figure(const sk_report *r, const char *path)
{
    const char *format = format_of(path);
    if (!format)
        return cli_usage("bench plot", "-o: '%s' does not end in .png, .svg or .pdf", path);
    char *bytes = NULL;
    size_t size = 0;
    sk_error err;
    int rc = sk_report_figure(r, format, &bytes, &size, &err);
    sk_atomic_file *f = NULL;
    if (rc == SK_OK)
        rc = sk_atomic_open(&f, path, &err);
    if (rc == SK_OK)
        rc = sk_atomic_write(f, bytes, size, &err);
    if (rc == SK_OK)
        rc = sk_atomic_commit(f, &err);
    else if (f)
        sk_atomic_abort(f);
    sk_free(bytes);
    return rc == SK_OK ? CLI_OK : cli_error(&err);
}

int cmd_bench_plot(int argc, char **argv)
{
    const char *input = NULL, *output = NULL;
    int text = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_help(a, k_help)) {
            return CLI_OK;
        } else if (cli_is(a, "-o") || cli_is(a, "--output")) {
            if (!(output = cli_value(argc, argv, &i)))
                return CLI_USAGE;
        } else if (cli_is(a, "--text")) {
            text = 1;
        } else if (a[0] == '-' || input) {
            return cli_usage("bench plot", "unexpected argument '%s'", a);
        } else {
            input = a;
        }
    }
    if (!input)
        return cli_usage("bench plot", "which report? (snapkit bench plot report.json)");
    char path[4096];
    if (!output) {
        size_t n = strlen(input);
        int json = n > 5 && strcmp(input + n - 5, ".json") == 0;
        snprintf(path, sizeof path, "%.*s.png", (int)(json ? n - 5 : n), input);
        output = path;
    }
    if (!format_of(output))
        return cli_usage("bench plot", "-o: '%s' does not end in .png, .svg or .pdf", output);
    sk_json_value *v = NULL;
    sk_error err;
    if (sk_json_load(input, &v, &err) != SK_OK)
        return cli_error(&err);
    static skb_saved_report saved;
    int rc = skb_report_from_json(v, input, &saved, &err) == SK_OK ? CLI_OK : cli_error(&err);
    sk_json_value_free(v);
    if (rc == CLI_OK && text) {
        char *t = sk_report_text(&saved.report);
        rc = t ? (fputs(t, stdout), CLI_OK) : cli_fail("out of memory");
        sk_free(t);
    }
    if (rc == CLI_OK)
        rc = write_figure(&saved.report, output);
    if (rc == CLI_OK)
        fprintf(text ? stderr : stdout, "wrote %s\n", output);
    return rc;
}
