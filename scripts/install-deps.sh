#!/usr/bin/env bash
# Install the Debian 12 packages snapkit needs, only those missing.
#   scripts/install-deps.sh          build + run (compiler, libraries, numpy)
#   scripts/install-deps.sh --test   also what the tests compare against
set -euo pipefail

build=(build-essential cmake pkg-config
       liblz4-dev        # compact file: per-column chunk compression
       libxxhash-dev     # compact file: chunk and footer checksums
       libcfitsio-dev    # maps as FITS
       libpng-dev        # maps as PNG pictures
       zlib1g-dev        # .gz atom files
       python3-numpy)    # the Python package's columns
test=(python3-pytest     # Python tests
      clang libclang-rt-14-dev libomp-dev  # libFuzzer targets (clang + its OpenMP)
      python3-yt         # independent RAMSES reader the tests compare with
      python3-ase        # independent atom-file reader/writer
      lammps)            # LAMMPS itself reads the data files we write

want=("${build[@]}")
if [[ "${1:-}" == "--test" ]]; then
    want+=("${test[@]}")
fi

missing=()
for p in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "installing: ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
