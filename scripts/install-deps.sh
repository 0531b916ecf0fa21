#!/usr/bin/env bash
# Install the Debian 12 packages snapkit needs, only those missing.
#   scripts/install-deps.sh          build + run (compiler, libraries, numpy)
#   scripts/install-deps.sh --test   also what the tests compare against
set -euo pipefail

build=(build-essential cmake pkg-config
       liblz4-dev        # compact file: per-column chunk compression
       libxxhash-dev     # compact file: chunk and footer checksums
       libcfitsio-dev    # maps as FITS
       libhdf5-dev       # snapkit export: .h5 for h5py, .vtkhdf for ParaView
       libpng-dev        # bare maps as PNG (--raw, the library's .png)
       libcairo2-dev     # figures (maps, bench report) as PNG, SVG, PDF; the CLI only
       zlib1g-dev        # .gz atom files
       python3-numpy     # the Python package's columns
       libopenmpi-dev openmpi-bin)  # MPI: the same commands on many nodes (mpirun, srun)
test=(python3-pytest     # Python tests
      clang libclang-rt-14-dev libomp-dev  # libFuzzer targets (clang + its OpenMP)
      python3-yt         # independent RAMSES reader the tests compare with
      python3-scipy      # brute-force references of the clump tests (cKDTree, pdist, quad)
      python3-ase        # independent atom-file reader/writer
      lammps             # LAMMPS itself reads the data files we write
      python3-astropy    # FITS maps read back with astropy.io.fits and astropy.wcs; to_astropy()
      python3-pandas     # Table.to_pandas()
      python3-matplotlib # the quickstart notebook's figures; PNG colours checked against viridis
      jupyter-nbconvert  # the tests execute docs/examples/quickstart.ipynb
      python3-mpi4py     # snapkit.open(path, comm=MPI.COMM_WORLD) tested under mpirun (test_mpi.sh)
      python3-ipykernel  # the notebook's kernel: Debian's /usr/bin/python3
      python3-h5py       # snapkit export's .h5 files read back with h5py
      python3-vtk9       # snapkit export's .vtkhdf files read back with VTK's vtkHDFReader
      python3-pip python3-venv python3-setuptools python3-wheel)  # pip install . in a fresh venv

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
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
