/* libFuzzer: sk_parse_double equals strtod on any text (hexadecimal aside,
 * which snapkit does not read), and the first 8 bytes as a double print as
 * text that reads back to the same bits. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snapkit/util/number.h"

static void round_trip(const uint8_t *data, size_t size)
{
    if (size < 8)
        return;
    double v, back;
    memcpy(&v, data, 8);
    char buf[SK_NUMBER_BUFSIZE];
    int n = sk_format_double(v, buf);
    if (n <= 0 || n >= SK_NUMBER_BUFSIZE || buf[n] != '\0')
        abort();
    const char *stop;
    if (!sk_parse_double(buf, buf + n, &back, &stop) || stop != buf + n)
        abort();
    if (isnan(v) ? !isnan(back) : memcmp(&v, &back, 8) != 0)
        abort();
    if (!isnan(v) && strtod(buf, NULL) != v)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    round_trip(data, size);
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    const char *s = text;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++; /* strtod skips leading space; sk_parse_double starts at the number */
    const char *h = s + (*s == '+' || *s == '-');
    int hex = h[0] == '0' && (h[1] == 'x' || h[1] == 'X');
    char *rend;
    double ref = strtod(s, &rend);
    double ours;
    const char *stop = NULL;
    size_t len = strlen(s);
    int ok = sk_parse_double(s, s + len, &ours, &stop);
    if (!hex) {
        if (ok != (rend != s))
            abort();
        if (ok && (stop != rend || (isnan(ref) ? !isnan(ours) : memcmp(&ref, &ours, 8) != 0)))
            abort();
    }
    free(text);
    return 0;
}
