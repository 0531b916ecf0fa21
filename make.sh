#!/bin/sh
# The README's two commands, on any Debian 12 machine, even a minimal one with
# no compiler and no make:
#   ./make.sh run     build, then run the main job on the shipped example
#   ./make.sh test    build, then run every test
# make, the C compiler and CMake are installed first when missing (as root, or
# through sudo as a user who has it); the Makefile then installs the rest
# (scripts/install-deps.sh) and does the work. Any other make target works too.
set -eu
cd "$(dirname "$0")"

if ! command -v make >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1 \
   || ! command -v cmake >/dev/null 2>&1 || ! command -v bash >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "make.sh: make, cc and cmake are missing and this user is neither root nor has sudo;" >&2
        echo "make.sh: ask an administrator for: apt-get install build-essential cmake pkg-config" >&2
        exit 1
    fi
    echo "installing the build tools: build-essential cmake pkg-config"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential cmake pkg-config
fi
exec make "${@:-run}"
