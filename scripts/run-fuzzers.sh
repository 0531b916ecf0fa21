#!/usr/bin/env bash
# Run every fuzz target in BUILD_DIR for SECONDS each. A target's seed corpus
# is fuzz/corpus/<name>/ plus the files fuzz/seeds/<name> lists (one path per
# line, relative to the repository). Crashes fail the run.
set -euo pipefail
build=$(cd "$1" && pwd)
seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
status=0
for bin in "$build"/fuzz_*; do
    [[ -x "$bin" && -f "$bin" ]] || continue
    name=$(basename "$bin")
    work=$(mktemp -d)
    if [[ -d "$root/fuzz/corpus/$name" ]]; then
        cp -r "$root/fuzz/corpus/$name/." "$work/"
    fi
    if [[ -f "$root/fuzz/seeds/$name" ]]; then
        while read -r f; do
            [[ -n "$f" && -f "$root/$f" ]] && cp "$root/$f" "$work/$(echo "$f" | tr / _)"
        done < "$root/fuzz/seeds/$name"
    fi
    echo "fuzz: $name for ${seconds}s"
    if ! (cd "$work" && ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions="$root/fuzz/lsan.supp" "$bin" -max_total_time="$seconds" \
              -rss_limit_mb=2048 -max_len=65536 -print_final_stats=0 "$work" > fuzz.log 2>&1); then
        echo "fuzz: $name FAILED"; tail -n 40 "$work/fuzz.log"; status=1
    fi
    rm -rf "$work"
done
exit $status
