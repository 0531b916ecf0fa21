#!/usr/bin/env bash
# The thread budget at the command line: each scheduler variable and the
# affinity mask limit `snapkit threads` and the bench stages, and asking
# for more threads than the job owns names the value to use.
set -euo pipefail
cli=${SNAPKIT_CLI:-build/snapkit}
data=${SNAPKIT_TEST_DATA:-tests/data}
py=/usr/bin/python3
vars=(SLURM_CPUS_PER_TASK SLURM_JOB_CPUS_PER_NODE PBS_NP NSLOTS OMP_NUM_THREADS)
clean=(env)
for v in "${vars[@]}"; do clean+=(-u "$v"); done

field() { # field JSON KEY
    $py -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"
}
fail() { echo "FAIL: $*" >&2; exit 1; }

# Waiting threads sleep (OMP_WAIT_POLICY=passive, libgomp's spin count 0)
# unless the user chose; libgomp prints the policy it read at start-up.
spin() { env "$@" OMP_DISPLAY_ENV=verbose "$cli" --version 2>&1 | sed -n "s/^ *GOMP_SPINCOUNT = '\(.*\)'/\1/p"; }
default=$(spin -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT)
if [[ $(wc -l <<< "$default") -gt 1 ]]; then
    fail "two OpenMP runtimes report (a static and a shared libgomp): $default"
elif ldd "$cli" 2>/dev/null | grep -q 'libgomp\.so'; then
    echo "libgomp is a shared library here: the wait policy cannot be set before it starts"
else
    [[ $default == 0 ]] || fail "default spin count $default"
    [[ $(spin -u GOMP_SPINCOUNT OMP_WAIT_POLICY=active) == 30000000000 ]] || fail "OMP_WAIT_POLICY=active not kept"
    [[ $(spin -u OMP_WAIT_POLICY GOMP_SPINCOUNT=1000) == 1000 ]] || fail "GOMP_SPINCOUNT not kept"
fi

machine=$("${clean[@]}" "$cli" threads --json)
cpus=$(field "$machine" machine)
[[ $(field "$machine" owned) == "$(nproc)" ]] || fail "owned $(field "$machine" owned) != nproc $(nproc)"
if [[ $cpus -lt 2 ]]; then
    echo "SKIP: one CPU: a budget of 1 cannot be told from the machine's"
    exit 77  # reported as skipped by CTest
fi

# Each variable alone sets the budget (SLURM's node form "1(x2)" too).
for v in "${vars[@]}"; do
    value=1
    [[ $v == SLURM_JOB_CPUS_PER_NODE ]] && value="1(x2)"
    out=$("${clean[@]}" "$v=$value" "$cli" threads --json)
    [[ $(field "$out" owned) == 1 ]] || fail "$v=$value: owned $(field "$out" owned)"
    [[ $(field "$out" limited_by) == "$v" ]] || fail "$v: limited_by $(field "$out" limited_by)"
    [[ $(field "$out" threads) == 1 ]] || fail "$v: threads $(field "$out" threads)"
done

# The smallest source wins when several are set.
out=$("${clean[@]}" OMP_NUM_THREADS=2 SLURM_CPUS_PER_TASK=1 "$cli" threads --json)
[[ $(field "$out" limited_by) == SLURM_CPUS_PER_TASK ]] || fail "smallest source: $out"

# The affinity mask.
out=$("${clean[@]}" taskset -c 0 "$cli" threads --json)
[[ $(field "$out" affinity) == 1 && $(field "$out" owned) == 1 ]] || fail "taskset: $out"
[[ $(field "$out" limited_by) == affinity ]] || fail "taskset limited_by: $out"

# Asking for more than the job owns: a warning naming the value to use.
text=$("${clean[@]}" SLURM_CPUS_PER_TASK=1 "$cli" threads --threads 4)
grep -q "warning: 4 threads were asked for but the job owns 1.*use --threads 1" \
    <<<"$text" || fail "threads warning: $text"

# The bench stages honour the budget: levels above it are skipped, with
# the same warning on stderr.
dir="$data/ramses/sedov3d/output_00001"
err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$("${clean[@]}" SLURM_CPUS_PER_TASK=1 "$cli" bench storage "$dir" --threads 1,2 --runs 1 \
      --nfiles 4 --json 2>"$err")
grep -q "owns 1 (set by SLURM_CPUS_PER_TASK); use --threads 1" "$err" || fail "bench warning: $(cat "$err")"
$py - "$out" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
assert [p["threads"] for p in s["points"]] == [1], s["points"]
assert s["threads_owned"] == 1 and s["levels_dropped"] == 1, s
PY
out=$("${clean[@]}" taskset -c 0 "$cli" bench storage "$dir" --runs 1 --nfiles 4 --json 2>"$err")
$py -c 'import json,sys; s=json.loads(sys.argv[1]); assert s["threads_owned"]==1 and [p["threads"] for p in s["points"]]==[1], s' "$out"
[[ ! -s "$err" ]] || fail "unexpected stderr under taskset: $(cat "$err")"
echo "thread budget: ok"
