#include "snapkit/snapkit.h"

#define STR2(x) #x
#define STR(x) STR2(x)

const char *sk_version(void)
{
    return STR(SK_VERSION_MAJOR) "." STR(SK_VERSION_MINOR) "." STR(SK_VERSION_PATCH);
}
