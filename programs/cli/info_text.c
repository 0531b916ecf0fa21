/* The parts of `snapkit info`'s text that a RAMSES output and a .snapkit
 * file (whose metadata keeps the output's) print alike. */
#include "info_text.h"

#include <stdio.h>
#include <string.h>

void info_print_prefixed(const sk_table *meta, const char *prefix, const char *title)
{
    size_t n = strlen(prefix);
    int shown = 0;
    for (int i = 0; i < sk_table_meta_count(meta); i++) {
        const char *k = sk_table_meta_key(meta, i);
        if (strncmp(k, prefix, n) != 0 || !strcmp(k, "ramses.info.bound_key"))
            continue;
        if (!shown++)
            printf("\n%s\n", title);
        printf("  %-22s %s\n", k + n, sk_table_meta_value(meta, i));
    }
}

void info_print_descriptors(const sk_table *meta)
{
    const char *hd = sk_table_meta_get(meta, "ramses.hydro_descriptor");
    const char *pd = sk_table_meta_get(meta, "ramses.part_descriptor");
    printf("\nhydro descriptor     %s\n", hd ? hd : "(none)");
    printf("particle descriptor  %s\n", pd ? pd : "(none)");
}

void info_print_namelist(const sk_table *meta)
{
    const char *nml = sk_table_meta_get(meta, "ramses.namelist");
    if (nml)
        printf("\nnamelist\n%s%s", nml, nml[0] && nml[strlen(nml) - 1] != '\n' ? "\n" : "");
}
