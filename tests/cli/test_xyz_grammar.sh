#!/usr/bin/env bash
# snapkit atoms convert on the extended XYZ grammar files: every good file
# converts twice to the same bytes (the rewrite is a fixed point) with the
# comment text kept; every bad one is one stderr line naming file, line and
# column, non-zero, and no output file.
set -uo pipefail
CLI=${SNAPKIT_CLI:-build/snapkit}
DIR=${SNAPKIT_TEST_DATA:-tests/data}/atoms/extxyz_grammar
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/assert.sh"

for f in "$DIR"/*.extxyz; do
    b=$(basename "$f" .extxyz)
    case $b in bad_*) continue ;; esac
    check "$b once" "$CLI" atoms convert "$f" "$TMP/$b.1.extxyz"
    check "$b twice" "$CLI" atoms convert "$TMP/$b.1.extxyz" "$TMP/$b.2.extxyz"
    cmp -s "$TMP/$b.1.extxyz" "$TMP/$b.2.extxyz" || { echo "FAIL: $b: the rewrite changes again"; fail=1; }
done
grep -qF '"a\"b"=1 "key with spaces"=2 "single key"=3 nl="a\nb"' "$TMP/escapes.1.extxyz" \
    || { echo "FAIL: escapes rewritten as:"; sed -n 2p "$TMP/escapes.1.extxyz"; fail=1; }
grep -qF 'Lattice="4 0 0 1 3 0 0.5 0.7 2"' "$TMP/lattice_nested.1.extxyz" \
    || { echo "FAIL: nested Lattice rewritten as:"; sed -n 2p "$TMP/lattice_nested.1.extxyz"; fail=1; }

expect_error "unterminated quote" "bad_unterminated_quote.extxyz: line 2, column 42: comment line: unterminated quoted string" \
    "$CLI" atoms convert "$DIR/bad_unterminated_quote.extxyz" "$TMP/o.extxyz"
expect_error "unbalanced bracket" "bad_unbalanced_bracket.extxyz: line 2, column 34: comment line: '[' without its ']'" \
    "$CLI" atoms convert "$DIR/bad_unbalanced_bracket.extxyz" "$TMP/o.extxyz"
expect_error "overflow" "bad_overflow.extxyz: line 2, column 36: comment line: value of big: number '1e400' is too large" \
    "$CLI" atoms info "$DIR/bad_overflow.extxyz"
ok test ! -e "$TMP/o.extxyz"
exit $fail
