# Shared by the CLI test scripts (sourced; not a test itself): checks that
# count failures in $fail and keep the command's output in $TMP/out, $TMP/err.
fail=0
check() { # check "what" command...: the command must succeed
    local what=$1; shift
    if ! "$@" > "$TMP/out" 2> "$TMP/err"; then
        echo "FAIL: $what"; cat "$TMP/err"; fail=1
    fi
}
expect_error() { # expect_error "what" "message part" command...: non-zero, one line
    local what=$1 part=$2; shift 2
    if "$@" > "$TMP/out" 2> "$TMP/err"; then
        echo "FAIL: $what succeeded"; fail=1; return
    fi
    if [[ $(wc -l < "$TMP/err") -ne 1 ]] || ! grep -qF -- "$part" "$TMP/err"; then
        echo "FAIL: $what: expected one line with '$part', got:"; cat "$TMP/err"; fail=1
    fi
}
has() { grep -qF -- "$1" "$TMP/out" || { echo "FAIL: output lacks '$1'"; cat "$TMP/out"; fail=1; }; }
ok() { "$@" || { echo "FAIL: $*"; fail=1; }; }
# skip "why": stop the test as skipped (exit 77, CTest's SKIP_RETURN_CODE),
# or as failed when a check already failed: a skip never hides a failure.
skip() { echo "SKIP: $*"; [[ $fail -eq 0 ]] || exit 1; exit 77; }
# Is the library an ASan/UBSan build? Python cannot load one (the sanitizer
# runtime must come first), so a script skips its Python part there.
sanitized_library() { [[ -n "${SNAPKIT_LIBRARY:-}" ]] && ldd "$SNAPKIT_LIBRARY" 2>/dev/null | grep -q 'libasan'; }
