/* Numbers in headers: the shortest form that reads back exactly. */
#include "formats/atoms/internal.h"
#include "core/number_calls.h"
#include "snapkit/util/number.h"

void at_text_double(sk_text *t, double v)
{
    char buf[SK_NUMBER_BUFSIZE];
    int n = number_format_double(v, buf);
    sk_text_put(t, buf, (size_t)n);
}
