#!/usr/bin/env bash
# The side-by-side tables of docs/performance.md, measured in one run on the
# fixtures: RAMSES reads and projections against yt, atom files against ASE,
# and the conversion break-even. Prints Markdown on stdout.
#
#   peers/performance.sh > /tmp/performance.md     (after `make build`)
#
# The peers run in the same session on the same page-cache-warm files; each
# table comes from the script named above it, which says how it measures.
# On a shared machine timings are noisy: compare the ratios of one run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${SNAPKIT_CLI:-$root/build/snapkit}
py=/usr/bin/python3
export SNAPKIT_LIBRARY=${SNAPKIT_LIBRARY:-$root/build/libsnapkit.so}
shared=${SNAPKIT_SHARED:-}
for d in "$root/../shared" "$root/../../shared"; do
    [[ -z "$shared" && -d "$d/fixtures" ]] && shared=$(cd "$d" && pwd)
done
export SNAPKIT_SHARED=$shared
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$root"
outputs=()
declare -A seen
for d in tests/data/ramses/*/output_* "$shared"/fixtures/ramses/*/output_*; do
    key=$(basename "$(dirname "$d")")/$(basename "$d")
    [[ -d "$d" && -z "${seen[$key]:-}" ]] || continue
    seen[$key]=1
    outputs+=("$d")
done

section() { # section TITLE COMMAND...
    local title=$1
    shift
    printf '\n### %s\n\n`%s`\n\n```\n' "$title" "$*"
    "$@"
    printf '```\n'
}

echo "Measured $(date -u +%Y-%m-%d) on $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'),"
echo "$(nproc) CPUs ($("$cli" threads --json | $py -c 'import json,sys; b=json.load(sys.stdin); print("%d owned, set by %s" % (b["owned"], b["limited_by"]))')),"
echo "$(awk '/MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo) RAM, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."

section "RAMSES reads: snapkit against yt" $py peers/ramses_vs_yt.py --repeat 3
section "Projections: snapkit against yt" $py peers/project_vs_yt.py
section "Atom files: snapkit against ASE" $py peers/atoms_vs_ase.py --sizes 4000,32000 --out "$tmp/atoms"

printf '\n### Conversion break-even\n\n`snapkit bench convert OUTPUT --runs 3 --threads 1 --json` on each output above (one thread: on a shared two-core machine a second thread measures the neighbours)\n\n'
printf '| output | read s | write s | re-read s | speedup | break-even re-reads | whole conversion | churn | RAMSES MB | .snapkit MB | size |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
for d in "${outputs[@]}"; do
    "$cli" bench convert "$d" --runs 3 --threads 1 --file "$tmp/convert.snapkit" --json |
        $py -c '
import json, sys
c = json.load(sys.stdin)
name = "/".join(sys.argv[1].rstrip("/").split("/")[-2:])
be, bc, ch = c["break_even_rereads"], c["break_even_conversion"], c["churn_ratio"]
print("| %s | %.4f | %.4f | %.4f | %.1fx | %s | %s | %s | %.1f | %.1f | %.0f%% |" % (
    name, c["read_seconds"], c["write_seconds"], c["reread_seconds"], c["speedup"],
    "never" if be is None else "%.2g" % be, "never" if bc is None else "%.2g" % bc,
    "-" if ch is None else "%.2gx" % ch, c["bytes_ramses"] / 1e6, c["bytes_file"] / 1e6,
    c["size_percent"]))' "$d"
done
