#!/usr/bin/env bash
# The MPI paths of snapkit once under AddressSanitizer, LeakSanitizer and
# UBSan (docs/mpi.md): build a separate MPI + ASan tree, then run
#
#   cmake -S . -B build-mpiasan -DCMAKE_BUILD_TYPE=Debug -DSNAPKIT_SANITIZE=ON -DSNAPKIT_MPI=ON
#   cmake --build build-mpiasan --target snapkit_cli
#   scripts/mpi-asan.sh build-mpiasan/snapkit
#
# Open MPI keeps some blocks until exit; scripts/mpi-asan.supp suppresses
# leaks whose stacks go through Open MPI's libraries (never snapkit's own),
# its plug-ins stay loaded (mca_base_component_disable_dlclose) so their
# frames have names, and stacks are unwound in full (fast_unwind_on_malloc=0).
# Each case runs on 2 and 3 ranks; any sanitizer report or failure fails it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sk=$(cd "$(dirname "${1:-$root/build-mpiasan/snapkit}")" && pwd)/$(basename "${1:-snapkit}")
[[ -x $sk ]] || { echo "mpi-asan: no snapkit at $sk" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gp=$root/tests/data/ramses/gravpart/output_00002
shared=${SNAPKIT_SHARED:-$root/../shared}
clumps=$shared/fixtures/ramses/clumps3d/output_00002
failed=0 ran=0

check() {
    local name=$1 k
    shift
    for k in 2 3; do
        ran=$((ran + 1))
        timeout 600 mpirun --oversubscribe --allow-run-as-root -np "$k" \
            -x OMPI_MCA_mca_base_component_disable_dlclose=1 \
            -x ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=40:detect_leaks=1 \
            -x LSAN_OPTIONS=suppressions=$root/scripts/mpi-asan.supp:print_suppressions=0 \
            -x UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            "$sk" "$@" >/dev/null 2>"$tmp/err"
        local rc=$?
        if [[ $rc -ne 0 ]] || grep -qE "Sanitizer|runtime error" "$tmp/err"; then
            echo "FAIL $name on $k ranks (exit $rc)"
            head -n 40 "$tmp/err" | sed 's/^/    /'
            failed=$((failed + 1))
        else
            echo "ok   $name on $k ranks"
        fi
    done
}

check "stats --json" stats "$gp" --json
check "stats --weight mass" stats "$gp" --weight mass --percentiles 50 --json
check "stats --clip in a sphere" stats "$gp" --clip --center 0.5 0.5 0.5 --sphere 0.2 --json
check "convert to .snapkit" convert "$gp" -o "$tmp/g.snapkit"
check "stats of the .snapkit file" stats "$tmp/g.snapkit" --json
check "project sd,T" project "$gp" --vars sd,T --res 64 -o "$tmp/m_{var}.npy"
check "center com" center "$gp" --json
check "profile about the centre" profile "$gp" --center 0.5 0.5 0.5 --sphere 0.3 --bin r \
    --vars density,T --percentiles 50 -o "$tmp/p.json"
check "phase density-T" phase "$gp" --x density --y T --bins 32,32 -o "$tmp/ph.npy"
check "profile of gas and particles" profile "$gp" --center 0.5 0.5 0.5 --sphere 0.3 --bin r \
    --vars v_circ --component hydro,particles -o "$tmp/pc.json"
check "slice along z" slice "$gp" --axis z --at 0.3 --vars density,T --res 64 -o "$tmp/s_{var}.npy"
check "slice off-axis" slice "$gp" --normal 1 2 3 --vars density --res 64 -o "$tmp/so.npy"
check "clumps of particles (fof)" clumps "$gp" --component particles --min-cells 5 -o "$tmp/p.csv"
[[ -d $clumps ]] && check "clumps of cells (watershed)" clumps "$clumps" --threshold 1 \
    --finder watershed --min-cells 5 -o "$tmp/c.csv" --ids "$tmp/c.npy"
echo "mpi-asan: $((ran - failed)) of $ran runs clean"
[[ $failed -eq 0 ]]
