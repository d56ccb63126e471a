#!/usr/bin/env bash
# Installs what is missing, builds, and runs podbench's main job, `podbench
# reproduce`: Google's MLPerf v0.6 submission reproduced on the emulated
# TPU-v3 pod (every workload with a google-v0.6 preset, projected, on every
# slice its preset covers, with the v0.6 number of scored runs, every log
# checked against the v0.6 rules), the fidelity table against the published
# results, the verdicts and scores of the real published Google v0.6 logs
# where ../shared is present, and the HTML report. Everything lands in
# quickstart/: podbench.db, logs/, reproduce.json and report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The binary is all the quick start needs (scripts/test.sh builds the rest).
PODBENCH_BUILD_TARGETS=podbench bash scripts/build.sh build/release
pb=build/release/harness/podbench
out=quickstart
rm -rf "$out"
$pb --version
$pb reproduce --out "$out"
