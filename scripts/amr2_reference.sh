#!/bin/sh
# shellcheck disable=SC2086  # FFLAGS and each case's args split into words on purpose
# Rebuild tests/data/amr2/: maps and cubes of the RAMSES fixtures made by RAMSES's own
# utils/f90/amr2map.f90 and amr2cube.f90, which tests/python/test_amr2_ramses.py
# compares with snapkit project / cube.
#
#   scripts/amr2_reference.sh RAMSES [SHARED]
#
# RAMSES: a checkout of github.com/ramses-organisation/ramses, or its bare git directory
# (HEAD is used). SHARED: the shared directory holding fixtures/ramses (default ../shared
# beside this clone). Needs gfortran and /usr/bin/python3 with numpy.
#
# Built with -O2, not the Makefile's -Ofast (fast-math may reassociate sums; with gfortran
# 12 both give the same bits on every stored reference). gfortran refuses amr2cube's reads of info_*.txt through
# formats with quoted strings ('("levelmin    =",I11)'): those three formats are replaced
# by the same widths skipped with nX. Nothing else of RAMSES's source is changed.
set -eu

if [ $# -lt 1 ]; then
    echo "usage: $0 RAMSES_CHECKOUT_OR_GIT_DIR [SHARED_DIR]" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RAMSES=$1
SHARED=${2:-$ROOT/../shared}
OUT=$ROOT/tests/data/amr2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ -f "$RAMSES/utils/f90/amr2map.f90" ]; then
    for f in utils amr2map amr2cube; do cp "$RAMSES/utils/f90/$f.f90" "$WORK/"; done
    COMMIT=$(git -C "$RAMSES" rev-parse HEAD 2>/dev/null || echo unknown)
else
    for f in utils amr2map amr2cube; do
        git --git-dir="$RAMSES" show "HEAD:utils/f90/$f.f90" > "$WORK/$f.f90"
    done
    COMMIT=$(git --git-dir="$RAMSES" rev-parse HEAD)
fi

FFLAGS="-w -ffree-line-length-none -O2 -cpp"
cd "$WORK"
sed -i -e "s/read(10,'(\"levelmin    =\",I11)')/read(10,'(13X,I11)')/" \
       -e "s/read(10,'(\"time        =\",E23.15)')/read(10,'(13X,E23.15)')/" \
       -e "s/read(10,'(\"ordering type=\",A80)'),/read(10,'(14X,A80)')/" amr2cube.f90
gfortran $FFLAGS -c utils.f90
gfortran $FFLAGS -c amr2map.f90
gfortran utils.o amr2map.o -o amr2map
gfortran $FFLAGS -fallow-argument-mismatch amr2cube.f90 -o amr2cube

# name tool fixture args...  (fixture: data:PATH under tests/data, shared:PATH under SHARED)
cat > cases.txt <<'EOF'
sedov_z_rho amr2map shared:fixtures/ramses/sedov3d/output_00002 -typ 1 -lma 7
sedov_x_rho_vol amr2map shared:fixtures/ramses/sedov3d/output_00002 -typ 1 -lma 7 -act 1 -dir x
sedov_y_p amr2map shared:fixtures/ramses/sedov3d/output_00002 -typ 5 -lma 6 -dir y
sedov_slab_vx amr2map shared:fixtures/ramses/sedov3d/output_00002 -typ 2 -lma 7 -xmi 0.25 -xma 0.75 -ymi 0.25 -yma 0.75 -zmi 0.4 -zma 0.6
gravpart_x_rho amr2map data:ramses/gravpart/output_00002 -typ 1 -lma 7 -dir x
gravpart_y_metal amr2map data:ramses/gravpart/output_00002 -typ 6 -lma 7 -dir y
gravpart_z_level amr2map data:ramses/gravpart/output_00002 -typ 0 -lma 7
gravpart_odd_region amr2map data:ramses/gravpart/output_00002 -typ 1 -lma 7 -xmi 0.3 -xma 0.7 -ymi 0.2 -yma 0.71 -zmi 0.4 -zma 0.6
gravpart_x_slab_p amr2map data:ramses/gravpart/output_00002 -typ 5 -lma 6 -dir x -xmi 0.45 -xma 0.6
gravpart_y_slab_vz amr2map data:ramses/gravpart/output_00002 -typ 4 -lma 6 -dir y -ymi 0.2 -yma 0.33 -xmi 0.1 -xma 0.8
gravpart_below_levelmin amr2map data:ramses/gravpart/output_00002 -typ 1 -lma 2
manyfiles_z_rho amr2map data:ramses/manyfiles/output_00002 -typ 1
manyfiles_y_T amr2map data:ramses/manyfiles/output_00002 -typ 15 -act 1 -dir y
cosmo_z_rho_vol amr2map shared:fixtures/ramses/cosmo32/output_00003 -typ 1 -lma 7 -act 1
cosmo_slab_rho amr2map shared:fixtures/ramses/cosmo32/output_00003 -typ 1 -lma 7 -zmi 0.3 -zma 0.45 -dir z
mhd_z_p amr2map shared:fixtures/ramses/mhd3d/output_00002 -typ 11 -lma 6
mhd_x_B amr2map shared:fixtures/ramses/mhd3d/output_00002 -typ 30 -lma 6 -act 1 -dir x
rt_z_scalar amr2map shared:fixtures/ramses/rt3d/output_00002 -typ 6 -lma 6
clumps_y_rho amr2map shared:fixtures/ramses/clumps3d/output_00002 -typ 1 -lma 7 -dir y
clumps_slab_rho_vol amr2map shared:fixtures/ramses/clumps3d/output_00002 -typ 1 -lma 6 -act 1 -zmi 0.25 -zma 0.5
sink_z_T amr2map shared:fixtures/ramses/sink3d/output_00002 -typ 15 -lma 7
sedov_cube_rho amr2cube shared:fixtures/ramses/sedov3d/output_00002 -typ 1 -lma 6 -xmi 0.25 -xma 0.75 -ymi 0.25 -yma 0.75 -zmi 0.25 -zma 0.75
gravpart_cube_vx amr2cube data:ramses/gravpart/output_00002 -typ 2 -lma 5
gravpart_cube_odd amr2cube data:ramses/gravpart/output_00002 -typ 1 -lma 6 -xmi 0.3 -xma 0.7 -ymi 0.2 -yma 0.71 -zmi 0.4 -zma 0.6
gravpart_cube_below_levelmin amr2cube data:ramses/gravpart/output_00002 -typ 1 -lma 3
manyfiles_cube_p amr2cube data:ramses/manyfiles/output_00002 -typ 5
cosmo_cube_rho amr2cube shared:fixtures/ramses/cosmo32/output_00003 -typ 1 -lma 5
mhd_cube_p amr2cube shared:fixtures/ramses/mhd3d/output_00002 -typ 11 -lma 5
sink_cube_T amr2cube shared:fixtures/ramses/sink3d/output_00002 -typ 15 -lma 6 -xmi 0.375 -xma 0.625 -ymi 0.375 -yma 0.625 -zmi 0.375 -zma 0.625
EOF

mkdir -p "$OUT"
while read -r name tool fixture args; do
    case $fixture in
        data:*) dir=$ROOT/tests/data/${fixture#data:} ;;
        shared:*) dir=$SHARED/${fixture#shared:} ;;
    esac
    "./$tool" -inp "$dir" -out "$name.bin" $args > "$name.log"
    /usr/bin/python3 - "$name" "$tool" "$fixture" "$COMMIT" "$FFLAGS" "$OUT" $args <<'PY'
import json, os, sys
import numpy as np

name, tool, fixture, commit, fflags, out = sys.argv[1:7]
args = sys.argv[7:]
raw = open(name + ".bin", "rb").read()
recs, i = [], 0
while i < len(raw):  # Fortran sequential records: int32 length, bytes, int32 length
    n = int(np.frombuffer(raw, "<i4", 1, i)[0])
    recs.append(raw[i + 4:i + 4 + n])
    i += 8 + n
if tool == "amr2map":  # t, width, height, depth (real*8); nx, ny; map(nx, ny) real*4
    nx, ny = np.frombuffer(recs[1], "<i4")
    data = np.frombuffer(recs[2], "<f4").reshape(ny, nx)
else:  # nx, ny, nz; cube(nx, ny, nz) real*4
    nx, ny, nz = np.frombuffer(recs[0], "<i4")
    data = np.frombuffer(recs[1], "<f4").reshape(nz, ny, nx)
np.save(os.path.join(out, name + ".npy"), data)
meta = {"tool": tool, "fixture": fixture, "args": args,
        "command": " ".join([tool, "-inp", fixture, "-out", name + ".bin"] + args),
        "ramses_commit": commit, "compiler": "gfortran " + fflags,
        "shape": list(data.shape), "dtype": "float32 (Fortran real*4, as written)",
        "axes": "map: rows = the map's second axis (amr2map's iy); cube: (z, y, x)"}
with open(os.path.join(out, name + ".json"), "w") as f:
    json.dump(meta, f, indent=1)
    f.write("\n")
PY
    echo "$name: $tool $args"
done < cases.txt
