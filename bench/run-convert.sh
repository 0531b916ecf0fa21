#!/usr/bin/env bash
# Does converting a run's outputs several at once pay? Writes N synthetic
# outputs with `snapkit make-ramses` (output_00001 .. N, one seed each),
# reads them once so both ways find the page cache warm, then times, runs
# alternated:
#   together    snapkit convert RUN/output_* -o DIR/   (one process per
#               output, --jobs from the thread budget)
#   one by one  snapkit convert RUN/output_NNNNN -o DIR/output_NNNNN.snapkit
#               for each output in turn, every thread on each
# and prints the medians and their ratio (above 1: together is faster),
# with the machine's CPU count. Options:
#   --outputs N     outputs (default 8)
#   --runs N        repetitions of both ways (default 3)
#   --cli PATH      the snapkit program (default build/snapkit)
#   --dir PATH      where outputs and files go (default a temporary folder, removed)
#   --json          one JSON object instead of the text lines
# Any other options go to make-ramses (default --ncpu 8 --levelmin 6
# --levelmax 8 --npart 200000 --refine clumps: about 30 MB an output).
set -euo pipefail
cli=build/snapkit noutputs=8 runs=3 dir= json=0 make=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --outputs) noutputs=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --cli) cli=$2; shift 2 ;;
        --dir) dir=$2; shift 2 ;;
        --json) json=1; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) make+=("$1"); shift ;;
    esac
done
[[ ${#make[@]} -gt 0 ]] || make=(--ncpu 8 --levelmin 6 --levelmax 8 --npart 200000 --refine clumps)
[[ -x $cli ]] || { echo "run-convert.sh: no snapkit program at $cli (--cli PATH)" >&2; exit 2; }
[[ $noutputs -ge 2 && $runs -ge 1 ]] || { echo "run-convert.sh: --outputs >= 2, --runs >= 1" >&2; exit 2; }
if [[ -z $dir ]]; then
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir/run"
for ((n = 1; n <= noutputs; n++)); do
    out=$(printf '%s/run/output_%05d' "$dir" $n)
    [[ -d $out ]] || "$cli" make-ramses "$out" "${make[@]}" --seed $n > /dev/null
done
cat "$dir"/run/output_*/* > /dev/null # warm the page cache for both ways
outs=("$dir"/run/output_*)

now() { date +%s.%N; }
calc() { awk "BEGIN { print $1 }"; }
together() {
    rm -rf "$dir/together"
    local t0; t0=$(now)
    "$cli" convert "${outs[@]}" -o "$dir/together/" > "$dir/together.log"
    calc "$(now) - $t0"
}
one_by_one() {
    rm -rf "$dir/sequential"; mkdir -p "$dir/sequential"
    local t0 o; t0=$(now)
    for o in "${outs[@]}"; do
        "$cli" convert "$o" -o "$dir/sequential/$(basename "$o").snapkit" > /dev/null
    done
    calc "$(now) - $t0"
}
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

tt=() ts=()
for ((r = 0; r < runs; r++)); do
    tt+=("$(together)")
    ts+=("$(one_by_one)")
done
for o in "${outs[@]}"; do # both ways wrote the same files
    b=$(basename "$o")
    cmp -s "$dir/together/$b.snapkit" "$dir/sequential/$b.snapkit" ||
        { echo "run-convert.sh: $b.snapkit differs between the two ways" >&2; exit 1; }
done
t=$(median "${tt[@]}") s=$(median "${ts[@]}")
ratio=$(calc "$s / $t")
bytes=$(du -sb "$dir/run" | cut -f1)
at_once=$(tail -1 "$dir/together.log" | sed -n 's/.*(\(.*\))$/\1/p')
if [[ $json == 1 ]]; then
    printf '{"outputs":%d,"runs":%d,"cpus":%d,"bytes":%d,"together_seconds":%.4f,"one_by_one_seconds":%.4f,"ratio":%.3f,"together":"%s"}\n' \
        "$noutputs" "$runs" "$(nproc)" "$bytes" "$t" "$s" "$ratio" "$at_once"
else
    printf '%d outputs (%.1f MB of RAMSES files), %d CPUs, medians of %d runs\n' \
        "$noutputs" "$(calc "$bytes / 1e6")" "$(nproc)" "$runs"
    printf '  together (%s)  %.3f s\n  one by one             %.3f s\n  ratio                  %.2fx\n' \
        "$at_once" "$t" "$s" "$ratio"
fi
