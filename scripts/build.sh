#!/usr/bin/env bash
# Configures and builds podbench with Ninja.
#   scripts/build.sh [BUILD_DIR] [extra cmake args...]
# BUILD_DIR defaults to build/release. ccache is used when installed.
# PODBENCH_BUILD_TARGETS (space-separated) builds only those targets, e.g.
# "podbench" for the binary alone; default: everything (tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/release}
shift || true
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$dir" -G Ninja -DPODBENCH_WERROR=ON "${launcher[@]}" "$@" >/dev/null
targets=()
for t in ${PODBENCH_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$dir" -j "$(nproc)" "${targets[@]}"
