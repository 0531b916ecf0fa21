#!/usr/bin/env bash
# libsnapkit.so exports its API and nothing else: every dynamic symbol it
# defines is a function declared with SK_API in a header of the snapshot API
# (include/snapkit/) or of the utility tier (include/snapkit/util/), every
# such declaration is exported, and the test hooks (lib/core/testhooks.h)
# are not.
set -euo pipefail
lib=${SNAPKIT_LIBRARY:-build/libsnapkit.so}
src=$(cd "$(dirname "$0")/../.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -e "$lib" ]] || fail "no library at $lib"

exported=$(nm -D --defined-only "$lib" | awk '{print $3}' | sort -u)
declared=$(grep -h '^SK_API' "$src"/include/snapkit/*.h "$src"/include/snapkit/util/*.h | grep -oE '\bsk_[a-z0-9_]+\(' | tr -d '(' | sort -u)
[[ $(wc -l <<< "$declared") -gt 100 ]] || fail "found only $(wc -l <<< "$declared") declarations"

extra=$(comm -23 <(echo "$exported") <(echo "$declared"))
[[ -z "$extra" ]] || fail "exported but declared in no public header: $(echo $extra | head -c 600)"
missing=$(comm -13 <(echo "$exported") <(echo "$declared"))
[[ -z "$missing" ]] || fail "declared with SK_API but not exported: $(echo $missing | head -c 600)"
hooks=$(grep -ohE '\b(sk_)?[a-z0-9_]+\(' "$src"/lib/core/testhooks.h | tr -d '(' | sort -u)
[[ -n "$hooks" ]] || fail "no test hooks found in lib/core/testhooks.h"
leaked=$(comm -12 <(echo "$exported") <(echo "$hooks"))
[[ -z "$leaked" ]] || fail "test hooks exported: $leaked"
for h in "$src"/include/snapkit/util/*.h; do
    grep -q "Utility tier" "$h" || fail "$h: no utility-tier banner"
done
! grep -q '#include "snapkit/util' "$src"/include/snapkit/snapkit.h || fail "snapkit.h includes the utility tier"
echo "exports: $(wc -l <<< "$exported") symbols, all declared"
