#!/usr/bin/env bash
# cmake --install puts a usable C library under a prefix: a program built
# with pkg-config against the shared library and against the static one
# reads the shipped example, and the installed command and Python package
# work from there.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=$(cd "${SNAPKIT_TEST_DATA:-tests/data}" && pwd)
build=$(cd "$(dirname "$cli")" && pwd)
if grep -q "SNAPKIT_SANITIZE:BOOL=ON" "$build/CMakeCache.txt"; then
    echo "SKIP: a sanitizer build is not installed"
    exit 77  # reported as skipped by CTest
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log" || fail "cmake --install"
for f in bin/snapkit lib/libsnapkit.a lib/pkgconfig/snapkit.pc include/snapkit/snapkit.h \
         include/snapkit/util.h include/snapkit/util/json.h include/snapkit/util/atomicfile.h; do
    [[ -e "$tmp/prefix/$f" ]] || fail "$f not installed"
done
ls "$tmp/prefix"/lib/libsnapkit.so.* > /dev/null || fail "shared library not installed"
[[ -e "$tmp/prefix/share/man/man1/snapkit.1" ]] || fail "man page not installed"

# Under /usr, GNUInstallDirs puts libraries in lib/<multiarch>: snapkit.pc,
# configured for that prefix and put where it installs, must still find
# the prefix, the library and the headers.
src=$(cd "$(dirname "$0")/../.." && pwd)
cmake -S "$src" -B "$tmp/usr-build" -DCMAKE_INSTALL_PREFIX=/usr -DSNAPKIT_TESTS=OFF \
    > "$tmp/usr.log" 2>&1 || fail "configure for /usr: $(tail -3 "$tmp/usr.log")"
usrlib=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$tmp/usr-build/CMakeCache.txt")
[[ -n "$usrlib" ]] || fail "no CMAKE_INSTALL_LIBDIR for /usr"
mkdir -p "$tmp/usr/$usrlib/pkgconfig"
cp "$tmp/usr-build/snapkit.pc" "$tmp/usr/$usrlib/pkgconfig/"
got=$(PKG_CONFIG_PATH="$tmp/usr/$usrlib/pkgconfig" pkg-config --variable=libdir snapkit)
[[ $(realpath -m "$got") == "$tmp/usr/$usrlib" ]] || fail "/usr: libdir $got, want $tmp/usr/$usrlib"
got=$(PKG_CONFIG_PATH="$tmp/usr/$usrlib/pkgconfig" pkg-config --variable=includedir snapkit)
[[ $(realpath -m "$got") == "$tmp/usr/include" ]] || fail "/usr: includedir $got"
# The benchmarks and the figures belong to the command, not to the library.
[[ ! -e "$tmp/prefix/include/snapkit/bench.h" ]] || fail "bench.h installed"
for so in "$tmp"/prefix/lib/libsnapkit.so.*; do
    ! nm -D --defined-only "$so" | grep -Eq " (sk_bench|sk_report|sk_machine|skf_|skb_)" \
        || fail "$so exports the benchmarks or the figures"
    ! ldd "$so" | grep -q cairo || fail "$so links cairo"
done

cat > "$tmp/rows.c" <<'C'
#include <stdio.h>
#include <snapkit/snapkit.h>
#include <snapkit/ramses.h>
#include <snapkit/util.h>

int main(int argc, char **argv)
{
    sk_error err;
    sk_ramses *r;
    sk_table *t;
    if (argc < 2 || sk_ramses_open(&r, argv[1], &err) != SK_OK)
        return 1;
    if (sk_ramses_read(r, "hydro", NULL, NULL, &t, NULL, &err) != SK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("%s %lld\n", sk_version(), (long long)sk_table_nrows(t));
    sk_table_free(t);
    sk_ramses_close(r);
    return 0;
}
C
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
cc -std=c17 "$tmp/rows.c" -o "$tmp/rows_shared" $(pkg-config --cflags --libs snapkit) \
    || fail "build against the shared library"
# libsnapkit.a with the system's shared dependencies: what Requires.private
# and Libs.private list (no cfitsio: it is loaded when a FITS file is written).
cc -std=c17 "$tmp/rows.c" -o "$tmp/rows_static" $(pkg-config --cflags snapkit) \
    "$tmp/prefix/lib/libsnapkit.a" $(pkg-config --libs liblz4 libxxhash libpng zlib) \
    -fopenmp -lm -ldl || fail "build against the static library"
# 45487 leaf cells: the gravpart fixture's reference.json
want="0.1.0 45487"
got=$(LD_LIBRARY_PATH=$tmp/prefix/lib "$tmp/rows_shared" "$data/ramses/gravpart/output_00002")
[[ "$got" == "$want" ]] || fail "shared: '$got' != '$want'"
got=$("$tmp/rows_static" "$data/ramses/gravpart/output_00002")
[[ "$got" == "$want" ]] || fail "static: '$got' != '$want'"
"$tmp/prefix/bin/snapkit" --version | grep -q "^snapkit 0.1.0$" || fail "installed snapkit --version"

# The installed Python package finds the installed library by itself.
pydir=$(ls -d "$tmp"/prefix/lib/python3*/dist-packages)
got=$(cd "$tmp" && env -u SNAPKIT_LIBRARY PYTHONPATH="$pydir" /usr/bin/python3 -c \
    "import snapkit; print(snapkit.__file__.startswith('$pydir'), len(snapkit.open('$data/ramses/gravpart/output_00002').hydro()))")
[[ "$got" == "True 45487" ]] || fail "installed Python package: '$got'"
echo "install: ok"
