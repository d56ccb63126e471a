#!/usr/bin/env bash
# Installs what is missing, builds (Release with assertions) and runs every test.
#   scripts/test.sh [BUILD_DIR] [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
dir=${1:-build/release}
shift || true
bash scripts/build.sh "$dir" "$@"
ctest --test-dir "$dir" -j "$(nproc)" --output-on-failure --timeout 900
