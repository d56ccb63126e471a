#!/usr/bin/env bash
# Installs what is missing, builds, and runs podbench's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build/release
pb=build/release/harness/podbench
$pb --version
$pb --help
