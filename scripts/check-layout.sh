#!/usr/bin/env bash
# The boundaries of the source tree, checked on every #include "..." of the
# C sources (the CTest test `layout`). An include is resolved as the
# compiler would: the including file's folder, then include/, lib/ and
# programs/. It fails, naming the file and the include, when
#   1. a file in lib/ includes anything from programs/;
#   2. a header named internal.h or *_internal.h is included from outside
#      its own folder (tests/ and fuzz/ may);
#   3. a lib module includes a library header of a module at or above its
#      own level, in the order
#        core < mpi < formats/ramses, formats/snapkit, formats/atoms, synth
#             < source < export, analysis < project, clumps
#      (mpi is the ranks' collectives over core's tables, below the formats
#      that divide their files and write with MPI-IO);
#      (modules of one level do not include each other's headers; what
#      formats/snapkit converts from RAMSES comes through the public
#      snapkit/ramses.h, as any caller's would);
#   4. a file in programs/ includes a lib/ header: programs use the
#      public headers (snapkit/..., the utility tier included) and their own.
# Public headers (include/snapkit/) are the API and may be included
# anywhere.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

level() {
    case $1 in
        lib/core) echo 0 ;;
        lib/mpi) echo 1 ;;
        lib/formats/*|lib/synth) echo 2 ;;
        lib/source) echo 3 ;;
        lib/export|lib/analysis) echo 4 ;;
        lib/project|lib/clumps) echo 5 ;;
        *) echo -1 ;;
    esac
}

# The module of a path under lib/ into $mod: lib/core, lib/formats/ramses, ...
module() {
    local rest=${1#lib/}
    case $1 in
        lib/formats/*) rest=${rest#formats/}; mod=lib/formats/${rest%%/*} ;;
        lib/*) mod=lib/${rest%%/*} ;;
        *) mod= ;;
    esac
}

# Where `#include "name"` in file resolves, into $target; empty when
# nowhere here.
resolve() {
    local file=$1 name=$2
    target=
    for cand in "${file%/*}/$name" "include/$name" "lib/$name" "programs/$name"; do
        if [[ -f $cand ]]; then
            target=$cand
            return
        fi
    done
}

failures=0 target= mod=
report() {
    echo "layout: $1: #include \"$2\": $3" >&2
    failures=$((failures + 1))
}

check_one() {
    local file=$1 name=$2 from to
    resolve "$file" "$name"
    [[ -n $target ]] || return 0
    case $file in tests/*|fuzz/*) local exempt=1 ;; *) local exempt=0 ;; esac
    if [[ $file == lib/* && $target == programs/* ]]; then
        report "$file" "$name" "the library includes a program's header ($target)"
    fi
    local base=${target##*/}
    if [[ $exempt == 0 && ($base == internal.h || $base == *_internal.h) &&
          ${target%/*} != "${file%/*}" ]]; then
        report "$file" "$name" "an internal header of another folder ($target)"
    fi
    if [[ $file == lib/* && $target == lib/* ]]; then
        module "$file"; from=$mod
        module "$target"; to=$mod
        if [[ $from != "$to" ]] && (($(level "$to") >= $(level "$from"))); then
            report "$file" "$name" "module $from includes $to, which is not below it"
        fi
    fi
    if [[ $file == programs/* && $target == lib/* ]]; then
        report "$file" "$name" "a program includes a library header that is not public ($target)"
    fi
}

while IFS= read -r file; do
    while IFS= read -r name; do
        check_one "$file" "$name"
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find lib programs include tests fuzz peers -type f \( -name '*.c' -o -name '*.h' \) \
             -not -path 'tests/data/*' | sort)

if ((failures > 0)); then
    echo "layout: $failures include(s) cross a boundary" >&2
    exit 1
fi
echo "layout: every include keeps to its boundaries"
